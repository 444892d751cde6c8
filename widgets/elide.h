#pragma once
// Tables that show their content: columns sized to what they hold (bounded, so one long path
// does not push the others out of sight), and text that still does not fit is elided with
// the full text as a tooltip. MainWindow applies this to every item view it holds.

#include <QStyledItemDelegate>

class QAbstractItemView;
class QTableView;

namespace gb::gui {

// Shows the full text of a cell as its tooltip when the cell elides it (and the model gives
// no tooltip of its own).
class ElidingDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                 const QModelIndex& index) override;
  // Whether `index`'s text is wider than `option.rect` (for tests).
  static bool elides(const QStyleOptionViewItem& option, const QModelIndex& index);
};

// Installs the eliding delegate (keeping column delegates), and for tables sizes the
// columns to their contents, at most `maxWidth` pixels each, whenever rows arrive.
void fitToContents(QAbstractItemView* view, int maxWidth = 420);
void resizeColumnsToFit(QTableView* view, int maxWidth = 420);

}  // namespace gb::gui
