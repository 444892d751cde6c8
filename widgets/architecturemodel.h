#pragma once
// Item models of the Model view:
//   ArchitectureModel  the architecture tree (layers → units → tensors, with shapes and
//                      parameter counts) from `growbench-cli inspect --json`;
//   ConfigTableModel   config.json as a two-column table (nested keys dotted).

#include <QAbstractItemModel>
#include <QAbstractTableModel>
#include <QJsonObject>
#include <QVector>

#include <memory>

namespace gb::gui {

class ArchitectureModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { Name, Kind, Shape, Parameters, Share, ColumnCount };

  explicit ArchitectureModel(QObject* parent = nullptr);
  ~ArchitectureModel() override;

  // The object `growbench-cli inspect --json` prints (model summary, core/model/summary.h).
  void setSummary(const QJsonObject& summary);
  void clear();
  qint64 totalParameters() const { return m_total; }
  int layerCount() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  struct Node {
    QString name, kind, shape, tooltip;
    qint64 params = 0;
    Node* parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;
    int row = 0;
    bool layer = false;
  };

 private:
  Node* nodeOf(const QModelIndex& index) const;
  std::unique_ptr<Node> m_root;
  qint64 m_total = 0;
};

class ConfigTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Key, Value, ColumnCount };
  explicit ConfigTableModel(QObject* parent = nullptr);
  void setConfig(const QJsonObject& config);
  void clear();
  QString value(const QString& key) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<QPair<QString, QString>> m_rows;
};

}  // namespace gb::gui
