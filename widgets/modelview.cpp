#include "modelview.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "appsettings.h"
#include "architecturemodel.h"
#include "clijob.h"
#include "data/tokenized.h"
#include "experiment/preset.h"
#include "guiutil.h"
#include "model/tokenizer.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

TokenizerInfo loadTokenizer(const QString& folder) {
  TokenizerInfo info;
  info.folder = folder;
  try {
    auto tok = std::make_shared<gb::tok::Tokenizer>(
        gb::tok::Tokenizer::from_file(ss(QDir(folder).filePath(u"tokenizer.json"_s))));
    info.summary = qs(tok->summary());
    info.vocab = tok->vocab_size();
    info.tokenizer = std::move(tok);
  } catch (const std::exception& e) {
    info.error = QString::fromUtf8(e.what());
  }
  return info;
}

}  // namespace

ModelView::ModelView(Session* session, QWidget* parent) : QWidget(parent), m_session(session) {
  m_arch = new ArchitectureModel(this);
  m_config = new ConfigTableModel(this);
  buildUi();
  m_inspect = new CliJob(this);
  m_genJob = new CliJob(this);
  m_tokWatcher = new QFutureWatcher<TokenizerInfo>(this);
  connect(m_tokWatcher, &QFutureWatcher<TokenizerInfo>::finished, this, [this] {
    const TokenizerInfo info = m_tokWatcher->result();
    // A model opened since (one without a tokenizer, or refused) keeps its own state.
    if (info.folder != m_session->model().folder) return;
    m_tokenizer = info.tokenizer;
    if (!info.error.isEmpty()) {
      m_tokSummary->setText(tr("Could not load tokenizer.json: %1").arg(info.error));
    } else {
      m_tokSummary->setText(info.summary);
      const auto& cfg = m_session->model().config;
      if (cfg && info.vocab > cfg->vocab_size) {
        m_tokSummary->setText(info.summary + u"\n"_s +
                              tr("Warning: the tokenizer has %1 tokens but the model's "
                                 "vocabulary has %2.")
                                  .arg(info.vocab)
                                  .arg(cfg->vocab_size));
      }
    }
    m_tokTry->setEnabled(m_tokenizer != nullptr);
  });
  connect(m_inspect, &CliJob::failed, this, [this](const QString& msg) {
    m_cancel->setEnabled(false);
    if (std::exchange(m_inspectAgain, false)) {
      startInspect();  // the job stopped for a newer folder could not start: load that one
      return;
    }
    if (std::exchange(m_inspectAbandoned, false)) return;  // a refused model's error stays
    m_status->setText(msg);
    emit inspectFinished(false);
  });
  connect(m_inspect, &CliJob::finished, this, [this](int code, bool crashed) {
    m_cancel->setEnabled(false);
    if (std::exchange(m_inspectAgain, false)) {
      // Another folder was opened while this one loaded: its architecture is the one to
      // show (this job was stopped for it).
      startInspect();
      return;
    }
    if (std::exchange(m_inspectAbandoned, false)) {
      // Stopped for a model opened since whose config was refused: its error stays shown.
      return;
    }
    if (m_inspect->wasCancelled()) {
      m_status->setText(tr("Loading cancelled."));
      emit inspectFinished(false);
      return;
    }
    if (m_inspect->arguments().value(1) != m_session->model().folder) {
      return;  // describes a model that is no longer open (a safety net: see above)
    }
    // `inspect --json` prints one (pretty-printed) JSON object.
    const QJsonDocument whole = QJsonDocument::fromJson(m_inspect->standardOutput());
    QJsonObject summary = whole.isObject() ? whole.object() : QJsonObject();
    if (code != 0 || crashed || summary.isEmpty()) {
      const QString msg = tr("Could not load the model: %1").arg(m_inspect->errorSummary());
      m_status->setText(msg);
      setMessage(msg);
      emit inspectFinished(false);
      return;
    }
    m_arch->setSummary(summary);
    m_tree->expandToDepth(0);
    m_tree->collapseAll();
    for (int c = 0; c < ArchitectureModel::ColumnCount; ++c) m_tree->resizeColumnToContents(c);
    m_summary->setText(tr("%1 · %2 layers · hidden %3 · MLP %4 · heads %5/%6 · vocabulary %7 "
                          "· %8 parameters")
                           .arg(summary.value(u"model_type"_s).toString())
                           .arg(summary.value(u"num_layers"_s).toInt())
                           .arg(summary.value(u"hidden_size"_s).toInt())
                           .arg(summary.value(u"intermediate_size"_s).toInt())
                           .arg(summary.value(u"num_heads"_s).toInt())
                           .arg(summary.value(u"num_kv_heads"_s).toInt())
                           .arg(summary.value(u"vocab_size"_s).toInt())
                           .arg(formatCount(summary.value(u"parameters"_s).toDouble())));
    m_status->setText(tr("Loaded."));
    emit inspectFinished(true);
  });
  connect(m_genJob, &CliJob::failed, this, [this](const QString& msg) {
    m_generate->setEnabled(true);
    m_genOut->setPlainText(msg);
    emit generateFinished(false);
  });
  connect(m_genJob, &CliJob::finished, this, [this](int code, bool crashed) {
    const QStringList args = m_genJob->arguments();
    const bool helpRun = args.size() >= 2 && args[1] == u"--help"_s;
    if (helpRun) {
      m_generateHelp = QString::fromUtf8(m_genJob->standardOutput()) + u" "_s;
      if (code != 0) m_generateHelp = u"-"_s;
      const QString prompt = m_pendingPrompt;
      m_pendingPrompt.clear();
      generate(prompt);
      return;
    }
    m_generate->setEnabled(true);
    if (code != 0 || crashed) {
      m_genOut->setPlainText(tr("Generation failed: %1").arg(m_genJob->errorSummary()));
      emit generateFinished(false);
      return;
    }
    QString text = QString::fromUtf8(m_genJob->standardOutput()).trimmed();
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
    if (doc.isObject()) {
      const QJsonObject o = doc.object();
      for (const char* k : {"text", "completion", "output", "generated"}) {
        if (o.value(QLatin1String(k)).isString()) {
          text = o.value(QLatin1String(k)).toString();
          break;
        }
      }
    }
    m_genOut->setPlainText(text);
    emit generateFinished(true);
  });
  refreshPresets();
}

ModelView::~ModelView() {
  if (m_tokWatcher->isRunning()) m_tokWatcher->waitForFinished();
}

void ModelView::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  auto* row = new QHBoxLayout;
  m_open = new QPushButton(tr("Open folder…"));
  m_open->setToolTip(
      tr("A Hugging Face model folder (config.json, model.safetensors, "
         "tokenizer.json) or a GrowBench checkpoint"));
  row->addWidget(m_open);
  row->addWidget(new QLabel(tr("Preset:")));
  m_presets = new QComboBox;
  m_presets->setToolTip(
      tr("Built-in base models found on this machine (shipped, or built "
         "by a run's pretrain stage and cached)"));
  m_presets->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_presets->setMinimumContentsLength(18);
  row->addWidget(m_presets, 1);
  m_reload = new QPushButton(tr("Reload"));
  row->addWidget(m_reload);
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setObjectName(QStringLiteral("cancelInspect"));
  m_cancel->setEnabled(false);
  row->addWidget(m_cancel);
  top->addLayout(row);
  m_path = new QLabel(tr("No model open."));
  m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_path->setWordWrap(true);
  top->addWidget(m_path);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  top->addWidget(m_status);

  m_tabs = new QTabWidget;
  auto* archPage = new QWidget;
  auto* av = new QVBoxLayout(archPage);
  av->setContentsMargins(0, 0, 0, 0);
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  av->addWidget(m_summary);
  m_tree = new QTreeView;
  m_tree->setModel(m_arch);
  m_tree->setAlternatingRowColors(true);
  m_tree->setUniformRowHeights(true);
  av->addWidget(m_tree, 1);
  // Units (kind "Linear", shapes) become visible on expanding a layer: fit them then too.
  connect(m_tree, &QTreeView::expanded, this, [this] {
    for (int c = 1; c < ArchitectureModel::ColumnCount; ++c) m_tree->resizeColumnToContents(c);
  });
  m_tabs->addTab(archPage, tr("Architecture"));

  m_configView = new QTableView;
  m_configView->setModel(m_config);
  m_configView->horizontalHeader()->setStretchLastSection(true);
  m_configView->verticalHeader()->setVisible(false);
  m_configView->setAlternatingRowColors(true);
  m_tabs->addTab(m_configView, tr("Config"));

  auto* tokPage = new QWidget;
  auto* tv = new QVBoxLayout(tokPage);
  m_tokSummary = new QLabel(tr("No tokenizer."));
  m_tokSummary->setWordWrap(true);
  m_tokSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tv->addWidget(m_tokSummary);
  m_tokTry = new QLineEdit;
  m_tokTry->setPlaceholderText(tr("Type text to see its tokens"));
  m_tokTry->setEnabled(false);
  tv->addWidget(m_tokTry);
  m_tokOut = new QLabel;
  m_tokOut->setWordWrap(true);
  m_tokOut->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tv->addWidget(m_tokOut);
  tv->addStretch(1);
  m_tabs->addTab(tokPage, tr("Tokenizer"));

  auto* genPage = new QWidget;
  auto* gv = new QVBoxLayout(genPage);
  auto* gform = new QFormLayout;
  m_prompt = new QLineEdit;
  m_prompt->setPlaceholderText(tr("A prompt for a quick sanity check"));
  gform->addRow(tr("Prompt:"), m_prompt);
  m_maxTokens = new QSpinBox;
  m_maxTokens->setRange(1, 4096);
  m_maxTokens->setValue(40);
  gform->addRow(tr("New tokens:"), m_maxTokens);
  gv->addLayout(gform);
  m_generate = new QPushButton(tr("Generate"));
  gv->addWidget(m_generate, 0, Qt::AlignLeft);
  m_genOut = new QPlainTextEdit;
  m_genOut->setReadOnly(true);
  gv->addWidget(m_genOut, 1);
  m_tabs->addTab(genPage, tr("Generate"));
  top->addWidget(m_tabs, 1);

  connect(m_open, &QPushButton::clicked, this, [this] {
    const QString start = AppSettings().lastModelFolder();
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open a model folder"), start.isEmpty() ? QDir::homePath() : start);
    if (!dir.isEmpty()) openFolder(dir);
  });
  connect(m_presets, &QComboBox::activated, this, [this](int i) {
    const QString folder = m_presets->itemData(i).toString();
    if (!folder.isEmpty()) openFolder(folder);
  });
  connect(m_reload, &QPushButton::clicked, this, [this] {
    refreshPresets();
    if (m_session->model().valid()) openFolder(m_session->model().folder);
  });
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    m_inspectAgain = false;
    m_inspect->cancel();
  });
  connect(m_tokTry, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (!m_tokenizer) return;
    try {
      const auto ids = m_tokenizer->encode(ss(text), false);
      QStringList pieces;
      for (int32_t id : ids) pieces << qs(m_tokenizer->id_to_token(id)).toHtmlEscaped();
      QStringList idText;
      for (int32_t id : ids) idText << QString::number(id);
      m_tokOut->setText(tr("%n token(s): %1<br/>ids: %2", nullptr, static_cast<int>(ids.size()))
                            .arg(pieces.join(u" | "_s), idText.join(u" "_s)));
    } catch (const std::exception& e) {
      m_tokOut->setText(QString::fromUtf8(e.what()).toHtmlEscaped());
    }
  });
  connect(m_generate, &QPushButton::clicked, this, [this] { generate(m_prompt->text()); });
  connect(m_prompt, &QLineEdit::returnPressed, this, [this] { generate(m_prompt->text()); });
}

void ModelView::setMessage(const QString& text) {
  m_message = text;
  emit message(text);
}

QStringList ModelView::presetFolders() {
  QStringList dirs;
  try {
    for (const auto& d : gb::experiment::preset_search_dirs()) dirs << qs(d);
  } catch (const std::exception&) {
  }
  try {
    dirs << QDir(qs(gb::data::default_cache_dir())).filePath(u"presets"_s);
  } catch (const std::exception&) {
  }
  QStringList out;
  for (const QString& d : dirs) {
    QDir dir(d);
    if (!dir.exists()) continue;
    for (const QString& sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (sub.startsWith(QLatin1Char('.'))) continue;
      const QString f = dir.filePath(sub);
      if (QFileInfo::exists(QDir(f).filePath(u"config.json"_s)) && !out.contains(f)) out << f;
    }
  }
  return out;
}

void ModelView::refreshPresets() {
  m_presets->clear();
  const QStringList folders = presetFolders();
  m_presets->addItem(folders.isEmpty() ? tr("(no preset built yet)") : tr("(choose a preset)"),
                     QString());
  for (const QString& f : folders) {
    const QString name = QFileInfo(f).fileName();
    // "tiny-llama-<hash>": show the preset name and a short hash.
    const int dash = name.lastIndexOf(QLatin1Char('-'));
    const QString label = dash > 0 && name.size() - dash > 8
                              ? tr("%1 (%2)").arg(name.left(dash), name.mid(dash + 1, 8))
                              : name;
    m_presets->addItem(label, f);
    m_presets->setItemData(m_presets->count() - 1, f, Qt::ToolTipRole);
  }
}

bool ModelView::loading() const {
  return m_inspect->isRunning() || m_tokWatcher->isRunning();
}

QString ModelView::tokenizerSummary() const {
  return m_tokSummary->text();
}

QString ModelView::generatedText() const {
  return m_genOut->toPlainText();
}

bool ModelView::openFolder(const QString& folderIn) {
  const QString folder = QDir::cleanPath(QFileInfo(folderIn).absoluteFilePath());
  QDir dir(folder);
  const QString configPath = dir.filePath(u"config.json"_s);
  if (!QFileInfo(folder).isDir() || !QFileInfo::exists(configPath)) {
    const QString msg = tr("%1 is not a model folder: config.json is missing.").arg(folder);
    m_status->setText(msg);
    setMessage(msg);
    emit modelLoaded(false, msg);
    return false;
  }
  const bool hasSafetensors =
      !dir.entryList({u"*.safetensors"_s, u"*.safetensors.index.json"_s}, QDir::Files).isEmpty();
  if (!hasSafetensors && !dir.entryList({u"*.bin"_s, u"*.pt"_s, u"*.pth"_s}).isEmpty()) {
    const QString msg =
        tr("%1 holds only pickled PyTorch checkpoints (*.bin): GrowBench refuses them because "
           "unpickling can run code. Convert the model to safetensors first.")
            .arg(folder);
    m_status->setText(msg);
    setMessage(msg);
    emit modelLoaded(false, msg);
    return false;
  }
  QFile f(configPath);
  QJsonObject cfgJson;
  if (f.open(QIODevice::ReadOnly)) cfgJson = QJsonDocument::fromJson(f.readAll()).object();
  ModelRef ref;
  ref.folder = folder;
  ref.configJson = cfgJson;
  ref.hasTokenizer = QFileInfo::exists(dir.filePath(u"tokenizer.json"_s));
  ref.keys << folder;
  for (const QString& p : presetFolders()) {
    if (QDir::cleanPath(p) == folder) {
      ref.isPreset = true;
      ref.keys << u"preset:"_s + QFileInfo(folder).fileName();
    }
  }
  const QString canonical = QFileInfo(folder).canonicalFilePath();
  if (!canonical.isEmpty() && canonical != folder) ref.keys << canonical;
  ref.displayName = QFileInfo(folder).fileName();
  QString configError;
  try {
    ref.config = gb::load_config(ss(configPath));
  } catch (const std::exception& e) {
    configError = QString::fromUtf8(e.what());
  }
  m_config->setConfig(cfgJson);
  m_configView->resizeColumnToContents(0);
  m_arch->clear();
  m_summary->clear();
  m_path->setText(displayPath(folder));
  m_path->setToolTip(folder);
  AppSettings().setLastModelFolder(folder);
  m_session->setModel(ref);
  m_tokenizer.reset();  // the previous model's, whatever happens to this one
  m_tokTry->setEnabled(false);
  if (!configError.isEmpty()) {
    m_tokSummary->clear();
    // An inspection still running (or waiting to restart) is for a model no longer open.
    m_inspectAgain = false;
    if (m_inspect->isRunning()) {
      m_inspectAbandoned = true;
      m_inspect->cancel();
    }
    m_cancel->setEnabled(false);
    const QString msg = tr("This config.json is not supported: %1").arg(configError);
    m_status->setText(msg);
    setMessage(msg);
    emit modelLoaded(false, msg);
    return false;
  }
  if (ref.hasTokenizer) {
    m_tokSummary->setText(tr("Loading tokenizer…"));
    m_tokWatcher->setFuture(QtConcurrent::run(loadTokenizer, folder));
  } else {
    m_tokSummary->setText(
        tr("This folder has no tokenizer.json: probes, runs and generation "
           "need one."));
  }
  startInspect();
  emit modelLoaded(true, folder);
  return true;
}

void ModelView::startInspect() {
  m_status->setText(tr("Loading the architecture…"));
  m_cancel->setEnabled(true);
  m_inspectAbandoned = false;
  if (m_inspect->isRunning()) {
    // Still loading an earlier folder: stop it and start this one when it has stopped.
    m_inspectAgain = true;
    m_inspect->cancel();
    return;
  }
  if (!m_inspect->start({u"inspect"_s, m_session->model().folder, u"--json"_s})) {
    m_cancel->setEnabled(false);
  }
}

void ModelView::generate(const QString& prompt) {
  const ModelRef& m = m_session->model();
  if (!m.valid()) {
    m_genOut->setPlainText(tr("Open a model first."));
    emit generateFinished(false);
    return;
  }
  if (!m.hasTokenizer) {
    m_genOut->setPlainText(tr("This model folder has no tokenizer.json."));
    emit generateFinished(false);
    return;
  }
  if (m_genJob->isRunning()) return;
  m_generate->setEnabled(false);
  if (m_generateHelp.isEmpty()) {
    // Learn which options this growbench-cli's generate command takes, once.
    m_pendingPrompt = prompt;
    m_genOut->setPlainText(tr("Generating…"));
    if (!m_genJob->start({u"generate"_s, u"--help"_s})) m_generate->setEnabled(true);
    return;
  }
  if (m_generateHelp == u"-"_s) {
    m_generate->setEnabled(true);
    m_genOut->setPlainText(tr("This growbench-cli has no generate command yet."));
    emit generateFinished(false);
    return;
  }
  QStringList args = {u"generate"_s, m.folder, u"--prompt"_s, prompt};
  for (const char* opt : {"--max-new", "--max-new-tokens", "--max-tokens", "--tokens"}) {
    if (m_generateHelp.contains(QLatin1String(opt) + QLatin1Char(' '))) {
      args << QLatin1String(opt) << QString::number(m_maxTokens->value());
      break;
    }
  }
  m_genOut->setPlainText(tr("Generating…"));
  if (!m_genJob->start(args)) m_generate->setEnabled(true);
}

}  // namespace gb::gui
