#include "experiment/pilot.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <unistd.h>

#include "store/store.h"
#include "util/error.h"
#include "util/events.h"
#include "util/log.h"
#include "util/metrics.h"

namespace gb::experiment {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace mk = metrics;

namespace {

constexpr int64_t kPilotSteps = 2;  // optimizer steps per phase of a pilot run

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int64_t tokens_per_step(const ExperimentSpec& s) {
  return s.train.batch_size * s.train.seq_len * s.train.accumulation;
}

// The pilot version of a spec: one run per plan (its first seed, no sweep), two steps per
// phase, an evaluation after every step, no guard, checkpoints only at the end.
Json pilot_json(const Json& in) {
  Json j = in;
  j["name"] = j.value("name", std::string("experiment")) + "-pilot";
  auto first_seed_only = [](Json& o) {
    for (const char* k : {"sweep", "sweep_mode", "samples"}) o.erase(k);
    if (o.contains("seeds") && o["seeds"].is_array() && !o["seeds"].empty()) {
      o["seeds"] = Json::array({o["seeds"][0]});
    }
  };
  first_seed_only(j);
  if (j.contains("plans") && j["plans"].is_array()) {
    for (auto& p : j["plans"]) {
      if (!p.is_object()) continue;
      first_seed_only(p);
      if (p.contains("train") && p["train"].is_object()) {
        p["train"].erase("steps");
        p["train"].erase("warmup");
      }
    }
  }
  if (!j["train"].is_object()) j["train"] = Json::object();
  j["train"]["steps"] = kPilotSteps;
  j["train"]["warmup"] = 0;
  if (j.contains("sequence") && j["sequence"].is_array()) {
    for (auto& st : j["sequence"]) {
      if (st.is_object() && st.contains("steps")) st["steps"] = kPilotSteps;
    }
  }
  if (!j["eval"].is_object()) j["eval"] = Json::object();
  j["eval"]["interval"] = 1;
  j.erase("guard");
  if (j.contains("checkpoint") && j["checkpoint"].is_object()) j["checkpoint"]["interval"] = 0;
  return j;
}

// A scratch folder for the pilot's store and checkpoints, removed when it goes out of scope.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() / ("growbench-pilot-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

double PilotResult::total_s() const {
  double t = prepare_s;
  for (double r : run_seconds) t += r;
  return t;
}

double PilotResult::wall_s(int64_t jobs) const {
  std::vector<double> free_at(static_cast<size_t>(std::max<int64_t>(jobs, 1)), 0.0);
  for (double r : run_seconds) {
    auto first = std::min_element(free_at.begin(), free_at.end());
    *first += r;
  }
  return prepare_s + *std::max_element(free_at.begin(), free_at.end());
}

int64_t total_steps(const ExperimentSpec& spec) {
  if (!spec.is_sequence()) return spec.train.steps;
  int64_t n = 0;
  for (const auto& st : spec.sequence) n += st.steps > 0 ? st.steps : spec.train.steps;
  return n;
}

int64_t interval_evaluations(const ExperimentSpec& spec) {
  const int64_t total = total_steps(spec);
  if (total < 1 || spec.eval.interval < 1) return 0;
  return (total - 1) / spec.eval.interval;  // g in [1, total - 1] with g % interval == 0
}

double estimate_seconds(const PlanTiming& t, const ExperimentSpec& run) {
  const double ratio = t.tokens_per_step > 0 ? static_cast<double>(tokens_per_step(run)) /
                                                   static_cast<double>(t.tokens_per_step)
                                             : 1.0;
  return t.setup_s + t.ends_s + static_cast<double>(total_steps(run)) * t.step_s * ratio +
         static_cast<double>(interval_evaluations(run)) * t.eval_s;
}

PilotResult timing_pilot(const ExperimentSpec& spec, const std::vector<ExpandedRun>& runs,
                         const std::string& base_dir, const RunnerOptions& options) {
  PilotResult out;
  const ExperimentSpec pilot =
      parse_spec(pilot_json(spec.raw), base_dir, spec.name + " (timing pilot)");
  ScratchDir scratch;
  RunnerOptions o = options;
  o.db_path = (scratch.path / "pilot.db").string();
  o.workspace = (scratch.path / "runs").string();
  o.tags.clear();
  // Wall time of each pilot run, and of the preparation before the first one.
  const auto start = Clock::now();
  std::map<int64_t, Clock::time_point> started;
  std::map<int64_t, double> wall;
  Clock::time_point first_start{};
  o.on_event = [&](const events::Event& e) {
    const auto now = Clock::now();
    if (const auto* s = std::get_if<events::RunStarted>(&e)) {
      if (started.empty()) first_start = now;
      started[s->run] = now;
    } else if (const auto* f = std::get_if<events::RunFinished>(&e)) {
      if (started.count(f->run)) wall[f->run] = seconds(started[f->run], now);
    }
    if (options.on_event) options.on_event(e);
  };
  const std::vector<RunOutcome> outcomes = run_experiment(pilot, o);
  out.prepare_s = started.empty() ? 0 : seconds(start, first_start);
  if (outcomes.size() != pilot.plans.size()) {
    fail("timing pilot: {} runs for {} plans", outcomes.size(), pilot.plans.size());
  }
  store::Store st = store::Store::open(o.db_path, store::OpenMode::ReadOnly);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const RunOutcome& oc = outcomes[i];
    if (oc.status != "finished") {
      fail("timing pilot of plan '{}': the run {}: {}", oc.label, oc.status, oc.error);
    }
    PlanTiming t;
    t.plan = oc.label;
    t.pilot_s = wall.count(oc.run_id) ? wall[oc.run_id] : oc.seconds;
    auto series = st.metric_series(oc.run_id, {{mk::kEvalSeconds, mk::kTokensPerS}, {}});
    const auto& ev = series[mk::kEvalSeconds];
    const auto& tps = series[mk::kTokensPerS];
    const int64_t steps = total_steps(pilot);
    double evals = 0, inner = 0;
    int64_t n_inner = 0;
    for (size_t k = 0; k < ev.steps.size(); ++k) {
      evals += ev.values[k];
      if (ev.steps[k] == 0 || ev.steps[k] == steps) {
        t.ends_s += ev.values[k];
      } else {
        inner += ev.values[k];
        ++n_inner;
      }
    }
    t.eval_s = n_inner > 0 ? inner / static_cast<double>(n_inner) : 0.0;
    const double rate = tps.values.empty() ? 0.0 : tps.values.back();
    t.step_s = rate > 0 ? static_cast<double>(tokens_per_step(pilot)) / rate : 0.0;
    t.setup_s = std::max(0.0, t.pilot_s - evals - static_cast<double>(steps) * t.step_s);
    t.tokens_per_step = tokens_per_step(pilot);
    out.plans.push_back(t);
  }
  for (const auto& r : runs) {
    out.run_seconds.push_back(estimate_seconds(out.plans.at(r.plan_index), r.typed));
  }
  log::get("runner")->info("timing pilot: {} plan(s) in {:.1f} s (preparation {:.1f} s)",
                           out.plans.size(), seconds(start, Clock::now()), out.prepare_s);
  return out;
}

}  // namespace gb::experiment
