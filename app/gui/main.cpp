// growbench: the GrowBench desktop workbench.
//
//   growbench [--workspace DIR] [--model DIR] [PATH...]   model folders, specs, run stores
//   growbench --tour OUTDIR [--workspace DIR] [--model DIR]   screenshots of every view
//   growbench --measure [--measure-store DB] [--measure-spec SPEC.json]   performance figures
//   growbench --help | --version   (no display needed)
//   --log-level trace|debug|info|warn|error|off with any of these (else $GROWBENCH_LOG)
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include "appsettings.h"
#include "mainwindow.h"
#include "modelview.h"
#include "session.h"
#include "tour.h"
#include "util/log_level.h"

using namespace Qt::StringLiterals;

namespace {

// Milliseconds from the process's start to now (Linux /proc), or -1.
double processAgeMs() {
  QFile stat(u"/proc/self/stat"_s), up(u"/proc/uptime"_s);
  if (!stat.open(QIODevice::ReadOnly) || !up.open(QIODevice::ReadOnly)) return -1;
  const QByteArray s = stat.readAll();
  const int close = s.lastIndexOf(')');
  if (close < 0) return -1;
  const QList<QByteArray> fields = s.mid(close + 2).split(' ');
  // Field 22 (starttime) is the 20th after "pid (comm)".
  if (fields.size() < 20) return -1;
  const double startTicks = fields[19].toDouble();
  const double uptime = up.readAll().split(' ').value(0).toDouble();
  return (uptime - startTicks / static_cast<double>(sysconf(_SC_CLK_TCK))) * 1000.0;
}

void installTranslations(QApplication& app, const QString& language) {
  const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
  QLocale::setDefault(locale);
  const QStringList dirs = {
      QDir(QCoreApplication::applicationDirPath()).filePath(u"../share/growbench/translations"_s),
      QStringLiteral(GB_BUILD_TRANSLATIONS_DIR)};
  auto* mine = new QTranslator(&app);
  for (const QString& d : dirs) {
    if (mine->load(locale, u"growbench"_s, u"_"_s, d)) {
      app.installTranslator(mine);
      break;
    }
  }
  auto* qt = new QTranslator(&app);
  if (qt->load(locale, u"qtbase"_s, u"_"_s, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    app.installTranslator(qt);
  }
}

// The command line of growbench; the same declaration for --help/--version without a display
// and for the GUI.
struct CommandLine {
  QCommandLineParser parser;
  QCommandLineOption workspace{
      u"workspace"_s, QCoreApplication::translate("main", "Open this workspace."), u"DIR"_s};
  QCommandLineOption model{
      u"model"_s, QCoreApplication::translate("main", "Open this model folder."), u"DIR"_s};
  QCommandLineOption tour{
      u"tour"_s,
      QCoreApplication::translate("main", "Save a screenshot of every view to OUTDIR, then exit."),
      u"OUTDIR"_s};
  QCommandLineOption measure{
      u"measure"_s, QCoreApplication::translate("main", "Print performance figures, then exit.")};
  QCommandLineOption measureStore{
      u"measure-store"_s,
      QCoreApplication::translate("main", "With --measure: time opening this store."), u"DB"_s};
  QCommandLineOption logLevel{
      u"log-level"_s,
      QCoreApplication::translate(
          "main",
          "Messages on standard error from LEVEL up: trace, debug, info, warn, error or off "
          "(default: the environment variable GROWBENCH_LOG, else info). Workers started from "
          "the window inherit it."),
      u"LEVEL"_s};
  QCommandLineOption measureSpec{
      u"measure-spec"_s,
      QCoreApplication::translate(
          "main", "With --measure: run this spec and measure event-loop gaps meanwhile."),
      u"SPEC"_s};

  CommandLine() {
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "GrowBench: grow language models without forgetting"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({workspace, model, tour, measure, measureStore, measureSpec, logLevel});
    parser.addPositionalArgument(
        u"paths"_s,
        QCoreApplication::translate("main",
                                    "Model folders, experiment specs (.json) or run stores to "
                                    "open (the desktop passes dropped or chosen files this way)."),
        u"[PATH...]"_s);
  }
};

void setApplicationInfo() {
  QCoreApplication::setApplicationName(u"growbench"_s);
  QCoreApplication::setOrganizationName(u"GrowBench"_s);
  QCoreApplication::setApplicationVersion(QStringLiteral(GB_VERSION));
}

// Whether the command line asks for --help or --version (the options QCommandLineParser's
// addHelpOption and addVersionOption add), before "--".
bool wantsHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const QByteArray a(argv[i]);
    if (a == "--") return false;
    if (a == "--help" || a == "-h" || a == "-?" || a == "--help-all" || a == "--version" ||
        a == "-v") {
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // --help and --version print and exit 0 with a core application only: no display, no
  // platform plugin (QApplication would abort without one).
  if (wantsHelpOrVersion(argc, argv)) {
    QCoreApplication core(argc, argv);
    setApplicationInfo();
    CommandLine cl;
    cl.parser.process(core);  // prints and exits; an unknown option exits 1 as below
    return 0;
  }
  const double processMs = processAgeMs();
  QElapsedTimer startup;
  startup.start();
  Q_INIT_RESOURCE(growbench);  // resources of the static growbench_widgets library
  QApplication app(argc, argv);
  setApplicationInfo();
  QApplication::setApplicationDisplayName(u"GrowBench"_s);
  QApplication::setDesktopFileName(u"growbench"_s);

  CommandLine cl;
  cl.parser.process(app);
  QCommandLineParser& parser = cl.parser;
  {
    // --log-level, else GROWBENCH_LOG: this process's core loggers, and (through the
    // environment) the growbench-cli workers it starts.
    const QString level = parser.value(cl.logLevel);
    const std::string error = gb::log::apply_level(level.toStdString());
    if (!error.empty()) {
      std::fprintf(stderr, "growbench: %s\n", error.c_str());
      return 1;
    }
    if (!level.isEmpty()) qputenv(gb::log::kLevelEnv, level.toUtf8());
  }
  const QCommandLineOption& workspace = cl.workspace;
  const QCommandLineOption& model = cl.model;
  const QCommandLineOption& tour = cl.tour;
  const QCommandLineOption& measure = cl.measure;
  const QCommandLineOption& measureStore = cl.measureStore;
  const QCommandLineOption& measureSpec = cl.measureSpec;

  gb::gui::AppSettings settings;
  installTranslations(app, settings.language());

  gb::gui::MainWindow window;
  if (parser.isSet(tour)) {
    gb::gui::TourOptions o;
    o.outDir = parser.value(tour);
    o.workspace = parser.value(workspace);
    o.model = parser.value(model);
    const int n = gb::gui::runTour(&window, o);
    window.close();
    if (n != gb::gui::tourShotCount()) {
      std::fprintf(stderr, "growbench --tour: %d of %d screenshots written, non-blank\n",
                   std::max(n, 0), gb::gui::tourShotCount());
      return 1;
    }
    return 0;
  }
  if (parser.isSet(measure)) {
    gb::gui::MeasureOptions o;
    o.processMs = processMs;
    o.storePath = parser.value(measureStore);
    o.streamSpec = parser.value(measureSpec);
    o.workspace = parser.value(workspace);
    window.show();
    // The first turn of the event loop after show(): the window takes input from here on.
    bool ready = false;
    QTimer::singleShot(0, &window, [&] {
      o.startupMs = startup.nsecsElapsed() / 1e6;
      ready = true;
    });
    gb::gui::waitFor([&] { return ready; }, 10000);
    const int rc = gb::gui::runMeasure(&window, o);
    window.close();
    return rc;
  }

  if (!window.restoreLayout()) window.resize(1500, 950);
  window.session()->openWorkspace(parser.isSet(workspace) ? parser.value(workspace)
                                                          : settings.workspace());
  if (parser.isSet(model)) {
    window.modelView()->openFolder(parser.value(model));
  } else if (!settings.lastModelFolder().isEmpty() &&
             QFileInfo::exists(settings.lastModelFolder() + u"/config.json"_s)) {
    window.modelView()->openFolder(settings.lastModelFolder());
  }
  window.show();
  // Paths from the desktop (Exec=growbench %F) or the command line.
  if (!parser.positionalArguments().isEmpty()) window.openPaths(parser.positionalArguments());
  return app.exec();
}
