#include "architecturemodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <functional>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

QString shapeText(const QJsonArray& shape) {
  QStringList parts;
  for (const auto& v : shape) parts << QString::number(static_cast<qint64>(v.toDouble()));
  return u"("_s + parts.join(u" × "_s) + u")"_s;
}

qint64 toInt(const QJsonValue& v) {
  return static_cast<qint64>(v.toDouble());
}

}  // namespace

ArchitectureModel::ArchitectureModel(QObject* parent)
    : QAbstractItemModel(parent), m_root(std::make_unique<Node>()) {}

ArchitectureModel::~ArchitectureModel() = default;

void ArchitectureModel::clear() {
  beginResetModel();
  m_root = std::make_unique<Node>();
  m_total = 0;
  endResetModel();
}

void ArchitectureModel::setSummary(const QJsonObject& s) {
  beginResetModel();
  m_root = std::make_unique<Node>();
  m_total = toInt(s.value(u"parameters"_s));
  auto add = [](Node* parent, std::unique_ptr<Node> child) {
    child->parent = parent;
    child->row = static_cast<int>(parent->children.size());
    Node* raw = child.get();
    parent->children.push_back(std::move(child));
    return raw;
  };
  auto tensorNode = [](const QJsonObject& t) {
    auto n = std::make_unique<Node>();
    QString name = t.value(u"name"_s).toString();
    n->tooltip = name;
    n->name = name.section(QLatin1Char('.'), -2);  // "up_proj.weight"
    n->kind = t.value(u"dtype"_s).toString();
    if (!t.value(u"trainable"_s).toBool(true)) {
      n->kind = tr("%1, frozen").arg(n->kind);
    }
    n->shape = shapeText(t.value(u"shape"_s).toArray());
    n->params = toInt(t.value(u"params"_s));
    return n;
  };
  const QJsonArray outer = s.value(u"outer"_s).toArray();
  if (!outer.isEmpty()) {
    auto group = std::make_unique<Node>();
    group->name = tr("Embeddings, final norm, head");
    Node* g = add(m_root.get(), std::move(group));
    for (const auto& t : outer) {
      auto n = tensorNode(t.toObject());
      n->name = t.toObject().value(u"name"_s).toString();
      g->params += n->params;
      add(g, std::move(n));
    }
  }
  for (const auto& lv : s.value(u"layers"_s).toArray()) {
    const QJsonObject l = lv.toObject();
    auto layer = std::make_unique<Node>();
    layer->name = tr("Layer %1").arg(toInt(l.value(u"index"_s)));
    layer->kind = l.value(u"attention"_s).toString();
    layer->params = toInt(l.value(u"params"_s));
    layer->layer = true;
    Node* ln = add(m_root.get(), std::move(layer));
    for (const auto& uv : l.value(u"units"_s).toArray()) {
      const QJsonObject u = uv.toObject();
      auto unit = std::make_unique<Node>();
      unit->name = u.value(u"name"_s).toString();
      unit->kind = u.value(u"kind"_s).toString();
      unit->tooltip = u.value(u"path"_s).toString();
      unit->params = toInt(u.value(u"params"_s));
      const QJsonArray tensors = u.value(u"tensors"_s).toArray();
      if (!tensors.isEmpty()) {
        unit->shape = shapeText(tensors.first().toObject().value(u"shape"_s).toArray());
      }
      Node* un = add(ln, std::move(unit));
      for (const auto& t : tensors) add(un, tensorNode(t.toObject()));
    }
  }
  endResetModel();
}

int ArchitectureModel::layerCount() const {
  int n = 0;
  for (const auto& c : m_root->children) {
    if (c->layer) ++n;
  }
  return n;
}

ArchitectureModel::Node* ArchitectureModel::nodeOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex ArchitectureModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  Node* p = nodeOf(parent);
  if (row < 0 || row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, p->children[row].get());
}

QModelIndex ArchitectureModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  Node* n = nodeOf(child);
  Node* p = n->parent;
  if (!p || p == m_root.get()) return {};
  return createIndex(p->row, 0, p);
}

int ArchitectureModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(nodeOf(parent)->children.size());
}

int ArchitectureModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant ArchitectureModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Name");
    case Kind:
      return tr("Kind");
    case Shape:
      return tr("Shape");
    case Parameters:
      return tr("Parameters");
    case Share:
      return tr("Share");
    default:
      return {};
  }
}

QVariant ArchitectureModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Node* n = nodeOf(index);
  if (role == Qt::ToolTipRole) return n->tooltip.isEmpty() ? n->name : n->tooltip;
  if (role == Qt::TextAlignmentRole && (index.column() == Parameters || index.column() == Share)) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::UserRole) return QVariant::fromValue<qlonglong>(n->params);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Name:
      return n->name;
    case Kind:
      return n->kind;
    case Shape:
      return n->shape;
    case Parameters:
      return QLocale().toString(n->params);
    case Share:
      return m_total > 0 ? formatPercent(static_cast<double>(n->params) / m_total) : QString();
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------

ConfigTableModel::ConfigTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ConfigTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

void ConfigTableModel::setConfig(const QJsonObject& config) {
  beginResetModel();
  m_rows.clear();
  std::function<void(const QString&, const QJsonValue&)> walk = [&](const QString& key,
                                                                    const QJsonValue& v) {
    if (v.isObject()) {
      const QJsonObject o = v.toObject();
      if (o.isEmpty()) m_rows.push_back({key, u"{}"_s});
      for (auto it = o.begin(); it != o.end(); ++it) {
        walk(key.isEmpty() ? it.key() : key + u"."_s + it.key(), it.value());
      }
      return;
    }
    QString text;
    if (v.isArray()) {
      text = QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    } else if (v.isBool()) {
      text = v.toBool() ? u"true"_s : u"false"_s;
    } else if (v.isDouble()) {
      text = QString::number(v.toDouble(), 'g', 10);
    } else if (v.isNull()) {
      text = u"null"_s;
    } else {
      text = v.toString();
    }
    m_rows.push_back({key, text});
  };
  walk(QString(), config);
  endResetModel();
}

QString ConfigTableModel::value(const QString& key) const {
  for (const auto& r : m_rows) {
    if (r.first == key) return r.second;
  }
  return {};
}

int ConfigTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConfigTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConfigTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == Key ? tr("Key") : tr("Value");
}

QVariant ConfigTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const auto& r = m_rows.at(index.row());
  return index.column() == Key ? r.first : r.second;
}

}  // namespace gb::gui
