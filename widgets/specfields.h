#pragma once
// Form fields bound to the keys of a JSON document, for the experiment editor
// (experimenteditor.h). A key that is absent is a state of its own ("unset": the default
// applies; an empty line edit or the "(default: …)" entry of a combo), so a spec that is
// loaded and saved again keeps exactly the keys it had, and the form shows what the default
// would be.
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
#include <vector>

#include <nlohmann/json.hpp>

#include "util/schema.h"

class QComboBox;
class QFormLayout;
class QGridLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
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

  explicit SpecField(const schema::Key& key, QWidget* parent = nullptr);

  const schema::Key& schemaKey() const { return m_key; }
  Type type() const { return m_type; }
  QString key() const;    // the JSON key
  QString label() const;  // the form label (the key when it has none)
  bool required() const { return m_required; }
  void setRequired(bool on);  // a form where the declared key is optional or needed anyway
  nlohmann::json value() const override;
  void setValue(const nlohmann::json& v) override;
  QString inputError() const override;
  void setError(const QString& message) override;
  bool isSet() const { return !value().is_null(); }
  QWidget* editor() const { return m_editor; }
  QLabel* makeLabel();  // a form label that turns bold while the key is set
  // For tests: types `text` as a user would (Int, Number, String, Path, Json, Layers,
  // StringList) or picks the choice whose data is `text` ("" = default).
  void typeText(const QString& text);

 private:
  nlohmann::json parse(QString* error) const;
  QString unsetText() const;
  void updateLabel();

  schema::Key m_key;
  Type m_type = Type::String;
  bool m_required = false;
  QWidget* m_editor = nullptr;
  QLineEdit* m_line = nullptr;
  QComboBox* m_combo = nullptr;
  QPlainTextEdit* m_text = nullptr;
  QLabel* m_label = nullptr;
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
