#pragma once
// Small helpers shared by the GrowBench widgets: string conversion, number and time
// formatting, run status names and colours, curve smoothing, the Pareto frontier and
// locating growbench-cli. Pure functions where possible, so tst_models checks them.

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>

#include <cstdint>
#include <string>
#include <vector>

#include "store/types.h"

namespace gb::gui {

inline QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
inline std::string ss(const QString& s) {
  return s.toStdString();
}

// "1.23 M", "45.6 k", "812" (parameter counts, tokens).
QString formatCount(double value);
// "1 h 02 min", "3 min 05 s", "12 s" (durations, ETA); "–" for negative values.
QString formatDuration(double seconds);
// A metric value with 4 significant digits; "–" for NaN.
QString formatValue(double value);
// "812 B", "1.2 KiB", "3.4 MiB", "1.05 GiB".
QString formatBytes(double bytes);
// "12.3 %".
QString formatPercent(double fraction);

// Translated, user-visible name of a run status ("finished" → "Finished").
QString statusText(gb::store::RunStatus status);
// Background colour of a run status (readable with the palette's text colour in light and
// dark themes: it is blended with the base colour).
QColor statusColor(gb::store::RunStatus status, const QColor& base);

// Exponential moving average, the smoothing of TensorBoard-like curve viewers:
// s_0 = x_0, s_i = w·s_{i−1} + (1−w)·x_i, with NaN values passed through unchanged and not
// updating the state. weight in [0, 1); 0 returns the input.
QVector<double> emaSmooth(const QVector<double>& values, double weight);

// A point of the forgetting–learning trade-off: x = forgetting (lower is better), y =
// learning (higher is better). Returns the indices of the non-dominated points (no other
// point has x ≤ and y ≥ with one strict), sorted by x ascending. NaN points are skipped.
QVector<int> paretoFrontier(const QVector<double>& x, const QVector<double>& y);

// Task sequence metrics of an accuracy matrix R[i][j] (after task i, evaluated on task j):
// OP = mean_j R[n-1][j], BWT = mean_{j<n-1} (R[n-1][j] − R[j][j]). NaN when undefined.
struct OpBwt {
  double op = 0;
  double bwt = 0;
};
OpBwt computeOpBwt(const std::vector<std::vector<double>>& r);

// growbench-cli: $GROWBENCH_CLI, else next to the running executable, else in PATH. Empty
// when not found.
QString findCli();

// A worker's error line as the user reads it: without the program's own prefixes
// ("growbench-cli probe: error: ", "inspect: error: ", spdlog's "[12:00:01] [error] ").
QString userErrorMessage(const QString& line);

// A path as the views show it: the home folder abbreviated to "~" ("~/models/tiny-llama"),
// native separators; other paths unchanged. Labels set the full path as their tooltip.
QString displayPath(const QString& path);

// Layer list as text: "0, 3, 5"; ranges are compacted: "0–3, 7".
QString layersText(const QVector<int>& layers);
// Parses "0-3, 7" / "0,1,2"; returns false on bad input.
bool parseLayers(const QString& text, QVector<int>* layers);

}  // namespace gb::gui
