#include "heatmapplot.h"

#include <QApplication>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "plotutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

QSharedPointer<QCPAxisTickerText> labelTicker(const QStringList& labels, int maxLabels) {
  auto t = QSharedPointer<QCPAxisTickerText>::create();
  const int n = labels.size();
  const int step = std::max(1, (n + maxLabels - 1) / std::max(1, maxLabels));
  for (int i = 0; i < n; i += step) t->addTick(i, labels[i]);
  return t;
}

// QCPColorMap draws a dimension of size 1 with zero extent: use two identical cells instead,
// centred so that together they cover [-0.5, 0.5].
QCPRange cellRange(int n) {
  return n == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, n - 1);
}

}  // namespace

HeatmapPlot::HeatmapPlot(QWidget* parent) : QCustomPlot(parent) {
  setInteractions(QCP::Interactions());
  m_mapRect = axisRect();
  m_scale = new QCPColorScale(this);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_scale->setRangeDrag(false);
  m_scale->setRangeZoom(false);
  m_barRect = new QCPAxisRect(this);
  plotLayout()->addElement(0, 1, m_scale);
  plotLayout()->addElement(0, 2, m_barRect);
  plotLayout()->setColumnStretchFactors({1.0, 0.01, 0.5});
  plotLayout()->setColumnSpacing(8);
  m_margins = new QCPMarginGroup(this);
  m_mapRect->setMarginGroup(QCP::msTop | QCP::msBottom, m_margins);
  m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, m_margins);
  m_barRect->setMarginGroup(QCP::msTop | QCP::msBottom, m_margins);

  m_map = new QCPColorMap(m_mapRect->axis(QCPAxis::atBottom), m_mapRect->axis(QCPAxis::atLeft));
  m_map->setInterpolate(false);
  m_map->setTightBoundary(false);
  m_map->setColorScale(m_scale);
  m_map->setGradient(sequentialGradient());

  m_bars = new QCPBars(m_barRect->axis(QCPAxis::atLeft), m_barRect->axis(QCPAxis::atBottom));
  m_barsSelected =
      new QCPBars(m_barRect->axis(QCPAxis::atLeft), m_barRect->axis(QCPAxis::atBottom));
  m_bars->setWidth(0.72);
  m_barsSelected->setWidth(0.72);
  m_barRect->axis(QCPAxis::atLeft)->setTickLabels(false);
  m_barRect->axis(QCPAxis::atBottom)->ticker()->setTickCount(3);

  m_message = new QCPItemText(this);
  m_message->setClipToAxisRect(false);
  m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_message->position->setAxisRect(m_mapRect);
  m_message->position->setCoords(0.5, 0.5);
  m_message->setPositionAlignment(Qt::AlignCenter);
  m_message->setSelectable(false);

  legend->setVisible(false);
  setMouseTracking(true);
  applyStyle();
  clearMatrix(tr("No data"));
}

void HeatmapPlot::applyStyle() {
  stylePlot(this);
  const QPalette pal = QApplication::palette();
  QCPAxis* a = m_scale->axis();
  a->setTickLabelColor(pal.color(QPalette::Text));
  a->setLabelColor(pal.color(QPalette::Text));
  a->setBasePen(QPen(pal.color(QPalette::Mid)));
  a->setTickPen(QPen(pal.color(QPalette::Mid)));
  a->setSubTickPen(QPen(pal.color(QPalette::Mid)));
  a->setTickLabelFont(QApplication::font());
  a->setLabelFont(QApplication::font());
  for (QCPAxisRect* r : {m_mapRect, m_barRect}) {
    for (QCPAxis* ax : r->axes()) ax->grid()->setVisible(r == m_barRect);
  }
  m_barRect->axis(QCPAxis::atLeft)->grid()->setVisible(false);
  QColor barColor = pal.color(QPalette::Text);
  barColor.setAlpha(110);
  m_bars->setBrush(barColor);
  m_bars->setPen(Qt::NoPen);
  m_barsSelected->setBrush(pal.color(QPalette::Highlight));
  m_barsSelected->setPen(Qt::NoPen);
  m_message->setColor(pal.color(QPalette::Text));
  m_message->setFont(QApplication::font());
  updateSelectionItems();
}

void HeatmapPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange ||
      event->type() == QEvent::FontChange) {
    applyStyle();
    replot(rpQueuedReplot);
  }
  QCustomPlot::changeEvent(event);
}

void HeatmapPlot::setAxisLabels(const QString& rowAxis, const QString& columnAxis) {
  m_mapRect->axis(QCPAxis::atLeft)->setLabel(rowAxis);
  m_mapRect->axis(QCPAxis::atBottom)->setLabel(columnAxis);
}

void HeatmapPlot::clearMatrix(const QString& message) {
  m_rows.clear();
  m_columns.clear();
  m_values.clear();
  m_barValues.clear();
  m_selected.clear();
  m_map->data()->clear();
  m_map->setVisible(false);
  m_bars->data()->clear();
  m_barsSelected->data()->clear();
  m_mapRect->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>::create());
  m_mapRect->axis(QCPAxis::atBottom)->setTicker(QSharedPointer<QCPAxisTicker>::create());
  m_mapRect->axis(QCPAxis::atLeft)->setRange(0, 1);
  m_mapRect->axis(QCPAxis::atBottom)->setRange(0, 1);
  m_mapRect->axis(QCPAxis::atLeft)->setTickLabels(false);
  m_mapRect->axis(QCPAxis::atBottom)->setTickLabels(false);
  m_message->setText(message);
  m_message->setVisible(true);
  // An empty map: no colour scale and no ticks, only the message.
  m_scale->setVisible(false);
  for (QCPAxis* a : {m_mapRect->axis(QCPAxis::atLeft), m_mapRect->axis(QCPAxis::atBottom)}) {
    a->setTicks(false);
  }
  setBars({}, QString());
  updateSelectionItems();
  replot(rpQueuedReplot);
}

void HeatmapPlot::setMatrix(const QStringList& rowLabels, const QStringList& columnLabels,
                            const std::vector<std::vector<double>>& values,
                            const QString& valueLabel, bool diverging) {
  const int nr = static_cast<int>(values.size());
  const int nc = static_cast<int>(columnLabels.size());
  if (nr == 0 || nc == 0) {
    clearMatrix(tr("No data"));
    return;
  }
  m_message->setVisible(false);
  m_scale->setVisible(true);
  for (QCPAxis* a : {m_mapRect->axis(QCPAxis::atLeft), m_mapRect->axis(QCPAxis::atBottom)}) {
    a->setTicks(true);
  }
  m_rows = rowLabels;
  while (m_rows.size() < nr) m_rows << QString::number(m_rows.size());
  m_columns = columnLabels;
  m_values = values;
  m_valueLabel = valueLabel;
  m_diverging = diverging;
  m_selected.erase(
      std::remove_if(m_selected.begin(), m_selected.end(), [&](int r) { return r >= nr; }),
      m_selected.end());

  const int kx = nc == 1 ? 2 : nc;
  const int ky = nr == 1 ? 2 : nr;
  QCPColorMapData* d = m_map->data();
  d->setSize(kx, ky);
  d->setRange(cellRange(nc), cellRange(nr));
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int r = 0; r < ky; ++r) {
    for (int c = 0; c < kx; ++c) {
      const auto& row = values[std::min(r, nr - 1)];
      const int cc = std::min(c, nc - 1);
      const double v = cc < static_cast<int>(row.size()) ? row[cc] : qQNaN();
      d->setCell(c, r, v);
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  m_map->setVisible(true);
  if (!std::isfinite(lo)) {
    lo = 0;
    hi = 1;
  }
  if (diverging) {
    const double m = std::max({std::fabs(lo), std::fabs(hi), 1e-300});
    m_map->setGradient(divergingGradient());
    m_map->setDataRange(QCPRange(-m, m));
  } else {
    m_map->setGradient(sequentialGradient());
    m_map->setDataRange(hi > lo ? QCPRange(lo, hi) : QCPRange(lo - 0.5, lo + 0.5));
  }
  m_scale->axis()->setLabel(valueLabel);

  QCPAxis* y = m_mapRect->axis(QCPAxis::atLeft);
  QCPAxis* x = m_mapRect->axis(QCPAxis::atBottom);
  y->setTicker(labelTicker(m_rows, 40));
  x->setTicker(labelTicker(m_columns, 40));
  y->setTickLabels(true);
  x->setTickLabels(true);
  int longest = 0;
  for (const auto& c : m_columns) longest = std::max(longest, static_cast<int>(c.size()));
  x->setTickLabelRotation(nc > 8 || longest * nc > 60 ? -45 : 0);
  y->setRange(-0.5, nr - 0.5);
  x->setRange(-0.5, nc - 0.5);
  y->setSubTicks(false);
  x->setSubTicks(false);
  m_barRect->axis(QCPAxis::atLeft)->setRange(-0.5, nr - 0.5);
  m_barRect->axis(QCPAxis::atLeft)->setTicker(labelTicker(m_rows, 40));
  m_barRect->axis(QCPAxis::atLeft)->setSubTicks(false);
  updateBars();
  updateSelectionItems();
  replot(rpQueuedReplot);
}

void HeatmapPlot::setBars(const std::vector<double>& values, const QString& label) {
  m_barValues = values;
  m_barLabel = label;
  const bool show = !values.empty();
  if (show && !m_barRect->visible()) {
    plotLayout()->addElement(0, 2, m_barRect);
    m_barRect->setVisible(true);
  } else if (!show && m_barRect->visible()) {
    plotLayout()->take(m_barRect);
    plotLayout()->simplify();
    m_barRect->setVisible(false);
  }
  if (show) {
    QList<double> f = {1.0, 0.01, 0.5};
    if (plotLayout()->columnCount() == 3) plotLayout()->setColumnStretchFactors(f);
  }
  m_barRect->axis(QCPAxis::atBottom)->setLabel(label);
  updateBars();
  replot(rpQueuedReplot);
}

void HeatmapPlot::updateBars() {
  QVector<double> k, v, ks, vs;
  const int n = static_cast<int>(m_barValues.size());
  double lo = 0, hi = 0;
  for (int i = 0; i < n; ++i) {
    const double x = m_barValues[i];
    if (!std::isfinite(x)) continue;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    if (m_selected.contains(i)) {
      ks << i;
      vs << x;
    } else {
      k << i;
      v << x;
    }
  }
  m_bars->setData(k, v, true);
  m_barsSelected->setData(ks, vs, true);
  const double pad = 0.06 * std::max(hi - lo, 1e-12);
  m_barRect->axis(QCPAxis::atBottom)->setRange(lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : pad);
  if (!m_rows.isEmpty()) {
    m_barRect->axis(QCPAxis::atLeft)->setRange(-0.5, m_rows.size() - 0.5);
  }
}

void HeatmapPlot::setSelectedRows(const QVector<int>& rowsIn) {
  QVector<int> rows;
  for (int r : rowsIn) {
    if (r >= 0 && r < rowCount() && !rows.contains(r)) rows << r;
  }
  std::sort(rows.begin(), rows.end());
  m_selected = rows;
  updateBars();
  updateSelectionItems();
  replot(rpQueuedReplot);
}

void HeatmapPlot::updateSelectionItems() {
  for (auto* item : m_selectionItems) removeItem(item);
  m_selectionItems.clear();
  if (m_columns.isEmpty()) return;
  const QColor hl = QApplication::palette().color(QPalette::Highlight);
  const QColor text = QApplication::palette().color(QPalette::Text);
  const int nc = m_columns.size();
  for (int r : m_selected) {
    auto* rect = new QCPItemRect(this);
    rect->setClipAxisRect(m_mapRect);
    rect->topLeft->setAxes(m_mapRect->axis(QCPAxis::atBottom), m_mapRect->axis(QCPAxis::atLeft));
    rect->bottomRight->setAxes(m_mapRect->axis(QCPAxis::atBottom),
                               m_mapRect->axis(QCPAxis::atLeft));
    rect->topLeft->setCoords(-0.5, r + 0.5);
    rect->bottomRight->setCoords(nc - 0.5, r - 0.5);
    QColor fill = hl;
    fill.setAlpha(40);
    rect->setBrush(fill);
    rect->setPen(QPen(text, 2.0));
    rect->setSelectable(false);
    m_selectionItems << rect;
  }
}

double HeatmapPlot::value(int row, int column) const {
  if (row < 0 || row >= rowCount() || column < 0) return qQNaN();
  const auto& r = m_values[row];
  return column < static_cast<int>(r.size()) ? r[column] : qQNaN();
}

int HeatmapPlot::rowAt(const QPoint& pos) const {
  if (m_rows.isEmpty()) return -1;
  QCPAxis* axis = nullptr;
  if (m_mapRect->rect().contains(pos)) {
    axis = m_mapRect->axis(QCPAxis::atLeft);
  } else if (m_barRect->visible() && m_barRect->rect().contains(pos)) {
    axis = m_barRect->axis(QCPAxis::atLeft);
  }
  if (!axis) return -1;
  const int r = static_cast<int>(std::lround(axis->pixelToCoord(pos.y())));
  return r >= 0 && r < m_rows.size() ? r : -1;
}

int HeatmapPlot::columnAt(const QPoint& pos) const {
  if (m_columns.isEmpty() || !m_mapRect->rect().contains(pos)) return -1;
  const double x = m_mapRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
  const int c = static_cast<int>(std::lround(x));
  return c >= 0 && c < m_columns.size() ? c : -1;
}

QPoint HeatmapPlot::cellCenter(int row, int column) const {
  const double x = m_mapRect->axis(QCPAxis::atBottom)->coordToPixel(column);
  const double y = m_mapRect->axis(QCPAxis::atLeft)->coordToPixel(row);
  return QPoint(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y)));
}

QPoint HeatmapPlot::barCenter(int row) const {
  const QRect r = m_barRect->rect();
  const double y = m_barRect->axis(QCPAxis::atLeft)->coordToPixel(row);
  return QPoint(r.left() + r.width() / 4, static_cast<int>(std::lround(y)));
}

QString HeatmapPlot::cellToolTip(int row, int column) const {
  if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return {};
  const double v = value(row, column);
  const QString val = std::isnan(v) ? tr("no value") : QString::number(v, 'g', 8);
  return tr("Layer %1 · %2\n%3: %4").arg(m_rows[row], m_columns[column], m_valueLabel, val);
}

QString HeatmapPlot::barToolTip(int row) const {
  if (row < 0 || row >= static_cast<int>(m_barValues.size())) return {};
  const double v = m_barValues[row];
  const QString val = std::isnan(v) ? tr("no value") : QString::number(v, 'g', 8);
  return tr("Layer %1\n%2: %3").arg(m_rows.value(row), m_barLabel, val);
}

QVector<int> HeatmapPlot::dragRows(int from, int to) const {
  QVector<int> rows;
  for (int r = std::min(from, to); r <= std::max(from, to); ++r) rows << r;
  QVector<int> out = m_dragBase;
  for (int r : rows) {
    if (m_dragToggle) {
      if (out.contains(r))
        out.removeAll(r);
      else
        out << r;
    } else if (!out.contains(r)) {
      out << r;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void HeatmapPlot::mousePressEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_selectable && event->button() == Qt::LeftButton) {
    const int r = rowAt(pos);
    if (r >= 0) {
      m_dragAnchor = r;
      m_dragToggle = event->modifiers().testFlag(Qt::ControlModifier);
      m_dragBase = m_dragToggle ? m_selected : QVector<int>();
      m_selected = dragRows(r, r);
      updateBars();
      updateSelectionItems();
      replot(rpQueuedReplot);
      event->accept();
      return;
    }
  }
  QCustomPlot::mousePressEvent(event);
}

void HeatmapPlot::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_dragAnchor >= 0) {
    int r = rowAt(pos);
    if (r < 0 && !m_rows.isEmpty()) {
      // Outside the plot: clamp to the nearest layer along the layer axis.
      const double y = m_mapRect->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
      r = std::clamp(static_cast<int>(std::lround(y)), 0, static_cast<int>(m_rows.size()) - 1);
    }
    const QVector<int> next = dragRows(m_dragAnchor, r);
    if (next != m_selected) {
      m_selected = next;
      updateBars();
      updateSelectionItems();
      replot(rpQueuedReplot);
    }
    event->accept();
    return;
  }
  const int r = rowAt(pos);
  const int c = columnAt(pos);
  if (r >= 0 && c >= 0) {
    QToolTip::showText(event->globalPosition().toPoint(), cellToolTip(r, c), this);
    emit cellHovered(r, c);
  } else if (r >= 0 && m_barRect->visible() && m_barRect->rect().contains(pos)) {
    QToolTip::showText(event->globalPosition().toPoint(), barToolTip(r), this);
  } else {
    QToolTip::hideText();
  }
  QCustomPlot::mouseMoveEvent(event);
}

void HeatmapPlot::mouseReleaseEvent(QMouseEvent* event) {
  if (m_dragAnchor >= 0 && event->button() == Qt::LeftButton) {
    m_dragAnchor = -1;
    emit rowSelectionChanged(m_selected);
    event->accept();
    return;
  }
  QCustomPlot::mouseReleaseEvent(event);
}

void HeatmapPlot::leaveEvent(QEvent* event) {
  QToolTip::hideText();
  QCustomPlot::leaveEvent(event);
}

}  // namespace gb::gui
