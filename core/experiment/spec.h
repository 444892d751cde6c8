#pragma once
// The experiment spec: a versioned JSON document describing what a researcher launches.
// Unknown keys and bad values are errors naming the key path ("spec.train.lr: must be
// positive"). No LibTorch here. docs/experiments.md documents every key with examples.
//
// {
//   "version": 1, "name": "...", "seed": 0, "device": "cpu", "dtype": "float32",
//   "threads": 1,
//   "model": "path/to/hf-folder" | {"path": "..."} | {"preset": "tiny-llama", ...},
//   "data": {
//     "original": {"eval": SOURCE, "replay": SOURCE, "probe": SOURCE},
//     "new": {"train": SOURCE, "eval": SOURCE},
//     "tasks": [TASK, ...]
//   },
//   "sequence": [{"name": "T1", "train": SOURCE, "eval": TASK, "steps": N}, ...],
//   "plans": [PLAN, ...]            (or "plan": PLAN)
//   "train": {"steps", "batch_tokens" | "batch_size", "seq_len", "accumulation", "lr",
//             "schedule", "warmup", "min_lr_ratio", "weight_decay", "clip", "beta1",
//             "beta2", "eps", "replay", "replay_mode"},
//   "eval": {"interval", "tokens", "batch_size", "drift", "max_items", "exact_match",
//            "test"},
//   "probe": {"method", "tokens", "batch_size", "seq_len", "masking_mode", "fisher_mode",
//             "steps", "lr", "snapshot_every", "reference"},
//   "adept": {"unit_lr": false, "t_update": 500, "method": "taylor-code"},
//   "checkpoint": {"interval": 0}
// }
// SOURCE: a path string, or {"path": ..., (corpus keys), "part": "all"|"train"|"heldout"|
//   "validation"|"test" (the two halves of the held-out part),
//   "heldout": 0.1, "max_docs": N, "max_tokens": N} or {"qa": path, "mask_prompt": true}
//   or {"biography": {options}, "part": "pretrain"|"task0_train"|"task0_test"|"task1"}.
// TASK: {"name": "...", "kind": "lm"|"mc"|"qa", "source": SOURCE | "path": ... |
//   "cloze": {"source": SOURCE, cloze options} (mc), "max_items", "test": {the same keys}}.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grow/plan.h"
#include "importance/probe_options.h"

namespace gb::experiment {

inline constexpr int kSpecVersion = 1;

struct DataSource {
  nlohmann::json raw;  // the validated JSON (kept for hashing and display)
  enum class Kind { Corpus, Qa, Biography } kind = Kind::Corpus;
  nlohmann::json corpus;     // Corpus: data::CorpusSpec JSON
  std::string part = "all";  // Corpus: all/train/heldout; Biography: its part
  double heldout = 0.0;      // Corpus: held-out fraction for part train/heldout
  int64_t max_docs = -1;
  int64_t max_tokens = -1;
  std::string qa_path;       // Qa
  bool mask_prompt = true;   // Qa: loss on the answer only
  nlohmann::json biography;  // Biography: data::BiographyOptions as JSON
  bool defined() const { return !raw.is_null(); }
  std::string describe() const;
};

struct TaskSpec {
  std::string name;
  std::string kind;   // "lm", "mc", "qa"
  DataSource source;  // lm: any text source; qa: Qa or Biography; mc cloze: the corpus
  std::string mc_path;
  // mc: a cloze task built from `source` at run time (data/cloze.h options as JSON) instead
  // of a file: {"cloze": {"source": SOURCE, "items": 200, "choices": 3, "seed": 0, ...}}.
  nlohmann::json cloze;
  int64_t max_items = -1;
  // The held-out test version of the task ("test": {"path" | "source" | "cloze"}, the same
  // kind): evaluated at step 0 and at the end only, recorded as test/<name>/<metric>, so that
  // a configuration chosen on eval/<name>/... is reported on data it never saw.
  std::shared_ptr<TaskSpec> test;
  bool is_cloze() const { return !cloze.is_null(); }
  nlohmann::json to_json() const;
};

struct SequenceStep {
  std::string name;
  DataSource train;
  TaskSpec eval;
  int64_t steps = 0;  // 0: train.steps
};

struct TrainSpec {
  int64_t steps = 100;
  int64_t seq_len = 128;
  int64_t batch_size = 8;  // rows per micro-batch (batch_tokens / seq_len when given)
  int64_t accumulation = 1;
  double lr = 3e-4;
  std::string schedule = "cosine";
  int64_t warmup = 0;
  double min_lr_ratio = 0.1;
  double weight_decay = 0.0;
  double clip = 1.0;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double replay = 0.0;  // fraction p of original-domain batches
  // "batches": whole batches from the original domain with probability p (the default);
  // "rows": every batch holds round(p·B) original-domain rows (data/packing.h).
  std::string replay_mode = "batches";
  // Divergence: the run ends "diverged" when its training loss stays above this factor times
  // its first logged loss for kDivergePatience consecutive steps (0 = off), or when an
  // evaluation metric is not finite.
  double diverge_factor = 10.0;
  // Blocks of rows each micro-batch is split into, their gradients computed apart and summed
  // (train/trainer.h TrainOptions::row_shards): on the CPU they run on the cores at once.
  int64_t row_shards = 1;
  // Chunked cross-entropy (train/chunked_ce.h): -1 "auto" (only where one micro-batch's
  // float32 logits would exceed 256 MiB), 0 never, N tokens per chunk.
  int64_t ce_chunk = -1;
  // Activation checkpointing per decoder layer (train/trainer.h TrainOptions).
  bool checkpointing = false;
};

struct EvalSpec {
  int64_t interval = 50;   // steps between evaluations (step 0 and the end always)
  int64_t tokens = 16384;  // token budget of each LM evaluation set
  int64_t batch_size = 8;
  bool drift = true;        // representation drift on the original eval set
  int64_t max_items = 200;  // per MC/QA task
  bool exact_match = true;
  // When the held-out test sets (data.*.test, tasks' "test") are evaluated: "ends" (step 0
  // and the end, the default) or "every" (at every evaluation, so that a point chosen on
  // the validation sets anywhere along a run has its test value: fronts.h).
  std::string test = "ends";
};

// A forgetting guard for each run ("guard"): after every evaluation, when `metric` has moved
// by more than `max_increase` (relative, in the bad direction) from its step-0 value, the run
// is stopped (status "stopped") or rolled back to its weights at the last evaluation within
// the budget and finished from there.
struct GuardSpec {
  std::string metric;  // empty: no guard
  double max_increase = 0.05;
  std::string action = "stop";  // stop | rollback
};

struct ProbeSpec {
  // How every probe of the runner runs (importance/probe_options.h; the same options as
  // `growbench-cli probe`): masking_mode, fisher_mode (also ADEPT's and EWC's Fisher),
  // steps, lr, snapshot_every, reference. The method of a probe comes from what needs it
  // (a plan's layer policy, adept.method); options.seed is the spec's seed.
  importance::ProbeOptions options;
  int64_t tokens = 8192;
  int64_t batch_size = 4;
  int64_t seq_len = 128;
};

// The top-level "adept" section of earlier specs: defaults for the ADEPT plans that do not
// set unit_lr / t_update / unit_importance themselves (stage 2 belongs to the plan now,
// grow::DepthParams; the runner reads the plan only).
struct AdeptSpec {
  bool unit_lr = false;
  int64_t t_update = 500;
  std::string method = "taylor-code";  // unit importance for Î_U
};

struct PretrainStage {
  std::string name;
  DataSource data;
  int64_t steps = 0;
  double lr = 1e-3;
  int64_t seq_len = 128;
  int64_t batch_size = 16;
  int64_t warmup = 0;
};

// A built-in base model trained from scratch: tokenizer, architecture, pretraining and
// optional fine-tuning stages. Built once and cached by the hash of this JSON.
struct PresetSpec {
  std::string preset;                      // "tiny-llama"
  nlohmann::json config;                   // config.json overrides
  std::vector<DataSource> tokenizer_data;  // byte-level BPE trained on these
  int64_t vocab_size = 4096;
  std::vector<PretrainStage> stages;  // in order
  nlohmann::json raw;
};

struct ModelSpec {
  std::string path;                  // a Hugging Face or GrowBench folder
  std::optional<PresetSpec> preset;  // or a built-in preset
};

struct ExperimentSpec {
  int version = kSpecVersion;
  std::string name = "experiment";
  uint64_t seed = 0;      // base model, data splits, probe sets
  uint64_t run_seed = 0;  // data order and new parameters' initial values ("run_seed", = seed)
  std::string device = "cpu";
  std::string dtype = "float32";
  // The frozen weight matrices' dtype while training (model/frozen_dtype.h): "checkpoint"
  // keeps the checkpoint's own where it is narrower than `dtype` (bf16 stays bf16).
  std::string frozen_dtype = "checkpoint";
  int64_t threads = 1;
  ModelSpec model;
  DataSource original_eval, original_replay, original_probe;
  DataSource new_train, new_eval;
  // Held-out test sets ("data.original.test", "data.new.test"): evaluated at step 0 and at the
  // end only (test/orig/..., test/new/...), so that choosing a configuration on the eval
  // (validation) sets never sees the data the comparison reports.
  DataSource original_test, new_test;
  std::vector<TaskSpec> tasks;
  std::vector<SequenceStep> sequence;
  std::vector<grow::GrowthPlan> plans;
  TrainSpec train;
  EvalSpec eval;
  ProbeSpec probe;
  AdeptSpec adept;
  int64_t checkpoint_interval = 0;  // 0: only at the end (and on cancel)
  GuardSpec guard;
  nlohmann::json raw;  // the spec as given (stored with every run)

  bool is_sequence() const { return !sequence.empty(); }
};

// Parses and validates; `base_dir` resolves relative paths (the spec file's folder).
ExperimentSpec parse_spec(const nlohmann::json& j, const std::string& base_dir = {},
                          const std::string& context = "spec");
ExperimentSpec load_spec(const std::string& path);
DataSource parse_source(const nlohmann::json& j, const std::string& base_dir,
                        const std::string& context);

}  // namespace gb::experiment
