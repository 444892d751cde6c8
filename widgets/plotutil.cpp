#include "plotutil.h"

#include <QApplication>
#include <QFileInfo>
#include <QPalette>
#include <QSvgGenerator>

#include <qcustomplot.h>

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

QColor mix(const QColor& a, const QColor& b, double w) {
  return QColor::fromRgbF(static_cast<float>(w * a.redF() + (1 - w) * b.redF()),
                          static_cast<float>(w * a.greenF() + (1 - w) * b.greenF()),
                          static_cast<float>(w * a.blueF() + (1 - w) * b.blueF()));
}

void styleAxis(QCPAxis* axis, const QColor& text, const QColor& line, const QColor& grid) {
  axis->setBasePen(QPen(line));
  axis->setTickPen(QPen(line));
  axis->setSubTickPen(QPen(line));
  axis->setTickLabelColor(text);
  axis->setLabelColor(text);
  axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  axis->grid()->setZeroLinePen(QPen(line, 1, Qt::SolidLine));
  axis->setTickLabelFont(QApplication::font());
  axis->setLabelFont(QApplication::font());
}

}  // namespace

void styleAxisRect(QCPAxisRect* rect) {
  const QPalette pal = QApplication::palette();
  const QColor text = pal.color(QPalette::Text);
  const QColor base = pal.color(QPalette::Base);
  const QColor line = mix(text, base, 0.6);
  const QColor grid = mix(text, base, 0.2);
  for (QCPAxis* a : rect->axes()) styleAxis(a, text, line, grid);
  rect->setBackground(QBrush(base));
}

void styleLegend(QCPLegend* legend) {
  const QPalette pal = QApplication::palette();
  QColor bg = pal.color(QPalette::Base);
  bg.setAlpha(220);
  legend->setBrush(QBrush(bg));
  legend->setBorderPen(QPen(mix(pal.color(QPalette::Text), pal.color(QPalette::Base), 0.4)));
  legend->setTextColor(pal.color(QPalette::Text));
  legend->setFont(QApplication::font());
}

void stylePlot(QCustomPlot* plot) {
  const QPalette pal = QApplication::palette();
  plot->setBackground(QBrush(pal.color(QPalette::Window)));
  for (QCPAxisRect* r : plot->axisRects()) styleAxisRect(r);
  styleLegend(plot->legend);
  plot->setNoAntialiasingOnDrag(true);
}

void placeLegendOutside(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  for (QCPAxisRect* r : plot->axisRects()) {
    if (r->insetLayout()->elements(false).contains(legend)) r->insetLayout()->take(legend);
  }
  QCPLayoutGrid* main = plot->plotLayout();
  auto* side = new QCPLayoutGrid;
  const int col = main->columnCount();
  main->addElement(0, col, side);
  side->addElement(0, 0, legend);
  side->addElement(1, 0, new QCPLayoutElement(plot));  // filler: the legend stays on top
  side->setRowStretchFactor(0, 0.001);
  side->setRowStretchFactor(1, 1);
  side->setMargins(QMargins(0, 6, 6, 0));
  main->setColumnStretchFactor(col, 0.001);
  legend->setWrap(0);
}

QCPColorGradient sequentialGradient() {
  QCPColorGradient g;
  QMap<double, QColor> stops;
  stops.insert(0.00, QColor(68, 1, 84));
  stops.insert(0.13, QColor(71, 44, 122));
  stops.insert(0.25, QColor(59, 81, 139));
  stops.insert(0.38, QColor(44, 113, 142));
  stops.insert(0.50, QColor(33, 144, 141));
  stops.insert(0.63, QColor(39, 173, 129));
  stops.insert(0.75, QColor(92, 200, 99));
  stops.insert(0.88, QColor(170, 220, 50));
  stops.insert(1.00, QColor(253, 231, 37));
  g.setColorStops(stops);
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setNanHandling(QCPColorGradient::nhTransparent);
  g.setLevelCount(256);
  return g;
}

QCPColorGradient divergingGradient() {
  QCPColorGradient g;
  QMap<double, QColor> stops;
  stops.insert(0.0, QColor(33, 102, 172));
  stops.insert(0.25, QColor(103, 169, 207));
  stops.insert(0.5, QColor(247, 247, 247));
  stops.insert(0.75, QColor(239, 138, 98));
  stops.insert(1.0, QColor(178, 24, 43));
  g.setColorStops(stops);
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setNanHandling(QCPColorGradient::nhTransparent);
  g.setLevelCount(256);
  return g;
}

QColor seriesColor(int index) {
  static const QColor colors[] = {
      QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207)};
  const int n = static_cast<int>(std::size(colors));
  QColor c = colors[((index % n) + n) % n];
  if ((index / n) % 2 == 1) c = c.darker(140);
  return c;
}

QString plotFileFilter() {
  return QApplication::translate("Plot",
                                 "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
}

bool exportPlot(QCustomPlot* plot, const QString& fileName, QString* error, int width, int height) {
  const QString suffix = QFileInfo(fileName).suffix().toLower();
  const int w = width > 0 ? width : plot->width();
  const int h = height > 0 ? height : plot->height();
  bool ok = false;
  if (suffix == u"png"_s) {
    ok = plot->savePng(fileName, w, h, 2.0);
  } else if (suffix == u"pdf"_s) {
    ok = plot->savePdf(fileName, w, h);
  } else if (suffix == u"svg"_s) {
    QSvgGenerator gen;
    gen.setFileName(fileName);
    gen.setSize(QSize(w, h));
    gen.setViewBox(QRect(0, 0, w, h));
    gen.setTitle(QApplication::translate("Plot", "GrowBench plot"));
    QCPPainter painter;
    if (painter.begin(&gen)) {
      plot->toPainter(&painter, w, h);
      ok = painter.end();
    }
  } else {
    if (error) {
      *error = QApplication::translate("Plot",
                                       "Unknown image format '%1': use .png, .svg or "
                                       ".pdf.")
                   .arg(suffix);
    }
    return false;
  }
  if (!ok && error) {
    *error = QApplication::translate("Plot", "Could not write %1.").arg(fileName);
  }
  return ok;
}

}  // namespace gb::gui
