#pragma once
// GrowPlanner: build a GrowthPlan. The variant combo shows a form with only that variant's
// hyper-parameters, generated from its parameter schema (core/grow/variants/: labels,
// ranges, choices, tooltips quoting the papers, when a key applies) by the generator the
// experiment editor's plan form uses too (variantform.h), with the model's hints; the
// layers come from the Importance view's selection, a policy the runner resolves, or a
// manual list. Live figures (parameters added, trainable parameters and share, memory) are
// computed in closed form from the config; "Check preservation" runs `growbench-cli grow
// --json` in a worker and shows the exact counts and the maximum |logit difference|. Plans
// are queued into one comparison that the Runs view launches.

#include <QHash>
#include <QJsonObject>
#include <QWidget>

#include <functional>

#include <nlohmann/json.hpp>

#include "planestimate.h"
#include "suggestdialog.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace gb::gui {

class CliJob;
class Session;
class SpecField;
struct ModelRef;

class GrowPlanner : public QWidget {
  Q_OBJECT

 public:
  explicit GrowPlanner(Session* session, QWidget* parent = nullptr);
  ~GrowPlanner() override;

  // The plan the form describes (docs/plans.md JSON).
  nlohmann::json plan() const;
  // Validation error of the current plan against the model ("" when valid).
  QString validationError() const { return m_error; }
  const PlanEstimate& estimate() const { return m_estimate; }

  void setVariant(const QString& variant);
  QString variant() const;
  // Sets a hyper-parameter of the current variant's form (for tests and templates).
  bool setParameter(const QString& key, const QVariant& value);
  // The editor of a key of the current variant's form (nullptr: no field): a QSpinBox,
  // QDoubleSpinBox, QCheckBox, QComboBox (the choices as item data) or a row of check boxes
  // named by their items (SpecField's Value mode); and whether its row shows (the key applies
  // in the form's current mode).
  QWidget* field(const QString& key) const;
  bool fieldShown(const QString& key) const;
  bool layersShown() const;
  // The entries of the layers row, in this order: every layer, the heatmap's selection, one
  // entry per registered layer policy the planner offers (importance/policy.h), a manual
  // list, and a loaded plan's policy that no other entry writes (kept as it was).
  enum class LayerSource { All, Selection, Policy, Manual, Loaded };
  // Policy: the first policy entry (setLayerPolicy names one). k: the policy's layer count.
  void setLayerSource(LayerSource source, int k = 2);
  // The entry of the layer policy `id` with k layers (k is unused when the policy takes no
  // count); false when the planner does not offer it.
  bool setLayerPolicy(const QString& id, int k = 2);
  LayerSource layerSource() const;
  QString layerPolicy() const;  // the policy id of a Policy entry, else ""
  // The layer list typed in Manual mode ("0, 2-3").
  void setManualLayers(const QString& text);

  // Appends the current plan to the session's comparison queue.
  bool queueCurrentPlan();
  // `growbench-cli grow MODEL --plan ... --json` in a worker.
  bool checkPreservation();
  bool checking() const;
  QString lastCheck() const { return m_lastCheck; }
  double lastMaxLogitDiff() const { return m_lastDiff; }
  QJsonObject lastCheckResult() const { return m_lastCheckJson; }
  // Whether the shown check result belongs to the current model, plan and layers (any
  // change makes it stale: it is cleared and the form says so).
  bool checkIsCurrent() const { return !m_resultKey.isEmpty(); }
  QString planName() const;
  void setPlanName(const QString& name);

  // Sets the form to a plan (docs/plans.md JSON): its variant, hyper-parameters, layers (a
  // policy no entry of the layers row writes is kept as "the loaded plan's policy"), replay,
  // EWC and name. False, with `error`, when the plan is not valid or the form cannot hold
  // all of it (the keys named); the form then shows what it could.
  bool setPlan(const nlohmann::json& plan, QString* error = nullptr);

  // "Suggest a plan…": where the dialog's fields come from when it opens (the main window:
  // the model, the Runs view's data and the workspace's store); without one, the session's
  // model and store.
  void setSuggestDefaultsProvider(std::function<SuggestSettings()> provider) {
    m_suggestDefaults = std::move(provider);
  }
  // Shows the dialog (created on first use), its fields prefilled unless a search runs.
  SuggestDialog* openSuggestDialog();
  SuggestDialog* suggestDialog() const { return m_suggest; }
  // A search's recommendation: its plan becomes the form's plan and its rate the suggested
  // one (recommendationLoaded); false with `error` as setPlan.
  bool loadRecommendation(const nlohmann::json& plan, double lr, qint64 steps,
                          QString* error = nullptr);
  // The learning rate of the last recommendation loaded (NaN: none).
  double suggestedLearningRate() const { return m_suggestedLr; }
  QString suggestionNote() const;

 signals:
  void planChanged();
  void checkFinished(bool ok, const QString& message);
  void launchRequested();
  // A recommendation was loaded: its learning rate and the length of its runs.
  void recommendationLoaded(double lr, qint64 steps);

 private:
  void buildUi();
  // Rebuilds the variant's form; `keep` (the previous values of the same variant) is put
  // back where the new model allows it (a model reload must not change the plan).
  void rebuildForm(const nlohmann::json* keep = nullptr);
  QString checkKey() const;
  // A field of the variant's form changed (the user, or setParameter): what depends on it
  // follows (a choice: the mode defaults and rows; a check box: the rows).
  void fieldEdited(SpecField* field);
  void updateVisibility();
  void refresh();
  void onModelChanged(const ModelRef& model);
  // Every key of the variant's schema: the form's value, or the default for keys without a
  // field (hidden ones).
  nlohmann::json formValues() const;
  void applyModeDefaults();
  // The "layers" value a layer source writes (`policy`: a Policy entry's id; Selection,
  // Manual and Loaded: the list or the loaded policy).
  nlohmann::json layersJson(LayerSource source, const QString& policy, int k) const;
  // The index of an entry of the layers row (`policy` for Policy: "" the first), or -1.
  int layerSourceIndex(LayerSource source, const QString& policy = {}) const;
  // Sets the layers row to a plan's "layers" value.
  void setLayersFrom(const nlohmann::json& layers);
  // Adds or removes the layer source of a loaded policy.
  void setLoadedPolicy(const nlohmann::json& policy);

  Session* m_session;
  QComboBox* m_variant = nullptr;
  QLabel* m_variantInfo = nullptr;
  QLineEdit* m_name = nullptr;
  QFormLayout* m_form = nullptr;
  QWidget* m_formHost = nullptr;
  QComboBox* m_layerSource = nullptr;
  QSpinBox* m_layerK = nullptr;
  QLineEdit* m_manual = nullptr;
  QLabel* m_layersRowLabel = nullptr;
  QWidget* m_layersRow = nullptr;
  QLabel* m_base = nullptr;
  QLabel* m_added = nullptr;
  QLabel* m_trainable = nullptr;
  QLabel* m_activated = nullptr;
  QLabel* m_memory = nullptr;
  QLabel* m_preserving = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_check = nullptr;
  QPlainTextEdit* m_json = nullptr;
  QPushButton* m_checkButton = nullptr;
  QPushButton* m_cancelCheck = nullptr;
  QListWidget* m_queue = nullptr;
  CliJob* m_job = nullptr;
  QFormLayout* m_commonForm = nullptr;
  QCheckBox* m_replayOn = nullptr;
  QDoubleSpinBox* m_replay = nullptr;
  QComboBox* m_replayMode = nullptr;
  QWidget* m_ewcRow = nullptr;
  QCheckBox* m_ewcOn = nullptr;
  QDoubleSpinBox* m_ewcLambda = nullptr;
  QComboBox* m_ewcMode = nullptr;
  QDoubleSpinBox* m_ewcGamma = nullptr;
  QHash<QString, SpecField*> m_fields;            // key → field of the current variant
  QHash<QString, nlohmann::json> m_modeDefaults;  // key → the mode default last applied
  PlanEstimate m_estimate;
  QString m_error;
  QString m_lastCheck;
  double m_lastDiff = qQNaN();
  QJsonObject m_lastCheckJson;
  QString m_checkDir;
  QString m_checkKey;   // what the running check checks
  QString m_resultKey;  // what the shown result is of ("": none or stale)
  QLabel* m_nameNote = nullptr;
  QStringList m_adjusted;         // values the last model change had to adjust
  nlohmann::json m_loadedPolicy;  // LayerSource::Loaded
  std::function<SuggestSettings()> m_suggestDefaults;
  SuggestDialog* m_suggest = nullptr;
  double m_suggestedLr = qQNaN();
  QLabel* m_suggestNote = nullptr;
};

}  // namespace gb::gui
