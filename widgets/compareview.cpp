#include "compareview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSet>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

#include "groupview.h"
#include "guiutil.h"
#include "runtablemodel.h"
#include "session.h"
#include "specdiffmodel.h"
#include "store/csv.h"
#include "storeservice.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

CompareView::CompareView(Session* session, QWidget* parent) : QWidget(parent), m_session(session) {
  m_overlayTimer.setSingleShot(true);
  m_overlayTimer.setInterval(150);
  connect(&m_overlayTimer, &QTimer::timeout, this,
          [this] { m_session->setCurveRuns(selectedRuns()); });
  buildUi();
  connect(m_session->store(), &StoreService::runsUpdated, this, [this] {
    updateTagFilter();
    // Keep the notes editor in sync unless the user is editing it.
    if (m_metaRun >= 0 && !m_notes->hasFocus() && !m_tags->hasFocus()) {
      if (const RunRow* r = m_session->runModel()->run(m_metaRun)) {
        QStringList t;
        for (const auto& s : r->info.tags) t << qs(s);
        m_tags->setText(t.join(u", "_s));
        if (m_notes->toPlainText() != qs(r->info.notes)) m_notes->setPlainText(qs(r->info.notes));
      }
    }
  });
  connect(m_session->store(), &StoreService::runsDeleted, this,
          [this](const QList<qint64>& ids, const QStringList& paths) {
            emit message(
                tr("Deleted %n run(s) and %1 checkpoint(s).", nullptr, static_cast<int>(ids.size()))
                    .arg(paths.size()));
          });
}

void CompareView::buildUi() {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 6, 6, 6);
  m_pages = new QTabWidget;
  outer->addWidget(m_pages);
  auto* allRuns = new QWidget;
  auto* top = new QVBoxLayout(allRuns);
  top->setContentsMargins(0, 4, 0, 0);
  m_pages->addTab(allRuns, tr("All runs"));
  m_groups = new GroupCompareView(m_session);
  connect(m_groups, &GroupCompareView::message, this, &CompareView::message);
  m_pages->addTab(m_groups, tr("Groups: seeds and sweeps"));
  auto* row = new QHBoxLayout;
  m_filter = new QLineEdit;
  m_filter->setPlaceholderText(tr("Filter by name, variant, layers or tag"));
  m_filter->setClearButtonEnabled(true);
  row->addWidget(m_filter, 1);
  m_status = new QComboBox;
  m_status->addItem(tr("All statuses"), -1);
  for (auto s : gb::store::all_run_statuses()) m_status->addItem(statusText(s), int(s));
  row->addWidget(m_status);
  m_tag = new QComboBox;
  m_tag->addItem(tr("All tags"), QString());
  row->addWidget(m_tag);
  auto* exportButton = new QPushButton(tr("Export CSV…"));
  exportButton->setToolTip(tr("Save the table as shown (filtered and sorted) as CSV"));
  row->addWidget(exportButton);
  top->addLayout(row);

  auto* split = new QSplitter(Qt::Vertical);
  m_table = new QTableView;
  m_proxy = new RunFilterProxy(this);
  m_proxy->setSourceModel(m_session->runModel());
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RunTableModel::Id, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->setVisible(false);
  m_table->setColumnHidden(RunTableModel::Progress, true);
  m_table->setAlternatingRowColors(true);
  m_table->horizontalHeader()->setSectionResizeMode(RunTableModel::Name, QHeaderView::Stretch);
  m_table->horizontalHeader()->resizeSection(RunTableModel::Id, 48);
  m_table->horizontalHeader()->setSectionsMovable(true);
  split->addWidget(m_table);

  auto* bottom = new QWidget;
  auto* bv = new QVBoxLayout(bottom);
  bv->setContentsMargins(0, 0, 0, 0);
  m_selection =
      new QLabel(tr("Select runs to overlay them in Curves; two runs can be "
                    "diffed."));
  m_selection->setWordWrap(true);
  bv->addWidget(m_selection);
  auto* buttons = new QHBoxLayout;
  m_diff = new QPushButton(tr("Diff specs"));
  m_diff->setToolTip(tr("Side-by-side diff of the two selected runs' experiment specs"));
  m_delete = new QPushButton(tr("Delete…"));
  m_delete->setToolTip(tr("Delete the selected runs, their metrics and checkpoints"));
  buttons->addWidget(m_diff);
  buttons->addWidget(m_delete);
  buttons->addStretch(1);
  bv->addLayout(buttons);
  auto* meta = new QFormLayout;
  m_tags = new QLineEdit;
  m_tags->setPlaceholderText(tr("comma-separated tags"));
  meta->addRow(tr("Tags:"), m_tags);
  m_notes = new QPlainTextEdit;
  m_notes->setPlaceholderText(tr("Notes on this run"));
  m_notes->setMaximumHeight(90);
  meta->addRow(tr("Notes:"), m_notes);
  m_saveMeta = new QPushButton(tr("Save tags and notes"));
  meta->addRow(m_saveMeta);
  bv->addLayout(meta);
  split->addWidget(bottom);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  top->addWidget(split, 1);

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &RunFilterProxy::setText);
  connect(m_status, &QComboBox::currentIndexChanged, this,
          [this] { m_proxy->setStatus(m_status->currentData().toInt()); });
  connect(m_tag, &QComboBox::currentIndexChanged, this,
          [this] { m_proxy->setTag(m_tag->currentData().toString()); });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &CompareView::onSelectionChanged);
  connect(m_diff, &QPushButton::clicked, this, [this] {
    const auto ids = selectedRuns();
    if (ids.size() == 2) diffSpecs(ids[0], ids[1]);
  });
  connect(m_delete, &QPushButton::clicked, this, [this] { deleteRuns(selectedRuns()); });
  connect(m_saveMeta, &QPushButton::clicked, this, [this] {
    if (m_metaRun < 0) return;
    setTags(m_metaRun, m_tags->text().split(QLatin1Char(','), Qt::SkipEmptyParts));
    setNotes(m_metaRun, m_notes->toPlainText());
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Export table"), u"runs.csv"_s, tr("CSV (*.csv)"));
    if (f.isEmpty()) return;
    QString error;
    if (exportCsv(f, &error))
      emit message(tr("Wrote %1.").arg(f));
    else
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  onSelectionChanged();
}

void CompareView::updateTagFilter() {
  const QStringList tags = m_session->store()->snapshot().tags;
  QStringList current;
  for (int i = 1; i < m_tag->count(); ++i) current << m_tag->itemData(i).toString();
  if (current == tags) return;
  const QString keep = m_tag->currentData().toString();
  QSignalBlocker b(m_tag);
  m_tag->clear();
  m_tag->addItem(tr("All tags"), QString());
  for (const QString& t : tags) m_tag->addItem(t, t);
  const int i = m_tag->findData(keep);
  m_tag->setCurrentIndex(i < 0 ? 0 : i);
}

QList<qint64> CompareView::selectedRuns() const {
  QList<qint64> ids;
  for (const QModelIndex& i : m_table->selectionModel()->selectedRows()) {
    ids << i.data(RunTableModel::RunIdRole).toLongLong();
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

void CompareView::selectRuns(const QList<qint64>& runIds) {
  QItemSelection sel;
  for (qint64 id : runIds) {
    const int row = m_session->runModel()->rowOfRun(id);
    if (row < 0) continue;
    const QModelIndex idx = m_proxy->mapFromSource(m_session->runModel()->index(row, 0));
    if (idx.isValid()) sel.select(idx, idx);
  }
  m_table->selectionModel()->select(
      sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void CompareView::onSelectionChanged() {
  const auto ids = selectedRuns();
  m_diff->setEnabled(ids.size() == 2);
  m_delete->setEnabled(!ids.isEmpty());
  const bool one = ids.size() == 1;
  m_tags->setEnabled(one);
  m_notes->setEnabled(one);
  m_saveMeta->setEnabled(one);
  m_metaRun = one ? ids.first() : -1;
  if (one) {
    if (const RunRow* r = m_session->runModel()->run(ids.first())) {
      QStringList t;
      for (const auto& s : r->info.tags) t << qs(s);
      m_tags->setText(t.join(u", "_s));
      m_notes->setPlainText(qs(r->info.notes));
    }
  } else {
    m_tags->clear();
    m_notes->clear();
  }
  if (ids.isEmpty()) {
    m_selection->setText(tr("Select runs to overlay them in Curves; two runs can be diffed."));
  } else {
    m_selection->setText(
        tr("%n run(s) selected: overlaid in Curves.", nullptr, static_cast<int>(ids.size())));
  }
  m_overlayTimer.start();
}

bool CompareView::exportCsv(const QString& path, QString* error) const {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    if (error) *error = tr("Could not write %1: %2").arg(path, f.errorString());
    return false;
  }
  QVector<int> cols;
  QHeaderView* h = m_table->horizontalHeader();
  for (int v = 0; v < h->count(); ++v) {
    const int logical = h->logicalIndex(v);
    if (!m_table->isColumnHidden(logical)) cols << logical;
  }
  std::vector<std::string> header;
  for (int c : cols) {
    header.push_back(ss(m_proxy->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()));
  }
  std::string out = gb::store::csv_record(header);
  const QSet<int> numeric = {RunTableModel::Id,         RunTableModel::TrainableShare,
                             RunTableModel::Forgetting, RunTableModel::Learning,
                             RunTableModel::Op,         RunTableModel::Bwt,
                             RunTableModel::Duration};
  for (int r = 0; r < m_proxy->rowCount(); ++r) {
    std::vector<std::string> fields;
    for (int c : cols) {
      const QModelIndex idx = m_proxy->index(r, c);
      if (numeric.contains(c)) {
        const double v = idx.data(RunTableModel::SortRole).toDouble();
        fields.push_back(v <= -1e299 ? std::string() : gb::store::csv_number(v));
      } else {
        fields.push_back(ss(idx.data(Qt::DisplayRole).toString()));
      }
    }
    out += gb::store::csv_record(fields);
  }
  f.write(QByteArray::fromStdString(out));
  if (!f.commit()) {
    if (error) *error = tr("Could not write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

SpecDiffModel* CompareView::diffSpecs(qint64 left, qint64 right, bool show) {
  const RunRow* a = m_session->runModel()->run(left);
  const RunRow* b = m_session->runModel()->run(right);
  if (!a || !b) return nullptr;
  if (!m_diffModel) m_diffModel = new SpecDiffModel(this);
  auto parse = [](const std::string& s) {
    nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
  };
  m_diffModel->setSpecs(parse(a->info.spec), parse(b->info.spec),
                        tr("#%1 %2").arg(left).arg(a->planLabel),
                        tr("#%1 %2").arg(right).arg(b->planLabel));
  if (!show) return m_diffModel;
  QDialog dlg(this);
  dlg.setWindowTitle(tr("Spec diff: run %1 and run %2").arg(left).arg(right));
  auto* v = new QVBoxLayout(&dlg);
  auto* only = new QCheckBox(tr("Only differences (%1)").arg(m_diffModel->differenceCount()));
  v->addWidget(only);
  auto* view = new QTableView;
  view->setModel(m_diffModel);
  view->verticalHeader()->setVisible(false);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  view->setWordWrap(true);
  v->addWidget(view, 1);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close);
  v->addWidget(box);
  connect(box, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
  connect(only, &QCheckBox::toggled, m_diffModel, &SpecDiffModel::setOnlyDifferences);
  only->setChecked(true);
  dlg.resize(900, 560);
  dlg.exec();
  m_diffModel->setOnlyDifferences(false);
  return m_diffModel;
}

void CompareView::setTags(qint64 runId, const QStringList& tags) {
  QStringList clean;
  for (const QString& t : tags) {
    if (!t.trimmed().isEmpty()) clean << t.trimmed();
  }
  m_session->store()->setTags(runId, clean);
}

void CompareView::setNotes(qint64 runId, const QString& notes) {
  m_session->store()->setNotes(runId, notes);
}

bool CompareView::deleteRuns(const QList<qint64>& runIds, bool confirm) {
  if (runIds.isEmpty()) return false;
  for (qint64 id : runIds) {
    const RunRow* r = m_session->runModel()->run(id);
    if (r && r->info.status == gb::store::RunStatus::Running) {
      emit message(tr("Run %1 is still running: cancel it first.").arg(id));
      return false;
    }
  }
  if (confirm && QMessageBox::question(
                     this, tr("Delete runs"),
                     tr("Delete %n run(s) with their metrics and checkpoints? This cannot be "
                        "undone.",
                        nullptr, static_cast<int>(runIds.size()))) != QMessageBox::Yes) {
    return false;
  }
  m_session->store()->deleteRuns(runIds);
  return true;
}

}  // namespace gb::gui
