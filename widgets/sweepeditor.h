#pragma once
// SweepEditor: the seeds and sweep section of the launch form (experiment/expand.h).
//   Seeds      "0, 1, 2": one run per seed (empty: one run with the form's seed).
//   Sweep      rows of key → values: plan parameters by their schema names (from the
//              variants of the plans being launched: name, type and range from their
//              ParamSpec), "replay", "ewc.lambda", and train.* keys that may be swept;
//              values as a list ("1e-4, 3e-4, 1e-3"), or in random mode a range
//              ("log_uniform(1e-5, 1e-3)", "uniform(0, 0.2)").
//   Mode       grid (every combination) or random with N samples.
// apply() writes "seeds", "sweep", "sweep_mode" and "samples" into a spec; a value that does
// not fit its key's type or range is refused with a message naming the key and marked on
// the field. The owner shows the number of runs the spec expands to (setRunCount).

#include <QStringList>
#include <QWidget>

#include <functional>

#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace gb::gui {

class SweepEditor : public QWidget {
  Q_OBJECT

 public:
  explicit SweepEditor(QWidget* parent = nullptr);

  // The variants of the plans being launched (their parameters are offered as sweep keys).
  void setVariantsProvider(std::function<QStringList()> provider);
  void refreshKeys();
  // Keys offered for a sweep, with their description (tooltip).
  QStringList keyChoices() const { return m_keys; }

  void setSeeds(const QString& text);
  QString seedsText() const;
  // Adds a row; returns its index.
  int addSweepRow(const QString& key = {}, const QString& values = {});
  void removeSweepRow(int row);
  void clearSweep();
  int sweepRowCount() const;
  void setMode(const QString& mode, int samples = 8);  // "grid" or "random"
  QString mode() const;

  // Writes the section into `spec` (top level); the spec is left alone when the section is
  // empty. False with `error` when a field is invalid (the field is marked).
  bool apply(nlohmann::json& spec, QString* error) const;
  // Fills the section from a spec's top-level keys (unknown forms are kept as JSON text).
  void load(const nlohmann::json& spec);
  // "→ 12 runs (2 plans × 3 values × 2 seeds)" or why the count is unknown.
  void setRunCount(int runs, const QString& detail);
  QString runCountText() const;

 signals:
  void changed();

 private:
  struct KeyInfo {
    QString type;  // "int", "number", "bool", "choice", "string"
    QStringList choices;
    double min = -1e300, max = 1e300;
    QString help;
  };
  KeyInfo keyInfo(const QString& key) const;
  nlohmann::json parseValues(const QString& key, const QString& text, QString* error) const;
  void markField(QWidget* w, const QString& error) const;

  std::function<QStringList()> m_variants;
  QStringList m_keys;
  QStringList m_variantIds;
  QLineEdit* m_seeds = nullptr;
  QTableWidget* m_table = nullptr;
  QComboBox* m_mode = nullptr;
  QSpinBox* m_samples = nullptr;
  QPushButton* m_add = nullptr;
  QPushButton* m_remove = nullptr;
  QLabel* m_count = nullptr;
};

}  // namespace gb::gui
