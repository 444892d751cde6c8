#include "experiment/run_prepare.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "data/cloze.h"
#include "data/corpus.h"
#include "experiment/preset.h"
#include "experiment/sources.h"
#include "grow/checkpoint.h"
#include "importance/probe_writer.h"
#include "model/config.h"
#include "model/runtime.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::experiment::detail {

namespace fs = std::filesystem;
namespace ev = gb::events;

ev::Stage stage_event(const std::string& stage, std::optional<int64_t> run) {
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

}  // namespace gb::experiment::detail
