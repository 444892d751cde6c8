#pragma once
// The data of one run group (the runs of one spec: seeds × sweep points × plans) for the
// grouped compare view: a summary per run (flattened hyper-parameters, the first and the
// latest value of every metric, whether it has a final evaluation), read from the store in
// a few queries (runs with their specs, every run's parameters, metric_latest, and one
// indexed look-up per run and evaluation key for the step-0 values), and the comparison
// within a forgetting budget from experiment::compare_group, and the group's trade-off traces
// (experiment::load_traces: every evaluated point of every finished run) from which the view
// computes the fronts and the forgetting at matched learning without another query. Series
// are loaded lazily, one key at a time.
//
// Honest figures: a run whose latest evaluation is its step-0 evaluation (queued,
// interrupted or cancelled early) has no figure (NaN), never "+0.0 %"; a run that is not
// finished but evaluated after step 0 has a partial figure that names its step.

#include <QColor>
#include <QHash>
#include <QMap>
#include <QMetaType>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVector>

#include <optional>

#include <nlohmann/json.hpp>

#include "experiment/compare.h"
#include "experiment/fronts.h"
#include "store/types.h"
#include "storeservice.h"

namespace gb::store {
class Store;
}

namespace gb::gui {

struct RunSummary {
  qint64 id = 0;
  QString name;
  gb::store::RunStatus status = gb::store::RunStatus::Queued;
  QString plan;                    // the "plan" parameter (plan label), else the variant
  QMap<QString, QVariant> params;  // flattened: double, bool or QString
  QHash<QString, double> last;     // latest value of every metric key
  QHash<QString, qint64> lastStep;
  QHash<QString, double> first;  // step-0 value of the evaluation keys (eval/, test/)
  qint64 evalStep = -1;          // the latest step of an eval/ or test/ metric; -1: none
  qint64 totalSteps = 0;         // train.steps of its spec
  nlohmann::json evalSets;       // what defines its evaluation sets (evalSetsOf)

  // Finished, with an evaluation after step 0: its figures are final.
  bool complete() const { return status == gb::store::RunStatus::Finished && evalStep > 0; }
  // Evaluated after step 0 but not finished: figures are marked partial with evalStep.
  bool partial() const { return status != gb::store::RunStatus::Finished && evalStep > 0; }
  // No evaluation after step 0: no figure at all.
  bool noFigure() const { return evalStep <= 0; }
};

// A figure of a run: the final value of a metric key, or its relative change from step 0
// in percent, signed so that larger = more forgetting (Forgetting) or more learning
// (Learning).
struct Figure {
  // Matched: forgetting at matched learning (the view's level; key: the validation
  // forgetting key). figureOf has no value for it: see matchedFigure.
  enum class Kind { Final, Forgetting, Learning, Matched };
  Kind kind = Kind::Final;
  QString key;
  QString id() const;  // "final:eval/new/loss", "forgetting:eval/orig/ppl", ...
  static Figure fromId(const QString& id);
  QString title() const;  // axis and column title
  bool lowerIsBetter() const;
  bool operator==(const Figure& o) const { return kind == o.kind && key == o.key; }
};

// The figure of a run; NaN when it has none (no evaluation after step 0, no such key, no
// step-0 value for a change). `step` (optional) receives the step it comes from.
double figureOf(const RunSummary& run, const Figure& figure, qint64* step = nullptr);

struct GroupData {
  QString group;
  QString dbPath;            // the store it was read from (loadGroupFromFile)
  QString error;             // loading failed (the view says so)
  QVector<RunSummary> runs;  // by id
  QStringList paramKeys;     // every flattened parameter key, "plan" and "seed" first
  QStringList metricKeys;    // every metric key, sorted
  QStringList variedKeys;    // parameter keys whose values differ between runs (no seed)
  // Keys whose values differ between runs of the same plan (the swept ones: no seed, plan
  // or variant; not a key that only some plans have).
  QStringList sweptKeys;
  // The comparison within the budget (compare_group); empty with compareError on failure.
  std::optional<gb::experiment::CompareResult> compare;
  gb::experiment::CompareOptions compareOptions;
  QString compareError;
  QStringList evalDifferences;  // evalSetDifferences of the runs (empty: all the same)
  // The trade-off traces on frontOptions' metrics (load_traces); empty with tracesError when
  // they could not be read (no finished run with evaluations, a key that is not eval/...).
  std::optional<gb::experiment::GroupTraces> traces;
  gb::experiment::FrontOptions frontOptions;
  QString tracesError;
  int runIndex(qint64 id) const;
};

struct GroupSeries {
  QString group;
  QString key;
  QHash<qint64, SeriesData> series;  // run → the key's series
};

// Reads a group, compares it with `options` and reads its traces on `fronts`' metrics
// (options.group and fronts.group are set to `group`).
GroupData loadGroup(gb::store::Store& store, const QString& group,
                    const gb::experiment::CompareOptions& options,
                    const gb::experiment::FrontOptions& fronts = {});
// Opens the store read-only on this thread and loads the group (background loads).
GroupData loadGroupFromFile(const QString& dbPath, const QString& group,
                            const gb::experiment::CompareOptions& options,
                            const gb::experiment::FrontOptions& fronts = {});
GroupSeries loadGroupSeries(const QString& dbPath, const QString& group,
                            const QVector<qint64>& runIds, const QString& key);

// What defines a run's evaluation sets in its spec: data.<domain>.eval and .test, tasks,
// eval.tokens, train.seq_len, and the spec seed when a set is a held-out part of a split.
nlohmann::json evalSetsOf(const nlohmann::json& spec);
// The differences between the evaluation sets of runs, one line per differing key, naming
// the runs: "data.new.eval.path: “a.txt” (runs 3, 4) vs “b.txt” (run 5)". Empty when all
// runs evaluate on the same sets.
QStringList evalSetDifferences(const QVector<QPair<qint64, nlohmann::json>>& evalSets);

// A parameter value as text: numbers with up to 4 significant digits, strings as they are.
QString paramText(const QVariant& value);

// ---- forgetting at matched learning ---------------------------------------------------

// The level the view compares at: a value of the traces' learning metric, "auto"
// (experiment::auto_level) or dragged; `test`: report the test split (compare_at's split at
// this level).
struct MatchedLevel {
  double value = 0;
  bool isAuto = true;
  bool test = false;
};

// Forgetting at matched learning over a set of runs: per seed, the point of the seed's runs
// (among the set, in the traces' order) with the least validation forgetting whose
// validation learning reaches the level (experiment::match_at), then mean ± sample std over
// the seeds that reach it. The runs of one plan give exactly compare_at's row of that plan.
// Reported on the test split when the level says so and every chosen point has its test
// value, else on the validation split (`test` says which).
struct MatchedFigure {
  int n = 0;      // seeds that reach the level
  int seeds = 0;  // seeds with a traced run (finished, with evaluations) in the set
  double mean = qQNaN(), std = qQNaN();
  bool test = false;
  QVector<qint64> seedIds;                             // the seeds of `points`
  QVector<gb::experiment::MatchedPoint> points;        // one per seed that reaches it
  QVector<qint64> unreachedSeeds;
  bool traced() const { return seeds > 0; }
  bool reaches() const { return n > 0; }
};
MatchedFigure matchedFigure(const gb::experiment::GroupTraces& traces,
                            const QSet<qint64>& runIds, const MatchedLevel& level);
// "2.034 ± 0.012", "2.034 ± 0.012 (2 of 3 seeds)", "does not reach", "–" (no traced run).
QString matchedText(const MatchedFigure& figure);
// A tooltip: the level, the split, where each seed's point is (run, lr, step), the seeds that
// do not reach it.
QString matchedToolTip(const MatchedFigure& figure, const gb::experiment::GroupTraces& traces,
                       const MatchedLevel& level);
// The traces of only these runs (seeds and plans left without a run are dropped).
gb::experiment::GroupTraces filterTraces(const gb::experiment::GroupTraces& traces,
                                         const QSet<qint64>& runIds);
// "≤ 3.21" (lower-is-better learning) or "≥ 0.61".
QString levelText(const gb::experiment::GroupTraces& traces, double value);

// ---- grouping -------------------------------------------------------------------------

// How runs are grouped: by one parameter key, or by configuration (every parameter but the
// seed: the runs of a configuration differ only in their seed).
inline const QString kGroupByConfiguration = QStringLiteral("(configuration)");

struct RunGroup {
  QString key;        // grouping value (internal)
  QString label;      // unique display label: plan + distinguishing hyper-parameters
  QString method;     // the plan of its runs (first run's), for colours
  QVector<int> runs;  // indices into GroupData::runs
};

struct FigureStat {
  double mean = qQNaN(), std = qQNaN(), min = qQNaN(), max = qQNaN();
  int n = 0;  // runs with a (final) figure
};

// Groups the runs at `indices` (every run when empty) by `by` (a parameter key or
// kGroupByConfiguration). Groups are sorted by method, then label.
QVector<RunGroup> groupRuns(const GroupData& data, const QString& by,
                            const QVector<int>& indices = {});
// Mean, sample standard deviation (0 for one run), min and max of a figure over the
// group's COMPLETE runs (finished, evaluated after step 0).
FigureStat groupStat(const GroupData& data, const RunGroup& group, const Figure& figure);
// Mean ± band of a set of series at every step that at least one has.
struct BandSeries {
  QVector<double> steps, mean, lower, upper;
  QVector<int> n;
};
enum class BandMode { StdDev, MinMax };
BandSeries bandOf(const QVector<const SeriesData*>& series, BandMode mode);

// Colours of methods (plans), stable for a list of method names.
QColor methodColor(const QStringList& methods, const QString& method);
// The k-th configuration of a method: its colour in another shade (k = 0: the method's).
QColor configColor(const QColor& methodColor, int k);
// For each group, its index among the groups of the same method (shades, marker shapes).
QVector<int> indexWithinMethod(const QVector<RunGroup>& groups);

}  // namespace gb::gui

Q_DECLARE_METATYPE(gb::gui::GroupData)
Q_DECLARE_METATYPE(gb::gui::GroupSeries)
