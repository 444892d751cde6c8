#include "experiment/run_executor.h"

#include "experiment/expand.h"
#include "experiment/integrity.h"
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <memory>
#include <torch/torch.h>
#include "data/cloze.h"
#include "data/packing.h"
#include "dist/group.h"
#include "dist/shard.h"
#include "eval/evaluate.h"
#include "experiment/preset.h"
#include "experiment/sources.h"
#include "experiment/train_options.h"
#include "grow/checkpoint.h"
#include "grow/ewc.h"
#include "grow/routes.h"
#include "grow/scale.h"
#include "grow/growth.h"
#include "grow/run_hooks.h"
#include "grow/variant.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/selection.h"
#include "model/config.h"
#include "model/frozen_dtype.h"
#include "model/runtime.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/process.h"
#include "store/store.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/events.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"
#include "util/memory_context.h"
#include "util/metrics.h"
#include "util/torch_compat.h"

namespace gb::experiment::detail {

namespace fs = std::filesystem;
namespace mk = gb::metrics;
namespace ev = gb::events;
using Json = nlohmann::json;

namespace {

// A checkpoint's EWC state (anchors and Fishers of the tasks finished so far).
constexpr char kEwcState[] = "ewc.safetensors";
// Divergence: consecutive logged steps with the loss above diverge_factor × its first value.
constexpr int64_t kDivergePatience = 3;

// ---------------------------------------------------------------------------------------
// One run

struct RunState {
  int64_t global_step = 0;
  size_t phase = 0;
  int64_t phase_step = 0;
  uint64_t source_step = 0;
  std::map<std::string, double> lr_scales;
  int64_t last_eval_step = -1;
};

// The batches of a run's phase: its batch size, its run seed, its plan's replay fraction.
std::unique_ptr<data::BatchSource> make_source(const Prepared& p, const ExperimentSpec& run,
                                               const grow::GrowthPlan& plan, size_t phase) {
  data::BatcherOptions bo;
  bo.seq_len = run.train.seq_len;
  bo.batch_size = run.train.batch_size;
  bo.seed = run.run_seed + 7919 * phase;
  bo.shuffle_documents = p.phases[phase].reorder;
  auto main = std::make_unique<data::Batcher>(p.phases[phase].stream, bo);
  // The plan's replay fraction, or the spec's train.replay.
  const double replay = plan.replay.value_or(run.train.replay);
  if (replay <= 0 || !p.replay) return main;
  data::BatcherOptions ro = bo;
  ro.seed = bo.seed + 104729;
  ro.shuffle_documents = reorders_documents(p.spec.original_replay);
  ro.domain = data::Domain::Original;
  if (plan.replay_mode.value_or(run.train.replay_mode) == "rows") {
    // Both streams read row by row, each in its own window order (data/packing.h).
    data::BatcherOptions one = bo, one_orig = ro;
    one.batch_size = one_orig.batch_size = 1;
    return std::make_unique<data::RowMixedBatcher>(
        std::make_unique<data::Batcher>(p.phases[phase].stream, one),
        std::make_unique<data::Batcher>(p.replay, one_orig), bo.batch_size, replay);
  }
  auto orig = std::make_unique<data::Batcher>(p.replay, ro);
  return std::make_unique<data::MixedBatcher>(std::move(main), std::move(orig), replay, bo.seed);
}

// A run in stages: execute() loads the base model, grows it (probing first when the plan
// needs it), makes the trainer, starts or resumes, trains, and finishes; stop() is the one
// place a run ends early (cancelled, diverged or failed).
// Runs one plan. What a plan's variant needs or does while it trains comes from its module's
// run hooks (grow/run_hooks.h); this executor is their RunContext and names no variant.
class RunExecutor : private grow::RunContext {
 public:
  // `run` is the run's own resolved spec (one plan; its train section and run seed).
  RunExecutor(Prepared& p, store::Store& store, const ExperimentSpec& run, int64_t run_id)
      : m_p(p),
        m_spec(run),
        m_store(store),
        m_plan(run.plans.at(0)),
        m_module(grow::variant_module(m_plan.variant)),
        m_run(run_id),
        m_writer(store.metrics_writer()),
        m_store_uuid(store.uuid()),
        m_spec_hash(run_spec_hash(run.raw)) {
    for (const auto& ph : p.phases) {
      m_phase_steps.push_back(ph.own_steps > 0 ? ph.own_steps : m_spec.train.steps);
    }
  }

  RunOutcome execute(const std::optional<store::CheckpointInfo>& resume_from);

 private:
  // Stages, in order.
  void load_base();
  void grow_model(const std::optional<store::CheckpointInfo>& resume_from);
  void store_frozen_narrow();
  void make_trainer();
  void start();
  void resume(const store::CheckpointInfo& checkpoint);
  void train_loop();
  void finish();
  void stop(const std::exception_ptr& error);

  // Parts of the stages.
  grow::GrowthPlan plan_to_apply(const std::optional<store::CheckpointInfo>& resume_from) const;
  std::map<std::string, torch::Tensor> base_fisher();
  void record_variant_warnings(const grow::GrowthPlan& plan, bool resumed);
  void attach_ewc(const grow::EwcOptions& options, bool state_follows);
  std::set<std::string> trainable_names() const;
  std::map<std::string, torch::Tensor> fisher_of(const importance::ProbeSet& set,
                                                 const std::set<std::string>& only);
  void ewc_next_task(const Phase& phase);
  void train_step(const Phase& phase, const train::Schedule& schedule);
  void record_step(const train::StepStats& stats);
  void report_progress(const Phase& phase, const train::StepStats& stats);
  void after_step();
  double tokens_per_s() const { return m_train_tokens / std::max(m_train_seconds, 1e-9); }
  void evaluate(int64_t step);
  void check_guard(int64_t step);
  void record_routes(int64_t step);
  void evaluate_task(const TaskData& t,
                     const std::function<void(const std::string&, double)>& put_m,
                     bool test = false);
  // A task's scores on the current weights: (metric suffix, value), the first the value a
  // cell of the sequence's accuracy matrix takes (accuracy; an LM task's negated loss).
  using TaskScores = std::vector<std::pair<const char*, double>>;
  TaskScores task_scores(const TaskData& t);
  // Upscaled (SCALE) models: each mc/qa task's accuracy from the frozen logits W_out·X alone
  // (eval/<task>/acc_frozen_head; the test versions where `with_tests`).
  void evaluate_frozen_head(const std::function<void(const std::string&, double)>& put_m,
                            bool with_tests);
  // The sequence tasks' scores, computed once per state of the weights: a task's end and an
  // evaluation at the same step (and the final evaluation after the last row) share them.
  const std::vector<TaskScores>& sequence_scores();
  void evaluate_sequence_row(size_t after_phase);
  // grow::RunContext, for the variant's hooks.
  int64_t steps_done() const override { return m_state.global_step; }
  const grow::GrowthResult& growth() const override { return m_growth; }
  importance::ProbeResult probe_units(const std::string& method,
                                      const Json& record_params) override;
  bool set_lr_scale(const std::string& group, double scale) override;
  void metric(const std::string& key, double value) override {
    put(m_state.global_step, key, value);
  }
  void info(const std::string& message) override {
    m_store.add_event(m_run, store::EventLevel::Info, message);
  }
  void save_checkpoint(const std::string& reason);
  void save_cancel_checkpoint();
  // Data-parallel: rank 0 writes; the world is recorded on the run; LM evaluation sharded.
  bool leader() const { return !m_p.options.dist || m_p.options.dist->leader(); }
  void record_world();
  eval::LmResult lm_eval(const std::vector<data::Batch>& batches);
  void inject_dist_fault();
  void flush_quietly();
  void put(int64_t step, const std::string& key, double value) {
    m_writer.add(m_run, step, key, value);
    m_last[key] = value;
  }

  Prepared& m_p;
  const ExperimentSpec m_spec;  // this run's
  std::vector<int64_t> m_phase_steps;
  store::Store& m_store;
  grow::GrowthPlan m_plan;
  const grow::VariantModule& m_module;  // the plan's variant
  int64_t m_run;
  store::MetricsWriter m_writer;
  const std::string m_store_uuid, m_spec_hash;  // written into every checkpoint
  RunOutcome m_out;
  Clock::time_point m_start;
  LoadedModel m_model;
  grow::GrowthResult m_growth;
  std::unique_ptr<train::Trainer> m_trainer;
  std::shared_ptr<grow::EwcPenalty> m_ewc;  // the run's EWC penalty, if any
  train::Schedule m_schedule;               // the spec's; each phase sets its total
  std::unique_ptr<data::BatchSource> m_source;
  RunState m_state;
  torch::Tensor m_reference;  // final hidden states of the base on the original eval set
  int64_t m_base_width = 0;
  int64_t m_total_steps = 0;
  double m_train_seconds = 0;  // in optimizer steps, this session
  int64_t m_train_tokens = 0;
  Clock::time_point m_last_emit;
  std::map<std::string, double> m_last;
  // The forgetting guard: the metric's step-0 value, the trainable weights at the last
  // evaluation within the budget (rollback), and whether training ends early.
  double m_guard_start = NAN;
  double m_first_loss = NAN;  // divergence: the first logged training loss
  int64_t m_loss_high = 0;    // consecutive steps above diverge_factor × it
  std::vector<torch::Tensor> m_guard_weights;
  int64_t m_guard_step = 0;
  bool m_end_training = false;
  // Counts every change of the weights (optimizer steps, a rollback) this session, so that
  // scores of the sequence tasks are reused only for the weights they were computed on.
  int64_t m_weights_version = 0;
  int64_t m_sequence_scores_version = -1;
  std::vector<TaskScores> m_sequence_scores;
};

// A forgetting guard with "action": "stop" ended the run.
class GuardStopped : public Error {
 public:
  explicit GuardStopped(const std::string& m) : Error(m) {}
};

RunOutcome RunExecutor::execute(const std::optional<store::CheckpointInfo>& resume_from) {
  m_start = Clock::now();
  m_out.run_id = m_run;
  m_out.label = m_plan.label();
  m_store.set_status(m_run, store::RunStatus::Running);
  try {
    record_world();
    load_base();
    grow_model(resume_from);
    store_frozen_narrow();
    make_trainer();
    if (resume_from) {
      resume(*resume_from);
    } else {
      start();
    }
    train_loop();
    finish();
  } catch (const std::exception&) {
    stop(std::current_exception());
  }
  m_out.seconds = seconds_since(m_start);
  m_out.final_metrics = m_last;
  ev::RunFinished e;
  e.run = m_run;
  e.status = m_out.status;
  e.error = m_out.error;
  e.seconds = m_out.seconds;
  e.final_metrics = m_last;
  emit(m_p, e);
  return m_out;
}

// Prepare: the base model and the step-0 reference of the original stream.
void RunExecutor::load_base() {
  m_model = grow::load_model(m_p.base_folder, {m_p.device, m_p.dtype});
  auto& model = *m_model.model;
  m_base_width = model.config.hidden_size;
  if (m_p.spec.eval.drift && !m_p.orig_eval.empty()) {
    m_reference = eval::final_hidden(model, m_p.orig_eval, m_p.device, m_base_width);
  }
}

// Grow, probing first when the plan needs it (a layer policy; the base model's Fisher).
void RunExecutor::grow_model(const std::optional<store::CheckpointInfo>& resume_from) {
  auto& model = *m_model.model;
  grow::ApplyContext actx;
  actx.seed = m_spec.run_seed;
  actx.resolve_policy = [&](const Json& policy) {
    for (const auto& need : importance::required_probes(policy)) {
      ensure_probe(m_p, m_store, need, model, m_run);
    }
    m_p.importance.num_layers = model.num_layers();
    return importance::select_layers(policy, m_p.importance);
  };
  const grow::GrowthPlan plan = plan_to_apply(resume_from);
  if (m_module.run.needs_base_fisher) actx.fisher = base_fisher();
  m_growth = grow::apply_plan(model, plan, actx);
  if (const auto ewc = plan.effective_ewc()) {
    // A resumed run's penalty comes from its checkpoint: no Fisher to compute first.
    attach_ewc(*ewc, resume_from && fs::exists(fs::path(resume_from->path) / kEwcState));
  }
  m_store.add_event(
      m_run, store::EventLevel::Info,
      fmt::format("applied {}: {} parameters ({} added), {} trainable", m_growth.plan.label(),
                  m_growth.total_params, m_growth.added_params(), m_growth.trainable_params));
  for (const auto& w : m_growth.warnings) {
    m_store.add_event(m_run, store::EventLevel::Warning, w);
  }
  record_variant_warnings(plan, resume_from.has_value());
  m_out.growth = m_growth.to_json();
  emit(m_p, ev::Grown{m_run, m_out.growth});
}

// Spec `frozen_dtype`: the frozen matrices in the checkpoint's dtype (or the one asked for)
// where it is narrower than the run's; an event says what was kept narrow.
void RunExecutor::store_frozen_narrow() {
  std::optional<c10::ScalarType> stored;
  try {
    stored = checkpoint_dtype(m_p.base_folder);
  } catch (const std::exception&) {
    stored = std::nullopt;  // no safetensors to read: nothing to keep narrow
  }
  const auto narrow = frozen_storage_dtype(m_spec.frozen_dtype, m_p.dtype, stored);
  if (!narrow) return;
  const FrozenStorage kept = store_frozen_as(*m_model.model, *narrow);
  if (kept.tensors == 0) return;
  m_store.add_event(
      m_run, store::EventLevel::Info,
      fmt::format("frozen base kept in {}: {} matrices ({} parameters), {} less "
                  "memory (frozen_dtype \"{}\")",
                  dtype_name(*narrow), kept.tensors, kept.elements,
                  gb::format_bytes(static_cast<double>(kept.bytes_saved)), m_spec.frozen_dtype));
}

// The run's plan, or on resume the checkpoint's resolved plan (layers explicit: no probes).
grow::GrowthPlan RunExecutor::plan_to_apply(
    const std::optional<store::CheckpointInfo>& resume_from) const {
  if (!resume_from) return m_plan;
  auto meta = json::parse_file((fs::path(resume_from->path) / "trainer.json").string());
  return grow::parse_plan(meta.at("extra").at("plan"), "checkpoint plan");
}

// EWC on the plan's trainable parameters (GrowthPlan::effective_ewc): the penalty the
// variant's operator built among its loss terms (from the base model's Fisher), or else a
// penalty anchored at the grown model before training with its Fisher on the general probe
// set.
void RunExecutor::attach_ewc(const grow::EwcOptions& options, bool state_follows) {
  for (const auto& t : m_growth.loss_terms) {
    if (auto e = std::dynamic_pointer_cast<grow::EwcPenalty>(t)) m_ewc = e;
  }
  if (m_ewc) return;
  auto& model = *m_model.model;
  std::vector<std::pair<std::string, torch::Tensor>> params;
  for (auto& item : model.named_parameters(true)) {
    if (item.value().requires_grad()) params.emplace_back(item.key(), item.value());
  }
  m_ewc = std::make_shared<grow::EwcPenalty>(options, std::move(params));
  if (!state_follows) {
    emit(m_p, stage_event("probe/fisher", m_run));
    // The Fisher of the trainable parameters only: the penalty needs no other.
    m_ewc->add_task(fisher_of(probe_set(m_p, false), trainable_names()));
  }
  m_growth.loss_terms.push_back(m_ewc);
}

// The diagonal Fisher of `only` (every parameter when empty) on `set`, sharded over the
// ranks of a data-parallel run (an event says how the batches were dealt out).
std::map<std::string, torch::Tensor> RunExecutor::fisher_of(const importance::ProbeSet& set,
                                                            const std::set<std::string>& only) {
  const importance::ProbeSharding shard = probe_sharding(m_p.options.dist);
  std::vector<int64_t> by_rank;
  auto fisher = importance::parameter_fisher(*m_model.model, set, m_p.probe_options, {}, only,
                                             &shard, &by_rank);
  if (!by_rank.empty()) {
    m_store.add_event(m_run, store::EventLevel::Info,
                      fmt::format("diagonal Fisher on '{}' sharded over {} processes (batches "
                                  "per rank: {})",
                                  set.description, by_rank.size(), fmt::join(by_rank, ", ")));
  }
  return fisher;
}

std::set<std::string> RunExecutor::trainable_names() const {
  std::set<std::string> names;
  for (auto& item : m_model.model->named_parameters(true)) {
    if (item.value().requires_grad()) names.insert(item.key());
  }
  return names;
}

// After a task of a sequence: the Fisher on that task's training data, a new anchor
// (per-task) or folded into the online Fisher.
void RunExecutor::ewc_next_task(const Phase& phase) {
  importance::ProbeSet set =
      importance::pack_stream(*phase.stream, m_p.probe_set_options, "task: " + phase.name);
  emit(m_p, stage_event("probe/fisher", m_run));
  m_ewc->add_task(fisher_of(set, trainable_names()));
  const auto& o = m_ewc->options();
  m_store.add_event(
      m_run, store::EventLevel::Info,
      o.mode == "online"
          ? fmt::format("EWC: Fisher of task '{}' folded into the online Fisher (gamma {}; {} "
                        "tasks seen)",
                        phase.name, o.gamma, m_ewc->tasks())
          : fmt::format("EWC: task '{}' anchored with its Fisher ({} anchored tasks)", phase.name,
                        m_ewc->tasks()));
}

// What the plan's variant says about its settings in this run (RunHooks::warnings).
void RunExecutor::record_variant_warnings(const grow::GrowthPlan& plan, bool resumed) {
  if (!m_module.run.warnings) return;
  grow::RunFacts facts;
  facts.replay = plan.replay.value_or(m_spec.train.replay);
  facts.data_parallel = static_cast<bool>(m_p.options.dist);
  facts.resumed = resumed;
  for (const auto& w : m_module.run.warnings(*plan.params.get(), facts)) {
    m_store.add_event(m_run, store::EventLevel::Warning, w);
  }
}

// The diagonal Fisher of the base model on the general probe set (RunHooks::
// needs_base_fisher: EWC's penalty), once per experiment.
std::map<std::string, torch::Tensor> RunExecutor::base_fisher() {
  if (m_p.fisher.empty()) {
    emit(m_p, stage_event("probe/fisher", m_run));
    m_p.fisher = fisher_of(probe_set(m_p, false), {});
  }
  return m_p.fisher;
}

void RunExecutor::make_trainer() {
  const TrainSpec& t = m_spec.train;
  train::TrainOptions to = train_options(t);
  to.check_every_step = !m_p.device.is_cuda();
  to.group = m_p.options.dist;
  to.bucket_bytes = m_p.options.bucket_bytes;
  if (const auto& g = m_p.options.dist) {
    // Every rank needs a row of every batch (fails early, with the sizes).
    dist::shard_rows(t.batch_size, g->world_size(), g->rank());
  }
  m_schedule = to.schedule;
  m_trainer = std::make_unique<train::Trainer>(m_model.model, m_growth, to, m_p.device);
  for (int64_t n : m_phase_steps) m_total_steps += n;
}

// A new run: the sizes and the step-0 evaluation (the base model, or the grown one).
void RunExecutor::start() {
  put(0, mk::kTotalParams, static_cast<double>(m_growth.total_params));
  put(0, mk::kTrainableParams, static_cast<double>(m_growth.trainable_params));
  put(0, mk::kAddedParams, static_cast<double>(m_growth.added_params()));
  evaluate(0);
  check_guard(0);
}

// A resumed run: trainer, data position and unit learning rates from the checkpoint; the
// metrics after it are dropped (the run records them again).
void RunExecutor::resume(const store::CheckpointInfo& checkpoint) {
  Json extra = m_trainer->load_checkpoint(checkpoint.path);
  m_state.global_step = extra.at("global_step").get<int64_t>();
  m_state.phase = extra.at("phase").get<size_t>();
  m_state.phase_step = extra.at("phase_step").get<int64_t>();
  m_state.source_step = extra.at("source_step").get<uint64_t>();
  for (auto it = extra["lr_scales"].begin(); it != extra["lr_scales"].end(); ++it) {
    m_trainer->set_lr_scale(it.key(), it.value().get<double>());
    m_state.lr_scales[it.key()] = it.value().get<double>();
  }
  const fs::path ewc_state = fs::path(checkpoint.path) / kEwcState;
  if (m_ewc && fs::exists(ewc_state)) m_ewc->load_state(st::read_all(ewc_state.string()));
  m_store.truncate_metrics(m_run, m_state.global_step);
  m_state.last_eval_step = m_state.global_step;
  {
    // Divergence compares with the run's first logged loss.
    auto series = m_store.metric_series(m_run);
    auto it = series.find(mk::kTrainLmLoss);
    if (it != series.end() && !it->second.values.empty()) m_first_loss = it->second.values.front();
  }
  if (!m_spec.guard.metric.empty()) {
    // The guard compares with the run's step-0 value; a rollback restores at most to here.
    auto series = m_store.metric_series(m_run);
    auto it = series.find(m_spec.guard.metric);
    if (it != series.end() && !it->second.steps.empty() && it->second.steps.front() == 0) {
      m_guard_start = it->second.values.front();
    }
    torch::NoGradGuard ng;
    for (const auto& grp : m_growth.groups) {
      for (const auto& p : grp.params) m_guard_weights.push_back(p.detach().clone());
    }
    m_guard_step = m_state.global_step;
  }
  if (const auto& g = m_p.options.dist) {
    // Rank 0's store holds the run's history: every rank decides from the same values.
    m_first_loss = g->broadcast(m_first_loss);
    m_guard_start = g->broadcast(m_guard_start);
  }
  m_store.add_event(
      m_run, store::EventLevel::Info,
      fmt::format("resumed from {} at step {}", checkpoint.path, m_state.global_step));
}

// The training phases, from the current state (a resumed run starts mid-phase).
void RunExecutor::train_loop() {
  m_last_emit = Clock::now();
  for (; m_state.phase < m_p.phases.size(); ++m_state.phase) {
    const Phase& ph = m_p.phases[m_state.phase];
    m_source = make_source(m_p, m_spec, m_plan, m_state.phase);
    m_source->seek(m_state.source_step);
    train::Schedule schedule = m_schedule;
    schedule.total = m_phase_steps[m_state.phase];
    for (; m_state.phase_step < schedule.total && !m_end_training; ++m_state.phase_step) {
      train_step(ph, schedule);
    }
    if (m_end_training) break;
    if (m_p.spec.is_sequence()) evaluate_sequence_row(m_state.phase);
    if (m_ewc && m_state.phase + 1 < m_p.phases.size()) ewc_next_task(ph);
    m_state.phase_step = 0;
    m_state.source_step = 0;
  }
}

void RunExecutor::train_step(const Phase& phase, const train::Schedule& schedule) {
  m_p.options.cancel.throw_if_cancelled();
  // The variant's work before a step (ADEPT's unit rates: grow/adept_stage2.h).
  if (m_module.run.before_step) m_module.run.before_step(*m_plan.params.get(), *this);
  inject_dist_fault();
  MemoryContext mc(
      fmt::format("a training step (batch {} x {} tokens, accumulation {})",
                  m_spec.train.batch_size, m_spec.train.seq_len, m_spec.train.accumulation),
      "train.batch_size (raise train.accumulation instead), train.seq_len or "
      "threads");
  std::vector<data::Batch> micro;
  for (int64_t a = 0; a < m_spec.train.accumulation; ++a) micro.push_back(m_source->next());
  if (m_p.options.inject_nan_at == m_state.global_step) {
    torch::NoGradGuard ng;
    m_growth.groups.front().params.front().fill_(NAN);
  }
  auto t0 = Clock::now();
  auto stats = m_trainer->step(micro, schedule, m_state.phase_step);
  ++m_weights_version;
  m_train_seconds += seconds_since(t0);
  m_train_tokens += stats.tokens;
  ++m_state.global_step;
  record_step(stats);
  m_writer.poll();
  report_progress(phase, stats);
  after_step();
}

void RunExecutor::record_step(const train::StepStats& stats) {
  const int64_t g = m_state.global_step;
  if (stats.synced && m_spec.train.diverge_factor > 0) {
    // A loss that stays far above where it started diverged even while it is finite.
    // The next-token loss: extra terms (local losses, penalties) may legitimately grow.
    if (std::isnan(m_first_loss)) m_first_loss = stats.lm_loss;
    const double limit = m_spec.train.diverge_factor * std::max(m_first_loss, 1e-12);
    m_loss_high = stats.lm_loss > limit ? m_loss_high + 1 : 0;
    if (m_loss_high >= kDivergePatience) {
      flush_quietly();
      throw train::DivergedError(
          fmt::format("training diverged at step {}: the LM loss {:.6g} stayed above {} × its "
                      "first value {:.6g} for {} consecutive steps",
                      g, stats.lm_loss, m_spec.train.diverge_factor, m_first_loss,
                      kDivergePatience),
          g, "loss");
    }
  }
  if (stats.synced) {
    put(g, mk::kTrainLoss, stats.loss);
    put(g, mk::kTrainLmLoss, stats.lm_loss);
    for (const auto& [k, v] : stats.terms) put(g, mk::train_term_key(k), v);
    put(g, mk::kTrainGradNorm, stats.grad_norm);
  }
  put(g, mk::kTrainLr, stats.lr);
  if (g % 10 == 0 || g == m_total_steps) put(g, mk::kTokensPerS, tokens_per_s());
}

// A progress event at most every 0.5 s, and at the last step.
void RunExecutor::report_progress(const Phase& phase, const train::StepStats& stats) {
  const int64_t g = m_state.global_step;
  if (!(seconds_since(m_last_emit) >= 0.5 || g == m_total_steps)) return;
  m_last_emit = Clock::now();
  ev::Progress e;
  e.run = m_run;
  e.stage = "train";
  e.phase = phase.name;
  e.step = g;
  e.total = m_total_steps;
  e.loss = stats.loss;
  e.lm_loss = stats.lm_loss;
  e.lr = stats.lr;
  e.tokens_per_s = tokens_per_s();
  e.elapsed_s = seconds_since(m_start);
  e.eta_s = m_train_seconds / std::max<int64_t>(1, g) * (m_total_steps - g);
  emit(m_p, e);
}

// The interval evaluation and checkpoint (the last step's come in finish()).
void RunExecutor::after_step() {
  const int64_t g = m_state.global_step;
  if (g % m_p.spec.eval.interval == 0 && g != m_total_steps) {
    evaluate(g);
    check_guard(g);
    if (m_end_training) return;
  }
  if (m_p.spec.checkpoint_interval > 0 && g % m_p.spec.checkpoint_interval == 0 &&
      g != m_total_steps) {
    m_state.source_step = m_source->step();
    // The checkpoint resumes at the next step of this phase.
    ++m_state.phase_step;
    save_checkpoint("interval");
    --m_state.phase_step;
  }
}

// The final evaluation, throughput and checkpoint.
void RunExecutor::finish() {
  if (m_state.last_eval_step != m_state.global_step) {
    evaluate(m_state.global_step);
    check_guard(m_state.global_step);
    if (m_end_training) evaluate(m_state.global_step);  // the restored weights
  } else if (m_end_training) {
    evaluate(m_state.global_step);  // rolled back at an interval evaluation
  }
  if (m_train_seconds > 0) {
    put(m_state.global_step, mk::kTokensPerS, m_train_tokens / m_train_seconds);
  }
  m_writer.flush();
  m_state.phase = m_p.phases.size();
  save_checkpoint("final");
  m_store.set_status(m_run, store::RunStatus::Finished);
  m_out.status = "finished";
}

// The one place a run ends early: its status and message in the store and the outcome.
void RunExecutor::stop(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const GuardStopped& e) {
    flush_quietly();
    try {
      if (m_source) m_state.source_step = m_source->step();
      save_checkpoint("stopped");
    } catch (const std::exception& ce) {
      log::get("runner")->error("run {}: could not write the guard's checkpoint: {}", m_run,
                                ce.what());
    }
    m_store.set_status(m_run, store::RunStatus::Stopped, e.what());
    m_out.status = "stopped";
    m_out.error = e.what();
  } catch (const CancelledError&) {
    save_cancel_checkpoint();
    m_store.set_status(m_run, store::RunStatus::Cancelled, "cancelled by the user");
    m_out.status = "cancelled";
    m_out.error = "cancelled";
  } catch (const train::DivergedError& e) {
    flush_quietly();
    m_store.set_status(m_run, store::RunStatus::Diverged, e.what());
    m_out.status = "diverged";
    m_out.error = e.what();
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto* c10e = dynamic_cast<const c10::Error*>(&e)) msg = c10e->what_without_backtrace();
    const std::string oom =
        describe_allocation_failure(msg, dynamic_cast<const std::bad_alloc*>(&e) != nullptr);
    if (!oom.empty()) msg = oom;
    flush_quietly();
    log::get("runner")->error("run {} failed: {}", m_run, msg);
    if (const auto& g = m_p.options.dist; g && !dynamic_cast<const dist::PeerError*>(&e)) {
      g->report_failure(fmt::format("{} (pid {})", msg, ::getpid()));
    }
    m_store.set_status(m_run, store::RunStatus::Failed, msg);
    m_out.status = "failed";
    m_out.error = msg;
  }
}

void RunExecutor::save_cancel_checkpoint() {
  try {
    m_writer.flush();
    if (m_trainer && m_state.global_step > 0) {
      if (m_source) m_state.source_step = m_source->step();
      save_checkpoint("cancelled");
    }
  } catch (const std::exception& e) {
    log::get("runner")->error("run {}: could not write the cancellation checkpoint: {}", m_run,
                              e.what());
  }
}

void RunExecutor::flush_quietly() {
  try {
    m_writer.flush();
  } catch (...) {
  }
}

void RunExecutor::record_routes(int64_t step) {
  const auto banks = grow::route_statistics(*m_model.model, m_p.orig_eval, m_p.device);
  if (banks.empty()) return;
  double sum = 0;
  for (const auto& b : banks) {
    put(step, mk::route_neff_key(b.bank), b.neff);
    sum += b.neff;
    for (size_t h = 0; h < b.usage.size(); ++h) {
      for (size_t j = 0; j < b.usage[h].size(); ++j) {
        put(step, mk::route_usage_key(b.bank, static_cast<int64_t>(h), static_cast<int64_t>(j)),
            b.usage[h][j]);
      }
    }
  }
  put(step, mk::kRouteNeff, sum / static_cast<double>(banks.size()));
}

// The forgetting guard (GuardSpec) after an evaluation at `step`.
void RunExecutor::check_guard(int64_t step) {
  const GuardSpec& g = m_spec.guard;
  if (g.metric.empty() || m_end_training) return;
  auto it = m_last.find(g.metric);
  if (it == m_last.end()) {
    if (step == 0) {
      m_store.add_event(
          m_run, store::EventLevel::Warning,
          fmt::format("guard: the run records no '{}', so the guard cannot act", g.metric));
    }
    return;
  }
  const double v = it->second;
  auto snapshot = [&] {
    if (g.action != "rollback") return;
    torch::NoGradGuard ng;
    m_guard_weights.clear();
    for (const auto& grp : m_growth.groups) {
      for (const auto& p : grp.params) m_guard_weights.push_back(p.detach().clone());
    }
    m_guard_step = step;
  };
  if (step == 0 || std::isnan(m_guard_start)) {
    m_guard_start = v;
    snapshot();
    return;
  }
  const bool higher = mk::higher_is_better(g.metric);
  const double change =
      (higher ? m_guard_start - v : v - m_guard_start) / std::max(std::fabs(m_guard_start), 1e-12);
  if (!(change > g.max_increase) && std::isfinite(v)) {
    snapshot();
    return;
  }
  const std::string what = fmt::format(
      "guard: {} moved {:+.2f} % from its step-0 value {:.6g} to {:.6g} at step {} "
      "(budget {:.2f} %)",
      g.metric, change * 100, m_guard_start, v, step, g.max_increase * 100);
  if (g.action == "stop") throw GuardStopped(what + ": run stopped");
  {
    torch::NoGradGuard ng;
    size_t i = 0;
    for (const auto& grp : m_growth.groups) {
      for (const auto& p : grp.params) p.copy_(m_guard_weights.at(i++));
    }
    ++m_weights_version;
  }
  m_store.add_event(m_run, store::EventLevel::Warning,
                    fmt::format("{}: rolled back to the weights of step {}, the last evaluation "
                                "within the budget; the run finishes from there",
                                what, m_guard_step));
  m_end_training = true;
}

void RunExecutor::evaluate(int64_t step) {
  const auto started = Clock::now();
  auto& model = *m_model.model;
  std::map<std::string, double> metrics;
  auto put_m = [&](const std::string& k, double v) {
    put(step, k, v);
    metrics[k] = v;
  };
  if (!m_p.orig_eval.empty()) {
    auto r = lm_eval(m_p.orig_eval);
    put_m(mk::kEvalOrigLoss, r.loss);
    put_m(mk::kEvalOrigPpl, r.ppl);
    if (m_reference.defined()) {
      auto h = eval::final_hidden(model, m_p.orig_eval, m_p.device, m_base_width);
      put_m(mk::kDriftCosine, eval::mean_cosine(h, m_reference));
      // SCALE's guarantee as the paper states it: the original stream W·X itself.
      if (grow::is_upscaled(model)) {
        put_m(mk::kDriftOrigStream, eval::relative_max_change(h, m_reference));
      }
    }
    // Route statistics of routed experts, at the start and the end (grow/routes.h).
    if (step == 0 || step == m_total_steps) record_routes(step);
  }
  if (!m_p.new_eval.empty()) {
    auto r = lm_eval(m_p.new_eval);
    put_m(mk::kEvalNewLoss, r.loss);
    put_m(mk::kEvalNewPpl, r.ppl);
  }
  // The held-out test sets: at the start and at the end only (or where a guard ends it), or
  // at every evaluation (eval.test "every").
  const bool test_now =
      step == 0 || step == m_total_steps || m_end_training || m_spec.eval.test == "every";
  if (test_now) {
    if (!m_p.orig_test.empty()) {
      auto r = lm_eval(m_p.orig_test);
      put_m(mk::kTestOrigLoss, r.loss);
      put_m(mk::kTestOrigPpl, r.ppl);
    }
    if (!m_p.new_test.empty()) {
      auto r = lm_eval(m_p.new_test);
      put_m(mk::kTestNewLoss, r.loss);
      put_m(mk::kTestNewPpl, r.ppl);
    }
  }
  for (const auto& t : m_p.tasks) evaluate_task(t, put_m);
  const auto& sequence = sequence_scores();
  for (size_t j = 0; j < m_p.seq_tasks.size(); ++j) {
    for (const auto& [suffix, value] : sequence[j]) {
      put_m(mk::task_key(m_p.seq_tasks[j].spec.name, suffix), value);
    }
  }
  // Held-out test versions of the tasks: when the test sets are evaluated.
  if (test_now) {
    for (const auto* list : {&m_p.tasks, &m_p.seq_tasks}) {
      for (const auto& t : *list) {
        if (t.test) evaluate_task(*t.test, put_m, true);
      }
    }
  }
  if (grow::is_upscaled(model)) {
    evaluate_frozen_head(put_m, step == 0 || step == m_total_steps || m_end_training);
  }
  for (const auto& [k, v] : metrics) {
    if (!std::isfinite(v)) {
      flush_quietly();
      throw train::DivergedError(
          fmt::format("training diverged: the evaluation at step {} gives {} = {}", step, k, v),
          step, k);
    }
  }
  if (const int64_t peak = compat::peak_memory_bytes(m_p.device); peak >= 0) {
    put_m(mk::kPeakMemoryMb, static_cast<double>(peak) / 1e6);
  }
  put(step, mk::kEvalSeconds, seconds_since(started));  // timing pilots read it (pilot.h)
  m_writer.flush();
  m_state.last_eval_step = step;
  emit(m_p, ev::Eval{m_run, step, metrics});
}

void RunExecutor::evaluate_task(const TaskData& t,
                                const std::function<void(const std::string&, double)>& put_m,
                                bool test) {
  for (const auto& [suffix, value] : task_scores(t)) {
    put_m(test ? mk::test_task_key(t.spec.name, suffix) : mk::task_key(t.spec.name, suffix), value);
  }
}

RunExecutor::TaskScores RunExecutor::task_scores(const TaskData& t) {
  auto& model = *m_model.model;
  if (t.spec.kind == "mc") {
    auto r = eval::mc_eval(model, t.mc, m_p.device, model.config.max_positions);
    return {{mk::kAcc, r.acc}, {mk::kAccNorm, r.acc_norm}};
  }
  if (t.spec.kind == "qa") {
    auto r = eval::qa_eval(model, t.qa, m_p.device, m_p.spec.eval.exact_match);
    TaskScores out = {{mk::kAcc, r.first_token_acc}};
    if (m_p.spec.eval.exact_match) out.emplace_back(mk::kEm, r.exact_match);
    out.emplace_back(mk::kAnswerLoss, r.answer_loss);
    return out;
  }
  auto r = lm_eval(t.lm);
  return {{mk::kLoss, r.loss}, {mk::kPpl, r.ppl}};
}

void RunExecutor::evaluate_frozen_head(const std::function<void(const std::string&, double)>& put_m,
                                       bool with_tests) {
  auto& model = *m_model.model;
  grow::FrozenHeadLogits frozen(model);
  auto acc = [&](const TaskData& t) -> std::optional<double> {
    if (t.spec.kind == "mc") {
      return eval::mc_eval(model, t.mc, m_p.device, model.config.max_positions).acc;
    }
    if (t.spec.kind == "qa") return eval::qa_eval(model, t.qa, m_p.device, false).first_token_acc;
    return std::nullopt;
  };
  for (const auto* list : {&m_p.tasks, &m_p.seq_tasks}) {
    for (const auto& t : *list) {
      if (auto a = acc(t)) put_m(mk::task_key(t.spec.name, mk::kAccFrozenHead), *a);
      if (!with_tests || !t.test) continue;
      if (auto a = acc(*t.test)) {
        put_m(mk::test_task_key(t.test->spec.name, mk::kAccFrozenHead), *a);
      }
    }
  }
}

const std::vector<RunExecutor::TaskScores>& RunExecutor::sequence_scores() {
  if (m_sequence_scores_version != m_weights_version) {
    m_sequence_scores.clear();
    for (const auto& t : m_p.seq_tasks) m_sequence_scores.push_back(task_scores(t));
    m_sequence_scores_version = m_weights_version;
  }
  return m_sequence_scores;
}

void RunExecutor::evaluate_sequence_row(size_t after_phase) {
  const auto& scores = sequence_scores();
  for (size_t j = 0; j < m_p.seq_tasks.size(); ++j) {
    const double front = scores[j].front().second;
    // The cell: accuracy (mc, qa first token), the negated loss of an LM task (higher is
    // better).
    const double acc =
        m_p.seq_tasks[j].spec.kind == "mc" || m_p.seq_tasks[j].spec.kind == "qa" ? front : -front;
    m_store.set_task_value(m_run, static_cast<int>(after_phase), static_cast<int>(j), acc);
  }
  if (after_phase + 1 == m_p.seq_tasks.size()) {
    auto matrix = m_store.task_matrix(m_run);
    std::vector<std::vector<double>> r(m_p.seq_tasks.size(),
                                       std::vector<double>(m_p.seq_tasks.size(), 0.0));
    for (const auto& cell : matrix.cells) r.at(cell.after_task).at(cell.eval_task) = cell.value;
    auto m = eval::op_bwt(r);
    put(m_state.global_step, mk::kEvalOp, m.op);
    put(m_state.global_step, mk::kEvalBwt, m.bwt);
    m_writer.flush();
  }
}

// The units' importance by `method` on the general probe set, recorded under the grown
// model ("<base key>+run<id>") with the hook's parameters, e.g. ADEPT's "adept_step", so
// that a report can show what each recomputation saw.
importance::ProbeResult RunExecutor::probe_units(const std::string& method,
                                                 const Json& record_params) {
  const auto& set = probe_set(m_p, false);
  const importance::ProbeOptions options = probe_options(m_p, method);
  const auto start = Clock::now();
  const importance::ProbeSharding shard = probe_sharding(m_p.options.dist);
  auto res = importance::run_probe(*m_model.model, set, options, {}, nullptr, {}, &shard);
  const auto& data = importance::probe_data(options, set, nullptr);
  const importance::ProbeDataInfo info{data.description, "", m_p.general_kind};
  auto record = importance::probe_record(
      fmt::format("{}+run{}", m_p.model_key, m_run), m_model.model->config, *m_model.model, data,
      info, m_p.probe_set_options, options, seconds_since(start), m_run);
  for (auto it = record_params.begin(); it != record_params.end(); ++it) {
    record.params[it.key()] = it.value();
  }
  importance::record_probe(m_store, res, record);
  return res;
}

// A group's rate multiplier, kept in the run state (and so in its checkpoints).
bool RunExecutor::set_lr_scale(const std::string& group, double scale) {
  try {
    m_trainer->set_lr_scale(group, scale);
  } catch (const Error&) {
    return false;  // the plan trains no such group
  }
  m_state.lr_scales[group] = scale;
  return true;
}

// ---------------------------------------------------------------------------------------
// Data-parallel parts (dist/group.h). Every rank runs this executor with the same global
// batches; rank 0 writes the store and the checkpoints, the others a scratch store.

// The world on the run: parameters (GUI columns) and an event.
void RunExecutor::record_world() {
  const auto& g = m_p.options.dist;
  if (!g) {
    // A data-parallel run resumed by one process.
    if (m_store.run_params(m_run).count("dist.world_size")) {
      m_store.set_run_params(m_run, {{"dist.world_size", 1}, {"dist.backend", ""}});
    }
    return;
  }
  std::vector<std::string> hosts;
  for (const auto& h : g->hosts()) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  m_store.set_run_params(m_run, {{"dist.world_size", g->world_size()},
                                 {"dist.backend", g->backend()},
                                 {"dist.hosts", fmt::format("{}", fmt::join(hosts, ","))},
                                 {"dist.launcher", g->world().launcher}});
  m_store.add_event(
      m_run, store::EventLevel::Info,
      fmt::format("data-parallel: {} processes ({}, launched by {}) on {}", g->world_size(),
                  g->backend(), g->world().launcher, fmt::join(hosts, ", ")));
}

// Next-token evaluation: each rank evaluates every world-th batch, the sums are all-reduced.
eval::LmResult RunExecutor::lm_eval(const std::vector<data::Batch>& batches) {
  auto& model = *m_model.model;
  const auto& g = m_p.options.dist;
  if (!g) return eval::lm_eval(model, batches, m_p.device);
  const auto mine = dist::deal_batches(batches, g->world_size(), g->rank());
  eval::LmResult local;
  if (!mine.empty()) local = eval::lm_eval(model, mine, m_p.device);
  const auto sums = g->all_reduce_sum(
      {local.loss * static_cast<double>(local.tokens), static_cast<double>(local.tokens)});
  eval::LmResult r;
  r.tokens = static_cast<int64_t>(sums[1]);
  r.loss = r.tokens > 0 ? sums[0] / sums[1] : 0.0;
  r.ppl = std::exp(r.loss);
  return r;
}

// Tests: one rank dies, hangs or fails at a step (RunnerOptions::dist_fault).
void RunExecutor::inject_dist_fault() {
  const DistFault& f = m_p.options.dist_fault;
  const auto& g = m_p.options.dist;
  if (f.rank < 0 || !g || g->rank() != f.rank || m_state.global_step != f.step) return;
  log::get("runner")->warn("rank {}: injected fault '{}' at step {}", f.rank, f.kind, f.step);
  if (f.kind == "kill") std::raise(SIGKILL);
  if (f.kind == "hang") std::raise(SIGSTOP);
  fail("injected failure of rank {} at step {}", f.rank, f.step);
}

void RunExecutor::save_checkpoint(const std::string& reason) {
  if (!leader()) return;  // rank 0 writes the checkpoints
  // The store's uuid in the folder: two stores sharing a workspace never share a folder.
  fs::path dir = fs::path(m_p.options.workspace) / "runs" /
                 fmt::format("{}-{}", m_store_uuid.substr(0, 12), m_run) /
                 fmt::format("step-{:08d}", m_state.global_step);
  Json extra = {{"run_id", m_run},
                {"store", m_store_uuid},
                {"spec_hash", m_spec_hash},
                {"global_step", m_state.global_step},
                {"phase", m_state.phase},
                {"phase_step", m_state.phase_step},
                {"source_step", m_source ? m_source->step() : 0},
                {"lr_scales", m_state.lr_scales},
                {"plan", grow::to_json(m_growth.plan)},
                {"reason", reason}};
  m_trainer->save_checkpoint(dir.string(), extra);
  // EWC anchors of finished tasks (the first is rebuilt with the model).
  if (m_ewc && m_ewc->tasks() > 1) {
    st::write_tensors((dir / kEwcState).string(), m_ewc->state());
  }
  // The metrics up to this step are committed before the checkpoint is listed, so a killed
  // worker resumed from it has every metric of an uninterrupted run.
  m_writer.flush();
  const FolderDigest digest = checkpoint_digest(dir.string());  // verified on resume
  m_store.add_checkpoint(m_run, m_state.global_step, dir.string(), digest.bytes, digest.checksum);
  emit(m_p, ev::Checkpoint{m_run, m_state.global_step, dir.string()});
}

}  // namespace

RunOutcome execute_run(Prepared& p, store::Store& store, const ExperimentSpec& run, int64_t run_id,
                       const std::optional<store::CheckpointInfo>& resume_from) {
  RunExecutor ex(p, store, run, run_id);
  return ex.execute(resume_from);
}

}  // namespace gb::experiment::detail
