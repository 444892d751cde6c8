// The GUI's report of a run group: the same page and verdicts as `growbench-cli report`.
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reportdialog.h"
#include "store/store.h"
#include "util/files.h"

using Json = nlohmann::json;

class TestGuiReport : public QObject {
  Q_OBJECT

 private slots:
  void writesTheGroupsReportAndShowsItsVerdicts();
};

void TestGuiReport::writesTheGroupsReportAndShowsItsVerdicts() {
  qputenv("GROWBENCH_CLI", GB_CLI_PATH);
  QTemporaryDir tmp;
  const std::string db = tmp.filePath(QStringLiteral("r.db")).toStdString();
  {
    auto store = gb::store::Store::open(db);
    const Json spec = {
        {"name", "hand"},
        {"report",
         {{"claims",
           {{{"id", "a-beats-b"},
             {"text", "A beats B"},
             {"all", {{{"kind", "greater"}, {"metric", "eval/x/acc"}, {"a", "A"}, {"b", "B"}}}}},
            {{"id", "b-beats-a"},
             {"text", "B beats A"},
             {"all",
              {{{"kind", "greater"}, {"metric", "eval/x/acc"}, {"a", "B"}, {"b", "A"}}}}}}}}}};
    for (int s = 0; s < 3; ++s) {
      for (const char* plan : {"A", "B"}) {
        gb::store::NewRun nr;
        nr.name = fmt::format("{} {}", plan, s);
        nr.experiment = "older";
        nr.spec = spec.dump();
        nr.seed = s;
        nr.params = {{"plan", plan}, {"seed", s}};
        const int64_t id = store.create_run(nr);
        auto w = store.metrics_writer();
        w.add(id, 0, "eval/x/acc", 0.5);
        w.add(id, 10, "eval/x/acc", plan[0] == 'A' ? 0.9 + 0.01 * s : 0.6 + 0.01 * s);
        w.flush();
        store.set_status(id, gb::store::RunStatus::Running);
        store.set_status(id, gb::store::RunStatus::Finished);
      }
    }
    gb::store::NewRun other;
    other.name = "newest";
    other.experiment = "newer";
    store.create_run(other);
  }
  const QStringList groups = gb::gui::ReportDialog::groupsOf(QString::fromStdString(db));
  QCOMPARE(groups, QStringList({QStringLiteral("newer"), QStringLiteral("older")}));
  gb::gui::ReportDialog dlg(QString::fromStdString(db), QStringLiteral("older"));
  dlg.show();
  QVERIFY(dlg.outputPath().endsWith(QStringLiteral("growbench-report-older.html")));
  const QString out = tmp.filePath(QStringLiteral("report.html"));
  dlg.findChild<QLineEdit*>()->setText(out);
  QSignalSpy spy(&dlg, &gb::gui::ReportDialog::written);
  dlg.write();
  QVERIFY(spy.wait(120000));
  QCOMPARE(spy.at(0).at(0).toString(), out);
  QCOMPARE(dlg.verdicts(), QStringList({QStringLiteral("a-beats-b: holds"),
                                        QStringLiteral("b-beats-a: does not hold")}));
  const std::string page = gb::read_file(out.toStdString());
  QVERIFY(page.find("A beats B") != std::string::npos);
  QVERIFY(page.find("<svg") == std::string::npos || page.find("</svg>") != std::string::npos);
  if (qEnvironmentVariableIsSet("GB_SCREENSHOT_DIR")) {
    dlg.grab().save(qEnvironmentVariable("GB_SCREENSHOT_DIR") +
                    QStringLiteral("/report-dialog.png"));
  }
}

QTEST_MAIN(TestGuiReport)
#include "tst_gui_report.moc"
