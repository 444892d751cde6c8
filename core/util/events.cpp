#include "util/events.h"

#include <limits>
#include <type_traits>

#include "util/error.h"

namespace gb::events {
namespace {

using Json = nlohmann::json;

constexpr const char* kEventKey = "event";

Json head(const char* event) {
  return Json{{kEventKey, event}};
}

template <typename T>
void put_opt(Json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

Json metric_map(const std::map<std::string, double>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

// Reading: every accessor names the event and the field in its error.
class Reader {
 public:
  Reader(const Json& j, const char* event) : m_j(j), m_event(event) {}

  const Json* field(const char* key) const {
    auto it = m_j.find(key);
    return it == m_j.end() ? nullptr : &*it;
  }

  [[noreturn]] void bad(const char* key, const char* expected) const {
    const Json* v = field(key);
    fail("\"{}\" event: field \"{}\" {} (expected {})", m_event, key,
         v ? "is " + std::string(v->type_name()) : std::string("is missing"), expected);
  }

  std::string str(const char* key) const {
    const Json* v = field(key);
    if (!v || !v->is_string()) bad(key, "a string");
    return v->get<std::string>();
  }
  int64_t integer(const char* key) const {
    const Json* v = field(key);
    if (!v || !v->is_number()) bad(key, "a number");
    if (v->is_number_float()) return static_cast<int64_t>(v->get<double>());
    return v->get<int64_t>();
  }
  // NaN and infinities are written as null: null reads back as NaN.
  double number(const char* key) const {
    const Json* v = field(key);
    if (v && v->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v || !v->is_number()) bad(key, "a number or null");
    return v->get<double>();
  }
  bool boolean(const char* key) const {
    const Json* v = field(key);
    if (!v || !v->is_boolean()) bad(key, "true or false");
    return v->get<bool>();
  }
  std::map<std::string, double> metrics(const char* key) const {
    const Json* v = field(key);
    if (!v || !v->is_object()) bad(key, "an object of numbers");
    std::map<std::string, double> out;
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (it->is_null()) {
        out[it.key()] = std::numeric_limits<double>::quiet_NaN();
      } else if (it->is_number()) {
        out[it.key()] = it->get<double>();
      } else {
        fail("\"{}\" event: {}[\"{}\"] is {} (expected a number or null)", m_event, key, it.key(),
             it->type_name());
      }
    }
    return out;
  }

  template <typename T>
  std::optional<T> opt(const char* key, T (Reader::*get)(const char*) const) const {
    if (!field(key)) return std::nullopt;
    return (this->*get)(key);
  }

 private:
  const Json& m_j;
  const char* m_event;
};

Progress parse_progress(const Reader& r) {
  Progress e;
  e.run = r.opt("run", &Reader::integer);
  e.stage = r.str("stage");
  e.phase = r.opt("phase", &Reader::str);
  e.step = r.opt("step", &Reader::integer);
  e.total = r.opt("total", &Reader::integer);
  e.fraction = r.opt("fraction", &Reader::number);
  e.loss = r.opt("loss", &Reader::number);
  e.lm_loss = r.opt("lm_loss", &Reader::number);
  e.lr = r.opt("lr", &Reader::number);
  e.tokens_per_s = r.opt("tokens_per_s", &Reader::number);
  e.eta_s = r.opt("eta_s", &Reader::number);
  e.elapsed_s = r.opt("elapsed_s", &Reader::number);
  e.message = r.opt("message", &Reader::str);
  return e;
}

Stage parse_stage(const Reader& r) {
  Stage e;
  e.stage = r.str("stage");
  e.run = r.opt("run", &Reader::integer);
  e.preset = r.opt("preset", &Reader::str);
  e.domain = r.opt("domain", &Reader::boolean);
  return e;
}

Eval parse_eval(const Reader& r) {
  return Eval{r.integer("run"), r.integer("step"), r.metrics("metrics")};
}

Grown parse_grown(const Reader& r) {
  const Json* g = r.field("growth");
  if (!g) r.bad("growth", "an object");
  return Grown{r.integer("run"), *g};
}

Checkpoint parse_checkpoint(const Reader& r) {
  return Checkpoint{r.integer("run"), r.integer("step"), r.str("path")};
}

RunStarted parse_run_started(const Reader& r) {
  RunStarted e;
  e.run = r.integer("run");
  e.label = r.str("label");
  e.index = r.opt("index", &Reader::integer);
  e.runs = r.opt("runs", &Reader::integer);
  e.resumed_from = r.opt("resumed_from", &Reader::integer);
  return e;
}

RunFinished parse_run_finished(const Reader& r) {
  RunFinished e;
  e.run = r.integer("run");
  e.status = r.str("status");
  e.error = r.str("error");
  e.seconds = r.number("seconds");
  e.final_metrics = r.metrics("final");
  return e;
}

Done parse_done(const Reader& r) {
  Done e;
  e.db = r.str("db");
  e.exit_code = static_cast<int>(r.integer("exit_code"));
  const Json* runs = r.field("runs");
  if (!runs || !runs->is_array()) r.bad("runs", "an array");
  for (const Json& item : *runs) {
    if (!item.is_object()) fail("\"done\" event: an entry of \"runs\" is {}", item.type_name());
    Reader ir(item, "done");
    e.runs.push_back({ir.integer("run"), ir.str("label"), ir.str("status"), ir.str("error")});
  }
  return e;
}

}  // namespace

Json to_json(const Progress& e) {
  Json j = head(kProgress);
  put_opt(j, "run", e.run);
  j["stage"] = e.stage;
  put_opt(j, "phase", e.phase);
  put_opt(j, "step", e.step);
  put_opt(j, "total", e.total);
  put_opt(j, "fraction", e.fraction);
  put_opt(j, "loss", e.loss);
  put_opt(j, "lm_loss", e.lm_loss);
  put_opt(j, "lr", e.lr);
  put_opt(j, "tokens_per_s", e.tokens_per_s);
  put_opt(j, "eta_s", e.eta_s);
  put_opt(j, "elapsed_s", e.elapsed_s);
  put_opt(j, "message", e.message);
  return j;
}

Json to_json(const Stage& e) {
  Json j = head(kStage);
  j["stage"] = e.stage;
  put_opt(j, "run", e.run);
  put_opt(j, "preset", e.preset);
  put_opt(j, "domain", e.domain);
  return j;
}

Json to_json(const Eval& e) {
  Json j = head(kEval);
  j["run"] = e.run;
  j["step"] = e.step;
  j["metrics"] = metric_map(e.metrics);
  return j;
}

Json to_json(const Grown& e) {
  Json j = head(kGrown);
  j["run"] = e.run;
  j["growth"] = e.growth;
  return j;
}

Json to_json(const Checkpoint& e) {
  Json j = head(kCheckpoint);
  j["run"] = e.run;
  j["step"] = e.step;
  j["path"] = e.path;
  return j;
}

Json to_json(const RunStarted& e) {
  Json j = head(kRunStarted);
  j["run"] = e.run;
  j["label"] = e.label;
  put_opt(j, "index", e.index);
  put_opt(j, "runs", e.runs);
  put_opt(j, "resumed_from", e.resumed_from);
  return j;
}

Json to_json(const RunFinished& e) {
  Json j = head(kRunFinished);
  j["run"] = e.run;
  j["status"] = e.status;
  j["error"] = e.error;
  j["seconds"] = e.seconds;
  j["final"] = metric_map(e.final_metrics);
  return j;
}

Json to_json(const Done& e) {
  Json j = head(kDone);
  j["db"] = e.db;
  j["exit_code"] = e.exit_code;
  Json runs = Json::array();
  for (const auto& r : e.runs) {
    runs.push_back({{"run", r.run}, {"label", r.label}, {"status", r.status}, {"error", r.error}});
  }
  j["runs"] = std::move(runs);
  return j;
}

Json to_json(const Unknown& e) {
  return e.raw;
}

Json to_json(const Event& e) {
  return std::visit([](const auto& x) { return to_json(x); }, e);
}

Event parse(const Json& j) {
  if (!j.is_object()) fail("progress event: expected a JSON object, got {}", j.type_name());
  auto it = j.find(kEventKey);
  if (it == j.end() || !it->is_string()) return Unknown{"", j};
  const std::string ev = it->get<std::string>();
  Reader r(j, ev.c_str());
  try {
    if (ev == kProgress) return parse_progress(r);
    if (ev == kStage) return parse_stage(r);
    if (ev == kEval) return parse_eval(r);
    if (ev == kGrown) return parse_grown(r);
    if (ev == kCheckpoint) return parse_checkpoint(r);
    if (ev == kRunStarted) return parse_run_started(r);
    if (ev == kRunFinished) return parse_run_finished(r);
    if (ev == kDone) return parse_done(r);
  } catch (const nlohmann::json::exception& e) {
    // Numbers out of range and the like.
    fail("\"{}\" event: {}", ev, e.what());
  }
  return Unknown{ev, j};
}

std::string name(const Event& e) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Progress>) {
          return kProgress;
        } else if constexpr (std::is_same_v<T, Stage>) {
          return kStage;
        } else if constexpr (std::is_same_v<T, Eval>) {
          return kEval;
        } else if constexpr (std::is_same_v<T, Grown>) {
          return kGrown;
        } else if constexpr (std::is_same_v<T, Checkpoint>) {
          return kCheckpoint;
        } else if constexpr (std::is_same_v<T, RunStarted>) {
          return kRunStarted;
        } else if constexpr (std::is_same_v<T, RunFinished>) {
          return kRunFinished;
        } else if constexpr (std::is_same_v<T, Done>) {
          return kDone;
        } else {
          return x.event;
        }
      },
      e);
}

std::optional<int64_t> run_of(const Event& e) {
  return std::visit(
      [](const auto& x) -> std::optional<int64_t> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Progress> || std::is_same_v<T, Stage>) {
          return x.run;
        } else if constexpr (std::is_same_v<T, Done>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, Unknown>) {
          auto it = x.raw.find("run");
          if (it != x.raw.end() && it->is_number()) return it->template get<int64_t>();
          return std::nullopt;
        } else {
          return x.run;
        }
      },
      e);
}

}  // namespace gb::events
