#include "specfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "experiment/spec_schema.h"
#include "filepicker.h"
#include "guiutil.h"

using namespace Qt::StringLiterals;
using Json = nlohmann::json;

namespace gb::gui {

namespace {

// A field's layout: a column on `field` whose first row (returned) holds the editor; the
// column in `column` where the caller adds below it.
QHBoxLayout* editorRow(QWidget* field, QVBoxLayout** column = nullptr) {
  auto* v = new QVBoxLayout(field);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  v->addLayout(row);
  if (column) *column = v;
  return row;
}

QString dumpText(const Json& v) {
  return qs(v.dump());
}

// The JSON text of a combo entry's data ("" = the default entry).
Json comboValue(const QComboBox* c) {
  const QString d = c->currentData().toString();
  if (d.isEmpty()) return Json();
  return Json::parse(ss(d), nullptr, false);
}

QStringList qlist(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& i : items) out << qs(i);
  return out;
}

QString errorStyle() {
  return u"color: #c62828;"_s;
}

}  // namespace

// ---------------------------------------------------------------------------------------

void JsonValueWidget::setError(const QString& message) {
  m_error = message;
  if (m_errorLabel) {
    m_errorLabel->setText(message);
    m_errorLabel->setVisible(!message.isEmpty());
  }
}

// ---------------------------------------------------------------------------------------

SpecField::Type SpecField::typeOf(const schema::Key& key) {
  using K = schema::Type;
  switch (key.type) {
    case K::Int:
      return Type::Int;
    case K::Number:
      return Type::Number;
    case K::Bool:
      return Type::Bool;
    case K::Choice:
      return Type::Choice;
    case K::String:
      if (key.input == "path" || key.input == "folder") return Type::Path;
      return key.input == "text" ? Type::Text : Type::String;
    case K::List:
      return key.item == "string" ? Type::StringList : Type::Json;
    case K::Object:
    case K::Map:
      return Type::JsonObject;
    case K::Any:
      return key.input == "layers" ? Type::Layers : Type::Json;
    case K::Ref:
      return Type::Json;
  }
  return Type::Json;
}

schema::Key displayed(schema::Key key, const char* context) {
  auto tr = [context](const std::string& text) {
    return text.empty() ? text : ss(QCoreApplication::translate(context, text.c_str()));
  };
  key.label = tr(key.label);
  key.help = tr(key.help);
  for (auto& l : key.choice_labels) l = tr(l);
  return key;
}

schema::Key formKey(const std::string& name, schema::Type type, const QString& label,
                    const QString& help) {
  schema::Key k;
  k.name = name;
  k.type = type;
  k.label = ss(label);
  k.help = ss(help);
  return k;
}

SpecField::SpecField(const schema::Key& key, QWidget* parent)
    : SpecField(key, Mode::Optional, Hint(), parent) {}

SpecField::SpecField(const schema::Key& key, Mode mode, const Hint& hint, QWidget* parent)
    : JsonValueWidget(parent),
      m_key(key),
      m_type(typeOf(key)),
      m_required(key.default_text == "required") {
  // A model's maximum bounds the planner's editor (Value mode); in the editor's Optional mode
  // the schema's range alone decides what a plan may hold (grow::ParamSpec::ModelHint).
  if (hint.max && mode == Mode::Value) m_key.max = hint.max;
  switch (m_type) {
    case Type::Int:
    case Type::Number:
    case Type::Bool:
    case Type::Choice:
    case Type::StringList:
      if (mode == Mode::Value) {
        m_mode = Mode::Value;
        m_required = false;  // a value is always there
        buildValueEditor(hint);
        return;
      }
      break;
    default:
      break;
  }
  QVBoxLayout* v = nullptr;
  QHBoxLayout* row = editorRow(this, &v);
  switch (m_type) {
    case Type::Bool:
    case Type::Choice: {
      m_combo = new QComboBox;
      m_combo->addItem(unsetText(), QString());
      if (m_type == Type::Bool) {
        m_combo->addItem(tr("yes"), u"true"_s);
        m_combo->addItem(tr("no"), u"false"_s);
      } else {
        for (size_t i = 0; i < key.choices.size(); ++i) {
          const std::string& label =
              i < key.choice_labels.size() ? key.choice_labels[i] : key.choices[i];
          m_combo->addItem(qs(label), dumpText(Json(key.choices[i])));
        }
      }
      m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
      connect(m_combo, &QComboBox::activated, this, [this] {
        updateLabel();
        emit edited();
      });
      m_editor = m_combo;
      row->addWidget(m_combo);
      row->addStretch(1);
      break;
    }
    case Type::Text:
    case Type::JsonObject: {
      m_text = new QPlainTextEdit;
      m_text->setPlaceholderText(unsetText());
      m_text->setTabChangesFocus(true);
      m_text->setMaximumHeight(m_type == Type::Text ? 64 : 110);
      if (m_type == Type::JsonObject) {
        m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
      }
      connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        if (m_text->property("loading").toBool()) return;
        updateLabel();
        emit edited();
      });
      m_editor = m_text;
      row->addWidget(m_text, 1);
      break;
    }
    default: {
      m_line = new QLineEdit;
      m_line->setPlaceholderText(unsetText());
      m_line->setClearButtonEnabled(true);
      connect(m_line, &QLineEdit::textEdited, this, [this] {
        updateLabel();
        emit edited();
      });
      m_editor = m_line;
      row->addWidget(m_line, 1);
      if (m_type == Type::Path) {
        auto* file = new QToolButton;
        file->setText(tr("File…"));
        file->setToolTip(tr("Choose a file (files without an extension are shown too)"));
        auto* folder = new QToolButton;
        folder->setText(tr("Folder…"));
        folder->setToolTip(tr("Choose a folder (a model folder, a folder of fortune files)"));
        row->addWidget(file);
        row->addWidget(folder);
        auto pick = [this](PickKind kind) {
          // Recent locations by category: model folders apart from data.
          const QString category = m_key.input == "folder" ? u"model"_s : u"data"_s;
          const QString p = pickPath(this, kind, category, label(), m_line->text());
          if (p.isEmpty()) return;
          m_line->setText(p);
          updateLabel();
          emit edited();
        };
        connect(file, &QToolButton::clicked, this, [pick] { pick(PickKind::File); });
        connect(folder, &QToolButton::clicked, this, [pick] { pick(PickKind::Folder); });
      }
      break;
    }
  }
  QString tip = qs(key.help);
  if (m_type == Type::Layers) {
    tip += (tip.isEmpty() ? QString() : u"\n"_s) +
           tr("“all”, a list such as 0-3, 7, or a policy as JSON, e.g. "
              "{\"policy\": \"least-important\", \"k\": 2, \"score\": \"masking\"}");
  } else if (m_type == Type::StringList && !key.choices.empty()) {
    tip += (tip.isEmpty() ? QString() : u"\n"_s) +
           tr("Comma-separated; allowed: %1").arg(qlist(key.choices).join(u", "_s));
  }
  m_editor->setToolTip(tip);
  m_errorLabel = new QLabel;
  m_errorLabel->setStyleSheet(errorStyle());
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setVisible(false);
  v->addWidget(m_errorLabel);
}

// Value mode: the editors of the planner's form, the range within what a spin box holds.
void SpecField::buildValueEditor(const Hint& hint) {
  QHBoxLayout* row = editorRow(this);
  m_start = hint.value.value_or(m_key.default_value);
  const Json& start = m_start;
  const double step = hint.step.value_or(1.0);
  const schema::Key& k = m_key;
  switch (m_type) {
    case Type::Int: {
      m_spin = new QSpinBox;
      // An open bound is one inside.
      const double lo = std::max(k.min ? *k.min + (k.min_open ? 1.0 : 0.0) : -2e9, -2e9);
      const double hi = std::min(k.max ? *k.max - (k.max_open ? 1.0 : 0.0) : 2e9, 2e9);
      m_spin->setRange(static_cast<int>(lo), static_cast<int>(hi));
      m_spin->setSingleStep(static_cast<int>(step));
      m_spin->setValue(static_cast<int>(start.is_number() ? start.get<double>() : 0));
      connect(m_spin, &QSpinBox::valueChanged, this, &SpecField::edited);
      m_editor = m_spin;
      break;
    }
    case Type::Number: {
      m_double = new QDoubleSpinBox;
      m_double->setDecimals(step < 0.1 ? 3 : 2);
      // An open bound is the smallest step the spin box shows inside.
      const double tick = std::pow(10.0, -m_double->decimals());
      const double lo = k.min ? *k.min + (k.min_open ? tick : 0.0) : -1e12;
      const double hi = k.max ? *k.max - (k.max_open ? tick : 0.0) : 1e12;
      m_double->setRange(lo, hi);
      m_double->setSingleStep(step);
      m_double->setValue(start.is_number() ? start.get<double>() : 0.0);
      connect(m_double, &QDoubleSpinBox::valueChanged, this, &SpecField::edited);
      m_editor = m_double;
      break;
    }
    case Type::Bool: {
      m_check = new QCheckBox;
      m_check->setChecked(start.is_boolean() && start.get<bool>());
      connect(m_check, &QCheckBox::toggled, this, &SpecField::edited);
      m_editor = m_check;
      break;
    }
    case Type::Choice: {
      m_combo = new QComboBox;
      for (size_t i = 0; i < k.choices.size(); ++i) {
        const std::string& label = i < k.choice_labels.size() ? k.choice_labels[i] : k.choices[i];
        m_combo->addItem(qs(label), qs(k.choices[i]));
      }
      if (start.is_string())
        m_combo->setCurrentIndex(m_combo->findData(qs(start.get<std::string>())));
      connect(m_combo, &QComboBox::currentIndexChanged, this, &SpecField::edited);
      m_editor = m_combo;
      break;
    }
    default: {  // StringList: a check box per allowed item
      auto* box = new QWidget;
      auto* h = new QHBoxLayout(box);
      h->setContentsMargins(0, 0, 0, 0);
      for (size_t i = 0; i < k.choices.size(); ++i) {
        const std::string& item = k.choices[i];
        auto* cb = new QCheckBox(qs(i < k.choice_labels.size() ? k.choice_labels[i] : item));
        cb->setObjectName(qs(item));
        cb->setChecked(start.is_array() &&
                       std::find(start.begin(), start.end(), Json(item)) != start.end());
        cb->setEnabled(!hint.disabled.contains(qs(item)));
        connect(cb, &QCheckBox::toggled, this, &SpecField::edited);
        h->addWidget(cb);
        m_items << cb;
      }
      h->addStretch(1);
      m_editor = box;
      break;
    }
  }
  m_editor->setToolTip(qs(k.help));
  row->addWidget(m_editor, m_type == Type::StringList ? 1 : 0);
  if (m_type != Type::StringList) row->addStretch(1);
}

Json SpecField::editorValue() const {
  if (m_spin) return Json(m_spin->value());
  if (m_double) return Json(m_double->value());
  if (m_check) return Json(m_check->isChecked());
  if (m_combo) return Json(ss(m_combo->currentData().toString()));
  Json items = Json::array();
  for (const QCheckBox* cb : m_items) {
    if (cb->isChecked()) items.push_back(ss(cb->objectName()));
  }
  return items;
}

QString SpecField::key() const {
  return qs(m_key.name);
}

QString SpecField::label() const {
  return m_key.label.empty() ? key() : qs(m_key.label);
}

// What an unset field shows: the default, in words where the declaration gives them.
QString SpecField::unsetText() const {
  if (m_required) return tr("(required)");
  const Json& d = m_key.default_value;
  if (d.is_null()) {
    // "required" where the form does not need it (an optional object's inner key) is no default.
    const bool words = !m_key.default_text.empty() && m_key.default_text != "required";
    return words ? tr("(default: %1)").arg(qs(m_key.default_text)) : tr("(not set)");
  }
  QString text;
  if (m_type == Type::Bool && d.is_boolean()) {
    text = d.get<bool>() ? tr("yes") : tr("no");
  } else if (d.is_string()) {
    text = qs(d.get<std::string>());
    const auto& c = m_key.choices;
    const auto it = std::find(c.begin(), c.end(), d.get<std::string>());
    const size_t i = static_cast<size_t>(it - c.begin());
    if (it != c.end() && i < m_key.choice_labels.size()) text = qs(m_key.choice_labels[i]);
  } else if (m_type == Type::StringList && d.is_array()) {
    QStringList items;
    for (const auto& e : d) items << (e.is_string() ? qs(e.get<std::string>()) : dumpText(e));
    text = items.join(u", "_s);
  } else {
    text = dumpText(d);
  }
  return tr("(default: %1)").arg(text);
}

void SpecField::setRequired(bool on) {
  if (m_mode == Mode::Value) return;  // a value is always there
  m_required = on;
  const QString text = unsetText();
  if (m_combo) m_combo->setItemText(0, text);
  if (m_line) m_line->setPlaceholderText(text);
  if (m_text) m_text->setPlaceholderText(text);
}

QLabel* SpecField::makeLabel() {
  if (!m_label) {
    m_label = new QLabel(label());
    m_label->setToolTip(
        m_mode == Mode::Value
            ? qs(m_key.help)
            : (m_key.help.empty() ? QString() : qs(m_key.help) + u"\n"_s) +
                  tr("Key: %1. Bold: set in the spec; otherwise the default applies.").arg(key()));
    m_label->setBuddy(m_editor);
    updateLabel();
  }
  return m_label;
}

void SpecField::updateLabel() {
  if (!m_label || m_mode == Mode::Value) return;
  QFont f = m_label->font();
  f.setBold(isSet());
  m_label->setFont(f);
}

Json SpecField::parse(QString* error) const {
  if (m_mode == Mode::Value) return editorValue();
  if (m_combo) return comboValue(m_combo);
  const QString text = m_line ? m_line->text().trimmed() : m_text->toPlainText().trimmed();
  if (text.isEmpty()) return Json();
  auto bad = [&](const QString& e) {
    if (error) *error = e;
    return Json(ss(text));  // what was typed: the spec's parser names the key too
  };
  switch (m_type) {
    case Type::Int:
    case Type::Number: {
      Json j = Json::parse(ss(text), nullptr, false);
      if (j.is_discarded() || !j.is_number()) {
        bool ok = false;
        const double d = text.toDouble(&ok);
        if (!ok || m_type == Type::Int) {
          return bad(m_type == Type::Int ? tr("Expected a whole number.")
                                         : tr("Expected a number."));
        }
        j = d;
      }
      if (m_type == Type::Int && !j.is_number_integer()) {
        return bad(tr("Expected a whole number."));
      }
      const double d = j.get<double>();
      const auto& k = m_key;
      const bool low = k.min && (k.min_open ? d <= *k.min : d < *k.min);
      const bool high = k.max && (k.max_open ? d >= *k.max : d > *k.max);
      if ((low || high) && error) {
        const QString lo = k.min ? QString::number(*k.min, 'g', 6) : u"−∞"_s;
        const QString hi = k.max ? QString::number(*k.max, 'g', 6) : u"∞"_s;
        *error = tr("Must be in %1%2, %3%4.")
                     .arg(k.min_open || !k.min ? u"("_s : u"["_s, lo, hi,
                          k.max_open || !k.max ? u")"_s : u"]"_s);
      }
      return j;
    }
    case Type::String:
    case Type::Text:
    case Type::Path:
      return Json(ss(m_line ? m_line->text() : m_text->toPlainText()));
    case Type::Json:
    case Type::JsonObject: {
      Json j = Json::parse(ss(text), nullptr, false);
      // A bare word is a string ("auto" without its quotes).
      static const QRegularExpression word(u"^[A-Za-z_][A-Za-z0-9_.:/-]*$"_s);
      if (j.is_discarded() && m_type == Type::Json && word.match(text).hasMatch()) {
        return Json(ss(text));
      }
      if (j.is_discarded()) return bad(tr("Not valid JSON."));
      if (m_type == Type::JsonObject && !j.is_object()) {
        return bad(tr("Expected a JSON object {…}."));
      }
      return j;
    }
    case Type::Layers: {
      if (text == u"all"_s) return Json("all");
      Json j = Json::parse(ss(text), nullptr, false);
      if (!j.is_discarded()) return j;
      QVector<int> layers;
      if (!parseLayers(text, &layers)) {
        return bad(tr("Expected “all”, a list such as 0-3, 7, or a JSON policy object."));
      }
      Json a = Json::array();
      for (int l : layers) a.push_back(l);
      return a;
    }
    case Type::StringList: {
      Json a = Json::array();
      QStringList unknown;
      for (const QString& part : text.split(u',', Qt::SkipEmptyParts)) {
        const QString item = part.trimmed();
        if (item.isEmpty()) continue;
        const auto& c = m_key.choices;
        if (!c.empty() && std::find(c.begin(), c.end(), ss(item)) == c.end()) unknown << item;
        a.push_back(ss(item));
      }
      if (!unknown.isEmpty() && error) {
        *error = tr("Unknown: %1 (allowed: %2)")
                     .arg(unknown.join(u", "_s), qlist(m_key.choices).join(u", "_s));
      }
      return a;
    }
    default:
      return Json(ss(text));
  }
}

Json SpecField::value() const {
  return parse(nullptr);
}

QString SpecField::inputError() const {
  QString e;
  parse(&e);
  if (e.isEmpty() && m_required && value().is_null()) e = tr("Required.");
  return e;
}

void SpecField::setValue(const Json& v) {
  if (m_mode == Mode::Value) {
    // Silent, as in the Optional mode: the editors' signals are blocked.
    const Json& w = v.is_null() ? m_start : v;
    if (m_spin) {
      const QSignalBlocker b(m_spin);
      if (w.is_number()) m_spin->setValue(static_cast<int>(qRound64(w.get<double>())));
    } else if (m_double) {
      const QSignalBlocker b(m_double);
      if (w.is_number()) m_double->setValue(w.get<double>());
    } else if (m_check) {
      const QSignalBlocker b(m_check);
      if (w.is_boolean()) m_check->setChecked(w.get<bool>());
    } else if (m_combo) {
      const QSignalBlocker b(m_combo);
      const int i = w.is_string() ? m_combo->findData(qs(w.get<std::string>())) : -1;
      if (i >= 0) m_combo->setCurrentIndex(i);
    } else if (w.is_array()) {
      for (QCheckBox* cb : m_items) {
        const QSignalBlocker b(cb);
        cb->setChecked(std::find(w.begin(), w.end(), Json(ss(cb->objectName()))) != w.end());
      }
    }
    return;
  }
  if (m_combo) {
    const QSignalBlocker b(m_combo);
    if (v.is_null()) {
      m_combo->setCurrentIndex(0);
    } else {
      const QString d = dumpText(v);
      int i = m_combo->findData(d);
      if (i < 0) {
        // A value the form does not offer stays as it is (the spec's parser judges it).
        m_combo->addItem(v.is_string() ? qs(v.get<std::string>()) : d, d);
        i = m_combo->count() - 1;
      }
      m_combo->setCurrentIndex(i);
    }
  } else {
    QString text;
    if (!v.is_null()) {
      switch (m_type) {
        case Type::String:
        case Type::Text:
        case Type::Path:
          text = v.is_string() ? qs(v.get<std::string>()) : dumpText(v);
          break;
        case Type::Layers:
          text = v == Json("all") ? u"all"_s : dumpText(v);
          break;
        case Type::StringList: {
          QStringList items;
          bool plain = v.is_array();
          for (const auto& e : v.is_array() ? v : Json::array()) {
            plain = plain && e.is_string() && e.get<std::string>().find(',') == std::string::npos;
            if (e.is_string()) items << qs(e.get<std::string>());
          }
          text = plain && !items.isEmpty() ? items.join(u", "_s) : dumpText(v);
          break;
        }
        case Type::JsonObject:
          text = qs(v.dump(2));
          break;
        default:
          text = v.is_string() && (m_type == Type::Int || m_type == Type::Number)
                     ? qs(v.get<std::string>())
                     : dumpText(v);
          break;
      }
    }
    if (m_line) {
      m_line->setText(text);
    } else {
      m_text->setProperty("loading", true);
      m_text->setPlainText(text);
      m_text->setProperty("loading", false);
    }
  }
  updateLabel();
}

void SpecField::setError(const QString& message) {
  JsonValueWidget::setError(message);
  m_editor->setStyleSheet(message.isEmpty() ? QString() : u"border: 1px solid #c62828;"_s);
}

void SpecField::typeText(const QString& text) {
  if (m_mode == Mode::Value) {
    // Through the editors, whose signals say `edited`.
    if (m_spin) {
      m_spin->setValue(text.toInt());
    } else if (m_double) {
      m_double->setValue(text.toDouble());
    } else if (m_check) {
      m_check->setChecked(text == u"true"_s);
    } else if (m_combo) {
      const int i = m_combo->findData(text);
      if (i >= 0) m_combo->setCurrentIndex(i);
    } else {
      QStringList items;
      for (const QString& part : text.split(u',', Qt::SkipEmptyParts)) items << part.trimmed();
      for (QCheckBox* cb : m_items) cb->setChecked(items.contains(cb->objectName()));
    }
    return;
  }
  if (m_combo) {
    const int i = text.isEmpty() ? 0 : m_combo->findData(dumpText(Json(ss(text))));
    const int j = i >= 0 ? i : m_combo->findData(text);
    m_combo->setCurrentIndex(std::max(0, j));
  } else if (m_line) {
    m_line->setText(text);
  } else {
    m_text->setProperty("loading", true);
    m_text->setPlainText(text);
    m_text->setProperty("loading", false);
  }
  updateLabel();
  emit edited();
}

void addFieldRow(QFormLayout* form, SpecField* field) {
  form->addRow(field->makeLabel(), field);
}

// ---------------------------------------------------------------------------------------

void FieldSet::add(JsonValueWidget* field, const QString& pointer) {
  m_fields << field;
  m_pointers << pointer;
}

JsonValueWidget* FieldSet::field(const QString& pointer) const {
  const int i = m_pointers.indexOf(pointer);
  return i < 0 ? nullptr : m_fields[i];
}

void FieldSet::load(const Json& obj) {
  m_loaded = obj.is_object() ? obj : Json::object();
  for (int i = 0; i < m_fields.size(); ++i) {
    const Json::json_pointer p(ss(m_pointers[i]));
    m_fields[i]->setValue(m_loaded.contains(p) ? m_loaded.at(p) : Json());
  }
}

Json FieldSet::save() const {
  Json obj = m_loaded;
  for (int i = 0; i < m_fields.size(); ++i) {
    const Json::json_pointer p(ss(m_pointers[i]));
    const Json v = m_fields[i]->value();
    if (!v.is_null()) {
      obj[p] = v;
    } else if (obj.contains(p)) {
      obj[p.parent_pointer()].erase(p.back());
    }
  }
  // Nested objects the fields created or emptied, which the loaded object did not have.
  for (const QString& ptr : m_pointers) {
    Json::json_pointer parent = Json::json_pointer(ss(ptr)).parent_pointer();
    while (!parent.empty()) {
      if (obj.contains(parent) && obj.at(parent).is_object() && obj.at(parent).empty() &&
          !m_loaded.contains(parent)) {
        obj[parent.parent_pointer()].erase(parent.back());
      }
      parent = parent.parent_pointer();
    }
  }
  return obj;
}

Json FieldSet::unmanaged() const {
  Json obj = m_loaded;
  for (const QString& ptr : m_pointers) {
    const Json::json_pointer p(ss(ptr));
    if (obj.contains(p)) obj[p.parent_pointer()].erase(p.back());
    Json::json_pointer parent = p.parent_pointer();
    while (!parent.empty()) {
      if (obj.contains(parent) && obj.at(parent).is_object() && obj.at(parent).empty()) {
        obj[parent.parent_pointer()].erase(parent.back());
      }
      parent = parent.parent_pointer();
    }
  }
  return obj;
}

void FieldSet::setUnmanaged(const Json& obj) {
  Json keep = obj.is_object() ? obj : Json::object();
  // The managed keys keep their fields' values; the loaded object only contributes others.
  for (int i = 0; i < m_fields.size(); ++i) {
    const Json::json_pointer p(ss(m_pointers[i]));
    if (m_loaded.contains(p)) keep[p] = m_loaded.at(p);
  }
  m_loaded = keep;
}

// ---------------------------------------------------------------------------------------

SourceEditor::SourceEditor(const QString& title, bool required, QWidget* parent)
    : JsonValueWidget(parent), m_required(required) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  m_kind = new QComboBox;
  m_kind->addItem(required ? tr("(required)") : tr("(none)"));
  m_kind->addItem(tr("Text corpus"));
  m_kind->addItem(tr("QA JSONL"));
  m_kind->addItem(tr("Biography"));
  m_kind->setToolTip(
      tr("Text corpus: a file or folder of text, JSONL or fortunes; QA JSONL: question and "
         "answer per line; Biography: a part of the synthetic biography benchmark"));
  row->addWidget(m_kind);
  // The declared source (experiment/spec_schema.cpp, SOURCE): the corpus's "path" and the QA
  // form's "qa" share one field, titled by the source's role; every other key of a form gets
  // a field in that form's options (a key of several forms one in each).
  const schema::Key& declared = *experiment::spec_schema().type("SOURCE");
  schema::Key pathKey = displayed(*experiment::spec_schema().find("SOURCE.path"));
  pathKey.label = ss(title);
  pathKey.help = ss(tr("A file or a folder (text, JSONL, fortunes, QA JSONL)"));
  pathKey.default_text.clear();  // the source as a whole is required or not (the kind combo)
  m_path = new SpecField(pathKey);
  row->addWidget(m_path, 1);
  m_more = new QToolButton;
  m_more->setText(tr("Options"));
  m_more->setCheckable(true);
  m_more->setToolTip(tr("Format, split and limits of this source"));
  row->addWidget(m_more);
  v->addLayout(row);
  m_options = new QWidget;
  auto* grid = new QGridLayout(m_options);
  grid->setContentsMargins(12, 0, 0, 4);
  v->addWidget(m_options);
  m_errorLabel = new QLabel;
  m_errorLabel->setStyleSheet(errorStyle());
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setVisible(false);
  v->addWidget(m_errorLabel);

  struct Form {
    const char* name;
    FieldSet* set;
    QList<SpecField*>* fields;
  };
  const Form forms[] = {{"corpus", &m_corpus, &m_corpusOnly},
                        {"qa", &m_qa, &m_qaOnly},
                        {"biography", &m_bio, &m_bioOnly}};
  for (const Form& form : forms) {
    int cell = 0;
    auto place = [&](const schema::Key& key, const QString& pointer) {
      auto* f = new SpecField(displayed(key));
      const int r = cell / 2, c = (cell % 2) * 2;
      grid->addWidget(f->makeLabel(), r, c);
      grid->addWidget(f, r, c + 1);
      ++cell;
      connect(f, &SpecField::edited, this, &JsonValueWidget::edited);
      *form.fields << f;
      form.set->add(f, pointer);
    };
    for (const schema::Key& k : declared.keys) {
      if (k.name == "path" || k.name == "qa" || !k.in_form(form.name)) continue;
      if (k.type == schema::Type::Object) {  // the biography's generator options
        for (const schema::Key& inner : k.keys) {
          place(inner, u"/"_s + qs(k.name) + u"/"_s + qs(inner.name));
        }
      } else {
        place(k, u"/"_s + qs(k.name));
      }
    }
  }
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  m_corpus.add(m_path, u"/path"_s);
  m_qa.add(m_path, u"/qa"_s);

  connect(m_path, &SpecField::edited, this, [this] {
    if (kind() == Kind::None) setKind(Kind::Corpus);
    emit edited();
  });
  connect(m_kind, &QComboBox::activated, this, [this] {
    updateVisibility();
    emit edited();
  });
  connect(m_more, &QToolButton::toggled, this, [this] { updateVisibility(); });
  updateVisibility();
}

SourceEditor::Kind SourceEditor::kind() const {
  return static_cast<Kind>(m_kind->currentIndex());
}

void SourceEditor::setKind(Kind k) {
  m_kind->setCurrentIndex(static_cast<int>(k));
  updateVisibility();
}

void SourceEditor::updateVisibility() {
  const Kind k = kind();
  m_path->setVisible(k == Kind::Corpus || k == Kind::Qa || k == Kind::None);
  m_path->setEnabled(k != Kind::None || true);
  m_more->setVisible(k != Kind::None);
  m_options->setVisible(k != Kind::None && (m_more->isChecked() || k == Kind::Biography));
  auto show = [](const QList<SpecField*>& fields, bool on) {
    for (SpecField* f : fields) {
      f->setVisible(on);
      f->makeLabel()->setVisible(on);
    }
  };
  show(m_corpusOnly, k == Kind::Corpus);
  show(m_qaOnly, k == Kind::Qa);
  show(m_bioOnly, k == Kind::Biography);
}

Json SourceEditor::value() const {
  switch (kind()) {
    case Kind::None:
      return Json();
    case Kind::Corpus: {
      Json o = m_corpus.save();
      if (o.empty()) return Json();
      if (m_asString && o.size() == 1 && o.contains("path")) return o["path"];
      return o;
    }
    case Kind::Qa: {
      Json o = m_qa.save();
      if (!o.contains("qa")) o["qa"] = "";
      return o;
    }
    case Kind::Biography: {
      Json o = m_bio.save();
      if (!o.contains("biography")) o["biography"] = Json::object();
      return o;
    }
  }
  return Json();
}

void SourceEditor::setValue(const Json& v) {
  m_asString = v.is_string();
  Kind k = Kind::None;
  if (v.is_string()) {
    k = Kind::Corpus;
  } else if (v.is_object()) {
    k = v.contains("qa") ? Kind::Qa : v.contains("biography") ? Kind::Biography : Kind::Corpus;
  }
  m_kind->setCurrentIndex(static_cast<int>(k));
  const Json obj = v.is_string() ? Json{{"path", v}} : v;
  // The path field is shared by the corpus and QA sets: the active kind loads last.
  FieldSet* sets[] = {&m_corpus, &m_qa, &m_bio};
  FieldSet* active = k == Kind::Qa ? &m_qa : k == Kind::Biography ? &m_bio : &m_corpus;
  for (FieldSet* set : sets) {
    if (set != active) set->load(Json::object());
  }
  active->load(k == Kind::None ? Json::object() : obj);
  // Show the options when any is set.
  bool any = false;
  for (const auto* set : {&m_corpus, &m_qa, &m_bio}) {
    for (JsonValueWidget* f : set->fields()) {
      if (f != m_path && !f->value().is_null()) any = true;
    }
  }
  {
    const QSignalBlocker b(m_more);
    m_more->setChecked(any);
  }
  updateVisibility();
}

QString SourceEditor::inputError() const {
  const Kind k = kind();
  if (k == Kind::None) return m_required ? tr("Required: choose a data source.") : QString();
  const FieldSet& set = k == Kind::Corpus ? m_corpus : k == Kind::Qa ? m_qa : m_bio;
  for (JsonValueWidget* f : set.fields()) {
    const QString e = f->inputError();
    if (!e.isEmpty()) return e;
  }
  if ((k == Kind::Corpus || k == Kind::Qa) && path().isEmpty()) return tr("Give a path.");
  return {};
}

void SourceEditor::setError(const QString& message) {
  JsonValueWidget::setError(message);
  m_path->setError(QString());
  m_path->editor()->setStyleSheet(message.isEmpty() ? QString() : u"border: 1px solid #c62828;"_s);
}

QString SourceEditor::path() const {
  const Kind k = kind();
  if (k != Kind::Corpus && k != Kind::Qa) return {};
  const Json p = m_path->value();
  return p.is_string() ? qs(p.get<std::string>()) : QString();
}

SpecField* SourceEditor::field(const QString& pointer) const {
  if (pointer == u"/path"_s || pointer == u"/qa"_s) return m_path;
  for (const auto* set : {&m_corpus, &m_qa, &m_bio}) {
    if (JsonValueWidget* f = set->field(pointer)) {
      if (f->isVisible() || kind() == Kind::None) return static_cast<SpecField*>(f);
    }
  }
  for (const auto* set : {&m_corpus, &m_qa, &m_bio}) {
    if (JsonValueWidget* f = set->field(pointer)) return static_cast<SpecField*>(f);
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------

ListEditor::ListEditor(const QString& itemName, Form form, QWidget* parent)
    : JsonValueWidget(parent), m_itemName(itemName), m_form(std::move(form)) {
  auto* h = new QHBoxLayout(this);
  h->setContentsMargins(0, 0, 0, 0);
  auto* left = new QVBoxLayout;
  m_list = new QListWidget;
  m_list->setMaximumWidth(220);
  m_list->setMinimumWidth(140);
  m_list->setTextElideMode(Qt::ElideMiddle);
  left->addWidget(m_list, 1);
  auto* buttons = new QHBoxLayout;
  m_add = new QPushButton(tr("Add"));
  m_add->setToolTip(tr("Add a %1").arg(itemName));
  m_copy = new QPushButton(tr("Copy"));
  m_copy->setToolTip(tr("Duplicate the selected %1").arg(itemName));
  m_remove = new QPushButton(tr("Remove"));
  m_up = new QPushButton(tr("↑"));
  m_up->setToolTip(tr("Move up"));
  m_down = new QPushButton(tr("↓"));
  m_down->setToolTip(tr("Move down"));
  for (QPushButton* b : {m_up, m_down}) b->setMaximumWidth(32);
  for (QPushButton* b : {m_add, m_copy, m_remove, m_up, m_down}) buttons->addWidget(b);
  left->addLayout(buttons);
  m_errorLabel = new QLabel;
  m_errorLabel->setStyleSheet(errorStyle());
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setVisible(false);
  left->addWidget(m_errorLabel);
  h->addLayout(left);
  h->addWidget(m_form.widget, 1);

  connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
    if (m_loading) return;
    select(row);
  });
  connect(m_add, &QPushButton::clicked, this, [this] {
    append(m_form.make ? m_form.make() : Json::object());
    emit edited();
  });
  connect(m_copy, &QPushButton::clicked, this, [this] {
    if (m_current < 0) return;
    commitCurrent();
    append(m_items[size_t(m_current)]);
    emit edited();
  });
  connect(m_remove, &QPushButton::clicked, this, [this] {
    removeAt(m_current);
    emit edited();
  });
  auto move = [this](int delta) {
    const int i = m_current, j = m_current + delta;
    if (i < 0 || j < 0 || j >= count()) return;
    commitCurrent();
    std::swap(m_items[size_t(i)], m_items[size_t(j)]);
    m_current = j;
    refreshList();
    emit edited();
  };
  connect(m_up, &QPushButton::clicked, this, [move] { move(-1); });
  connect(m_down, &QPushButton::clicked, this, [move] { move(1); });
  refreshList();
}

Json ListEditor::value() const {
  if (m_items.empty() && m_absentWhenEmpty) return Json();
  if (m_single && m_items.size() == 1) return m_items.front();
  Json a = Json::array();
  for (const auto& i : m_items) a.push_back(i);
  return a;
}

void ListEditor::setValue(const Json& v) {
  m_items.clear();
  m_single = !v.is_null() && !v.is_array();
  if (v.is_array()) {
    for (const auto& i : v) m_items.push_back(i);
  } else if (!v.is_null()) {
    m_items.push_back(v);
  }
  m_current = m_items.empty() ? -1 : 0;
  if (m_current >= 0) {
    m_loading = true;
    m_form.load(m_items[0]);
    m_loading = false;
  }
  refreshList();
}

void ListEditor::setError(const QString& message) {
  JsonValueWidget::setError(message);
}

void ListEditor::select(int index) {
  if (index == m_current || index < 0 || index >= count()) {
    updateButtons();
    return;
  }
  commitCurrent();
  m_current = index;
  m_loading = true;
  m_form.load(m_items[size_t(index)]);
  m_list->setCurrentRow(index);
  m_loading = false;
  updateButtons();
}

void ListEditor::append(const Json& item) {
  commitCurrent();
  m_items.push_back(item);
  m_current = count() - 1;
  m_loading = true;
  m_form.load(item);
  m_loading = false;
  refreshList();
}

void ListEditor::removeAt(int index) {
  if (index < 0 || index >= count()) return;
  m_items.erase(m_items.begin() + index);
  m_current = std::min(index, count() - 1);
  if (m_current >= 0) {
    m_loading = true;
    m_form.load(m_items[size_t(m_current)]);
    m_loading = false;
  }
  refreshList();
}

void ListEditor::commitCurrent() {
  if (m_loading || m_current < 0 || m_current >= count()) return;
  m_items[size_t(m_current)] = m_form.save();
  if (QListWidgetItem* it = m_list->item(m_current)) {
    const QString text = m_form.summary ? m_form.summary(m_items[size_t(m_current)], m_current)
                                        : QString::number(m_current + 1);
    it->setText(text);
    it->setToolTip(text);
  }
}

void ListEditor::refreshList() {
  m_loading = true;
  m_list->clear();
  for (int i = 0; i < count(); ++i) {
    const QString text =
        m_form.summary ? m_form.summary(m_items[size_t(i)], i) : QString::number(i + 1);
    auto* it = new QListWidgetItem(text, m_list);
    it->setToolTip(text);
  }
  m_list->setCurrentRow(m_current);
  m_loading = false;
  updateButtons();
}

void ListEditor::updateButtons() {
  const bool has = m_current >= 0 && m_current < count();
  m_form.widget->setEnabled(has);
  m_copy->setEnabled(has);
  m_remove->setEnabled(has);
  m_up->setEnabled(has && m_current > 0);
  m_down->setEnabled(has && m_current + 1 < count());
}

}  // namespace gb::gui
