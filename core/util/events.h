#pragma once
// Typed progress events of the experiment runner (RunnerOptions::on_event receives them
// as events::Event) and of `growbench-cli run` (which prints events::to_json of each, one
// JSON object per line, unless --quiet): one struct per event, serialised to and parsed
// from the JSON wire format in one place (events.cpp). The wire format is the contract the
// GUI (widgets/runmanager.cpp) and scripts read: "event" names the kind; optional fields
// are written only when set (tests/tst_metrics.cpp, eventsWireFormat).
//
// Emitting (core/experiment/run_prepare.h emit, used by the runner):
//
//   emit(m_p, events::Eval{m_run, step, metrics});  // std::map<key, value>
//   emit(m_p, events::Checkpoint{m_run, m_state.global_step, dir.string()});
//
// Reading:
//
//   auto ev = events::parse(json);  // throws gb::Error when a known event is malformed
//   if (auto* p = std::get_if<events::Progress>(&ev)) ...
//   std::visit([](const auto& e) { ... }, ev);

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb::events {

// The "event" values.
inline constexpr const char* kProgress = "progress";
inline constexpr const char* kStage = "stage";
inline constexpr const char* kEval = "eval";
inline constexpr const char* kGrown = "grown";
inline constexpr const char* kCheckpoint = "checkpoint";
inline constexpr const char* kRunStarted = "run_started";
inline constexpr const char* kRunFinished = "run_finished";
inline constexpr const char* kDone = "done";

// {"event": "progress", ...}: progress of a stage. Which fields are set depends on the
// stage: data preparation (stage, fraction, eta_s, message), a probe (run, stage, fraction,
// eta_s), preset pretraining (stage, step, total, loss, tokens_per_s, eta_s) and training
// (run, stage "train", phase, step, total, loss, lm_loss, lr, tokens_per_s, eta_s,
// elapsed_s). A NaN number is written as null and reads back as NaN.
struct Progress {
  std::optional<int64_t> run;
  std::string stage;
  std::optional<std::string> phase;
  std::optional<int64_t> step;
  std::optional<int64_t> total;
  std::optional<double> fraction;
  std::optional<double> loss;
  std::optional<double> lm_loss;
  std::optional<double> lr;
  std::optional<double> tokens_per_s;
  std::optional<double> eta_s;
  std::optional<double> elapsed_s;
  std::optional<std::string> message;
};

// {"event": "stage", "stage": ...}: a stage begins ("preset", "data", "probe/<method>").
struct Stage {
  Stage() = default;
  Stage(std::string stage_, std::optional<int64_t> run_ = std::nullopt,
        std::optional<std::string> preset_ = std::nullopt,
        std::optional<bool> domain_ = std::nullopt)
      : stage(std::move(stage_)), run(run_), preset(std::move(preset_)), domain(domain_) {}
  std::string stage;
  std::optional<int64_t> run;
  std::optional<std::string> preset;  // stage "preset": the preset name
  std::optional<bool> domain;         // probe stages: on the new domain's probe set
};

// {"event": "eval", "run", "step", "metrics": {key: value}}: the metrics of one evaluation
// (keys from util/metrics.h).
struct Eval {
  int64_t run = 0;
  int64_t step = 0;
  std::map<std::string, double> metrics;
};

// {"event": "grown", "run", "growth"}: the growth plan was applied (GrowthResult::to_json).
struct Grown {
  int64_t run = 0;
  nlohmann::json growth = nlohmann::json::object();
};

// {"event": "checkpoint", "run", "step", "path"}.
struct Checkpoint {
  int64_t run = 0;
  int64_t step = 0;
  std::string path;
};

// {"event": "run_started", "run", "label", ...}: "index" and "runs" for a run of an
// experiment, "resumed_from" (the checkpoint step) for a resumed run.
struct RunStarted {
  int64_t run = 0;
  std::string label;
  std::optional<int64_t> index;
  std::optional<int64_t> runs;
  std::optional<int64_t> resumed_from;
};

// {"event": "run_finished", "run", "status", "error", "seconds", "final": {key: value}}.
struct RunFinished {
  int64_t run = 0;
  std::string status;  // "finished", "failed", "cancelled", "diverged"
  std::string error;
  double seconds = 0;
  std::map<std::string, double> final_metrics;  // wire name "final"
};

// {"event": "done", "db", "exit_code", "runs": [{"run", "label", "status", "error"}]}: the
// last line of `growbench-cli run`.
struct DoneRun {
  int64_t run = 0;
  std::string label;
  std::string status;
  std::string error;
};
struct Done {
  std::string db;
  int exit_code = 0;
  std::vector<DoneRun> runs;
};

// An object whose "event" is missing or not one of the above (kept whole).
struct Unknown {
  std::string event;
  nlohmann::json raw;
};

using Event =
    std::variant<Progress, Stage, Eval, Grown, Checkpoint, RunStarted, RunFinished, Done, Unknown>;

nlohmann::json to_json(const Progress& e);
nlohmann::json to_json(const Stage& e);
nlohmann::json to_json(const Eval& e);
nlohmann::json to_json(const Grown& e);
nlohmann::json to_json(const Checkpoint& e);
nlohmann::json to_json(const RunStarted& e);
nlohmann::json to_json(const RunFinished& e);
nlohmann::json to_json(const Done& e);
nlohmann::json to_json(const Unknown& e);  // the raw object
nlohmann::json to_json(const Event& e);

// Parses one wire object. An object whose "event" is missing or unknown gives Unknown; a
// known event with a missing or mistyped required field throws gb::Error naming the event
// and the field; a value that is not an object throws gb::Error.
Event parse(const nlohmann::json& j);

// The "event" name of an alternative ("" for an Unknown without one).
std::string name(const Event& e);

// The run an event belongs to, when it names one.
std::optional<int64_t> run_of(const Event& e);

}  // namespace gb::events
