#pragma once
// The metric registry: every metric key the runner writes to the store (metrics.key), with
// its meaning, unit and direction (lower or higher is better). The runner, the store, the
// CLI and every view name metric keys only through this header; no metric key appears as a
// string literal anywhere else (tests/tst_metrics.cpp checks the sources).
//
// Fixed keys are constants (kTrainLoss, kEvalOrigPpl, ...). Patterned keys are built by
// functions: task_key("bio", kAcc) == "eval/bio/acc", train_term_key("ewc") == "train/ewc".
// find() resolves both kinds.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gb::metrics {

enum class Direction { Lower, Higher, None };

struct MetricInfo {
  std::string key;      // the key, or its pattern ("eval/<task>/acc", "train/<term>")
  std::string meaning;  // one line, e.g. "perplexity on the original-domain eval set"
  std::string unit;     // "nats/token", "tokens/s", "MB", "fraction", "" (dimensionless)
  Direction direction = Direction::None;
  std::string label;  // short axis title, e.g. "original ppl"
};

// Prefixes of the key families.
inline constexpr const char* kEvalPrefix = "eval/";
inline constexpr const char* kTrainPrefix = "train/";
inline constexpr const char* kPerfPrefix = "perf/";
inline constexpr const char* kEvalOrigPrefix = "eval/orig/";
inline constexpr const char* kEvalNewPrefix = "eval/new/";
inline constexpr const char* kRoutePrefix = "route/";
inline constexpr const char* kAdeptPrefix = "adept/";

// Training (one value per logged optimizer step).
inline constexpr const char* kTrainLoss = "train/loss";           // total loss (lm + terms)
inline constexpr const char* kTrainLmLoss = "train/lm_loss";      // next-token cross-entropy
inline constexpr const char* kTrainGradNorm = "train/grad_norm";  // before clipping
inline constexpr const char* kTrainLr = "train/lr";               // base learning rate

// Evaluation on the original (forgetting) and new (learning) domain.
inline constexpr const char* kEvalOrigLoss = "eval/orig/loss";
inline constexpr const char* kEvalOrigPpl = "eval/orig/ppl";
inline constexpr const char* kEvalNewLoss = "eval/new/loss";
inline constexpr const char* kEvalNewPpl = "eval/new/ppl";
inline constexpr const char* kDriftCosine = "eval/drift/cosine";
// Upscaled (SCALE) models: max |h − h0| / max |h0| over the original part (the first d of
// d + d_up features) of the final normalised hidden states on the original eval set, h0 the
// base model's (SCALE's guarantee: 0 for Preserve, whose original stream is unchanged).
inline constexpr const char* kDriftOrigStream = "eval/drift/orig_stream";
// The held-out test sets (data.*.test), at step 0 and at the end only.
inline constexpr const char* kTestPrefix = "test/";
inline constexpr const char* kTestOrigLoss = "test/orig/loss";
inline constexpr const char* kTestOrigPpl = "test/orig/ppl";
inline constexpr const char* kTestNewLoss = "test/new/loss";
inline constexpr const char* kTestNewPpl = "test/new/ppl";
// Sequential tasks: average performance and backward transfer of the task matrix.
inline constexpr const char* kEvalOp = "eval/op";
inline constexpr const char* kEvalBwt = "eval/bwt";

// Route statistics of routed experts on original-domain tokens (grow/routes.h), at the
// step-0 and the final evaluation: the mean over banks of the mass-weighted effective
// composition number N_eff (mh-moe-multi-head-routing.txt eq. 9).
inline constexpr const char* kRouteNeff = "route/neff";

// Performance and size.
inline constexpr const char* kTokensPerS = "perf/tokens_per_s";
inline constexpr const char* kPeakMemoryMb = "perf/peak_memory_mb";
inline constexpr const char* kEvalSeconds = "perf/eval_s";
inline constexpr const char* kTotalParams = "perf/total_params";
inline constexpr const char* kTrainableParams = "perf/trainable_params";
inline constexpr const char* kAddedParams = "perf/added_params";

// Suffixes of the per-task keys "eval/<task>/<suffix>".
inline constexpr const char* kAcc = "acc";                 // mc accuracy, qa first-token acc
inline constexpr const char* kAccNorm = "acc_norm";        // mc length-normalised accuracy
inline constexpr const char* kEm = "em";                   // qa exact match
inline constexpr const char* kAnswerLoss = "answer_loss";  // qa answer cross-entropy
inline constexpr const char* kLoss = "loss";               // lm task loss
inline constexpr const char* kPpl = "ppl";                 // lm task perplexity
// Upscaled (SCALE) models: kAcc with the head's new term W_out_up·X_up masked, i.e. from the
// frozen logits W_out·X alone.
inline constexpr const char* kAccFrozenHead = "acc_frozen_head";

// "eval/<task>/<suffix>", e.g. task_key("bio", kAcc) == "eval/bio/acc".
std::string task_key(const std::string& task, const char* suffix);
// "test/<task>/<suffix>": a task's held-out test version (evaluated at step 0 and the end);
// the registry describes it like the eval key of the same task and suffix.
std::string test_task_key(const std::string& task, const char* suffix);
// "train/<term>": an extra loss term of the variant (coefficient · value), e.g. "train/ewc".
std::string train_term_key(const std::string& term);

// "route/<bank>/neff" (a bank's N_eff) and "route/<bank>/usage/<head>/<expert>" (the share of
// the head's selections that go to the expert); bank names are "<layer>.<linear>", e.g.
// "3.gate_proj", or "<layer>.moe" beside the MLP.
std::string route_neff_key(const std::string& bank);
std::string route_usage_key(const std::string& bank, int64_t head, int64_t expert);

// ADEPT stage 2 (a depth plan's unit_lr): "adept/lr_scale/<unit>", the learning-rate
// multiplier a unit got at an assignment of the unit rates, recorded at that step (the
// optimizer steps done before it; the step whose probe is recorded with the same
// "adept_step"). <unit> is the unit's optimizer group, e.g. "layers.3.q".
std::string adept_lr_scale_key(const std::string& unit);

// Splits "eval/<task>/<suffix>" with a known suffix into {task, suffix}; nullopt for the
// fixed eval keys (eval/orig/..., eval/new/..., eval/drift/..., eval/op, eval/bwt) and
// anything else.
struct TaskKey {
  std::string task;
  std::string suffix;
};
std::optional<TaskKey> split_task_key(const std::string& key);

// The registry entry of a key: a fixed key's own entry, or for a patterned key the
// pattern's entry (with key set to the pattern, e.g. "eval/<task>/acc"). nullptr when the
// key is unknown. The pointer stays valid for the life of the program.
const MetricInfo* find(const std::string& key);
// Every fixed key followed by the patterns, in a stable order.
const std::vector<MetricInfo>& all();

// Direction of a key (None when unknown).
Direction direction(const std::string& key);
// True when the key is known and lower values are better (losses, perplexities, memory).
bool lower_is_better(const std::string& key);
// True when the key is known and higher values are better (accuracies, throughput, ...).
bool higher_is_better(const std::string& key);
// Unit of a key ("" when dimensionless or unknown).
std::string unit(const std::string& key);
// Axis title for a key: the label with the task name filled in and the unit in
// parentheses, e.g. "original perplexity", "bio accuracy", "throughput (tokens/s)"; the key
// itself when unknown.
std::string axis_title(const std::string& key);

// Family tests.
bool is_eval(const std::string& key);   // "eval/..."
bool is_train(const std::string& key);  // "train/..."
bool is_perf(const std::string& key);   // "perf/..."
bool is_route(const std::string& key);  // "route/..."
bool is_adept(const std::string& key);  // "adept/..."

const char* to_string(Direction direction);  // "lower", "higher", "none"

}  // namespace gb::metrics
