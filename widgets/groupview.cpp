#include "groupview.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <functional>

#include <qcustomplot.h>

#include "groupmodels.h"
#include "guiutil.h"
#include "parallelcoords.h"
#include "plotutil.h"
#include "session.h"
#include "storeservice.h"
#include "util/metrics.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace mk = gb::metrics;

namespace {

const QStringList kDefaultFinals = [] {
  QStringList keys;
  for (const char* k : {mk::kEvalOrigLoss, mk::kEvalNewLoss, mk::kEvalOrigPpl, mk::kEvalNewPpl,
                        mk::kTestOrigLoss, mk::kTestNewLoss, mk::kTestOrigPpl, mk::kTestNewPpl}) {
    keys << QString::fromLatin1(k);
  }
  return keys;
}();

bool isEvalKey(const QString& k) {
  return k.startsWith(QLatin1String(mk::kEvalPrefix)) ||
         k.startsWith(QLatin1String(mk::kTestPrefix));
}

// "quickstart@1718000000" → "quickstart · 2024-06-10 08:13".
QString groupTitle(const QString& group, int runs) {
  static const QRegularExpression re(u"^(.*)@(\\d{9,})$"_s);
  const auto m = re.match(group);
  QString t = group;
  if (m.hasMatch()) {
    const QDateTime when = QDateTime::fromSecsSinceEpoch(m.captured(2).toLongLong());
    t = u"%1 · %2"_s.arg(m.captured(1), when.toString(u"yyyy-MM-dd HH:mm"_s));
  }
  return QCoreApplication::translate("Compare", "%1 (%n run(s))", nullptr, runs).arg(t);
}

void setLogAxis(QCPAxis* axis, bool log) {
  axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (log) {
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  } else {
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
}

void padAxis(QCPAxis* axis) {
  const QCPRange r = axis->range();
  if (axis->scaleType() == QCPAxis::stLogarithmic && r.lower > 0) {
    axis->setRange(r.lower / 1.15, r.upper * 1.15);
  } else {
    const double pad = 0.08 * std::max(r.size(), std::fabs(r.upper) * 1e-3 + 1e-12);
    axis->setRange(r.lower - pad, r.upper + pad);
  }
}

}  // namespace

GroupCompareView::GroupCompareView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
  qRegisterMetaType<gb::gui::GroupData>();
  m_loader = new QFutureWatcher<GroupData>(this);
  m_seriesLoader = new QFutureWatcher<GroupSeries>(this);
  m_reloadTimer.setSingleShot(true);
  m_reloadTimer.setInterval(1000);
  connect(&m_reloadTimer, &QTimer::timeout, this, &GroupCompareView::reload);
  buildUi();
  connect(m_loader, &QFutureWatcher<GroupData>::finished, this, [this] {
    m_loading = false;
    GroupData d = m_loader->result();
    // A late answer: only for the group shown, from the store open now.
    if (d.group == m_group && d.dbPath == m_session->store()->path()) {
      setGroupData(std::make_shared<const GroupData>(std::move(d)));
      // The metrics were changed while it was read: read the traces of the new ones.
      if (m_data && frontMetricsDiffer()) m_reloadPending = true;
    }
    if (m_reloadPending) {
      m_reloadPending = false;
      reload();
    }
  });
  connect(m_seriesLoader, &QFutureWatcher<GroupSeries>::finished, this, [this] {
    GroupSeries s = m_seriesLoader->result();
    const QString key = s.key;
    if (s.group == m_group) m_series.insert(key, std::move(s));
    m_seriesRequested.clear();
    if (key == curveKey() && m_series.contains(key)) {
      replotCurves();
      emit curvesLoaded();
    } else if (m_tabs->currentIndex() == CurvesTab) {
      requestSeries();
    }
  });
  connect(m_session->store(), &StoreService::runsUpdated, this, &GroupCompareView::onSnapshot);
  // A view made after the store was listed starts from the snapshot there is.
  if (!m_session->store()->snapshot().runs.isEmpty()) {
    QTimer::singleShot(0, this, &GroupCompareView::onSnapshot);
  }
  connect(m_session->store(), &StoreService::opened, this, [this] {
    m_group.clear();
    m_fingerprint.clear();
    m_data.reset();
    m_series.clear();
    m_level.reset();
    m_matched.reset();
  });
}

GroupCompareView::~GroupCompareView() {
  m_loader->waitForFinished();
  m_seriesLoader->waitForFinished();
}

void GroupCompareView::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Group:")));
  m_groupCombo = new QComboBox;
  m_groupCombo->setToolTip(
      tr("The runs of one experiment spec (its seeds, sweep points and plans)"));
  m_groupCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_groupCombo->setMinimumContentsLength(20);
  row->addWidget(m_groupCombo);
  row->addWidget(new QLabel(tr("Group by:")));
  m_by = new QComboBox;
  m_by->setToolTip(
      tr("Runs with the same value are aggregated (mean and spread over their seeds); "
         "“configuration” groups runs that differ only in their seed"));
  m_by->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_by->addItem(tr("configuration"), kGroupByConfiguration);
  row->addWidget(m_by);
  m_filter = new QLineEdit;
  m_filter->setPlaceholderText(tr("Filter by name, group or parameter value"));
  m_filter->setClearButtonEnabled(true);
  row->addWidget(m_filter, 1);
  m_columns = new QToolButton;
  m_columns->setText(tr("Columns…"));
  m_columns->setToolTip(tr("Choose the hyper-parameters and figures shown in the table"));
  m_columns->setPopupMode(QToolButton::InstantPopup);
  m_columns->setMenu(new QMenu(m_columns));
  row->addWidget(m_columns);
  auto* clear = new QToolButton;
  clear->setText(tr("Clear brushes"));
  clear->setToolTip(tr("Remove the ranges drawn on the parallel-coordinates axes"));
  row->addWidget(clear);
  top->addLayout(row);
  m_status = new QLabel;
  m_status->setWordWrap(true);
  top->addWidget(m_status);
  m_warning = new QLabel;
  m_warning->setWordWrap(true);
  m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_warning->setStyleSheet(
      u"QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; "
      "padding: 4px; }"_s);
  m_warning->hide();
  top->addWidget(m_warning);

  m_tabs = new QTabWidget;
  // Table.
  auto* tablePage = new QWidget;
  auto* tv = new QVBoxLayout(tablePage);
  tv->setContentsMargins(0, 4, 0, 0);
  auto* trow = new QHBoxLayout;
  trow->addWidget(new QLabel(tr("Rows:")));
  m_rows = new QComboBox;
  m_rows->addItem(tr("runs"));
  m_rows->addItem(tr("groups (mean ± std over complete runs)"));
  trow->addWidget(m_rows);
  trow->addStretch(1);
  tv->addLayout(trow);
  m_tableStack = new QStackedWidget;
  m_runModel = new GroupRunModel(this);
  m_proxy = new GroupRunProxy(this);
  m_proxy->setSourceModel(m_runModel);
  m_runTable = new QTableView;
  m_runTable->setModel(m_proxy);
  m_runTable->setSortingEnabled(true);
  m_runTable->sortByColumn(GroupRunModel::Id, Qt::AscendingOrder);
  m_runTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_runTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_runTable->verticalHeader()->setVisible(false);
  m_runTable->setWordWrap(false);
  m_runTable->setTextElideMode(Qt::ElideMiddle);
  m_runTable->horizontalHeader()->setSectionsMovable(true);
  m_runTable->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  m_runTable->setAlternatingRowColors(true);
  // Column widths from a sample of rows: large groups open fast.
  m_runTable->horizontalHeader()->setResizeContentsPrecision(40);
  m_tableStack->addWidget(m_runTable);
  m_stats = new GroupStatsModel(this);
  auto* statsProxy = new QSortFilterProxyModel(this);
  statsProxy->setSourceModel(m_stats);
  statsProxy->setSortRole(GroupStatsModel::SortRole);
  m_statsTable = new QTableView;
  m_statsTable->setModel(statsProxy);
  m_statsTable->setSortingEnabled(true);
  m_statsTable->verticalHeader()->setVisible(false);
  m_statsTable->setWordWrap(false);
  m_statsTable->setAlternatingRowColors(true);
  m_tableStack->addWidget(m_statsTable);
  tv->addWidget(m_tableStack, 1);
  m_tabs->addTab(tablePage, tr("Table"));

  // Curves.
  auto* curvesPage = new QWidget;
  auto* cv = new QVBoxLayout(curvesPage);
  cv->setContentsMargins(0, 4, 0, 0);
  auto* crow = new QHBoxLayout;
  crow->addWidget(new QLabel(tr("Metric:")));
  m_curveKey = new QComboBox;
  m_curveKey->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  crow->addWidget(m_curveKey);
  crow->addWidget(new QLabel(tr("Band:")));
  m_band = new QComboBox;
  m_band->addItem(tr("± standard deviation"), int(BandMode::StdDev));
  m_band->addItem(tr("min – max"), int(BandMode::MinMax));
  m_band->setToolTip(tr("The spread over the runs of a group (their seeds) at each step"));
  crow->addWidget(m_band);
  m_curveLog = new QCheckBox(tr("Log scale"));
  crow->addWidget(m_curveLog);
  crow->addStretch(1);
  cv->addLayout(crow);
  m_curves = new QCustomPlot;
  m_curves->xAxis->setLabel(tr("Step"));
  m_curves->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  stylePlot(m_curves);
  placeLegendOutside(m_curves);
  cv->addWidget(m_curves, 1);
  m_curvesNote = new QLabel;
  m_curvesNote->setWordWrap(true);
  cv->addWidget(m_curvesNote);
  m_tabs->addTab(curvesPage, tr("Curves"));

  // Parallel coordinates.
  auto* pcPage = new QWidget;
  auto* pv = new QVBoxLayout(pcPage);
  pv->setContentsMargins(0, 4, 0, 0);
  auto* prow = new QHBoxLayout;
  m_pcAxesButton = new QToolButton;
  m_pcAxesButton->setText(tr("Axes…"));
  m_pcAxesButton->setToolTip(tr("Choose the hyper-parameters and figures shown as axes"));
  m_pcAxesButton->setPopupMode(QToolButton::InstantPopup);
  m_pcAxesButton->setMenu(new QMenu(m_pcAxesButton));
  prow->addWidget(m_pcAxesButton);
  auto* hint = new QLabel(
      tr("Drag along an axis to keep only the runs in that range (click the axis to clear); "
         "the table, the group statistics, the curves and the trade-off follow."));
  hint->setWordWrap(true);
  prow->addWidget(hint, 1);
  pv->addLayout(prow);
  m_pc = new ParallelCoordinates;
  pv->addWidget(m_pc, 1);
  m_tabs->addTab(pcPage, tr("Parallel coordinates"));

  // Trade-off.
  auto* toPage = new QWidget;
  auto* ov = new QVBoxLayout(toPage);
  ov->setContentsMargins(0, 4, 0, 0);
  auto* orow = new QHBoxLayout;
  orow->addWidget(new QLabel(tr("Show:")));
  m_tradeoffMode = new QComboBox;
  m_tradeoffMode->addItem(tr("fronts at matched learning"));
  m_tradeoffMode->addItem(tr("configurations within a budget"));
  m_tradeoffMode->setToolTip(
      tr("Fronts: each plan's forgetting at matched learning over its rates and steps (the fair "
         "comparison). Configurations: each configuration's final values, and the best one "
         "per method within a forgetting budget"));
  orow->addWidget(m_tradeoffMode);
  orow->addSpacing(12);
  orow->addWidget(new QLabel(tr("Forgetting:")));
  m_xFig = new QComboBox;
  // Long figure titles are elided in the closed box (whole in its list): the row fits.
  m_xFig->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_xFig->setMinimumContentsLength(20);
  m_xFig->setToolTip(
      tr("Forgetting metric: a final value, or the change from step 0 (the fronts use its "
         "values at every evaluation)"));
  orow->addWidget(m_xFig);
  m_logX = new QCheckBox(tr("log"));
  orow->addWidget(m_logX);
  orow->addWidget(new QLabel(tr("Learning:")));
  m_yFig = new QComboBox;
  // Long figure titles are elided in the closed box (whole in its list): the row fits.
  m_yFig->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_yFig->setMinimumContentsLength(20);
  m_yFig->setToolTip(
      tr("Learning metric: a final value, or the change from step 0 (the fronts use its "
         "values at every evaluation)"));
  orow->addWidget(m_yFig);
  m_logY = new QCheckBox(tr("log"));
  orow->addWidget(m_logY);
  orow->addSpacing(12);
  m_points = new QCheckBox(tr("Evaluated points"));
  m_points->setChecked(true);
  m_points->setToolTip(tr("Every evaluation of every run, faintly, behind the fronts"));
  orow->addWidget(m_points);
  m_budgetBox = new QWidget;
  auto* brow = new QHBoxLayout(m_budgetBox);
  brow->setContentsMargins(0, 0, 0, 0);
  brow->addWidget(new QLabel(tr("Forgetting budget:")));
  m_budget = new QDoubleSpinBox;
  m_budget->setRange(0, 1000);
  m_budget->setDecimals(1);
  m_budget->setSingleStep(1);
  m_budget->setSuffix(u" %"_s);
  m_budget->setValue(5);
  m_budget->setToolTip(
      tr("Per method, the configuration with the best learning whose mean forgetting (relative "
         "change of the forgetting metric on the validation sets) stays within this budget is "
         "marked"));
  brow->addWidget(m_budget);
  orow->addWidget(m_budgetBox);
  orow->addStretch(1);
  ov->addLayout(orow);
  m_tradeoffStack = new QStackedWidget;
  // Fronts.
  auto* frontsSplit = new QSplitter(Qt::Vertical);
  auto* frontsTop = new QWidget;
  auto* fv = new QVBoxLayout(frontsTop);
  fv->setContentsMargins(0, 0, 0, 0);
  auto* lrow = new QHBoxLayout;
  m_levelInfo = new QLabel;
  m_levelInfo->setWordWrap(true);
  lrow->addWidget(m_levelInfo, 1);
  m_autoLevel = new QToolButton;
  m_autoLevel->setText(tr("Auto level"));
  m_autoLevel->setToolTip(
      tr("Back to the automatic level: the best learning every seed of every plan reaches"));
  lrow->addWidget(m_autoLevel);
  fv->addLayout(lrow);
  m_fronts = new QCustomPlot;
  m_fronts->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_fronts->setMouseTracking(true);
  m_fronts->setToolTip(
      tr("Drag the dashed line to compare at another level of learning; double-click to go "
         "back to the automatic level"));
  stylePlot(m_fronts);
  placeLegendOutside(m_fronts);
  fv->addWidget(m_fronts, 1);
  frontsSplit->addWidget(frontsTop);
  auto* frontsBelow = new QWidget;
  auto* fb = new QVBoxLayout(frontsBelow);
  fb->setContentsMargins(0, 0, 0, 0);
  m_frontsNote = new QLabel;
  m_frontsNote->setWordWrap(true);
  fb->addWidget(m_frontsNote);
  m_matchedTable = new QTableWidget;
  m_matchedTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_matchedTable->verticalHeader()->setVisible(false);
  m_matchedTable->setWordWrap(false);
  m_matchedTable->setTextElideMode(Qt::ElideMiddle);
  fb->addWidget(m_matchedTable, 1);
  frontsSplit->addWidget(frontsBelow);
  frontsSplit->setStretchFactor(0, 3);
  frontsSplit->setStretchFactor(1, 1);
  frontsSplit->setSizes({560, 220});  // the plot first; the table scrolls
  m_tradeoffStack->addWidget(frontsSplit);
  // Configurations.
  auto* split = new QSplitter(Qt::Vertical);
  m_tradeoff = new QCustomPlot;
  m_tradeoff->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  stylePlot(m_tradeoff);
  placeLegendOutside(m_tradeoff);
  split->addWidget(m_tradeoff);
  auto* below = new QWidget;
  auto* bv = new QVBoxLayout(below);
  bv->setContentsMargins(0, 0, 0, 0);
  m_tradeoffNote = new QLabel;
  m_tradeoffNote->setWordWrap(true);
  bv->addWidget(m_tradeoffNote);
  m_choice = new QTableWidget;
  m_choice->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_choice->verticalHeader()->setVisible(false);
  m_choice->setWordWrap(false);
  m_choice->setTextElideMode(Qt::ElideMiddle);
  bv->addWidget(m_choice, 1);
  split->addWidget(below);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  m_tradeoffStack->addWidget(split);
  ov->addWidget(m_tradeoffStack, 1);
  updateTradeoffMode();
  m_tabs->addTab(toPage, tr("Trade-off"));
  top->addWidget(m_tabs, 1);

  connect(m_groupCombo, &QComboBox::currentIndexChanged, this,
          [this] { setGroup(m_groupCombo->currentData().toString()); });
  connect(m_by, &QComboBox::currentIndexChanged, this, [this] {
    m_runModel->setGrouping(grouping());
    m_dirtyStats = m_dirtyCurves = m_dirtyTradeoff = true;
    refreshNow();
  });
  connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
    m_proxy->setText(t);
    onFilterChanged();
  });
  connect(clear, &QToolButton::clicked, m_pc, &ParallelCoordinates::clearBrushes);
  connect(m_pc, &ParallelCoordinates::brushChanged, this, &GroupCompareView::onFilterChanged);
  connect(m_rows, &QComboBox::currentIndexChanged, this, [this](int i) {
    m_tableStack->setCurrentIndex(i);
    refreshNow();
  });
  connect(m_columns->menu(), &QMenu::aboutToShow, this, [this] { columnMenu(); });
  connect(m_runTable->horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
          [this](const QPoint& pos) {
            columnMenu()->exec(m_runTable->horizontalHeader()->mapToGlobal(pos));
          });
  connect(m_pcAxesButton->menu(), &QMenu::aboutToShow, this, [this] {
    QMenu* menu = m_pcAxesButton->menu();
    menu->clear();
    if (!m_data) return;
    menu->addSection(tr("Hyper-parameters"));
    auto add = [&](const QString& id, const QString& text) {
      QAction* a = menu->addAction(text);
      a->setCheckable(true);
      a->setChecked(m_pcAxes.contains(id));
      connect(a, &QAction::toggled, this, [this, id](bool on) {
        QStringList axes = m_pcAxes;
        if (on && !axes.contains(id)) axes << id;
        if (!on) axes.removeAll(id);
        setParallelAxes(axes);
      });
    };
    for (const QString& k : m_data->paramKeys) add(u"param:"_s + k, k);
    menu->addSection(tr("Figures"));
    for (const Figure& f : m_runModel->figures()) {
      if (f.kind != Figure::Kind::Final || isEvalKey(f.key)) add(u"fig:"_s + f.id(), f.title());
    }
  });
  auto tradeoffChanged = [this] {
    m_dirtyTradeoff = m_dirtyFronts = true;
    refreshNow();
  };
  // Another learning or forgetting metric: the fronts need the traces of that one.
  auto metricChanged = [this] {
    m_dirtyTradeoff = m_dirtyFronts = true;
    if (m_data && frontMetricsDiffer()) reload();
    refreshNow();
  };
  connect(m_xFig, &QComboBox::currentIndexChanged, this, metricChanged);
  connect(m_yFig, &QComboBox::currentIndexChanged, this, metricChanged);
  connect(m_logX, &QCheckBox::toggled, this, tradeoffChanged);
  connect(m_logY, &QCheckBox::toggled, this, tradeoffChanged);
  connect(m_points, &QCheckBox::toggled, this, tradeoffChanged);
  connect(m_tradeoffMode, &QComboBox::currentIndexChanged, this, [this] {
    updateTradeoffMode();
    refreshNow();
  });
  connect(m_autoLevel, &QToolButton::clicked, this, [this] { setMatchedLevel(std::nullopt); });
  // Dragging the matched level: a press near the line takes it (and stops the plot's own
  // range drag until the release); moves set the level live; a double-click goes back to
  // auto.
  auto nearLine = [this](const QPointF& pos) {
    if (!m_matched || !m_levelLine || m_fronts->axisRectCount() == 0) return false;
    const QRect r = m_fronts->axisRect()->rect();
    const double px = m_fronts->xAxis->coordToPixel(m_matched->value);
    return std::fabs(pos.x() - px) <= 6 && pos.y() >= r.top() && pos.y() <= r.bottom();
  };
  connect(m_fronts, &QCustomPlot::mousePress, this, [this, nearLine](QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !nearLine(e->position())) return;
    m_levelDrag = true;
    m_fronts->setInteraction(QCP::iRangeDrag, false);
  });
  connect(m_fronts, &QCustomPlot::mouseMove, this, [this, nearLine](QMouseEvent* e) {
    if (!m_levelDrag) {
      m_fronts->setCursor(nearLine(e->position()) ? Qt::SizeHorCursor : Qt::ArrowCursor);
      return;
    }
    const QRect r = m_fronts->axisRect()->rect();
    const double x = std::clamp(e->position().x(), double(r.left()), double(r.right()));
    setMatchedLevel(m_fronts->xAxis->pixelToCoord(x));
  });
  connect(m_fronts, &QCustomPlot::mouseRelease, this, [this](QMouseEvent*) {
    if (!m_levelDrag) return;
    m_levelDrag = false;
    m_fronts->setInteraction(QCP::iRangeDrag, true);
  });
  connect(m_fronts, &QCustomPlot::mouseDoubleClick, this,
          [this](QMouseEvent*) { setMatchedLevel(std::nullopt); });
  connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this] { m_reloadTimer.start(); });
  auto curvesChanged = [this] {
    m_dirtyCurves = true;
    refreshNow();
  };
  connect(m_curveKey, &QComboBox::currentIndexChanged, this, curvesChanged);
  connect(m_band, &QComboBox::currentIndexChanged, this, curvesChanged);
  connect(m_curveLog, &QCheckBox::toggled, this, curvesChanged);
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] { refreshNow(); });
}

// ---- groups and loading ---------------------------------------------------------------

QStringList GroupCompareView::groups() const {
  QStringList out;
  for (int i = 0; i < m_groupCombo->count(); ++i) out << m_groupCombo->itemData(i).toString();
  return out;
}

void GroupCompareView::updateGroupList() {
  // Most recent group first (by its newest run).
  QHash<QString, qint64> newest;
  QHash<QString, int> count;
  for (const RunRow& r : m_session->store()->snapshot().runs) {
    const QString g = qs(r.info.experiment);
    if (g.isEmpty()) continue;
    newest[g] = std::max<qint64>(newest.value(g, 0), r.info.id);
    ++count[g];
  }
  QStringList order = newest.keys();
  std::sort(order.begin(), order.end(),
            [&](const QString& a, const QString& b) { return newest[a] > newest[b]; });
  QStringList current;
  QStringList titles;
  for (int i = 0; i < m_groupCombo->count(); ++i) {
    current << m_groupCombo->itemData(i).toString();
    titles << m_groupCombo->itemText(i);
  }
  QStringList newTitles;
  for (const QString& g : order) newTitles << groupTitle(g, count[g]);
  if (current == order && titles == newTitles) return;
  QSignalBlocker b(m_groupCombo);
  m_groupCombo->clear();
  for (int i = 0; i < order.size(); ++i) m_groupCombo->addItem(newTitles[i], order[i]);
  const int keep = m_groupCombo->findData(m_group);
  m_groupCombo->setCurrentIndex(keep);
}

void GroupCompareView::onSnapshot() {
  updateGroupList();
  if (m_group.isEmpty()) {
    // The most recent group with more than one run, else the most recent one.
    QString pick;
    QHash<QString, int> count;
    for (const RunRow& r : m_session->store()->snapshot().runs) ++count[qs(r.info.experiment)];
    for (const QString& g : groups()) {
      if (count.value(g) > 1) {
        pick = g;
        break;
      }
    }
    if (pick.isEmpty() && !groups().isEmpty()) pick = groups().first();
    if (!pick.isEmpty()) setGroup(pick);
    return;
  }
  // Reload when a run of the group changed (status, progress).
  QString fp;
  for (const RunRow& r : m_session->store()->snapshot().runs) {
    if (qs(r.info.experiment) != m_group) continue;
    fp += u"%1:%2:%3;"_s.arg(r.info.id).arg(int(r.info.status)).arg(r.lastStep);
  }
  if (fp != m_fingerprint) {
    m_fingerprint = fp;
    // At most one reload per interval while runs of the group progress.
    if (!m_reloadTimer.isActive()) m_reloadTimer.start();
  }
}

void GroupCompareView::setGroup(const QString& group) {
  if (group == m_group && (m_data || m_loading)) return;
  m_group = group;
  {
    QSignalBlocker b(m_groupCombo);
    m_groupCombo->setCurrentIndex(m_groupCombo->findData(group));
  }
  m_series.clear();
  m_fingerprint.clear();
  for (const RunRow& r : m_session->store()->snapshot().runs) {
    if (qs(r.info.experiment) != m_group) continue;
    m_fingerprint += u"%1:%2:%3;"_s.arg(r.info.id).arg(int(r.info.status)).arg(r.lastStep);
  }
  reload();
}

gb::experiment::CompareOptions GroupCompareView::compareOptions() const {
  gb::experiment::CompareOptions o;
  o.group = ss(m_group);
  o.budget = m_budget->value() / 100.0;
  return o;
}

void GroupCompareView::reload() {
  if (m_group.isEmpty()) return;
  if (m_loading) {
    m_reloadPending = true;
    return;
  }
  const QString path = m_session->store()->path();
  if (path.isEmpty()) return;
  m_loading = true;
  m_status->setText(tr("Reading group %1…").arg(m_group));
  m_loader->setFuture(
      QtConcurrent::run(loadGroupFromFile, path, m_group, compareOptions(), frontOptions()));
}

void GroupCompareView::setGroupData(std::shared_ptr<const GroupData> data) {
  const bool newGroup = !m_data || !data || m_data->group != data->group;
  // A level is a value of one learning metric, in one group.
  const bool newMetrics =
      newGroup || m_data->frontOptions.learning != data->frontOptions.learning ||
      m_data->frontOptions.forgetting != data->frontOptions.forgetting;
  if (newMetrics) m_level.reset();
  m_data = std::move(data);
  if (m_data && m_group != m_data->group) {
    m_group = m_data->group;
    QSignalBlocker b(m_groupCombo);
    m_groupCombo->setCurrentIndex(m_groupCombo->findData(m_group));
  }
  m_series.clear();
  m_runModel->setGroupData(m_data);
  m_dirtyFronts = true;
  recomputeMatched();
  if (!m_data) return;
  if (!m_data->error.isEmpty()) {
    m_status->setText(tr("Could not read group %1: %2").arg(m_data->group, m_data->error));
  } else {
    int complete = 0, partial = 0, none = 0;
    for (const RunSummary& r : m_data->runs) {
      if (r.complete()) {
        ++complete;
      } else if (r.partial()) {
        ++partial;
      } else {
        ++none;
      }
    }
    QStringList parts;
    parts << tr("%n run(s)", nullptr, static_cast<int>(m_data->runs.size()));
    parts << tr("%1 complete").arg(complete);
    if (partial)
      parts << tr("%1 partial (not finished: figures marked with their step)").arg(partial);
    if (none) parts << tr("%1 without an evaluation after step 0 (no figures)").arg(none);
    m_status->setText(parts.join(u" · "_s));
  }
  if (m_data->evalDifferences.isEmpty()) {
    m_warning->hide();
    m_warning->clear();
  } else {
    m_warning->setText(
        tr("The runs of this group do not all use the same evaluation sets, so their figures are "
           "not directly comparable:\n%1")
            .arg(m_data->evalDifferences.join(u"\n"_s)));
    m_warning->show();
  }
  // Group-by keys.
  {
    const QString keep = grouping();
    QSignalBlocker b(m_by);
    m_by->clear();
    m_by->addItem(tr("configuration"), kGroupByConfiguration);
    for (const QString& k : m_data->paramKeys) m_by->addItem(k, k);
    const int i = m_by->findData(keep);
    m_by->setCurrentIndex(i < 0 ? 0 : i);
    m_runModel->setGrouping(grouping());
  }
  fillFigureCombos();
  rebuildColumns();
  if (newMetrics && !m_pcAxesChosen) m_pcAxes.clear();
  if (m_pcAxes.isEmpty()) {
    // The plan (when there are several) and the swept keys, then forgetting (relative, and
    // at matched learning) and learning (the learning metric's final value).
    if (m_data->variedKeys.contains(u"plan"_s)) m_pcAxes << u"param:plan"_s;
    for (const QString& k : m_data->sweptKeys) {
      if (m_pcAxes.size() < 7) m_pcAxes << u"param:"_s + k;
    }
    const QString learning = qs(m_data->frontOptions.learning);
    for (const Figure& f : m_runModel->figures()) {
      if (f.kind == Figure::Kind::Forgetting || f.kind == Figure::Kind::Matched ||
          (f.kind == Figure::Kind::Final && f.key == learning)) {
        m_pcAxes << u"fig:"_s + f.id();
      }
    }
  }
  rebuildParallel();
  onFilterChanged();
  emit groupLoaded();
}

// ---- table ----------------------------------------------------------------------------

void GroupCompareView::rebuildColumns() {
  if (!m_data) return;
  for (int c = 0; c < m_runModel->columnCount(); ++c) {
    const QString id = m_runModel->columnId(c);
    bool show;
    if (m_userShown.contains(id)) {
      show = true;
    } else if (m_userHidden.contains(id)) {
      show = false;
    } else if (id.startsWith(u"param:"_s)) {
      const QString k = id.mid(6);
      show = k == u"plan"_s || k == u"seed"_s || m_data->sweptKeys.contains(k);
    } else if (id.startsWith(u"fig:"_s)) {
      // Learning as the learning metric's final value (absolute), not its relative change
      // (which saturates: every method cuts a high start by 80-95 %).
      const Figure f = Figure::fromId(id.mid(4));
      show = f.kind == Figure::Kind::Forgetting || f.kind == Figure::Kind::Matched ||
             (f.kind == Figure::Kind::Final &&
              (kDefaultFinals.contains(f.key) || f.key == qs(m_data->frontOptions.learning)));
    } else {
      show = true;
    }
    m_runTable->setColumnHidden(c, !show);
  }
  QHeaderView* h = m_runTable->horizontalHeader();
  h->resizeSections(QHeaderView::ResizeToContents);
  for (int c = 0; c < m_runModel->columnCount(); ++c) {
    if (h->sectionSize(c) > 320) h->resizeSection(c, 320);
  }
}

void GroupCompareView::setColumnVisible(const QString& id, bool visible) {
  const int c = m_runModel->columnOf(id);
  if (visible) {
    m_userShown.insert(id);
    m_userHidden.remove(id);
  } else {
    m_userHidden.insert(id);
    m_userShown.remove(id);
  }
  if (c >= 0) {
    m_runTable->setColumnHidden(c, !visible);
    if (visible) m_runTable->resizeColumnToContents(c);
  }
  // The group statistics show the figures the table shows.
  m_dirtyStats = true;
  refreshNow();
}

void GroupCompareView::setGroupRows(bool groups) {
  m_rows->setCurrentIndex(groups ? 1 : 0);
}

bool GroupCompareView::isColumnVisible(const QString& id) const {
  const int c = m_runModel->columnOf(id);
  return c >= 0 && !m_runTable->isColumnHidden(c);
}

QMenu* GroupCompareView::columnMenu() {
  QMenu* menu = m_columns->menu();
  menu->clear();
  if (!m_data) return menu;
  QMenu* params = menu->addMenu(tr("Hyper-parameters"));
  QMenu* figs = menu->addMenu(tr("Figures"));
  QMenu* more = figs->addMenu(tr("Other metrics"));
  for (int c = GroupRunModel::FixedCount; c < m_runModel->columnCount(); ++c) {
    const QString id = m_runModel->columnId(c);
    const QString text = m_runModel->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QMenu* target = params;
    if (id.startsWith(u"fig:"_s)) {
      const Figure f = Figure::fromId(id.mid(4));
      target = f.kind != Figure::Kind::Final || isEvalKey(f.key) ? figs : more;
    }
    QAction* a = target->addAction(text);
    a->setCheckable(true);
    a->setChecked(!m_runTable->isColumnHidden(c));
    connect(a, &QAction::toggled, this, [this, id](bool on) { setColumnVisible(id, on); });
  }
  menu->addSeparator();
  menu->addAction(tr("Default columns"), this, [this] {
    m_userShown.clear();
    m_userHidden.clear();
    rebuildColumns();
    m_dirtyStats = true;
    refreshNow();
  });
  return menu;
}

QVector<int> GroupCompareView::acceptedIndices() const {
  QVector<int> out;
  if (!m_data) return out;
  for (qint64 id : m_proxy->acceptedRuns()) out << m_data->runIndex(id);
  return out;
}

void GroupCompareView::onFilterChanged() {
  if (!m_data) return;
  m_proxy->setAllowedRuns(m_pc->brushedRuns());
  const QVector<qint64> accepted = m_proxy->acceptedRuns();
  if (m_proxy->text().isEmpty()) {
    m_pc->setHighlighted(std::nullopt);
  } else {
    m_pc->setHighlighted(QSet<qint64>(accepted.begin(), accepted.end()));
  }
  // What is not shown is rebuilt when it is (brushing stays fast).
  m_dirtyStats = m_dirtyCurves = m_dirtyTradeoff = m_dirtyFronts = true;
  refreshNow();
}

GroupStatsModel* GroupCompareView::statsModel() {
  if (m_dirtyStats) rebuildStats();
  return m_stats;
}

void GroupCompareView::rebuildStats() {
  m_dirtyStats = false;
  if (!m_data) return;
  // The figures whose columns the run table shows (evaluation keys only).
  QVector<Figure> figs;
  for (const Figure& f : m_runModel->figures()) {
    if (f.kind == Figure::Kind::Final && !isEvalKey(f.key)) continue;
    if (!isColumnVisible(u"fig:"_s + f.id())) continue;
    figs << f;
  }
  const bool filtered = m_pc->hasBrush() || !m_proxy->text().isEmpty();
  m_stats->setGroups(m_data, grouping(),
                     filtered ? std::optional<QVector<int>>(acceptedIndices()) : std::nullopt,
                     figs, m_runModel->matchedLevel());
  if (m_statsTable->isVisible()) m_statsTable->resizeColumnsToContents();
}

// ---- parallel coordinates -------------------------------------------------------------

void GroupCompareView::setParallelAxes(const QStringList& ids) {
  m_pcAxes = ids;
  m_pcAxesChosen = true;
  rebuildParallel();
  onFilterChanged();
}

void GroupCompareView::rebuildParallel() {
  if (!m_data) return;
  QStringList methods;
  for (const RunSummary& r : m_data->runs) {
    if (!methods.contains(r.plan)) methods << r.plan;
  }
  std::sort(methods.begin(), methods.end());
  QVector<ParallelCoordinates::Axis> axes;
  QVector<std::function<double(const RunSummary&)>> value;
  for (const QString& id : m_pcAxes) {
    ParallelCoordinates::Axis ax;
    ax.id = id;
    if (id.startsWith(u"param:"_s)) {
      const QString k = id.mid(6);
      if (!m_data->paramKeys.contains(k)) continue;
      ax.title = k;
      bool numeric = true;
      QStringList cats;
      for (const RunSummary& r : m_data->runs) {
        const QVariant v = r.params.value(k);
        if (v.isValid() && v.typeId() != QMetaType::Double) numeric = false;
        const QString t = paramText(v);
        if (!cats.contains(t)) cats << t;
      }
      if (numeric) {
        value << [k](const RunSummary& r) {
          const QVariant v = r.params.value(k);
          return v.isValid() ? v.toDouble() : qQNaN();
        };
      } else {
        std::sort(cats.begin(), cats.end());
        ax.categories = cats;
        value << [k, cats](const RunSummary& r) {
          return double(cats.indexOf(paramText(r.params.value(k))));
        };
      }
    } else if (id.startsWith(u"fig:"_s)) {
      const Figure f = Figure::fromId(id.mid(4));
      ax.isFigure = true;
      ax.lowerIsBetter = f.lowerIsBetter();
      if (f.kind == Figure::Kind::Matched) {
        if (m_runModel->columnOf(id) < 0) continue;
        // Each run's own least forgetting where it reaches the level; a run that does not
        // reach it goes to the "does not reach" slot above the range (+inf), a run without
        // traces (not finished) leaves a gap.
        const auto level = m_runModel->matchedLevel();
        ax.title = tr("forgetting at matched learning");
        ax.beyondLabel = tr("does not reach");
        if (level && m_data->traces) {
          ax.title = tr("forgetting at learning %1").arg(levelText(*m_data->traces, level->value));
          ax.tooltip = figureHeader(*m_data, f, level, true);
          ax.lowerIsBetter = m_data->traces->forgetting_lower;
        } else {
          ax.tooltip = m_data->tracesError;
        }
        const GroupRunModel* model = m_runModel;
        value << [model, this](const RunSummary& r) {
          const MatchedFigure* m = model->matchedFigureAt(m_data->runIndex(r.id));
          if (!m || !m->traced()) return qQNaN();
          return m->reaches() ? m->mean : qInf();
        };
        axes << ax;
        continue;
      }
      if (!m_data->metricKeys.contains(f.key)) continue;
      const bool learning =
          f.kind == Figure::Kind::Final && f.key == qs(m_data->frontOptions.learning);
      ax.title = f.kind == Figure::Kind::Forgetting ? tr("forgetting (%)")
                 : f.kind == Figure::Kind::Learning ? tr("learning (%)")
                 : learning                          ? tr("learning (%1)").arg(f.key)
                                                     : f.key;
      value << [f](const RunSummary& r) { return figureOf(r, f); };
    } else {
      continue;
    }
    axes << ax;
  }
  QVector<ParallelCoordinates::Line> lines;
  for (const RunSummary& r : m_data->runs) {
    ParallelCoordinates::Line l;
    l.id = r.id;
    for (const auto& fn : value) l.values << fn(r);
    l.color = methodColor(methods, r.plan);
    l.label = tr("#%1 %2 (%3)").arg(r.id).arg(r.name, statusText(r.status));
    lines << l;
  }
  m_pc->setData(axes, lines);
  QVector<QPair<QString, QColor>> legend;
  for (const QString& m : methods) legend.push_back({m, methodColor(methods, m)});
  m_pc->setLegend(legend);
}

// ---- figures and trade-off ------------------------------------------------------------

void GroupCompareView::fillFigureCombos() {
  if (!m_data) return;
  auto fill = [&](QComboBox* combo, const QStringList& preferred) {
    const QString keep = combo->currentData().toString();
    QSignalBlocker b(combo);
    combo->clear();
    for (const Figure& f : m_runModel->figures()) {
      if (f.kind == Figure::Kind::Matched) continue;
      if (f.kind == Figure::Kind::Final && !isEvalKey(f.key)) continue;
      combo->addItem(f.title(), f.id());
    }
    int i = combo->findData(keep);
    for (const QString& p : preferred) {
      if (i >= 0) break;
      i = combo->findData(p);
    }
    combo->setCurrentIndex(i < 0 ? 0 : i);
  };
  // Absolute final loss by default: relative changes of perplexity saturate.
  fill(m_xFig, {u"final:eval/orig/loss"_s, u"final:eval/orig/ppl"_s,
                u"forgetting:"_s + qs(m_data->compareOptions.forgetting)});
  fill(m_yFig, {u"final:eval/new/loss"_s, u"final:eval/new/ppl"_s,
                u"learning:"_s + qs(m_data->compareOptions.learning)});
  {
    const QString keep = m_curveKey->currentText();
    QSignalBlocker b(m_curveKey);
    m_curveKey->clear();
    for (const QString& k : m_data->metricKeys) {
      if (!mk::is_perf(ss(k))) m_curveKey->addItem(k);
    }
    int i = m_curveKey->findText(keep);
    for (const char* p : {mk::kEvalNewLoss, mk::kEvalNewPpl, mk::kTrainLoss}) {
      if (i >= 0) break;
      i = m_curveKey->findText(QString::fromLatin1(p));
    }
    m_curveKey->setCurrentIndex(i < 0 ? 0 : i);
  }
}

Figure GroupCompareView::tradeoffX() const {
  return Figure::fromId(m_xFig->currentData().toString());
}

Figure GroupCompareView::tradeoffY() const {
  return Figure::fromId(m_yFig->currentData().toString());
}

void GroupCompareView::setTradeoffFigures(const Figure& x, const Figure& y) {
  const int xi = m_xFig->findData(x.id()), yi = m_yFig->findData(y.id());
  if (xi >= 0) m_xFig->setCurrentIndex(xi);
  if (yi >= 0) m_yFig->setCurrentIndex(yi);
}

void GroupCompareView::setTradeoffLog(bool x, bool y) {
  m_logX->setChecked(x);
  m_logY->setChecked(y);
}

void GroupCompareView::setBudget(double fraction) {
  m_budget->setValue(fraction * 100.0);
  m_reloadTimer.stop();
  reload();
}

double GroupCompareView::budget() const {
  return m_budget->value() / 100.0;
}

void GroupCompareView::setGrouping(const QString& by) {
  const int i = m_by->findData(by);
  if (i >= 0) m_by->setCurrentIndex(i);
}

QString GroupCompareView::grouping() const {
  const QString v = m_by->currentData().toString();
  return v.isEmpty() ? kGroupByConfiguration : v;
}

QString GroupCompareView::evalWarning() const {
  return m_warning->isVisible() || !m_warning->text().isEmpty() ? m_warning->text() : QString();
}

void GroupCompareView::refreshNow() {
  if (!m_data) return;
  const int tab = m_tabs->currentIndex();
  if (m_dirtyStats && ((tab == TableTab && m_rows->currentIndex() == 1) || !isVisible())) {
    rebuildStats();
  }
  const bool fronts = tradeoffMode() == TradeoffMode::Fronts;
  if (m_dirtyTradeoff && ((tab == TradeoffTab && !fronts) || !isVisible())) replotTradeoff();
  if (m_dirtyFronts && ((tab == TradeoffTab && fronts) || !isVisible())) replotFronts();
  if (m_dirtyCurves && (tab == CurvesTab || !isVisible())) {
    if (m_series.contains(curveKey())) {
      replotCurves();
    } else {
      requestSeries();
    }
  }
}

void GroupCompareView::replotTradeoff() {
  m_dirtyTradeoff = false;
  m_tradeoff->clearPlottables();
  m_tradeoff->clearItems();
  m_tradeoffPoints.clear();
  m_budgetMarks.clear();
  if (!m_data) return;
  const Figure fx = tradeoffX(), fy = tradeoffY();
  m_tradeoff->xAxis->setLabel(fx.title());
  m_tradeoff->yAxis->setLabel(fy.title());
  const QVector<int> accepted = acceptedIndices();
  const QVector<RunGroup> groups =
      accepted.isEmpty() ? QVector<RunGroup>() : groupRuns(*m_data, grouping(), accepted);
  QStringList methods;
  for (const RunSummary& r : m_data->runs) {
    if (!methods.contains(r.plan)) methods << r.plan;
  }
  std::sort(methods.begin(), methods.end());
  // Log scales need positive values.
  bool logX = m_logX->isChecked(), logY = m_logY->isChecked();
  QStringList notes;
  auto positive = [&](const Figure& f) {
    for (int i : accepted) {
      const double v = figureOf(m_data->runs[i], f);
      if (std::isfinite(v) && v <= 0) return false;
    }
    return true;
  };
  if (logX && !positive(fx)) {
    logX = false;
    notes << tr("x has values ≤ 0: linear scale.");
  }
  if (logY && !positive(fy)) {
    logY = false;
    notes << tr("y has values ≤ 0: linear scale.");
  }
  setLogAxis(m_tradeoff->xAxis, logX);
  setLogAxis(m_tradeoff->yAxis, logY);
  // Single runs, faint, behind the group means; partial ones hollow.
  QVector<double> rx, ry, px, py;
  for (int i : accepted) {
    const RunSummary& r = m_data->runs[i];
    const double x = figureOf(r, fx), y = figureOf(r, fy);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    if (r.complete()) {
      rx << x;
      ry << y;
    } else {
      px << x;
      py << y;
    }
  }
  const QColor text = QApplication::palette().color(QPalette::Text);
  if (!rx.isEmpty()) {
    auto* g = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
    g->setData(rx, ry);
    g->setLineStyle(QCPGraph::lsNone);
    QColor c = text;
    c.setAlpha(90);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, c, 5));
    g->setName(tr("single runs"));
  }
  if (!px.isEmpty()) {
    auto* g = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
    g->setData(px, py);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(text, 1, Qt::DotLine), Qt::NoBrush, 8));
    g->setName(tr("partial runs (not finished)"));
  }
  int skipped = 0;
  const QVector<int> within = indexWithinMethod(groups);
  static const QCPScatterStyle::ScatterShape shapes[] = {
      QCPScatterStyle::ssDisc, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted};
  for (int gi = 0; gi < groups.size(); ++gi) {
    const RunGroup& grp = groups[gi];
    const FigureStat sx = groupStat(*m_data, grp, fx), sy = groupStat(*m_data, grp, fy);
    if (sx.n == 0 || sy.n == 0 || !std::isfinite(sx.mean) || !std::isfinite(sy.mean)) {
      ++skipped;
      continue;
    }
    // Colour: the method; shade and marker: the configuration within it.
    const QColor c = configColor(methodColor(methods, grp.method), within[gi]);
    auto* g = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
    g->setData({sx.mean}, {sy.mean});
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shapes[within[gi] % 5], c, c, 9));
    g->setName(grp.label + (sx.n > 1 ? tr(" (n=%1)").arg(std::min(sx.n, sy.n)) : QString()));
    m_tradeoffPoints.insert(grp.label, QPointF(sx.mean, sy.mean));
    for (int axis = 0; axis < 2; ++axis) {
      const FigureStat& s = axis == 0 ? sx : sy;
      if (s.n < 2) continue;
      auto* e = new QCPErrorBars(m_tradeoff->xAxis, m_tradeoff->yAxis);
      e->removeFromLegend();
      e->setDataPlottable(g);
      e->setErrorType(axis == 0 ? QCPErrorBars::etKeyError : QCPErrorBars::etValueError);
      const bool log = axis == 0 ? logX : logY;
      // On a log axis the lower bar stops above zero.
      const double minus = log ? std::min(s.std, 0.9 * s.mean) : s.std;
      e->setData(QVector<double>{minus}, QVector<double>{s.std});
      e->setPen(QPen(c, 1.3));
      e->setWhiskerWidth(7);
    }
  }
  // The best configuration per method within the budget (compare_group).
  if (m_data->compare) {
    QVector<double> bx, by;
    for (const auto& m : m_data->compare->methods) {
      if (!m.meets_budget) continue;
      QVector<double> xs, ys;
      for (int64_t id : m.runs) {
        const int i = m_data->runIndex(id);
        if (i < 0 || !accepted.contains(i)) continue;
        const double x = figureOf(m_data->runs[i], fx), y = figureOf(m_data->runs[i], fy);
        if (std::isfinite(x) && std::isfinite(y)) {
          xs << x;
          ys << y;
        }
      }
      if (xs.isEmpty()) continue;
      double mx = 0, my = 0;
      for (int k = 0; k < xs.size(); ++k) {
        mx += xs[k] / xs.size();
        my += ys[k] / ys.size();
      }
      bx << mx;
      by << my;
      m_budgetMarks << qs(m.method);
      auto* label = new QCPItemText(m_tradeoff);
      label->position->setType(QCPItemPosition::ptPlotCoords);
      label->position->setCoords(mx, my);
      label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
      label->setPadding(QMargins(8, 0, 0, 6));
      label->setText(tr("best ≤ %1 %: %2").arg(m_budget->value(), 0, 'g', 3).arg(qs(m.method)));
      label->setColor(text);
      label->setFont(QApplication::font());
      label->setClipToAxisRect(true);
    }
    if (!bx.isEmpty()) {
      auto* g = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
      g->setData(bx, by);
      g->setLineStyle(QCPGraph::lsNone);
      // A ring around the chosen configuration's point (which stays visible inside).
      g->setScatterStyle(
          QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(text, 2.0), Qt::NoBrush, 22));
      g->setName(tr("best within the %1 % budget, per method").arg(m_budget->value(), 0, 'g', 3));
    }
  }
  if (skipped > 0) {
    notes << tr("%n group(s) without complete runs are not drawn.", nullptr, skipped);
  }
  notes << tr("Points: mean over the complete runs of a group; bars: ± one standard deviation.");
  if (!m_data->compareError.isEmpty()) notes << m_data->compareError;
  m_tradeoffNote->setText(notes.join(u' '));
  m_tradeoff->rescaleAxes();
  padAxis(m_tradeoff->xAxis);
  padAxis(m_tradeoff->yAxis);
  m_tradeoff->legend->setVisible(m_tradeoff->plottableCount() > 0);
  m_tradeoff->replot(QCustomPlot::rpQueuedReplot);
  updateChoiceTable();
}

// ---- fronts and forgetting at matched learning -----------------------------------------

void GroupCompareView::setTradeoffMode(TradeoffMode mode) {
  m_tradeoffMode->setCurrentIndex(mode == TradeoffMode::Fronts ? 0 : 1);
}

GroupCompareView::TradeoffMode GroupCompareView::tradeoffMode() const {
  return m_tradeoffMode->currentIndex() == 1 ? TradeoffMode::Configurations : TradeoffMode::Fronts;
}

void GroupCompareView::updateTradeoffMode() {
  const bool fronts = tradeoffMode() == TradeoffMode::Fronts;
  m_tradeoffStack->setCurrentIndex(fronts ? 0 : 1);
  m_budgetBox->setVisible(!fronts);
  m_points->setVisible(fronts);
}

gb::experiment::FrontOptions GroupCompareView::frontOptions() const {
  gb::experiment::FrontOptions o;
  o.group = ss(m_group);
  // The figure's key as a validation key: test/... is matched on its eval/... twin.
  auto evalKey = [](QComboBox* combo, const char* fallback) {
    const QString id = combo->currentData().toString();
    if (id.isEmpty()) return std::string(fallback);
    std::string k = ss(Figure::fromId(id).key);
    const std::string test = mk::kTestPrefix;
    if (k.rfind(test, 0) == 0) k = mk::kEvalPrefix + k.substr(test.size());
    return mk::is_eval(k) && mk::find(k) ? k : std::string(fallback);
  };
  o.learning = evalKey(m_yFig, mk::kEvalNewLoss);
  o.forgetting = evalKey(m_xFig, mk::kEvalOrigLoss);
  return o;
}

bool GroupCompareView::frontMetricsDiffer() const {
  if (!m_data) return false;
  const auto o = frontOptions();
  return o.learning != m_data->frontOptions.learning ||
         o.forgetting != m_data->frontOptions.forgetting;
}

void GroupCompareView::setMatchedLevel(std::optional<double> value) {
  if (value && !std::isfinite(*value)) return;
  m_level = value;
  recomputeMatched();
  rebuildParallel();
  refreshNow();
}

void GroupCompareView::recomputeMatched() {
  m_matched.reset();
  m_matchedError.clear();
  std::optional<MatchedLevel> level;
  if (m_data && m_data->traces) {
    try {
      m_matched = gb::experiment::compare_at(*m_data->traces, m_level);
      level = MatchedLevel{m_matched->value, m_matched->value_auto, m_matched->split == "test"};
    } catch (const std::exception& e) {
      m_matchedError = QString::fromUtf8(e.what());
    }
  } else if (m_data) {
    m_matchedError = m_data->tracesError;
  }
  m_runModel->setMatchedLevel(level);
  m_dirtyStats = true;
  updateMatchedLine();
  updateMatchedTable();
  emit matchedLevelChanged();
}

QString GroupCompareView::matchedLevelText() const {
  if (!m_data) return {};
  if (!m_matched) {
    return m_matchedError.isEmpty() ? QString()
                                    : tr("No forgetting at matched learning: %1").arg(m_matchedError);
  }
  QString t = tr("Matched learning: %1 %2")
                  .arg(qs(m_matched->learning), levelText(*m_data->traces, m_matched->value));
  t += u" "_s + (m_matched->value_auto
                     ? tr("(auto: the best level every seed of every plan reaches; drag the "
                          "dashed line to choose another)")
                     : tr("(dragged; double-click the plot or press Auto level to go back)"));
  t += u" · "_s + tr("forgetting: %1 on the %2 sets")
                      .arg(qs(m_matched->forgetting),
                           m_matched->split == "test" ? tr("test") : tr("validation"));
  return t;
}

void GroupCompareView::updateMatchedLine() {
  m_levelInfo->setText(matchedLevelText());
  m_autoLevel->setEnabled(m_level.has_value());
  if (!m_levelLine) return;
  const bool on = m_matched.has_value();
  m_levelLine->setVisible(on);
  m_levelLabel->setVisible(on);
  m_levelMarks->setVisible(on);
  if (on) {
    const double v = m_matched->value;
    m_levelLine->point1->setCoords(v, 0);
    m_levelLine->point2->setCoords(v, 1);
    m_levelLabel->position->setCoords(v, 0);
    m_levelLabel->setText(u"%1%2"_s.arg(levelText(*m_data->traces, v),
                                        m_matched->value_auto ? tr(" (auto)") : QString()));
    QVector<double> xs, ys;
    const bool test = m_matched->split == "test";
    for (const auto& row : m_matched->rows) {
      if (!row.reaches()) continue;
      // Marked on the fronts drawn on the same split.
      if (test != m_fronts->property("gbTest").toBool()) continue;
      xs << v;
      ys << row.forgetting.mean;
    }
    m_levelMarks->setData(xs, ys);
  }
  m_fronts->replot(QCustomPlot::rpQueuedReplot);
}

void GroupCompareView::updateMatchedTable() {
  m_matchedTable->clear();
  if (!m_matched) {
    m_matchedTable->setRowCount(0);
    m_matchedTable->setColumnCount(0);
    return;
  }
  const auto& res = *m_matched;
  const bool test = res.split == "test";
  const QStringList headers = {
      tr("Plan"), tr("Seeds reaching"),
      tr("%1 at %2 %3").arg(qs(res.forgetting), qs(res.learning),
                            levelText(*m_data->traces, res.value)),
      tr("Chosen points (per seed: run, learning rate, step)")};
  m_matchedTable->setColumnCount(static_cast<int>(headers.size()));
  m_matchedTable->setHorizontalHeaderLabels(headers);
  m_matchedTable->setRowCount(static_cast<int>(res.rows.size()));
  int row = 0;
  for (const auto& r : res.rows) {
    auto set = [&](int col, const QString& t, const QString& tip = {}) {
      auto* item = new QTableWidgetItem(t);
      item->setToolTip(tip.isEmpty() ? t : tip);
      if (col == 1 || col == 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_matchedTable->setItem(row, col, item);
    };
    set(0, qs(r.plan));
    set(1, tr("%1 of %2").arg(r.n).arg(r.seeds));
    if (r.reaches()) {
      set(2, r.n > 1 ? u"%1 ± %2"_s.arg(formatValue(r.forgetting.mean), formatValue(r.forgetting.std))
                     : formatValue(r.forgetting.mean));
    } else {
      set(2, tr("does not reach"),
          tr("No run of %1 (any rate, any evaluation) reaches %2 %3")
              .arg(qs(r.plan), qs(res.learning), levelText(*m_data->traces, res.value)));
    }
    QStringList where;
    for (size_t i = 0; i < r.points.size(); ++i) {
      const auto& p = r.points[i];
      where << tr("seed %1: run %2, lr %3, step %4 (%5)")
                   .arg(r.seed_ids[i])
                   .arg(p.run_id)
                   .arg(p.lr ? QString::number(*p.lr, 'g', 3) : u"?"_s,
                        p.interpolated() ? QString::number(p.step, 'f', 1)
                                         : QString::number(p.step0),
                        formatValue(r.value_of(p, test)));
    }
    for (int64_t s : r.unreached_seeds) where << tr("seed %1: does not reach").arg(s);
    set(3, where.join(u"; "_s), where.join(u"\n"_s));
    ++row;
  }
  m_matchedTable->resizeColumnsToContents();
  for (int c = 0; c + 1 < m_matchedTable->columnCount(); ++c) {
    if (m_matchedTable->columnWidth(c) > 360) m_matchedTable->setColumnWidth(c, 360);
  }
  m_matchedTable->horizontalHeader()->setStretchLastSection(true);
}

void GroupCompareView::replotFronts() {
  m_dirtyFronts = false;
  m_fronts->clearPlottables();
  m_fronts->clearItems();
  m_levelLine = nullptr;
  m_levelLabel = nullptr;
  m_levelMarks = nullptr;
  if (!m_data || !m_data->traces) {
    m_frontsNote->setText(m_data && !m_data->tracesError.isEmpty()
                              ? tr("No fronts: %1").arg(m_data->tracesError)
                              : QString());
    m_fronts->legend->setVisible(false);
    updateMatchedLine();
    return;
  }
  const gb::experiment::GroupTraces& all = *m_data->traces;
  // The runs the filters let through.
  const bool filtered = m_pc->hasBrush() || !m_proxy->text().isEmpty();
  gb::experiment::GroupTraces kept;
  if (filtered) {
    QSet<qint64> ids;
    for (int i : acceptedIndices()) ids.insert(m_data->runs[i].id);
    kept = filterTraces(all, ids);
  }
  const gb::experiment::GroupTraces& traces = filtered ? kept : all;
  // The split of the fronts: the one the automatic level reports on (as the report's figure).
  bool test = false;
  QString splitNote;
  try {
    const auto probe = gb::experiment::compare_at(all, std::nullopt);
    test = probe.split == "test";
    splitNote = qs(probe.note);
  } catch (const std::exception&) {
  }
  m_fronts->setProperty("gbTest", test);
  const auto levels = gb::experiment::front_levels(traces, kFrontLevels);
  const auto curves = traces.plans.empty()
                          ? std::vector<gb::experiment::FrontCurve>()
                          : gb::experiment::front_curves(traces, levels, test);
  QStringList methods;
  for (const RunSummary& r : m_data->runs) {
    if (!methods.contains(r.plan)) methods << r.plan;
  }
  std::sort(methods.begin(), methods.end());
  const QString lk = qs(all.learning);
  const QString fk = qs(test ? all.test_forgetting : all.forgetting);
  m_fronts->xAxis->setLabel(all.learning_lower
                                ? tr("Learning: %1 (validation; better to the left)").arg(lk)
                                : tr("Learning: %1 (validation; better to the right)").arg(lk));
  m_fronts->yAxis->setLabel(tr("Forgetting at matched learning: %1").arg(fk));
  // Log scales need positive values.
  bool logX = m_logY->isChecked(), logY = m_logX->isChecked();
  for (const auto& plan : traces.plans) {
    for (const auto& seed : plan.seeds) {
      for (const auto& run : seed.runs) {
        for (const auto& p : run.points) {
          if (p.learning <= 0) logX = false;
          const std::optional<double> f = test ? p.test_forgetting : p.forgetting;
          if (f && *f <= 0) logY = false;
        }
      }
    }
  }
  setLogAxis(m_fronts->xAxis, logX);
  setLogAxis(m_fronts->yAxis, logY);
  // Every evaluation, faintly, behind.
  if (m_points->isChecked()) {
    for (const auto& plan : traces.plans) {
      QVector<double> xs, ys;
      for (const auto& seed : plan.seeds) {
        for (const auto& run : seed.runs) {
          for (const auto& p : run.points) {
            const std::optional<double> f = test ? p.test_forgetting : p.forgetting;
            if (!f) continue;
            xs << p.learning;
            ys << *f;
          }
        }
      }
      QColor c = methodColor(methods, qs(plan.plan));
      c.setAlpha(70);
      auto* g = new QCPGraph(m_fronts->xAxis, m_fronts->yAxis);
      g->setData(xs, ys);
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 4));
      g->removeFromLegend();
      g->setProperty("gbPlan", qs(plan.plan));
      g->setProperty("gbRole", u"points"_s);
    }
  }
  int drawn = 0;
  QStringList partial;
  for (const auto& c : curves) {
    QVector<double> x, mean, lo, hi;
    for (size_t i = 0; i < c.levels.size(); ++i) {
      const auto& st = c.forgetting[i];
      if (st.n == 0 || st.n < c.seeds) continue;  // where every seed reaches the level
      x << c.levels[i];
      mean << st.mean;
      lo << (logY ? std::max(st.mean - st.std, 0.5 * st.mean) : st.mean - st.std);
      hi << st.mean + st.std;
    }
    const QString plan = qs(c.plan);
    if (x.isEmpty()) {
      partial << plan;
      continue;
    }
    const QColor color = methodColor(methods, plan);
    auto* lower = new QCPGraph(m_fronts->xAxis, m_fronts->yAxis);
    lower->setData(x, lo);
    lower->setPen(Qt::NoPen);
    lower->removeFromLegend();
    lower->setProperty("gbPlan", plan);
    lower->setProperty("gbRole", u"lower"_s);
    auto* upper = new QCPGraph(m_fronts->xAxis, m_fronts->yAxis);
    upper->setData(x, hi);
    upper->setPen(Qt::NoPen);
    QColor fill = color;
    fill.setAlpha(50);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
    upper->removeFromLegend();
    upper->setProperty("gbPlan", plan);
    upper->setProperty("gbRole", u"upper"_s);
    auto* line = new QCPGraph(m_fronts->xAxis, m_fronts->yAxis);
    line->setData(x, mean);
    line->setPen(QPen(color, 2.0));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 4));
    line->setName(c.seeds > 1 ? tr("%1 (%n seed(s))", nullptr, static_cast<int>(c.seeds)).arg(plan)
                              : plan);
    line->setProperty("gbPlan", plan);
    line->setProperty("gbRole", u"mean"_s);
    ++drawn;
  }
  m_fronts->rescaleAxes();
  padAxis(m_fronts->xAxis);
  padAxis(m_fronts->yAxis);
  // The matched level: a dashed vertical line, its value at the top, the plans' forgetting
  // there as rings on their fronts.
  const QColor text = QApplication::palette().color(QPalette::Text);
  m_levelMarks = new QCPGraph(m_fronts->xAxis, m_fronts->yAxis);
  m_levelMarks->setLineStyle(QCPGraph::lsNone);
  m_levelMarks->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(text, 1.6), Qt::NoBrush, 12));
  m_levelMarks->removeFromLegend();
  m_levelMarks->setProperty("gbRole", u"marks"_s);
  m_levelLine = new QCPItemStraightLine(m_fronts);
  for (auto* pt : {m_levelLine->point1, m_levelLine->point2}) {
    pt->setTypeX(QCPItemPosition::ptPlotCoords);
    pt->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  m_levelLine->setPen(QPen(text, 1.5, Qt::DashLine));
  m_levelLabel = new QCPItemText(m_fronts);
  m_levelLabel->position->setTypeX(QCPItemPosition::ptPlotCoords);
  m_levelLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_levelLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_levelLabel->setPadding(QMargins(6, 4, 4, 2));
  QColor bg = QApplication::palette().color(QPalette::Base);
  bg.setAlpha(220);
  m_levelLabel->setBrush(bg);
  m_levelLabel->setColor(text);
  m_levelLabel->setFont(QApplication::font());
  m_levelLabel->setClipToAxisRect(true);
  QStringList notes;
  notes << tr("Lines: per plan, the least forgetting at each level of learning over its rates "
              "and evaluations (mean over its seeds; band: ± one standard deviation), drawn "
              "where every seed reaches the level.");
  if (m_points->isChecked()) notes << tr("Dots: every evaluation of every run.");
  if (filtered) notes << tr("Only the runs the filters let through.");
  if (!partial.isEmpty()) {
    notes << tr("No level is reached by every seed of: %1.").arg(partial.join(u", "_s));
  }
  if (!test && !splitNote.isEmpty()) notes << tr("Validation sets: %1").arg(splitNote);
  if (!all.skipped.empty()) {
    notes << tr("%n run(s) not finished or without evaluations are left out.", nullptr,
                static_cast<int>(all.skipped.size()));
  }
  m_frontsNote->setText(notes.join(u' '));
  m_fronts->legend->setVisible(drawn > 0);
  updateMatchedLine();
}

void GroupCompareView::updateChoiceTable() {
  m_choice->clear();
  if (!m_data || !m_data->compare) {
    m_choice->setRowCount(0);
    m_choice->setColumnCount(0);
    return;
  }
  const auto& res = *m_data->compare;
  const QStringList headers = {
      tr("Method"),
      tr("Within budget"),
      tr("Chosen configuration"),
      tr("Runs"),
      tr("%1 (%2)").arg(qs(res.learning_key), qs(res.report_split)),
      tr("Forgetting of %1 (%2)").arg(qs(res.forgetting_key), qs(res.report_split))};
  m_choice->setColumnCount(static_cast<int>(headers.size()));
  m_choice->setHorizontalHeaderLabels(headers);
  m_choice->setRowCount(static_cast<int>(res.methods.size()));
  int row = 0;
  for (const auto& m : res.methods) {
    auto set = [&](int col, const QString& t, const QString& tip = {}) {
      auto* item = new QTableWidgetItem(t);
      item->setToolTip(tip.isEmpty() ? t : tip);
      m_choice->setItem(row, col, item);
    };
    set(0, qs(m.method));
    if (m.meets_budget) {
      QStringList cfg;
      if (m.params.is_object()) {
        for (auto it = m.params.begin(); it != m.params.end(); ++it) {
          const QString k = qs(it.key());
          if (!m_data->sweptKeys.contains(k)) continue;
          cfg << k + u'=' +
                     (it->is_string()   ? qs(it->get<std::string>())
                      : it->is_number() ? QString::number(it->get<double>(), 'g', 4)
                                        : qs(it->dump()));
        }
      }
      set(1, tr("yes"),
          tr("chosen among %n configuration(s)", nullptr, static_cast<int>(m.configurations)));
      set(2, cfg.isEmpty() ? tr("(the only one)") : cfg.join(u", "_s));
      QStringList ids;
      for (int64_t id : m.runs) ids << QString::number(id);
      set(3, ids.join(u", "_s));
      set(4, u"%1 ± %2"_s.arg(formatValue(m.learning.mean), formatValue(m.learning.std)));
      set(5, u"%1 ± %2 %"_s.arg(100 * m.forgetting.mean, 0, 'f', 2)
                 .arg(100 * m.forgetting.std, 0, 'f', 2));
    } else {
      set(1, tr("no"),
          tr("No configuration of %1 stays within the budget; the least mean forgetting is "
             "%2 %")
              .arg(qs(m.method))
              .arg(100 * m.best_forgetting, 0, 'f', 2));
      set(2, tr("least forgetting: %1 %").arg(100 * m.best_forgetting, 0, 'f', 2));
      set(3, QString());
      set(4, QString());
      set(5, QString());
    }
    ++row;
  }
  m_choice->resizeColumnsToContents();
  for (int c = 0; c < m_choice->columnCount(); ++c) {
    if (m_choice->columnWidth(c) > 360) m_choice->setColumnWidth(c, 360);
  }
}

// ---- curves ---------------------------------------------------------------------------

QString GroupCompareView::curveKey() const {
  return m_curveKey->currentText();
}

void GroupCompareView::setCurveKey(const QString& key) {
  const int i = m_curveKey->findText(key);
  if (i >= 0) m_curveKey->setCurrentIndex(i);
}

void GroupCompareView::setBandMode(BandMode mode) {
  m_band->setCurrentIndex(m_band->findData(int(mode)));
}

bool GroupCompareView::curvesReady() const {
  return m_series.contains(curveKey()) && !m_dirtyCurves;
}

void GroupCompareView::requestSeries() {
  const QString key = curveKey();
  if (!m_data || key.isEmpty() || m_series.contains(key)) return;
  if (!m_seriesRequested.isEmpty()) return;  // one at a time; the next follows
  const QString path = m_session->store()->path();
  if (path.isEmpty()) return;
  m_seriesRequested = key;
  QVector<qint64> ids;
  for (const RunSummary& r : m_data->runs) ids << r.id;
  m_curvesNote->setText(tr("Reading %1…").arg(key));
  m_seriesLoader->setFuture(QtConcurrent::run(loadGroupSeries, path, m_group, ids, key));
}

void GroupCompareView::replotCurves() {
  m_dirtyCurves = false;
  m_curves->clearPlottables();
  if (!m_data) return;
  const QString key = curveKey();
  auto sit = m_series.constFind(key);
  if (sit == m_series.constEnd()) return;
  const BandMode mode = BandMode(m_band->currentData().toInt());
  const bool log = m_curveLog->isChecked();
  setLogAxis(m_curves->yAxis, log);
  m_curves->yAxis->setLabel(Figure{Figure::Kind::Final, key}.title());
  QStringList methods;
  for (const RunSummary& r : m_data->runs) {
    if (!methods.contains(r.plan)) methods << r.plan;
  }
  std::sort(methods.begin(), methods.end());
  const QVector<int> accepted = acceptedIndices();
  const QVector<RunGroup> groups =
      accepted.isEmpty() ? QVector<RunGroup>() : groupRuns(*m_data, grouping(), accepted);
  int drawn = 0;
  const QVector<int> within = indexWithinMethod(groups);
  static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
  for (int gi = 0; gi < groups.size(); ++gi) {
    const RunGroup& grp = groups[gi];
    QVector<const SeriesData*> series;
    for (int i : grp.runs) {
      auto it = sit->series.constFind(m_data->runs[i].id);
      if (it != sit->series.constEnd()) series << &*it;
    }
    if (series.isEmpty()) continue;
    BandSeries b = bandOf(series, mode);
    if (b.steps.isEmpty()) continue;
    if (log) {
      for (double& v : b.lower) v = std::max(v, 1e-12);
    }
    // Colour: the method; shade and dashes: the configuration within it.
    const QColor c = configColor(methodColor(methods, grp.method), within[gi]);
    auto* lower = new QCPGraph(m_curves->xAxis, m_curves->yAxis);
    lower->setData(b.steps, b.lower, true);
    lower->setPen(Qt::NoPen);
    lower->removeFromLegend();
    auto* upper = new QCPGraph(m_curves->xAxis, m_curves->yAxis);
    upper->setData(b.steps, b.upper, true);
    upper->setPen(Qt::NoPen);
    QColor fill = c;
    fill.setAlpha(50);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
    upper->removeFromLegend();
    auto* mean = new QCPGraph(m_curves->xAxis, m_curves->yAxis);
    mean->setData(b.steps, b.mean, true);
    mean->setPen(QPen(c, 1.8, styles[within[gi] % 4]));
    mean->setName(grp.label + tr(" (n=%1)").arg(series.size()));
    if (b.steps.size() <= 40) {
      mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, c, 4));
    }
    ++drawn;
  }
  m_curvesNote->setText(
      drawn == 0
          ? tr("No run of the shown groups has %1.").arg(key)
          : (mode == BandMode::StdDev
                 ? tr("Lines: mean over the runs of a group at each step; band: ± one standard "
                      "deviation. Runs without a step are left out there.")
                 : tr("Lines: mean over the runs of a group at each step; band: min to max. "
                      "Runs without a step are left out there.")));
  m_curves->rescaleAxes();
  padAxis(m_curves->yAxis);
  m_curves->legend->setVisible(drawn > 0);
  m_curves->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace gb::gui
