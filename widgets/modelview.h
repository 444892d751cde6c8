#pragma once
// ModelView: open a Hugging Face folder (or a GrowBench checkpoint) or pick a built-in
// preset; shows the architecture tree (`growbench-cli inspect --json`, in a worker process),
// the config table, a tokenizer summary with a try-out box, and a quick "generate" box
// (`growbench-cli generate`). config.json and tokenizer.json are parsed off the GUI thread's
// critical path (the tokenizer on a thread pool).

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

#include "session.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QTreeView;

namespace gb::tok {
class Tokenizer;
}

namespace gb::gui {

class ArchitectureModel;
class CliJob;
class ConfigTableModel;

struct TokenizerInfo {
  QString folder;  // the model folder it was loaded for
  QString summary;
  QString error;
  qint64 vocab = 0;
  std::shared_ptr<gb::tok::Tokenizer> tokenizer;
};

class ModelView : public QWidget {
  Q_OBJECT

 public:
  explicit ModelView(Session* session, QWidget* parent = nullptr);
  ~ModelView() override;

  // Opens a model folder; false (with a message) when it is not a model folder.
  bool openFolder(const QString& folder);
  bool loading() const;
  ArchitectureModel* architecture() const { return m_arch; }
  ConfigTableModel* config() const { return m_config; }
  QTreeView* tree() const { return m_tree; }
  QTabWidget* tabs() const { return m_tabs; }
  QString tokenizerSummary() const;
  void generate(const QString& prompt);
  QString generatedText() const;
  QString lastMessage() const { return m_message; }
  // Folders of built-in presets found on this machine (shipped or built and cached).
  static QStringList presetFolders();

 signals:
  void modelLoaded(bool ok, const QString& message);
  void inspectFinished(bool ok);
  void generateFinished(bool ok);
  void message(const QString& text);

 private:
  void buildUi();
  void refreshPresets();
  void startInspect();
  void setMessage(const QString& text);

  Session* m_session;
  QPushButton* m_open = nullptr;
  QComboBox* m_presets = nullptr;
  QPushButton* m_reload = nullptr;
  QPushButton* m_cancel = nullptr;
  QLabel* m_path = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_summary = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTreeView* m_tree = nullptr;
  QTableView* m_configView = nullptr;
  QLabel* m_tokSummary = nullptr;
  QLineEdit* m_tokTry = nullptr;
  QLabel* m_tokOut = nullptr;
  QLineEdit* m_prompt = nullptr;
  QSpinBox* m_maxTokens = nullptr;
  QPushButton* m_generate = nullptr;
  QPlainTextEdit* m_genOut = nullptr;
  ArchitectureModel* m_arch = nullptr;
  ConfigTableModel* m_config = nullptr;
  CliJob* m_inspect = nullptr;
  bool m_inspectAgain = false;      // a newer folder waits for the running inspection to stop
  bool m_inspectAbandoned = false;  // the running inspection was stopped for a refused model
  CliJob* m_genJob = nullptr;
  QFutureWatcher<TokenizerInfo>* m_tokWatcher = nullptr;
  QString m_message;
  QString m_generateHelp;  // `generate --help`, to know the options this CLI takes
  QString m_pendingPrompt;
  std::shared_ptr<gb::tok::Tokenizer> m_tokenizer;
};

}  // namespace gb::gui
