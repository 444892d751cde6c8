// "Suggest a plan…" of the Grow planner on the offscreen platform (widgets/suggestdialog.h):
// the dialog is prefilled from the workspace (model, the Runs view's data, the store); the
// command line it builds is exactly the fields'; bad fields give a message and start no
// worker; a recommendation JSON (the docs/suggest.md contract) lands in the planner as its
// plan, with its rate in the launch form, and every plan the search can propose loads into
// the planner exactly; a failing or crashing worker shows its error; a running search shows
// its progress and cancels. The workers are stand-in shell scripts (no timing involved),
// except one real `growbench-cli suggest` on the tiny HF fixture, which also takes the
// screenshots of docs/images/ (GB_TOUR_DIR).
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <cmath>

#include "experiment/suggest.h"
#include "grow/plan.h"
#include "growplanner.h"
#include "gui_test_util.h"
#include "guiutil.h"
#include "mainwindow.h"
#include "model/tokenizer.h"
#include "modelview.h"
#include "runsview.h"
#include "session.h"
#include "storeservice.h"
#include "suggestdialog.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;
using gb::test::writeFile;

namespace {

// Three sentences a paragraph, as written: the texts these tests were measured on.
QString makeText(const char* const* words, int nWords, quint32 seed, int paragraphs) {
  return gb::test::makeText(words, nWords, seed, paragraphs, {3, 3, false});
}

const char* kEnglish[] = {"the",   "model", "learns",  "a",     "new",    "language",
                          "while", "it",    "keeps",   "what",  "knows",  "about",
                          "old",   "text",  "and",     "words", "people", "write",
                          "many",  "small", "stories", "every", "day",    "with"};
const char* kGerman[] = {"der",    "die",      "das",       "und",         "ein",   "neues",
                         "Modell", "lernt",    "eine",      "Sprache",     "aber",  "nicht",
                         "alles",  "was",      "es",        "weiss",       "über",  "alte",
                         "Texte",  "Menschen", "schreiben", "Geschichten", "jeden", "Tag"};

// A stand-in for growbench-cli: a shell script.
QString writeScript(const QString& path, const QByteArray& body) {
  writeFile(path, "#!/bin/sh\n" + body);
  QFile::setPermissions(path, QFile::permissions(path) | QFile::ExeOwner | QFile::ExeUser);
  return path;
}

// A `suggest --json` result after the docs/suggest.md contract.
QByteArray resultJson(const nlohmann::json& plan, double lr, bool within) {
  nlohmann::json j = {
      {"recommendation",
       {{"label", plan.value("name", std::string("c01"))},
        {"plan", plan},
        {"lr", lr},
        {"run", 12},
        {"step", 16},
        {"steps", 16},
        {"within_budget", within},
        {"validation", {{"learning", 5.91}, {"forgetting", 0.034}, {"orig_ppl", 471.2}}},
        {"test", {{"learning", 5.95}, {"forgetting", 0.031}}}}},
      {"candidates",
       {{{"label", "c00 full"},
         {"plan", {{"variant", "full"}, {"name", "c00 full"}}},
         {"runs", {10, 11}},
         {"stopped_at_step", 8},
         {"front", nlohmann::json::array()}},
        {{"label", plan.value("name", std::string("c01"))},
         {"plan", plan},
         {"runs", {12, 13}},
         {"stopped_at_step", nullptr},
         {"front", nlohmann::json::array()}}}},
      {"search",
       {{"group", "suggest@1764380000"},
        {"final_step", 16},
        {"options", {{"forgetting_budget", 0.05}, {"params_budget", 0.1}}}}},
      {"time_s", 812.4}};
  if (!within) {
    j["recommendation"]["note"] =
        "no candidate stays within the forgetting budget of 5 %: this is the one that forgets "
        "least";
  }
  return QByteArray::fromStdString(j.dump(2));
}

nlohmann::json canonical(const nlohmann::json& plan) {
  return gb::grow::to_json(gb::grow::parse_plan(plan));
}

}  // namespace

class TstGuiSuggest : public QObject {
  Q_OBJECT

 private:
  QString m_tmp, m_model, m_orig, m_new, m_ws, m_shots;
  MainWindow* m_window = nullptr;
  Session* s() const { return m_window->session(); }
  GrowPlanner* planner() const { return m_window->planner(); }

  SuggestSettings goodSettings() const {
    SuggestSettings st;
    st.model = m_model;
    st.newData = m_new;
    st.originalData = m_orig;
    st.db = s()->databasePath();
    return st;
  }

  void shot(QWidget* w, const QString& name) {
    QApplication::processEvents();
    const QImage img = w->grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(img.save(QDir(m_shots).filePath(name)), qPrintable(name));
  }

 private slots:
  void initTestCase() {
    Q_INIT_RESOURCE(growbench);
    QStandardPaths::setTestModeEnabled(true);
    qputenv("GROWBENCH_CLI", GB_CLI_PATH);
    qputenv("GB_THREADS", "1");
    m_tmp = QDir(QStringLiteral(GB_TEST_TMP))
                .filePath(u"gui-suggest-%1"_s.arg(QCoreApplication::applicationPid()));
    QDir(m_tmp).removeRecursively();
    QVERIFY(QDir().mkpath(m_tmp));
    m_shots = qEnvironmentVariable("GB_TOUR_DIR", QDir(m_tmp).filePath(u"shots"_s));
    QVERIFY(QDir().mkpath(m_shots));
    // The tiny HF Llama fixture (2 layers, d = 64, vocabulary 512) with a byte-level BPE
    // tokenizer of 512 entries trained here, English as the original domain, German new.
    m_model = QDir(m_tmp).filePath(u"tiny-llama"_s);
    QVERIFY(QDir().mkpath(m_model));
    const QString fixture = QStringLiteral(GB_SHARED_DIR) + u"/fixtures/hf-reference/llama"_s;
    for (const char* f : {"config.json", "model.safetensors"}) {
      QVERIFY(QFile::copy(fixture + u"/"_s + QLatin1String(f),
                          QDir(m_model).filePath(QLatin1String(f))));
    }
    const int nE = int(std::size(kEnglish)), nG = int(std::size(kGerman));
    const std::string tok = gb::tok::train_byte_level_bpe(
        {makeText(kEnglish, nE, 1, 300).toStdString(), makeText(kGerman, nG, 2, 300).toStdString()},
        512, {"<unk>", "<s>", "</s>"});
    QVERIFY(writeFile(QDir(m_model).filePath(u"tokenizer.json"_s), QByteArray::fromStdString(tok)));
    QVERIFY(QDir().mkpath(QDir(m_tmp).filePath(u"data"_s)));
    m_orig = QDir(m_tmp).filePath(u"data/english.txt"_s);
    m_new = QDir(m_tmp).filePath(u"data/german.txt"_s);
    QVERIFY(writeFile(m_orig, makeText(kEnglish, nE, 11, 160).toUtf8()));
    QVERIFY(writeFile(m_new, makeText(kGerman, nG, 12, 160).toUtf8()));

    m_ws = QDir(m_tmp).filePath(u"workspace"_s);
    m_window = new MainWindow;
    m_window->setConfirmClose(false);
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QSignalSpy opened(s()->store(), &StoreService::opened);
    s()->openWorkspace(m_ws);
    QVERIFY(opened.wait(20000));
    QVERIFY(m_window->modelView()->openFolder(m_model));
    QVERIFY(s()->model().config.has_value());
    // The workspace's data: the Runs view's launch form.
    LaunchSettings l = m_window->runsView()->settings();
    l.trainData = m_new;
    l.origEvalData = m_orig;
    m_window->runsView()->setSettings(l);
  }

  void cleanupTestCase() {
    if (m_window) m_window->close();
    delete m_window;
    m_window = nullptr;
  }

  // The planner's button opens the dialog with the workspace's model, data and store, and
  // the CLI's default budgets.
  void dialogIsPrefilledFromTheWorkspace() {
    m_window->showView(MainWindow::View::Planner);
    auto* button = planner()->findChild<QPushButton*>(u"suggestPlan"_s);
    QVERIFY(button);
    button->click();
    SuggestDialog* d = planner()->suggestDialog();
    QVERIFY(d);
    QVERIFY(d->isVisible());
    const SuggestSettings st = d->settings();
    QCOMPARE(st.model, m_model);
    QCOMPARE(st.newData, m_new);
    QCOMPARE(st.originalData, m_orig);
    QCOMPARE(st.db, s()->databasePath());
    QCOMPARE(st.forgetting, u"5%"_s);
    QCOMPARE(st.params, u"10%"_s);
    QCOMPARE(st.time, u"30m"_s);
    QCOMPARE(st.steps, 200);
    QCOMPARE(d->state(), SuggestDialog::State::Idle);
    // Budgets typed stay when it opens again; the workspace's data follows the workspace.
    d->findChild<QLineEdit*>(u"forgettingBudget"_s)->setText(u"25%"_s);
    LaunchSettings l = m_window->runsView()->settings();
    l.origEvalData = m_new;
    m_window->runsView()->setSettings(l);
    planner()->openSuggestDialog();
    QCOMPARE(d->settings().forgetting, u"25%"_s);
    QCOMPARE(d->settings().originalData, m_new);
    l.origEvalData = m_orig;
    m_window->runsView()->setSettings(l);
    planner()->openSuggestDialog();
    QCOMPARE(d->settings().originalData, m_orig);
    d->findChild<QLineEdit*>(u"forgettingBudget"_s)->setText(u"5%"_s);
    shot(d, u"09-suggest-dialog.png"_s);
    d->close();
  }

  void commandLineIsExactlyTheFields() {
    const QString db = s()->databasePath();
    SuggestSettings st = goodSettings();
    QString error;
    QCOMPARE(suggestArguments(st, u"/tmp/out.json"_s, &error),
             QStringList({u"suggest"_s, m_model, u"--new"_s, m_new, u"--original"_s, m_orig,
                          u"--budget"_s, u"forgetting=5%"_s, u"--params"_s, u"max=10%"_s,
                          u"--time"_s, u"30m"_s, u"--steps"_s, u"200"_s, u"--db"_s, db, u"--json"_s,
                          u"/tmp/out.json"_s}));
    QVERIFY(error.isEmpty());
    st.format = u"fortunes"_s;
    st.forgetting = u" 2.5 % "_s;
    st.params = u"25"_s;
    st.time = u"1.5h"_s;
    st.steps = 96;
    st.maxCandidates = 4;
    QCOMPARE(suggestArguments(st, u"/tmp/o.json"_s, &error), QStringList({u"suggest"_s,
                                                                          m_model,
                                                                          u"--new"_s,
                                                                          m_new,
                                                                          u"--original"_s,
                                                                          m_orig,
                                                                          u"--format"_s,
                                                                          u"fortunes"_s,
                                                                          u"--budget"_s,
                                                                          u"forgetting=2.5%"_s,
                                                                          u"--params"_s,
                                                                          u"max=25%"_s,
                                                                          u"--time"_s,
                                                                          u"1.5h"_s,
                                                                          u"--steps"_s,
                                                                          u"96"_s,
                                                                          u"--max-candidates"_s,
                                                                          u"4"_s,
                                                                          u"--db"_s,
                                                                          db,
                                                                          u"--json"_s,
                                                                          u"/tmp/o.json"_s}));
    // The dialog's own fields give the same, with its result file in the store's folder.
    auto* d = new SuggestDialog;
    d->setSettings(st);
    const QStringList args = d->arguments(&error);
    QCOMPARE(args.mid(0, args.size() - 1),
             suggestArguments(st, u"x"_s, &error).mid(0, args.size() - 1));
    QCOMPARE(args.last(), d->resultPath());
    QVERIFY(d->resultPath().startsWith(QFileInfo(db).absolutePath()));
    // What the worker is given is that list, one argument each (a path with a space too).
    const QString spaced = QDir(m_tmp).filePath(u"data with space.txt"_s);
    QVERIFY(QFile::copy(m_new, spaced));
    st.newData = spaced;
    d->setSettings(st);
    const QString argv = QDir(m_tmp).filePath(u"argv.txt"_s);
    d->setProgram(writeScript(
        QDir(m_tmp).filePath(u"echo-args.sh"_s),
        "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + argv.toUtf8() + "'\nexit 1\n"));
    QVERIFY(d->start());
    QTRY_VERIFY_WITH_TIMEOUT(!d->isRunning(), 30000);
    QFile f(argv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts), d->arguments(&error));
    delete d;
  }

  void badFieldsGiveAMessageAndStartNothing_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("no new data") << "new"
                                 << ""
                                 << "Choose the new-domain data";
    QTest::newRow("missing new data") << "new"
                                      << "/no/such/file.txt"
                                      << "The new-domain data does not exist: /no/such/file.txt";
    QTest::newRow("no original data") << "original"
                                      << ""
                                      << "Choose the original-domain data";
    QTest::newRow("forgetting abc") << "forgetting"
                                    << "abc"
                                    << "The forgetting budget must be a percentage such as 5 % "
                                       "(found “abc”).";
    QTest::newRow("forgetting negative") << "forgetting"
                                         << "-5%"
                                         << "found “-5%”";
    QTest::newRow("forgetting empty") << "forgetting"
                                      << ""
                                      << "The forgetting budget must be";
    QTest::newRow("params abc") << "params"
                                << "ten"
                                << "The parameter budget must be";
    QTest::newRow("time soon") << "time"
                               << "soon"
                               << "The time budget must be a duration such as 30m, 90s or 1.5h "
                                  "(found “soon”).";
    QTest::newRow("time zero") << "time"
                               << "0m"
                               << "The time budget must be";
    QTest::newRow("no model") << "model"
                              << ""
                              << "Choose the model";
    QTest::newRow("not a model") << "model"
                                 << "/tmp"
                                 << "has no config.json";
    QTest::newRow("no store") << "db"
                              << ""
                              << "Open a workspace first";
  }

  void badFieldsGiveAMessageAndStartNothing() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, message);
    SuggestSettings st = goodSettings();
    if (field == u"new"_s) st.newData = value;
    if (field == u"original"_s) st.originalData = value;
    if (field == u"forgetting"_s) st.forgetting = value;
    if (field == u"params"_s) st.params = value;
    if (field == u"time"_s) st.time = value;
    if (field == u"model"_s) st.model = value;
    if (field == u"db"_s) st.db = value;
    SuggestDialog d;
    const QString marker = QDir(m_tmp).filePath(u"started.txt"_s);
    QFile::remove(marker);
    d.setProgram(
        writeScript(QDir(m_tmp).filePath(u"marker.sh"_s), "touch '" + marker.toUtf8() + "'\n"));
    d.setSettings(st);
    QSignalSpy states(&d, &SuggestDialog::stateChanged);
    QVERIFY(!d.start());
    QVERIFY2(d.message().contains(message), qPrintable(d.message()));
    QCOMPARE(d.state(), SuggestDialog::State::Idle);
    QCOMPARE(states.count(), 0);
    QString error;
    QVERIFY(suggestArguments(st, u"x"_s, &error).isEmpty());
    QCOMPARE(error, d.message());
    QTest::qWait(0);
    QVERIFY(!QFileInfo::exists(marker));
  }

  // A recommendation lands in the planner as its plan, with its rate and length in the
  // launch form; the dialog sums it up.
  void recommendationLoadsIntoThePlanner_data() {
    QTest::addColumn<QByteArray>("plan");
    QTest::addColumn<double>("lr");
    QTest::addColumn<bool>("within");
    QTest::newRow("lora, uniform policy")
        << QByteArray(R"({"variant": "lora", "name": "c05 lora", "rank": 4, "alpha": 8,
                          "layers": {"policy": "uniform", "count": 1}})")
        << 1e-3 << true;
    QTest::newRow("freeze") << QByteArray(
                                   R"({"variant": "freeze", "name": "c01 freeze", "bottom": 1})")
                            << 3e-4 << true;
    QTest::newRow("full, replay and EWC")
        << QByteArray(R"({"variant": "full", "replay": 0.25, "replay_mode": "rows",
                          "ewc": {"lambda": 2.5, "mode": "online", "gamma": 0.9}})")
        << 3e-3 << false;
    QTest::newRow("lora, least important") << QByteArray(R"({"variant": "lora", "name": "c07 lora",
                          "layers": {"policy": "least-important", "k": 1, "score": "masking"}})")
                                           << 1e-4 << true;
    QTest::newRow("lora, a list") << QByteArray(R"({"variant": "lora", "layers": [1]})") << 1e-3
                                  << true;
  }

  void recommendationLoadsIntoThePlanner() {
    QFETCH(QByteArray, plan);
    QFETCH(double, lr);
    QFETCH(bool, within);
    const nlohmann::json p = nlohmann::json::parse(plan.toStdString());
    // Something else in the planner first.
    planner()->setVariant(u"grow"_s);
    planner()->setLayerSource(GrowPlanner::LayerSource::Manual);
    planner()->setManualLayers(u"0"_s);
    const QString file = QDir(m_tmp).filePath(u"result.json"_s);
    QVERIFY(writeFile(file, resultJson(p, lr, within)));
    SuggestDialog* d = planner()->openSuggestDialog();
    QSignalSpy loaded(planner(), &GrowPlanner::recommendationLoaded);
    QVERIFY2(d->loadResult(file), qPrintable(d->message()));
    QCOMPARE(d->state(), SuggestDialog::State::Finished);
    QVERIFY2(loaded.count() == 1, qPrintable(d->summaryText()));
    QCOMPARE(planner()->variant(), qs(p["variant"].get<std::string>()));
    QCOMPARE(canonical(planner()->plan()), canonical(p));
    QVERIFY2(planner()->validationError().isEmpty(), qPrintable(planner()->validationError()));
    QCOMPARE(planner()->suggestedLearningRate(), lr);
    QVERIFY(planner()->suggestionNote().contains(QString::number(lr, 'g', 4)));
    QCOMPARE(m_window->runsView()->settings().lr, lr);
    QCOMPARE(m_window->runsView()->settings().steps, 16);
    const QString summary = d->summaryText();
    QVERIFY2(summary.contains(u"learning rate %1"_s.arg(QString::number(lr, 'g', 4))),
             qPrintable(summary));
    QVERIFY(summary.contains(u"at step 16 of 16"_s));
    QVERIFY(summary.contains(u"new-domain loss 5.91, original-domain perplexity +3.40 %"_s));
    QVERIFY(summary.contains(u"new-domain loss 5.95, original-domain perplexity +3.10 %"_s));
    QVERIFY(summary.contains(within ? u"Within the forgetting budget of 5 %"_s
                                    : u"No candidate stays within the forgetting budget of 5 %"_s));
    QVERIFY(summary.contains(u"Loaded into the Grow planner"_s));
    d->close();
  }

  // Every plan the search proposes on this model (any variant, layer policy and size) loads
  // into the planner as exactly that plan.
  void everyCandidatePlanLoadsExactly() {
    gb::experiment::SuggestOptions o;
    o.params_budget = 1.0;  // every variant, with its sizes
    const auto cands = gb::experiment::propose_candidates(*s()->model().config, o);
    QVERIFY(cands.size() >= 10);
    for (const auto& c : cands) {
      QString error;
      QVERIFY2(planner()->setPlan(c.plan, &error),
               qPrintable(qs(c.plan.dump()) + u": "_s + error + u"\nplanner: "_s +
                          qs(canonical(planner()->plan()).dump()) + u"\nplan:    "_s +
                          qs(canonical(c.plan).dump())));
      QVERIFY2(canonical(planner()->plan()) == canonical(c.plan), qPrintable(qs(c.plan.dump())));
    }
  }

  void badRecommendationsAreRefused() {
    SuggestDialog d;
    const QString file = QDir(m_tmp).filePath(u"bad.json"_s);
    QVERIFY(writeFile(file, "{\"candidates\": []}"));
    QVERIFY(!d.loadResult(file));
    QCOMPARE(d.state(), SuggestDialog::State::Failed);
    QVERIFY2(d.message().contains(u"no recommendation"_s), qPrintable(d.message()));
    QVERIFY(writeFile(file, "not json"));
    QVERIFY(!d.loadResult(file));
    QVERIFY(d.message().contains(u"not a JSON object"_s));
    QVERIFY(!d.loadResult(QDir(m_tmp).filePath(u"none.json"_s)));
    QVERIFY(d.message().contains(u"could not be read"_s));
    // A plan the planner refuses: the planner keeps its plan and says why.
    QString error;
    QVERIFY(
        !planner()->loadRecommendation({{"variant", "lora"}, {"layers", {7}}}, 1e-3, 10, &error));
    QVERIFY2(error.contains(u"7"_s), qPrintable(error));
    QVERIFY(!planner()->setPlan({{"variant", "no-such-variant"}}, &error));
    QVERIFY(!error.isEmpty());
  }

  // A worker that fails: its error line is the message and its stderr is shown; a crash too.
  void failingWorkerShowsItsError() {
    SuggestDialog d;
    d.setSettings(goodSettings());
    d.setProgram(writeScript(QDir(m_tmp).filePath(u"fail.sh"_s),
                             "echo 'loading the model' >&2\n"
                             "echo \"growbench-cli suggest: error: suggest: no candidate plan "
                             "adds at most 10 % of the base model's 1234 parameters\" >&2\n"
                             "exit 1\n"));
    QVERIFY(d.start());
    QTRY_VERIFY_WITH_TIMEOUT(d.state() == SuggestDialog::State::Failed, 30000);
    QVERIFY2(d.message().contains(u"exit code 1"_s), qPrintable(d.message()));
    QVERIFY(d.message().contains(u"no candidate plan adds at most 10 %"_s));
    const auto* log = d.findChild<QPlainTextEdit*>();
    QVERIFY(log);
    QVERIFY(log->toPlainText().contains(u"loading the model"_s));
    QVERIFY(!QFileInfo::exists(d.resultPath()));

    d.setProgram(writeScript(QDir(m_tmp).filePath(u"crash.sh"_s),
                             "echo 'about to crash' >&2\nkill -SEGV $$\n"));
    QVERIFY(d.start());
    QTRY_VERIFY_WITH_TIMEOUT(d.state() == SuggestDialog::State::Failed, 30000);
    QVERIFY2(d.message().contains(u"crashed"_s), qPrintable(d.message()));

    d.setProgram(writeScript(QDir(m_tmp).filePath(u"garbage.sh"_s), "exit 0\n"));
    QVERIFY(d.start());
    QTRY_VERIFY_WITH_TIMEOUT(d.state() == SuggestDialog::State::Failed, 30000);
    QVERIFY2(d.message().contains(u"could not be read"_s), qPrintable(d.message()));

    d.setProgram(QDir(m_tmp).filePath(u"no-such-program"_s));
    QVERIFY(!d.start());
    QCOMPARE(d.state(), SuggestDialog::State::Failed);
    QVERIFY2(d.message().contains(u"growbench-cli was not found"_s), qPrintable(d.message()));

    // The real growbench-cli on a model it cannot read.
    const QString broken = QDir(m_tmp).filePath(u"broken-model"_s);
    QVERIFY(QDir().mkpath(broken));
    QVERIFY(writeFile(QDir(broken).filePath(u"config.json"_s), "{\"model_type\": \"nothing\"}"));
    SuggestSettings st = goodSettings();
    st.model = broken;
    d.setSettings(st);
    d.setProgram(QString());
    QVERIFY(d.start());
    QTRY_VERIFY_WITH_TIMEOUT(d.state() == SuggestDialog::State::Failed, 120000);
    QVERIFY2(d.message().contains(u"The search failed (exit code"_s), qPrintable(d.message()));
  }

  // A running search shows the worker's run and step and the time against its budget, and
  // cancels cleanly; started again it continues.
  void runningSearchShowsProgressAndCancels() {
    SuggestDialog d;
    d.setSettings(goodSettings());
    d.setProgram(writeScript(
        QDir(m_tmp).filePath(u"running.sh"_s),
        "echo '{\"event\": \"stage\", \"stage\": \"data\"}' >&2\n"
        "echo '{\"event\": \"run_started\", \"run\": 7, \"label\": \"c00 full\"}' >&2\n"
        "echo '{\"event\": \"eval\", \"run\": 7, \"step\": 0, \"metrics\": {}}' >&2\n"
        "echo '{\"event\": \"progress\", \"run\": 7, \"stage\": \"train\", \"step\": 3, "
        "\"total\": 12, \"eta_s\": 20}' >&2\n"
        "echo 'a plain line' >&2\n"
        "exec sleep 120\n"));
    QVERIFY(d.start());
    QCOMPARE(d.state(), SuggestDialog::State::Running);
    QTRY_VERIFY_WITH_TIMEOUT(d.progressText().contains(u"step 3 of 12"_s), 30000);
    const QString p = d.progressText();
    QVERIFY2(p.contains(u"Run 7 (c00 full)"_s), qPrintable(p));
    QVERIFY(p.contains(u"20 s left"_s));
    QVERIFY(p.contains(u"1 run(s) started"_s));
    QVERIFY(p.contains(u"1 evaluation(s)"_s));
    QVERIFY(p.contains(u"of 30 min 00 s"_s));
    QVERIFY(d.findChild<QPlainTextEdit*>()->toPlainText().contains(u"a plain line"_s));
    QVERIFY(!d.start());  // one search at a time
    d.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(d.state() == SuggestDialog::State::Cancelled, 30000);
    QVERIFY2(d.message().contains(u"start the search again with the same fields"_s),
             qPrintable(d.message()));
    bool continueOffered = false;
    for (auto* b : d.findChildren<QPushButton*>()) {
      continueOffered |= b->text() == u"Continue search"_s && b->isEnabled();
    }
    QVERIFY(continueOffered);
  }

  // Closing the window cancels a running search cleanly (it continues when started again).
  void closingTheWindowCancelsARunningSearch() {
    auto* w = new MainWindow;
    w->setConfirmClose(false);
    w->show();
    SuggestDialog* d = w->planner()->openSuggestDialog();
    d->setSettings(goodSettings());
    d->setProgram(writeScript(QDir(m_tmp).filePath(u"waiting.sh"_s),
                              "echo '{\"event\": \"stage\", \"stage\": \"data\"}' >&2\n"
                              "exec sleep 120\n"));
    QVERIFY(d->start());
    QTRY_VERIFY_WITH_TIMEOUT(d->progressText().contains(u"Preparing: data"_s), 30000);
    QVERIFY(w->close());
    QCOMPARE(d->state(), SuggestDialog::State::Cancelled);
    delete w;
  }

  void elapsedTextSaysWhatIsLeft() {
    QCOMPARE(SuggestDialog::elapsedText(65, 1800),
             u"Elapsed 1 min 05 s of 30 min 00 s · at most 28 min 55 s left"_s);
    QVERIFY(SuggestDialog::elapsedText(1810, 1800).contains(u"the time is up"_s));
  }

  // One real search: two candidates, 8 steps; its recommendation lands in the planner.
  void realSearchLandsInThePlanner() {
    m_window->showView(MainWindow::View::Planner);
    SuggestDialog* d = planner()->openSuggestDialog();
    SuggestSettings st = d->settings();
    st.forgetting = u"50%"_s;
    st.time = u"20m"_s;
    st.steps = 8;
    st.maxCandidates = 2;
    d->setSettings(st);
    d->setProgram(QString());
    QVERIFY2(d->start(), qPrintable(d->message()));
    // A screenshot while it runs (when a run shows its step before the search ends).
    QTRY_VERIFY_WITH_TIMEOUT(!d->isRunning() || d->progressText().contains(u"step"_s), 300000);
    if (d->isRunning()) shot(d, u"09b-suggest-running.png"_s);
    QTRY_VERIFY_WITH_TIMEOUT(!d->isRunning(), 600000);
    QVERIFY2(d->state() == SuggestDialog::State::Finished,
             qPrintable(d->message() + u"\n"_s + d->findChild<QPlainTextEdit*>()->toPlainText()));
    const SuggestResult& r = d->result();
    QVERIFY(r.ok);
    QCOMPARE(r.candidates, 2);
    QCOMPARE(canonical(planner()->plan()), canonical(r.plan));
    QCOMPARE(planner()->suggestedLearningRate(), r.lr);
    QCOMPARE(m_window->runsView()->settings().lr, r.lr);
    QVERIFY(d->summaryText().contains(u"Recommended: "_s + r.label));
    shot(d, u"09c-suggest-finished.png"_s);
    // The planner with the recommendation, in the window.
    m_window->showView(MainWindow::View::Planner);
    QDockWidget* dock = m_window->dock(MainWindow::View::Planner);
    shot(dock, u"09d-suggest-planner.png"_s);
    d->close();
  }
};

QTEST_MAIN(TstGuiSuggest)
#include "tst_gui_suggest.moc"
