#pragma once
// What every run of an experiment shares, prepared once (run_prepare.cpp): the base model
// folder and tokenizer, the training phases and replay stream, the evaluation and test sets,
// the tasks, the probe sets, and the probes on the base model that plans' layer policies
// need (cached across the runs and recorded). Internal to the runner: runner.cpp (the
// experiment) and run_executor.cpp (one run). LibTorch.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "data/packing.h"
#include "data/tokenized.h"
#include "dist/group.h"
#include "eval/evaluate.h"
#include "experiment/runner.h"
#include "experiment/spec.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/selection.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "util/events.h"
#include "util/progress.h"

namespace gb {
class CausalLMImpl;
}

namespace gb::experiment::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
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
  if (p.options.on_event) p.options.on_event(events::Event(event));
}

events::Stage stage_event(const std::string& stage, std::optional<int64_t> run = std::nullopt);
// A progress event of a probe (with the run) or of data preparation (with the message).
events::Progress progress_event(const ProgressUpdate& u, std::optional<int64_t> run);

// Prepares everything the runs share (the threads of LibTorch set from the spec).
std::unique_ptr<Prepared> prepare(const ExperimentSpec& spec, const RunnerOptions& options);

// The general (original-domain) or domain probe set; throws when a plan needs the general
// one and the spec gives no original-domain data.
const importance::ProbeSet& probe_set(Prepared& p, bool domain);
// A data-parallel run shards its probes by batch; one process: no sharding.
importance::ProbeSharding probe_sharding(const std::shared_ptr<dist::Group>& g);
// The probe options of the spec for `method`.
importance::ProbeOptions probe_options(const Prepared& p, const std::string& method);
// The probe `need` on the base model, run once per experiment and recorded in the store.
void ensure_probe(Prepared& p, store::Store& store, const importance::ProbeNeed& need,
                  CausalLMImpl& base, int64_t run_id);

}  // namespace gb::experiment::detail
