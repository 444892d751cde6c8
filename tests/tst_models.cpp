// Item models and pure helpers of the GUI (widgets/): every model is checked with
// QAbstractItemModelTester while it is filled, updated and emptied; the helpers against
// hand-computed values. No worker process is started.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolTip>
#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <cmath>

#include "architecturemodel.h"
#include "dialogs.h"
#include "elide.h"
#include "experiment/spec_schema.h"
#include "experimenteditor.h"
#include "filepicker.h"
#include "guiutil.h"
#include "heatmapplot.h"
#include "importanceview.h"
#include "model/config.h"
#include "planestimate.h"
#include "runmanager.h"
#include "runtablemodel.h"
#include "session.h"
#include "specdiffmodel.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;
namespace st = gb::store;

namespace {

RunRow makeRun(qint64 id, const QString& name, st::RunStatus status, double forgetting = qQNaN(),
               std::vector<std::string> tags = {}) {
  RunRow r;
  r.info.id = id;
  r.info.name = name.toStdString();
  r.info.status = status;
  r.info.tags = std::move(tags);
  r.planLabel = u"plan %1"_s.arg(id);
  r.variant = u"grow"_s;
  r.forgetting = forgetting;
  r.totalSteps = 100;
  r.lastStep = 50;
  return r;
}

RunSnapshot snapshotOf(std::initializer_list<RunRow> rows) {
  RunSnapshot s;
  for (const auto& r : rows) s.runs.push_back(r);
  return s;
}

gb::ModelConfig fixtureConfig() {
  return gb::load_config(GB_SHARED_DIR "/fixtures/hf-reference/llama/config.json");
}

}  // namespace

class TstModels : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void runTableModelFollowsSnapshots() {
    RunTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setSnapshot(snapshotOf({makeRun(1, u"a"_s, st::RunStatus::Finished, 0.05),
                                  makeRun(3, u"c"_s, st::RunStatus::Running)}));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.count(), 2);
    // A run appears between the two, one goes: rows are inserted and removed, never reset.
    model.setSnapshot(snapshotOf({makeRun(1, u"a"_s, st::RunStatus::Finished, 0.05),
                                  makeRun(2, u"b"_s, st::RunStatus::Queued),
                                  makeRun(4, u"d"_s, st::RunStatus::Failed)}));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(model.rowOfRun(2), 1);
    QCOMPARE(model.rowOfRun(3), -1);
    QCOMPARE(model.index(1, RunTableModel::Name).data().toString(), u"b"_s);
    QCOMPARE(model.index(0, RunTableModel::Forgetting).data().toString(), u"+5.0 %"_s);
    QCOMPARE(model.index(2, RunTableModel::Status).data().toString(),
             statusText(st::RunStatus::Failed));
    QVERIFY(
        model.index(2, RunTableModel::Status).data(Qt::BackgroundRole).value<QColor>().isValid());
    QCOMPARE(model.index(0, RunTableModel::Id).data(RunTableModel::RunIdRole).toLongLong(), 1);
    // Live progress of a running run.
    RunRow running = makeRun(4, u"d"_s, st::RunStatus::Running);
    model.setSnapshot(snapshotOf({makeRun(1, u"a"_s, st::RunStatus::Finished, 0.05),
                                  makeRun(2, u"b"_s, st::RunStatus::Queued), running}));
    LiveProgress p;
    p.stage = u"train"_s;
    p.step = 30;
    p.total = 120;
    p.tokensPerS = 812;
    p.etaS = 75;
    model.setLiveProgress(4, p);
    const QModelIndex prog = model.index(2, RunTableModel::Progress);
    QCOMPARE(prog.data(RunTableModel::ProgressFractionRole).toDouble(), 0.25);
    QVERIFY(prog.data(RunTableModel::ProgressTextRole).toString().contains(u"30 / 120"_s));
    QVERIFY(prog.data(RunTableModel::ProgressTextRole).toString().contains(u"812"_s));
    model.clearLiveProgress(4);
    QCOMPARE(prog.data(RunTableModel::ProgressFractionRole).toDouble(), 0.5);  // 50 / 100
    model.setSnapshot({});
    QCOMPARE(model.rowCount(), 0);
  }

  void runFilterProxySortsAndFilters() {
    RunTableModel model;
    RunFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(
        snapshotOf({makeRun(1, u"full fine-tuning"_s, st::RunStatus::Finished, 0.40, {"baseline"}),
                    makeRun(2, u"grow g-freeze"_s, st::RunStatus::Finished, 0.01, {"growth"}),
                    makeRun(3, u"lora"_s, st::RunStatus::Failed, qQNaN()),
                    makeRun(4, u"scale preserve"_s, st::RunStatus::Finished, 0.0, {"growth"})}));
    proxy.sort(RunTableModel::Forgetting, Qt::AscendingOrder);
    // NaN sorts first (unknown), then 0.0, 0.01, 0.40.
    QCOMPARE(proxy.index(1, RunTableModel::Id).data().toString(), u"4"_s);
    QCOMPARE(proxy.index(3, RunTableModel::Id).data().toString(), u"1"_s);
    proxy.setText(u"G-FREEZE"_s);  // case-insensitive, in the name
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText({});
    proxy.setStatus(static_cast<int>(st::RunStatus::Finished));
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setTag(u"growth"_s);
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setStatus(-1);
    proxy.setTag({});
    QCOMPARE(proxy.rowCount(), 4);
  }

  void jobQueueModelTracksJobs() {
    RunManager manager;
    manager.setCliProgram(u"/bin/false"_s);  // every job fails at once
    manager.setStore(u"/nonexistent/growbench.db"_s, QString());
    JobQueueModel model(&manager);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy finished(&manager, &RunManager::jobFinished);
    const int a = manager.enqueueSpec(u"/tmp/a.json"_s, u"first"_s);
    const int b = manager.enqueueResume(7, u"resume 7"_s);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(finished.wait(10000));
    if (finished.count() < 2) QVERIFY(finished.wait(10000));
    QCOMPARE(manager.job(a)->state, RunJob::State::Failed);
    QCOMPARE(manager.job(b)->state, RunJob::State::Failed);
    QCOMPARE(manager.job(b)->arguments.mid(0, 3), (QStringList{u"run"_s, u"--resume"_s, u"7"_s}));
    QCOMPARE(model.index(0, JobQueueModel::State).data().toString(), u"failed"_s);
    // The worker is asked for JSON events whatever its stdout is (growbench-cli run --events).
    QVERIFY2(manager.commandLine(a).endsWith(
                 u"run /tmp/a.json --db /nonexistent/growbench.db --events json"_s),
             qPrintable(manager.commandLine(a)));
    manager.removeFinished();
    QCOMPARE(model.rowCount(), 0);
  }

  void architectureModelBuildsTheTree() {
    const char* json = R"({"model_type":"llama","parameters":1000,"num_layers":2,
      "outer":[{"name":"model.embed_tokens.weight","shape":[10,4],"params":40,"trainable":true,
                "dtype":"float32"}],
      "layers":[{"index":0,"attention":"full","params":480,"units":[
          {"name":"q","kind":"Linear","path":"self_attn.q_proj","params":16,
           "tensors":[{"name":"model.layers.0.self_attn.q_proj.weight","shape":[4,4],
                       "params":16,"trainable":false,"dtype":"float32"}]}]},
        {"index":1,"attention":"full","params":480,"units":[]}]})";
    ArchitectureModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSummary(QJsonDocument::fromJson(json).object());
    QCOMPARE(model.rowCount(), 3);  // outer group + 2 layers
    QCOMPARE(model.layerCount(), 2);
    const QModelIndex layer0 = model.index(1, 0);
    QCOMPARE(layer0.data().toString(), ArchitectureModel::tr("Layer %1").arg(0));
    QCOMPARE(model.rowCount(layer0), 1);
    const QModelIndex q = model.index(0, 0, layer0);
    QCOMPARE(q.data().toString(), u"q"_s);
    QCOMPARE(model.index(0, ArchitectureModel::Shape, layer0).data().toString(), u"(4 × 4)"_s);
    const QModelIndex tensor = model.index(0, ArchitectureModel::Kind, q);
    QVERIFY(tensor.data().toString().contains(u"frozen"_s));
    QCOMPARE(model.parent(model.index(0, 0, q)), q.siblingAtColumn(0));
    QCOMPARE(model.index(1, ArchitectureModel::Share).data().toString(), formatPercent(0.48));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void configTableFlattensNestedKeys() {
    ConfigTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setConfig(QJsonDocument::fromJson(
                        R"({"hidden_size":64,"rope_scaling":{"type":"llama3","factor":8},
                            "architectures":["LlamaForCausalLM"],"tie":false})")
                        .object());
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.value(u"hidden_size"_s), u"64"_s);
    QCOMPARE(model.value(u"rope_scaling.factor"_s), u"8"_s);
    QCOMPARE(model.value(u"architectures"_s), u"[\"LlamaForCausalLM\"]"_s);
    QCOMPARE(model.value(u"tie"_s), u"false"_s);
  }

  void specDiffMarksDifferences() {
    SpecDiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto a = nlohmann::json::parse(
        R"({"train":{"lr":0.001,"steps":10},"plans":[{"variant":"lora","rank":8}],"seed":0})");
    auto b = nlohmann::json::parse(
        R"({"train":{"lr":0.001,"steps":20},"plans":[{"variant":"lora","rank":16}],"x":1})");
    model.setSpecs(a, b, u"A"_s, u"B"_s);
    QCOMPARE(model.differenceCount(), 4);  // steps, rank, seed (absent in B), x (absent in A)
    model.setOnlyDifferences(true);
    QCOMPARE(model.rowCount(), 4);
    QStringList keys;
    for (int r = 0; r < model.rowCount(); ++r) keys << model.index(r, 0).data().toString();
    QVERIFY(keys.contains(u"plans[0].rank"_s));
    QVERIFY(keys.contains(u"train.steps"_s));
    QVERIFY(!keys.contains(u"train.lr"_s));
    model.setOnlyDifferences(false);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.headerData(SpecDiffModel::Right, Qt::Horizontal, Qt::DisplayRole).toString(),
             u"B"_s);
  }

  void emaSmoothing_data() {
    QTest::addColumn<QVector<double>>("in");
    QTest::addColumn<double>("weight");
    QTest::addColumn<QVector<double>>("out");
    QTest::newRow("raw") << QVector<double>{1, 2, 3} << 0.0 << QVector<double>{1, 2, 3};
    QTest::newRow("half") << QVector<double>{0, 4, 4} << 0.5 << QVector<double>{0, 2, 3};
    QTest::newRow("nan passes") << QVector<double>{2, qQNaN(), 4} << 0.5
                                << QVector<double>{2, qQNaN(), 3};
  }
  void emaSmoothing() {
    QFETCH(QVector<double>, in);
    QFETCH(double, weight);
    QFETCH(QVector<double>, out);
    const auto got = emaSmooth(in, weight);
    QCOMPARE(got.size(), out.size());
    for (int i = 0; i < out.size(); ++i) {
      if (std::isnan(out[i]))
        QVERIFY(std::isnan(got[i]));
      else
        QCOMPARE(got[i], out[i]);
    }
  }

  void paretoFrontierOfFinalPoints() {
    // x = forgetting (lower better), y = learning (higher better).
    const QVector<double> x = {5.0, 1.0, 2.0, 0.5, 3.0, qQNaN()};
    const QVector<double> y = {50.0, 30.0, 45.0, 10.0, 40.0, 99.0};
    // 3 (0.5, 10) < 1 (1, 30) < 2 (2, 45) < 0 (5, 50); 4 (3, 40) is dominated by 2.
    QCOMPARE(paretoFrontier(x, y), (QVector<int>{3, 1, 2, 0}));
  }

  void opAndBwtOfAnAccuracyMatrix() {
    const std::vector<std::vector<double>> r = {{0.8, 0.1, 0.0}, {0.6, 0.7, 0.2}, {0.5, 0.6, 0.9}};
    const OpBwt m = computeOpBwt(r);
    QVERIFY(std::fabs(m.op - (0.5 + 0.6 + 0.9) / 3) < 1e-12);
    QVERIFY(std::fabs(m.bwt - ((0.5 - 0.8) + (0.6 - 0.7)) / 2) < 1e-12);
  }

  void layerListsRoundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QVector<int>>("layers");
    QTest::addColumn<QString>("canonical");
    QTest::newRow("list") << u"3, 0,1"_s << QVector<int>{0, 1, 3} << u"0, 1, 3"_s;
    QTest::newRow("range") << u"0-3, 7"_s << QVector<int>{0, 1, 2, 3, 7} << u"0–3, 7"_s;
    QTest::newRow("empty") << QString() << QVector<int>{} << QString();
  }
  void layerListsRoundTrip() {
    QFETCH(QString, text);
    QFETCH(QVector<int>, layers);
    QFETCH(QString, canonical);
    QVector<int> got;
    QVERIFY(parseLayers(text, &got));
    QCOMPARE(got, layers);
    QCOMPARE(layersText(got), canonical);
    QVERIFY(!parseLayers(u"3-1"_s, &got));
    QVERIFY(!parseLayers(u"a"_s, &got));
  }

  void torchVersionFromCliOutput() {
    QCOMPARE(parseTorchVersion(u"growbench-cli 0.1.0 (LibTorch 1.13.0)"_s), u"1.13.0"_s);
    QCOMPARE(parseTorchVersion(u"growbench-cli 0.1.0"_s), QString());
  }

  void formatting() {
    QCOMPARE(formatDuration(75),
             QCoreApplication::translate("Format", "%1 min %2 s").arg(1).arg(u"15"_s));
    QCOMPARE(formatDuration(-1), u"–"_s);
    QCOMPARE(formatCount(1234567), QCoreApplication::translate("Format", "%1 M").arg(u"1.23"_s));
    QCOMPARE(formatPercent(0.1234), QCoreApplication::translate("Format", "%1 %").arg(u"12.3"_s));
  }

  // Closed-form plan figures on the llama fixture (d = 64, p = 160, L = 2, gated MLP,
  // 4 heads of 16, vocabulary 512, untied), by hand.
  void planEstimates_data() {
    QTest::addColumn<QString>("plan");
    QTest::addColumn<qint64>("added");
    QTest::addColumn<qint64>("trainable");
    const qint64 d = 64, p = 160, V = 512;
    const qint64 layer = 4 * d * d + 3 * d * p + 2 * d;
    const qint64 base = 2 * V * d + 2 * layer + d;
    QTest::newRow("full") << u"{\"variant\":\"full\"}"_s << qint64(0) << base;
    QTest::newRow("freeze") << u"{\"variant\":\"freeze\",\"bottom\":1}"_s << qint64(0)
                            << base - layer - V * d;
    QTest::newRow("grow g-freeze 1 layer")
        << u"{\"variant\":\"grow\",\"mode\":\"freeze\",\"k\":2,\"layers\":[1]}"_s << 3 * d * p
        << 3 * d * p;
    QTest::newRow("grow g-train all")
        << u"{\"variant\":\"grow\",\"mode\":\"train\",\"k\":2,\"layers\":\"all\"}"_s
        << 2 * 3 * d * p << 2 * 2 * 2 * p * d;
    QTest::newRow("lora q,v r=4")
        << u"{\"variant\":\"lora\",\"rank\":4,\"targets\":[\"q\",\"v\"]}"_s << 2 * 2 * 4 * (d + d)
        << 2 * 2 * 4 * (d + d);
    QTest::newRow("llama-pro 1") << u"{\"variant\":\"depth\",\"style\":\"llama-pro\",\"count\":1}"_s
                                 << layer << layer;
    QTest::newRow("adapters inner 8")
        << u"{\"variant\":\"adapters\",\"inner\":8,\"layers\":[0]}"_s << 3 * d * 8 << 3 * d * 8;
    QTest::newRow("loramoe beside the MLP")
        << u"{\"variant\":\"loramoe\",\"experts\":2,\"rank\":4,\"layers\":[0],\"placement\":\"beside-mlp\"}"_s
        << 2 * d + 2 * 4 * d * 2 << 2 * d + 2 * 4 * d * 2;
    // Beside gate, up (d → p) and down (p → d): routers 2·d, 2·d, 2·p; experts 4·(d + p) each.
    const qint64 moe = 2 * d + 2 * d + 2 * p + 3 * 2 * 4 * (d + p);
    QTest::newRow("loramoe beside each linear")
        << u"{\"variant\":\"loramoe\",\"experts\":2,\"rank\":4,\"layers\":[0]}"_s << moe << moe;
  }
  void planEstimates() {
    QFETCH(QString, plan);
    QFETCH(qint64, added);
    QFETCH(qint64, trainable);
    const PlanEstimate e = estimatePlan(fixtureConfig(), nlohmann::json::parse(plan.toStdString()));
    QVERIFY2(e.ok, qPrintable(e.error));
    QCOMPARE(e.addedParams, added);
    QCOMPARE(e.trainableParams, trainable);
    QCOMPARE(e.baseParams, fixtureConfig().param_count());
  }

  // Every spec shipped under resources/experiments loads into the experiment editor and
  // saves back as the same JSON (the keys it had, no defaults added).
  void experimentEditorRoundTripsSpecFiles_data() {
    QTest::addColumn<QString>("path");
    QDirIterator it(QStringLiteral(GB_SOURCE_DIR_FOR_GUI) + u"/resources/experiments"_s,
                    {u"*.json"_s}, QDir::Files, QDirIterator::Subdirectories);
    int n = 0;
    while (it.hasNext()) {
      const QString f = it.next();
      QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
      ++n;
    }
    QVERIFY(n >= 3);
  }
  void experimentEditorRoundTripsSpecFiles() {
    QFETCH(QString, path);
    Session session;
    ExperimentEditor editor(&session);
    ExperimentEditor* ed = &editor;
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json original = nlohmann::json::parse(f.readAll().toStdString());
    QVERIFY(ed->loadFile(path));
    const nlohmann::json loaded = ed->spec();
    QVERIFY2(loaded == original, nlohmann::json::diff(original, loaded).dump().c_str());
    // Through a file as well.
    QTemporaryDir tmp;
    const QString out = QDir(tmp.path()).filePath(u"roundtrip-"_s + QFileInfo(path).fileName());
    QVERIFY(ed->saveFile(out));
    QFile g(out);
    QVERIFY(g.open(QIODevice::ReadOnly));
    const nlohmann::json saved = nlohmann::json::parse(g.readAll().toStdString());
    QVERIFY2(saved == original, nlohmann::json::diff(original, saved).dump().c_str());
    // Every plan of the spec went through its schema form and came back unchanged.
    ListEditor* plans = ed->list(u"plans"_s);
    QVERIFY(plans);
    for (int i = 0; i < plans->count(); ++i) {
      plans->select(i);
      plans->commitCurrent();
    }
    QVERIFY2(ed->spec() == original, nlohmann::json::diff(original, ed->spec()).dump().c_str());
  }

  // The editor's pages are generated from the spec's one declaration: every plain key of the
  // sections it shows has its field, labelled, explained and defaulted by the declaration, with
  // the declared range checked as typed; keys no page shows stay in "Other keys".
  void experimentEditorPagesComeFromTheSchema() {
    Session session;
    ExperimentEditor ed(&session);
    const auto& schema = gb::experiment::spec_schema();
    int checked = 0;
    auto plain = [](const gb::schema::Key& k) {
      using T = gb::schema::Type;
      if (k.type == T::Ref || k.type == T::Object) return false;
      return k.type != T::List || (k.keys.empty() && k.ref.empty());
    };
    auto check = [&](const std::string& path, const gb::schema::Key& k) {
      SpecField* f = ed.field(QString::fromStdString(path));
      QVERIFY2(f, path.c_str());
      QCOMPARE(f->key(), QString::fromStdString(k.name));
      QCOMPARE(f->label(), QCoreApplication::translate("SpecSchema", k.label.c_str()));
      QCOMPARE(f->editor()->toolTip().section(u'\n', 0, 0),
               QCoreApplication::translate("SpecSchema", k.help.c_str()).section(u'\n', 0, 0));
      QCOMPARE(f->type(), SpecField::typeOf(k));
      ++checked;
    };
    for (const auto& k : schema.keys) {
      if (plain(k)) check(k.name, k);
    }
    for (const char* section : {"train", "eval", "guard", "probe", "adept", "checkpoint"}) {
      for (const auto& k : gb::experiment::spec_key(section).keys) {
        if (plain(k)) check(std::string(section) + "." + k.name, k);
      }
    }
    QVERIFY(checked >= 50);
    // The new keys of the train section came with their declaration, no editor change.
    QVERIFY(ed.field(u"train.checkpointing"_s) && ed.field(u"train.ce_chunk"_s));
    // Defaults and ranges as declared: train.lr is (0, 10].
    SpecField* lr = ed.field(u"train.lr"_s);
    lr->typeText(u"0"_s);
    QVERIFY(!lr->inputError().isEmpty());
    lr->typeText(u"10"_s);
    QVERIFY2(lr->inputError().isEmpty(), qPrintable(lr->inputError()));
    lr->typeText(QString());
    QVERIFY(!ed.spec()["train"].contains("lr"));
    // ce_chunk takes "auto" as typed, without quotes, or a number of tokens.
    SpecField* chunk = ed.field(u"train.ce_chunk"_s);
    chunk->typeText(u"auto"_s);
    QCOMPARE(ed.spec()["train"]["ce_chunk"], nlohmann::json("auto"));
    chunk->typeText(u"512"_s);
    QCOMPARE(ed.spec()["train"]["ce_chunk"], nlohmann::json(512));
    // The plan form: the shared plan keys from the declaration, the variant's from its schema.
    PlanForm plan;
    plan.setValue(nlohmann::json{{"variant", "lora"}, {"rank", 4}});
    for (const auto& k : schema.type("PLAN")->keys) {
      if (k.name == "variant") continue;
      if (k.type == gb::schema::Type::Object) {
        for (const auto& inner : k.keys) {
          QVERIFY2(plan.field(QString::fromStdString(k.name + "." + inner.name)),
                   inner.name.c_str());
        }
      } else {
        QVERIFY2(plan.field(QString::fromStdString(k.name)), k.name.c_str());
      }
    }
    QVERIFY(plan.fieldShown(u"from_peft"_s));  // a LoRA plan's starting point
    QVERIFY(plan.field(u"rank"_s));
    plan.setVariant(u"full"_s);
    QVERIFY(!plan.fieldShown(u"from_peft"_s));
    QVERIFY(plan.inputError().isEmpty());  // ewc's lambda is needed only once ewc is given
  }

  // Text that does not fit its column is elided, with the full text as the tooltip; columns
  // are sized to their content within a bound.
  void tablesFitOrElideWithTooltip() {
    QStandardItemModel model(1, 2);
    const QString longText = u"a rather long run name that cannot fit in forty pixels"_s;
    model.setItem(0, 0, new QStandardItem(longText));
    model.setItem(0, 1, new QStandardItem(u"x"_s));
    QTableView view;
    view.setModel(&model);
    fitToContents(&view, 60);
    view.resize(400, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_COMPARE_WITH_TIMEOUT(view.columnWidth(0), 60, 2000);  // bounded
    const QRect r = view.visualRect(model.index(0, 0));
    QHelpEvent help(QEvent::ToolTip, r.center(), view.viewport()->mapToGlobal(r.center()));
    QApplication::sendEvent(view.viewport(), &help);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 2000);
    QCOMPARE(QToolTip::text(), longText);
    QToolTip::hideText();
    // A short text fits: no tooltip of its own.
    view.horizontalHeader()->resizeSection(0, 600);
    QStyleOptionViewItem opt;
    opt.initFrom(&view);
    opt.rect = view.visualRect(model.index(0, 0));
    QVERIFY(!ElidingDelegate::elides(opt, model.index(0, 0)));
  }

  // Messages shown to the user carry no internal prefixes of the worker.
  void userErrorMessagesHaveNoInternalPrefix_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("shown");
    QTest::newRow("command prefix")
        << u"growbench-cli inspect: error: no config.json in /x"_s << u"No config.json in /x"_s;
    QTest::newRow("short prefix") << u"inspect: error: bad tensor"_s << u"Bad tensor"_s;
    QTest::newRow("spdlog") << u"[12:00:01] [error] run 3 failed"_s << u"Run 3 failed"_s;
    QTest::newRow("plain") << u"the probe set is empty"_s << u"The probe set is empty"_s;
  }
  void userErrorMessagesHaveNoInternalPrefix() {
    QFETCH(QString, line);
    QFETCH(QString, shown);
    QCOMPARE(userErrorMessage(line), shown);
  }

  // Paths in labels: the home folder as "~", nothing else changed.
  void pathsAreShownWithTheHomeFolderAbbreviated() {
    const QString home = QDir::cleanPath(QDir::homePath());
    QCOMPARE(displayPath(home + u"/models/tiny-llama"_s), u"~/models/tiny-llama"_s);
    QCOMPARE(displayPath(home), u"~"_s);
    QCOMPARE(displayPath(home + u"/"_s), u"~"_s);
    QCOMPARE(displayPath(home + u"-other/x"_s), home + u"-other/x"_s);  // a sibling, not home
    QCOMPARE(displayPath(u"/usr/share/growbench/presets"_s), u"/usr/share/growbench/presets"_s);
    QCOMPARE(displayPath(QString()), QString());
  }

  // What a dropped (or command-line) path opens as.
  void pathsAreClassifiedForOpening() {
    QTemporaryDir tmp;
    const QDir d(tmp.path());
    QDir().mkpath(d.filePath(u"model"_s));
    QFile c(d.filePath(u"model/config.json"_s));
    QVERIFY(c.open(QIODevice::WriteOnly));
    c.write("{}");
    c.close();
    QFile spec(d.filePath(u"exp.json"_s));
    QVERIFY(spec.open(QIODevice::WriteOnly));
    spec.write(R"({"version": 1, "model": "m", "plans": []})");
    spec.close();
    QFile other(d.filePath(u"other.json"_s));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write(R"({"hidden_size": 4})");
    other.close();
    QFile db(d.filePath(u"runs.db"_s));
    QVERIFY(db.open(QIODevice::WriteOnly));
    db.write(QByteArray("SQLite format 3") + QByteArray(1, '\0') + QByteArray(100, 'x'));
    db.close();
    QCOMPARE(classifyPath(d.filePath(u"model"_s)), PathKind::ModelFolder);
    QCOMPARE(classifyPath(d.filePath(u"model/config.json"_s)), PathKind::ModelFolder);
    QCOMPARE(classifyPath(d.filePath(u"exp.json"_s)), PathKind::Spec);
    QCOMPARE(classifyPath(d.filePath(u"other.json"_s)), PathKind::Unknown);
    QCOMPARE(classifyPath(d.filePath(u"runs.db"_s)), PathKind::Store);
    QCOMPARE(classifyPath(d.filePath(u"missing"_s)), PathKind::Unknown);
    QCOMPARE(classifyPath(tmp.path()), PathKind::Unknown);
  }

  void calibratedDisplayRanks() {
    gb::importance::ProbeResult g, d;
    g.method = d.method = "masking";
    g.layers = {0.9, 0.1, 0.5};  // ranks 1, 3, 2
    d.layers = {0.2, 0.8, 0.5};  // ranks 3, 1, 2
    QStringList cols;
    auto m =
        ImportanceView::displayMatrix(g, &d, ImportanceView::ValueMode::Calibrated, false, &cols);
    QCOMPARE(cols.size(), 1);
    QCOMPARE(m.size(), size_t(3));
    QCOMPARE(m[0][0], 2.0);   // 3 − 1
    QCOMPARE(m[1][0], -2.0);  // 1 − 3: domain-critical
    QCOMPARE(m[2][0], 0.0);
    auto n = ImportanceView::displayMatrix(g, nullptr, ImportanceView::ValueMode::Raw, true, &cols);
    QCOMPARE(n[0][0], 1.0);
    QCOMPARE(n[1][0], 0.0);
    QCOMPARE(n[2][0], 0.5);
    QVERIFY(ImportanceView::displayMatrix(g, nullptr, ImportanceView::ValueMode::Calibrated, false,
                                          &cols)
                .empty());
  }

  // Layer selection on a 12-layer heatmap by simulated mouse events: click, drag, Ctrl-click.
  void heatmapSelectionByMouse() {
    HeatmapPlot plot;
    plot.resize(800, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    std::vector<std::vector<double>> m(12, std::vector<double>(4));
    for (int l = 0; l < 12; ++l) {
      for (int u = 0; u < 4; ++u) m[l][u] = l * 10 + u;
    }
    QStringList rows, cols = {u"q"_s, u"k"_s, u"up"_s, u"down"_s};
    for (int l = 0; l < 12; ++l) rows << QString::number(l);
    plot.setMatrix(rows, cols, m, u"value"_s, false);
    std::vector<double> bars(12, 1.0);
    plot.setBars(bars, u"layer"_s);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    QSignalSpy changed(&plot, &HeatmapPlot::rowSelectionChanged);
    QCOMPARE(plot.rowAt(plot.cellCenter(5, 2)), 5);
    QCOMPARE(plot.columnAt(plot.cellCenter(5, 2)), 2);
    QCOMPARE(plot.value(5, 2), 52.0);
    QVERIFY(plot.cellToolTip(5, 2).contains(u"52"_s));
    QVERIFY(plot.cellToolTip(5, 2).contains(u"up"_s));
    // Click.
    QTest::mouseClick(&plot, Qt::LeftButton, {}, plot.cellCenter(3, 0));
    QCOMPARE(plot.selectedRows(), (QVector<int>{3}));
    QCOMPARE(changed.count(), 1);
    // Drag from layer 2 to layer 7 across the map.
    QTest::mousePress(&plot, Qt::LeftButton, {}, plot.cellCenter(2, 1));
    QTest::mouseMove(&plot, plot.cellCenter(5, 1));
    QTest::mouseMove(&plot, plot.cellCenter(7, 3));
    QTest::mouseRelease(&plot, Qt::LeftButton, {}, plot.cellCenter(7, 3));
    QCOMPARE(plot.selectedRows(), (QVector<int>{2, 3, 4, 5, 6, 7}));
    QCOMPARE(changed.last().first().value<QVector<int>>(), (QVector<int>{2, 3, 4, 5, 6, 7}));
    // Ctrl-click in the bar chart toggles a layer.
    QTest::mouseClick(&plot, Qt::LeftButton, Qt::ControlModifier, plot.barCenter(10));
    QCOMPARE(plot.selectedRows(), (QVector<int>{2, 3, 4, 5, 6, 7, 10}));
    QTest::mouseClick(&plot, Qt::LeftButton, Qt::ControlModifier, plot.cellCenter(4, 0));
    QCOMPARE(plot.selectedRows(), (QVector<int>{2, 3, 5, 6, 7, 10}));
    // Outside the plot: nothing changes.
    QTest::mouseClick(&plot, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(plot.selectedRows(), (QVector<int>{2, 3, 5, 6, 7, 10}));
    // The colour map draws without interpolation and with a colour scale.
    QVERIFY(!plot.colorMap()->interpolate());
    QCOMPARE(plot.colorMap()->colorScale(), plot.colorScale());
  }
};

QTEST_MAIN(TstModels)
#include "tst_models.moc"
