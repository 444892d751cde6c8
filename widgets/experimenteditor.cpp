#include "experimenteditor.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <functional>

#include "experiment/expand.h"
#include "experiment/spec.h"
#include "experiment/spec_schema.h"
#include "filepicker.h"
#include "grow/plan.h"
#include "grow/variant.h"
#include "guiutil.h"
#include "importance/result.h"
#include "runmanager.h"
#include "runtablemodel.h"
#include "session.h"
#include "storeservice.h"
#include "util/metrics.h"
#include "variantform.h"

using namespace Qt::StringLiterals;
using Json = nlohmann::json;

namespace gb::gui {

namespace {

using Spec = gb::grow::ParamSpec;
using Key = gb::schema::Key;

// The declared key at a path of the experiment spec ("train.lr", "TASK.kind").
const Key& declared(const std::string& path) {
  return experiment::spec_key(path);
}

bool isSource(const Key& k) {
  return k.type == schema::Type::Ref && k.ref == "SOURCE";
}

// A key one field edits: scalars, lists of scalars, maps and free JSON; not data sources,
// objects with keys of their own or lists of objects (their own editors or pages).
bool isPlain(const Key& k) {
  switch (k.type) {
    case schema::Type::Ref:
    case schema::Type::Object:
      return false;
    case schema::Type::List:
      return k.keys.empty() && k.ref.empty();
    default:
      return true;
  }
}

// A group's title: the declared object's label and its key ("Optimisation (train)").
QString sectionTitle(const Key& k) {
  const Key d = displayed(k);
  return u"%1 (%2)"_s.arg(qs(d.label), qs(k.name));
}

// A data source's row: the source editor titled and explained by its declaration.
SourceEditor* addSourceRow(QFormLayout* form, const Key& key) {
  const Key d = displayed(key);
  auto* s = new SourceEditor(qs(d.label), d.default_text == "required");
  s->setToolTip(qs(d.help));
  auto* l = new QLabel(qs(d.label) + u":"_s);
  l->setToolTip(qs(d.help));
  form->addRow(l, s);
  return s;
}

QString trVariant(const std::string& text) {
  return QCoreApplication::translate("GrowPlanner", text.c_str());
}

// "/train/lr" → "train.lr".
QString dotted(const QString& pointer) {
  QString d = pointer.mid(1);
  d.replace(u'/', u'.');
  return d;
}

QScrollArea* scrolled(QWidget* content) {
  auto* s = new QScrollArea;
  s->setWidgetResizable(true);
  s->setFrameShape(QFrame::NoFrame);
  s->setWidget(content);
  return s;
}

QString shellQuote(const QString& a) {
  if (!a.isEmpty() && a.indexOf(QRegularExpression(u"[^A-Za-z0-9_./:=@%+-]"_s)) < 0) return a;
  QString q = a;
  q.replace(u"'"_s, u"'\\''"_s);
  return u"'"_s + q + u"'"_s;
}

// Every place of a spec that names a file or folder: calls `fn` with the JSON string, where
// it is (the parser's context: "spec.data.new.train") and whether it must be a model folder.
void forEachPath(Json& spec, const std::function<void(Json&, const QString&, bool)>& fn) {
  auto source = [&](Json& s, const QString& where) {
    if (s.is_string()) {
      fn(s, where, false);
    } else if (s.is_object()) {
      if (s.contains("path") && s["path"].is_string()) fn(s["path"], where, false);
      if (s.contains("qa") && s["qa"].is_string()) fn(s["qa"], where, false);
    }
  };
  auto task = [&](Json& t, const QString& where) {
    if (!t.is_object()) return;
    if (t.contains("path") && t["path"].is_string()) fn(t["path"], where, false);
    if (t.contains("source")) source(t["source"], where + u".source"_s);
  };
  if (!spec.is_object()) return;
  if (spec.contains("model")) {
    Json& m = spec["model"];
    if (m.is_string()) {
      fn(m, u"spec.model"_s, true);
    } else if (m.is_object() && m.contains("preset")) {
      if (m.contains("tokenizer") && m["tokenizer"].is_object() &&
          m["tokenizer"].contains("data")) {
        Json& d = m["tokenizer"]["data"];
        if (d.is_array()) {
          for (size_t i = 0; i < d.size(); ++i) {
            source(d[i], u"spec.model.tokenizer.data[%1]"_s.arg(i));
          }
        } else {
          source(d, u"spec.model.tokenizer.data"_s);
        }
      }
      if (m.contains("stages") && m["stages"].is_array()) {
        for (size_t i = 0; i < m["stages"].size(); ++i) {
          Json& st = m["stages"][i];
          if (st.is_object() && st.contains("data")) {
            source(st["data"], u"spec.model.stages[%1].data"_s.arg(i));
          }
        }
      }
    } else if (m.is_object() && m.contains("path") && m["path"].is_string()) {
      fn(m["path"], u"spec.model"_s, true);
    }
  }
  if (spec.contains("data") && spec["data"].is_object()) {
    Json& d = spec["data"];
    for (const char* side : {"original", "new"}) {
      if (!d.contains(side) || !d[side].is_object()) continue;
      for (auto it = d[side].begin(); it != d[side].end(); ++it) {
        source(it.value(), u"spec.data.%1.%2"_s.arg(QLatin1String(side), qs(it.key())));
      }
    }
    if (d.contains("tasks") && d["tasks"].is_array()) {
      for (size_t i = 0; i < d["tasks"].size(); ++i) {
        task(d["tasks"][i], u"spec.data.tasks[%1]"_s.arg(i));
      }
    }
  }
  if (spec.contains("sequence") && spec["sequence"].is_array()) {
    for (size_t i = 0; i < spec["sequence"].size(); ++i) {
      Json& st = spec["sequence"][i];
      if (!st.is_object()) continue;
      if (st.contains("train")) source(st["train"], u"spec.sequence[%1].train"_s.arg(i));
      if (st.contains("eval")) task(st["eval"], u"spec.sequence[%1].eval"_s.arg(i));
    }
  }
}

QString resolved(const QString& path, const QString& base) {
  if (path.isEmpty() || base.isEmpty() || QDir::isAbsolutePath(path)) return path;
  return QDir::cleanPath(QDir(base).filePath(path));
}

// Connects the edits of `fields` to the list's current item.
void commitOnEdit(ListEditor* list, const QList<JsonValueWidget*>& fields) {
  for (JsonValueWidget* f : fields) {
    QObject::connect(f, &JsonValueWidget::edited, list, [list] {
      list->commitCurrent();
      emit list->edited();
    });
  }
}

// The task form (data.tasks[i], and a sequence step's "eval" under `prefix` "/eval"): a
// field per declared key of a task (TASK), its data source in a source editor.
void addTaskFields(QFormLayout* form, FieldSet& set, const QString& prefix, bool nameRequired) {
  for (const Key& k : experiment::spec_schema().type("TASK")->keys) {
    const QString pointer = prefix + u"/"_s + qs(k.name);
    if (isSource(k)) {
      set.add(addSourceRow(form, k), pointer);
      continue;
    }
    auto* f = new SpecField(displayed(k));  // cloze and test: JSON objects
    if (k.name == "name") f->setRequired(nameRequired);
    addFieldRow(form, f);
    set.add(f, pointer);
  }
}

QString taskSummary(const Json& t, int i) {
  const QString name = t.is_object() && t.contains("name") && t["name"].is_string()
                           ? qs(t["name"].get<std::string>())
                           : ExperimentEditor::tr("task %1").arg(i + 1);
  const QString kind = t.is_object() && t.contains("kind") && t["kind"].is_string()
                           ? qs(t["kind"].get<std::string>())
                           : QString();
  return kind.isEmpty() ? name : u"%1 (%2)"_s.arg(name, kind);
}

QString nameSummary(const Json& o, int i, const QString& fallback) {
  if (o.is_object() && o.contains("name") && o["name"].is_string()) {
    return qs(o["name"].get<std::string>());
  }
  return fallback.arg(i + 1);
}

QString sourceSummary(const Json& s, int i) {
  if (s.is_string()) return QFileInfo(qs(s.get<std::string>())).fileName();
  if (s.is_object()) {
    for (const char* k : {"path", "qa"}) {
      if (s.contains(k) && s[k].is_string()) {
        QString text = QFileInfo(qs(s[k].get<std::string>())).fileName();
        if (s.contains("part") && s["part"].is_string()) {
          text += u" ("_s + qs(s["part"].get<std::string>()) + u")"_s;
        }
        return text;
      }
    }
    if (s.contains("biography")) {
      return ExperimentEditor::tr("biography %1")
          .arg(s.contains("part") && s["part"].is_string() ? qs(s["part"].get<std::string>())
                                                           : QString());
    }
  }
  return ExperimentEditor::tr("source %1").arg(i + 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// PlanForm

PlanForm::PlanForm(QWidget* parent) : JsonValueWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* head = new QFormLayout;
  m_variant = new QComboBox;
  for (const gb::grow::VariantModule* m : gb::grow::variants()) {
    m_variant->addItem(trVariant(m->name), qs(m->id));
    m_variant->setItemData(m_variant->count() - 1, trVariant(m->description), Qt::ToolTipRole);
  }
  head->addRow(tr("Variant:"), m_variant);
  m_about = new QLabel;
  m_about->setWordWrap(true);
  head->addRow(m_about);
  v->addLayout(head);
  m_formHost = new QWidget;
  m_form = new QFormLayout(m_formHost);
  m_form->setContentsMargins(0, 0, 0, 0);
  v->addWidget(m_formHost);
  m_errorLabel = new QLabel;
  m_errorLabel->setStyleSheet(u"color: #c62828;"_s);
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setVisible(false);
  v->addWidget(m_errorLabel);
  v->addStretch(1);
  connect(m_variant, &QComboBox::activated, this, [this] {
    setVariant(m_variant->currentData().toString());
    emit edited();
  });
  rebuild(u"full"_s);
}

QString PlanForm::variant() const {
  return m_unknownVariant.isEmpty() ? m_variant->currentData().toString() : m_unknownVariant;
}

SpecField* PlanForm::field(const QString& key) const {
  return m_fields.value(key);
}

bool PlanForm::fieldShown(const QString& key) const {
  SpecField* f = m_fields.value(key);
  return f && m_form->isRowVisible(f);
}

void PlanForm::rebuild(const QString& id) {
  while (m_form->rowCount() > 0) m_form->removeRow(0);
  m_fields.clear();
  m_set = FieldSet();
  const gb::grow::VariantModule* module = gb::grow::find_variant(ss(id));
  {
    const QSignalBlocker b(m_variant);
    int i = m_variant->findData(id);
    if (i < 0) {
      m_variant->addItem(id, id);
      i = m_variant->count() - 1;
    }
    m_variant->setCurrentIndex(i);
  }
  m_about->setText(module ? trVariant(module->description)
                          : tr("GrowBench does not know the variant “%1”: its keys are kept "
                               "as JSON below.")
                                .arg(id));
  auto place = [&](const QString& pointer, SpecField* f) {
    addFieldRow(m_form, f);
    m_set.add(f, pointer);
    m_fields.insert(dotted(pointer), f);
    connect(f, &SpecField::edited, this, [this] {
      updateVisibility();
      emit edited();
    });
    return f;
  };
  auto add = [&](const QString& pointer, const Key& key) {
    return place(pointer, new SpecField(key));
  };
  // The keys every plan takes (declared once: grow/plan_parse.cpp's common keys and the expansion
  // keys, the spec schema's PLAN), the name first, then the variant's own parameters.
  const Key& plan = *experiment::spec_schema().type("PLAN");
  const bool ewcVariant = id == QLatin1String(gb::grow::Variant::Ewc);
  auto addCommon = [&](const Key& k) {
    if (k.name == "variant") return;
    if (k.name == "ewc" && ewcVariant) return;  // the variant's own lambda is its penalty
    if (k.type == schema::Type::Object) {       // ewc: a field per inner key
      for (const Key& inner : k.keys) {
        SpecField* f = add(u"/%1/%2"_s.arg(qs(k.name), qs(inner.name)), displayed(inner));
        f->setRequired(false);  // required only once the object is given
      }
      return;
    }
    add(u"/"_s + qs(k.name), displayed(k));
  };
  for (const Key& k : plan.keys) {
    if (k.name == "name") addCommon(k);
  }
  if (module) {
    // The variant's parameters as the Grow planner offers them (variantform.h), as keys that
    // may be absent, without a model.
    VariantFormOptions options;
    options.dependentDefaultNote = tr("(The default depends on the other keys.)");
    for (const VariantRow& row : variantFields(*module, options)) {
      place(u"/"_s + qs(row.spec->name), row.field);
    }
  }
  for (const Key& k : plan.keys) {
    if (k.name != "name") addCommon(k);
  }
  m_other = new SpecField(formKey("other", schema::Type::Map, tr("Other keys"),
                                  tr("Keys of this plan without a field above, as JSON")));
  addFieldRow(m_form, m_other);
  m_fields.insert(u"other"_s, m_other);
  connect(m_other, &SpecField::edited, this, [this] {
    const Json o = m_other->value();
    m_set.setUnmanaged(o.is_object() ? o : Json::object());
    emit edited();
  });
  updateVisibility();
}

void PlanForm::updateVisibility() {
  const gb::grow::VariantModule* module = gb::grow::find_variant(ss(variant()));
  if (!module) return;
  Json values = Json::object();
  for (const Spec& s : module->params) values[s.name] = s.default_value;
  const Json given = m_set.save();
  for (auto it = given.begin(); it != given.end(); ++it) values[it.key()] = it.value();
  for (const Spec& s : module->params) {
    SpecField* f = m_fields.value(qs(s.name));
    // A key that does not apply is hidden unless it is set (then the parser's message shows).
    if (f) m_form->setRowVisible(f, s.applies(values) || f->isSet());
  }
  const bool online = values.contains("ewc") && values["ewc"].is_object() &&
                      values["ewc"].value("mode", std::string()) == "online";
  if (SpecField* g = m_fields.value(u"ewc.gamma"_s)) m_form->setRowVisible(g, online || g->isSet());
  // A PEFT adapter is a LoRA plan's starting point.
  if (SpecField* p = m_fields.value(u"from_peft"_s)) {
    m_form->setRowVisible(p, module->id == gb::grow::Variant::Lora || p->isSet());
  }
}

Json PlanForm::value() const {
  Json j = m_set.save();
  Json out = Json::object();
  out["variant"] = ss(variant());
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = it.value();
  return out;
}

void PlanForm::setValue(const Json& plan) {
  const QString id = plan.is_object() && plan.contains("variant") && plan["variant"].is_string()
                         ? qs(plan["variant"].get<std::string>())
                         : u"full"_s;
  m_unknownVariant = gb::grow::find_variant(ss(id)) ? QString() : id;
  rebuild(id);
  Json rest = plan.is_object() ? plan : Json::object();
  rest.erase("variant");
  m_set.load(rest);
  const Json other = m_set.unmanaged();
  m_other->setValue(other.empty() ? Json() : other);
  updateVisibility();
}

void PlanForm::setVariant(const QString& id) {
  if (id == variant()) return;
  // The keys every plan takes and the other keys stay; the old variant's own keys go.
  const Json old = m_set.save();
  Json keep = m_set.unmanaged();
  for (const Key& k : experiment::spec_schema().type("PLAN")->keys) {
    if (k.name != "variant" && old.contains(k.name)) keep[k.name] = old[k.name];
  }
  if (id == QLatin1String(gb::grow::Variant::Ewc)) keep.erase("ewc");
  m_unknownVariant.clear();
  rebuild(id);
  m_set.load(keep);
  const Json other = m_set.unmanaged();
  m_other->setValue(other.empty() ? Json() : other);
  updateVisibility();
}

QString PlanForm::inputError() const {
  for (SpecField* f : m_fields) {
    const QString e = f->inputError();
    if (!e.isEmpty()) return u"%1: %2"_s.arg(f->label(), e);
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// ModelEditor

ModelEditor::ModelEditor(QWidget* parent) : JsonValueWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* form = new QFormLayout;
  m_mode = new QComboBox;
  m_mode->addItem(tr("A model folder (Hugging Face or GrowBench)"));
  m_mode->addItem(tr("A built-in preset, trained from scratch"));
  form->addRow(tr("Model:"), m_mode);
  m_path = new SpecField(displayed(declared("model.path")));
  addFieldRow(form, m_path);
  v->addLayout(form);
  m_errorLabel = new QLabel;
  m_errorLabel->setStyleSheet(u"color: #c62828;"_s);
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setVisible(false);
  v->addWidget(m_errorLabel);

  m_presetBox = new QWidget;
  auto* pv = new QVBoxLayout(m_presetBox);
  pv->setContentsMargins(0, 0, 0, 0);
  auto* pf = new QFormLayout;
  pv->addLayout(pf);
  auto* preset = new SpecField(displayed(declared("model.preset")));
  preset->setRequired(true);  // what makes the model a preset
  auto* config = new SpecField(displayed(declared("model.config")));
  auto* vocab = new SpecField(displayed(declared("model.tokenizer.vocab_size")));
  addFieldRow(pf, preset);
  addFieldRow(pf, config);
  addFieldRow(pf, vocab);
  m_preset.add(preset, u"/preset"_s);
  m_preset.add(config, u"/config"_s);
  m_preset.add(vocab, u"/tokenizer/vocab_size"_s);

  // Tokenizer text: one source or a list.
  auto* tokSource = new SourceEditor(tr("Text"), true);
  ListEditor::Form tf;
  tf.widget = tokSource;
  tf.load = [tokSource](const Json& j) { tokSource->setValue(j); };
  tf.save = [tokSource] { return tokSource->value(); };
  tf.summary = [](const Json& j, int i) { return sourceSummary(j, i); };
  tf.make = [] { return Json::object({{"path", ""}}); };
  m_tokData = new ListEditor(tr("tokenizer source"), tf);
  m_tokData->setMinimumHeight(120);
  commitOnEdit(m_tokData, {tokSource});
  auto* tokBox = new QGroupBox(tr("Tokenizer training text (default: the first stage's data)"));
  auto* tbv = new QVBoxLayout(tokBox);
  tbv->addWidget(m_tokData);
  pv->addWidget(tokBox);
  m_preset.add(m_tokData, u"/tokenizer/data"_s);

  // Pretraining stages.
  auto* stageForm = new QWidget;
  auto* sf = new QFormLayout(stageForm);
  sf->setContentsMargins(0, 0, 0, 0);
  auto* stageSet = new FieldSet;
  for (const Key& k : declared("model.stages").keys) {
    const QString pointer = u"/"_s + qs(k.name);
    if (isSource(k)) {
      stageSet->add(addSourceRow(sf, k), pointer);
    } else {
      auto* f = new SpecField(displayed(k));
      addFieldRow(sf, f);
      stageSet->add(f, pointer);
    }
  }
  ListEditor::Form stf;
  stf.widget = stageForm;
  stf.load = [stageSet](const Json& j) { stageSet->load(j); };
  stf.save = [stageSet] { return stageSet->save(); };
  stf.summary = [](const Json& j, int i) { return nameSummary(j, i, tr("stage %1")); };
  stf.make = [] { return Json::object({{"name", "pretrain"}, {"steps", 100}}); };
  m_stages = new ListEditor(tr("stage"), stf);
  m_stages->setAbsentWhenEmpty(false);
  commitOnEdit(m_stages, stageSet->fields());
  connect(this, &QObject::destroyed, [stageSet] { delete stageSet; });
  auto* stageBox = new QGroupBox(tr("Pretraining stages (in order)"));
  auto* sbv = new QVBoxLayout(stageBox);
  sbv->addWidget(m_stages);
  pv->addWidget(stageBox);
  m_preset.add(m_stages, u"/stages"_s);
  v->addWidget(m_presetBox);

  for (JsonValueWidget* f : m_preset.fields()) {
    connect(f, &JsonValueWidget::edited, this, &JsonValueWidget::edited);
  }
  connect(m_path, &SpecField::edited, this, &JsonValueWidget::edited);
  connect(m_mode, &QComboBox::activated, this, [this] {
    if (isPreset() && m_preset.field(u"/preset"_s)->value().is_null()) {
      static_cast<SpecField*>(m_preset.field(u"/preset"_s))->setValue("tiny-llama");
    }
    updateVisibility();
    emit edited();
  });
  updateVisibility();
}

bool ModelEditor::isPreset() const {
  return m_mode->currentIndex() == 1;
}

SpecField* ModelEditor::field(const QString& pointer) const {
  return qobject_cast<SpecField*>(m_preset.field(pointer));
}

void ModelEditor::updateVisibility() {
  m_path->setVisible(!isPreset());
  m_path->makeLabel()->setVisible(!isPreset());
  m_presetBox->setVisible(isPreset());
}

Json ModelEditor::value() const {
  if (isPreset()) return m_preset.save();
  const Json p = m_path->value();
  if (p.is_null()) return Json();
  return m_pathObject ? Json{{"path", p}} : p;
}

void ModelEditor::setValue(const Json& model) {
  const bool preset = model.is_object() && model.contains("preset");
  m_pathObject = model.is_object() && !preset;
  m_mode->setCurrentIndex(preset ? 1 : 0);
  m_preset.load(preset ? model : Json::object());
  m_path->setValue(model.is_string() ? model : m_pathObject ? model.value("path", Json()) : Json());
  updateVisibility();
}

QString ModelEditor::inputError() const {
  if (!isPreset()) return m_path->value().is_null() ? tr("Choose a model folder.") : QString();
  for (JsonValueWidget* f : m_preset.fields()) {
    const QString e = f->inputError();
    if (!e.isEmpty()) return e;
  }
  return {};
}

void ModelEditor::setError(const QString& message) {
  JsonValueWidget::setError(message);
}

// ---------------------------------------------------------------------------------------
// ExperimentEditor

ExperimentEditor::ExperimentEditor(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
  m_root = new FieldSet;
  m_timer = new QTimer(this);
  m_timer->setSingleShot(true);
  m_timer->setInterval(150);
  connect(m_timer, &QTimer::timeout, this, &ExperimentEditor::updatePreview);
  buildUi();
  newSpec();
  connect(m_session, &Session::workspaceChanged, this, [this] { updatePreview(); });
}

ExperimentEditor::~ExperimentEditor() {
  delete m_root;
}

JsonValueWidget* ExperimentEditor::widget(const QString& key) const {
  return m_widgets.value(key);
}

SpecField* ExperimentEditor::field(const QString& key) const {
  return qobject_cast<SpecField*>(m_widgets.value(key));
}

SourceEditor* ExperimentEditor::source(const QString& key) const {
  return qobject_cast<SourceEditor*>(m_widgets.value(key));
}

ListEditor* ExperimentEditor::list(const QString& key) const {
  return qobject_cast<ListEditor*>(m_widgets.value(key));
}

void ExperimentEditor::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  auto* bar = new QHBoxLayout;
  auto* newButton = new QPushButton(tr("New"));
  newButton->setToolTip(tr("A new spec for the model open in the Model view"));
  auto* open = new QPushButton(tr("Open…"));
  open->setToolTip(tr("Load an experiment spec (JSON) into the editor"));
  auto* save = new QPushButton(tr("Save"));
  auto* saveAs = new QPushButton(tr("Save as…"));
  auto* fromRun = new QPushButton(tr("From selected run"));
  fromRun->setToolTip(
      tr("Start from the spec of the run selected in the Runs view (its resolved spec: one "
         "plan, absolute paths)"));
  m_launch = new QPushButton(tr("Launch"));
  m_launch->setToolTip(tr("Write the spec to the workspace and start growbench-cli run"));
  m_fileLabel = new QLabel;
  m_fileLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_fileLabel->setMinimumWidth(50);
  for (QPushButton* b : {newButton, open, save, saveAs, fromRun}) bar->addWidget(b);
  bar->addWidget(m_fileLabel, 1);
  bar->addWidget(m_launch);
  top->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal);
  top->addWidget(split, 1);
  m_tabs = new QTabWidget;
  m_tabs->setDocumentMode(true);
  split->addWidget(m_tabs);

  auto addTo = [this](QFormLayout* form, const QString& pointer, const Key& key) {
    auto* f = new SpecField(displayed(key));
    f->setSpecPath(u"spec."_s + dotted(pointer));
    addFieldRow(form, f);
    m_root->add(f, pointer);
    m_widgets.insert(dotted(pointer), f);
    connect(f, &SpecField::edited, this, &ExperimentEditor::onEdited);
    return f;
  };
  auto addWidget = [this](JsonValueWidget* w, const QString& pointer) {
    w->setSpecPath(u"spec."_s + dotted(pointer));
    m_root->add(w, pointer);
    m_widgets.insert(dotted(pointer), w);
    connect(w, &JsonValueWidget::edited, this, &ExperimentEditor::onEdited);
  };
  auto page = [this](const QString& title) {
    auto* content = new QWidget;
    auto* v = new QVBoxLayout(content);
    m_tabs->addTab(scrolled(content), title);
    return v;
  };
  auto group = [](QVBoxLayout* v, const QString& title) {
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    v->addWidget(box);
    return form;
  };

  // Every plain key of a declared section (train, eval, ...) in a group of its own.
  auto addSection = [&](QVBoxLayout* v, const std::string& name) {
    const Key& section = declared(name);
    QFormLayout* f = group(v, sectionTitle(section));
    for (const Key& k : section.keys) {
      if (isPlain(k)) addTo(f, u"/%1/%2"_s.arg(qs(name), qs(k.name)), k);
    }
  };

  // --- Experiment: the plain top-level keys; the seeds and sweep in a section of their own
  // (for a dedicated sweep editor).
  {
    QVBoxLayout* v = page(tr("Experiment"));
    QFormLayout* f = group(v, tr("Experiment"));
    auto* sweepBox = new QGroupBox(tr("Seeds and sweep"));
    sweepBox->setObjectName(u"sweepSlot"_s);
    auto* sf = new QFormLayout(sweepBox);
    for (const Key& k : experiment::spec_schema().keys) {
      if (!isPlain(k)) continue;
      const bool sweep =
          k.name == "seeds" || k.name == "sweep" || k.name == "sweep_mode" || k.name == "samples";
      addTo(sweep ? sf : f, u"/"_s + qs(k.name), k);
    }
    v->addWidget(sweepBox);
    m_sweepSlot = sweepBox;
    m_runs = new QLabel;
    m_runs->setWordWrap(true);
    v->addWidget(m_runs);
    QFormLayout* o = group(v, tr("Other keys"));
    m_other = new SpecField(formKey("other", schema::Type::Map, tr("Other keys"),
                                    tr("Top-level keys without a field in this editor, as JSON")));
    addFieldRow(o, m_other);
    connect(m_other, &SpecField::edited, this, [this] {
      const Json j = m_other->value();
      m_root->setUnmanaged(j.is_object() ? j : Json::object());
      onEdited();
    });
    v->addStretch(1);
  }

  // --- Model
  {
    QVBoxLayout* v = page(tr("Model"));
    m_modelEditor = new ModelEditor;
    addWidget(m_modelEditor, u"/model"_s);
    v->addWidget(m_modelEditor);
    v->addStretch(1);
  }

  // --- Data: the original- and new-domain sources, the evaluation tasks.
  {
    QVBoxLayout* v = page(tr("Data"));
    for (const char* domain : {"data.original", "data.new"}) {
      const Key& d = declared(domain);
      QFormLayout* f = group(v, qs(displayed(d).label));
      for (const Key& k : d.keys) {
        addWidget(addSourceRow(f, k), u"/%1/%2"_s.arg(qs(domain).replace(u'.', u'/'), qs(k.name)));
      }
    }
    auto* taskForm = new QWidget;
    auto* tf = new QFormLayout(taskForm);
    tf->setContentsMargins(0, 0, 0, 0);
    auto* taskSet = new FieldSet;
    addTaskFields(tf, *taskSet, QString(), true);
    ListEditor::Form form;
    form.widget = taskForm;
    form.load = [taskSet](const Json& j) { taskSet->load(j); };
    form.save = [taskSet] { return taskSet->save(); };
    form.summary = taskSummary;
    form.make = [] { return Json::object({{"name", "task"}, {"kind", "mc"}}); };
    auto* tasks = new ListEditor(tr("task"), form);
    commitOnEdit(tasks, taskSet->fields());
    connect(this, &QObject::destroyed, [taskSet] { delete taskSet; });
    auto* tbox = new QGroupBox(tr("Evaluation tasks (at every evaluation)"));
    auto* tv = new QVBoxLayout(tbox);
    tv->addWidget(tasks);
    v->addWidget(tbox);
    addWidget(tasks, u"/data/tasks"_s);
    v->addStretch(1);
  }

  // --- Task sequence: a form per declared key of a step, its evaluation a task form.
  {
    QVBoxLayout* v = page(tr("Task sequence"));
    auto* info = new QLabel(
        tr("Instead of new-domain training data: tasks trained in order (the plan applied "
           "once); after each task every task is evaluated (accuracy matrix, OP and BWT)."));
    info->setWordWrap(true);
    v->addWidget(info);
    auto* stepForm = new QWidget;
    auto* sf = new QFormLayout(stepForm);
    sf->setContentsMargins(0, 0, 0, 0);
    auto* set = new FieldSet;
    for (const Key& k : declared("sequence").keys) {
      const QString pointer = u"/"_s + qs(k.name);
      if (isSource(k)) {
        set->add(addSourceRow(sf, k), pointer);
      } else if (k.type == schema::Type::Ref) {  // the step's evaluation: a task
        auto* evalBox = new QGroupBox(tr("Evaluation of this task"));
        evalBox->setToolTip(qs(displayed(k).help));
        auto* ef = new QFormLayout(evalBox);
        addTaskFields(ef, *set, pointer, false);
        sf->addRow(evalBox);
      } else {
        auto* f = new SpecField(displayed(k));
        addFieldRow(sf, f);
        set->add(f, pointer);
      }
    }
    ListEditor::Form form;
    form.widget = stepForm;
    form.load = [set](const Json& j) { set->load(j); };
    form.save = [set] { return set->save(); };
    form.summary = [](const Json& j, int i) { return nameSummary(j, i, tr("task %1")); };
    form.make = [] { return Json::object({{"name", "T"}, {"eval", {{"kind", "lm"}}}}); };
    auto* seq = new ListEditor(tr("task"), form);
    commitOnEdit(seq, set->fields());
    connect(this, &QObject::destroyed, [set] { delete set; });
    v->addWidget(seq, 1);
    addWidget(seq, u"/sequence"_s);
  }

  // --- Plans
  {
    QVBoxLayout* v = page(tr("Plans"));
    auto* info = new QLabel(
        tr("One run per plan (times the sweep points and seeds). Each form is generated from "
           "the variant's parameter schema, as in the Grow planner."));
    info->setWordWrap(true);
    v->addWidget(info);
    m_planForm = new PlanForm;
    ListEditor::Form form;
    form.widget = m_planForm;
    PlanForm* pf = m_planForm;
    form.load = [pf](const Json& j) { pf->setValue(j); };
    form.save = [pf] { return pf->value(); };
    form.summary = [](const Json& j, int i) {
      try {
        Json p = j;
        for (const auto& k : experiment::expansion_keys()) p.erase(k);
        return u"%1. %2"_s.arg(i + 1).arg(qs(gb::grow::parse_plan(p).label()));
      } catch (const std::exception&) {
        return u"%1. %2"_s.arg(i + 1).arg(qs(j.value("variant", std::string("?"))));
      }
    };
    form.make = [] { return Json::object({{"variant", "full"}}); };
    auto* plans = new ListEditor(tr("plan"), form);
    commitOnEdit(plans, {m_planForm});
    auto* addPlanner = new QPushButton(tr("Add the planner's queued plans"));
    addPlanner->setToolTip(tr("Append the plans queued in the Grow planner's comparison"));
    connect(addPlanner, &QPushButton::clicked, this, [this, plans] {
      for (const auto& q : m_session->queuedPlans()) {
        plans->append(Json::parse(QJsonDocument(q.plan).toJson().toStdString()));
      }
      onEdited();
    });
    v->addWidget(plans, 1);
    v->addWidget(addPlanner, 0, Qt::AlignLeft);
    addWidget(plans, u"/plans"_s);
  }

  // --- Training, evaluation, probes and checkpoints: every key of their declared sections.
  {
    QVBoxLayout* v = page(tr("Training"));
    addSection(v, "train");
    v->addStretch(1);
  }
  {
    QVBoxLayout* v = page(tr("Evaluation"));
    addSection(v, "eval");
    addSection(v, "guard");
    v->addStretch(1);
  }
  {
    QVBoxLayout* v = page(tr("Probes and checkpoints"));
    addSection(v, "probe");
    addSection(v, "adept");
    addSection(v, "checkpoint");
    v->addStretch(1);
  }

  // --- Preview
  auto* preview = new QWidget;
  auto* pv = new QVBoxLayout(preview);
  pv->setContentsMargins(0, 0, 0, 0);
  auto* cmdRow = new QHBoxLayout;
  cmdRow->addWidget(new QLabel(tr("<b>Command</b>")));
  cmdRow->addStretch(1);
  auto* copy = new QToolButton;
  copy->setText(tr("Copy"));
  copy->setToolTip(tr("Copy the command line"));
  cmdRow->addWidget(copy);
  pv->addLayout(cmdRow);
  m_command = new QLabel;
  m_command->setWordWrap(true);
  m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  pv->addWidget(m_command);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  pv->addWidget(m_status);
  pv->addWidget(new QLabel(tr("<b>Spec (JSON)</b>")));
  m_json = new QPlainTextEdit;
  m_json->setReadOnly(true);
  m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  pv->addWidget(m_json, 1);
  split->addWidget(preview);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({720, 300});
  preview->setMinimumWidth(220);

  connect(copy, &QToolButton::clicked, this,
          [this] { QApplication::clipboard()->setText(commandPreview()); });
  connect(newButton, &QPushButton::clicked, this, &ExperimentEditor::newSpec);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString f = pickPath(this, PickKind::File, u"spec"_s, tr("Open an experiment spec"),
                               m_file, tr("Experiment spec (*.json)"));
    if (!f.isEmpty()) loadFile(f);
  });
  connect(save, &QPushButton::clicked, this, [this, saveAs] {
    if (m_file.isEmpty()) {
      saveAs->click();
    } else {
      saveFile(m_file);
    }
  });
  connect(saveAs, &QPushButton::clicked, this, [this] {
    QString start = m_file;
    if (start.isEmpty()) {
      const Json n = spec().value("name", Json("experiment"));
      start =
          QDir(m_session->specsDir())
              .filePath((n.is_string() ? qs(n.get<std::string>()) : u"experiment"_s) + u".json"_s);
    }
    const QString f = pickPath(this, PickKind::SaveFile, u"spec"_s, tr("Save the spec"), start,
                               tr("Experiment spec (*.json)"));
    if (!f.isEmpty()) saveFile(f);
  });
  connect(fromRun, &QPushButton::clicked, this, [this] {
    emit message(
        tr("Select a run in the Runs view, then use its context menu “Open spec in "
           "the editor”."));
  });
  connect(m_launch, &QPushButton::clicked, this, [this] {
    const int job = launch();
    if (job < 0 && isVisible()) QMessageBox::warning(this, tr("Cannot launch"), m_message);
  });
}

QString ExperimentEditor::baseDir() const {
  return m_baseDir.isEmpty() ? m_session->specsDir() : m_baseDir;
}

void ExperimentEditor::onEdited() {
  m_modified = true;
  m_timer->start();
}

Json ExperimentEditor::spec() const {
  Json j = m_root->save();
  if (m_planKeySingle && j.contains("plans") && j["plans"].is_array() && j["plans"].size() == 1) {
    j["plan"] = j["plans"][0];
    j.erase("plans");
  }
  return j;
}

void ExperimentEditor::setSpec(const Json& spec, const QString& baseDir) {
  Json j = spec.is_object() ? spec : Json::object();
  m_planKeySingle = j.contains("plan") && !j.contains("plans");
  if (m_planKeySingle) {
    j["plans"] = Json::array({j["plan"]});
    j.erase("plan");
  }
  m_baseDir = baseDir;
  m_root->load(j);
  const Json other = m_root->unmanaged();
  m_other->setValue(other.empty() ? Json() : other);
  m_modified = false;
  updatePreview();
}

void ExperimentEditor::newSpec() {
  Json j = {{"version", experiment::kSpecVersion}, {"name", "experiment"}};
  const ModelRef& m = m_session->model();
  if (m.valid()) j["model"] = ss(m.folder);
  j["plans"] = Json::array({Json{{"variant", "full"}}});
  m_file.clear();
  setSpec(j);
  m_fileLabel->setText(tr("New spec (not saved)"));
}

bool ExperimentEditor::loadFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    setMessage(tr("Could not read %1: %2").arg(path, f.errorString()));
    return false;
  }
  Json j = Json::parse(f.readAll().toStdString(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    setMessage(tr("%1 is not a JSON object (an experiment spec).").arg(path));
    return false;
  }
  m_file = QFileInfo(path).absoluteFilePath();
  setSpec(j, QFileInfo(path).absolutePath());
  m_fileLabel->setText(QFileInfo(m_file).fileName());
  m_fileLabel->setToolTip(m_file);
  addRecentLocation(u"spec"_s, m_file);
  setMessage(tr("Loaded %1.").arg(displayPath(m_file)));
  return true;
}

bool ExperimentEditor::saveFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    setMessage(tr("Could not write %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QByteArray data = QByteArray::fromStdString(spec().dump(2) + "\n");
  if (f.write(data) != data.size()) {
    setMessage(tr("Could not write %1: %2").arg(path, f.errorString()));
    return false;
  }
  f.close();
  const QString abs = QFileInfo(path).absoluteFilePath();
  if (m_baseDir.isEmpty()) m_baseDir = QFileInfo(abs).absolutePath();
  m_file = abs;
  m_modified = false;
  m_fileLabel->setText(QFileInfo(m_file).fileName());
  m_fileLabel->setToolTip(m_file);
  setMessage(tr("Saved %1.").arg(m_file));
  updatePreview();
  return true;
}

bool ExperimentEditor::openRunSpec(qint64 runId) {
  const RunRow* row = m_session->runModel()->run(runId);
  if (!row) {
    setMessage(tr("Run %1 is not in the open store.").arg(runId));
    return false;
  }
  const Json j = Json::parse(row->info.spec, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    setMessage(tr("Run %1 has no readable spec.").arg(runId));
    return false;
  }
  m_file.clear();
  setSpec(j);
  m_modified = true;
  m_fileLabel->setText(tr("From run %1 (not saved)").arg(runId));
  setMessage(tr("The spec of run %1: change it and launch it as a new experiment.").arg(runId));
  return true;
}

void ExperimentEditor::setMessage(const QString& text) {
  m_message = text;
  emit message(text);
}

void ExperimentEditor::clearErrors() {
  m_errors.clear();
  for (JsonValueWidget* w : m_widgets) w->setError(QString());
  m_modelEditor->pathField()->setError(QString());
}

void ExperimentEditor::showError(const QString& location, const QString& text) {
  // The field whose spec path is the longest prefix of the location.
  JsonValueWidget* best = nullptr;
  int bestLen = -1;
  for (JsonValueWidget* w : m_widgets) {
    const QString p = w->specPath();
    if (p.isEmpty() || !location.startsWith(p)) continue;
    const QChar next = location.size() > p.size() ? location[p.size()] : QChar();
    if (!next.isNull() && next != u'.' && next != u'[') continue;
    if (p.size() > bestLen) {
      best = w;
      bestLen = static_cast<int>(p.size());
    }
  }
  const QString full = location.isEmpty() ? text : u"%1: %2"_s.arg(location, text);
  m_errors << full;
  if (best && best->error().isEmpty()) best->setError(full);
}

QString ExperimentEditor::validate() {
  clearErrors();
  const Json j = spec();
  // What the fields cannot even read.
  for (auto it = m_widgets.cbegin(); it != m_widgets.cend(); ++it) {
    const QString e = it.value()->inputError();
    if (!e.isEmpty()) showError(it.value()->specPath(), e);
  }
  if (!m_errors.isEmpty()) return m_errors.first();
  // The parser's verdict, on the field it names.
  try {
    const auto parsed = experiment::parse_spec(j, ss(baseDir()));
    const auto runs = experiment::expand_runs(parsed);
    m_runs->setText(tr("This spec stands for %n run(s).", nullptr, static_cast<int>(runs.size())));
  } catch (const std::exception& e) {
    const QString msg = QString::fromUtf8(e.what());
    static const QRegularExpression loc(u"^(spec(?:[.\\[][^: ]*)?): (.*)$"_s,
                                        QRegularExpression::DotMatchesEverythingOption);
    const auto m = loc.match(msg);
    if (m.hasMatch()) {
      showError(m.captured(1), m.captured(2));
    } else {
      showError(QString(), msg);
    }
    m_runs->setText(QString());
  }
  // Every file the spec names exists (a run would fail on it later).
  Json copy = j;
  forEachPath(copy, [&](Json& p, const QString& where, bool model) {
    const QString path = resolved(qs(p.get<std::string>()), baseDir());
    if (path.isEmpty()) return;
    if (!QFileInfo::exists(path)) {
      showError(where, tr("%1 does not exist").arg(path));
    } else if (model && !QFileInfo::exists(QDir(path).filePath(u"config.json"_s))) {
      showError(where, tr("%1 is not a model folder (no config.json)").arg(path));
    }
  });
  return m_errors.isEmpty() ? QString() : m_errors.first();
}

QString ExperimentEditor::commandPreview() const {
  const QString prog = QFileInfo(findCli()).fileName().isEmpty() ? u"growbench-cli"_s
                                                                 : QFileInfo(findCli()).fileName();
  QString file = m_file;
  if (file.isEmpty() || m_modified) {
    const Json n = spec().value("name", Json("experiment"));
    file = QDir(m_session->specsDir().isEmpty() ? u"specs"_s : m_session->specsDir())
               .filePath(u"<time>-%1.json"_s.arg(n.is_string() ? qs(n.get<std::string>())
                                                               : u"experiment"_s));
  }
  QStringList parts = {prog, u"run"_s, file};
  if (!m_session->databasePath().isEmpty()) parts << u"--db"_s << m_session->databasePath();
  if (!m_session->workspaceDir().isEmpty()) parts << u"--workspace"_s << m_session->workspaceDir();
  for (QString& p : parts) p = shellQuote(p);
  return parts.join(u' ');
}

QString ExperimentEditor::jsonPreview() const {
  return qs(spec().dump(2));
}

void ExperimentEditor::updatePreview() {
  m_timer->stop();
  m_json->setPlainText(jsonPreview());
  m_command->setText(commandPreview());
  const QString error = validate();
  m_status->setStyleSheet(error.isEmpty() ? QString() : u"color: #c62828;"_s);
  m_status->setText(error.isEmpty()
                        ? tr("Ready to launch.")
                        : tr("%n problem(s): %1", nullptr, static_cast<int>(m_errors.size()))
                              .arg(m_errors.join(u"\n"_s)));
  m_launch->setEnabled(error.isEmpty());
  m_launch->setToolTip(
      error.isEmpty() ? tr("Write the spec to the workspace and start growbench-cli run") : error);
}

int ExperimentEditor::launch() {
  if (!m_session->store()->isOpen()) {
    setMessage(tr("Open a workspace first."));
    return -1;
  }
  const QString error = validate();
  if (!error.isEmpty()) {
    setMessage(tr("The spec cannot run yet: %1").arg(error));
    return -1;
  }
  Json j = spec();
  // Relative paths are relative to the spec's own folder: written elsewhere, they are resolved.
  const QString base = baseDir();
  forEachPath(
      j, [&](Json& p, const QString&, bool) { p = ss(resolved(qs(p.get<std::string>()), base)); });
  QDir().mkpath(m_session->specsDir());
  const Json n = j.value("name", Json("experiment"));
  QString name = n.is_string() ? qs(n.get<std::string>()) : u"experiment"_s;
  QString safe = name;
  safe.replace(QRegularExpression(u"[^A-Za-z0-9_.-]+"_s), u"-"_s);
  const QString path = QDir(m_session->specsDir())
                           .filePath(u"%1-%2.json"_s.arg(
                               QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss-zzz"_s),
                               safe.isEmpty() ? u"experiment"_s : safe));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    setMessage(tr("Could not write %1: %2").arg(path, f.errorString()));
    return -1;
  }
  f.write(QByteArray::fromStdString(j.dump(2) + "\n"));
  f.close();
  const int id = m_session->runs()->enqueueSpec(path, name);
  setMessage(tr("Launched %1 (spec %2).").arg(name, path));
  emit launched(id);
  return id;
}

}  // namespace gb::gui
