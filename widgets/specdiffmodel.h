#pragma once
// SpecDiffModel: two runs' experiment specs side by side, one row per (dotted) key, the
// differing rows marked; optionally only the differences.

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

#include <nlohmann/json.hpp>

namespace gb::gui {

class SpecDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Key, Left, Right, ColumnCount };
  enum Role { DiffersRole = Qt::UserRole + 1 };

  explicit SpecDiffModel(QObject* parent = nullptr);
  void setSpecs(const nlohmann::json& left, const nlohmann::json& right, const QString& leftName,
                const QString& rightName);
  void setOnlyDifferences(bool on);
  int differenceCount() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Flattens JSON to dotted keys ("train.lr", "plans[0].layers"); scalars and empty
  // containers are leaves, shown as compact JSON.
  static QVector<QPair<QString, QString>> flatten(const nlohmann::json& j);

 private:
  struct Row {
    QString key, left, right;
    bool differs = false;
  };
  void rebuild();
  QVector<Row> m_all, m_rows;
  QString m_leftName, m_rightName;
  bool m_only = false;
};

}  // namespace gb::gui
