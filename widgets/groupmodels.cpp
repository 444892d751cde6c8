#include "groupmodels.h"

#include <QCoreApplication>
#include <QFont>

#include <cmath>
#include <limits>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

// Forgetting as a relative change, forgetting at matched learning, learning as the final
// value of the learning metric (absolute), learning as a relative change, then the final
// value of every other key.
QVector<Figure> figuresOf(const GroupData& d) {
  QVector<Figure> out;
  const QString fk = qs(d.compareOptions.forgetting), lk = qs(d.compareOptions.learning);
  const QString learning = qs(d.frontOptions.learning);
  if (d.metricKeys.contains(fk)) out << Figure{Figure::Kind::Forgetting, fk};
  if (d.traces || d.metricKeys.contains(learning)) {
    out << Figure{Figure::Kind::Matched, qs(d.frontOptions.forgetting)};
  }
  if (d.metricKeys.contains(learning)) out << Figure{Figure::Kind::Final, learning};
  if (d.metricKeys.contains(lk)) out << Figure{Figure::Kind::Learning, lk};
  for (const QString& k : d.metricKeys) {
    if (k != learning) out << Figure{Figure::Kind::Final, k};
  }
  return out;
}

// Why a Matched cell has no figure at all.
QString noMatchedReason(const GroupData& d) {
  if (!d.tracesError.isEmpty()) {
    return QCoreApplication::translate("Compare", "No forgetting at matched learning: %1")
        .arg(d.tracesError);
  }
  return QCoreApplication::translate(
      "Compare",
      "No forgetting at matched learning: the run is not finished or has no evaluation of "
      "both metrics");
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

QString figureHeader(const GroupData& d, const Figure& f, const std::optional<MatchedLevel>& level,
                     bool tooltip) {
  if (f.kind == Figure::Kind::Matched) {
    const bool lower = !d.traces || d.traces->learning_lower;
    const QString at =
        level && d.traces ? levelText(*d.traces, level->value) : QString();
    if (!tooltip) {
      return at.isEmpty()
                 ? QCoreApplication::translate("Compare", "Forgetting at matched learning")
                 : QCoreApplication::translate("Compare", "Forgetting at matched learning (%1)")
                       .arg(at);
    }
    const QString split = level && level->test
                              ? QCoreApplication::translate("Compare", "test")
                              : QCoreApplication::translate("Compare", "validation");
    QString t =
        QCoreApplication::translate(
            "Compare",
            "Forgetting (%1, %2 sets) when learning (%3) reaches %4: per seed, the least "
            "validation forgetting of any run and evaluation that reaches it (interpolated "
            "between evaluations), then mean ± std over the seeds. “does not reach”: no run "
            "of it gets there. The level is set on the Trade-off tab (fronts).")
            .arg(f.key, split, qs(d.frontOptions.learning),
                 at.isEmpty() ? (lower ? u"≤ ?"_s : u"≥ ?"_s) : at);
    if (level && level->isAuto) {
      t += u"\n"_s + QCoreApplication::translate(
                         "Compare",
                         "Auto level: the best learning every seed of every plan reaches.");
    }
    return t;
  }
  if (f.kind == Figure::Kind::Final && f.key == qs(d.frontOptions.learning)) {
    if (!tooltip) return QCoreApplication::translate("Compare", "Learning (%1)").arg(f.key);
    return QCoreApplication::translate(
               "Compare", "Learning: the final value of %1 on the new domain (%2)")
        .arg(f.key, f.lowerIsBetter()
                        ? QCoreApplication::translate("Compare", "lower is better")
                        : QCoreApplication::translate("Compare", "higher is better"));
  }
  return {};
}

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
  m_level.reset();
  m_matched.clear();
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

void GroupRunModel::computeMatched() {
  m_matched.clear();
  if (!m_data || !m_level || !m_data->traces) return;
  m_matched.reserve(m_data->runs.size());
  for (const RunSummary& r : m_data->runs) {
    m_matched << matchedFigure(*m_data->traces, QSet<qint64>{r.id}, *m_level);
  }
}

void GroupRunModel::setMatchedLevel(const std::optional<MatchedLevel>& level) {
  m_level = level;
  computeMatched();
  if (!m_data) return;
  for (int f = 0; f < m_figures.size(); ++f) {
    if (m_figures[f].kind != Figure::Kind::Matched) continue;
    const int c = FixedCount + static_cast<int>(m_data->paramKeys.size()) + f;
    emit headerDataChanged(Qt::Horizontal, c, c);
    if (rowCount() > 0) emit dataChanged(index(0, c), index(rowCount() - 1, c));
  }
}

const MatchedFigure* GroupRunModel::matchedFigureAt(int row) const {
  return row >= 0 && row < m_matched.size() ? &m_matched[row] : nullptr;
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
  const QString special = figureHeader(*m_data, fig, m_level, role == Qt::ToolTipRole);
  if (!special.isEmpty()) return special;
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
      return tr("Learning (%)");
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
  if (isFigure && m_figures[f].kind == Figure::Kind::Matched) {
    const MatchedFigure* m = matchedFigureAt(index.row());
    switch (role) {
      case Qt::DisplayRole:
        return m ? matchedText(*m) : u"–"_s;
      case SortRole:
        return numberSort(m && m->reaches() ? m->mean : qQNaN());
      case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      case Qt::ToolTipRole:
        if (!m || !m->traced()) return noMatchedReason(*m_data);
        return matchedToolTip(*m, *m_data->traces, *m_level);
      case PartialRole:
        return false;
      default:
        return {};
    }
  }
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
                                const QVector<Figure>& figures,
                                const std::optional<MatchedLevel>& level) {
  beginResetModel();
  m_data = std::move(data);
  m_figures = figures;
  m_level = level;
  m_groups.clear();
  m_stats.clear();
  m_matched.clear();
  if (m_data) {
    // A filter that rejects every run leaves no groups.
    if (!runIndices) {
      m_groups = groupRuns(*m_data, by);
    } else if (!runIndices->isEmpty()) {
      m_groups = groupRuns(*m_data, by, *runIndices);
    }
    for (int gi = 0; gi < m_groups.size(); ++gi) {
      const RunGroup& g = m_groups[gi];
      QVector<FigureStat> row;
      for (int fi = 0; fi < m_figures.size(); ++fi) {
        const Figure& f = m_figures[fi];
        if (f.kind != Figure::Kind::Matched) {
          row << groupStat(*m_data, g, f);
          continue;
        }
        FigureStat st;
        if (m_level && m_data->traces) {
          QSet<qint64> ids;
          for (int i : g.runs) ids.insert(m_data->runs[i].id);
          const MatchedFigure m = matchedFigure(*m_data->traces, ids, *m_level);
          st.n = m.n;
          st.mean = m.mean;
          st.std = m.std;
          m_matched.insert({gi, fi}, m);
        }
        row << st;
      }
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
    if (m_data) {
      const QString special = figureHeader(*m_data, m_figures[f], m_level, false);
      if (!special.isEmpty()) return special;
    }
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
    if (f >= 0 && f < m_figures.size() && m_data) {
      const QString special = figureHeader(*m_data, m_figures[f], m_level, true);
      if (!special.isEmpty()) return special;
    }
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
  if (f >= 0 && m_figures[f].kind == Figure::Kind::Matched) {
    auto it = m_matched.constFind({index.row(), f});
    const MatchedFigure* m = it == m_matched.constEnd() ? nullptr : &*it;
    switch (role) {
      case Qt::DisplayRole:
        return m ? matchedText(*m) : u"–"_s;
      case SortRole:
        return numberSort(m && m->reaches() ? m->mean : qQNaN());
      case MeanRole:
        return m ? m->mean : qQNaN();
      case StdRole:
        return m ? m->std : qQNaN();
      case CountRole:
        return m ? m->n : 0;
      case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      case Qt::ToolTipRole:
        if (!m || !m->traced()) return noMatchedReason(*m_data);
        return matchedToolTip(*m, *m_data->traces, *m_level);
      default:
        return {};
    }
  }
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
