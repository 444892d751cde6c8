#include "experiment/runner.h"

#include "experiment/adept_stage2.h"
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
#include "grow/checkpoint.h"
#include "grow/ewc.h"
#include "grow/routes.h"
#include "grow/scale.h"
#include "grow/growth.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/selection.h"
#include "model/config.h"
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

namespace gb::experiment {

namespace fs = std::filesystem;
namespace mk = gb::metrics;
namespace ev = gb::events;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string default_workspace(const std::string& db_path) {
  fs::path p(db_path);
  fs::path stem = p.parent_path() / p.stem();
  return stem.string() + ".runs";
}

namespace {

// A checkpoint's EWC state (anchors and Fishers of the tasks finished so far).
constexpr char kEwcState[] = "ewc.safetensors";
// Divergence: consecutive logged steps with the loss above diverge_factor × its first value.
constexpr int64_t kDivergePatience = 3;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct TaskData {
  TaskSpec spec;
  std::vector<eval::McTokens> mc;
  std::vector<eval::QaTokens> qa;
  std::vector<data::Batch> lm;
  std::shared_ptr<TaskData> test;  // the held-out test version (test/<name>/...), if any
};

// One training phase: the whole adaptation, or one task of a sequence.
struct Phase {
  std::string name;
  std::shared_ptr<data::TokenStream> stream;
  int64_t own_steps = 0;  // a sequence task's own "steps"; 0 = the run's train.steps
  bool reorder = false;   // QA items, biographies: a new document order each epoch
};

// What every run of an experiment shares: base model folder, tokenizer, data, probes.
struct Prepared {
  ExperimentSpec spec;
  RunnerOptions options;
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;
  std::string base_folder;
  std::string model_key;
  std::unique_ptr<tok::Tokenizer> tokenizer;
  data::TextEncoder encoder;
  std::vector<Phase> phases;
  std::shared_ptr<data::TokenStream> replay;
  std::vector<data::Batch> orig_eval, new_eval;
  std::vector<data::Batch> orig_test, new_test;  // held-out test sets (step 0 and the end)
  std::vector<TaskData> tasks, seq_tasks;
  importance::ProbeSetOptions probe_set_options;  // the spec's probe section
  importance::ProbeOptions probe_options;         // its method options (method set per probe)
  std::unique_ptr<importance::ProbeSet> general_probe, domain_probe;
  std::string general_kind, domain_kind;  // their data's kind, as the store names it
  importance::ImportanceResults importance;
  std::map<std::string, torch::Tensor> fisher;
};

// Progress events (util/events.h) go to the runner's callback.
template <typename Event>
void emit(const Prepared& p, const Event& event) {
  if (p.options.on_event) p.options.on_event(ev::Event(event));
}

ev::Stage stage_event(const std::string& stage, std::optional<int64_t> run = std::nullopt) {
  ev::Stage e;
  e.stage = stage;
  e.run = run;
  return e;
}

// A progress event of a probe (with the run) or of data preparation (with the message).
ev::Progress progress_event(const ProgressUpdate& u, std::optional<int64_t> run) {
  ev::Progress e;
  e.run = run;
  e.stage = u.stage;
  e.fraction = u.fraction;
  e.eta_s = u.eta_s;
  if (!run) e.message = u.message;
  return e;
}

std::vector<data::Batch> eval_batches(const data::TokenStream& stream, int64_t seq_len,
                                      int64_t batch_size, int64_t tokens) {
  const int64_t per_batch = seq_len * batch_size;
  const int64_t max_batches = std::max<int64_t>(1, (tokens + per_batch - 1) / per_batch);
  return data::sequential_batches(stream, seq_len, batch_size, max_batches);
}

TaskData prepare_task(const TaskSpec& t, Prepared& p) {
  TaskData td;
  td.spec = t;
  const int64_t limit = t.max_items >= 0 ? t.max_items : p.spec.eval.max_items;
  if (t.kind == "mc") {
    auto items = t.is_cloze() ? data::make_cloze_task(
                                    source_documents(t.source, p.spec.seed),
                                    data::cloze_options_from_json(t.cloze, "task " + t.name))
                              : data::read_mc_jsonl(t.mc_path);
    if (limit >= 0 && static_cast<int64_t>(items.size()) > limit) items.resize(limit);
    td.mc = eval::tokenize_mc(items, p.encoder);
  } else if (t.kind == "qa") {
    auto items = source_qa_items(t.source, p.spec.seed);
    if (limit >= 0 && static_cast<int64_t>(items.size()) > limit) items.resize(limit);
    td.qa = eval::tokenize_qa_items(items, p.encoder);
  } else {
    auto stream =
        source_tokens(t.source, p.encoder, p.spec.seed, "task-" + t.name, p.options.cache_dir);
    td.lm = eval_batches(*stream, p.spec.train.seq_len, p.spec.eval.batch_size, p.spec.eval.tokens);
  }
  if (t.test) td.test = std::make_shared<TaskData>(prepare_task(*t.test, p));
  return td;
}

// The base model folder (a preset is built once) and its tokenizer.
void prepare_base_model(Prepared& p, const Progress& progress) {
  const ExperimentSpec& spec = p.spec;
  if (spec.model.preset) {
    ev::Stage stage = stage_event("preset");
    stage.preset = spec.model.preset->preset;
    emit(p, stage);
    p.base_folder = ensure_preset(*spec.model.preset, spec.seed, p.options.cache_dir, progress,
                                  p.options.on_event);
    p.model_key =
        "preset:" + spec.model.preset->preset + "-" + preset_key(*spec.model.preset, spec.seed);
  } else {
    p.base_folder = spec.model.path;
    p.model_key = fs::absolute(spec.model.path).lexically_normal().string();
  }
  {
    // A window longer than the model's positions gives wrong positions (learned position
    // tables end; RoPE beyond its declared range is out of what the model was trained on).
    const fs::path cfg = fs::path(p.base_folder) / "config.json";
    if (fs::exists(cfg)) {
      const ModelConfig c = load_config(cfg.string());
      const bool declared = c.family == Family::Gpt2 || c.raw.contains("max_position_embeddings");
      // Training and evaluation windows, and the importance probes' windows.
      const std::pair<const char*, int64_t> windows[] = {{"train.seq_len", spec.train.seq_len},
                                                         {"probe.seq_len", spec.probe.seq_len}};
      for (const auto& [key, len] : windows) {
        if (len <= c.max_positions) continue;
        if (declared) {
          fail("{} {} exceeds the model's {} positions ({})", key, len, c.max_positions,
               cfg.string());
        }
        log::get("runner")->warn(
            "{} {} is beyond the {} positions assumed for {} (its config declares no "
            "max_position_embeddings)",
            key, len, c.max_positions, cfg.string());
      }
    }
  }
  std::string tok_path = find_tokenizer(p.base_folder);
  if (tok_path.empty()) {
    fail("{} has no tokenizer.json: experiments tokenise text with the model's tokenizer",
         p.base_folder);
  }
  p.tokenizer = std::make_unique<tok::Tokenizer>(tok::Tokenizer::from_file(tok_path));
  p.encoder = data::encoder_for(*p.tokenizer);
}

// The training phases, the replay stream, the evaluation sets and the tasks.
void prepare_data(Prepared& p) {
  const ExperimentSpec& spec = p.spec;
  emit(p, stage_event("data"));
  const std::string& cache = p.options.cache_dir;  // tokenised corpora
  const int64_t T = spec.train.seq_len;
  if (spec.is_sequence()) {
    for (const auto& st : spec.sequence) {
      Phase ph;
      ph.name = st.name;
      ph.stream = source_tokens(st.train, p.encoder, spec.seed, "seq-" + st.name, cache);
      ph.reorder = reorders_documents(st.train);
      ph.own_steps = st.steps;
      p.phases.push_back(ph);
      p.seq_tasks.push_back(prepare_task(st.eval, p));
    }
  } else {
    Phase ph;
    ph.name = "new";
    ph.stream = source_tokens(spec.new_train, p.encoder, spec.seed, "new-train", cache);
    ph.reorder = reorders_documents(spec.new_train);
    p.phases.push_back(ph);
  }
  for (const auto& ph : p.phases) {
    if (static_cast<int64_t>(ph.stream->size()) < T + 1) {
      fail("training data of phase '{}' has {} tokens, fewer than one sequence of {}", ph.name,
           ph.stream->size(), T + 1);
    }
  }
  if (spec.original_replay.defined()) {
    p.replay = source_tokens(spec.original_replay, p.encoder, spec.seed, "orig-replay", cache);
  }
  // The evaluation (validation) and test sets, packed alike.
  auto eval_set = [&](const DataSource& src, const char* name, std::vector<data::Batch>& out) {
    if (!src.defined()) return;
    auto s = source_tokens(src, p.encoder, spec.seed, name, cache);
    out = eval_batches(*s, T, spec.eval.batch_size, spec.eval.tokens);
  };
  eval_set(spec.original_eval, "orig-eval", p.orig_eval);
  eval_set(spec.new_eval, "new-eval", p.new_eval);
  eval_set(spec.original_test, "orig-test", p.orig_test);
  eval_set(spec.new_test, "new-test", p.new_test);
  for (const auto& t : spec.tasks) p.tasks.push_back(prepare_task(t, p));
}

// The kind of a source's data, as the store's datasets name it: the corpus format ("text",
// "jsonl", "fortunes"), "qa" or "biography".
std::string source_kind(const DataSource& source) {
  if (source.kind == DataSource::Kind::Qa) return "qa";
  if (source.kind == DataSource::Kind::Biography) return "biography";
  data::CorpusSpec corpus = data::corpus_spec_from_json(source.corpus, "data source");
  if (corpus.format == data::CorpusFormat::Auto) corpus.format = data::detect_format(corpus.path);
  return data::format_name(corpus.format);
}

// Probe sets: general = the original domain; domain = the new domain.
void prepare_probe_sets(Prepared& p) {
  const ExperimentSpec& spec = p.spec;
  importance::ProbeSetOptions& po = p.probe_set_options;
  po.seq_len = spec.probe.seq_len;
  po.batch_size = spec.probe.batch_size;
  po.max_tokens = spec.probe.tokens;
  po.seed = spec.seed;
  p.probe_options = spec.probe.options;
  p.probe_options.seed = spec.seed;
  const DataSource& general =
      spec.original_probe.defined() ? spec.original_probe : spec.original_eval;
  if (general.defined()) {
    auto s = source_tokens(general, p.encoder, spec.seed, "probe-general", p.options.cache_dir);
    p.general_probe = std::make_unique<importance::ProbeSet>(
        importance::pack_stream(*s, po, "general: " + general.describe()));
    p.general_kind = source_kind(general);
  }
  p.domain_probe = std::make_unique<importance::ProbeSet>(
      importance::pack_stream(*p.phases.front().stream, po, "domain: " + p.phases.front().name));
  p.domain_kind = source_kind(spec.is_sequence() ? spec.sequence.front().train : spec.new_train);
}

std::unique_ptr<Prepared> prepare(const ExperimentSpec& spec, const RunnerOptions& options) {
  auto p = std::make_unique<Prepared>();
  p->spec = spec;
  p->options = options;
  if (p->options.cache_dir.empty()) p->options.cache_dir = data::default_cache_dir();
  p->device = parse_device(spec.device);
  if (options.dist && p->device.is_cuda()) {
    // Data-parallel on CUDA: the device the group chose for this rank (dist::rank_cuda_device:
    // the spec's index, else one device per local rank, or the one device a binding such as
    // srun --gpus-per-task=1 leaves each process).
    p->device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(options.dist->cuda_device()));
  }
  p->dtype = parse_dtype(spec.dtype);
  // More threads than cores only oversubscribes them (100 000 threads would hang the start).
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  int64_t threads = spec.threads;
  if (threads > cores) {
    log::get("runner")->warn("threads = {} is more than the {} cores of this machine; using {}",
                             threads, cores, cores);
    threads = cores;
  }
  torch::set_num_threads(static_cast<int>(threads));
  Progress progress(
      [&p = *p](const ProgressUpdate& u) { emit(p, progress_event(u, std::nullopt)); },
      options.cancel);
  prepare_base_model(*p, progress);
  prepare_data(*p);
  prepare_probe_sets(*p);
  return p;
}

// ---------------------------------------------------------------------------------------
// Probes on the base model (importance/probe.h), cached across the runs of an experiment
// and recorded.

const importance::ProbeSet& probe_set(Prepared& p, bool domain) {
  if (domain) return *p.domain_probe;
  if (!p.general_probe || p.general_probe->empty()) {
    fail(
        "this plan needs an importance probe on the original domain: set data.original.probe "
        "or data.original.eval");
  }
  return *p.general_probe;
}

// A data-parallel run shards its probes by batch (importance/sharding.h): each rank runs
// every world-th batch and the sums go through the group. One process: no sharding.
importance::ProbeSharding probe_sharding(const std::shared_ptr<dist::Group>& g) {
  importance::ProbeSharding s;
  if (!g || g->world_size() <= 1) return s;
  s.world = g->world_size();
  s.rank = g->rank();
  s.sum_values = [g](std::vector<double>& v) { v = g->all_reduce_sum(v); };
  s.sum_tensors = [g](std::vector<torch::Tensor>& t) { g->all_reduce_sum(t); };
  return s;
}

// The probe options of the spec for `method`.
importance::ProbeOptions probe_options(const Prepared& p, const std::string& method) {
  importance::ProbeOptions o = p.probe_options;
  o.method = method;
  return o;
}

void ensure_probe(Prepared& p, store::Store& store, const importance::ProbeNeed& need,
                  CausalLMImpl& base, int64_t run_id) {
  auto& cache = need.domain ? p.importance.domain : p.importance.general;
  if (cache.count(need.method)) return;
  const auto& set = probe_set(p, need.domain);
  ev::Stage stage = stage_event("probe/" + need.method, run_id);
  stage.domain = need.domain;
  emit(p, stage);
  Progress progress([&](const ProgressUpdate& u) { emit(p, progress_event(u, run_id)); },
                    p.options.cancel);
  const importance::ProbeOptions o = probe_options(p, need.method);
  // The preliminary fine-tuning of update-magnitude trains on the new domain, on a copy.
  auto fresh = [&] { return grow::load_model(p.base_folder, {p.device, p.dtype}).model; };
  const auto start = Clock::now();
  const importance::ProbeSharding shard = probe_sharding(p.options.dist);
  importance::ProbeResult r =
      importance::run_probe(base, set, o, progress, p.domain_probe.get(), fresh, &shard);
  const auto& data = importance::probe_data(o, set, p.domain_probe.get());
  const importance::ProbeDataInfo info{
      data.description, "", &data == p.domain_probe.get() ? p.domain_kind : p.general_kind};
  importance::record_probe(
      store, r,
      importance::probe_record(p.model_key, base.config, base, data, info, p.probe_set_options, o,
                               seconds_since(start), run_id));
  if (need.domain) {
    p.importance.add_domain(r);
  } else {
    p.importance.add_general(r);
  }
}

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
class RunExecutor {
 public:
  // `run` is the run's own resolved spec (one plan; its train section and run seed).
  RunExecutor(Prepared& p, store::Store& store, const ExperimentSpec& run, int64_t run_id)
      : m_p(p),
        m_spec(run),
        m_store(store),
        m_plan(run.plans.at(0)),
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
  void make_trainer();
  void start();
  void resume(const store::CheckpointInfo& checkpoint);
  void train_loop();
  void finish();
  void stop(const std::exception_ptr& error);

  // Parts of the stages.
  grow::GrowthPlan plan_to_apply(const std::optional<store::CheckpointInfo>& resume_from) const;
  std::map<std::string, torch::Tensor> ewc_fisher();
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
  void update_unit_lrs(const grow::DepthParams& d);
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

// Grow, probing first when the plan needs it (a layer policy; EWC's Fisher).
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
  if (plan.variant == grow::Variant::Ewc) actx.fisher = ewc_fisher();
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
  m_out.growth = m_growth.to_json();
  emit(m_p, ev::Grown{m_run, m_out.growth});
}

// The run's plan, or on resume the checkpoint's resolved plan (layers explicit: no probes).
grow::GrowthPlan RunExecutor::plan_to_apply(
    const std::optional<store::CheckpointInfo>& resume_from) const {
  if (!resume_from) return m_plan;
  auto meta = json::parse_file((fs::path(resume_from->path) / "trainer.json").string());
  return grow::parse_plan(meta.at("extra").at("plan"), "checkpoint plan");
}

// EWC on the plan's trainable parameters: the "ewc" variant's penalty (built by its
// operator from the base model's Fisher), or for any other plan with "ewc" a penalty
// anchored at the grown model before training with its Fisher on the general probe set.
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

// EWC's diagonal Fisher of the base model on the general probe set, once per experiment.
std::map<std::string, torch::Tensor> RunExecutor::ewc_fisher() {
  if (m_p.fisher.empty()) {
    emit(m_p, stage_event("probe/fisher", m_run));
    m_p.fisher = fisher_of(probe_set(m_p, false), {});
  }
  return m_p.fisher;
}

void RunExecutor::make_trainer() {
  const TrainSpec& t = m_spec.train;
  train::TrainOptions to;
  to.adamw.lr = t.lr;
  to.adamw.beta1 = t.beta1;
  to.adamw.beta2 = t.beta2;
  to.adamw.eps = t.eps;
  to.adamw.weight_decay = t.weight_decay;
  to.schedule.kind = t.schedule;
  to.schedule.warmup = t.warmup;
  to.schedule.min_ratio = t.min_lr_ratio;
  to.clip = t.clip;
  to.accumulation = t.accumulation;
  to.row_shards = t.row_shards;
  to.ce_chunk = t.ce_chunk;
  to.checkpointing = t.checkpointing;
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
  if (m_plan.variant == grow::Variant::NeutralResidues &&
      m_plan.replay.value_or(m_spec.train.replay) <= 0) {
    m_store.add_event(m_run, store::EventLevel::Warning,
                      "neutral residues without replay (p = 0): no original-domain batches, so "
                      "the local loss never applies (the paper's ablation; the paper uses "
                      "p = 0.1)");
  }
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
  // ADEPT stage 2 belongs to the plan: only a depth plan with unit_lr has unit rates,
  // assigned after every t_update steps, never at step 0 (adept_stage2.h).
  if (m_plan.variant == grow::Variant::Depth) {
    const auto& d = m_plan.get<grow::DepthParams>();
    if (d.unit_lr && unit_rates_due(m_state.global_step, d.t_update)) update_unit_lrs(d);
  }
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

void RunExecutor::update_unit_lrs(const grow::DepthParams& d) {
  // ADEPT stage 2 (adept_stage2.h): s_U = 2·(max − I_U)/(max − min) for every unit U of the
  // stage-2 layers, I_U the unit's importance on the general probe set now.
  if (m_growth.unit_lr_layers.empty()) return;
  const UnitNorm norm = parse_unit_norm(d.unit_norm);
  const auto& set = probe_set(m_p, false);
  const importance::ProbeOptions options = probe_options(m_p, d.unit_importance);
  const auto start = Clock::now();
  const importance::ProbeSharding shard = probe_sharding(m_p.options.dist);
  auto res = importance::run_probe(*m_model.model, set, options, {}, nullptr, {}, &shard);
  {
    // Recorded (under the grown model, "<base key>+run<id>") so that a report can show the
    // unit importance each recomputation chose the learning rates from.
    const auto& data = importance::probe_data(options, set, nullptr);
    const importance::ProbeDataInfo info{data.description, "", m_p.general_kind};
    auto record = importance::probe_record(
        fmt::format("{}+run{}", m_p.model_key, m_run), m_model.model->config, *m_model.model, data,
        info, m_p.probe_set_options, options, seconds_since(start), m_run);
    record.params["adept_step"] = m_state.global_step;
    record.params["unit_norm"] = d.unit_norm;
    importance::record_probe(m_store, res, record);
  }
  const auto rates = unit_rates(res, m_growth.unit_lr_layers, norm);
  int64_t assigned = 0;
  for (const auto& r : rates) {
    try {
      m_trainer->set_lr_scale(r.group, r.scale);
    } catch (const Error&) {
      continue;  // the unit has no trainable group (e.g. a norm the plan keeps frozen)
    }
    m_state.lr_scales[r.group] = r.scale;
    // The multipliers, at the step of the assignment (the probe's "adept_step").
    put(m_state.global_step, mk::adept_lr_scale_key(r.group), r.scale);
    ++assigned;
  }
  m_store.add_event(m_run, store::EventLevel::Info,
                    fmt::format("ADEPT unit learning rates updated at step {} ({} units, {} "
                                "importance, min-max over {})",
                                m_state.global_step, assigned, d.unit_importance,
                                norm == UnitNorm::Kind ? "each kind" : "all units"));
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
  if (m_plan.variant == grow::Variant::LoraMoe || m_plan.variant == grow::Variant::MhMoe) {
    if (m_plan.get<grow::MoeParams>().balance > 0) {
      m_store.add_event(m_run, store::EventLevel::Warning,
                        "data-parallel: the load-balancing loss is computed on each process's "
                        "rows (as DDP does), so it and the run depend on the number of processes");
    }
  }
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

// ---------------------------------------------------------------------------------------
// Data-parallel: the store of a rank other than 0 (a scratch file, deleted on exit), the
// order of preparation (rank 0 first: it may build a preset or a tokenised cache that the
// others then read), and the end of an experiment after a run that did not finish.

class ScratchStore {
 public:
  store::Store open(int64_t rank) {
    m_path = fs::temp_directory_path() /
             fmt::format("growbench-rank{}-{}.db", rank, static_cast<int64_t>(::getpid()));
    remove();
    return store::Store::open(m_path.string());
  }
  ~ScratchStore() { remove(); }

 private:
  void remove() {
    if (m_path.empty()) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(m_path.string() + suffix, ec);
  }
  fs::path m_path;
};

// How long ranks other than 0 wait for rank 0 to prepare: at least the group's timeout,
// and long enough for a preset to be pretrained (the wait ends early when rank 0 left a
// failure notice or its heartbeat stopped: Group::store_get).
constexpr double kPrepareWaitS = 4 * 3600;

std::unique_ptr<Prepared> prepare_in_order(const ExperimentSpec& spec,
                                           const RunnerOptions& options) {
  const auto& g = options.dist;
  if (!g) return prepare(spec, options);
  const std::string key = "gb/prepared";
  if (const DistFault& f = options.dist_fault;
      f.rank == g->rank() && f.step == DistFault::kPrepare) {
    log::get("runner")->warn("rank {}: injected fault '{}' while preparing", f.rank, f.kind);
    if (f.kind == "kill") std::raise(SIGKILL);
    if (f.kind == "hang") std::raise(SIGSTOP);
    fail("injected failure of rank {} while preparing", f.rank);
  }
  if (g->leader()) {
    std::unique_ptr<Prepared> p;
    try {
      p = prepare(spec, options);
    } catch (const std::exception& e) {
      g->store_set(key, std::string("error: ") + e.what());
      throw;
    }
    g->store_set(key, "ok");
    return p;
  }
  const std::string status = g->store_get(key, std::max(g->timeout_s(), kPrepareWaitS));
  if (status != "ok") fail("rank 0 could not prepare the experiment: {}", status);
  return prepare(spec, options);
}

// A rank other than 0 whose data-parallel run failed, on the machine of rank 0 (the store is
// a local file there): when rank 0 died, its runs (running, and the queued ones it owned)
// are marked interrupted now, resumable, with this rank's diagnosis as an event, instead of
// staying `running` until a later worker opens the store (under torchrun or srun no
// launcher of ours watches rank 0). A live rank 0 records the failure itself: nothing is
// touched then (the store marks only runs whose worker process is gone).
void record_dead_leader(const RunnerOptions& options, const std::string& error) {
  const auto& g = options.dist;
  if (!g || g->leader() || error.empty()) return;
  // Under our own launcher (--nproc-per-node) the launcher marks rank 0's runs failed.
  if (const char* l = std::getenv(dist::env::kLaunched); l && *l) return;
  try {
    if (g->hosts().empty() || g->hosts().front() != dist::host_name()) return;
    if (!fs::exists(options.db_path)) return;  // never create a store here
    store::Store store = store::Store::open(options.db_path);
    // Rank 0's sockets close (which ended this rank's collective) a moment before its process
    // is gone: give it up to 5 s to end (a live rank 0 records the failure itself).
    std::vector<int64_t> marked;
    for (int attempt = 0; attempt < 20 && marked.empty(); ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250));
      marked = store.mark_interrupted_runs();
    }
    for (int64_t id : marked) {
      store.add_event(
          id, store::EventLevel::Error,
          fmt::format("rank {} on {} found rank 0 gone: {}", g->rank(), dist::host_name(), error));
      log::get("runner")->warn("rank {}: marked run {} of the dead rank 0 interrupted", g->rank(),
                               id);
    }
  } catch (const std::exception& e) {
    log::get("runner")->warn("rank {}: could not record rank 0's failure in {}: {}", g->rank(),
                             options.db_path, e.what());
  }
}

// After a data-parallel run that did not finish, the ranks may stand at different points:
// no further run starts.
bool ends_distributed_experiment(const RunnerOptions& options, const RunOutcome& oc) {
  return options.dist && oc.status != "finished" && oc.status != "stopped";
}

// The fingerprints of the inputs of freshly created runs (experiment/integrity.h).
void record_inputs(const Prepared& p, store::Store& store, const std::vector<int64_t>& ids) {
  const std::string inputs =
      input_fingerprints(p.spec, p.base_folder, find_tokenizer(p.base_folder)).dump();
  for (int64_t id : ids) store.set_run_inputs(id, inputs);
}

// Temporary files and folders of killed writers (*.tmp-PID) below the workspace's runs.
void clean_workspace_leftovers(const std::string& workspace) {
  for (const auto& removed : remove_stale_temporaries((fs::path(workspace) / "runs").string(), 3)) {
    log::get("runner")->warn("removed {}, left behind by a worker that ended while writing it",
                             removed);
  }
}

}  // namespace

std::vector<RunOutcome> run_experiment(const ExperimentSpec& spec, const RunnerOptions& o) {
  RunnerOptions options = o;
  if (options.db_path.empty()) fail("run: no run store given (--db)");
  if (options.workspace.empty()) options.workspace = default_workspace(options.db_path);
  // The store keeps checkpoint paths relative to its own folder (Store::root), resolved on
  // read: a relative --db or --workspace, another working directory or a moved workspace all
  // find them.
  options.workspace = fs::absolute(options.workspace).lexically_normal().string();
  const bool follower = options.dist && !options.dist->leader();
  ScratchStore scratch;
  store::Store store =
      follower ? scratch.open(options.dist->rank()) : store::Store::open(options.db_path);
  if (!follower) {
    store.mark_interrupted_runs();
    clean_workspace_leftovers(options.workspace);
  }

  // Every run is created up front (queued), so viewers see the whole comparison: one per
  // plan, sweep point and seed (experiment/expand.h), all in one group.
  const std::vector<ExpandedRun> runs = expand_runs(spec);
  std::vector<ExperimentSpec> run_specs;
  for (const auto& r : runs) run_specs.push_back(parse_spec(r.spec, "", "run spec"));
  const std::string experiment =
      fmt::format("{}@{}", spec.name, static_cast<int64_t>(std::time(nullptr)));
  const std::string hash = spec_hash(spec);
  std::vector<int64_t> ids;
  // The runs and this worker's claim on them in one transaction: a kill never leaves
  // queued runs without an owner (which nothing would ever mark orphaned).
  store::WriteTransaction created(store);
  for (const auto& r : runs) {
    store::NewRun nr;
    nr.name = r.name;
    nr.spec = r.spec.dump();
    nr.variant = spec.plans[r.plan_index].label();
    nr.experiment = experiment;
    nr.device = spec.device;
    nr.seed = static_cast<int64_t>(r.seed);
    nr.tags = options.tags;
    nr.spec_hash = hash;
    nr.params = r.params;
    ids.push_back(store.create_run(nr));
  }
  // This worker owns the queued runs: if it dies before starting them, the next start marks
  // them orphaned (startable again) instead of leaving them queued forever.
  store.claim_queued_runs(ids);
  created.commit();
  std::unique_ptr<Prepared> prepared;
  try {
    prepared = prepare_in_order(spec, options);
  } catch (const std::exception& e) {
    record_dead_leader(options, e.what());
    bool cancelled = dynamic_cast<const CancelledError*>(&e) != nullptr;
    for (int64_t id : ids) {
      store.set_status(id, cancelled ? store::RunStatus::Cancelled : store::RunStatus::Failed,
                       e.what());
    }
    throw;
  }
  record_inputs(*prepared, store, ids);
  if (auto m = store.find_model(prepared->model_key); !m) {
    store::ModelInfo mi;
    mi.key = prepared->model_key;
    LoadedModel base = grow::load_model(prepared->base_folder);
    mi.family = family_name(base.config.family);
    mi.config = base.config.raw.dump();
    mi.params = count_parameters(*base.model);
    store.upsert_model(mi);
  }
  std::vector<RunOutcome> outcomes;
  if (options.create_only) {
    for (size_t i = 0; i < runs.size(); ++i) {
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = run_specs[i].plans[0].label();
      oc.name = runs[i].name;
      oc.status = "queued";
      outcomes.push_back(oc);
    }
    return outcomes;
  }
  std::string ended_by;  // a data-parallel run that did not finish
  for (size_t i = 0; i < runs.size(); ++i) {
    const grow::GrowthPlan& plan = run_specs[i].plans[0];
    if (!ended_by.empty()) {
      store.set_status(ids[i], store::RunStatus::Failed, "not started: " + ended_by);
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = plan.label();
      oc.name = runs[i].name;
      oc.status = "failed";
      oc.error = "not started: " + ended_by;
      outcomes.push_back(oc);
      continue;
    }
    if (options.cancel.cancelled()) {
      store.set_status(ids[i], store::RunStatus::Cancelled, "cancelled before it started");
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = plan.label();
      oc.name = runs[i].name;
      oc.status = "cancelled";
      outcomes.push_back(oc);
      continue;
    }
    ev::RunStarted started;
    started.run = ids[i];
    started.label = plan.label();
    started.index = static_cast<int64_t>(i);
    started.runs = static_cast<int64_t>(runs.size());
    emit(*prepared, started);
    RunExecutor ex(*prepared, store, run_specs[i], ids[i]);
    RunOutcome oc = ex.execute(std::nullopt);
    oc.name = runs[i].name;
    if (follower && oc.status == "failed") record_dead_leader(options, oc.error);
    if (ends_distributed_experiment(options, oc)) {
      ended_by = fmt::format("data-parallel run {} ended {}", oc.run_id, oc.status);
    }
    outcomes.push_back(oc);
  }
  return outcomes;
}

std::string stored_run_device(const std::string& db_path, int64_t run_id) {
  try {
    if (!fs::exists(db_path)) return {};
    // No integrity check here: resume_run opens the store with one right after.
    store::OpenOptions oo;
    oo.check = store::IntegrityCheck::None;
    store::Store store = store::Store::open(db_path, store::OpenMode::ReadOnly, oo);
    const Json spec = Json::parse(store.get_run(run_id).spec);
    return spec.value("device", ExperimentSpec{}.device);
  } catch (const std::exception&) {
    return {};
  }
}

RunOutcome resume_run(int64_t run_id, const RunnerOptions& o) {
  RunnerOptions options = o;
  if (options.workspace.empty()) options.workspace = default_workspace(options.db_path);
  options.workspace = fs::absolute(options.workspace).lexically_normal().string();
  const auto& g = options.dist;
  // Data-parallel: rank 0 checks the run and hands its spec and checkpoint to the others,
  // which keep their records in a scratch store (and read the checkpoint folder: a shared
  // file system across machines).
  const std::string key = fmt::format("gb/resume/{}", run_id);
  if (g && !g->leader()) {
    Json got = Json::parse(g->store_get(key, g->timeout_s()), nullptr, false);
    if (got.is_discarded() || got.contains("error")) {
      fail("rank 0 could not resume run {}: {}", run_id,
           got.is_discarded() ? "no answer" : got["error"].get<std::string>());
    }
    ScratchStore scratch;
    store::Store store = scratch.open(g->rank());
    store::NewRun nr;
    nr.name = got.at("name").get<std::string>();
    nr.spec = got.at("spec").get<std::string>();
    const int64_t local_id = store.create_run(nr);
    store::CheckpointInfo ckpt;
    ckpt.run_id = local_id;
    ckpt.step = got.at("step").get<int64_t>();
    ckpt.path = got.at("path").get<std::string>();
    ExperimentSpec spec = parse_spec(json::parse(nr.spec, fmt::format("run {} spec", run_id)));
    auto prepared = prepare_in_order(spec, options);
    RunExecutor ex(*prepared, store, spec, local_id);
    RunOutcome oc = ex.execute(ckpt);
    oc.run_id = run_id;
    oc.name = nr.name;
    if (oc.status == "failed") record_dead_leader(options, oc.error);
    return oc;
  }
  store::Store store = store::Store::open(options.db_path);
  store::RunInfo info;
  bool pool_start = false;  // a queued run of `run --jobs`: its first start, not a resume
  try {
    store.mark_interrupted_runs();
    clean_workspace_leftovers(options.workspace);
    info = store.get_run(run_id);
    if (info.status == store::RunStatus::Running) {
      fail("run {} is still running (worker pid {} on {})", run_id, info.worker_pid.value_or(0),
           info.worker_host);
    }
    const bool from_pool = options.pool_parent > 0 && info.worker_pid &&
                           *info.worker_pid == options.pool_parent &&
                           info.worker_host == store::detail::host_name();
    pool_start = from_pool && info.status == store::RunStatus::Queued;
    if (info.status == store::RunStatus::Queued && info.worker_pid && !from_pool) {
      fail(
          "run {} is queued by the worker process {} on {}, which starts it (a worker of this "
          "host that ended would have left it orphaned, and so startable)",
          run_id, *info.worker_pid, info.worker_host);
    }
    if (info.status == store::RunStatus::Finished) fail("run {} already finished", run_id);
  } catch (const std::exception& e) {
    if (g) g->store_set(key, Json{{"error", e.what()}}.dump());
    throw;
  }
  ExperimentSpec spec = parse_spec(json::parse(info.spec, fmt::format("run {} spec", run_id)));
  // The newest checkpoint that is intact and belongs to this run; each one skipped is named.
  const std::string uuid = store.uuid();
  const std::string spec_hash = run_spec_hash(spec.raw);
  std::optional<store::CheckpointInfo> ckpt;
  std::vector<std::string> skipped;
  auto all = store.checkpoints(run_id);
  for (auto it = all.rbegin(); it != all.rend() && !ckpt; ++it) {
    const std::string why = checkpoint_problem(*it, run_id, uuid, spec_hash);
    if (why.empty()) {
      ckpt = *it;
    } else {
      skipped.push_back(
          fmt::format("checkpoint of step {} ({}) is not usable: {}", it->step, it->path, why));
    }
  }
  if (g) {
    // The other ranks start from the checkpoint rank 0 chose (a data-parallel run resumes
    // from a checkpoint only).
    if (!ckpt) {
      const std::string why = fmt::format(
          "run {} has no usable checkpoint to resume from (status {}); start it again instead",
          run_id, store::to_string(info.status));
      g->store_set(key, Json{{"error", why}}.dump());
      fail("{}", why);
    }
    g->store_set(
        key,
        Json{{"name", info.name}, {"spec", info.spec}, {"step", ckpt->step}, {"path", ckpt->path}}
            .dump());
  }
  std::unique_ptr<Prepared> prepared;
  try {
    prepared = prepare_in_order(spec, options);
    // The inputs must be the ones the run started with.
    const Json now =
        input_fingerprints(spec, prepared->base_folder, find_tokenizer(prepared->base_folder));
    const std::string recorded_text = store.run_inputs(run_id);
    const Json recorded = recorded_text.empty() ? Json() : Json::parse(recorded_text);
    const auto changed = changed_inputs(recorded, now);
    if (!changed.empty() && !options.force_resume) {
      std::string list;
      for (const auto& c : changed) list += "\n  " + c;
      fail(
          "run {}: its inputs changed since it started, so a resume would mix two experiments:{}"
          "\nrestore them, start a new run, or resume anyway with --force-resume",
          run_id, list);
    }
    for (const auto& c : changed) {
      store.add_event(run_id, store::EventLevel::Warning,
                      "resumed with --force-resume although an input changed: " + c);
    }
    if (recorded_text.empty()) store.set_run_inputs(run_id, now.dump());
  } catch (const std::exception& e) {
    // A run of `run --jobs` that never began: its own status says why (the pool reads it).
    if (pool_start) {
      const bool cancelled = dynamic_cast<const CancelledError*>(&e) != nullptr;
      store.set_status(run_id, cancelled ? store::RunStatus::Cancelled : store::RunStatus::Failed,
                       cancelled ? std::string("cancelled before it started") : e.what());
    }
    throw;
  }
  for (const auto& s : skipped) {
    log::get("runner")->warn("run {}: {}", run_id, s);
    store.add_event(run_id, store::EventLevel::Warning, s);
  }
  if (pool_start) {
    log::get("runner")->info("run {}: started by the worker pool of process {}", run_id,
                             options.pool_parent);
  } else if (!ckpt) {
    // Never started (orphaned), killed before its first checkpoint, or no valid one left:
    // from the beginning, its partial metrics dropped.
    const std::string why =
        all.empty() ? "it has no checkpoint" : "none of its checkpoints is usable";
    log::get("runner")->warn("run {}: {}; starting it from the beginning", run_id, why);
    store.add_event(run_id, store::EventLevel::Warning,
                    fmt::format("{}: started again from the beginning", why));
    store.truncate_metrics(run_id, -1);
  } else if (!skipped.empty()) {
    const std::string msg =
        fmt::format("resuming from the newest valid checkpoint, step {}", ckpt->step);
    log::get("runner")->warn("run {}: {}", run_id, msg);
    store.add_event(run_id, store::EventLevel::Warning, msg);
  }
  ev::RunStarted started;
  started.run = run_id;
  started.label = spec.plans[0].label();
  if (ckpt) started.resumed_from = ckpt->step;
  emit(*prepared, started);
  RunExecutor ex(*prepared, store, spec, run_id);
  RunOutcome oc = ex.execute(ckpt);
  oc.name = info.name;
  return oc;
}

}  // namespace gb::experiment
