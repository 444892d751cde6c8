#include "elide.h"

#include <QAbstractItemView>
#include <QHeaderView>
#include <QHelpEvent>
#include <QPointer>
#include <QTableView>
#include <QTimer>
#include <QToolTip>

namespace gb::gui {

bool ElidingDelegate::elides(const QStyleOptionViewItem& option, const QModelIndex& index) {
  const QString text = index.data(Qt::DisplayRole).toString();
  if (text.isEmpty()) return false;
  // The text's width plus the margins a cell draws around it.
  const int width = option.fontMetrics.horizontalAdvance(text) + 12;
  return width > option.rect.width();
}

bool ElidingDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view,
                                const QStyleOptionViewItem& option, const QModelIndex& index) {
  if (event && event->type() == QEvent::ToolTip && index.isValid() &&
      index.data(Qt::ToolTipRole).toString().isEmpty()) {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    if (elides(opt, index)) {
      QToolTip::showText(event->globalPos(), index.data(Qt::DisplayRole).toString(), view,
                         option.rect);
      return true;
    }
  }
  return QStyledItemDelegate::helpEvent(event, view, option, index);
}

void resizeColumnsToFit(QTableView* view, int maxWidth) {
  if (!view || !view->model()) return;
  QHeaderView* h = view->horizontalHeader();
  for (int c = 0; c < view->model()->columnCount(); ++c) {
    if (view->isColumnHidden(c) || h->sectionResizeMode(c) != QHeaderView::Interactive) continue;
    if (h->stretchLastSection() && c == h->count() - 1) continue;
    view->resizeColumnToContents(c);  // the wider of the header and the cells
    if (h->sectionSize(c) > maxWidth) h->resizeSection(c, maxWidth);
  }
}

void fitToContents(QAbstractItemView* view, int maxWidth) {
  if (!view) return;
  if (!qobject_cast<ElidingDelegate*>(view->itemDelegate())) {
    view->setItemDelegate(new ElidingDelegate(view));
  }
  view->setTextElideMode(Qt::ElideMiddle);
  auto* table = qobject_cast<QTableView*>(view);
  if (!table || !view->model()) return;
  table->horizontalHeader()->setTextElideMode(Qt::ElideRight);
  // Sized when rows arrive (not on every value change: live progress updates often).
  QPointer<QTableView> t(table);
  auto* timer = new QTimer(table);
  timer->setSingleShot(true);
  timer->setInterval(50);
  QObject::connect(timer, &QTimer::timeout, table,
                   [t, maxWidth] { resizeColumnsToFit(t, maxWidth); });
  QAbstractItemModel* m = view->model();
  QObject::connect(m, &QAbstractItemModel::modelReset, timer, qOverload<>(&QTimer::start));
  QObject::connect(m, &QAbstractItemModel::rowsInserted, timer, qOverload<>(&QTimer::start));
  QObject::connect(m, &QAbstractItemModel::layoutChanged, timer, qOverload<>(&QTimer::start));
  timer->start();
}

}  // namespace gb::gui
