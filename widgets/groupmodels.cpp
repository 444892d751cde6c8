#include "groupmodels.h"

#include <QFont>

#include <cmath>
#include <limits>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

QVector<Figure> figuresOf(const GroupData& d) {
  QVector<Figure> out;
  const QString fk = qs(d.compareOptions.forgetting), lk = qs(d.compareOptions.learning);
  if (d.metricKeys.contains(fk)) out << Figure{Figure::Kind::Forgetting, fk};
  if (d.metricKeys.contains(lk)) out << Figure{Figure::Kind::Learning, lk};
  for (const QString& k : d.metricKeys) out << Figure{Figure::Kind::Final, k};
  return out;
}

QVariant numberSort(double v) {
  return std::isnan(v) ? QVariant(std::numeric_limits<double>::infinity()) : QVariant(v);
}

QString figureText(double v, const Figure& f) {
  if (std::isnan(v)) return u"–"_s;
  if (f.kind == Figure::Kind::Final) return formatValue(v);
  return u"%1%2 %"_s.arg(v >= 0 ? u"+"_s : QString()).arg(v, 0, 'f', 1);
}

}  // namespace

QString meanStdText(const FigureStat& s) {
  if (s.n == 0) return u"–"_s;
  return u"%1 ± %2"_s.arg(formatValue(s.mean), formatValue(s.std));
}

// ---- GroupRunModel --------------------------------------------------------------------

GroupRunModel::GroupRunModel(QObject* parent)
    : QAbstractTableModel(parent), m_by(kGroupByConfiguration) {}

void GroupRunModel::setGroupData(std::shared_ptr<const GroupData> data) {
  beginResetModel();
  m_data = std::move(data);
  m_figures = m_data ? figuresOf(*m_data) : QVector<Figure>();
  m_groupLabel.clear();
  if (m_data) {
    m_groupLabel.resize(m_data->runs.size());
    for (const RunGroup& g : groupRuns(*m_data, m_by)) {
      for (int i : g.runs) m_groupLabel[i] = g.label;
    }
  }
  endResetModel();
}

void GroupRunModel::setGrouping(const QString& by) {
  m_by = by;
  if (!m_data) return;
  for (const RunGroup& g : groupRuns(*m_data, m_by)) {
    for (int i : g.runs) m_groupLabel[i] = g.label;
  }
  if (rowCount() > 0) emit dataChanged(index(0, Group), index(rowCount() - 1, Group));
}

int GroupRunModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_data ? 0 : static_cast<int>(m_data->runs.size());
}

int GroupRunModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_data) return parent.isValid() ? 0 : FixedCount;
  return FixedCount + static_cast<int>(m_data->paramKeys.size() + m_figures.size());
}

QString GroupRunModel::columnId(int c) const {
  switch (c) {
    case Id:
      return u"id"_s;
    case Name:
      return u"name"_s;
    case Status:
      return u"status"_s;
    case Group:
      return u"group"_s;
    default:
      break;
  }
  if (!m_data) return {};
  const int p = c - FixedCount;
  if (p >= 0 && p < m_data->paramKeys.size()) return u"param:"_s + m_data->paramKeys[p];
  const int f = p - static_cast<int>(m_data->paramKeys.size());
  if (f >= 0 && f < m_figures.size()) return u"fig:"_s + m_figures[f].id();
  return {};
}

int GroupRunModel::columnOf(const QString& id) const {
  for (int c = 0; c < columnCount(); ++c) {
    if (columnId(c) == id) return c;
  }
  return -1;
}

qint64 GroupRunModel::runIdAt(int row) const {
  return m_data && row >= 0 && row < m_data->runs.size() ? m_data->runs[row].id : -1;
}

QVariant GroupRunModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == ColumnIdRole) return columnId(section);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (section) {
    case Id:
      return tr("Id");
    case Name:
      return tr("Name");
    case Status:
      return tr("Status");
    case Group:
      return role == Qt::ToolTipRole ? tr("The group of the run under the current grouping")
                                     : tr("Group");
    default:
      break;
  }
  if (!m_data) return {};
  const int p = section - FixedCount;
  if (p >= 0 && p < m_data->paramKeys.size()) {
    return role == Qt::ToolTipRole ? tr("Hyper-parameter %1").arg(m_data->paramKeys[p])
                                   : m_data->paramKeys[p];
  }
  const int f = p - static_cast<int>(m_data->paramKeys.size());
  if (f < 0 || f >= m_figures.size()) return {};
  const Figure& fig = m_figures[f];
  if (role == Qt::ToolTipRole) {
    switch (fig.kind) {
      case Figure::Kind::Forgetting:
        return tr("Relative change of %1 from step 0 to the final evaluation (positive = "
                  "more forgetting)")
            .arg(fig.key);
      case Figure::Kind::Learning:
        return tr("Relative improvement of %1 from step 0 to the final evaluation").arg(fig.key);
      default:
        return tr("Final value of %1").arg(fig.key);
    }
  }
  switch (fig.kind) {
    case Figure::Kind::Forgetting:
      return tr("Forgetting");
    case Figure::Kind::Learning:
      return tr("Learning");
    default:
      return fig.key;
  }
}

QVariant GroupRunModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
      !m_data) {
    return {};
  }
  const RunSummary& r = m_data->runs[index.row()];
  const int c = index.column();
  if (role == RunIdRole) return QVariant::fromValue<qlonglong>(r.id);
  const int p = c - FixedCount;
  const int f = p - static_cast<int>(m_data->paramKeys.size());
  const bool isParam = p >= 0 && p < m_data->paramKeys.size();
  const bool isFigure = f >= 0 && f < m_figures.size();
  double fig = qQNaN();
  qint64 step = -1;
  if (isFigure) fig = figureOf(r, m_figures[f], &step);
  const bool partial = isFigure && !std::isnan(fig) && r.partial();
  switch (role) {
    case Qt::DisplayRole:
      switch (c) {
        case Id:
          return QString::number(r.id);
        case Name:
          return r.name;
        case Status:
          return statusText(r.status);
        case Group:
          return m_groupLabel.value(index.row());
        default:
          break;
      }
      if (isParam) {
        const QString k = m_data->paramKeys[p];
        return r.params.contains(k) ? paramText(r.params.value(k)) : QString();
      }
      if (isFigure) {
        const QString t = figureText(fig, m_figures[f]);
        return partial ? tr("%1 (step %2)").arg(t).arg(step) : t;
      }
      return {};
    case SortRole:
      if (c == Id) return QVariant::fromValue<qlonglong>(r.id);
      if (c == Status) return static_cast<int>(r.status);
      if (isParam) {
        const QVariant v = r.params.value(m_data->paramKeys[p]);
        if (v.typeId() == QMetaType::Double) return v;
        return paramText(v);
      }
      if (isFigure) return numberSort(fig);
      return data(index, Qt::DisplayRole);
    case PartialRole:
      return partial;
    case Qt::FontRole:
      if (partial) {
        QFont font;
        font.setItalic(true);
        return font;
      }
      return {};
    case Qt::TextAlignmentRole:
      if (c == Id || isFigure ||
          (isParam && r.params.value(m_data->paramKeys[p]).typeId() == QMetaType::Double)) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      }
      return {};
    case Qt::ToolTipRole:
      if (isFigure) {
        if (r.noFigure()) {
          return tr("No figure: run %1 is %2 and has no evaluation after step 0")
              .arg(r.id)
              .arg(statusText(r.status));
        }
        if (partial) {
          return tr("Partial: run %1 is %2; this figure is from step %3 of %4")
              .arg(r.id)
              .arg(statusText(r.status))
              .arg(step)
              .arg(r.totalSteps);
        }
      }
      return data(index, Qt::DisplayRole);
    default:
      return {};
  }
}

// ---- GroupRunProxy --------------------------------------------------------------------

GroupRunProxy::GroupRunProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(GroupRunModel::SortRole);
  setDynamicSortFilter(true);
}

void GroupRunProxy::setText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void GroupRunProxy::setAllowedRuns(const std::optional<QSet<qint64>>& runs) {
  m_allowed = runs;
  invalidateFilter();
}

QVector<qint64> GroupRunProxy::acceptedRuns() const {
  QVector<qint64> out;
  auto* m = qobject_cast<GroupRunModel*>(sourceModel());
  if (!m) return out;
  for (int r = 0; r < m->rowCount(); ++r) {
    if (filterAcceptsRow(r, {})) out << m->runIdAt(r);
  }
  return out;
}

bool GroupRunProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  auto* m = qobject_cast<GroupRunModel*>(sourceModel());
  if (!m || sourceParent.isValid() || !m->groupData()) return true;
  const RunSummary& r = m->groupData()->runs[sourceRow];
  if (m_allowed && !m_allowed->contains(r.id)) return false;
  if (m_text.isEmpty()) return true;
  if (r.name.contains(m_text, Qt::CaseInsensitive)) return true;
  if (m->index(sourceRow, GroupRunModel::Group)
          .data()
          .toString()
          .contains(m_text, Qt::CaseInsensitive)) {
    return true;
  }
  for (auto it = r.params.cbegin(); it != r.params.cend(); ++it) {
    if (paramText(it.value()).contains(m_text, Qt::CaseInsensitive)) return true;
  }
  return false;
}

bool GroupRunProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(sortRole());
  const QVariant b = right.data(sortRole());
  if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString) {
    return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
  }
  return QVariant::compare(a, b) == QPartialOrdering::Less;
}

// ---- GroupStatsModel ------------------------------------------------------------------

GroupStatsModel::GroupStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void GroupStatsModel::setGroups(std::shared_ptr<const GroupData> data, const QString& by,
                                const std::optional<QVector<int>>& runIndices,
                                const QVector<Figure>& figures) {
  beginResetModel();
  m_data = std::move(data);
  m_figures = figures;
  m_groups.clear();
  m_stats.clear();
  if (m_data) {
    // A filter that rejects every run leaves no groups.
    if (!runIndices) {
      m_groups = groupRuns(*m_data, by);
    } else if (!runIndices->isEmpty()) {
      m_groups = groupRuns(*m_data, by, *runIndices);
    }
    for (const RunGroup& g : m_groups) {
      QVector<FigureStat> row;
      for (const Figure& f : m_figures) row << groupStat(*m_data, g, f);
      m_stats << row;
    }
  }
  endResetModel();
}

int GroupStatsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_groups.size());
}

int GroupStatsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : FixedCount + static_cast<int>(m_figures.size());
}

QVariant GroupStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    if (section == Label) return tr("Group");
    if (section == Runs) return tr("Runs");
    const int f = section - FixedCount;
    if (f < 0 || f >= m_figures.size()) return {};
    switch (m_figures[f].kind) {
      case Figure::Kind::Forgetting:
        return tr("Forgetting (%)");
      case Figure::Kind::Learning:
        return tr("Learning (%)");
      default:
        return m_figures[f].key;
    }
  }
  if (role == Qt::ToolTipRole) {
    if (section == Runs) return tr("Complete runs (finished, evaluated) / runs in the group");
    const int f = section - FixedCount;
    if (f >= 0 && f < m_figures.size()) {
      return tr("%1: mean ± sample standard deviation over the complete runs of the group")
          .arg(m_figures[f].title());
    }
  }
  return {};
}

QVariant GroupStatsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const RunGroup& g = m_groups[index.row()];
  const int c = index.column();
  const int f = c - FixedCount;
  int complete = 0;
  for (int i : g.runs) complete += m_data->runs[i].complete() ? 1 : 0;
  switch (role) {
    case Qt::DisplayRole:
      if (c == Label) return g.label;
      if (c == Runs) return tr("%1 / %2").arg(complete).arg(g.runs.size());
      return meanStdText(m_stats[index.row()][f]);
    case SortRole:
      if (c == Label) return g.label;
      if (c == Runs) return complete;
      return numberSort(m_stats[index.row()][f].mean);
    case MeanRole:
      return f >= 0 ? m_stats[index.row()][f].mean : QVariant();
    case StdRole:
      return f >= 0 ? m_stats[index.row()][f].std : QVariant();
    case CountRole:
      return f >= 0 ? m_stats[index.row()][f].n : complete;
    case Qt::TextAlignmentRole:
      if (c != Label) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ToolTipRole:
      if (c >= FixedCount) {
        const FigureStat& s = m_stats[index.row()][f];
        if (s.n == 0) return tr("No complete run in this group has this figure");
        return tr("mean %1, std %2, min %3, max %4 over %n complete run(s)", nullptr, s.n)
            .arg(formatValue(s.mean), formatValue(s.std), formatValue(s.min), formatValue(s.max));
      }
      if (c == Runs && complete < g.runs.size()) {
        return tr("%n run(s) without a final evaluation are left out of the figures", nullptr,
                  static_cast<int>(g.runs.size() - complete));
      }
      return data(index, Qt::DisplayRole);
    default:
      return {};
  }
}

}  // namespace gb::gui
