#include "runtablemodel.h"

#include <QApplication>
#include <QFont>
#include <QPalette>

#include <algorithm>
#include <cmath>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace st = gb::store;

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

bool RunTableModel::isPartial(const RunRow& r) {
  return r.info.status != st::RunStatus::Finished && r.evalStep > 0;
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case Id:
        return tr("Id");
      case Name:
        return tr("Name");
      case Variant:
        return tr("Variant");
      case Layers:
        return tr("Layers");
      case TrainableShare:
        return tr("Trainable");
      case Forgetting:
        return tr("Forgetting");
      case Learning:
        return tr("Learning");
      case Op:
        return tr("OP");
      case Bwt:
        return tr("BWT");
      case Duration:
        return tr("Duration");
      case Processes:
        return tr("Processes");
      case Status:
        return tr("Status");
      case Progress:
        return tr("Progress");
      case Tags:
        return tr("Tags");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case TrainableShare:
        return tr("Trainable parameters as a share of the base model's parameters");
      case Forgetting:
        return tr(
            "Relative increase of the original-domain perplexity from step 0 to the "
            "latest evaluation (lower is better)");
      case Learning:
        return tr(
            "Relative decrease of the new-domain perplexity from step 0 to the latest "
            "evaluation (higher is better)");
      case Op:
        return tr("Overall performance: mean accuracy on all tasks after the last task");
      case Processes:
        return tr(
            "Data-parallel worker processes of the run and their collective backend (gloo on "
            "CPU, nccl on CUDA); 1 = one process");
      case Bwt:
        return tr(
            "Backward transfer: mean change of earlier tasks' accuracy after the last "
            "task (negative = forgetting)");
      default:
        return {};
    }
  }
  return {};
}

QVariant RunTableModel::display(const RunRow& r, int column) const {
  switch (column) {
    case Id:
      return QString::number(r.info.id);
    case Name:
      return qs(r.info.name);
    case Variant:
      return r.planLabel.isEmpty() ? r.variant : r.planLabel;
    case Layers:
      return r.layers;
    case TrainableShare:
      return formatPercent(r.trainableShare);
    case Forgetting:
    case Learning: {
      const double v = column == Forgetting ? r.forgetting : r.learning;
      if (std::isnan(v)) return u"–"_s;
      const QString t = u"%1%2 %"_s.arg(v >= 0 ? u"+"_s : QString()).arg(100 * v, 0, 'f', 1);
      // A run that is not finished shows a partial figure with its step.
      return isPartial(r) ? tr("%1 (step %2)").arg(t).arg(r.evalStep) : t;
    }
    case Op:
      return formatValue(r.op);
    case Bwt:
      return formatValue(r.bwt);
    case Duration:
      return formatDuration(r.duration);
    case Processes:
      return r.worldSize > 1 ? tr("%1 × %2").arg(r.worldSize).arg(r.backend)
                             : QString::number(r.worldSize);
    case Status:
      return statusText(r.info.status);
    case Progress:
      return progressText(r);
    case Tags: {
      QStringList t;
      for (const auto& s : r.info.tags) t << qs(s);
      return t.join(u", "_s);
    }
    default:
      return {};
  }
}

QVariant RunTableModel::sortValue(const RunRow& r, int column) const {
  auto num = [](double v) { return std::isnan(v) ? QVariant(-1e300) : QVariant(v); };
  switch (column) {
    case Id:
      return QVariant::fromValue<qlonglong>(r.info.id);
    case TrainableShare:
      return num(r.trainableShare);
    case Forgetting:
      return num(r.forgetting);
    case Learning:
      return num(r.learning);
    case Op:
      return num(r.op);
    case Bwt:
      return num(r.bwt);
    case Duration:
      return num(r.duration);
    case Processes:
      return r.worldSize;
    case Status:
      return static_cast<int>(r.info.status);
    case Progress:
      return progressFraction(r);
    default:
      return display(r, column);
  }
}

double RunTableModel::progressFraction(const RunRow& r) const {
  auto it = m_live.constFind(r.info.id);
  if (it != m_live.constEnd()) {
    if (it->total > 0 && it->step >= 0) return std::clamp(double(it->step) / it->total, 0.0, 1.0);
    if (it->fraction >= 0) return std::clamp(it->fraction, 0.0, 1.0);
  }
  if (r.info.status == st::RunStatus::Finished) return 1.0;
  if (r.totalSteps > 0 && r.lastStep >= 0) {
    return std::clamp(double(r.lastStep) / r.totalSteps, 0.0, 1.0);
  }
  return -1.0;
}

QString RunTableModel::progressText(const RunRow& r) const {
  auto it = m_live.constFind(r.info.id);
  if (it != m_live.constEnd() && r.info.status == st::RunStatus::Running) {
    const LiveProgress& p = *it;
    QStringList parts;
    if (p.stage != u"train"_s && !p.stage.isEmpty()) parts << p.stage;
    if (p.total > 0 && p.step >= 0) {
      parts << tr("%1 / %2").arg(p.step).arg(p.total);
    } else if (p.fraction >= 0) {
      parts << formatPercent(p.fraction);
    }
    if (!std::isnan(p.tokensPerS)) {
      parts << tr("%1 tok/s").arg(p.tokensPerS, 0, 'f', 0);
    }
    if (p.etaS >= 0) parts << tr("ETA %1").arg(formatDuration(p.etaS));
    return parts.join(u" · "_s);
  }
  if (r.totalSteps > 0 && r.lastStep >= 0) {
    return tr("%1 / %2").arg(r.lastStep).arg(r.totalSteps);
  }
  return {};
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const RunRow& r = m_rows.at(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return display(r, index.column());
    case Qt::EditRole:
      if (index.column() == Name) return qs(r.info.name);
      return display(r, index.column());
    case SortRole:
      return sortValue(r, index.column());
    case RunIdRole:
      return QVariant::fromValue<qlonglong>(r.info.id);
    case StatusRole:
      return static_cast<int>(r.info.status);
    case ProgressFractionRole:
      return progressFraction(r);
    case ProgressTextRole:
      return progressText(r);
    case Qt::TextAlignmentRole:
      switch (index.column()) {
        case Id:
        case TrainableShare:
        case Forgetting:
        case Learning:
        case Op:
        case Bwt:
        case Duration:
          return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
          return {};
      }
    case Qt::FontRole:
      if ((index.column() == Forgetting || index.column() == Learning) && isPartial(r)) {
        QFont f;
        f.setItalic(true);
        return f;
      }
      return {};
    case Qt::BackgroundRole:
      if (index.column() == Status) {
        return statusColor(r.info.status, QApplication::palette().color(QPalette::Base));
      }
      return {};
    case Qt::ToolTipRole:
      switch (index.column()) {
        case Status:
          return r.info.error.empty()
                     ? statusText(r.info.status)
                     : tr("%1: %2").arg(statusText(r.info.status), qs(r.info.error));
        case Forgetting:
        case Learning: {
          if (r.evalStep <= 0) {
            return tr("No figure: the run has no evaluation after step 0 (%1)")
                .arg(statusText(r.info.status));
          }
          QString t = index.column() == Forgetting
                          ? tr("Original-domain perplexity: %1 at step 0, %2 at step %3")
                                .arg(formatValue(r.origFirst), formatValue(r.origLast))
                                .arg(r.evalStep)
                          : tr("New-domain perplexity: %1 at step 0, %2 at step %3")
                                .arg(formatValue(r.newFirst), formatValue(r.newLast))
                                .arg(r.evalStep);
          if (isPartial(r)) {
            t += u"\n"_s + tr("Partial: the run is %1; step %2 of %3")
                               .arg(statusText(r.info.status))
                               .arg(r.evalStep)
                               .arg(r.totalSteps);
          }
          return t;
        }
        case TrainableShare:
          return tr("%1 trainable, %2 added")
              .arg(formatCount(r.trainableParams), formatCount(r.addedParams));
        case Name:
          return r.info.notes.empty() ? qs(r.info.name) : qs(r.info.notes);
        default:
          return display(r, index.column());
      }
    default:
      return {};
  }
}

void RunTableModel::setSnapshot(const RunSnapshot& snapshot) {
  const QVector<RunRow>& next = snapshot.runs;
  QHash<qint64, int> nextRow;
  for (int i = 0; i < next.size(); ++i) nextRow.insert(next[i].info.id, i);
  // Remove rows of runs that are gone (from the end, so indices stay valid).
  for (int i = static_cast<int>(m_rows.size()) - 1; i >= 0; --i) {
    if (!nextRow.contains(m_rows[i].info.id)) {
      beginRemoveRows({}, i, i);
      m_live.remove(m_rows[i].info.id);
      m_rows.removeAt(i);
      endRemoveRows();
    }
  }
  // Both lists are ordered by id: merge, inserting the new runs where they belong.
  int i = 0;
  for (const RunRow& n : next) {
    while (i < m_rows.size() && m_rows[i].info.id < n.info.id) ++i;
    if (i < m_rows.size() && m_rows[i].info.id == n.info.id) {
      m_rows[i] = n;
      ++i;
      continue;
    }
    beginInsertRows({}, i, i);
    m_rows.insert(i, n);
    endInsertRows();
    ++i;
  }
  m_rowOf.clear();
  for (int r = 0; r < m_rows.size(); ++r) m_rowOf.insert(m_rows[r].info.id, r);
  if (!m_rows.isEmpty()) {
    emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
  }
}

void RunTableModel::setLiveProgress(qint64 runId, const LiveProgress& progress) {
  m_live.insert(runId, progress);
  const int row = rowOfRun(runId);
  if (row >= 0) emit dataChanged(index(row, Progress), index(row, Progress));
}

void RunTableModel::clearLiveProgress(qint64 runId) {
  m_live.remove(runId);
  const int row = rowOfRun(runId);
  if (row >= 0) emit dataChanged(index(row, Progress), index(row, Progress));
}

void RunTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  m_rowOf.clear();
  m_live.clear();
  endResetModel();
}

int RunTableModel::rowOfRun(qint64 runId) const {
  return m_rowOf.value(runId, -1);
}

const RunRow* RunTableModel::run(qint64 runId) const {
  const int r = rowOfRun(runId);
  return r < 0 ? nullptr : &m_rows[r];
}

QVector<qint64> RunTableModel::runIds() const {
  QVector<qint64> ids;
  ids.reserve(m_rows.size());
  for (const auto& r : m_rows) ids.push_back(r.info.id);
  return ids;
}

// ---------------------------------------------------------------------------------------

RunFilterProxy::RunFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunTableModel::SortRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
  setDynamicSortFilter(true);
}

void RunFilterProxy::setText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void RunFilterProxy::setStatus(int status) {
  m_status = status;
  invalidateFilter();
}

void RunFilterProxy::setTag(const QString& tag) {
  m_tag = tag;
  invalidateFilter();
}

bool RunFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  auto* m = qobject_cast<RunTableModel*>(sourceModel());
  if (!m || sourceParent.isValid()) return true;
  const RunRow& r = m->runAt(sourceRow);
  if (m_status >= 0 && static_cast<int>(r.info.status) != m_status) return false;
  if (!m_tag.isEmpty() &&
      std::find(r.info.tags.begin(), r.info.tags.end(), ss(m_tag)) == r.info.tags.end()) {
    return false;
  }
  if (m_text.isEmpty()) return true;
  for (int c : {RunTableModel::Name, RunTableModel::Variant, RunTableModel::Layers,
                RunTableModel::Tags, RunTableModel::Id}) {
    const QString v = m->index(sourceRow, c).data(Qt::DisplayRole).toString();
    if (v.contains(m_text, Qt::CaseInsensitive)) return true;
  }
  return false;
}

bool RunFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(sortRole());
  const QVariant b = right.data(sortRole());
  if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString) {
    return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
  }
  return QVariant::compare(a, b) == QPartialOrdering::Less;
}

}  // namespace gb::gui
