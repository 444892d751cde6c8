#pragma once
// `growbench --tour OUTDIR`: opens each view on a workspace (default: the default workspace,
// where `growbench-cli quickstart` writes), fills it with that workspace's data (a model, its
// probes, every run's curves) and saves a screenshot of each view as PNG. An empty workspace
// is populated first (a short quickstart: the quickstart's plans, a few steps each), and a
// model without probes gets a masking and a Taylor probe, so every screenshot shows real
// data (the importance screenshot is refused when the heatmap is empty). And the
// `--measure` figures (start-up, heatmap redraw, curve overlay, opening a large store,
// responsiveness while a run streams). Both run inside the real GUI.

#include <QString>
#include <QStringList>

#include <functional>

namespace gb::gui {

class MainWindow;

// Processes events until `done` returns true or `timeoutMs` passes; true when done.
bool waitFor(const std::function<bool()>& done, int timeoutMs);

struct TourOptions {
  QString outDir;
  QString workspace;  // empty: the default workspace
  QString model;      // empty: the model of the workspace's runs, else a built preset
  // Text for the probes the tour runs when the model has none (default: English fortunes).
  QString probeData;
  int width = 1500;
  int height = 950;
};

// Returns the number of screenshots written, or -1 on an error (printed on stderr).
int runTour(MainWindow* window, const TourOptions& options, QStringList* written = nullptr);
// How many screenshots a complete tour writes (growbench --tour fails with fewer).
int tourShotCount();

struct MeasureOptions {
  QString storePath;      // a store to open (bench_store builds one with 1000 runs, 1M rows)
  QString streamSpec;     // a spec to run while measuring frame gaps
  QString workspace;      // where the streamed run goes (default: a temporary folder)
  double startupMs = -1;  // main() → first event-loop turn with the window shown
  double processMs = -1;  // process start → main()
};

// Prints one "measure: ..." line per figure on stdout; returns 0 on success.
int runMeasure(MainWindow* window, const MeasureOptions& options);

}  // namespace gb::gui
