#include "growplanner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "clijob.h"
#include "experiment/spec_schema.h"
#include "grow/plan.h"
#include "grow/variant.h"
#include "guiutil.h"
#include "importance/policy.h"
#include "session.h"
#include "specfields.h"
#include "variantform.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

using Spec = gb::grow::ParamSpec;

// Display strings of the variant and layer-policy registries (marked with GB_TR in
// core/grow/variants/ and core/importance/).
QString trVariant(const std::string& text) {
  return QCoreApplication::translate("GrowPlanner", text.c_str());
}

// The layers row's entries: the LayerSource as item data, a Policy entry's id in this role.
constexpr int kPolicyRole = Qt::UserRole + 1;

QString fmtParams(qint64 n) {
  return GrowPlanner::tr("%1 (%2)").arg(QLocale().toString(n), formatCount(double(n)));
}

const gb::grow::VariantModule* moduleOf(const QString& id) {
  return gb::grow::find_variant(id.toStdString());
}

// Puts a plan's value (a boolean, number, string or list) into a field of the variant's form,
// without what an edit triggers: a value the field cannot hold leaves it as it was.
void putValue(SpecField* field, const nlohmann::json& v) {
  if (v.is_boolean() || v.is_number() || v.is_string() || v.is_array()) field->setValue(v);
}

}  // namespace

GrowPlanner::GrowPlanner(Session* session, QWidget* parent) : QWidget(parent), m_session(session) {
  buildUi();
  m_job = new CliJob(this);
  connect(m_job, &CliJob::failed, this, [this](const QString& msg) {
    m_checkButton->setEnabled(true);
    m_cancelCheck->setEnabled(false);
    m_check->setText(msg);
    m_lastCheck = msg;
    emit checkFinished(false, msg);
  });
  connect(m_job, &CliJob::finished, this, [this](int code, bool crashed) {
    m_checkButton->setEnabled(true);
    m_cancelCheck->setEnabled(false);
    if (!m_checkDir.isEmpty()) QDir(m_checkDir).removeRecursively();
    if (m_job->wasCancelled()) {
      m_lastCheck = tr("Check cancelled.");
      m_check->setText(m_lastCheck);
      emit checkFinished(false, m_lastCheck);
      return;
    }
    QJsonObject o;
    for (const QByteArray& line : m_job->standardOutput().split('\n')) {
      const QJsonDocument doc = QJsonDocument::fromJson(line);
      if (doc.isObject()) o = doc.object();
    }
    if (code != 0 || crashed || o.isEmpty()) {
      m_lastCheck = tr("The check failed: %1").arg(m_job->errorSummary());
      m_check->setText(m_lastCheck);
      emit checkFinished(false, m_lastCheck);
      return;
    }
    if (m_checkKey != checkKey()) {
      // The plan or the model changed while the worker checked the old one.
      m_lastCheck = tr("The plan changed during the check: check it again.");
      m_check->setText(m_lastCheck);
      m_lastCheckJson = {};
      m_lastDiff = qQNaN();
      m_resultKey.clear();
      emit checkFinished(false, m_lastCheck);
      return;
    }
    m_resultKey = m_checkKey;
    m_lastCheckJson = o;
    m_lastDiff = o.value(u"max_abs_logit_diff"_s).toDouble(qQNaN());
    const bool claims = o.value(u"function_preserving"_s).toBool();
    const QString verdict = !claims              ? tr("not function preserving by design")
                            : m_lastDiff <= 1e-4 ? tr("preserved")
                                                 : tr("NOT preserved: check the operator");
    m_lastCheck = tr("max |logit diff| = %1 (%2) · exact: %3 added, %4 trainable (%5)")
                      .arg(QString::number(m_lastDiff, 'g', 3), verdict,
                           formatCount(o.value(u"added_params"_s).toDouble()),
                           formatCount(o.value(u"trainable_params"_s).toDouble()),
                           formatPercent(o.value(u"trainable_share"_s).toDouble()));
    m_check->setText(m_lastCheck);
    emit checkFinished(true, m_lastCheck);
  });
  connect(m_session, &Session::modelChanged, this, &GrowPlanner::onModelChanged);
  connect(m_session, &Session::selectedLayersChanged, this, [this] { refresh(); });
  connect(m_session, &Session::queuedPlansChanged, this, [this] {
    m_queue->clear();
    for (const auto& p : m_session->queuedPlans()) {
      auto* item = new QListWidgetItem(p.label, m_queue);
      item->setToolTip(QString::fromUtf8(QJsonDocument(p.plan).toJson(QJsonDocument::Compact)));
    }
  });
  rebuildForm();
}

GrowPlanner::~GrowPlanner() = default;

void GrowPlanner::buildUi() {
  // The form scrolls instead of squeezing its rows when the dock is short.
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* content = new QWidget;
  scroll->setWidget(content);
  outer->addWidget(scroll);
  auto* top = new QVBoxLayout(content);
  top->setContentsMargins(6, 6, 6, 6);
  auto* head = new QFormLayout;
  m_variant = new QComboBox;
  for (const gb::grow::VariantModule* v : gb::grow::variants()) {
    m_variant->addItem(trVariant(v->name), qs(v->id));
    m_variant->setItemData(m_variant->count() - 1, trVariant(v->description), Qt::ToolTipRole);
  }
  m_variant->setCurrentIndex(m_variant->findData(u"grow"_s));
  auto* variantRow = new QHBoxLayout;
  variantRow->addWidget(m_variant, 1);
  auto* suggest = new QPushButton(tr("Suggest a plan…"));
  suggest->setObjectName(u"suggestPlan"_s);
  suggest->setToolTip(
      tr("Let a budgeted search over the variants, layers and rates recommend a plan for the "
         "workspace's model and data (growbench-cli suggest)"));
  variantRow->addWidget(suggest);
  head->addRow(tr("Variant:"), variantRow);
  m_suggestNote = new QLabel;
  m_suggestNote->setObjectName(u"suggestNote"_s);
  m_suggestNote->setWordWrap(true);
  m_suggestNote->setVisible(false);
  head->addRow(m_suggestNote);
  m_variantInfo = new QLabel;
  m_variantInfo->setWordWrap(true);
  head->addRow(m_variantInfo);
  m_name = new QLineEdit;
  m_name->setPlaceholderText(tr("optional label for tables and plots"));
  m_name->setToolTip(tr("A label for tables and plots; empty: the plan's own label (shown)"));
  head->addRow(tr("Name:"), m_name);
  m_nameNote = new QLabel;
  m_nameNote->setWordWrap(true);
  m_nameNote->setVisible(false);
  head->addRow(m_nameNote);
  top->addLayout(head);

  auto* params = new QGroupBox(tr("Hyper-parameters"));
  auto* pv = new QVBoxLayout(params);
  m_formHost = new QWidget;
  m_form = new QFormLayout(m_formHost);
  m_form->setContentsMargins(0, 0, 0, 0);
  pv->addWidget(m_formHost);
  m_layersRow = new QWidget;
  auto* lr = new QHBoxLayout(m_layersRow);
  lr->setContentsMargins(0, 0, 0, 0);
  m_layerSource = new QComboBox;
  m_layerSource->setObjectName(u"layerSource"_s);
  m_layerSource->addItem(tr("All layers"), static_cast<int>(LayerSource::All));
  m_layerSource->addItem(tr("Selected in the heatmap"), static_cast<int>(LayerSource::Selection));
  for (const gb::importance::LayerPolicy* p : gb::importance::layer_policies()) {
    if (!p->in_planner) continue;
    const int i = m_layerSource->count();
    m_layerSource->addItem(trVariant(p->name), static_cast<int>(LayerSource::Policy));
    m_layerSource->setItemData(i, qs(p->id), kPolicyRole);
    m_layerSource->setItemData(i, trVariant(p->help), Qt::ToolTipRole);
  }
  m_layerSource->addItem(tr("Manual list"), static_cast<int>(LayerSource::Manual));
  m_layerSource->setToolTip(
      tr("Policies are resolved from importance probes when the run "
         "starts (growbench-cli run)"));
  m_layerK = new QSpinBox;
  m_layerK->setRange(1, 1000);
  m_layerK->setValue(2);
  m_layerK->setPrefix(tr("k = "));
  m_manual = new QLineEdit;
  m_manual->setPlaceholderText(tr("e.g. 0-3, 7"));
  lr->addWidget(m_layerSource);
  lr->addWidget(m_layerK);
  lr->addWidget(m_manual, 1);
  m_layersRowLabel = new QLabel(tr("Layers:"));
  top->addWidget(params);

  // Keys every plan accepts (docs/plans.md, Common keys): its own replay fraction and EWC.
  auto* common = new QGroupBox(tr("Training of this plan"));
  auto* cf = new QFormLayout(common);
  // Their labels, help, ranges and choices are the declaration's (grow::plan_common_keys(),
  // the spec schema's PLAN), as in the experiment editor's plan form.
  const gb::schema::Key replayKey = displayed(gb::experiment::spec_key("PLAN.replay"));
  const gb::schema::Key modeKey = displayed(gb::experiment::spec_key("PLAN.replay_mode"));
  const gb::schema::Key ewcKey = displayed(gb::experiment::spec_key("PLAN.ewc"));
  const gb::schema::Key lambdaKey = displayed(gb::experiment::spec_key("PLAN.ewc.lambda"));
  const gb::schema::Key ewcModeKey = displayed(gb::experiment::spec_key("PLAN.ewc.mode"));
  const gb::schema::Key gammaKey = displayed(gb::experiment::spec_key("PLAN.ewc.gamma"));
  // A spin box's range from a declared one (an open bound one step inside).
  auto range = [](QDoubleSpinBox* sb, const gb::schema::Key& k, double step, double top) {
    const double lo = k.min ? *k.min + (k.min_open ? step : 0.0) : 0.0;
    const double hi = k.max ? *k.max - (k.max_open ? step : 0.0) : top;
    sb->setRange(lo, hi);
    sb->setToolTip(qs(k.help));
  };
  auto choices = [](QComboBox* combo, const gb::schema::Key& k) {
    for (size_t i = 0; i < k.choices.size(); ++i) {
      combo->addItem(qs(i < k.choice_labels.size() ? k.choice_labels[i] : k.choices[i]),
                     qs(k.choices[i]));
    }
    combo->setToolTip(qs(k.help));
  };
  m_replayOn = new QCheckBox(qs(replayKey.label));
  m_replayOn->setObjectName(u"replayOn"_s);
  m_replayOn->setToolTip(qs(replayKey.help));
  m_replay = new QDoubleSpinBox;
  m_replay->setObjectName(u"replay"_s);
  range(m_replay, replayKey, 0.01, 1.0);
  m_replay->setSingleStep(0.05);
  m_replay->setValue(0.1);
  m_replayMode = new QComboBox;
  m_replayMode->setObjectName(u"replayMode"_s);
  choices(m_replayMode, modeKey);
  auto* replayRow = new QHBoxLayout;
  replayRow->addWidget(m_replayOn);
  replayRow->addWidget(m_replay, 1);
  replayRow->addWidget(m_replayMode, 1);
  cf->addRow(tr("Replay:"), replayRow);
  m_ewcOn = new QCheckBox(qs(ewcKey.label));
  m_ewcOn->setObjectName(u"ewcOn"_s);
  m_ewcOn->setToolTip(qs(ewcKey.help));
  m_ewcLambda = new QDoubleSpinBox;
  m_ewcLambda->setObjectName(u"ewcLambda"_s);
  range(m_ewcLambda, lambdaKey, 0.01, 1e9);
  m_ewcLambda->setDecimals(2);
  m_ewcLambda->setValue(1.0);
  m_ewcLambda->setPrefix(tr("λ = "));
  m_ewcMode = new QComboBox;
  m_ewcMode->setObjectName(u"ewcMode"_s);
  choices(m_ewcMode, ewcModeKey);
  m_ewcGamma = new QDoubleSpinBox;
  m_ewcGamma->setObjectName(u"ewcGamma"_s);
  range(m_ewcGamma, gammaKey, 0.01, 1.0);
  m_ewcGamma->setSingleStep(0.05);
  m_ewcGamma->setValue(1.0);
  m_ewcGamma->setPrefix(tr("γ = "));
  m_ewcRow = new QWidget;
  auto* ewcRow = new QHBoxLayout(m_ewcRow);
  ewcRow->setContentsMargins(0, 0, 0, 0);
  ewcRow->addWidget(m_ewcOn);
  ewcRow->addWidget(m_ewcLambda, 1);
  ewcRow->addWidget(m_ewcMode);
  ewcRow->addWidget(m_ewcGamma);
  cf->addRow(tr("EWC:"), m_ewcRow);
  m_commonForm = cf;
  top->addWidget(common);

  auto* figures = new QGroupBox(tr("Figures"));
  auto* fg = new QFormLayout(figures);
  m_base = new QLabel;
  m_added = new QLabel;
  m_trainable = new QLabel;
  m_memory = new QLabel;
  m_memory->setToolTip(
      tr("float32 weights, plus gradients and AdamW's two moments for the "
         "trainable parameters; activations not included"));
  m_preserving = new QLabel;
  fg->addRow(tr("Base parameters:"), m_base);
  fg->addRow(tr("Parameters added:"), m_added);
  fg->addRow(tr("Trainable:"), m_trainable);
  m_activated = new QLabel;
  m_activated->setToolTip(
      tr("Trainable parameters active per token: routed experts count top-k of K; the other "
         "variants activate everything they train"));
  fg->addRow(tr("Activated per token:"), m_activated);
  fg->addRow(tr("Estimated memory:"), m_memory);
  fg->addRow(tr("Function preserving:"), m_preserving);
  m_note = new QLabel;
  m_note->setWordWrap(true);
  fg->addRow(m_note);
  auto* checkRow = new QHBoxLayout;
  m_checkButton = new QPushButton(tr("Check preservation"));
  m_checkButton->setToolTip(
      tr("Apply the plan with growbench-cli grow and compare the logits "
         "of the grown and the base model on a fixed random batch"));
  m_cancelCheck = new QPushButton(tr("Cancel"));
  m_cancelCheck->setEnabled(false);
  checkRow->addWidget(m_checkButton);
  checkRow->addWidget(m_cancelCheck);
  checkRow->addStretch(1);
  fg->addRow(checkRow);
  m_check = new QLabel;
  m_check->setWordWrap(true);
  m_check->setTextInteractionFlags(Qt::TextSelectableByMouse);
  fg->addRow(m_check);
  top->addWidget(figures);

  m_json = new QPlainTextEdit;
  m_json->setReadOnly(true);
  m_json->setMaximumHeight(70);
  m_json->setToolTip(tr("The plan as JSON (docs/plans.md)"));
  top->addWidget(m_json);

  auto* queueBox = new QGroupBox(tr("Comparison"));
  auto* qv = new QVBoxLayout(queueBox);
  m_queue = new QListWidget;
  m_queue->setMaximumHeight(110);
  qv->addWidget(m_queue);
  auto* qb = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add to comparison"));
  add->setToolTip(
      tr("Queue this plan; the queued plans run as one comparison (one run "
         "each, same data and seed)"));
  auto* remove = new QPushButton(tr("Remove"));
  auto* clear = new QPushButton(tr("Clear"));
  auto* launch = new QPushButton(tr("Launch…"));
  launch->setToolTip(tr("Open the Runs view to launch the queued plans"));
  qb->addWidget(add);
  qb->addWidget(remove);
  qb->addWidget(clear);
  qb->addStretch(1);
  qb->addWidget(launch);
  qv->addLayout(qb);
  top->addWidget(queueBox);
  top->addStretch(1);

  connect(m_variant, &QComboBox::currentIndexChanged, this, [this] {
    // A name typed for the previous variant would now name another method.
    const QString old = m_name->text().trimmed();
    if (!old.isEmpty()) {
      const QSignalBlocker b(m_name);
      m_name->clear();
      m_nameNote->setText(
          tr("The name “%1” was cleared: it named the previous variant.").arg(old.toHtmlEscaped()));
      m_nameNote->setVisible(true);
    }
    rebuildForm();
  });
  connect(m_name, &QLineEdit::textChanged, this, [this] {
    m_nameNote->setVisible(false);
    refresh();
  });
  for (QCheckBox* cb : {m_replayOn, m_ewcOn}) {
    connect(cb, &QCheckBox::toggled, this, [this] {
      updateVisibility();
      refresh();
    });
  }
  for (QDoubleSpinBox* sb : {m_replay, m_ewcLambda, m_ewcGamma}) {
    connect(sb, &QDoubleSpinBox::valueChanged, this, [this] { refresh(); });
  }
  connect(m_replayMode, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(m_ewcMode, &QComboBox::currentIndexChanged, this, [this] {
    updateVisibility();
    refresh();
  });
  connect(m_layerSource, &QComboBox::currentIndexChanged, this, [this] {
    // The loaded policy's JSON is no layer list to edit.
    if (layerSource() == LayerSource::Manual && m_manual->text().startsWith(u'{')) {
      const QSignalBlocker b(m_manual);
      m_manual->clear();
    }
    updateVisibility();
    refresh();
  });
  connect(m_layerK, &QSpinBox::valueChanged, this, [this] { refresh(); });
  connect(m_manual, &QLineEdit::textChanged, this, [this] { refresh(); });
  connect(m_checkButton, &QPushButton::clicked, this, &GrowPlanner::checkPreservation);
  connect(m_cancelCheck, &QPushButton::clicked, this, [this] { m_job->cancel(); });
  connect(add, &QPushButton::clicked, this, &GrowPlanner::queueCurrentPlan);
  connect(remove, &QPushButton::clicked, this,
          [this] { m_session->removeQueuedPlan(m_queue->currentRow()); });
  connect(clear, &QPushButton::clicked, this, [this] { m_session->clearQueuedPlans(); });
  connect(launch, &QPushButton::clicked, this, &GrowPlanner::launchRequested);
  connect(suggest, &QPushButton::clicked, this, &GrowPlanner::openSuggestDialog);
}

QString GrowPlanner::variant() const {
  return m_variant->currentData().toString();
}

void GrowPlanner::setVariant(const QString& v) {
  const int i = m_variant->findData(v);
  if (i >= 0) m_variant->setCurrentIndex(i);
}

QString GrowPlanner::planName() const {
  return m_name->text().trimmed();
}

void GrowPlanner::setPlanName(const QString& name) {
  m_name->setText(name);
}

QString GrowPlanner::checkKey() const {
  return m_session->model().folder + u"\n"_s + qs(plan().dump()) + u"\n"_s +
         layersText(m_session->selectedLayers());
}

void GrowPlanner::rebuildForm(const nlohmann::json* keep) {
  const auto savedModeDefaults = m_modeDefaults;
  // The form is generated from the variant's parameter schema (core/grow/variant.h). The
  // layers row is kept across variants (taken out, not deleted); the rest is rebuilt.
  for (int r = 0; r < m_form->rowCount(); ++r) {
    QLayoutItem* field = m_form->itemAt(r, QFormLayout::FieldRole);
    if (field && field->widget() == m_layersRow) {
      m_form->takeRow(r);
      break;
    }
  }
  while (m_form->rowCount() > 0) m_form->removeRow(0);
  m_fields.clear();
  m_modeDefaults.clear();
  const gb::grow::VariantModule* module = moduleOf(variant());
  m_variantInfo->setText(module ? trVariant(module->description) : QString());
  // The rows are the generator's (variantform.h, as in the experiment editor's plan form):
  // fields that always hold a value, with the model's hints and its units.
  const auto& cfg = m_session->model().config;
  VariantFormOptions options;
  options.mode = SpecField::Mode::Value;
  options.config = cfg ? &*cfg : nullptr;
  options.layersAndPlans = false;  // the layers row below; no plan field
  for (const VariantRow& row :
       module ? variantFields(*module, options) : std::vector<VariantRow>{}) {
    SpecField* f = row.field;
    auto* label = new QLabel(tr("%1:", "form label").arg(f->label()));
    label->setToolTip(qs(f->schemaKey().help));
    m_form->addRow(label, f);
    m_fields.insert(f->key(), f);
    connect(f, &SpecField::edited, this, [this, f] { fieldEdited(f); });
  }
  if (m_form->rowCount() == 0) {
    m_form->addRow(new QLabel(tr("This variant has no hyper-parameters.")));
  }
  m_form->addRow(m_layersRowLabel, m_layersRow);
  m_adjusted.clear();
  if (keep) {
    // The previous values (a model reload): put back, within the new model's ranges.
    for (auto it = keep->begin(); it != keep->end(); ++it) {
      if (SpecField* f = m_fields.value(qs(it.key()))) putValue(f, it.value());
    }
    m_modeDefaults = savedModeDefaults;  // the user's own choices stay theirs
    const nlohmann::json now = formValues();
    for (auto it = keep->begin(); it != keep->end(); ++it) {
      if (now.contains(it.key()) && now[it.key()] != it.value() &&
          m_fields.contains(qs(it.key()))) {
        m_adjusted
            << tr("%1: %2 → %3").arg(qs(it.key()), qs(it.value().dump()), qs(now[it.key()].dump()));
      }
    }
  }
  applyModeDefaults();
  updateVisibility();
  refresh();
}

void GrowPlanner::applyModeDefaults() {
  // Keys whose default depends on a mode (ParamSpec::default_for) follow it when the mode
  // changes, e.g. ADEPT's stage 2 is on for ADEPT and off for LLaMA-Pro.
  const gb::grow::VariantModule* module = moduleOf(variant());
  if (!module) return;
  const nlohmann::json values = formValues();
  for (const Spec& s : module->params) {
    SpecField* f = m_fields.value(qs(s.name));
    if (!s.default_for || !f) continue;
    // A value the user chose stays: only a field still at the last mode default follows.
    const auto last = m_modeDefaults.find(qs(s.name));
    if (last != m_modeDefaults.end() && values.value(s.name, nlohmann::json()) != *last) continue;
    const nlohmann::json v = s.default_for(values);
    m_modeDefaults[qs(s.name)] = v;
    if (!v.is_array()) putValue(f, v);
  }
}

nlohmann::json GrowPlanner::formValues() const {
  nlohmann::json j = nlohmann::json::object();
  const gb::grow::VariantModule* module = moduleOf(variant());
  if (!module) return j;
  for (const Spec& s : module->params) {
    const SpecField* f = m_fields.value(qs(s.name));
    j[s.name] = f ? f->value() : s.default_value;
  }
  return j;
}

void GrowPlanner::updateVisibility() {
  // A row shows when its key applies (ParamSpec::when_key), and the layers row when the
  // variant's layers parameter does.
  const gb::grow::VariantModule* module = moduleOf(variant());
  const nlohmann::json values = formValues();
  bool takesLayers = false;
  for (const Spec& s : module ? module->params : std::vector<Spec>{}) {
    if (s.type == Spec::Type::Layers) {
      takesLayers = s.applies(values);
    } else if (SpecField* f = m_fields.value(qs(s.name))) {
      m_form->setRowVisible(f, s.applies(values));
    }
  }
  m_form->setRowVisible(m_layersRow, takesLayers);
  // The "ewc" variant is full fine-tuning with EWC already.
  m_commonForm->setRowVisible(m_ewcRow, variant() != QLatin1String(gb::grow::Variant::Ewc));
  m_replay->setEnabled(m_replayOn->isChecked());
  m_replayMode->setEnabled(m_replayOn->isChecked());
  for (QWidget* w : {static_cast<QWidget*>(m_ewcLambda), static_cast<QWidget*>(m_ewcMode)}) {
    w->setEnabled(m_ewcOn->isChecked());
  }
  m_ewcGamma->setVisible(m_ewcMode->currentData().toString() == u"online"_s);
  m_ewcGamma->setEnabled(m_ewcOn->isChecked());
  const LayerSource src = layerSource();
  const auto* policy = gb::importance::find_policy(ss(layerPolicy()));
  m_layerK->setVisible(src == LayerSource::Policy && policy && !policy->count_key.empty());
  m_manual->setVisible(src == LayerSource::Manual || src == LayerSource::Selection ||
                       src == LayerSource::Loaded);
  m_manual->setReadOnly(src == LayerSource::Selection || src == LayerSource::Loaded);
}

QWidget* GrowPlanner::field(const QString& key) const {
  const SpecField* f = m_fields.value(key);
  return f ? f->editor() : nullptr;
}

bool GrowPlanner::fieldShown(const QString& key) const {
  SpecField* f = m_fields.value(key);
  return f && m_form->isRowVisible(f);
}

bool GrowPlanner::layersShown() const {
  return m_form->isRowVisible(m_layersRow);
}

bool GrowPlanner::setParameter(const QString& key, const QVariant& value) {
  SpecField* f = m_fields.value(key);
  if (!f) return false;
  nlohmann::json v;
  switch (f->type()) {
    case SpecField::Type::Int:
      v = value.toInt();
      break;
    case SpecField::Type::Number:
      v = value.toDouble();
      break;
    case SpecField::Type::Bool:
      v = value.toBool();
      break;
    case SpecField::Type::Choice:
      v = ss(value.toString());
      break;
    default: {  // a string list
      v = nlohmann::json::array();
      for (const QString& item : value.toStringList()) v.push_back(ss(item));
      break;
    }
  }
  const nlohmann::json before = f->value();
  f->setValue(v);
  if (f->type() == SpecField::Type::Choice && f->value() != v) return false;  // not offered
  // As an edit in the form: what depends on the field follows.
  if (f->value() != before) fieldEdited(f);
  return true;
}

void GrowPlanner::fieldEdited(SpecField* field) {
  switch (field->type()) {
    case SpecField::Type::Choice:
      applyModeDefaults();
      updateVisibility();
      break;
    case SpecField::Type::Bool:
      updateVisibility();
      break;
    default:
      break;
  }
  refresh();
}

void GrowPlanner::setLayerSource(LayerSource source, int k) {
  const int i = layerSourceIndex(source);
  if (i >= 0) m_layerSource->setCurrentIndex(i);
  m_layerK->setValue(k);
}

bool GrowPlanner::setLayerPolicy(const QString& id, int k) {
  const int i = layerSourceIndex(LayerSource::Policy, id);
  if (i < 0) return false;
  m_layerSource->setCurrentIndex(i);
  m_layerK->setValue(k);
  return true;
}

GrowPlanner::LayerSource GrowPlanner::layerSource() const {
  return static_cast<LayerSource>(m_layerSource->currentData().toInt());
}

QString GrowPlanner::layerPolicy() const {
  return m_layerSource->currentData(kPolicyRole).toString();
}

int GrowPlanner::layerSourceIndex(LayerSource source, const QString& policy) const {
  for (int i = 0; i < m_layerSource->count(); ++i) {
    if (static_cast<LayerSource>(m_layerSource->itemData(i).toInt()) != source) continue;
    if (policy.isEmpty() || m_layerSource->itemData(i, kPolicyRole).toString() == policy) return i;
  }
  return -1;
}

nlohmann::json GrowPlanner::plan() const {
  nlohmann::json j = nlohmann::json::object();
  j["variant"] = ss(variant());
  if (!m_name->text().trimmed().isEmpty()) j["name"] = ss(m_name->text().trimmed());
  // The keys of the form that apply (hidden rows are left to their defaults).
  const nlohmann::json values = formValues();
  if (const gb::grow::VariantModule* module = moduleOf(variant())) {
    for (const Spec& s : module->params) {
      if (m_fields.contains(qs(s.name)) && s.applies(values)) j[s.name] = values[s.name];
    }
  }
  if (m_replayOn->isChecked()) {
    j["replay"] = m_replay->value();
    // "batches" is the spec's default; only the other mode is written.
    if (m_replayMode->currentData().toString() == u"rows"_s) j["replay_mode"] = "rows";
  }
  if (m_ewcOn->isChecked() && variant() != QLatin1String(gb::grow::Variant::Ewc)) {
    j["ewc"] = {{"lambda", m_ewcLambda->value()},
                {"mode", ss(m_ewcMode->currentData().toString())}};
    if (m_ewcMode->currentData().toString() == u"online"_s) j["ewc"]["gamma"] = m_ewcGamma->value();
  }
  if (!m_layersRow->isHidden()) {
    j["layers"] = layersJson(layerSource(), layerPolicy(), m_layerK->value());
  }
  return j;
}

nlohmann::json GrowPlanner::layersJson(LayerSource source, const QString& policy, int k) const {
  switch (source) {
    case LayerSource::All:
      return "all";
    case LayerSource::Selection: {
      nlohmann::json a = nlohmann::json::array();
      for (int l : m_session->selectedLayers()) a.push_back(l);
      return a;
    }
    case LayerSource::Policy:
      // Only registered policies have entries.
      return gb::importance::layer_policy(ss(policy), "planner").form_json(k);
    case LayerSource::Manual: {
      QVector<int> layers;
      nlohmann::json a = nlohmann::json::array();
      if (parseLayers(m_manual->text(), &layers)) {
        for (int l : layers) a.push_back(l);
      }
      return a;
    }
    case LayerSource::Loaded:
      return m_loadedPolicy;
  }
  return "all";
}

void GrowPlanner::onModelChanged(const ModelRef&) {
  // The same plan on the new model: only what the model does not allow changes (and the
  // note says what), never the variant or its mode.
  const nlohmann::json keep = formValues();
  rebuildForm(&keep);
}

void GrowPlanner::refresh() {
  const LayerSource src = layerSource();
  if (src == LayerSource::Selection) m_manual->setText(layersText(m_session->selectedLayers()));
  if (src == LayerSource::Loaded) m_manual->setText(qs(m_loadedPolicy.dump()));
  const nlohmann::json j = plan();
  m_json->setPlainText(qs(j.dump()));
  m_error.clear();
  // A check result of another plan, model or layer selection is not shown as this plan's.
  if (!m_resultKey.isEmpty() && m_resultKey != checkKey()) {
    m_resultKey.clear();
    m_lastCheckJson = {};
    m_lastDiff = qQNaN();
    m_lastCheck =
        tr("Not checked since the plan or the model changed: “Check preservation” "
           "checks this plan.");
    m_check->setText(m_lastCheck);
  }
  {
    QString label;
    try {
      nlohmann::json unnamed = j;
      unnamed.erase("name");
      label = qs(gb::grow::parse_plan(unnamed).label());
    } catch (const std::exception&) {
    }
    m_name->setPlaceholderText(label.isEmpty() ? tr("optional label for tables and plots")
                                               : tr("default: %1").arg(label));
  }
  const auto& cfg = m_session->model().config;
  try {
    gb::grow::GrowthPlan p = gb::grow::parse_plan(j);
    if (cfg) gb::grow::validate_plan(p, *cfg);
    if (j.contains("layers") && j["layers"].is_array() && j["layers"].empty()) {
      m_error = tr("No layers selected.");
    }
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
  }
  if (!cfg) {
    m_estimate = {};
    for (QLabel* l : {m_base, m_added, m_trainable, m_activated, m_memory, m_preserving}) {
      l->setText(u"–"_s);
    }
    m_note->setText(m_error.isEmpty()
                        ? tr("Open a model to see the figures.")
                        : tr("<span style='color:#c62828'>%1</span>").arg(m_error.toHtmlEscaped()));
    emit planChanged();
    return;
  }
  m_estimate = estimatePlan(*cfg, j);
  if (m_estimate.ok) {
    m_base->setText(fmtParams(m_estimate.baseParams));
    m_added->setText(tr("%1 · %2 of the base")
                         .arg(fmtParams(m_estimate.addedParams))
                         .arg(formatPercent(double(m_estimate.addedParams) /
                                            std::max<qint64>(1, m_estimate.baseParams))));
    m_trainable->setText(tr("%1 · %2 of the base")
                             .arg(fmtParams(m_estimate.trainableParams))
                             .arg(formatPercent(m_estimate.trainableShare())));
    m_activated->setText(fmtParams(m_estimate.activatedParams));
    const double mb = m_estimate.memoryBytes() / (1024.0 * 1024.0);
    m_memory->setText(mb >= 1024 ? tr("%1 GiB").arg(mb / 1024.0, 0, 'f', 2)
                                 : tr("%1 MiB").arg(mb, 0, 'f', 1));
    m_preserving->setText(m_estimate.functionPreserving ? tr("yes, at initialisation")
                                                        : tr("no (routing changes outputs)"));
  } else {
    for (QLabel* l : {m_added, m_trainable, m_activated, m_memory}) l->setText(u"–"_s);
  }
  // An invalid plan has no estimate either: its error shows once.
  QString note = m_estimate.ok ? m_estimate.note : m_error.isEmpty() ? m_estimate.error : QString();
  if (!m_error.isEmpty()) {
    note = tr("<span style='color:#c62828'>%1</span>").arg(m_error.toHtmlEscaped()) +
           (note.isEmpty() ? QString() : u"<br/>"_s + note.toHtmlEscaped());
  } else {
    note = note.toHtmlEscaped();
  }
  if (!m_adjusted.isEmpty()) {
    note += (note.isEmpty() ? QString() : u"<br/>"_s) +
            tr("Adjusted to the new model: %1").arg(m_adjusted.join(u", "_s).toHtmlEscaped());
  }
  m_note->setText(note);
  emit planChanged();
}

void GrowPlanner::setManualLayers(const QString& text) {
  m_manual->setText(text);
  refresh();
}

bool GrowPlanner::queueCurrentPlan() {
  if (!m_error.isEmpty()) {
    m_note->setText(
        tr("<span style='color:#c62828'>Not queued: %1</span>").arg(m_error.toHtmlEscaped()));
    return false;
  }
  const nlohmann::json j = plan();
  QueuedPlan q;
  q.plan = QJsonDocument::fromJson(QByteArray::fromStdString(j.dump())).object();
  try {
    q.label = qs(gb::grow::parse_plan(j).label());
  } catch (const std::exception&) {
    q.label = variant();
  }
  m_session->queuePlan(q);
  return true;
}

bool GrowPlanner::checking() const {
  return m_job->isRunning();
}

bool GrowPlanner::checkPreservation() {
  const ModelRef& m = m_session->model();
  if (!m.valid()) {
    m_check->setText(tr("Open a model first."));
    return false;
  }
  nlohmann::json j = plan();
  if (j.contains("layers") && j["layers"].is_object()) {
    // `grow` takes explicit layers: use the heatmap selection for the check.
    nlohmann::json a = nlohmann::json::array();
    for (int l : m_session->selectedLayers()) a.push_back(l);
    if (a.empty()) {
      m_check->setText(
          tr("The check needs explicit layers: select some in the heatmap (the "
             "policy itself is resolved when the run starts)."));
      return false;
    }
    j["layers"] = a;
  }
  const gb::grow::VariantModule* module = moduleOf(variant());
  if (module && !module->no_check_reason.empty()) {
    m_check->setText(trVariant(module->no_check_reason));
    return false;
  }
  if (!m_error.isEmpty()) {
    m_check->setText(m_error);
    return false;
  }
  const QString base =
      m_session->workspaceDir().isEmpty() ? QDir::tempPath() : m_session->workspaceDir();
  m_checkDir = QDir(base).filePath(u"tmp/check-%1"_s.arg(QCoreApplication::applicationPid()));
  QDir(m_checkDir).removeRecursively();
  QDir().mkpath(QFileInfo(m_checkDir).absolutePath());
  if (!m_job->start(
          {u"grow"_s, m.folder, u"--plan"_s, qs(j.dump()), u"--out"_s, m_checkDir, u"--json"_s})) {
    return false;
  }
  m_checkKey = checkKey();
  m_resultKey.clear();
  m_checkButton->setEnabled(false);
  m_cancelCheck->setEnabled(true);
  m_check->setText(tr("Checking…"));
  return true;
}

void GrowPlanner::setLoadedPolicy(const nlohmann::json& policy) {
  const int index = layerSourceIndex(LayerSource::Loaded);
  m_loadedPolicy = policy;
  if (policy.is_null()) {
    if (index >= 0) {
      if (m_layerSource->currentIndex() == index) m_layerSource->setCurrentIndex(0);
      m_layerSource->removeItem(index);
    }
    return;
  }
  if (index < 0) {
    m_layerSource->addItem(tr("Policy of the loaded plan"), static_cast<int>(LayerSource::Loaded));
    m_layerSource->setItemData(
        m_layerSource->count() - 1,
        tr("The layer policy of the plan loaded (e.g. from “Suggest a plan”), as it was"),
        Qt::ToolTipRole);
  }
}

void GrowPlanner::setLayersFrom(const nlohmann::json& layers) {
  const QSignalBlocker b1(m_layerSource), b2(m_layerK), b3(m_manual);
  setLoadedPolicy(nullptr);
  if (!layers.is_array() && !layers.is_object()) {  // "all" (or no layers at all)
    m_layerSource->setCurrentIndex(layerSourceIndex(LayerSource::All));
    return;
  }
  if (layers.is_array()) {
    QStringList items;
    for (const auto& l : layers) items << QString::number(l.get<qint64>());
    m_layerSource->setCurrentIndex(layerSourceIndex(LayerSource::Manual));
    m_manual->setText(items.join(u", "_s));
    return;
  }
  // A policy: the entry that writes exactly this object (its count within k's range), else
  // kept as it is.
  for (int i = 0; i < m_layerSource->count(); ++i) {
    const QString id = m_layerSource->itemData(i, kPolicyRole).toString();
    const gb::importance::LayerPolicy* p = gb::importance::find_policy(ss(id));
    if (id.isEmpty() || !p) continue;
    int k = m_layerK->value();
    if (!p->count_key.empty()) {
      const auto it = layers.find(p->count_key);
      if (it == layers.end() || !it->is_number_integer()) continue;
      const int64_t n = it->get<int64_t>();
      if (n < m_layerK->minimum() || n > m_layerK->maximum()) continue;
      k = static_cast<int>(n);
    }
    if (p->form_json(k) == layers) {
      m_layerSource->setCurrentIndex(i);
      m_layerK->setValue(k);
      return;
    }
  }
  setLoadedPolicy(layers);
  m_layerSource->setCurrentIndex(layerSourceIndex(LayerSource::Loaded));
}

bool GrowPlanner::setPlan(const nlohmann::json& j, QString* error) {
  auto fail = [&](const QString& e) {
    if (error) *error = e;
    return false;
  };
  if (!j.is_object() || !j.contains("variant") || !j["variant"].is_string()) {
    return fail(tr("The plan has no variant."));
  }
  nlohmann::json want;
  try {
    const gb::grow::GrowthPlan p = gb::grow::parse_plan(j);
    want = gb::grow::to_json(p);
    if (const auto& cfg = m_session->model().config) gb::grow::validate_plan(p, *cfg);
  } catch (const std::exception& e) {
    return fail(tr("The plan is not valid: %1").arg(QString::fromUtf8(e.what())));
  }
  const QString id = qs(j["variant"].get<std::string>());
  const int vi = m_variant->findData(id);
  const gb::grow::VariantModule* module = moduleOf(id);
  if (vi < 0 || !module) return fail(tr("The planner has no variant %1.").arg(id));
  {
    const QSignalBlocker b1(m_variant), b2(m_name);
    m_variant->setCurrentIndex(vi);
    m_name->setText(j.contains("name") && j["name"].is_string() ? qs(j["name"].get<std::string>())
                                                                : QString());
  }
  m_nameNote->setVisible(false);
  rebuildForm();  // the variant's fields at their defaults (and the model's hints)
  setLoadedPolicy(nullptr);
  // A key the plan leaves out takes the value the plan parses to (e.g. LoRA's alpha 0: twice
  // the rank), not the form's default.
  auto valueOf = [&](const Spec& s) -> nlohmann::json {
    if (j.contains(s.name)) return j[s.name];
    if (want.contains(s.name)) return want[s.name];
    return s.default_value;
  };
  for (const Spec& s : module->params) {
    if (s.type == Spec::Type::Layers) {
      setLayersFrom(valueOf(s));
      continue;
    }
    // No field (hidden): the comparison below names the key when it differs.
    if (SpecField* f = m_fields.value(qs(s.name))) putValue(f, valueOf(s));
  }
  // A mode-dependent key the plan gives is the plan's choice; the others follow the mode.
  const nlohmann::json values = formValues();
  for (const Spec& s : module->params) {
    if (s.default_for && (j.contains(s.name) || want.contains(s.name))) {
      m_modeDefaults[qs(s.name)] = s.default_for(values);
    }
  }
  applyModeDefaults();
  {
    const QSignalBlocker b1(m_replayOn), b2(m_replay), b3(m_replayMode);
    const bool replay = j.contains("replay") && j["replay"].is_number();
    m_replayOn->setChecked(replay);
    if (replay) m_replay->setValue(j["replay"].get<double>());
    const bool rows = j.contains("replay_mode") && j["replay_mode"] == "rows";
    m_replayMode->setCurrentIndex(m_replayMode->findData(rows ? u"rows"_s : u"batches"_s));
  }
  {
    const QSignalBlocker b1(m_ewcOn), b2(m_ewcLambda), b3(m_ewcMode), b4(m_ewcGamma);
    const bool ewc = j.contains("ewc") && j["ewc"].is_object();
    m_ewcOn->setChecked(ewc);
    if (ewc) {
      const nlohmann::json& e = j["ewc"];
      if (e.contains("lambda") && e["lambda"].is_number()) {
        m_ewcLambda->setValue(e["lambda"].get<double>());
      }
      const QString mode = qs(e.value("mode", std::string("per-task")));
      const int mi = m_ewcMode->findData(mode);
      if (mi >= 0) m_ewcMode->setCurrentIndex(mi);
      if (e.contains("gamma") && e["gamma"].is_number()) {
        m_ewcGamma->setValue(e["gamma"].get<double>());
      }
    }
  }
  updateVisibility();
  refresh();
  // What the form now describes must be the plan given.
  nlohmann::json got;
  try {
    got = gb::grow::to_json(gb::grow::parse_plan(plan()));
  } catch (const std::exception& e) {
    return fail(tr("The form cannot hold this plan: %1").arg(QString::fromUtf8(e.what())));
  }
  if (got != want) {
    QStringList keys;
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key()) || got[it.key()] != it.value()) keys << qs(it.key());
    }
    for (auto it = got.begin(); it != got.end(); ++it) {
      if (!want.contains(it.key())) keys << qs(it.key());
    }
    return fail(tr("The form cannot hold every value of this plan: %1").arg(keys.join(u", "_s)));
  }
  return true;
}

bool GrowPlanner::loadRecommendation(const nlohmann::json& plan, double lr, qint64 steps,
                                     QString* error) {
  QString why;
  if (!setPlan(plan, &why)) {
    if (error) *error = why;
    m_suggestNote->setText(
        tr("<span style='color:#c62828'>The recommended plan was not loaded: %1</span>")
            .arg(why.toHtmlEscaped()));
    m_suggestNote->setVisible(true);
    return false;
  }
  m_suggestedLr = lr;
  m_suggestNote->setText(tr("Recommended by “Suggest a plan” with learning rate %1 over %2 steps "
                            "(the Runs view's launch form takes both).")
                             .arg(QString::number(lr, 'g', 4))
                             .arg(steps));
  m_suggestNote->setVisible(true);
  emit recommendationLoaded(lr, steps);
  return true;
}

QString GrowPlanner::suggestionNote() const {
  return m_suggestNote->isVisible() ? m_suggestNote->text() : QString();
}

SuggestDialog* GrowPlanner::openSuggestDialog() {
  const bool first = !m_suggest;
  if (first) {
    m_suggest = new SuggestDialog(this);
    m_suggest->setWindowFlag(Qt::Window);
    connect(m_suggest, &SuggestDialog::recommendationReady, this,
            [this](const nlohmann::json& plan, double lr, qint64 steps) {
              QString error;
              const bool ok = loadRecommendation(plan, lr, steps, &error);
              m_suggest->setLoadOutcome(
                  ok,
                  ok ? tr("Loaded into the Grow planner as its current plan: edit it there, add it "
                          "to the comparison or launch it from the Runs view.")
                     : tr("Not loaded into the planner: %1").arg(error));
            });
  }
  if (!m_suggest->isRunning()) {
    // The workspace's model, data and store; the budgets typed before stay.
    SuggestSettings d;
    if (m_suggestDefaults) {
      d = m_suggestDefaults();
    } else {
      d.model = m_session->model().folder;
      d.db = m_session->databasePath();
    }
    if (!first) {
      const SuggestSettings cur = m_suggest->settings();
      if (d.model.isEmpty()) d.model = cur.model;
      if (d.newData.isEmpty()) d.newData = cur.newData;
      if (d.originalData.isEmpty()) d.originalData = cur.originalData;
      if (d.db.isEmpty()) d.db = cur.db;
      d.format = cur.format;
      d.forgetting = cur.forgetting;
      d.params = cur.params;
      d.time = cur.time;
      d.steps = cur.steps;
      d.maxCandidates = cur.maxCandidates;
    }
    m_suggest->setSettings(d);
  }
  if (first) m_suggest->resize(820, 780);
  m_suggest->show();
  m_suggest->raise();
  m_suggest->activateWindow();
  return m_suggest;
}

}  // namespace gb::gui
