#include "util/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace gb::svg {

namespace {

constexpr int kLeft = 70, kRight = 250, kTop = 34, kBottom = 48;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
  void pad(bool zero_floor = false) {
    if (empty()) {
      lo = 0;
      hi = 1;
    }
    if (zero_floor && lo > 0) lo = 0;
    if (hi - lo < 1e-12) {
      const double d = std::max(std::fabs(hi) * 0.05, 1e-6);
      lo -= d;
      hi += d;
    } else {
      const double d = (hi - lo) * 0.05;
      if (!(zero_floor && lo == 0)) lo -= d;
      hi += d;
    }
  }
};

std::string num(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) return fmt::format("{:.2g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

std::vector<double> ticks(double lo, double hi, int target = 5) {
  std::vector<double> t;
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return t;
}

std::string open(const Axes& a) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{3}</text>\n",
      a.width, a.height, kLeft, escape(a.title));
}

// Frame, ticks and labels of a plot area; returns the y mapping's inputs.
std::string frame(const Axes& a, const Range& xr, const Range& yr, bool x_ticks, bool log_y) {
  const int pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
  std::string s = fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", kLeft,
      kTop, pw, ph);
  auto ymap = [&](double v) {
    const double t =
        log_y ? (std::log10(v) - yr.lo) / (yr.hi - yr.lo) : (v - yr.lo) / (yr.hi - yr.lo);
    return kTop + ph - t * ph;
  };
  std::vector<double> yt;
  if (log_y) {
    for (double e = std::floor(yr.lo); e <= std::ceil(yr.hi); e += 1) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (std::log10(v) >= yr.lo && std::log10(v) <= yr.hi) yt.push_back(v);
      }
    }
  } else {
    yt = ticks(yr.lo, yr.hi);
  }
  for (double v : yt) {
    const double y = ymap(v);
    s += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kLeft + pw, y, y, kLeft - 4, y + 4, num(v));
  }
  if (x_ticks) {
    for (double v : ticks(xr.lo, xr.hi)) {
      const double x = kLeft + (v - xr.lo) / (xr.hi - xr.lo) * pw;
      s += fmt::format(
          "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#444\"/>"
          "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
          x, x, kTop + ph, kTop + ph + 4, x, kTop + ph + 16, num(v));
    }
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLeft + pw / 2,
                   a.height - 10, escape(a.x_label));
  s += fmt::format(
      "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      kTop + ph / 2, escape(a.y_label + (log_y ? " (log)" : "")));
  return s;
}

std::string legend(const std::vector<std::string>& names, const Axes& a) {
  std::string s;
  const int x = a.width - kRight + 10;
  for (size_t i = 0; i < names.size(); ++i) {
    const int y = kTop + 8 + static_cast<int>(i) * 16;
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        x, y - 9, colour(i), x + 16, y, escape(names[i]));
  }
  return s;
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string colour(size_t i) {
  static const char* const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[i % 10];
}

std::string line_chart(const std::vector<LineSeries>& series, const Axes& a) {
  Range xr, yr;
  const bool log_y = a.log_y;
  auto yv = [&](double v) { return log_y ? (v > 0 ? std::log10(v) : NAN) : v; };
  for (const auto& s : series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      xr.add(s.x[i]);
      yr.add(yv(s.y[i]));
      if (i < s.lo.size()) yr.add(yv(s.lo[i]));
      if (i < s.hi.size()) yr.add(yv(s.hi[i]));
    }
  }
  for (const auto& [x, label] : a.x_marks) xr.add(x);
  xr.pad();
  yr.pad();
  const int pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
  auto X = [&](double v) { return kLeft + (v - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto Y = [&](double v) { return kTop + ph - (yv(v) - yr.lo) / (yr.hi - yr.lo) * ph; };
  std::string out = open(a) + frame(a, xr, yr, true, log_y);
  for (const auto& [x, label] : a.x_marks) {
    if (!std::isfinite(x)) continue;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#444\" "
        "stroke-dasharray=\"5,4\"/>\n<text x=\"{3:.1f}\" y=\"{4}\" font-size=\"11\" "
        "fill=\"#444\">{5}</text>\n",
        X(x), kTop, kTop + ph, X(x) + 4, kTop + 12, escape(label));
  }
  std::vector<std::string> names;
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    names.push_back(s.name);
    if (s.lo.size() == s.x.size() && s.hi.size() == s.x.size() && !s.x.empty()) {
      std::string pts;
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (std::isfinite(yv(s.hi[i]))) pts += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.hi[i]));
      }
      for (size_t i = s.x.size(); i-- > 0;) {
        if (std::isfinite(yv(s.lo[i]))) pts += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.lo[i]));
      }
      out += fmt::format(
          "<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\"/>\n", pts,
          colour(k));
    }
    std::string pts;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (std::isfinite(yv(s.y[i]))) pts += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.y[i]));
    }
    out +=
        fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"/>\n",
                    pts, colour(k));
  }
  out += legend(names, a);
  return out + "</svg>\n";
}

std::string bar_chart(const std::vector<BarGroup>& groups, const std::vector<std::string>& series,
                      const Axes& a) {
  Range yr;
  for (const auto& g : groups) {
    for (size_t i = 0; i < g.values.size(); ++i) {
      const double e = i < g.errors.size() ? g.errors[i] : 0;
      yr.add(g.values[i] + e);
      yr.add(g.values[i] - e);
    }
  }
  yr.add(0);
  yr.pad(true);
  const int pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
  auto Y = [&](double v) { return kTop + ph - (v - yr.lo) / (yr.hi - yr.lo) * ph; };
  std::string out = open(a) + frame(a, yr, yr, false, false);
  const double gw = groups.empty() ? pw : static_cast<double>(pw) / groups.size();
  const size_t ns = std::max<size_t>(series.size(), 1);
  const double bw = gw * 0.8 / ns;
  for (size_t g = 0; g < groups.size(); ++g) {
    const double gx = kLeft + g * gw + gw * 0.1;
    for (size_t i = 0; i < groups[g].values.size(); ++i) {
      const double v = groups[g].values[i];
      if (!std::isfinite(v)) continue;
      const double x = gx + i * bw;
      const double y0 = Y(std::max(0.0, yr.lo)), y1 = Y(v);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x,
          std::min(y0, y1), std::max(bw - 1, 1.0), std::fabs(y1 - y0), colour(i));
      const double e = i < groups[g].errors.size() ? groups[g].errors[i] : 0;
      if (e > 0 && std::isfinite(e)) {
        const double cx = x + bw / 2;
        out += fmt::format(
            "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\"/>"
            "<line x1=\"{3:.1f}\" x2=\"{4:.1f}\" y1=\"{1:.1f}\" y2=\"{1:.1f}\" stroke=\"#000\"/>"
            "<line x1=\"{3:.1f}\" x2=\"{4:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\"/>\n",
            cx, Y(v - e), Y(v + e), cx - 3, cx + 3);
      }
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       kLeft + g * gw + gw / 2, kTop + ph + 14, escape(groups[g].label));
  }
  if (series.size() > 1 || (series.size() == 1 && !series[0].empty())) {
    out += legend(series, a);
  }
  return out + "</svg>\n";
}

std::string scatter(const std::vector<Point>& points, const Axes& a) {
  Range xr, yr;
  for (const auto& p : points) {
    xr.add(p.x - p.x_err);
    xr.add(p.x + p.x_err);
    yr.add(p.y - p.y_err);
    yr.add(p.y + p.y_err);
  }
  xr.pad();
  yr.pad();
  const int pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
  auto X = [&](double v) { return kLeft + (v - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto Y = [&](double v) { return kTop + ph - (v - yr.lo) / (yr.hi - yr.lo) * ph; };
  std::string out = open(a) + frame(a, xr, yr, true, false);
  std::vector<std::string> names;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    names.push_back(p.name);
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const std::string c = colour(i);
    if (p.x_err > 0) {
      out += fmt::format(
          "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n",
          X(p.x - p.x_err), X(p.x + p.x_err), Y(p.y), Y(p.y), c);
    }
    if (p.y_err > 0) {
      out += fmt::format(
          "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n", X(p.x),
          X(p.x), Y(p.y - p.y_err), Y(p.y + p.y_err), c);
    }
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\"/>\n", X(p.x),
                       Y(p.y), c);
  }
  out += legend(names, a);
  return out + "</svg>\n";
}

std::string heatmap(const Heatmap& m, const Axes& a) {
  Range vr;
  for (const auto& row : m.values) {
    for (double v : row) vr.add(v);
  }
  if (vr.empty()) {
    vr.lo = 0;
    vr.hi = 1;
  }
  const int left = 150, top = kTop + 4,
            cell_h = std::max(14, std::min(28, 300 / std::max<int>(1, m.rows.size())));
  const int cell_w = std::max(18, std::min(60, 480 / std::max<int>(1, m.cols.size())));
  const int width = std::max(a.width, left + cell_w * static_cast<int>(m.cols.size()) + 90);
  const int height = top + cell_h * static_cast<int>(m.rows.size()) + 70;
  Axes b = a;
  b.width = width;
  b.height = height;
  std::string out = open(b);
  auto shade = [&](double v) {
    const double t = vr.hi > vr.lo ? (v - vr.lo) / (vr.hi - vr.lo) : 0.5;
    // white → dark blue
    const int r = static_cast<int>(247 - t * (247 - 8));
    const int g = static_cast<int>(251 - t * (251 - 48));
    const int bl = static_cast<int>(255 - t * (255 - 107));
    return fmt::format("rgb({},{},{})", r, g, bl);
  };
  for (size_t r = 0; r < m.rows.size(); ++r) {
    const int y = top + static_cast<int>(r) * cell_h;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 4,
                       y + cell_h / 2 + 4, escape(m.rows[r]));
    for (size_t c = 0; c < m.cols.size(); ++c) {
      const double v = r < m.values.size() && c < m.values[r].size() ? m.values[r][c] : NAN;
      const int x = left + static_cast<int>(c) * cell_w;
      if (!std::isfinite(v)) {
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#eee\" stroke=\"#fff\"/>\n",
            x, y, cell_w, cell_h);
        continue;
      }
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\">"
          "<title>{} / {}: {}</title></rect>\n",
          x, y, cell_w, cell_h, shade(v), escape(m.rows[r]),
          escape(c < m.cols.size() ? m.cols[c] : ""), num(v));
      if (m.annotate) {
        const double t = vr.hi > vr.lo ? (v - vr.lo) / (vr.hi - vr.lo) : 0.5;
        out += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" "
            "fill=\"{}\">{}</text>\n",
            x + cell_w / 2, y + cell_h / 2 + 4, t > 0.55 ? "#fff" : "#000",
            escape(fmt::format(fmt::runtime(m.value_format), v)));
      }
    }
  }
  const int yb = top + cell_h * static_cast<int>(m.rows.size());
  for (size_t c = 0; c < m.cols.size(); ++c) {
    const int x = left + static_cast<int>(c) * cell_w + cell_w / 2;
    out += fmt::format(
        "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-45 {0} "
        "{1})\">{2}</text>\n",
        x, yb + 12, escape(m.cols[c]));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\">{}: {} … {}</text>\n", left, height - 6,
                     escape(a.y_label.empty() ? "value" : a.y_label), num(vr.lo), num(vr.hi));
  return out + "</svg>\n";
}

namespace {

// The value of attribute `name` in the root tag of `doc`, as an integer; 0 when absent.
int root_attribute(const std::string& doc, const std::string& name) {
  const size_t open = doc.find("<svg");
  if (open == std::string::npos) return 0;
  const size_t close = doc.find('>', open);
  const size_t at = doc.find(" " + name + "=\"", open);
  if (at == std::string::npos || at > close) return 0;
  return std::atoi(doc.c_str() + at + name.size() + 3);
}

}  // namespace

std::string grid(const std::vector<std::string>& charts, int columns) {
  if (charts.size() == 1) return charts.front();
  columns = std::max(1, columns);
  std::vector<int> col_width(static_cast<size_t>(columns), 0);
  std::vector<int> row_height;
  for (size_t i = 0; i < charts.size(); ++i) {
    const size_t c = i % static_cast<size_t>(columns), r = i / static_cast<size_t>(columns);
    if (r >= row_height.size()) row_height.push_back(0);
    col_width[c] = std::max(col_width[c], root_attribute(charts[i], "width"));
    row_height[r] = std::max(row_height[r], root_attribute(charts[i], "height"));
  }
  int width = 0, height = 0;
  for (int w : col_width) width += w;
  for (int h : row_height) height += h;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
      "{0} {1}\">\n",
      width, height);
  int y = 0;
  for (size_t r = 0; r < row_height.size(); ++r) {
    int x = 0;
    for (size_t c = 0; c < col_width.size(); ++c) {
      const size_t i = r * static_cast<size_t>(columns) + c;
      if (i >= charts.size()) break;
      // A nested <svg> is positioned by x and y: the chart's own root tag gets them.
      const std::string& chart = charts[i];
      const size_t open = chart.find("<svg");
      if (open == std::string::npos) continue;
      out += chart.substr(0, open + 4) + fmt::format(" x=\"{}\" y=\"{}\"", x, y) +
             chart.substr(open + 4);
      if (out.back() != '\n') out += '\n';
      x += col_width[c];
    }
    y += row_height[r];
  }
  out += "</svg>\n";
  return out;
}

}  // namespace gb::svg
