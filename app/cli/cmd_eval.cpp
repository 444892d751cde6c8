// growbench-cli eval: scores a model (or a run's checkpoint) on multiple-choice and QA task
// files and writes the results shaped like lm-evaluation-harness output (eval/harness_json.h).
#include <chrono>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <torch/torch.h>

#include "common.h"
#include "human_events.h"
#include "util/metrics.h"
#include "data/tasks.h"
#include "data/tokenized.h"
#include "eval/evaluate.h"
#include "eval/harness_json.h"
#include "experiment/run_model.h"
#include "model/tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The scores of an item came from non-finite logits: no accuracy is reported.
[[noreturn]] void non_finite(const std::string& path, size_t item) {
  fail(
      "{}: item {}: the model's log-likelihoods are not finite (NaN or Inf logits); its "
      "weights or inputs are broken, so no accuracy is reported",
      path, item + 1);
}

struct EvalOptions {
  ModelArg model;
  std::optional<int64_t> run;
  std::string db;
  std::vector<std::string> tasks;
  std::string json_out;
  std::optional<int64_t> limit;
};

void declare_eval(CLI::App& app, EvalOptions& o) {
  app.add_option("MODEL", o.model.path,
                 "a Hugging Face folder or a GrowBench checkpoint folder (or give --run)")
      ->type_name("MODEL");
  declare_device_dtype(app, o.model, "dtype of the weights in memory");
  add_option(app, "--run", o.run, "ID",
             "evaluate run ID of --db at its latest checkpoint instead of MODEL")
      ->check(at_least(1));
  add_option(app, "--db", o.db, "DB",
             "the run store of --run (default: the default workspace's growbench.db)");
  app.add_option("--tasks", o.tasks,
                 "task files (JSONL), comma-separated or repeated; each is a\n"
                 "multiple-choice file ({\"context\", \"choices\", \"answer\"}) or a QA file\n"
                 "({\"question\", \"answer\"}); the task name is the file's stem")
      ->type_name("FILE[,FILE...]")
      ->delimiter(',')
      ->required();
  add_option(app, "--json", o.json_out, "OUT",
             "write the lm-evaluation-harness-shaped results to OUT ('-': stdout)");
  add_option(app, "--limit", o.limit, "N", "score only the first N items of each task")
      ->check(at_least(1));
}

// "mc" or "qa", from the keys of the first object of a JSONL file.
std::string task_kind(const std::string& path) {
  if (is_directory(path)) fail("{}: is a folder; --tasks expects JSONL files", path);
  if (!file_exists(path)) fail("{}: no such file (--tasks)", path);
  std::ifstream in(path);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Json j = json::parse(line, fmt::format("{}:{}", path, line_no));
    if (!j.is_object()) fail("{}:{}: expected a JSON object per line", path, line_no);
    for (const char* k : {"choices", "endings", "options"}) {
      if (j.contains(k)) return "mc";
    }
    for (const char* k : {"question", "q"}) {
      if (j.contains(k)) return "qa";
    }
    fail(
        "{}:{}: neither a multiple-choice item (\"context\", \"choices\", \"answer\") nor a QA "
        "item (\"question\", \"answer\")",
        path, line_no);
  }
  fail("{}: no items (an empty task file)", path);
}

std::vector<double> as_values(const std::vector<bool>& hits) {
  return std::vector<double>(hits.begin(), hits.end());
}

int run_eval(const EvalOptions& o) {
  if (o.run && !o.model.path.empty()) {
    throw UsageError("give MODEL or --run ID, not both");
  }
  if (!o.run && o.model.path.empty()) throw UsageError("missing argument MODEL (or --run ID)");
  if (!o.run && !o.db.empty()) throw UsageError("--db applies with --run only");
  // The tasks first: a missing or malformed file fails before the weights load.
  struct TaskFile {
    std::string name, path, kind;
  };
  std::vector<TaskFile> files;
  std::set<std::string> names;
  for (const auto& p : o.tasks) {
    if (p.empty()) throw UsageError("--tasks: an empty file name");
    TaskFile t{fs::path(p).stem().string(), p, task_kind(p)};
    if (!names.insert(t.name).second) {
      throw UsageError(
          fmt::format("--tasks: two files have the stem '{}' (the task name); rename one", t.name));
    }
    files.push_back(t);
  }

  const auto start = std::chrono::system_clock::now();
  // On a terminal: the stage, then the items scored of each task, on one line in place.
  TerminalProgress terminal = TerminalProgress::on_terminal();
  terminal.stage(o.run ? fmt::format("loading run {}", *o.run) : "loading " + o.model.path);
  LoadedModel m;
  std::string what, tok_path;
  Json extra = Json::object();
  if (o.run) {
    const std::string db = o.db.empty() ? default_store_path() : o.db;
    experiment::RunModel rm = experiment::load_latest_run_model(db, *o.run, load_options(o.model));
    what = fmt::format("run {} of {}", *o.run, db);
    extra = {{"run_id", *o.run},
             {"db", db},
             {"checkpoint", rm.checkpoint},
             {"checkpoint_step", rm.step},
             {"plan", grow::to_json(rm.growth.plan)}};
    tok_path = find_tokenizer(rm.base_folder);
    m = std::move(rm.model);
  } else {
    tok_path = model_tokenizer_arg(o.model, "eval");
    m = load_model_arg(o.model);
    what = o.model.path;
    if (tok_path.empty()) tok_path = m.tokenizer_file;
  }
  if (tok_path.empty()) {
    fail("{}: no tokenizer.json, which eval needs to turn the tasks' text into token ids",
         m.folder);
  }
  const tok::Tokenizer tokenizer = tok::Tokenizer::from_file(tok_path);
  const data::TextEncoder encoder = data::encoder_for(tokenizer);
  CausalLMImpl& model = *m.model;
  model.eval();
  const auto device = load_options(o.model).device;

  std::vector<eval::HarnessTask> tasks;
  for (const TaskFile& f : files) {
    eval::HarnessTask t;
    t.name = f.name;
    t.path = fs::absolute(f.path).lexically_normal().string();
    Progress progress = terminal.progress();
    progress.begin(metrics::kEvalPrefix + t.name);
    const auto report = [&](size_t done, size_t total) {
      progress.report(total ? double(done) / double(total) : 1.0,
                      fmt::format("item {}/{}", done, total));
    };
    if (f.kind == "mc") {
      auto items = data::read_mc_jsonl(f.path);
      t.original = static_cast<int64_t>(items.size());
      if (o.limit && *o.limit < t.original) items.resize(*o.limit);
      const auto tokens = eval::tokenize_mc(items, encoder);
      std::vector<bool> acc, acc_norm;
      // One item at a time through the evaluator the runs use (eval::mc_eval).
      for (size_t i = 0; i < tokens.size(); ++i) {
        const auto r = eval::mc_eval(model, {tokens[i]}, device, model.config.max_positions);
        if (std::isnan(r.acc)) non_finite(f.path, i);
        acc.push_back(r.acc > 0.5);
        acc_norm.push_back(r.acc_norm > 0.5);
        report(i + 1, tokens.size());
      }
      t.output_type = "multiple_choice";
      t.metrics = {{"acc", as_values(acc), true,
                    "argmax of the summed log-likelihood of each choice given the context"},
                   {"acc_norm", as_values(acc_norm), true,
                    "argmax of the log-likelihood divided by the choice's length in characters"}};
    } else {
      auto items = data::read_qa_jsonl(f.path);
      t.original = static_cast<int64_t>(items.size());
      if (o.limit && *o.limit < t.original) items.resize(*o.limit);
      const auto tokens = eval::tokenize_qa_items(items, encoder);
      std::vector<bool> first, exact;
      for (size_t i = 0; i < tokens.size(); ++i) {
        const auto r = eval::qa_eval(model, {tokens[i]}, device, true);
        if (std::isnan(r.first_token_acc)) non_finite(f.path, i);
        first.push_back(r.first_token_acc > 0.5);
        exact.push_back(r.exact_match > 0.5);
        report(i + 1, tokens.size());
      }
      t.output_type = "generate_until";
      t.metrics = {{"acc", as_values(first), true,
                    "hard first-token accuracy: the argmax after question + \"\\nAnswer:\" is "
                    "the answer's first token (GrowBench's eval/<task>/acc)"},
                   {"exact_match", as_values(exact), true,
                    "greedy decoding reproduces every token of \" \" + answer"}};
    }
    tasks.push_back(std::move(t));
  }
  terminal.clear();
  const auto end = std::chrono::system_clock::now();

  eval::HarnessRun run;
  run.model = what;
  run.model_args =
      fmt::format("pretrained={},dtype={}", o.run ? m.folder : o.model.path, o.model.dtype);
  run.device = o.model.device;
  run.dtype = o.model.dtype;
  run.num_parameters = 0;
  for (const auto& p : model.parameters(true)) run.num_parameters += p.numel();
  run.limit = o.limit;
  run.start_time = std::chrono::duration<double>(start.time_since_epoch()).count();
  run.end_time = std::chrono::duration<double>(end.time_since_epoch()).count();
  run.extra = extra;
  const Json out = eval::harness_json(tasks, run);

  if (o.json_out == "-") {
    print_json(out, true);
    return 0;
  }
  if (!o.json_out.empty()) write_file_atomic(o.json_out, out.dump(2) + "\n");
  // The harness's table: task, metric, value ± stderr.
  std::printf("|%-24s|%-12s|%8s|   |%8s|\n", "Tasks", "Metric", "Value", "Stderr");
  std::printf("|%s|%s|%s|---|%s|\n", std::string(24, '-').c_str(), std::string(12, '-').c_str(),
              std::string(8, '-').c_str(), std::string(8, '-').c_str());
  for (const auto& t : tasks) {
    bool first = true;
    for (const auto& mt : t.metrics) {
      const auto se = eval::mean_stderr(mt.per_item);
      std::printf("|%-24s|%-12s|%8.4f|±  |%8s|\n", first ? t.name.c_str() : "", mt.name.c_str(),
                  eval::mean(mt.per_item), se ? fmt::format("{:.4f}", *se).c_str() : "N/A");
      first = false;
    }
  }
  if (!o.json_out.empty()) std::fprintf(stderr, "wrote %s\n", o.json_out.c_str());
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "eval",
    "eval MODEL|--run ID [--db DB] --tasks FILE.jsonl[,FILE2.jsonl] [--json OUT] [--limit N] "
    "[--device D] [--dtype T]",
    "Scores MODEL (or run ID's latest checkpoint) on multiple-choice and QA task files, with\n"
    "the evaluators experiments use: multiple choice by the log-likelihood of each choice\n"
    "(acc; acc_norm divides by the choice's length in characters, as lm-evaluation-harness),\n"
    "QA by hard first-token accuracy (acc) and greedy exact match (exact_match).\n\n"
    "--json writes the results shaped like lm-evaluation-harness output: {\"results\":\n"
    "{\"<task>\": {\"alias\", \"acc,none\", \"acc_stderr,none\", \"acc_norm,none\",\n"
    "\"acc_norm_stderr,none\"}}, \"configs\", \"versions\", \"n-shot\", \"higher_is_better\",\n"
    "\"n-samples\", \"config\", ...}, the task name being the file's stem. Standard errors are\n"
    "the harness's: sample standard deviation (n - 1) / sqrt(n), \"N/A\" below two items.\n"
    "A table of the values is printed on stdout.",
    &declare_eval, &run_eval, "Exit code: 0 done, 1 error, 2 usage.");

}  // namespace gb::cli
