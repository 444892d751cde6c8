#pragma once
// ExperimentEditor: the whole experiment spec (core/experiment/spec.h, docs/experiments.md)
// as a form: the model (a folder or a built preset with its tokenizer and pretraining
// stages), the data sources with their formats, splits and held-out test sets, replay,
// evaluation tasks, a task sequence, the plans (each a form generated from its variant's
// parameter schema, as in the Grow planner), train.*, eval.*, the forgetting guard, probes,
// ADEPT defaults and checkpoints. Keys that are not set stay out of the spec (the form shows
// their defaults), so a spec file loaded and saved again is the same JSON.
//
// Beside the form: the command that runs it and the JSON, live; the spec parser's message on
// the field it names, and missing files, before anything is launched. Specs are loaded from
// and saved to files, dropped onto the window, or taken from an existing run as a starting
// point. The top-level seeds and sweep have their own section (sweepSlot()).

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "specfields.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTimer;

namespace gb::gui {

class Session;

// One growth plan (docs/plans.md): the variant, the keys every plan takes (name, replay, ewc,
// layers) and a field per parameter of the variant's schema (core/grow/variant.h); the
// plan's own seeds and sweep and any other keys stay as JSON ("Other keys").
class PlanForm : public JsonValueWidget {
  Q_OBJECT

 public:
  explicit PlanForm(QWidget* parent = nullptr);
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& plan) override;
  QString inputError() const override;
  QString variant() const;
  // As the user would: keeps name, replay, EWC and other keys, drops the old variant's keys.
  void setVariant(const QString& id);
  SpecField* field(const QString& key) const;  // "rank", "layers", "ewc.lambda", "other"
  bool fieldShown(const QString& key) const;

 private:
  void rebuild(const QString& id);
  void updateVisibility();

  QComboBox* m_variant = nullptr;
  QLabel* m_about = nullptr;
  QWidget* m_formHost = nullptr;
  QFormLayout* m_form = nullptr;
  FieldSet m_set;
  QHash<QString, SpecField*> m_fields;  // by dotted key
  SpecField* m_other = nullptr;
  QString m_unknownVariant;  // a variant id this build does not know (kept as given)
};

// The "model": a folder path (a string or {"path": ...}) or a built-in preset with its
// config overrides, tokenizer and pretraining stages.
class ModelEditor : public JsonValueWidget {
  Q_OBJECT

 public:
  explicit ModelEditor(QWidget* parent = nullptr);
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& model) override;
  QString inputError() const override;
  void setError(const QString& message) override;
  bool isPreset() const;
  SpecField* pathField() const { return m_path; }
  SpecField* field(const QString& pointer) const;  // preset keys: "/config", ...
  ListEditor* stages() const { return m_stages; }
  ListEditor* tokenizerData() const { return m_tokData; }

 private:
  void updateVisibility();

  QComboBox* m_mode = nullptr;
  SpecField* m_path = nullptr;
  QWidget* m_presetBox = nullptr;
  FieldSet m_preset;
  ListEditor* m_stages = nullptr;
  ListEditor* m_tokData = nullptr;
  bool m_pathObject = false;  // {"path": ...} rather than a string
};

class ExperimentEditor : public QWidget {
  Q_OBJECT

 public:
  explicit ExperimentEditor(Session* session, QWidget* parent = nullptr);
  ~ExperimentEditor() override;

  // The spec the form describes: exactly the keys that are set.
  nlohmann::json spec() const;
  // Loads a spec into the form; `baseDir` resolves its relative paths (its file's folder).
  void setSpec(const nlohmann::json& spec, const QString& baseDir = {});
  // A new spec: the current model of the Model view, full fine-tuning, defaults.
  void newSpec();
  bool loadFile(const QString& path);
  bool saveFile(const QString& path);
  QString fileName() const { return m_file; }
  bool isModified() const { return m_modified; }
  // The spec stored with a run (its resolved spec: one plan, absolute paths).
  bool openRunSpec(qint64 runId);

  // Checks the spec now (the parser, and that every file it names exists); the messages
  // also show on their fields. "" when it can be launched.
  QString validate();
  QStringList errors() const { return m_errors; }
  QString commandPreview() const;
  QString jsonPreview() const;
  // Validates, writes the spec under the workspace's specs/ and queues a worker: the job id
  // or -1 (lastMessage() says why).
  int launch();
  QString lastMessage() const { return m_message; }

  // The field of a key ("train.lr", "eval.interval", "guard.metric"), a source
  // ("data.new.train"), the lists ("plans", "data.tasks", "sequence"), for tests.
  JsonValueWidget* widget(const QString& dottedKey) const;
  SpecField* field(const QString& dottedKey) const;
  SourceEditor* source(const QString& dottedKey) const;
  ListEditor* list(const QString& dottedKey) const;
  PlanForm* planForm() const { return m_planForm; }
  ModelEditor* modelEditor() const { return m_modelEditor; }
  QTabWidget* tabs() const { return m_tabs; }
  // The seeds-and-sweep section (top-level "seeds", "sweep", "sweep_mode", "samples"): a
  // dedicated sweep editor replaces the JSON fields inside it.
  QWidget* sweepSlot() const { return m_sweepSlot; }

 signals:
  void message(const QString& text);
  void launched(int jobId);

 private:
  void buildUi();
  void onEdited();
  void updatePreview();
  void setMessage(const QString& text);
  void clearErrors();
  void showError(const QString& location, const QString& text);
  QString baseDir() const;

  Session* m_session;
  FieldSet* m_root = nullptr;                  // every top-level section's fields, by JSON pointer
  QHash<QString, JsonValueWidget*> m_widgets;  // by dotted key
  ModelEditor* m_modelEditor = nullptr;
  PlanForm* m_planForm = nullptr;
  SpecField* m_other = nullptr;  // top-level keys without a field
  QWidget* m_sweepSlot = nullptr;
  QTabWidget* m_tabs = nullptr;
  QLabel* m_fileLabel = nullptr;
  QLabel* m_command = nullptr;
  QLabel* m_runs = nullptr;
  QLabel* m_status = nullptr;
  QPlainTextEdit* m_json = nullptr;
  QPushButton* m_launch = nullptr;
  QTimer* m_timer = nullptr;
  QString m_file, m_baseDir, m_message;
  QStringList m_errors;
  bool m_modified = false;
  bool m_planKeySingle = false;  // loaded with "plan" instead of "plans"
};

}  // namespace gb::gui
