#pragma once
// HeatmapPlot: a layers × columns matrix (importance of units, effective rank per training
// stage) as a QCPColorMap without interpolation, a QCPColorScale legend, and optionally a
// layer bar chart beside it sharing the layer axis. Hovering shows the layer, the column and
// the exact value; clicking or dragging over layers (in the map or the bars) selects them
// (Ctrl adds to / removes from the selection).

#include <QString>
#include <QStringList>
#include <QVector>

#include <vector>

#include <qcustomplot.h>

namespace gb::gui {

class HeatmapPlot : public QCustomPlot {
  Q_OBJECT

 public:
  explicit HeatmapPlot(QWidget* parent = nullptr);

  // values[row][column]; NaN cells are transparent. `diverging`: a blue–white–red scale
  // symmetric around zero (signed values), else a sequential one.
  void setMatrix(const QStringList& rowLabels, const QStringList& columnLabels,
                 const std::vector<std::vector<double>>& values, const QString& valueLabel,
                 bool diverging);
  // One value per row, shown as horizontal bars beside the map; empty hides the chart.
  void setBars(const std::vector<double>& values, const QString& label);
  void setAxisLabels(const QString& rowAxis, const QString& columnAxis);
  void clearMatrix(const QString& message);

  void setSelectionEnabled(bool enabled) { m_selectable = enabled; }
  void setSelectedRows(const QVector<int>& rows);  // no signal
  const QVector<int>& selectedRows() const { return m_selected; }

  int rowCount() const { return static_cast<int>(m_values.size()); }
  int columnCount() const { return m_columns.size(); }
  double value(int row, int column) const;
  const std::vector<double>& barValues() const { return m_barValues; }
  // Row under a widget pixel (map or bars), or -1.
  int rowAt(const QPoint& pos) const;
  int columnAt(const QPoint& pos) const;
  // Widget pixel of a cell's centre / a bar's centre (for tests and the tour).
  QPoint cellCenter(int row, int column) const;
  QPoint barCenter(int row) const;
  QString cellToolTip(int row, int column) const;
  QString barToolTip(int row) const;

  QCPColorMap* colorMap() const { return m_map; }
  QCPColorScale* colorScale() const { return m_scale; }
  QCPAxisRect* mapRect() const { return m_mapRect; }
  QCPAxisRect* barRect() const { return m_barRect; }

 signals:
  void rowSelectionChanged(const QVector<int>& rows);
  void cellHovered(int row, int column);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void updateSelectionItems();
  void updateBars();
  void applyStyle();
  QVector<int> dragRows(int from, int to) const;

  QCPAxisRect* m_mapRect = nullptr;
  QCPAxisRect* m_barRect = nullptr;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QCPBars* m_bars = nullptr;
  QCPBars* m_barsSelected = nullptr;
  QCPItemText* m_message = nullptr;
  QCPMarginGroup* m_margins = nullptr;
  QList<QCPItemRect*> m_selectionItems;
  QStringList m_rows, m_columns;
  std::vector<std::vector<double>> m_values;
  std::vector<double> m_barValues;
  QString m_valueLabel, m_barLabel;
  QVector<int> m_selected;
  QVector<int> m_dragBase;
  int m_dragAnchor = -1;
  bool m_dragToggle = false;
  bool m_selectable = true;
  bool m_diverging = false;
};

}  // namespace gb::gui
