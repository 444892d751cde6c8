// lm-evaluation-harness-shaped results (eval/harness_json.h).
#include "eval/harness_json.h"

#include <cmath>

#include <fmt/format.h>

#include "util/error.h"

namespace gb::eval {

using Json = nlohmann::json;

double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::optional<double> mean_stderr(const std::vector<double>& v) {
  if (v.size() < 2) return std::nullopt;
  const double mu = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - mu) * (x - mu);
  const double n = static_cast<double>(v.size());
  return std::sqrt(ss / (n - 1)) / std::sqrt(n);
}

Json harness_json(const std::vector<HarnessTask>& tasks, const HarnessRun& run) {
  Json results = Json::object(), configs = Json::object(), versions = Json::object();
  Json nshot = Json::object(), better = Json::object(), nsamples = Json::object();
  Json subtasks = Json::object();
  for (const HarnessTask& t : tasks) {
    if (results.contains(t.name)) fail("two tasks are named '{}' (the file stem)", t.name);
    Json r = {{"alias", t.name}};
    Json metric_list = Json::array();
    Json hib = Json::object();
    int64_t effective = -1;
    for (const HarnessMetric& m : t.metrics) {
      const int64_t n = static_cast<int64_t>(m.per_item.size());
      if (effective >= 0 && n != effective) {
        fail("task '{}': metric '{}' has {} items, the others {}", t.name, m.name, n, effective);
      }
      effective = n;
      r[m.name + ",none"] = n > 0 ? Json(mean(m.per_item)) : Json(nullptr);
      const auto se = mean_stderr(m.per_item);
      r[m.name + "_stderr,none"] = se ? Json(*se) : Json("N/A");
      metric_list.push_back({{"metric", m.name},
                             {"aggregation", "mean"},
                             {"higher_is_better", m.higher_is_better},
                             {"growbench", m.description}});
      hib[m.name] = m.higher_is_better;
    }
    results[t.name] = r;
    configs[t.name] = {{"task", t.name},
                       {"dataset_path", t.path},
                       {"output_type", t.output_type},
                       {"num_fewshot", 0},
                       {"target_delimiter", " "},
                       {"metric_list", metric_list},
                       {"metadata", {{"version", 1.0}}}};
    versions[t.name] = 1.0;
    nshot[t.name] = 0;
    better[t.name] = hib;
    nsamples[t.name] = {{"original", t.original}, {"effective", std::max<int64_t>(0, effective)}};
    subtasks[t.name] = Json::array();
  }
  std::string sanitized = run.model;
  for (auto& c : sanitized) {
    if (c == '/') c = '_';
  }
  Json config = {{"model", "growbench"},
                 {"model_args", run.model_args},
                 {"model_num_parameters", run.num_parameters},
                 {"model_dtype", run.dtype},
                 {"batch_size", 1},
                 {"batch_sizes", Json::array()},
                 {"device", run.device},
                 {"use_cache", nullptr},
                 {"limit", run.limit ? Json(*run.limit) : Json(nullptr)},
                 {"bootstrap_iters", nullptr},
                 {"gen_kwargs", nullptr},
                 {"random_seed", nullptr},
                 {"numpy_seed", nullptr},
                 {"torch_seed", nullptr},
                 {"fewshot_seed", nullptr}};
  for (auto it = run.extra.begin(); it != run.extra.end(); ++it) config[it.key()] = it.value();
  return Json{
      {"results", results},
      {"group_subtasks", subtasks},
      {"configs", configs},
      {"versions", versions},
      {"n-shot", nshot},
      {"higher_is_better", better},
      {"n-samples", nsamples},
      {"config", config},
      {"git_hash", nullptr},
      {"date", run.start_time},
      {"model_name", run.model},
      {"model_name_sanitized", sanitized},
      {"start_time", run.start_time},
      {"end_time", run.end_time},
      {"total_evaluation_time_seconds", fmt::format("{:.3f}", run.end_time - run.start_time)},
      {"growbench_version", GB_VERSION},
      {"stderr",
       "mean_stderr: sample standard deviation (denominator n - 1) / sqrt(n), as "
       "lm-evaluation-harness computes it for mean-aggregated metrics"}};
}

}  // namespace gb::eval
