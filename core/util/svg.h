#pragma once
// Small self-contained SVG charts for reports (inline in HTML, no scripts, no network): line
// charts with mean ± std bands, bar charts with error bars, scatter plots with error bars,
// heatmaps. Text is XML-escaped; non-finite values are left out of the drawing.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gb::svg {

// XML text escaping (&, <, >, ", ').
std::string escape(const std::string& text);

// The colour of series i (a fixed palette that cycles).
std::string colour(size_t i);

struct LineSeries {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> lo, hi;  // optional band (same length as x), e.g. mean ± std
};

struct Axes {
  std::string title, x_label, y_label;
  bool log_y = false;
  int width = 760, height = 360;
  // line_chart: dashed vertical lines at these x values, each with its label (e.g. the
  // learning level a comparison is matched at).
  std::vector<std::pair<double, std::string>> x_marks;
};

std::string line_chart(const std::vector<LineSeries>& series, const Axes& axes);

struct BarGroup {
  std::string label;           // category (x axis)
  std::vector<double> values;  // one per series
  std::vector<double> errors;  // ± (same length, 0 = none)
};

// Grouped bars: categories on x, one bar per series in each group.
std::string bar_chart(const std::vector<BarGroup>& groups, const std::vector<std::string>& series,
                      const Axes& axes);

struct Point {
  std::string name;
  double x = 0, y = 0, x_err = 0, y_err = 0;
};

std::string scatter(const std::vector<Point>& points, const Axes& axes);

struct Heatmap {
  std::vector<std::string> rows, cols;
  std::vector<std::vector<double>> values;  // [row][col], NaN = blank
  bool annotate = false;                    // print the values in the cells
  std::string value_format = "{:.2f}";
};

std::string heatmap(const Heatmap& map, const Axes& axes);

// One SVG document holding several charts (each a whole document written by the functions
// above), `columns` to a row, each at its own size: a figure of several panels that stays
// one well-formed document when written to a file.
std::string grid(const std::vector<std::string>& charts, int columns);

}  // namespace gb::svg
