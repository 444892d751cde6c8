#pragma once
// ImportanceView: importance heatmaps of the current model. Choose a probe stored for the
// model (or any probe in the workspace) or run a new one (`growbench-cli probe ... --json
// --db`, with progress and cancel); show raw, absolute or calibrated values (domain rank −
// general rank against a second probe), optionally normalised per column; click or drag
// over layers to select them, or let a selection policy pick them. A second tab shows the
// effective-rank matrix (layers × training stages) of an effective-rank probe.

#include <QHash>
#include <QWidget>

#include <optional>

#include "importance/result.h"
#include "storeservice.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QToolButton;

namespace gb::gui {

class CliJob;
class HeatmapPlot;
class Session;
struct ModelRef;

class ImportanceView : public QWidget {
  Q_OBJECT

 public:
  enum class ValueMode { Raw, Absolute, Calibrated };
  // How the cells are coloured (the bars always show the layer score itself): the values,
  // log10 of their magnitude, min–max per unit column, or the rank within each column.
  enum class CellScale { Linear, Log, PerColumn, Rank };

  explicit ImportanceView(Session* session, QWidget* parent = nullptr);
  ~ImportanceView() override;

  HeatmapPlot* heatmap() const { return m_heatmap; }
  HeatmapPlot* rankMap() const { return m_rankMap; }
  QTabWidget* tabs() const { return m_tabs; }
  // Starts `growbench-cli probe` on the current model (as the Run button does).
  bool runProbe(const QString& method, const QString& dataFile, const QString& domainFile,
                int tokens);
  void cancelProbe();
  bool probeRunning() const;
  // Shows a stored probe (id from the probe combo).
  void showProbe(qint64 probeId);
  qint64 currentProbeId() const;
  // The newest probe of a method in the probe list (-1 when there is none).
  qint64 latestProbe(const QString& method) const;
  void setValueMode(ValueMode mode);
  void setColumnNormalisation(bool on);  // PerColumn on, Linear off
  void setCellScale(CellScale scale);
  CellScale cellScale() const;
  // What the bars show and "least important" ranks (e.g. "Σ |θ·g| over the layer"), and
  // what the cells show; empty when no probe is shown.
  QString layerScoreText() const;
  QString unitScoreText() const;
  QString layerScoreSymbol() const;  // short form for the bar axis ("Σ θ·g")
  // The display name of a probe method ("Taylor |θ·g|"), never its id.
  static QString methodName(const std::string& method);
  // Selection policies; return false with a message when the data is missing.
  bool selectLeastImportant(int k);
  bool selectUpdateMagnitude(int n);
  bool selectUniform(int count);
  bool selectAboveLfp(int lfp);
  QString lastMessage() const { return m_message; }

  // The matrix shown for a probe result (exposed for tests): mode applied, then per-column
  // min–max normalisation.
  static std::vector<std::vector<double>> displayMatrix(const gb::importance::ProbeResult& general,
                                                        const gb::importance::ProbeResult* domain,
                                                        ValueMode mode, bool normalise,
                                                        QStringList* columns);
  static std::vector<std::vector<double>> displayMatrix(const gb::importance::ProbeResult& general,
                                                        const gb::importance::ProbeResult* domain,
                                                        ValueMode mode, CellScale scale,
                                                        QStringList* columns);

 signals:
  void probeFinished(bool ok, const QString& message);
  void probeShown(qint64 probeId);
  void message(const QString& text);

 private:
  void buildUi();
  void onModelChanged(const ModelRef& model);
  void onProbesReady(const QVector<ProbeRow>& probes);
  void onProbeLoaded(qint64 id, const gb::importance::ProbeResult& r, const QString& error);
  void refreshProbes();
  void redraw();
  void redrawRank();
  void onLayersFromPlot(const QVector<int>& rows);
  void cancelPendingTopN();
  void displayProbe(qint64 probeId);  // showProbe without it being the user's choice
  void applyPolicy(const nlohmann::json& policy, const gb::importance::ImportanceResults& r);
  int numLayers() const;
  void setMessage(const QString& text);
  void updateDomainCombo();

  Session* m_session;
  QComboBox* m_probeCombo = nullptr;
  QCheckBox* m_onlyModel = nullptr;
  QToolButton* m_newToggle = nullptr;
  QWidget* m_newBox = nullptr;
  QComboBox* m_method = nullptr;
  QLineEdit* m_data = nullptr;
  QLineEdit* m_domainData = nullptr;
  QSpinBox* m_tokens = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_probeStatus = nullptr;
  QComboBox* m_mode = nullptr;
  QComboBox* m_scale = nullptr;
  QLabel* m_explain = nullptr;
  QLabel* m_ranksBy = nullptr;
  QComboBox* m_domainCombo = nullptr;
  QTabWidget* m_tabs = nullptr;
  HeatmapPlot* m_heatmap = nullptr;
  HeatmapPlot* m_rankMap = nullptr;
  QComboBox* m_rankCombo = nullptr;
  QLabel* m_rankInfo = nullptr;
  QSpinBox* m_k = nullptr;
  QSpinBox* m_topN = nullptr;
  QSpinBox* m_uniform = nullptr;
  QSpinBox* m_lfp = nullptr;
  QLabel* m_selectedLabel = nullptr;
  QLabel* m_info = nullptr;
  CliJob* m_job = nullptr;
  QString m_jobMethod;  // the method of the probe m_job runs

  QVector<ProbeRow> m_probes;
  QHash<qint64, gb::importance::ProbeResult> m_loaded;
  QHash<qint64, double> m_loadedCreated;  // when each loaded probe was recorded
  qint64 m_shown = -1;
  qint64 m_domainShown = -1;
  qint64 m_rankShown = -1;
  qint64 m_selectAfterRefresh = -1;       // a probe just recorded, shown once listed
  bool m_selectAfterRefreshRank = false;  // ... and it is an effective-rank probe
  int m_pendingTopN = -1;
  qint64 m_pendingUpdateProbe = -1;
  QString m_message;
};

}  // namespace gb::gui
