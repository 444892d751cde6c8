#pragma once
// A growth variant's run-time behaviour: what the experiment runner
// (core/experiment/run_executor.cpp) asks of a variant's module while it runs a plan. The
// runner names no variant; a variant that needs something before training (EWC's Fisher), acts
// during it (ADEPT's unit-wise rates) or warns about its settings (neutral residues without
// replay) declares it here, in its own file under core/grow/variants/.
//
// No LibTorch here: the GUI includes grow/variant.h, which includes this header.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb::importance {
struct ProbeResult;
}

namespace gb::grow {

struct GrowthResult;
struct VariantParams;

// What a variant's warnings may depend on.
struct RunFacts {
  double replay = 0;           // the plan's share of original-domain batches (or the spec's)
  bool data_parallel = false;  // the run is one of the processes of a data-parallel world
  bool resumed = false;        // the run continues from a checkpoint
};

// What the runner offers a hook while a run trains. Everything it records goes to the run.
class RunContext {
 public:
  virtual ~RunContext() = default;
  // Optimizer steps done so far in the run (a resumed run counts from its start).
  virtual int64_t steps_done() const = 0;
  // The applied plan: groups, layers of the unit-wise rates, parameter counts.
  virtual const GrowthResult& growth() const = 0;
  // The importance by `method` (a unit method of core/importance) of every unit of the
  // current weights on the run's general probe set. Recorded in the store under the run's
  // grown model, with `record_params` added to the probe's parameters.
  virtual importance::ProbeResult probe_units(const std::string& method,
                                              const nlohmann::json& record_params) = 0;
  // An optimizer group's multiplier of the scheduled rate, kept in the run's checkpoints;
  // false when the plan trains no such group (e.g. a norm it keeps frozen).
  virtual bool set_lr_scale(const std::string& group, double scale) = 0;
  // A metric of the run at the current step; an information event of the run.
  virtual void metric(const std::string& key, double value) = 0;
  virtual void info(const std::string& message) = 0;
};

struct RunHooks {
  // The base model's diagonal Fisher on the general probe set is computed before the plan
  // is applied and given to the operator (ApplyContext::fisher): EWC's penalty.
  bool needs_base_fisher = false;
  // The variant whose operator rebuilds a run's weights from its checkpoint (export,
  // evaluation of a finished run) when this variant's needs more than the weights (EWC:
  // full fine-tuning's; its penalty is only for training). Empty: the variant itself.
  std::string weights_as;
  // Warnings about the plan's settings in this run; each becomes a warning event of the run.
  std::function<std::vector<std::string>(const VariantParams&, const RunFacts&)> warnings;
  // Called before every optimizer step (with steps_done() steps done), e.g. ADEPT's unit
  // rates. What it sets with set_lr_scale survives a resume through the checkpoint.
  std::function<void(const VariantParams&, RunContext&)> before_step;
};

}  // namespace gb::grow
