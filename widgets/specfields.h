#pragma once
// Form fields bound to the keys of a JSON document, for the experiment editor
// (experimenteditor.h). A key that is absent is a state of its own ("unset": the default
// applies; an empty line edit or the "(default: …)" entry of a combo), so a spec that is
// loaded and saved again keeps exactly the keys it had, and the form shows what the default
// would be. The Grow planner's variant form uses SpecField too, in its Value mode (a key that
// always holds a value, in spin boxes and check boxes), through widgets/variantform.h.
//
//   SpecField     one declared key (util/schema.h): a number, a choice, a path, JSON, ...
//   FieldSet      the fields of one JSON object, by JSON pointer ("/train/lr"); keys no field
//                 edits are kept as they were loaded
//   SourceEditor  a data source (docs/experiments.md, "Data sources"): text corpus, QA JSONL
//                 or biography part, with its split and limits
//   ListEditor    a list of JSON objects (tasks, sequence steps, pretraining stages, plans)
//                 with a detail form for the selected item

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/schema.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGridLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace gb::gui {

// Something of a form whose value is JSON (null = absent) and that reports user edits.
class JsonValueWidget : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;
  virtual nlohmann::json value() const = 0;            // null: the key is absent
  virtual void setValue(const nlohmann::json& v) = 0;  // null: unset; no `edited` signal
  // The first error of the input as typed ("" when it parses).
  virtual QString inputError() const { return {}; }
  // Shows a validation message on the field ("" clears it).
  virtual void setError(const QString& message);
  QString error() const { return m_error; }
  // Where errors of the spec's parser about this value start ("spec.train.lr").
  QString specPath() const { return m_specPath; }
  void setSpecPath(const QString& path) { m_specPath = path; }

 signals:
  void edited();

 protected:
  QString m_error;
  QString m_specPath;
  QLabel* m_errorLabel = nullptr;  // created by subclasses that show errors inline
};

// One key of a JSON document, as declared by the general schema (core/util/schema.h): its
// editor follows the key's type (a number, a choice, a path, JSON, ...), its label, help,
// choice labels, default, range and whether it is required come from the declaration. The
// texts are shown as the key holds them: displayed() translates a declared key's.
class SpecField : public JsonValueWidget {
  Q_OBJECT

 public:
  enum class Type {
    Int,         // line edit, integers
    Number,      // line edit, any JSON number (kept as typed: 1.0 stays a float)
    Bool,        // combo: (default) / yes / no
    Choice,      // combo: (default) / choices
    String,      // line edit
    Text,        // multi-line text
    Path,        // line edit with "File…" and "Folder…"
    Json,        // line edit holding JSON (a bare word is a string: auto)
    JsonObject,  // multi-line JSON object
    StringList,  // comma-separated items, checked against the choices when given
    Layers,      // "all", "0-3, 7" or JSON (a list or a policy object)
  };
  // The editor a declared key gets.
  static Type typeOf(const schema::Key& key);

  // How the field holds its key.
  //   Optional  the experiment editor's: absence is a state of its own, shown as
  //             "(default: …)"; numbers are typed, and checked against the range.
  //   Value     the Grow planner's: the key always holds a value, the declared default (or
  //             the hint's) to start with: Int and Number in spin boxes bounded by the range,
  //             Bool a check box, Choice a combo of the choices (the choice as item data),
  //             StringList a check box per allowed item (named by the item). The editor's
  //             tooltip is the key's help. Other types keep their Optional editor.
  enum class Mode { Optional, Value };
  // What a model changes of how a key is offered (grow::ParamSpec::ModelHint and the units the
  // model has; widgets/variantform.h fills it): nothing when empty.
  struct Hint {
    std::optional<nlohmann::json> value;  // Value mode: the value to start with
    std::optional<double> max;            // the range's upper end, in place of the declared one
    std::optional<double> step;           // Value mode: the spin boxes' step (1 when empty)
    QStringList disabled;                 // Value mode: items of a string list shown disabled
  };

  explicit SpecField(const schema::Key& key, QWidget* parent = nullptr);
  SpecField(const schema::Key& key, Mode mode, const Hint& hint = {}, QWidget* parent = nullptr);

  // The key as the field offers it: the declaration, with the hint's maximum.
  const schema::Key& schemaKey() const { return m_key; }
  Type type() const { return m_type; }
  Mode mode() const { return m_mode; }
  QString key() const;    // the JSON key
  QString label() const;  // the form label (the key when it has none)
  bool required() const { return m_required; }
  void setRequired(bool on);  // a form where the declared key is optional or needed anyway
  // Value mode: never null; setValue(null) goes back to the starting value, and a value the
  // editor cannot hold (a choice not offered, another type) leaves it as it is.
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& v) override;
  QString inputError() const override;
  void setError(const QString& message) override;
  bool isSet() const { return !value().is_null(); }
  // The widget that edits the value (Value mode: the spin box, check box or combo; a string
  // list's row of check boxes).
  QWidget* editor() const { return m_editor; }
  // A form label that turns bold while the key is set (Value mode: plain).
  QLabel* makeLabel();
  // For tests: types `text` as a user would (Int, Number, String, Path, Json, Layers,
  // StringList) or picks the choice whose data is `text` ("" = default). Value mode: sets the
  // editor to it ("true" checks a check box; a string list's items comma-separated).
  void typeText(const QString& text);

 private:
  void buildValueEditor(const Hint& hint);
  nlohmann::json editorValue() const;  // Value mode
  nlohmann::json parse(QString* error) const;
  QString unsetText() const;
  void updateLabel();

  schema::Key m_key;
  Type m_type = Type::String;
  Mode m_mode = Mode::Optional;
  bool m_required = false;
  QWidget* m_editor = nullptr;
  QLineEdit* m_line = nullptr;
  QComboBox* m_combo = nullptr;
  QPlainTextEdit* m_text = nullptr;
  QLabel* m_label = nullptr;
  // Value mode.
  QSpinBox* m_spin = nullptr;
  QDoubleSpinBox* m_double = nullptr;
  QCheckBox* m_check = nullptr;
  QList<QCheckBox*> m_items;  // a string list's allowed items
  nlohmann::json m_start;     // the value it started with
};

// A declared key with its label, help and choice labels translated for display: context
// "SpecSchema" for the experiment spec's keys (their strings reach the translators through
// spec_schema_strings.h), "GrowPlanner" for a variant's parameters (marked GB_TR where the
// variant declares them).
schema::Key displayed(schema::Key key, const char* context = "SpecSchema");
// A key of the form itself, not of the schema (e.g. "Other keys"), with display texts.
schema::Key formKey(const std::string& name, schema::Type type, const QString& label,
                    const QString& help);

// The fields of one JSON object.
class FieldSet {
 public:
  void add(JsonValueWidget* field, const QString& pointer);
  // Sets every field from `obj` (absent keys: unset) and keeps `obj` for the keys no field
  // edits.
  void load(const nlohmann::json& obj);
  // The object: the loaded one, every field's key replaced by its value (absent when unset);
  // empty intermediate objects are dropped unless the loaded object had them.
  nlohmann::json save() const;
  const QList<JsonValueWidget*>& fields() const { return m_fields; }
  JsonValueWidget* field(const QString& pointer) const;
  // Keys of the loaded object no field edits (shown by the editor as "other keys").
  nlohmann::json unmanaged() const;
  void setUnmanaged(const nlohmann::json& obj);

 private:
  QList<JsonValueWidget*> m_fields;
  QStringList m_pointers;
  nlohmann::json m_loaded = nlohmann::json::object();
};

// A data source: a path string, a text corpus object, {"qa": ...} or {"biography": ...}.
class SourceEditor : public JsonValueWidget {
  Q_OBJECT

 public:
  explicit SourceEditor(const QString& title, bool required, QWidget* parent = nullptr);
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& v) override;
  QString inputError() const override;
  void setError(const QString& message) override;
  // The path of a corpus or QA source ("" otherwise), for existence checks.
  QString path() const;
  SpecField* field(const QString& pointer) const;  // "/path", "/part", "/biography/seed", ...
  QComboBox* kindCombo() const { return m_kind; }
  enum class Kind { None, Corpus, Qa, Biography };
  Kind kind() const;
  void setKind(Kind kind);

 private:
  void updateVisibility();

  QComboBox* m_kind = nullptr;
  QToolButton* m_more = nullptr;
  QWidget* m_options = nullptr;
  SpecField* m_path = nullptr;     // corpus "path" / qa "qa"
  FieldSet m_corpus, m_qa, m_bio;  // the options of each kind (m_path shared)
  QList<SpecField*> m_corpusOnly, m_qaOnly, m_bioOnly;
  bool m_asString = false;  // loaded as a plain path string
  bool m_required = false;
};

// A list of JSON objects with a detail form for the selected one.
class ListEditor : public JsonValueWidget {
  Q_OBJECT

 public:
  // The detail form: `load` fills it from an item, `save` reads it back; `summary` names an
  // item in the list.
  struct Form {
    QWidget* widget = nullptr;
    std::function<void(const nlohmann::json&)> load;
    std::function<nlohmann::json()> save;
    std::function<QString(const nlohmann::json&, int)> summary;
    std::function<nlohmann::json()> make;  // a new item
  };
  ListEditor(const QString& itemName, Form form, QWidget* parent = nullptr);
  // A JSON array (null when empty and `absentWhenEmpty`).
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& v) override;
  void setAbsentWhenEmpty(bool on) { m_absentWhenEmpty = on; }
  void setError(const QString& message) override;
  int count() const { return static_cast<int>(m_items.size()); }
  int current() const { return m_current; }
  void select(int index);
  void append(const nlohmann::json& item);
  void removeAt(int index);
  QListWidget* list() const { return m_list; }
  // The detail form changed: store it into the current item (the editor connects this).
  void commitCurrent();

 private:
  void refreshList();
  void updateButtons();

  QString m_itemName;
  Form m_form;
  QListWidget* m_list = nullptr;
  QPushButton *m_add = nullptr, *m_remove = nullptr, *m_up = nullptr, *m_down = nullptr,
              *m_copy = nullptr;
  std::vector<nlohmann::json> m_items;
  int m_current = -1;
  bool m_absentWhenEmpty = true;
  bool m_loading = false;
  bool m_single = false;  // loaded as one item, not an array (kept when it stays one)
};

// Lays out fields in a form: label (bold while set) and field.
void addFieldRow(QFormLayout* form, SpecField* field);

}  // namespace gb::gui
