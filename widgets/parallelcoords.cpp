#include "parallelcoords.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

constexpr int kLeft = 56, kRight = 56, kTop = 42, kBottom = 58;  // least margins
constexpr int kGap = 5;  // between an axis and its tick labels
// On an axis with a beyond slot, the range takes the lower part and the slot the top.
constexpr double kRangeShare = 0.86;
constexpr int kAxisGrab = 12;  // half-width of the area where a drag brushes an axis

QString tickText(double v) {
  return QString::number(v, 'g', 3);
}

}  // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void ParallelCoordinates::setData(const QVector<Axis>& axes, const QVector<Line>& lines) {
  // Keep the brushes of axes that stay.
  QHash<QString, Brush> keep;
  for (auto it = m_brushes.cbegin(); it != m_brushes.cend(); ++it) {
    if (it.key() < m_axes.size()) keep.insert(m_axes[it.key()].id, it.value());
  }
  m_axes = axes;
  m_lines = lines;
  for (int a = 0; a < m_axes.size(); ++a) {
    Axis& ax = m_axes[a];
    if (!ax.categories.isEmpty()) {
      ax.lo = 0;
      ax.hi = std::max<double>(0, ax.categories.size() - 1);
      ax.log = false;
      continue;
    }
    double lo = qInf(), hi = -qInf();
    for (const Line& l : m_lines) {
      const double v = l.values.value(a, qQNaN());
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (!std::isfinite(lo)) {
      lo = 0;
      hi = 1;
    }
    ax.lo = lo;
    ax.hi = hi;
    ax.log = !ax.isFigure && lo > 0 && hi / lo >= 100.0;
  }
  m_brushes.clear();
  for (int a = 0; a < m_axes.size(); ++a) {
    auto it = keep.constFind(m_axes[a].id);
    if (it != keep.constEnd()) m_brushes.insert(a, *it);
  }
  update();
}

void ParallelCoordinates::setLegend(const QVector<QPair<QString, QColor>>& entries) {
  m_legend = entries;
  update();
}

void ParallelCoordinates::setBrush(int axis, double lo, double hi) {
  if (axis < 0 || axis >= m_axes.size()) return;
  m_brushes.insert(axis, Brush{std::min(lo, hi), std::max(lo, hi)});
  update();
  emit brushChanged();
}

void ParallelCoordinates::clearBrush(int axis) {
  if (m_brushes.remove(axis) > 0) {
    update();
    emit brushChanged();
  }
}

void ParallelCoordinates::clearBrushes() {
  if (m_brushes.isEmpty()) return;
  m_brushes.clear();
  update();
  emit brushChanged();
}

std::optional<ParallelCoordinates::Brush> ParallelCoordinates::brush(int axis) const {
  auto it = m_brushes.constFind(axis);
  if (it == m_brushes.constEnd()) return std::nullopt;
  return *it;
}

bool ParallelCoordinates::inBrushes(const Line& l) const {
  for (auto it = m_brushes.cbegin(); it != m_brushes.cend(); ++it) {
    const double v = l.values.value(it.key(), qQNaN());
    if (!std::isfinite(v)) return false;
    // Ranges dragged with the mouse land between pixels: a tolerance of a millionth of the
    // range keeps values on the edge inside.
    const Axis& ax = m_axes[it.key()];
    const double tol = 1e-6 * std::max(std::fabs(ax.hi - ax.lo), std::fabs(ax.hi));
    if (v < it->lo - tol || v > it->hi + tol) return false;
  }
  return true;
}

std::optional<QSet<qint64>> ParallelCoordinates::brushedRuns() const {
  if (m_brushes.isEmpty()) return std::nullopt;
  QSet<qint64> out;
  for (const Line& l : m_lines) {
    if (inBrushes(l)) out.insert(l.id);
  }
  return out;
}

void ParallelCoordinates::setHighlighted(const std::optional<QSet<qint64>>& runs) {
  m_highlighted = runs;
  update();
}

QFont ParallelCoordinates::tickFont() const {
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  return small;
}

int ParallelCoordinates::margin(bool left) const {
  const int least = left ? kLeft : kRight;
  if (m_axes.isEmpty()) return least;
  // One axis sits in the middle; with several the first has its labels on the left, the
  // last on the right.
  if (m_axes.size() == 1 && !left) return least;
  const Axis& ax = left ? m_axes.first() : m_axes.last();
  const QFontMetrics fm(font()), sfm(tickFont());
  int labels = 0;
  if (!ax.categories.isEmpty()) {
    for (const QString& c : ax.categories) labels = std::max(labels, sfm.horizontalAdvance(c));
  } else {
    for (double v : {ax.lo, ax.hi, 0.5 * (ax.lo + ax.hi)}) {
      labels = std::max(labels, sfm.horizontalAdvance(tickText(v)));
    }
  }
  if (!ax.beyondLabel.isEmpty()) labels = std::max(labels, sfm.horizontalAdvance(ax.beyondLabel));
  const int need = std::max({least, labels + kGap + 6, fm.horizontalAdvance(ax.title) / 2 + 6});
  return std::min(need, std::max(least, width() / 3));
}

QRect ParallelCoordinates::plotArea() const {
  const int left = margin(true), right = margin(false);
  return QRect(left, kTop, std::max(1, width() - left - right),
               std::max(1, height() - kTop - kBottom));
}

QVector<ParallelCoordinates::TickLabel> ParallelCoordinates::tickLabels(int a) const {
  QVector<TickLabel> out;
  if (a < 0 || a >= m_axes.size()) return out;
  const Axis& ax = m_axes[a];
  const QRect area = plotArea();
  const QFontMetrics sfm(tickFont());
  const int spacing = m_axes.size() > 1 ? area.width() / (m_axes.size() - 1) : area.width();
  const int x = axisX(a);
  const bool right = a == m_axes.size() - 1 && m_axes.size() > 1;
  // Labels left of the axis (the last axis's right of it), as wide as the room there: the
  // margin, or the space back to the previous axis (whose own labels are left of it).
  const int room = a == 0 ? x - kGap - 2
                   : right ? width() - x - kGap - 2
                           : std::max(30, spacing - kGap - 8);
  // Numbers are short and never elided; category labels only when they do not fit.
  const bool numeric = ax.categories.isEmpty();
  QVector<QPair<double, QString>> ticks;
  if (!ax.categories.isEmpty()) {
    for (int c = 0; c < ax.categories.size(); ++c) ticks.push_back({double(c), ax.categories[c]});
  } else {
    ticks.push_back({ax.lo, tickText(ax.lo)});
    if (ax.hi != ax.lo) {
      ticks.push_back({ax.hi, tickText(ax.hi)});
      const double mid = ax.log ? std::sqrt(ax.lo * ax.hi) : 0.5 * (ax.lo + ax.hi);
      ticks.push_back({mid, tickText(mid)});
    }
  }
  if (!ax.beyondLabel.isEmpty()) ticks.push_back({qInf(), ax.beyondLabel});
  for (const auto& [v, label] : ticks) {
    TickLabel t;
    t.value = v;
    t.whole = label;
    t.text = (numeric && v != qInf()) || sfm.horizontalAdvance(label) <= room
                 ? label
                 : sfm.elidedText(label, Qt::ElideMiddle, std::max(10, room));
    const int w = sfm.horizontalAdvance(t.text);
    const int y = valueY(a, v);
    const int lx = right ? x + kGap : x - kGap - w;
    t.rect = QRect(lx, y + sfm.ascent() / 2 - 1 - sfm.ascent(), w, sfm.height());
    out << t;
  }
  return out;
}

QRect ParallelCoordinates::titleRect(int a, QString* text) const {
  if (a < 0 || a >= m_axes.size()) return {};
  const QRect area = plotArea();
  const QFontMetrics fm(font());
  const int spacing = m_axes.size() > 1 ? area.width() / (m_axes.size() - 1) : area.width();
  const int x = axisX(a);
  // Centred on the axis, no wider than the space between axes nor than the widget allows.
  const int edge = std::min(x, width() - x);
  const int tw = std::max(20, std::min(spacing - 6, 2 * edge - 4));
  const QString t = fm.elidedText(m_axes[a].title, Qt::ElideMiddle, tw);
  if (text) *text = t;
  const int w = fm.horizontalAdvance(t);
  return QRect(x - w / 2, 4, w, fm.height());
}

int ParallelCoordinates::axisX(int axis) const {
  const QRect r = plotArea();
  if (m_axes.size() <= 1) return r.center().x();
  return r.left() + static_cast<int>(std::lround(double(axis) * r.width() / (m_axes.size() - 1)));
}

double ParallelCoordinates::normalized(int axis, double v) const {
  const Axis& ax = m_axes[axis];
  const double share = ax.beyondLabel.isEmpty() ? 1.0 : kRangeShare;
  if (v == qInf() && !ax.beyondLabel.isEmpty()) return 1.0;
  if (!std::isfinite(v)) return qQNaN();
  double t;
  if (ax.hi == ax.lo) {
    t = 0.5;
  } else if (ax.log && v > 0) {
    t = (std::log10(v) - std::log10(ax.lo)) / (std::log10(ax.hi) - std::log10(ax.lo));
  } else {
    t = (v - ax.lo) / (ax.hi - ax.lo);
  }
  return share * t;
}

int ParallelCoordinates::valueY(int axis, double value) const {
  const double t = normalized(axis, value);
  return static_cast<int>(std::lround(yOf(std::isnan(t) ? 0 : t)));
}

double ParallelCoordinates::yOf(double t) const {
  // t = 0 on the bottom pixel row of the plot area, t = 1 on the top one.
  const QRect r = plotArea();
  return r.top() + (1.0 - t) * std::max(1, r.height() - 1);
}

double ParallelCoordinates::yValue(int axis, int y) const {
  const QRect r = plotArea();
  const Axis& ax = m_axes[axis];
  const double t = (1.0 - double(y - r.top()) / std::max(1, r.height() - 1)) /
                   (ax.beyondLabel.isEmpty() ? 1.0 : kRangeShare);
  if (ax.hi == ax.lo) return ax.lo + (t - 0.5);
  if (ax.log) {
    return std::pow(10.0, std::log10(ax.lo) + t * (std::log10(ax.hi) - std::log10(ax.lo)));
  }
  return ax.lo + t * (ax.hi - ax.lo);
}

int ParallelCoordinates::axisAt(const QPoint& p) const {
  const QRect r = plotArea().adjusted(0, -6, 0, 6);
  if (p.y() < r.top() || p.y() > r.bottom()) return -1;
  for (int a = 0; a < m_axes.size(); ++a) {
    if (std::abs(p.x() - axisX(a)) <= kAxisGrab) return a;
  }
  return -1;
}

void ParallelCoordinates::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  p.setRenderHint(QPainter::Antialiasing, true);
  const QColor text = pal.color(QPalette::Text);
  QColor faint = text;
  faint.setAlpha(28);
  if (m_axes.isEmpty()) {
    p.setPen(text);
    p.drawText(rect(), Qt::AlignCenter, tr("No axes: choose hyper-parameters and figures"));
    return;
  }
  const QRect area = plotArea();
  // Lines: faint ones first, highlighted on top.
  auto drawLine = [&](const Line& l, const QPen& pen) {
    p.setPen(pen);
    QPainterPath path;
    bool open = false;
    for (int a = 0; a < m_axes.size(); ++a) {
      const double t = normalized(a, l.values.value(a, qQNaN()));
      if (std::isnan(t)) {
        open = false;
        continue;
      }
      const QPointF pt(axisX(a), yOf(t));
      if (open) {
        path.lineTo(pt);
      } else {
        path.moveTo(pt);
        open = true;
      }
    }
    p.drawPath(path);
  };
  QVector<const Line*> strong;
  for (const Line& l : m_lines) {
    const bool on = inBrushes(l) && (!m_highlighted || m_highlighted->contains(l.id));
    if (on) {
      strong << &l;
    } else {
      drawLine(l, QPen(faint, 1.0));
    }
  }
  for (const Line* l : strong) {
    QColor c = l->color;
    c.setAlpha(210);
    drawLine(*l, QPen(c, 1.6));
  }
  // Axes, brushes and labels.
  const QFont small = tickFont();
  const QFontMetrics fm(font()), sfm(small);
  for (int a = 0; a < m_axes.size(); ++a) {
    const Axis& ax = m_axes[a];
    const int x = axisX(a);
    if (auto b = brush(a)) {
      const int y1 = valueY(a, b->lo), y2 = valueY(a, b->hi);
      QColor hl = pal.color(QPalette::Highlight);
      hl.setAlpha(90);
      p.fillRect(QRect(x - 7, std::min(y1, y2) - 2, 14, std::abs(y2 - y1) + 4), hl);
      p.setPen(QPen(pal.color(QPalette::Highlight), 1.2));
      p.drawRect(QRect(x - 7, std::min(y1, y2) - 2, 14, std::abs(y2 - y1) + 4));
    }
    p.setPen(QPen(text, 1.3));
    if (ax.beyondLabel.isEmpty()) {
      p.drawLine(x, area.top(), x, area.bottom());
    } else {
      // The range, then a dotted stretch up to the slot above it.
      const int top = static_cast<int>(std::lround(yOf(kRangeShare)));
      p.drawLine(x, top, x, area.bottom());
      p.setPen(QPen(text, 1.0, Qt::DotLine));
      p.drawLine(x, area.top(), x, top);
      p.setPen(QPen(text, 1.3));
    }
    // Title, elided to the space between axes (full text in the tooltip).
    p.setFont(font());
    QString title;
    const QRect titleBox = titleRect(a, &title);
    p.drawText(titleBox, Qt::AlignHCenter | Qt::AlignTop, title);
    if (ax.log) {
      p.setFont(small);
      p.drawText(QRect(x - 40, 4 + fm.height(), 80, sfm.height()), Qt::AlignHCenter, tr("(log)"));
    }
    // Ticks: categories, or the ends and the middle.
    p.setFont(small);
    for (const TickLabel& t : tickLabels(a)) {
      const int y = valueY(a, t.value);
      p.drawLine(x - 3, y, x + 3, y);
      p.drawText(QPoint(t.rect.left(), t.rect.top() + sfm.ascent()), t.text);
    }
  }
  // Legend row.
  p.setFont(font());
  int lx = area.left(), ly = height() - fm.height() - 6;
  for (const auto& [name, color] : m_legend) {
    const QString t = fm.elidedText(name, Qt::ElideRight, 220);
    const int w = 16 + fm.horizontalAdvance(t) + 14;
    if (lx + w > width() - 8 && lx > area.left()) break;
    p.fillRect(QRect(lx, ly + fm.height() / 2 - 4, 10, 8), color);
    p.setPen(text);
    p.drawText(QPoint(lx + 14, ly + fm.ascent()), t);
    lx += w;
  }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent* e) {
  m_dragAxis = e->button() == Qt::LeftButton ? axisAt(e->position().toPoint()) : -1;
  m_dragStartY = std::clamp(e->position().toPoint().y(), plotArea().top(), plotArea().bottom());
  m_dragged = false;
  if (m_dragAxis < 0) QWidget::mousePressEvent(e);
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent* e) {
  if (m_dragAxis < 0) return QWidget::mouseMoveEvent(e);
  const int y = std::clamp(e->position().toPoint().y(), plotArea().top(), plotArea().bottom());
  if (!m_dragged && std::abs(y - m_dragStartY) < 3) return;
  m_dragged = true;
  setBrush(m_dragAxis, yValue(m_dragAxis, m_dragStartY), yValue(m_dragAxis, y));
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent* e) {
  if (m_dragAxis < 0) return QWidget::mouseReleaseEvent(e);
  if (!m_dragged) clearBrush(m_dragAxis);  // a click on an axis clears its brush
  m_dragAxis = -1;
}

bool ParallelCoordinates::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  auto* he = static_cast<QHelpEvent*>(e);
  const QPoint pos = he->pos();
  const int axis = axisAt(pos);
  if (axis >= 0) {
    QString tip = m_axes[axis].title;
    if (m_axes[axis].isFigure) {
      tip += m_axes[axis].lowerIsBetter ? tr(" (lower is better)") : tr(" (higher is better)");
    }
    if (!m_axes[axis].tooltip.isEmpty()) tip += u"\n"_s + m_axes[axis].tooltip;
    QStringList elided;
    for (const TickLabel& t : tickLabels(axis)) {
      if (t.text != t.whole) elided << t.whole;
    }
    if (!elided.isEmpty()) tip += u"\n"_s + elided.join(u"\n"_s);
    if (auto b = brush(axis)) {
      tip += u"\n"_s +
             tr("Brush: %1 … %2 (click the axis to clear)").arg(tickText(b->lo), tickText(b->hi));
    } else {
      tip += u"\n"_s + tr("Drag along the axis to filter the runs by a range");
    }
    QToolTip::showText(he->globalPos(), tip, this);
    return true;
  }
  // The nearest line between the two axes around the cursor.
  int seg = -1;
  for (int a = 0; a + 1 < m_axes.size(); ++a) {
    if (pos.x() >= axisX(a) && pos.x() <= axisX(a + 1)) seg = a;
  }
  const Line* best = nullptr;
  double bestD = 6.0;
  if (seg >= 0) {
    const double f = double(pos.x() - axisX(seg)) / std::max(1, axisX(seg + 1) - axisX(seg));
    for (const Line& l : m_lines) {
      const double t0 = normalized(seg, l.values.value(seg, qQNaN()));
      const double t1 = normalized(seg + 1, l.values.value(seg + 1, qQNaN()));
      if (std::isnan(t0) || std::isnan(t1)) continue;
      const double y = yOf(t0 + f * (t1 - t0));
      const double d = std::fabs(y - pos.y());
      if (d < bestD) {
        bestD = d;
        best = &l;
      }
    }
  }
  if (best) {
    QToolTip::showText(he->globalPos(), best->label, this);
  } else {
    QToolTip::hideText();
    e->ignore();
  }
  return true;
}

}  // namespace gb::gui
