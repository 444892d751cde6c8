#pragma once
// Results shaped like lm-evaluation-harness output (its results_<date>.json), so that tools
// that read the harness's files read GrowBench's evaluations too:
//   {"results": {"<task>": {"alias": "<task>", "acc,none": 0.5, "acc_stderr,none": 0.1,
//                           "acc_norm,none": ..., "acc_norm_stderr,none": ...}},
//    "group_subtasks": {"<task>": []}, "configs": {"<task>": {task config}},
//    "versions": {"<task>": 1.0}, "n-shot": {"<task>": 0},
//    "higher_is_better": {"<task>": {"acc": true, ...}},
//    "n-samples": {"<task>": {"original": N, "effective": n}},
//    "config": {"model": ..., "model_args": ..., "device": ..., "limit": ..., ...},
//    "git_hash": null, "date": ..., "start_time": ..., "end_time": ...,
//    "total_evaluation_time_seconds": "...", "growbench_version": ...}
// Metric keys are "<metric>,<filter>" with the filter "none". Every metric is the mean of
// per-item values and its standard error is the harness's mean_stderr: the sample standard
// deviation (denominator n − 1) divided by √n; "N/A" for fewer than two items, as the
// harness writes it. No LibTorch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb::eval {

double mean(const std::vector<double>& values);
// Sample standard deviation (n − 1) / √n; nullopt for fewer than two values.
std::optional<double> mean_stderr(const std::vector<double>& values);

struct HarnessMetric {
  std::string name;              // "acc", "acc_norm", "exact_match"
  std::vector<double> per_item;  // one value per scored item (0 or 1 for accuracies)
  bool higher_is_better = true;
  std::string description;  // how GrowBench computes it (written to the task's config)
};

struct HarnessTask {
  std::string name;         // the task name: the file's stem
  std::string path;         // the JSONL file
  std::string output_type;  // "multiple_choice" or "generate_until"
  std::vector<HarnessMetric> metrics;
  int64_t original = 0;  // items in the file
};

struct HarnessRun {
  std::string model;       // what was evaluated (a folder, or "run N of DB")
  std::string model_args;  // "pretrained=...,dtype=..."
  std::string device;
  std::string dtype;
  int64_t num_parameters = 0;
  std::optional<int64_t> limit;
  double start_time = 0;  // seconds since the epoch
  double end_time = 0;
  nlohmann::json extra = nlohmann::json::object();  // merged into "config" (run id, ...)
};

nlohmann::json harness_json(const std::vector<HarnessTask>& tasks, const HarnessRun& run);

}  // namespace gb::eval
