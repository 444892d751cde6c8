#include "specdiffmodel.h"

#include <QApplication>
#include <QFont>
#include <QMap>
#include <QPalette>

#include <functional>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

SpecDiffModel::SpecDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

QVector<QPair<QString, QString>> SpecDiffModel::flatten(const nlohmann::json& j) {
  QVector<QPair<QString, QString>> out;
  std::function<void(const QString&, const nlohmann::json&)> walk = [&](const QString& key,
                                                                        const nlohmann::json& v) {
    if (v.is_object() && !v.empty()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        walk(key.isEmpty() ? qs(it.key()) : key + u"."_s + qs(it.key()), it.value());
      }
    } else if (v.is_array() && !v.empty() &&
               std::any_of(v.begin(), v.end(),
                           [](const nlohmann::json& e) { return e.is_structured(); })) {
      for (size_t i = 0; i < v.size(); ++i) walk(key + u"[%1]"_s.arg(i), v[i]);
    } else {
      out.push_back({key, v.is_string() ? qs(v.get<std::string>()) : qs(v.dump())});
    }
  };
  walk(QString(), j);
  return out;
}

void SpecDiffModel::setSpecs(const nlohmann::json& left, const nlohmann::json& right,
                             const QString& leftName, const QString& rightName) {
  m_leftName = leftName;
  m_rightName = rightName;
  QMap<QString, QPair<QString, QString>> rows;
  QMap<QString, QPair<bool, bool>> present;
  for (const auto& [k, v] : flatten(left)) {
    rows[k].first = v;
    present[k].first = true;
  }
  for (const auto& [k, v] : flatten(right)) {
    rows[k].second = v;
    present[k].second = true;
  }
  m_all.clear();
  for (auto it = rows.begin(); it != rows.end(); ++it) {
    Row r;
    r.key = it.key();
    r.left = present[it.key()].first ? it->first : tr("(absent)");
    r.right = present[it.key()].second ? it->second : tr("(absent)");
    r.differs = present[it.key()] != qMakePair(true, true) || it->first != it->second;
    m_all.push_back(r);
  }
  rebuild();
}

void SpecDiffModel::setOnlyDifferences(bool on) {
  m_only = on;
  rebuild();
}

void SpecDiffModel::rebuild() {
  beginResetModel();
  m_rows.clear();
  for (const Row& r : m_all) {
    if (!m_only || r.differs) m_rows.push_back(r);
  }
  endResetModel();
}

int SpecDiffModel::differenceCount() const {
  return static_cast<int>(
      std::count_if(m_all.begin(), m_all.end(), [](const Row& r) { return r.differs; }));
}

int SpecDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SpecDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SpecDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Key:
      return tr("Key");
    case Left:
      return m_leftName;
    case Right:
      return m_rightName;
    default:
      return {};
  }
}

QVariant SpecDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& r = m_rows.at(index.row());
  switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      return index.column() == Key ? r.key : index.column() == Left ? r.left : r.right;
    case DiffersRole:
      return r.differs;
    case Qt::FontRole:
      if (r.differs) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case Qt::BackgroundRole:
      if (r.differs && index.column() != Key) {
        const QColor base = QApplication::palette().color(QPalette::Base);
        const QColor mark(0xff, 0xb3, 0x00);
        return QColor::fromRgbF(0.25f * mark.redF() + 0.75f * base.redF(),
                                0.25f * mark.greenF() + 0.75f * base.greenF(),
                                0.25f * mark.blueF() + 0.75f * base.blueF());
      }
      return {};
    default:
      return {};
  }
}

}  // namespace gb::gui
