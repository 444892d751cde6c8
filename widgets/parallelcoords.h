#pragma once
// ParallelCoordinates: one vertical axis per chosen hyper-parameter and figure, one
// polyline per run across them, coloured by method. Numeric axes are linear, or
// logarithmic when every value is positive and they span two decades or more (learning
// rates); text-valued axes place their values evenly. Dragging vertically on an axis sets a
// brush (a value range) on it; a click on the axis without dragging clears it; runs outside
// any brush are filtered out (brushedRuns), and the owner shares that filter with its
// table. Runs the owner does not highlight are drawn faint; missing values (NaN) leave a
// gap; on an axis with a `beyondLabel`, +inf values go to a slot above its range labelled
// so ("does not reach"). The margins leave room for the first and the last axis's labels and
// titles, so that they are drawn whole (a category label is elided in the middle only when
// it alone is wider than a third of the widget, or than the space between two middle axes;
// the axis's tooltip then lists it whole).

#include <QColor>
#include <QHash>
#include <QSet>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <optional>

namespace gb::gui {

class ParallelCoordinates : public QWidget {
  Q_OBJECT

 public:
  struct Axis {
    QString id;                  // stable id ("param:train.lr", "fig:final:eval/new/loss")
    QString title;               // drawn above the axis
    QStringList categories;      // text-valued axis: the values in order (values are indices)
    bool log = false;            // set by setData for wide positive ranges
    double lo = 0, hi = 1;       // data range (set by setData)
    bool lowerIsBetter = false;  // figures: the tooltip says which end is better
    bool isFigure = false;
    QString beyondLabel;  // set: +inf values are drawn at a slot above the range, so labelled
    QString tooltip;      // added to the axis's tooltip
  };
  struct Line {
    qint64 id = 0;
    QVector<double> values;  // per axis; category index on text axes; NaN: missing
    QColor color;
    QString label;  // tooltip
  };
  struct Brush {
    double lo = 0, hi = 0;  // in data units (category index on text axes)
  };

  explicit ParallelCoordinates(QWidget* parent = nullptr);

  // Replaces the axes and lines; ranges are computed from the lines. Brushes of axes that
  // keep their id are kept.
  void setData(const QVector<Axis>& axes, const QVector<Line>& lines);
  // Method colours for the legend row (method → colour).
  void setLegend(const QVector<QPair<QString, QColor>>& entries);
  const QVector<Axis>& axes() const { return m_axes; }
  const QVector<Line>& lines() const { return m_lines; }

  void setBrush(int axis, double lo, double hi);
  void clearBrush(int axis);
  void clearBrushes();
  bool hasBrush() const { return !m_brushes.isEmpty(); }
  std::optional<Brush> brush(int axis) const;
  // Runs inside every brush; std::nullopt when there is no brush.
  std::optional<QSet<qint64>> brushedRuns() const;
  // Runs drawn in colour (the rest faint); std::nullopt: all.
  void setHighlighted(const std::optional<QSet<qint64>>& runs);

  // Geometry (tests drive the mouse with these): the x of an axis and the y of a value.
  int axisX(int axis) const;
  int valueY(int axis, double value) const;
  double yValue(int axis, int y) const;
  QRect plotArea() const;
  // The tick labels of an axis as drawn: the text (elided only when it does not fit), the
  // whole text and the rectangle it is drawn in.
  struct TickLabel {
    double value = 0;
    QString text, whole;
    QRect rect;
  };
  QVector<TickLabel> tickLabels(int axis) const;
  // The rectangle of an axis's title as drawn, and its text.
  QRect titleRect(int axis, QString* text = nullptr) const;

  QSize sizeHint() const override { return {800, 420}; }
  QSize minimumSizeHint() const override { return {300, 200}; }

 signals:
  void brushChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  int axisAt(const QPoint& p) const;
  double normalized(int axis, double value) const;  // 0 bottom … 1 top; NaN when missing
  double yOf(double t) const;                       // pixel row of a normalized value
  bool inBrushes(const Line& line) const;
  int margin(bool left) const;  // room for the first (left) or last axis's labels and title
  QFont tickFont() const;

  QVector<Axis> m_axes;
  QVector<Line> m_lines;
  QHash<int, Brush> m_brushes;
  std::optional<QSet<qint64>> m_highlighted;
  QVector<QPair<QString, QColor>> m_legend;
  int m_dragAxis = -1;
  int m_dragStartY = 0;
  bool m_dragged = false;
};

}  // namespace gb::gui
