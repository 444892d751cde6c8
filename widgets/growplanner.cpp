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
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

#include "clijob.h"
#include "grow/plan.h"
#include "guiutil.h"
#include "session.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

struct GrowPlanner::ParamSpec {
  enum Type { Int, Double, Bool, Choice, Targets };
  const char* variant;
  const char* key;
  Type type;
  QString label;
  QString tip;
  double def = 0, lo = 0, hi = 0, step = 1;
  QStringList choices = {};
  QStringList choiceLabels = {};
  const char* showKey = nullptr;  // shown only when this key's value is in showValues
  QStringList showValues = {};
};

namespace {

struct VariantInfo {
  const char* name;
  QString title;
  QString description;
  bool takesLayers;
};

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> v = {
      {"full", GrowPlanner::tr("Full fine-tuning"),
       GrowPlanner::tr("Every parameter trains. The baseline that forgets most."), false},
      {"freeze", GrowPlanner::tr("Freeze bottom layers"),
       GrowPlanner::tr("Trains all but the bottom k layers and the input embedding."), false},
      {"lora", GrowPlanner::tr("LoRA"),
       GrowPlanner::tr("Low-rank adapters W x + (alpha/r)·B A x on the target projections, W "
                       "frozen, B = 0 at initialisation."),
       true},
      {"grow", GrowPlanner::tr("Grow (MLP width replication)"),
       GrowPlanner::tr("“Grow, don't overwrite”: the up-projection is concatenated k times and "
                       "each copy of the down-projection scaled by 1/k; function preserving "
                       "for any k."),
       true},
      {"scale", GrowPlanner::tr("SCALE (width upscaling)"),
       GrowPlanner::tr("Every linear W becomes [[W, W12], [W21, W22]]; with W12 = 0 in every "
                       "layer the original stream is the base model's bit for bit."),
       false},
      {"depth", GrowPlanner::tr("Depth expansion (LLaMA-Pro, ADEPT)"),
       GrowPlanner::tr("Copies of layers inserted right after them with zeroed output "
                       "projections, so each starts as the identity; only new blocks train."),
       true},
      {"neutral-residues", GrowPlanner::tr("Neutral residues (gated adapters)"),
       GrowPlanner::tr("A gated adapter beside each selected MLP whose gate learns to output "
                       "zero on original-domain data (ℓ1 local loss)."),
       true},
      {"adapters", GrowPlanner::tr("Parallel adapters"),
       GrowPlanner::tr("The neutral-residues block without a gate and without the local "
                       "loss."),
       true},
      {"ewc", GrowPlanner::tr("EWC"),
       GrowPlanner::tr("Full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)² with the diagonal "
                       "Fisher of the base model on the original domain."),
       false},
      {"loramoe", GrowPlanner::tr("LoRAMoE"),
       GrowPlanner::tr("A bank of K LoRA experts beside each selected MLP with a top-k "
                       "router."),
       true},
      {"mh-moe", GrowPlanner::tr("MH-MoE (multi-head routing)"),
       GrowPlanner::tr("The hidden state is split into H heads, each with its own router and "
                       "expert bank; the outputs are summed."),
       true},
  };
  return v;
}

const VariantInfo* variantInfo(const QString& name) {
  for (const auto& v : variants()) {
    if (QLatin1String(v.name) == name) return &v;
  }
  return nullptr;
}

QString fmtParams(qint64 n) {
  return GrowPlanner::tr("%1 (%2)").arg(QLocale().toString(n), formatCount(double(n)));
}

}  // namespace

const std::vector<GrowPlanner::ParamSpec>& GrowPlanner::specs() {
  using P = ParamSpec;
  static const std::vector<ParamSpec> s = {
      {"freeze", "bottom", P::Int, tr("Frozen bottom layers"),
       tr("“Freeze trains all but the bottom k layers and the input embedding.”"), 2, 0, 1000},
      {"freeze", "freeze_embedding", P::Bool, tr("Freeze the embedding"),
       tr("Also freeze the token embedding (and with tied embeddings the LM head)."), 1},
      {"lora", "rank", P::Int, tr("Rank r"),
       tr("Rank of A (r × in) and B (out × r); r · (in + out) trainable parameters per target "
          "and layer."),
       8, 1, 4096},
      {"lora", "alpha", P::Double, tr("Alpha"),
       tr("Scale numerator: the update B A x is scaled by alpha / r (default 2 · rank)."), 16,
       0.001, 1e6, 1},
      {"lora", "targets", P::Targets, tr("Targets"),
       tr("Projections that get adapters; gate exists only on gated MLPs (Llama, Qwen, "
          "Gemma)."),
       0},
      {"grow",
       "mode",
       P::Choice,
       tr("Mode"),
       tr("G-Freeze “strictly trains only the newly added weights”; G-Train trains “the entire "
          "expanded up-projection matrix while keeping the entire down-projection matrix and "
          "all other original parameters frozen”."),
       0,
       0,
       0,
       1,
       {u"freeze"_s, u"train"_s},
       {tr("G-Freeze"), tr("G-Train")}},
      {"grow", "k", P::Int, tr("Replication factor k"),
       tr("k copies of each MLP unit, the down copies scaled by 1/k; “using k = 2 consistently "
          "provided the best trade-off”."),
       2, 2, 64},
      {"scale",
       "mode",
       P::Choice,
       tr("Mode"),
       tr("Preserve: W12 “initialized to 0 and kept frozen”, original weights frozen. Adapt: "
          "W12 zero-initialised and trainable above L_fp. Route: per token, “if Z_preserve and "
          "Z_adapt agree (high cosine similarity), we route to SCALE-Preserve; otherwise we "
          "route to SCALE-Adapt”."),
       0,
       0,
       0,
       1,
       {u"preserve"_s, u"adapt"_s, u"route"_s},
       {tr("Preserve"), tr("Adapt"), tr("Route")}},
      {"scale", "d_up", P::Int, tr("Added hidden width d_up"),
       tr("A multiple of head_dim · (heads / kv heads), so whole kv groups of heads are "
          "added."),
       0, 1, 1e6},
      {"scale", "p_up", P::Int, tr("Added MLP width p_up"), tr("Added MLP inner width."), 0, 0,
       1e7},
      {"scale",
       "l_fp",
       P::Int,
       tr("L_fp"),
       tr("The lowest L_fp layers keep W12 zero and frozen; “forgetting increases "
          "exponentially with decreasing L_fp”."),
       0,
       0,
       1000,
       1,
       {},
       {},
       "mode",
       {u"adapt"_s, u"route"_s}},
      {"scale",
       "attention_only",
       P::Bool,
       tr("Collaboration in attention only"),
       tr("Trainable W12 only in attention (“MHA as the preferred collaborative module”)."),
       0,
       0,
       0,
       1,
       {},
       {},
       "mode",
       {u"adapt"_s, u"route"_s}},
      {"scale",
       "tau",
       P::Double,
       tr("Route threshold τ"),
       tr("Threshold on cos(Z_p, Z_a); “we fix τ = 0.5 as a robust default”."),
       0.5,
       -1,
       1,
       0.05,
       {},
       {},
       "mode",
       {u"route"_s}},
      {"scale",
       "init",
       P::Choice,
       tr("W21, W22 initialisation"),
       tr("Initialisation of the new rows: zero, random, or SVD (the top singular directions "
          "of W). Default (SVD, 0)."),
       0,
       0,
       0,
       1,
       {u"svd,zero"_s, u"zero,random"_s, u"random,zero"_s, u"zero,svd"_s},
       {tr("(SVD, 0)"), tr("(0, random)"), tr("(random, 0)"), tr("(0, SVD)")}},
      {"depth",
       "style",
       P::Choice,
       tr("Style"),
       tr("LLaMA-Pro inserts P blocks uniformly, after every L/P layers. ADEPT copies “the k "
          "least-important ones for general competence”."),
       0,
       0,
       0,
       1,
       {u"llama-pro"_s, u"adept"_s},
       {tr("LLaMA-Pro (uniform)"), tr("ADEPT")}},
      {"depth",
       "count",
       P::Int,
       tr("Blocks P"),
       tr("Number of blocks LLaMA-Pro inserts."),
       2,
       1,
       1000,
       1,
       {},
       {},
       "style",
       {u"llama-pro"_s}},
      {"neutral-residues",
       "gate",
       P::Choice,
       tr("Gate"),
       tr("ELU: the implicit selector “that we refer to as neutral residues”. Sigmoid: an "
          "explicit selector “trained as a local binary classifier” of the domain."),
       0,
       0,
       0,
       1,
       {u"elu"_s, u"sigmoid"_s},
       {tr("ELU (implicit)"), tr("Sigmoid (explicit)")}},
      {"neutral-residues", "budget", P::Double, tr("Budget"),
       tr("Extra parameters as a fraction of the base model (“with only 20% extra learnable "
          "weights”)."),
       0.2, 0, 10, 0.05},
      {"neutral-residues", "inner", P::Int, tr("Inner size"),
       tr("Adapter inner size; 0 derives it from the budget."), 0, 0, 1e6},
      {"neutral-residues", "alpha", P::Double, tr("Local loss α"),
       tr("Coefficient of the ℓ1 local loss on original-domain batches (“best optimized when "
          "selected α = 100”); 0 switches it off."),
       100, 0, 1e6, 10},
      {"adapters", "budget", P::Double, tr("Budget"),
       tr("Extra parameters as a fraction of the base model."), 0.2, 0, 10, 0.05},
      {"adapters", "inner", P::Int, tr("Inner size"),
       tr("Adapter inner size; 0 derives it from the budget."), 0, 0, 1e6},
      {"ewc", "lambda", P::Double, tr("λ"),
       tr("Strength of the penalty λ/2 · Σ F_i (θ_i − θ*_i)²."), 1.0, 0, 1e9, 0.1},
      {"loramoe", "experts", P::Int, tr("Experts K"), tr("Experts per bank."), 4, 1, 256},
      {"loramoe", "top_k", P::Int, tr("Top-k"), tr("Experts per token."), 2, 1, 256},
      {"loramoe", "rank", P::Int, tr("Rank r"), tr("Rank of each expert (d → r → d)."), 4, 1, 4096},
      {"loramoe", "alpha", P::Double, tr("Alpha"), tr("LoRA-style scale alpha / r; 0 = scale 1."),
       0, 0, 1e6, 1},
      {"loramoe", "balance", P::Double, tr("Balance loss"),
       tr("Coefficient of the load-balancing loss (0 = off)."), 0, 0, 100, 0.01},
      {"mh-moe", "heads", P::Int, tr("Heads H"),
       tr("Slices of the hidden state, each with “its own router and its own private expert "
          "bank”; “OP improves with M and is best at M = 16”. Must divide the hidden size."),
       4, 1, 256},
      {"mh-moe", "experts", P::Int, tr("Experts K"), tr("Experts per head."), 4, 1, 256},
      {"mh-moe", "top_k", P::Int, tr("Top-k"), tr("Experts per token and head."), 1, 1, 256},
      {"mh-moe", "rank", P::Int, tr("Rank r"), tr("Rank of each expert."), 4, 1, 4096},
      {"mh-moe", "alpha", P::Double, tr("Alpha"), tr("Scale alpha / r; 0 = scale 1."), 0, 0, 1e6,
       1},
      {"mh-moe", "balance", P::Double, tr("Balance loss"), tr("Load-balancing loss coefficient."),
       0, 0, 100, 0.01},
  };
  return s;
}

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
  for (const auto& v : variants()) {
    m_variant->addItem(v.title, QLatin1String(v.name));
    m_variant->setItemData(m_variant->count() - 1, v.description, Qt::ToolTipRole);
  }
  m_variant->setCurrentIndex(m_variant->findData(u"grow"_s));
  head->addRow(tr("Variant:"), m_variant);
  m_variantInfo = new QLabel;
  m_variantInfo->setWordWrap(true);
  head->addRow(m_variantInfo);
  m_name = new QLineEdit;
  m_name->setPlaceholderText(tr("optional label for tables and plots"));
  head->addRow(tr("Name:"), m_name);
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
  m_layerSource->addItem(tr("All layers"));
  m_layerSource->addItem(tr("Selected in the heatmap"));
  m_layerSource->addItem(tr("Policy: k least important"));
  m_layerSource->addItem(tr("Policy: k most important"));
  m_layerSource->addItem(tr("Policy: top-k by update magnitude"));
  m_layerSource->addItem(tr("Policy: calibrated (domain-critical)"));
  m_layerSource->addItem(tr("Manual list"));
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

  connect(m_variant, &QComboBox::currentIndexChanged, this, [this] { rebuildForm(); });
  connect(m_name, &QLineEdit::textChanged, this, [this] { refresh(); });
  connect(m_layerSource, &QComboBox::currentIndexChanged, this, [this] {
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
}

QString GrowPlanner::variant() const {
  return m_variant->currentData().toString();
}

void GrowPlanner::setVariant(const QString& v) {
  const int i = m_variant->findData(v);
  if (i >= 0) m_variant->setCurrentIndex(i);
}

void GrowPlanner::rebuildForm() {
  // The layers row is kept across variants (taken out, not deleted); the rest is rebuilt.
  for (int r = 0; r < m_form->rowCount(); ++r) {
    QLayoutItem* field = m_form->itemAt(r, QFormLayout::FieldRole);
    if (field && field->widget() == m_layersRow) {
      m_form->takeRow(r);
      break;
    }
  }
  while (m_form->rowCount() > 0) m_form->removeRow(0);
  m_fields.clear();
  const QString v = variant();
  const VariantInfo* info = variantInfo(v);
  m_variantInfo->setText(info ? info->description : QString());
  const auto& cfg = m_session->model().config;
  for (const ParamSpec& s : specs()) {
    if (QLatin1String(s.variant) != v) continue;
    QWidget* w = nullptr;
    switch (s.type) {
      case ParamSpec::Int: {
        auto* sb = new QSpinBox;
        sb->setRange(static_cast<int>(s.lo), static_cast<int>(std::min(s.hi, 2e9)));
        double def = s.def;
        if (cfg && v == u"scale"_s && QLatin1String(s.key) == u"d_up"_s) {
          const qint64 unit = cfg->head_dim * std::max<qint64>(1, cfg->kv_groups());
          sb->setSingleStep(static_cast<int>(unit));
          def = static_cast<double>(std::max<qint64>(unit, (cfg->hidden_size / 2 / unit) * unit));
        }
        if (cfg && v == u"scale"_s && QLatin1String(s.key) == u"p_up"_s) {
          def = static_cast<double>(cfg->intermediate_size / 2);
        }
        if (cfg && QLatin1String(s.key) == u"bottom"_s) {
          sb->setMaximum(static_cast<int>(std::max<int64_t>(0, cfg->num_layers - 1)));
        }
        sb->setValue(static_cast<int>(def));
        connect(sb, &QSpinBox::valueChanged, this, [this] { refresh(); });
        w = sb;
        break;
      }
      case ParamSpec::Double: {
        auto* sb = new QDoubleSpinBox;
        sb->setDecimals(s.step < 0.1 ? 3 : 2);
        sb->setRange(s.lo, s.hi);
        sb->setSingleStep(s.step);
        sb->setValue(s.def);
        connect(sb, &QDoubleSpinBox::valueChanged, this, [this] { refresh(); });
        w = sb;
        break;
      }
      case ParamSpec::Bool: {
        auto* cb = new QCheckBox;
        cb->setChecked(s.def != 0);
        connect(cb, &QCheckBox::toggled, this, [this] {
          updateVisibility();
          refresh();
        });
        w = cb;
        break;
      }
      case ParamSpec::Choice: {
        auto* combo = new QComboBox;
        for (int i = 0; i < s.choices.size(); ++i) {
          combo->addItem(s.choiceLabels.value(i, s.choices[i]), s.choices[i]);
        }
        connect(combo, &QComboBox::currentIndexChanged, this, [this] {
          updateVisibility();
          refresh();
        });
        w = combo;
        break;
      }
      case ParamSpec::Targets: {
        auto* box = new QWidget;
        auto* h = new QHBoxLayout(box);
        h->setContentsMargins(0, 0, 0, 0);
        for (const char* unit : {"q", "k", "v", "o", "gate", "up", "down"}) {
          auto* cb = new QCheckBox(QLatin1String(unit));
          cb->setObjectName(QLatin1String(unit));
          cb->setChecked(QLatin1String(unit) == u"q"_s || QLatin1String(unit) == u"v"_s);
          if (QLatin1String(unit) == u"gate"_s && cfg && !cfg->gated_mlp) cb->setEnabled(false);
          connect(cb, &QCheckBox::toggled, this, [this] { refresh(); });
          h->addWidget(cb);
        }
        h->addStretch(1);
        w = box;
        break;
      }
    }
    w->setToolTip(s.tip);
    auto* label = new QLabel(tr("%1:", "form label").arg(s.label));
    label->setToolTip(s.tip);
    m_form->addRow(label, w);
    m_fields.insert(QLatin1String(s.key), w);
  }
  if (m_form->rowCount() == 0) {
    m_form->addRow(new QLabel(tr("This variant has no hyper-parameters.")));
  }
  m_form->addRow(m_layersRowLabel, m_layersRow);
  updateVisibility();
  refresh();
}

void GrowPlanner::updateVisibility() {
  const QString v = variant();
  for (const ParamSpec& s : specs()) {
    if (QLatin1String(s.variant) != v || !s.showKey) continue;
    QWidget* w = m_fields.value(QLatin1String(s.key));
    QWidget* dep = m_fields.value(QLatin1String(s.showKey));
    auto* combo = qobject_cast<QComboBox*>(dep);
    const bool show = !combo || s.showValues.contains(combo->currentData().toString());
    if (w) m_form->setRowVisible(w, show);
  }
  bool takesLayers = variantInfo(v) && variantInfo(v)->takesLayers;
  if (v == u"depth"_s) {
    auto* style = qobject_cast<QComboBox*>(m_fields.value(u"style"_s));
    takesLayers = style && style->currentData().toString() == u"adept"_s;
  }
  m_form->setRowVisible(m_layersRow, takesLayers);
  const auto src = static_cast<LayerSource>(m_layerSource->currentIndex());
  m_layerK->setVisible(src == LayerSource::LeastImportant || src == LayerSource::MostImportant ||
                       src == LayerSource::UpdateMagnitude || src == LayerSource::Calibrated);
  m_manual->setVisible(src == LayerSource::Manual || src == LayerSource::Selection);
  m_manual->setReadOnly(src == LayerSource::Selection);
}

bool GrowPlanner::setParameter(const QString& key, const QVariant& value) {
  QWidget* w = m_fields.value(key);
  if (!w) return false;
  if (auto* s = qobject_cast<QSpinBox*>(w))
    s->setValue(value.toInt());
  else if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
    d->setValue(value.toDouble());
  else if (auto* c = qobject_cast<QCheckBox*>(w))
    c->setChecked(value.toBool());
  else if (auto* combo = qobject_cast<QComboBox*>(w)) {
    const int i = combo->findData(value.toString());
    if (i < 0) return false;
    combo->setCurrentIndex(i);
  } else {
    const QStringList units = value.toStringList();
    for (auto* cb : w->findChildren<QCheckBox*>()) cb->setChecked(units.contains(cb->objectName()));
  }
  return true;
}

void GrowPlanner::setLayerSource(LayerSource source, int k) {
  m_layerSource->setCurrentIndex(static_cast<int>(source));
  m_layerK->setValue(k);
}

nlohmann::json GrowPlanner::plan() const {
  nlohmann::json j = nlohmann::json::object();
  const QString v = variant();
  j["variant"] = ss(v);
  if (!m_name->text().trimmed().isEmpty()) j["name"] = ss(m_name->text().trimmed());
  for (const ParamSpec& s : specs()) {
    if (QLatin1String(s.variant) != v) continue;
    QWidget* w = m_fields.value(QLatin1String(s.key));
    if (!w || (s.showKey && !m_form->isRowVisible(w))) continue;
    if (auto* sb = qobject_cast<QSpinBox*>(w))
      j[s.key] = sb->value();
    else if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
      j[s.key] = d->value();
    else if (auto* c = qobject_cast<QCheckBox*>(w))
      j[s.key] = c->isChecked();
    else if (auto* combo = qobject_cast<QComboBox*>(w))
      j[s.key] = ss(combo->currentData().toString());
    else {
      nlohmann::json t = nlohmann::json::array();
      for (auto* cb : w->findChildren<QCheckBox*>()) {
        if (cb->isChecked()) t.push_back(ss(cb->objectName()));
      }
      j[s.key] = t;
    }
  }
  if (!m_layersRow->isHidden()) {
    const auto src = static_cast<LayerSource>(m_layerSource->currentIndex());
    const int k = m_layerK->value();
    switch (src) {
      case LayerSource::All:
        j["layers"] = "all";
        break;
      case LayerSource::Selection: {
        nlohmann::json a = nlohmann::json::array();
        for (int l : m_session->selectedLayers()) a.push_back(l);
        j["layers"] = a;
        break;
      }
      case LayerSource::LeastImportant:
        j["layers"] = {{"policy", "least-important"}, {"k", k}, {"method", "masking"}};
        break;
      case LayerSource::MostImportant:
        j["layers"] = {{"policy", "most-important"}, {"k", k}, {"method", "masking"}};
        break;
      case LayerSource::UpdateMagnitude:
        j["layers"] = {{"policy", "update-magnitude"}, {"k", k}};
        break;
      case LayerSource::Calibrated:
        j["layers"] = {{"policy", "calibrated"}, {"k", k}, {"method", "masking"}};
        break;
      case LayerSource::Manual: {
        QVector<int> layers;
        nlohmann::json a = nlohmann::json::array();
        if (parseLayers(m_manual->text(), &layers)) {
          for (int l : layers) a.push_back(l);
        }
        j["layers"] = a;
        break;
      }
    }
  }
  return j;
}

void GrowPlanner::onModelChanged(const ModelRef&) {
  rebuildForm();
}

void GrowPlanner::refresh() {
  const auto src = static_cast<LayerSource>(m_layerSource->currentIndex());
  if (src == LayerSource::Selection) m_manual->setText(layersText(m_session->selectedLayers()));
  const nlohmann::json j = plan();
  m_json->setPlainText(qs(j.dump()));
  m_error.clear();
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
    for (QLabel* l : {m_base, m_added, m_trainable, m_memory, m_preserving}) {
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
    const double mb = m_estimate.memoryBytes() / (1024.0 * 1024.0);
    m_memory->setText(mb >= 1024 ? tr("%1 GiB").arg(mb / 1024.0, 0, 'f', 2)
                                 : tr("%1 MiB").arg(mb, 0, 'f', 1));
    m_preserving->setText(m_estimate.functionPreserving ? tr("yes, at initialisation")
                                                        : tr("no (routing changes outputs)"));
  } else {
    for (QLabel* l : {m_added, m_trainable, m_memory}) l->setText(u"–"_s);
  }
  QString note = m_estimate.ok ? m_estimate.note : m_estimate.error;
  if (!m_error.isEmpty()) {
    note = tr("<span style='color:#c62828'>%1</span>").arg(m_error.toHtmlEscaped()) +
           (note.isEmpty() ? QString() : u"<br/>"_s + note.toHtmlEscaped());
  } else {
    note = note.toHtmlEscaped();
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
  if (j.value("variant", std::string()) == "ewc") {
    m_check->setText(
        tr("EWC changes no weights at initialisation (its penalty needs the "
           "Fisher of a probe): nothing to check."));
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
  m_checkButton->setEnabled(false);
  m_cancelCheck->setEnabled(true);
  m_check->setText(tr("Checking…"));
  return true;
}

}  // namespace gb::gui
