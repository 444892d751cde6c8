#pragma once
// Shared QCustomPlot styling and export: colours that follow the application palette (light
// and dark themes), perceptually uniform colour gradients, a qualitative series palette,
// and export to PNG, SVG (QSvgGenerator) and PDF.

#include <QColor>
#include <QString>

class QCustomPlot;
class QCPColorGradient;
class QCPAxisRect;
class QCPLegend;

namespace gb::gui {

// Background, axes, grid and legend colours from the palette; fonts from the application.
void stylePlot(QCustomPlot* plot);
void styleAxisRect(QCPAxisRect* rect);
void styleLegend(QCPLegend* legend);

// Moves the plot's legend out of its axis rect into a column on the right of the plot, so
// that it never covers data (top-aligned; the column is as wide as the legend needs).
void placeLegendOutside(QCustomPlot* plot);

// Viridis-like sequential gradient (dark blue → green → yellow), NaN cells transparent.
QCPColorGradient sequentialGradient();
// Blue – white – red, for signed values centred on zero.
QCPColorGradient divergingGradient();

// Colour of the i-th series (10 distinguishable colours, cycling with a darker shade).
QColor seriesColor(int index);

// Writes the plot to `fileName`; the format follows the suffix (png, svg, pdf). Size in
// pixels (0: the widget's size). Returns false and sets `error` on failure.
bool exportPlot(QCustomPlot* plot, const QString& fileName, QString* error, int width = 0,
                int height = 0);
// The file-dialog filter for exportPlot.
QString plotFileFilter();

}  // namespace gb::gui
