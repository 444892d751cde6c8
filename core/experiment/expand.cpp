// Seeds and sweeps (expand.h).
#include "experiment/expand.h"

#include <cmath>

#include <fmt/format.h>

#include "grow/variant.h"
#include "util/error.h"
#include "util/files.h"

namespace gb::experiment {

using Json = nlohmann::json;

namespace {

bool is_plan_common_key(const std::string& key) {
  return key == "replay" || key == "replay_mode" || key == "ewc" || key.rfind("ewc.", 0) == 0;
}

// Sets a dotted key in a JSON object ("ewc.lambda" → j["ewc"]["lambda"]).
void set_dotted(Json& j, const std::string& key, const Json& value) {
  Json* at = &j;
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (dot == std::string::npos) {
      (*at)[part] = value;
      return;
    }
    if (!at->contains(part) || !(*at)[part].is_object()) (*at)[part] = Json::object();
    at = &(*at)[part];
    start = dot + 1;
  }
}

void flatten(const std::string& prefix, const Json& j, std::map<std::string, Json>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(prefix + "." + it.key(), *it, out);
  } else {
    out[prefix] = j;
  }
}

// A small portable generator (SplitMix64): the same draws on every platform.
struct Draws {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

struct Sweep {
  Json keys = Json::object();  // key → values (array) or range object
  std::string mode = "grid";
  int64_t samples = 0;
};

Sweep read_sweep(const Json& holder, const std::string& ctx) {
  Sweep s;
  if (holder.contains("sweep")) {
    const Json& sw = holder["sweep"];
    if (!sw.is_object()) fail("{}.sweep: expected an object of key → values", ctx);
    s.keys = sw;
  }
  s.mode = holder.value("sweep_mode", std::string("grid"));
  if (s.mode != "grid" && s.mode != "random") {
    fail("{}.sweep_mode: must be grid or random, found '{}'", ctx, s.mode);
  }
  if (holder.contains("samples")) {
    if (!holder["samples"].is_number_integer() || holder["samples"].get<int64_t>() < 1) {
      fail("{}.samples: expected a positive integer, found {}", ctx, holder["samples"].dump());
    }
    s.samples = holder["samples"].get<int64_t>();
  }
  if (s.mode == "random" && s.samples < 1) {
    fail("{}: \"sweep_mode\": \"random\" needs \"samples\": N", ctx);
  }
  if (s.mode == "grid" && holder.contains("samples")) {
    fail("{}.samples: applies to \"sweep_mode\": \"random\" only", ctx);
  }
  for (auto it = s.keys.begin(); it != s.keys.end(); ++it) {
    const std::string c = fmt::format("{}.sweep['{}']", ctx, it.key());
    const Json& v = *it;
    if (it.key() == "seed" || it.key() == "seeds" || it.key() == "train.seed") {
      fail("{}: seeds are not swept; give \"seeds\": [...]", c);
    }
    if (it.key().rfind("train.", 0) == 0) {
      const std::string t = it.key().substr(6);
      bool ok = false;
      for (const auto& k : sweepable_train_keys()) ok = ok || k == t;
      if (!ok) {
        fail(
            "{}: 'train.{}' cannot be swept (the evaluation sets are prepared once per "
            "experiment); sweepable: train.lr, train.steps, train.warmup, train.replay, "
            "train.weight_decay, train.batch_size, ...",
            c, t);
      }
    }
    if (v.is_array()) {
      if (v.empty()) fail("{}: expected at least one value", c);
    } else if (v.is_object() && (v.contains("log_uniform") || v.contains("uniform"))) {
      if (s.mode != "random") fail("{}: ranges need \"sweep_mode\": \"random\"", c);
      const Json& r = v.contains("log_uniform") ? v["log_uniform"] : v["uniform"];
      if (v.size() != 1 || !r.is_array() || r.size() != 2 || !r[0].is_number() ||
          !r[1].is_number() || r[0].get<double>() > r[1].get<double>()) {
        fail("{}: expected {{\"log_uniform\": [low, high]}} or {{\"uniform\": [low, high]}}", c);
      }
      if (v.contains("log_uniform") && r[0].get<double>() <= 0) {
        fail("{}: a log-uniform range needs low > 0", c);
      }
    } else {
      fail("{}: expected a list of values or a range object, found {}", c, v.dump());
    }
  }
  return s;
}

std::vector<uint64_t> read_seeds(const Json& holder, const std::string& ctx) {
  std::vector<uint64_t> seeds;
  const Json& s = holder["seeds"];
  if (!s.is_array() || s.empty()) fail("{}.seeds: expected a non-empty array of integers", ctx);
  for (const auto& v : s) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0) {
      fail("{}.seeds: expected non-negative integers, found {}", ctx, v.dump());
    }
    for (uint64_t x : seeds) {
      if (x == v.get<uint64_t>()) fail("{}.seeds: {} appears twice", ctx, x);
    }
    seeds.push_back(v.get<uint64_t>());
  }
  return seeds;
}

std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:g}", v.get<double>());
  return v.dump();
}

}  // namespace

const std::vector<std::string>& sweepable_train_keys() {
  // seq_len and batch_tokens shape the evaluation sets, prepared once per experiment.
  static const std::vector<std::string> k = {
      "steps",  "batch_size",   "accumulation", "lr",          "schedule",
      "warmup", "min_lr_ratio", "weight_decay", "clip",        "beta1",
      "beta2",  "eps",          "replay",       "replay_mode", "diverge_factor"};
  return k;
}

const std::vector<std::string>& expansion_keys() {
  static const std::vector<std::string> k = {"seeds",   "sweep", "sweep_mode",
                                             "samples", "train", "comment"};
  return k;
}

std::string spec_hash(const ExperimentSpec& spec) {
  const std::string text = spec.raw.dump();
  return fmt::format("{:016x}", gb::fnv1a64(text.data(), text.size()));
}

std::vector<ExpandedRun> expand_runs(const ExperimentSpec& spec) {
  const Json& raw = spec.raw;
  const std::string ctx = "spec";
  const Sweep top = read_sweep(raw, ctx);
  const std::vector<uint64_t> top_seeds =
      raw.contains("seeds") ? read_seeds(raw, ctx) : std::vector<uint64_t>{spec.run_seed};
  Json base = raw;
  // The top level's expansion keys (its "train" and "comment" stay: they are the spec's own).
  for (const char* k : {"seeds", "sweep", "sweep_mode", "samples"}) base.erase(k);
  base.erase("run_seed");

  std::vector<ExpandedRun> out;
  const Json& plans = raw.at("plans");
  for (size_t i = 0; i < plans.size(); ++i) {
    const std::string pctx = fmt::format("{}.plans[{}]", ctx, i);
    Json plan = plans[i];
    const bool own_sweep = plan.contains("sweep");
    const Sweep sweep = own_sweep ? read_sweep(plan, pctx) : top;
    const std::vector<uint64_t> seeds = plan.contains("seeds") ? read_seeds(plan, pctx) : top_seeds;
    // A plan's own "train" section: fixed overrides of train.* for this plan (its learning
    // rate chosen by a sweep, say); a sweep point of the same key wins.
    Json plan_train = Json::object();
    if (plan.contains("train")) {
      plan_train = plan["train"];
      if (!plan_train.is_object()) fail("{}.train: expected an object of train keys", pctx);
      for (auto it = plan_train.begin(); it != plan_train.end(); ++it) {
        bool ok = false;
        for (const auto& k : sweepable_train_keys()) ok = ok || k == it.key();
        if (!ok) {
          fail(
              "{}.train.{}: a plan may set train.lr, steps, warmup, replay, weight_decay, "
              "batch_size, ... but not '{}' (the evaluation sets are shared)",
              pctx, it.key(), it.key());
        }
      }
    }
    if (plan.contains("comment") && !plan["comment"].is_string()) {
      fail("{}.comment: expected a string", pctx);
    }
    const std::string comment = plan.value("comment", std::string());
    for (const auto& k : expansion_keys()) plan.erase(k);
    const std::string variant = plan.at("variant").get<std::string>();
    const grow::VariantModule* module = grow::find_variant(variant);

    // The keys that apply to this plan, in sorted order.
    std::vector<std::pair<std::string, Json>> keys;
    for (auto it = sweep.keys.begin(); it != sweep.keys.end(); ++it) {
      const std::string& k = it.key();
      const bool applies = own_sweep || k.rfind("train.", 0) == 0 || is_plan_common_key(k) ||
                           (module && module->find(k.substr(0, k.find('.'))));
      if (applies) keys.emplace_back(k, *it);
    }
    // The points: grid or random samples.
    std::vector<Json> points;
    if (keys.empty()) {
      points.push_back(Json::object());
    } else if (sweep.mode == "grid") {
      points.push_back(Json::object());
      for (const auto& [k, values] : keys) {
        std::vector<Json> next;
        for (const auto& p : points) {
          for (const auto& v : values) {
            Json q = p;
            q[k] = v;
            next.push_back(std::move(q));
          }
        }
        points = std::move(next);
      }
    } else {
      Draws draws{spec.seed * 1000003ULL + i};
      for (int64_t n = 0; n < sweep.samples; ++n) {
        Json q = Json::object();
        for (const auto& [k, v] : keys) {
          if (v.is_array()) {
            q[k] = v[static_cast<size_t>(draws.next() % v.size())];
          } else if (v.contains("log_uniform")) {
            const double lo = std::log(v["log_uniform"][0].get<double>());
            const double hi = std::log(v["log_uniform"][1].get<double>());
            q[k] = std::exp(lo + (hi - lo) * draws.uniform());
          } else {
            const double lo = v["uniform"][0].get<double>(), hi = v["uniform"][1].get<double>();
            q[k] = lo + (hi - lo) * draws.uniform();
          }
        }
        points.push_back(std::move(q));
      }
    }

    for (const auto& point : points) {
      Json run_plan = plan;
      Json run_spec = base;
      if (!run_spec.contains("train") || !run_spec["train"].is_object()) {
        run_spec["train"] = Json::object();
      }
      for (auto it = plan_train.begin(); it != plan_train.end(); ++it) {
        run_spec["train"][it.key()] = *it;
      }
      for (auto it = point.begin(); it != point.end(); ++it) {
        if (it.key().rfind("train.", 0) == 0) {
          run_spec["train"][it.key().substr(6)] = *it;
        } else {
          set_dotted(run_plan, it.key(), *it);
        }
      }
      run_spec["plans"] = Json::array({run_plan});
      // Validate the point: the plan and the train section as the runner will read them.
      ExperimentSpec parsed;
      try {
        parsed = parse_spec(run_spec, "", "run spec");
      } catch (const std::exception& e) {
        fail("{}: the sweep point {} gives an invalid run: {}", pctx, point.dump(), e.what());
      }
      std::string suffix;
      for (auto it = point.begin(); it != point.end(); ++it) {
        suffix += (suffix.empty() ? "" : ", ") + it.key() + "=" + value_text(*it);
      }
      for (uint64_t seed : seeds) {
        ExpandedRun r;
        r.plan_index = i;
        r.seed = seed;
        r.swept = point;
        r.spec = parsed.raw;
        r.spec["run_seed"] = seed;
        r.typed = parsed;  // parse_spec(r.spec) without parsing again: only the seed differs
        r.typed.run_seed = seed;
        r.typed.raw = r.spec;
        r.name = spec.name + ": " + parsed.plans[0].label();
        if (!suffix.empty()) r.name += " [" + suffix + "]";
        if (seeds.size() > 1) r.name += fmt::format(" seed={}", seed);
        r.params["seed"] = seed;
        r.params["plan"] = parsed.plans[0].label();
        r.params["variant"] = variant;
        if (!comment.empty()) r.params["comment"] = comment;
        flatten("plan", r.spec["plans"][0], r.params);
        r.params.erase("plan.variant");
        r.params.erase("plan.name");
        const TrainSpec& t = parsed.train;
        const Json train = {{"steps", t.steps},
                            {"seq_len", t.seq_len},
                            {"batch_size", t.batch_size},
                            {"accumulation", t.accumulation},
                            {"lr", t.lr},
                            {"schedule", t.schedule},
                            {"warmup", t.warmup},
                            {"min_lr_ratio", t.min_lr_ratio},
                            {"weight_decay", t.weight_decay},
                            {"clip", t.clip},
                            {"beta1", t.beta1},
                            {"beta2", t.beta2},
                            {"eps", t.eps},
                            {"replay", parsed.plans[0].replay.value_or(t.replay)}};
        flatten("train", train, r.params);
        if (t.row_shards != 1) r.params["train.row_shards"] = t.row_shards;
        if (t.ce_chunk != -1) r.params["train.ce_chunk"] = t.ce_chunk;
        if (t.checkpointing) r.params["train.checkpointing"] = true;
        // Only where it is not the default, so the parameters of earlier runs stay as they were.
        const std::string replay_mode = parsed.plans[0].replay_mode.value_or(t.replay_mode);
        if (replay_mode != "batches") r.params["train.replay_mode"] = replay_mode;
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

}  // namespace gb::experiment
