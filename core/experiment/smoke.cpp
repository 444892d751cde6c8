#include "experiment/smoke.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "util/json.h"

namespace gb::experiment {

using Json = nlohmann::json;

namespace {

void cap(Json& j, const char* key, int64_t most, int64_t fallback) {
  if (!j.is_object()) return;
  const int64_t v =
      j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : fallback;
  j[key] = std::min(v, most);
}

// Smaller cloze tasks and biography sets wherever a source or task holds them.
void shrink_sources(Json& j) {
  if (j.is_object()) {
    if (j.contains("cloze") && j["cloze"].is_object()) cap(j["cloze"], "items", 12, 200);
    if (j.contains("biography") && j["biography"].is_object()) {
      cap(j["biography"], "num_people", 200, 200000);
    }
    if (j.contains("max_items")) cap(j, "max_items", 12, 12);
    for (auto it = j.begin(); it != j.end(); ++it) shrink_sources(*it);
  } else if (j.is_array()) {
    for (auto& e : j) shrink_sources(e);
  }
}

// A claim condition read at a step of the run ("step": 50 of 300) is read at the smoke run's
// evaluation at the same fraction of its steps (at least its first evaluation after step 0),
// so that the smoke report has a value there.
void smoke_claim_steps(Json& report, int64_t full_steps, int64_t steps, int64_t interval) {
  if (!report.is_object() || !report.contains("claims") || !report["claims"].is_array()) return;
  for (auto& c : report["claims"]) {
    if (!c.is_object()) continue;
    for (const char* list : {"all", "matched"}) {
      if (!c.contains(list) || !c[list].is_array()) continue;
      for (auto& cond : c[list]) {
        if (!cond.is_object() || !cond.contains("step") || !cond["step"].is_number_integer()) {
          continue;
        }
        const int64_t step = cond["step"].get<int64_t>();
        if (step <= 0 || full_steps <= 0) continue;
        const double at = static_cast<double>(step) * static_cast<double>(steps) /
                          static_cast<double>(full_steps) / static_cast<double>(interval);
        const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(at + 0.5));
        const int64_t last = steps >= interval ? (steps / interval) * interval : steps;
        cond["step"] = std::min(k * interval, last);
      }
    }
  }
}

}  // namespace

Json smoke_spec(const Json& in) {
  Json s = in;
  s["name"] = s.value("name", std::string("experiment")) + "-smoke";
  if (s.contains("seeds") && s["seeds"].is_array() && !s["seeds"].empty()) {
    s["seeds"] = Json::array({s["seeds"][0]});
  }
  for (const char* k : {"sweep", "sweep_mode", "samples"}) s.erase(k);
  auto shrink_plan = [](Json& p) {
    if (!p.is_object()) return;
    for (const char* k : {"sweep", "sweep_mode", "samples"}) p.erase(k);
    if (p.contains("seeds") && p["seeds"].is_array() && !p["seeds"].empty()) {
      p["seeds"] = Json::array({p["seeds"][0]});
    }
    if (p.contains("t_update")) cap(p, "t_update", 3, 500);
    if (p.contains("train") && p["train"].is_object()) {
      for (const char* k : {"steps", "warmup", "batch_size", "seq_len"}) p["train"].erase(k);
    }
  };
  if (s.contains("plans") && s["plans"].is_array()) {
    for (auto& p : s["plans"]) shrink_plan(p);
  }
  if (s.contains("plan")) shrink_plan(s["plan"]);
  Json& t = s["train"];
  if (!t.is_object()) t = Json::object();
  // Short sequences and small batches: the smoke version checks the pipeline, so a step
  // needs to be cheap, not representative.
  const int64_t full_steps =
      t.contains("steps") && t["steps"].is_number_integer() ? t["steps"].get<int64_t>() : 100;
  cap(t, "steps", 6, 100);
  cap(t, "batch_size", 2, 8);
  cap(t, "seq_len", 64, 128);
  t["warmup"] = 0;
  Json& e = s["eval"];
  if (!e.is_object()) e = Json::object();
  e["interval"] = 3;
  if (s.contains("report")) {
    smoke_claim_steps(s["report"], full_steps, t["steps"].get<int64_t>(), 3);
  }
  cap(e, "tokens", 512, 16384);
  cap(e, "batch_size", 4, 8);
  cap(e, "max_items", 12, 200);
  if (s.contains("probe") && s["probe"].is_object()) {
    cap(s["probe"], "tokens", 512, 8192);
    cap(s["probe"], "steps", 3, 50);
    cap(s["probe"], "seq_len", 64, 128);
    cap(s["probe"], "batch_size", 2, 8);
  }
  if (s.contains("checkpoint") && s["checkpoint"].is_object() &&
      s["checkpoint"].value("interval", 0) > 0) {
    s["checkpoint"]["interval"] = 3;
  }
  if (s.contains("sequence") && s["sequence"].is_array()) {
    for (auto& st : s["sequence"]) {
      if (st.is_object() && st.contains("steps")) cap(st, "steps", 2, 2);
    }
  }
  if (s.contains("model") && s["model"].is_object() && s["model"].contains("stages")) {
    for (auto& st : s["model"]["stages"]) {
      if (!st.is_object()) continue;
      cap(st, "steps", 10, 100);
      cap(st, "batch_size", 4, 16);
      cap(st, "seq_len", 64, 128);
      st["warmup"] = 0;
    }
  }
  if (s.contains("data")) shrink_sources(s["data"]);
  if (s.contains("sequence")) shrink_sources(s["sequence"]);
  if (s.contains("model")) shrink_sources(s["model"]);
  return s;
}

ExperimentSpec load_spec_for(const std::string& path, bool smoke) {
  if (!smoke) return load_spec(path);
  const Json j = smoke_spec(json::parse_file(path));
  const std::string base = std::filesystem::absolute(path).parent_path().string();
  return parse_spec(j, base, path + " (smoke)");
}

}  // namespace gb::experiment
