#include "importance/probe_options.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/json.h"

namespace gb::importance {

namespace js = gb::json;
using Json = nlohmann::json;

const char* fisher_mode_name(FisherMode m) {
  return m == FisherMode::PerSequence ? "sequence" : "batch";
}

FisherMode parse_fisher_mode(const std::string& name) {
  if (name == "sequence" || name == "per-sequence") return FisherMode::PerSequence;
  if (name == "batch" || name == "per-batch") return FisherMode::PerBatch;
  fail("unknown Fisher mode '{}' (expected sequence or batch)", name);
}

const char* delta_reference_name(DeltaReference r) {
  return r == DeltaReference::Previous ? "previous" : "base";
}

DeltaReference parse_delta_reference(const std::string& name) {
  if (name == "previous") return DeltaReference::Previous;
  if (name == "base") return DeltaReference::Base;
  fail("unknown effective-rank reference '{}' (expected previous or base)", name);
}

const char* masking_mode_name(MaskingMode mode) {
  return mode == MaskingMode::Cached ? "cached" : "naive";
}

MaskingMode parse_masking_mode(const std::string& name) {
  if (name == "cached") return MaskingMode::Cached;
  if (name == "naive") return MaskingMode::Naive;
  fail("unknown masking mode '{}' (expected cached or naive)", name);
}

int64_t ProbeOptions::effective_snapshot_every() const {
  return snapshot_every > 0 ? snapshot_every : std::max<int64_t>(1, steps / 5);
}

const std::vector<std::string>& probe_option_keys() {
  static const std::vector<std::string> keys = {
      "method",         "masking_mode", "fisher_mode", "steps",       "lr",
      "snapshot_every", "reference",    "seed",        "checkpoints", "checkpointing"};
  return keys;
}

namespace {

// A named choice: parse(value), or an error naming the key and the choices.
template <typename Parse>
auto choice(const Json& j, const char* key, const std::string& fallback, const std::string& ctx,
            const char* choices, Parse parse) {
  const std::string v = js::get_or<std::string>(j, key, fallback, ctx);
  try {
    return parse(v);
  } catch (const Error&) {
    fail("{}.{}: must be {}, found '{}'", ctx, key, choices, v);
  }
}

std::string method_list() {
  std::string out;
  const auto names = method_names();
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ");
    out += names[i];
  }
  return out;
}

}  // namespace

void validate(const ProbeOptions& o, const std::string& ctx) {
  const auto names = method_names();
  if (std::find(names.begin(), names.end(), o.method) == names.end()) {
    fail("{}.method: must be {}, found '{}'", ctx, method_list(), o.method);
  }
  if (o.steps < 1) fail("{}.steps: must be at least 1, found {}", ctx, o.steps);
  if (!(o.lr > 0) || !std::isfinite(o.lr)) {
    fail("{}.lr: must be a positive number, found {}", ctx, o.lr);
  }
  if (o.snapshot_every < 0) {
    fail("{}.snapshot_every: must be at least 0 (0: steps / 5), found {}", ctx, o.snapshot_every);
  }
}

ProbeOptions probe_options_from_json(const Json& j, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  ProbeOptions o;
  o.method = js::get_or<std::string>(j, "method", o.method, ctx);
  o.masking_mode = choice(j, "masking_mode", "cached", ctx, "cached or naive", parse_masking_mode);
  o.fisher_mode = choice(j, "fisher_mode", "sequence", ctx, "sequence or batch", parse_fisher_mode);
  o.steps = js::get_or<int64_t>(j, "steps", o.steps, ctx);
  o.lr = js::get_or<double>(j, "lr", o.lr, ctx);
  o.snapshot_every = js::get_or<int64_t>(j, "snapshot_every", o.snapshot_every, ctx);
  o.reference = choice(j, "reference", "previous", ctx, "previous or base", parse_delta_reference);
  const int64_t seed = js::get_or<int64_t>(j, "seed", 0, ctx);
  if (seed < 0) fail("{}.seed: must be at least 0, found {}", ctx, seed);
  o.seed = static_cast<uint64_t>(seed);
  o.checkpoints = js::get_or<std::vector<std::string>>(j, "checkpoints", {}, ctx);
  o.checkpointing = js::get_or<bool>(j, "checkpointing", false, ctx);
  validate(o, ctx);
  return o;
}

Json to_json(const ProbeOptions& o) {
  return Json{{"method", o.method},
              {"masking_mode", masking_mode_name(o.masking_mode)},
              {"fisher_mode", fisher_mode_name(o.fisher_mode)},
              {"steps", o.steps},
              {"lr", o.lr},
              {"snapshot_every", o.snapshot_every},
              {"reference", delta_reference_name(o.reference)},
              {"seed", o.seed},
              {"checkpoints", o.checkpoints},
              {"checkpointing", o.checkpointing}};
}

bool fine_tunes(const ProbeOptions& o) {
  return o.method == methods::kUpdateMagnitude ||
         (o.method == methods::kEffectiveRank && o.checkpoints.empty());
}

bool measures_probe_set(const std::string& method) {
  return method == methods::kMasking || is_unit_method(method);
}

}  // namespace gb::importance
