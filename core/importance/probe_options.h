#pragma once
// The options of an importance probe, shared by every path that runs one (importance/
// probe.h run_probe: `growbench-cli probe`, the GUI through it, the experiment runner). No
// LibTorch here: the experiment spec (core/experiment/spec.h) holds them.
//
// JSON keys (the `probe` section of an experiment spec, docs/experiments.md) and the CLI's
// options are the same names, snake_case in JSON and kebab-case on the command line
// (fisher_mode ↔ --fisher-mode):
//   method          masking, taylor, taylor-abs, taylor-code, fisher, update-magnitude,
//                   effective-rank
//   masking_mode    masking: cached (default; restarts from the cached layer inputs) or
//                   naive (a full pass per bypassed layer; the reference)
//   fisher_mode     fisher and EWC's Fisher: sequence (default; one gradient per row, the
//                   empirical Fisher EWC uses) or batch (squared per-batch gradients)
//   steps           update-magnitude, effective-rank: preliminary fine-tuning steps (50)
//   lr              their learning rate (1e-4)
//   snapshot_every  effective-rank: stage length in steps (0 = default: max(1, steps / 5))
//   reference       effective-rank: previous (default; W_t − W_(t−1)) or base (W_t − W_0)
//   checkpointing   taylor, taylor-abs, taylor-code, fisher: activation checkpointing per
//                   decoder layer in the probe's forward passes (false)
//   seed            the preliminary run's batch order (a spec uses its top-level seed)
//   checkpoints     effective-rank of these checkpoint folders (in training order) instead
//                   of a preliminary run (command line)

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importance/result.h"

namespace gb::importance {

enum class MaskingMode {
  Cached,  // one base pass per batch, restarts from the cached layer inputs
  Naive,   // a full forward pass per bypassed layer (the reference; for benchmarks)
};
const char* masking_mode_name(MaskingMode mode);  // "cached", "naive"
MaskingMode parse_masking_mode(const std::string& name);

enum class FisherMode { PerSequence, PerBatch };
const char* fisher_mode_name(FisherMode mode);  // "sequence", "batch"
FisherMode parse_fisher_mode(const std::string& name);

enum class DeltaReference { Previous, Base };
const char* delta_reference_name(DeltaReference r);  // "previous", "base"
DeltaReference parse_delta_reference(const std::string& name);

struct ProbeOptions {
  std::string method = methods::kMasking;
  MaskingMode masking_mode = MaskingMode::Cached;
  FisherMode fisher_mode = FisherMode::PerSequence;
  int64_t steps = 50;
  double lr = 1e-4;
  int64_t snapshot_every = 0;
  DeltaReference reference = DeltaReference::Previous;
  uint64_t seed = 0;
  std::vector<std::string> checkpoints;
  // The gradient probes (the unit methods) keep only each layer's input and recompute its
  // activations in the backward pass: the same numbers, the activations of one layer at a time.
  bool checkpointing = false;

  // The effective-rank stage length: snapshot_every, or max(1, steps / 5) when 0.
  int64_t effective_snapshot_every() const;
};

// The JSON keys of ProbeOptions, in the order to_json writes them.
const std::vector<std::string>& probe_option_keys();

// Reads the option keys present in `j` and validates them. Other keys are the caller's to
// check (the spec's `probe` section also holds the probe set's size). Errors name `context`
// and the key: "spec.probe.fisher_mode: must be sequence or batch, found 'rows'".
ProbeOptions probe_options_from_json(const nlohmann::json& j, const std::string& context);
nlohmann::json to_json(const ProbeOptions& options);  // every key

// Checks the values (a known method, steps >= 1, lr > 0, snapshot_every >= 0), naming
// `context` and the key in errors.
void validate(const ProbeOptions& options, const std::string& context);

// Whether the method fine-tunes the model first (update-magnitude; effective-rank without
// checkpoints): its data is the preliminary run's training set.
bool fine_tunes(const ProbeOptions& options);
// Whether the method measures the model on the probe set (masking and the unit methods):
// those also run on a domain probe set, for calibrated importance.
bool measures_probe_set(const std::string& method);

}  // namespace gb::importance
