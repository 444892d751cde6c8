#include "importanceview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "appsettings.h"
#include "clijob.h"
#include "filepicker.h"
#include "guiutil.h"
#include "heatmapplot.h"
#include "importance/selection.h"
#include "plotutil.h"
#include "session.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace imp = gb::importance;

namespace {

QString methodTitle(const std::string& m) {
  return ImportanceView::methodName(m);
}

// Ranks (1 = largest) of the non-NaN entries; NaN stays NaN.
std::vector<double> ranksSkippingNan(const std::vector<double>& v) {
  std::vector<double> vals;
  std::vector<size_t> idx;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isnan(v[i])) {
      vals.push_back(v[i]);
      idx.push_back(i);
    }
  }
  std::vector<double> out(v.size(), qQNaN());
  if (vals.empty()) return out;
  auto r = imp::importance_ranks(vals, "column");
  for (size_t k = 0; k < idx.size(); ++k) out[idx[k]] = static_cast<double>(r[k]);
  return out;
}

}  // namespace

QString ImportanceView::methodName(const std::string& m) {
  if (m == imp::methods::kMasking) return tr("Layer masking (loss increase)");
  if (m == imp::methods::kTaylor) return tr("Taylor θ·g (signed)");
  if (m == imp::methods::kTaylorAbs) return tr("Taylor |θ·g|");
  if (m == imp::methods::kTaylorCode) return tr("Taylor |θ|·mean|g_b| (ADEPT's code)");
  if (m == imp::methods::kFisher) return tr("Fisher Σ g²");
  if (m == imp::methods::kUpdateMagnitude) return tr("Update magnitude ‖ΔW‖");
  if (m == imp::methods::kEffectiveRank) return tr("Effective rank of ΔW_up");
  return qs(m);
}

ImportanceView::ImportanceView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
  buildUi();
  m_job = new CliJob(this);
  connect(m_job, &CliJob::stderrLine, this, [this](const QString& line) {
    static const QRegularExpression re(
        u"^\\[([^\\]]+)\\]\\s+([0-9.]+)%(?:\\s+ETA\\s+([0-9.]+)\\s*s)?"_s);
    const auto m = re.match(line);
    if (m.hasMatch()) {
      m_progress->setRange(0, 1000);
      m_progress->setValue(static_cast<int>(m.captured(2).toDouble() * 10));
      m_probeStatus->setText(
          m.captured(3).isEmpty()
              ? m.captured(1)
              : tr("%1 · ETA %2").arg(m.captured(1), formatDuration(m.captured(3).toDouble())));
    }
  });
  connect(m_job, &CliJob::failed, this, [this](const QString& msg) {
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->setVisible(false);
    setMessage(msg);
    emit probeFinished(false, msg);
  });
  connect(m_job, &CliJob::finished, this, [this](int code, bool crashed) {
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->setVisible(false);
    if (m_job->wasCancelled()) {
      setMessage(tr("Probe cancelled."));
      m_probeStatus->setText(tr("cancelled"));
      emit probeFinished(false, tr("Probe cancelled."));
      return;
    }
    if (code != 0 || crashed) {
      const QString msg = tr("The probe failed: %1").arg(m_job->errorSummary());
      setMessage(msg);
      m_probeStatus->setText(tr("failed"));
      emit probeFinished(false, msg);
      return;
    }
    qint64 id = -1;
    const QList<QByteArray> lines = m_job->standardOutput().split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
      const QJsonDocument doc = QJsonDocument::fromJson(*it);
      if (doc.isObject()) {
        id = static_cast<qint64>(doc.object().value(u"probe_id"_s).toDouble(-1));
        break;
      }
    }
    m_probeStatus->setText(tr("done"));
    m_selectAfterRefresh = id;
    // Which list it joins: an effective-rank probe goes to its own tab and combo.
    m_selectAfterRefreshRank = m_jobMethod == qs(imp::methods::kEffectiveRank);
    refreshProbes();
    emit probeFinished(true, tr("Probe %1 recorded.").arg(id));
  });
  StoreService* store = m_session->store();
  connect(store, &StoreService::probesReady, this, &ImportanceView::onProbesReady);
  connect(store, &StoreService::probeLoaded, this, &ImportanceView::onProbeLoaded);
  connect(store, &StoreService::opened, this, [this](const QString&, const QString& error) {
    if (!error.isEmpty()) return;
    // Another store: its probe ids name other probes.
    m_loaded.clear();
    m_loadedCreated.clear();
    m_selectAfterRefresh = -1;
    cancelPendingTopN();
    m_shown = m_rankShown = m_domainShown = -1;
    refreshProbes();
  });
  connect(m_session, &Session::modelChanged, this, &ImportanceView::onModelChanged);
  connect(m_session, &Session::selectedLayersChanged, this,
          [this](const QVector<int>& layers, const QString& source) {
            // A selection made while a "Top-N by update" waits for its probe wins over it.
            cancelPendingTopN();
            if (source != u"heatmap"_s) m_heatmap->setSelectedRows(layers);
            m_selectedLabel->setText(layers.isEmpty()
                                         ? tr("Selected layers: none")
                                         : tr("Selected layers: %1").arg(layersText(layers)));
          });
}

ImportanceView::~ImportanceView() = default;

void ImportanceView::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);

  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("Probe:")));
  m_probeCombo = new QComboBox;
  m_probeCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_probeCombo->setMinimumContentsLength(20);
  m_probeCombo->setToolTip(tr("Importance probes recorded in this workspace's store"));
  row1->addWidget(m_probeCombo, 1);
  m_onlyModel = new QCheckBox(tr("Only this model"));
  m_onlyModel->setChecked(true);
  m_onlyModel->setToolTip(tr("List only the probes of the model open in the Model view"));
  row1->addWidget(m_onlyModel);
  m_newToggle = new QToolButton;
  m_newToggle->setText(tr("New probe…"));
  m_newToggle->setCheckable(true);
  m_newToggle->setToolTip(tr("Run a new importance probe on the current model"));
  row1->addWidget(m_newToggle);
  top->addLayout(row1);

  m_newBox = new QGroupBox(tr("New probe"));
  auto* form = new QFormLayout(m_newBox);
  m_method = new QComboBox;
  // The first unit method is the default unit probe: taylor-code separates the units (the
  // signed θ·∂L/∂θ of a matrix is the loss's derivative under scaling it, so q and k, v and
  // o, up and down come out identical) and is what ADEPT's stage 2 uses by default.
  const std::pair<const char*, QString> methods[] = {
      {imp::methods::kMasking, tr("Layer masking: loss increase when a layer is bypassed")},
      {imp::methods::kTaylorCode,
       tr("Taylor, ADEPT's code: mean of |θ| times the mean over probe batches of |∂L_b/∂θ| per "
          "unit; the default of ADEPT's stage 2")},
      {imp::methods::kTaylor,
       tr("Taylor: mean θ·∂L/∂θ per unit (signed, as ADEPT's text; q and k, v and o, up and "
          "down come out identical)")},
      {imp::methods::kTaylorAbs, tr("Taylor, absolute: mean |θ·∂L/∂θ| per unit")},
      {imp::methods::kFisher, tr("Fisher: sum of squared log-likelihood gradients")},
      {imp::methods::kUpdateMagnitude,
       tr("Update magnitude ‖W_T − W_0‖ after a short fine-tuning run (Grow §4.2)")},
      {imp::methods::kEffectiveRank,
       tr("Effective rank of ΔW_up per layer and training stage (Grow §4.4)")}};
  for (const auto& [name, tip] : methods) {
    m_method->addItem(methodName(name), qs(name));
    m_method->setItemData(m_method->count() - 1, tip, Qt::ToolTipRole);
  }
  form->addRow(tr("Method:"), m_method);
  auto fileRow = [this](QLineEdit*& edit, const QString& placeholder) {
    auto* w = new QWidget;
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit;
    edit->setPlaceholderText(placeholder);
    auto* browse = new QToolButton;
    browse->setText(tr("File…"));
    browse->setToolTip(tr("Choose a file (files without an extension are shown too)"));
    auto* folder = new QToolButton;
    folder->setText(tr("Folder…"));
    folder->setToolTip(tr("Choose a folder (e.g. a folder of fortune files)"));
    QLineEdit* target = edit;
    connect(browse, &QToolButton::clicked, this, [this, target] {
      const QString f = pickPath(this, PickKind::File, u"data"_s, tr("Probe data"), target->text(),
                                 tr("Text or JSONL (*.txt *.jsonl *.json)"));
      if (!f.isEmpty()) target->setText(f);
    });
    connect(folder, &QToolButton::clicked, this, [this, target] {
      const QString f =
          pickPath(this, PickKind::Folder, u"data"_s, tr("Probe data"), target->text());
      if (!f.isEmpty()) target->setText(f);
    });
    h->addWidget(edit, 1);
    h->addWidget(browse);
    h->addWidget(folder);
    return w;
  };
  form->addRow(tr("General data:"),
               fileRow(m_data, tr("original-domain text, JSONL or multiple-choice JSONL")));
  form->addRow(tr("Domain data:"),
               fileRow(m_domainData, tr("optional: new-domain data for calibrated scores")));
  m_data->setText(AppSettings().lastDataFile());
  m_tokens = new QSpinBox;
  m_tokens->setRange(0, 100'000'000);
  m_tokens->setSingleStep(1024);
  m_tokens->setValue(8192);
  m_tokens->setSpecialValueText(tr("all"));
  m_tokens->setToolTip(tr("Token budget of the probe set (0 = all of it)"));
  form->addRow(tr("Tokens:"), m_tokens);
  auto* runRow = new QHBoxLayout;
  m_run = new QPushButton(tr("Run probe"));
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setEnabled(false);
  m_progress = new QProgressBar;
  m_progress->setVisible(false);
  m_probeStatus = new QLabel;
  runRow->addWidget(m_run);
  runRow->addWidget(m_cancel);
  runRow->addWidget(m_progress, 1);
  runRow->addWidget(m_probeStatus);
  form->addRow(runRow);
  m_newBox->setVisible(false);
  top->addWidget(m_newBox);
  connect(m_newToggle, &QToolButton::toggled, m_newBox, &QWidget::setVisible);
  connect(m_run, &QPushButton::clicked, this, [this] {
    runProbe(m_method->currentData().toString(), m_data->text(), m_domainData->text(),
             m_tokens->value());
  });
  connect(m_cancel, &QPushButton::clicked, this, &ImportanceView::cancelProbe);

  auto* row2 = new QHBoxLayout;
  row2->addWidget(new QLabel(tr("Show:")));
  m_mode = new QComboBox;
  m_mode->addItem(tr("Raw values"));
  m_mode->addItem(tr("Absolute values"));
  m_mode->addItem(tr("Calibrated (domain rank − general rank)"));
  m_mode->setItemData(2,
                      tr("ADEPT App. R: negative = more important on the domain set than on "
                         "the general set"),
                      Qt::ToolTipRole);
  m_mode->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_mode->setMinimumContentsLength(14);
  row2->addWidget(m_mode);
  row2->addWidget(new QLabel(tr("Cells:")));
  m_scale = new QComboBox;
  m_scale->addItem(tr("Values"));
  m_scale->addItem(tr("Log scale"));
  m_scale->addItem(tr("Normalised per unit"));
  m_scale->addItem(tr("Rank per unit"));
  m_scale->setItemData(0, tr("The unit scores on one colour scale"), Qt::ToolTipRole);
  m_scale->setItemData(1,
                       tr("log₁₀ of each score's magnitude: a few large norms no longer hide "
                          "the rest (zeros are left blank)"),
                       Qt::ToolTipRole);
  m_scale->setItemData(2,
                       tr("Min–max scale every unit column to [0, 1] so units with different "
                          "magnitudes can be compared"),
                       Qt::ToolTipRole);
  m_scale->setItemData(3, tr("Each layer's rank within its unit column (1 = most important)"),
                       Qt::ToolTipRole);
  m_scale->setToolTip(tr("How the cells are coloured; the bars always show the layer score"));
  row2->addWidget(m_scale);
  row2->addWidget(new QLabel(tr("Domain probe:")));
  m_domainCombo = new QComboBox;
  m_domainCombo->setToolTip(tr("The probe on the new-domain data, for calibrated scores"));
  m_domainCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_domainCombo->setMinimumContentsLength(10);
  row2->addWidget(m_domainCombo, 1);
  auto* exportButton = new QPushButton(tr("Export plot…"));
  exportButton->setToolTip(tr("Save the heatmap shown as PNG, SVG or PDF"));
  row2->addWidget(exportButton);
  top->addLayout(row2);
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Export plot"), u"importance.png"_s,
                                                   plotFileFilter());
    if (f.isEmpty()) return;
    QString error;
    HeatmapPlot* plot = m_tabs->currentIndex() == 0 ? m_heatmap : m_rankMap;
    if (exportPlot(plot, f, &error))
      setMessage(tr("Wrote %1.").arg(f));
    else
      setMessage(error);
  });

  m_tabs = new QTabWidget;
  auto* heatPage = new QWidget;
  auto* hv = new QVBoxLayout(heatPage);
  hv->setContentsMargins(0, 0, 0, 0);
  m_heatmap = new HeatmapPlot;
  m_heatmap->setAxisLabels(tr("Layer"), tr("Unit"));
  m_heatmap->setMinimumHeight(260);
  m_heatmap->setToolTip(QString());
  hv->addWidget(m_heatmap, 1);
  m_explain = new QLabel;
  m_explain->setWordWrap(true);
  m_explain->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hv->addWidget(m_explain);
  m_info = new QLabel;
  m_info->setWordWrap(true);
  m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hv->addWidget(m_info);
  m_tabs->addTab(heatPage, tr("Layers × units"));

  auto* rankPage = new QWidget;
  auto* rv = new QVBoxLayout(rankPage);
  rv->setContentsMargins(0, 0, 0, 0);
  auto* rrow = new QHBoxLayout;
  rrow->addWidget(new QLabel(tr("Effective-rank probe:")));
  m_rankCombo = new QComboBox;
  rrow->addWidget(m_rankCombo, 1);
  rv->addLayout(rrow);
  m_rankMap = new HeatmapPlot;
  m_rankMap->setAxisLabels(tr("Layer"), tr("Training stage"));
  m_rankMap->setSelectionEnabled(false);
  m_rankMap->setMinimumHeight(240);
  rv->addWidget(m_rankMap, 1);
  m_rankInfo = new QLabel;
  m_rankInfo->setWordWrap(true);
  rv->addWidget(m_rankInfo);
  m_tabs->addTab(rankPage, tr("Effective rank"));
  top->addWidget(m_tabs, 1);

  auto* sel = new QGroupBox(tr("Select layers"));
  auto* sl = new QHBoxLayout(sel);
  auto spin = [](int lo, int hi, int v, const QString& prefix, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(v);
    s->setPrefix(prefix);
    s->setToolTip(tip);
    return s;
  };
  auto* least = new QPushButton(tr("Least important"));
  least->setToolTip(
      tr("The k layers with the lowest general importance (ADEPT: expand "
         "the layers least important for general competence)"));
  m_k = spin(1, 999, 2, tr("k = "), tr("Number of layers"));
  auto* top2 = new QPushButton(tr("Top-N by update"));
  top2->setToolTip(
      tr("The N layers with the largest weight-update magnitude after a short "
         "fine-tuning run (the Grow paper's layer choice); needs an "
         "update-magnitude probe"));
  m_topN = spin(1, 999, 2, tr("N = "), tr("Number of layers"));
  auto* uni = new QPushButton(tr("Uniform"));
  uni->setToolTip(tr("One layer after every L/P layers (LLaMA-Pro's positions)"));
  m_uniform = spin(1, 999, 2, tr("P = "), tr("Number of positions"));
  auto* lfp = new QPushButton(tr("Above L_fp"));
  lfp->setToolTip(tr("Every layer above the lowest L_fp (SCALE's collaboration layers)"));
  m_lfp = spin(0, 999, 1, tr("L_fp = "), tr("Lowest layers left out"));
  auto* clear = new QPushButton(tr("Clear"));
  for (QWidget* w : std::initializer_list<QWidget*>{least, m_k, top2, m_topN, uni, m_uniform, lfp,
                                                    m_lfp, clear}) {
    sl->addWidget(w);
  }
  sl->addStretch(1);
  top->addWidget(sel);
  m_ranksBy = new QLabel;
  m_ranksBy->setWordWrap(true);
  top->addWidget(m_ranksBy);
  m_selectedLabel = new QLabel(tr("Selected layers: none"));
  m_selectedLabel->setToolTip(
      tr("Click or drag over layers in the heatmap or the bars; Ctrl "
         "adds or removes layers"));
  top->addWidget(m_selectedLabel);

  connect(least, &QPushButton::clicked, this, [this] { selectLeastImportant(m_k->value()); });
  connect(top2, &QPushButton::clicked, this, [this] { selectUpdateMagnitude(m_topN->value()); });
  connect(uni, &QPushButton::clicked, this, [this] { selectUniform(m_uniform->value()); });
  connect(lfp, &QPushButton::clicked, this, [this] { selectAboveLfp(m_lfp->value()); });
  connect(clear, &QPushButton::clicked, this, [this] {
    cancelPendingTopN();
    m_session->setSelectedLayers({}, u"policy"_s);
  });
  connect(m_heatmap, &HeatmapPlot::rowSelectionChanged, this, &ImportanceView::onLayersFromPlot);
  connect(m_probeCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i < 0) return;
    const qint64 id = m_probeCombo->itemData(i).toLongLong();
    if (id > 0) showProbe(id);
  });
  connect(m_rankCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i < 0) return;
    if (m_selectAfterRefreshRank) m_selectAfterRefresh = -1;  // the user's choice wins
    const qint64 id = m_rankCombo->itemData(i).toLongLong();
    m_rankShown = id;
    if (m_loaded.contains(id))
      redrawRank();
    else if (id > 0)
      m_session->store()->requestProbe(id);
  });
  connect(m_domainCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i < 0) return;
    const qint64 id = m_domainCombo->itemData(i).toLongLong();
    m_domainShown = id;
    if (id > 0 && !m_loaded.contains(id)) m_session->store()->requestProbe(id);
    redraw();
  });
  connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(m_scale, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(m_onlyModel, &QCheckBox::toggled, this, [this] { refreshProbes(); });
}

void ImportanceView::setMessage(const QString& text) {
  m_message = text;
  emit message(text);
}

void ImportanceView::onModelChanged(const ModelRef&) {
  cancelPendingTopN();        // the pending probe ranks the layers of the model before
  m_selectAfterRefresh = -1;  // a probe recorded for the model before is not to be shown
  m_shown = -1;
  m_heatmap->clearMatrix(tr("No probe shown"));
  refreshProbes();
}

void ImportanceView::refreshProbes() {
  if (!m_session->store()->isOpen()) return;
  const ModelRef& m = m_session->model();
  QStringList keys;
  if (m_onlyModel->isChecked() && m.valid()) keys = m.keys;
  m_session->store()->requestProbes(keys);
}

void ImportanceView::onProbesReady(const QVector<ProbeRow>& probes) {
  m_probes = probes;
  // A probe deleted and its id given to a new one: what was loaded under that id is stale.
  for (const ProbeRow& p : probes) {
    const auto c = m_loadedCreated.constFind(p.info.id);
    if (c != m_loadedCreated.constEnd() && *c != p.info.created) {
      m_loaded.remove(p.info.id);
      m_loadedCreated.remove(p.info.id);
    }
  }
  // A newly recorded probe is shown once a list that has it arrives (an earlier refresh may
  // answer first); until then, and for the other kind of probe, the shown ones stay.
  qint64 fresh = -1;
  bool freshRank = false;
  for (const ProbeRow& p : probes) {
    if (p.info.id != m_selectAfterRefresh) continue;
    fresh = p.info.id;
    freshRank = p.info.method == imp::methods::kEffectiveRank;
    m_selectAfterRefresh = -1;
  }
  const qint64 keep = fresh > 0 && !freshRank ? fresh : m_shown;
  const qint64 keepRank = fresh > 0 && freshRank ? fresh : m_rankShown;
  QSignalBlocker b1(m_probeCombo), b2(m_rankCombo);
  m_probeCombo->clear();
  m_rankCombo->clear();
  int select = -1, selectRank = -1;
  for (const ProbeRow& p : probes) {
    const QString when = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(p.info.created * 1000))
                             .toString(u"yyyy-MM-dd HH:mm"_s);
    QString text = tr("#%1 %2 · %3 · %4")
                       .arg(p.info.id)
                       .arg(methodName(p.info.method), qs(p.info.probe_set).left(60), when);
    if (!m_onlyModel->isChecked()) text += u" · "_s + QFileInfo(p.modelKey).fileName();
    if (p.info.method == imp::methods::kEffectiveRank) {
      m_rankCombo->addItem(text, QVariant::fromValue<qlonglong>(p.info.id));
      // Keep the rank probe shown (the first one when it is gone).
      if (p.info.id == keepRank || selectRank < 0) selectRank = m_rankCombo->count() - 1;
      continue;
    }
    m_probeCombo->addItem(text, QVariant::fromValue<qlonglong>(p.info.id));
    m_probeCombo->setItemData(m_probeCombo->count() - 1,
                              tr("Model: %1\nProbe set: %2").arg(p.modelKey, qs(p.info.probe_set)),
                              Qt::ToolTipRole);
    if (p.info.id == keep) select = m_probeCombo->count() - 1;
  }
  if (fresh > 0 && freshRank) m_tabs->setCurrentIndex(1);  // to its tab
  if (select < 0 && m_probeCombo->count() > 0) {
    // Prefer a unit probe (it fills the heatmap), newest first.
    select = 0;
    for (int i = 0; i < m_probeCombo->count(); ++i) {
      const qint64 id = m_probeCombo->itemData(i).toLongLong();
      for (const auto& p : probes) {
        if (p.info.id == id && imp::is_unit_method(p.info.method)) {
          select = i;
          i = m_probeCombo->count();
          break;
        }
      }
    }
  }
  m_probeCombo->setCurrentIndex(select);
  m_rankCombo->setCurrentIndex(selectRank);
  if (select >= 0) {
    displayProbe(m_probeCombo->itemData(select).toLongLong());
  } else {
    m_shown = -1;
    m_heatmap->clearMatrix(m_session->model().valid()
                               ? tr("No probe for this model yet: run one with “New probe…”")
                               : tr("No probes in this workspace"));
    m_info->clear();
  }
  if (selectRank >= 0) {
    m_rankShown = m_rankCombo->itemData(selectRank).toLongLong();
    if (m_loaded.contains(m_rankShown))
      redrawRank();
    else
      m_session->store()->requestProbe(m_rankShown);
  } else {
    m_rankShown = -1;
    m_rankMap->clearMatrix(
        tr("No effective-rank probe: run one with method "
           "“effective-rank”"));
    m_rankInfo->clear();
  }
  updateDomainCombo();
}

void ImportanceView::updateDomainCombo() {
  QSignalBlocker b(m_domainCombo);
  m_domainCombo->clear();
  m_domainCombo->addItem(tr("(none)"), QVariant::fromValue<qlonglong>(-1));
  std::string method;
  for (const auto& p : m_probes) {
    if (p.info.id == m_shown) method = p.info.method;
  }
  int keep = 0;
  for (const auto& p : m_probes) {
    if (p.info.id == m_shown || p.info.method != method) continue;
    m_domainCombo->addItem(tr("#%1 %2").arg(p.info.id).arg(qs(p.info.probe_set).left(50)),
                           QVariant::fromValue<qlonglong>(p.info.id));
    if (p.info.id == m_domainShown) keep = m_domainCombo->count() - 1;
  }
  m_domainCombo->setCurrentIndex(keep);
  m_domainShown = m_domainCombo->currentData().toLongLong();
}

qint64 ImportanceView::currentProbeId() const {
  return m_shown;
}

qint64 ImportanceView::latestProbe(const QString& method) const {
  qint64 id = -1;
  for (const auto& p : m_probes) {
    if (qs(p.info.method) == method) id = std::max<qint64>(id, p.info.id);
  }
  return id;
}

void ImportanceView::showProbe(qint64 probeId) {
  // A probe chosen now wins over the one a finished probe asked to show once the list
  // refreshes (that refresh may land later); a new rank probe still goes to its tab.
  if (!m_selectAfterRefreshRank) m_selectAfterRefresh = -1;
  displayProbe(probeId);
}

void ImportanceView::displayProbe(qint64 probeId) {
  m_shown = probeId;
  for (int i = 0; i < m_probeCombo->count(); ++i) {
    if (m_probeCombo->itemData(i).toLongLong() == probeId && m_probeCombo->currentIndex() != i) {
      QSignalBlocker b(m_probeCombo);
      m_probeCombo->setCurrentIndex(i);
    }
  }
  updateDomainCombo();
  if (m_loaded.contains(probeId)) {
    redraw();
    emit probeShown(probeId);
  } else {
    m_session->store()->requestProbe(probeId);
  }
}

void ImportanceView::onProbeLoaded(qint64 id, const imp::ProbeResult& r, const QString& error) {
  if (!error.isEmpty()) {
    setMessage(tr("Could not read probe %1: %2").arg(id).arg(error));
    if (id == m_shown) m_heatmap->clearMatrix(tr("Could not read this probe"));
    return;
  }
  m_loaded.insert(id, r);
  for (const ProbeRow& p : m_probes) {
    if (p.info.id == id) m_loadedCreated.insert(id, p.info.created);
  }
  if (id == m_shown || id == m_domainShown) {
    redraw();
    if (id == m_shown) emit probeShown(id);
  }
  if (id == m_rankShown) redrawRank();
  if (id == m_pendingUpdateProbe && m_pendingTopN > 0) {
    const int n = m_pendingTopN;
    m_pendingTopN = -1;
    m_pendingUpdateProbe = -1;
    selectUpdateMagnitude(n);
  }
}

std::vector<std::vector<double>> ImportanceView::displayMatrix(const imp::ProbeResult& general,
                                                               const imp::ProbeResult* domain,
                                                               ValueMode mode, bool normalise,
                                                               QStringList* columns) {
  return displayMatrix(general, domain, mode, normalise ? CellScale::PerColumn : CellScale::Linear,
                       columns);
}

std::vector<std::vector<double>> ImportanceView::displayMatrix(const imp::ProbeResult& general,
                                                               const imp::ProbeResult* domain,
                                                               ValueMode mode, CellScale scale,
                                                               QStringList* columns) {
  std::vector<std::vector<double>> m;
  QStringList cols;
  const bool units = !general.units.empty() && !general.unit_names.empty();
  if (units) {
    for (const auto& n : general.unit_names) cols << qs(n);
    m = general.units;
  } else {
    cols << tr("layer");
    for (double v : general.layers) m.push_back({v});
  }
  const size_t L = m.size();
  const size_t U = static_cast<size_t>(cols.size());
  if (mode == ValueMode::Absolute) {
    for (auto& row : m) {
      for (auto& v : row) v = std::fabs(v);
    }
  } else if (mode == ValueMode::Calibrated) {
    std::vector<std::vector<double>> d;
    if (domain) {
      if (units && !domain->units.empty())
        d = domain->units;
      else if (!units)
        for (double v : domain->layers) d.push_back({v});
    }
    if (d.size() != L) return {};
    for (size_t u = 0; u < U; ++u) {
      std::vector<double> g(L), dd(L);
      for (size_t l = 0; l < L; ++l) {
        g[l] = u < m[l].size() ? m[l][u] : qQNaN();
        dd[l] = u < d[l].size() ? d[l][u] : qQNaN();
        if (std::isnan(g[l]) || std::isnan(dd[l])) g[l] = dd[l] = qQNaN();
      }
      const auto rg = ranksSkippingNan(g);
      const auto rd = ranksSkippingNan(dd);
      for (size_t l = 0; l < L; ++l) {
        if (u < m[l].size()) m[l][u] = rd[l] - rg[l];
      }
    }
  }
  if (scale == CellScale::Log) {
    // log10 of the magnitude; zero and missing cells stay blank.
    for (auto& row : m) {
      for (auto& v : row) v = std::isfinite(v) && v != 0 ? std::log10(std::fabs(v)) : qQNaN();
    }
  } else if (scale == CellScale::Rank) {
    for (size_t u = 0; u < U; ++u) {
      std::vector<double> col(L);
      for (size_t l = 0; l < L; ++l) col[l] = u < m[l].size() ? m[l][u] : qQNaN();
      const auto r = ranksSkippingNan(col);
      for (size_t l = 0; l < L; ++l) {
        if (u < m[l].size()) m[l][u] = r[l];
      }
    }
  } else if (scale == CellScale::PerColumn) {
    for (size_t u = 0; u < U; ++u) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (size_t l = 0; l < L; ++l) {
        if (u < m[l].size() && std::isfinite(m[l][u])) {
          lo = std::min(lo, m[l][u]);
          hi = std::max(hi, m[l][u]);
        }
      }
      for (size_t l = 0; l < L; ++l) {
        if (u >= m[l].size() || !std::isfinite(m[l][u])) continue;
        m[l][u] = hi > lo ? (m[l][u] - lo) / (hi - lo) : 0.5;
      }
    }
  }
  if (columns) *columns = cols;
  return m;
}

QString ImportanceView::layerScoreText() const {
  if (!m_loaded.contains(m_shown)) return {};
  const std::string& m = m_loaded[m_shown].method;
  const auto mode = static_cast<ValueMode>(m_mode->currentIndex());
  if (mode == ValueMode::Calibrated) return tr("domain rank − general rank of the layer score");
  const bool abs = mode == ValueMode::Absolute;
  if (m == imp::methods::kMasking) {
    return abs ? tr("|loss increase| when the layer is bypassed")
               : tr("loss increase when the layer is bypassed");
  }
  if (m == imp::methods::kTaylor) {
    return abs ? tr("|Σ θ·g| over the layer's parameters")
               : tr("Σ θ·g over the layer's parameters");
  }
  if (m == imp::methods::kTaylorAbs) return tr("Σ |θ·g| over the layer's parameters");
  if (m == imp::methods::kTaylorCode) {
    return tr("Σ |θ|·mean|g_b| over the layer's parameters");
  }
  if (m == imp::methods::kFisher) return tr("Σ g² (Fisher) over the layer's parameters");
  if (m == imp::methods::kUpdateMagnitude) return tr("‖W_T − W_0‖ of the layer");
  return methodName(m);
}

QString ImportanceView::layerScoreSymbol() const {
  if (!m_loaded.contains(m_shown)) return {};
  const std::string& m = m_loaded[m_shown].method;
  const auto mode = static_cast<ValueMode>(m_mode->currentIndex());
  if (mode == ValueMode::Calibrated) return tr("rank difference");
  const bool abs = mode == ValueMode::Absolute;
  if (m == imp::methods::kMasking) return abs ? tr("|Δ loss|") : tr("Δ loss");
  if (m == imp::methods::kTaylor) return abs ? tr("|Σ θ·g|") : tr("Σ θ·g");
  if (m == imp::methods::kTaylorAbs) return tr("Σ |θ·g|");
  if (m == imp::methods::kTaylorCode) return tr("Σ |θ|·|g_b|");
  if (m == imp::methods::kFisher) return tr("Σ g²");
  if (m == imp::methods::kUpdateMagnitude) return tr("‖ΔW‖");
  return methodName(m);
}

QString ImportanceView::unitScoreText() const {
  if (!m_loaded.contains(m_shown)) return {};
  const imp::ProbeResult& g = m_loaded[m_shown];
  if (g.units.empty()) return layerScoreText();
  const auto mode = static_cast<ValueMode>(m_mode->currentIndex());
  QString unit;
  if (mode == ValueMode::Calibrated) {
    unit = tr("domain rank − general rank within the unit column");
  } else if (g.method == imp::methods::kTaylor) {
    unit = mode == ValueMode::Absolute ? tr("|mean θ·g| over the unit's parameters")
                                       : tr("mean θ·g over the unit's parameters");
  } else if (g.method == imp::methods::kTaylorAbs) {
    unit = tr("mean |θ·g| over the unit's parameters");
  } else if (g.method == imp::methods::kTaylorCode) {
    unit = tr("mean |θ|·mean|g_b| over the unit's parameters");
  } else if (g.method == imp::methods::kFisher) {
    unit = tr("Σ g² (Fisher) over the unit's parameters");
  } else {
    unit = methodName(g.method);
  }
  switch (cellScale()) {
    case CellScale::Log:
      return tr("log₁₀ |%1|").arg(unit);
    case CellScale::PerColumn:
      return tr("%1, min–max per unit").arg(unit);
    case CellScale::Rank:
      return tr("rank of %1 in its unit (1 = most important)").arg(unit);
    case CellScale::Linear:
      break;
  }
  return unit;
}

void ImportanceView::redraw() {
  if (!m_loaded.contains(m_shown)) return;
  const imp::ProbeResult& g = m_loaded[m_shown];
  const imp::ProbeResult* d = m_loaded.contains(m_domainShown) ? &m_loaded[m_domainShown] : nullptr;
  const auto mode = static_cast<ValueMode>(m_mode->currentIndex());
  const CellScale scale = cellScale();
  QStringList cols;
  auto m = displayMatrix(g, d, mode, scale, &cols);
  if (m.empty()) {
    m_heatmap->clearMatrix(mode == ValueMode::Calibrated
                               ? tr("Calibrated scores need a domain probe of the same method "
                                    "and model: choose one under “Domain probe”")
                               : tr("This probe has no values"));
    m_explain->clear();
    m_ranksBy->clear();
    return;
  }
  QStringList rows;
  for (size_t l = 0; l < m.size(); ++l) rows << QString::number(l);
  bool negative = false;
  for (const auto& r : m) {
    for (double v : r) negative = negative || v < 0;
  }
  const bool unitCells = !g.units.empty();
  const QString cellLabel = unitCells ? unitScoreText() : layerScoreText();
  const bool diverging =
      scale != CellScale::Rank && scale != CellScale::Log &&
      (mode == ValueMode::Calibrated || (negative && scale != CellScale::PerColumn));
  m_heatmap->setMatrix(rows, cols, m, cellLabel, diverging);
  std::vector<double> bars = g.layers;
  if (mode == ValueMode::Absolute) {
    for (auto& v : bars) v = std::fabs(v);
  } else if (mode == ValueMode::Calibrated) {
    bars.clear();
    if (d && d->layers.size() == g.layers.size()) {
      try {
        bars = imp::calibrated_scores(g.layers, d->layers);
      } catch (const std::exception&) {
        bars.clear();
      }
    }
  }
  m_heatmap->setBars(bars, tr("layer score: %1").arg(layerScoreSymbol()));
  m_heatmap->setSelectedRows(m_session->selectedLayers());
  // The difference between the two scores, said where they are drawn.
  if (unitCells) {
    m_explain->setText(
        tr("<b>Bars</b>: the layer score, %1 (%2) — what “Least important” ranks, lowest "
           "first. <b>Cells</b>: each unit's own score, %3. A bar is not the sum of its "
           "row's cells: cells are per-unit means or sums, and signed values cancel within "
           "a layer.")
            .arg(layerScoreText().toHtmlEscaped(), methodName(g.method).toHtmlEscaped(),
                 cellLabel.toHtmlEscaped()));
  } else {
    m_explain->setText(
        tr("<b>Bars</b> and cells: the layer score, %1 (%2) — what “Least "
           "important” ranks, lowest first.")
            .arg(layerScoreText().toHtmlEscaped(), methodName(g.method).toHtmlEscaped()));
  }
  m_ranksBy->setText(
      bars.empty() ? tr("“Least important” needs the bars: none are drawn.")
                   : tr("“Least important” picks the k lowest bars: %1.").arg(layerScoreText()));
  QString info = tr("%1 · %2 layers").arg(methodTitle(g.method)).arg(g.layers.size());
  for (const auto& p : m_probes) {
    if (p.info.id == m_shown) {
      info +=
          tr(" · probe set: %1 · %2 s").arg(qs(p.info.probe_set)).arg(p.info.duration_s, 0, 'f', 1);
    }
  }
  if (!std::isnan(g.base_loss)) info += tr(" · base loss %1").arg(g.base_loss, 0, 'f', 4);
  m_info->setText(info);
}

void ImportanceView::redrawRank() {
  if (!m_loaded.contains(m_rankShown)) return;
  const imp::ProbeResult& r = m_loaded[m_rankShown];
  if (r.stages.empty()) {
    m_rankMap->clearMatrix(tr("This probe has no stage matrix"));
    return;
  }
  QStringList rows, cols;
  for (size_t l = 0; l < r.stages.size(); ++l) rows << QString::number(l);
  for (const auto& s : r.stage_names) cols << qs(s);
  m_rankMap->setMatrix(rows, cols, r.stages, tr("effective rank of ΔW_up"), false);
  m_rankMap->setBars({}, QString());
  m_rankInfo->setText(
      tr("Effective rank (exp of the entropy of the normalised singular "
         "values) of each layer's up-projection update per training stage; "
         "a low rank means the update concentrates in few directions."));
}

void ImportanceView::onLayersFromPlot(const QVector<int>& rows) {
  cancelPendingTopN();  // also when the rows clicked are the ones already selected
  m_session->setSelectedLayers(rows, u"heatmap"_s);
}

void ImportanceView::cancelPendingTopN() {
  m_pendingTopN = -1;
  m_pendingUpdateProbe = -1;
}

int ImportanceView::numLayers() const {
  const ModelRef& m = m_session->model();
  if (m.config) return static_cast<int>(m.config->num_layers);
  if (m_loaded.contains(m_shown)) return static_cast<int>(m_loaded[m_shown].layers.size());
  return 0;
}

void ImportanceView::applyPolicy(const nlohmann::json& policy,
                                 const imp::ImportanceResults& results) {
  cancelPendingTopN();  // a policy chosen now wins over a pending Top-N
  try {
    const auto layers = imp::select_layers(policy, results);
    QVector<int> v;
    for (auto l : layers) v << static_cast<int>(l);
    m_session->setSelectedLayers(v, u"policy"_s);
    m_heatmap->setSelectedRows(v);
    setMessage(tr("Selected layers %1 (%2).").arg(layersText(v), qs(policy.dump())));
  } catch (const std::exception& e) {
    setMessage(tr("Could not apply the policy: %1").arg(QString::fromUtf8(e.what())));
  }
}

bool ImportanceView::selectLeastImportant(int k) {
  cancelPendingTopN();
  if (!m_loaded.contains(m_shown)) {
    setMessage(tr("Show a masking, Taylor or Fisher probe first."));
    return false;
  }
  const imp::ProbeResult& g = m_loaded[m_shown];
  const std::string method = g.method;
  if (method == imp::methods::kUpdateMagnitude || method == imp::methods::kEffectiveRank) {
    setMessage(tr("“Least important” needs a masking, Taylor or Fisher probe."));
    return false;
  }
  // Rank exactly what the bars show: the layer score of the value mode drawn.
  const std::vector<double> bars = m_heatmap->barValues();
  if (bars.empty()) {
    setMessage(tr("No layer scores are drawn (a calibrated view needs a domain probe)."));
    return false;
  }
  try {
    const auto layers = imp::k_extreme(bars, k, false, "least important");
    QVector<int> v;
    for (auto l : layers) v << static_cast<int>(l);
    m_session->setSelectedLayers(v, u"policy"_s);
    m_heatmap->setSelectedRows(v);
    setMessage(tr("Selected layers %1: the %2 lowest by %3, as drawn.")
                   .arg(layersText(v))
                   .arg(k)
                   .arg(layerScoreText()));
  } catch (const std::exception& e) {
    setMessage(tr("Could not select: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  return true;
}

bool ImportanceView::selectUpdateMagnitude(int n) {
  qint64 id = -1;
  for (const auto& p : m_probes) {
    if (p.info.method == imp::methods::kUpdateMagnitude && p.info.id > id) id = p.info.id;
  }
  if (id < 0) {
    setMessage(
        tr("No update-magnitude probe for this model: run one (New probe…, method "
           "update-magnitude) on the new-domain data."));
    m_newToggle->setChecked(true);
    m_method->setCurrentIndex(m_method->findData(qs(imp::methods::kUpdateMagnitude)));
    return false;
  }
  if (!m_loaded.contains(id)) {
    m_pendingTopN = n;
    m_pendingUpdateProbe = id;
    m_session->store()->requestProbe(id);
    return true;
  }
  imp::ImportanceResults r;
  r.num_layers = static_cast<int64_t>(m_loaded[id].layers.size());
  r.add_general(m_loaded[id]);
  applyPolicy({{"policy", "update-magnitude"}, {"k", n}}, r);
  return true;
}

bool ImportanceView::selectUniform(int count) {
  const int L = numLayers();
  if (L <= 0) {
    setMessage(tr("Open a model first."));
    return false;
  }
  imp::ImportanceResults r;
  r.num_layers = L;
  applyPolicy({{"policy", "uniform"}, {"count", count}}, r);
  return true;
}

bool ImportanceView::selectAboveLfp(int lfp) {
  const int L = numLayers();
  if (L <= 0) {
    setMessage(tr("Open a model first."));
    return false;
  }
  imp::ImportanceResults r;
  r.num_layers = L;
  applyPolicy({{"policy", "above-lfp"}, {"l_fp", lfp}}, r);
  return true;
}

void ImportanceView::setValueMode(ValueMode mode) {
  m_mode->setCurrentIndex(static_cast<int>(mode));
}

void ImportanceView::setColumnNormalisation(bool on) {
  setCellScale(on ? CellScale::PerColumn : CellScale::Linear);
}

void ImportanceView::setCellScale(CellScale scale) {
  m_scale->setCurrentIndex(static_cast<int>(scale));
}

ImportanceView::CellScale ImportanceView::cellScale() const {
  return static_cast<CellScale>(std::max(0, m_scale->currentIndex()));
}

bool ImportanceView::probeRunning() const {
  return m_job->isRunning();
}

bool ImportanceView::runProbe(const QString& method, const QString& dataFile,
                              const QString& domainFile, int tokens) {
  const ModelRef& model = m_session->model();
  if (!model.valid()) {
    setMessage(tr("Open a model in the Model view first."));
    return false;
  }
  if (!model.hasTokenizer) {
    setMessage(tr("The model folder has no tokenizer.json: probes need one."));
    return false;
  }
  if (dataFile.isEmpty() || !QFileInfo::exists(dataFile)) {
    setMessage(tr("Choose the general probe data (a text or JSONL file)."));
    return false;
  }
  if (!m_session->store()->isOpen()) {
    setMessage(tr("Open a workspace first."));
    return false;
  }
  AppSettings().setLastDataFile(dataFile);
  QStringList args = {u"probe"_s,     model.folder,  u"--data"_s,
                      dataFile,       u"--method"_s, method,
                      u"--json"_s,    u"--db"_s,     m_session->databasePath(),
                      u"--progress"_s};
  if (!domainFile.isEmpty()) args << u"--domain-data"_s << domainFile;
  if (tokens > 0) args << u"--tokens"_s << QString::number(tokens);
  if (!m_job->start(args)) return false;
  m_jobMethod = method;
  m_run->setEnabled(false);
  m_cancel->setEnabled(true);
  m_progress->setVisible(true);
  m_progress->setRange(0, 0);
  m_probeStatus->setText(tr("starting…"));
  setMessage(tr("Probing %1 with %2…").arg(model.displayName, method));
  return true;
}

void ImportanceView::cancelProbe() {
  m_job->cancel();
}

}  // namespace gb::gui
