// growbench-cli suggest: a budgeted search over growth plans (experiment/suggest.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "experiment/runner.h"
#include "experiment/suggest.h"
#include "experiment/suggest_report.h"
#include "store/store.h"
#include "util/files.h"
#include "grow/variant.h"
#include "util/error.h"
#include "util/events.h"
#include "util/json.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct SuggestCliOptions {
  std::string model, new_data, original, spec, db, workspace, cache, json_out, report;
  std::string budget = "forgetting=5%", params = "max=10%", time = "30m";
  std::string format = "text";
  std::vector<double> rates;
  std::vector<std::string> variants;
  int64_t steps = 200;
  int64_t max_candidates = 0;
  double heldout = 0.2;
  bool quiet = false;
};

void declare_suggest(CLI::App& app, SuggestCliOptions& o) {
  app.add_option("MODEL", o.model, "the base model: a Hugging Face or GrowBench folder")
      ->type_name("MODEL");
  add_option(app, "--new", o.new_data, "DATA",
             "new-domain text (a file or folder; corpus formats as in specs): its\n"
             "held-out part split into validation and test halves");
  add_option(app, "--original", o.original, "DATA",
             "original-domain text, for the forgetting (held out the same way)");
  add_option(app, "--format", o.format, "FORMAT",
             "the corpus format of --new and --original (text, fortunes, jsonl, ...)");
  add_option(app, "--spec", o.spec, "SPEC.json",
             "take the model, data, training and the \"suggest\" section from an\n"
             "experiment spec instead (its plans are ignored)");
  add_option(app, "--budget", o.budget, "forgetting=X%",
             "the most relative rise of the original-domain validation perplexity");
  add_option(app, "--params", o.params, "max=Y%",
             "the most parameters a plan may add, relative to the base model");
  add_option(app, "--time", o.time, "DURATION", "the time budget (30m, 90s, 1.5h)");
  add_option(app, "--rates", o.rates, "LR", "the rate grid (repeat; default 3e-4 1e-3 3e-3)")
      ->check(positive_number());
  add_option(app, "--variant", o.variants, "ID",
             "search only these variants (repeat; default every registered one)");
  add_option(app, "--steps", o.steps, "N", "the full length of a run (rounded down to r0 * eta^K)")
      ->check(at_least(1));
  add_option(app, "--max-candidates", o.max_candidates, "N",
             "at most this many candidates (0: as many as the time affords)")
      ->check(at_least(0));
  add_option(app, "--heldout", o.heldout, "FRACTION",
             "the held-out fraction of each corpus (validation and test halves)")
      ->check(number_range(0, 1, true, true));
  add_option(app, "--db", o.db, "DB",
             "the run store (default: the default workspace's growbench.db)");
  add_option(app, "--workspace", o.workspace, "DIR",
             "where checkpoints go (default: <db without .db>.runs)");
  add_option(app, "--cache", o.cache, "DIR",
             "presets and tokenised corpora (default ~/.cache/growbench)");
  add_option(app, "--json", o.json_out, "OUT",
             "write the result as JSON to OUT ('-': standard output)");
  add_option(app, "--report", o.report, "OUT.html",
             "write the search's report: the recommendation and why it won, the\n"
             "finalists, where the time went, the fronts, the group's curves");
  add_flag(app, "--quiet", o.quiet, "no progress lines on standard error");
}

Json part_of(const std::string& path, const std::string& format, const std::string& part,
             double heldout) {
  Json j = {{"path", path}, {"part", part}, {"heldout", heldout}};
  if (!format.empty() && format != "text") j["format"] = format;
  // One plain text file: its paragraphs are the documents the held-out split takes.
  if ((format.empty() || format == "text") && fs::is_regular_file(path)) j["unit"] = "paragraph";
  return j;
}

std::string existing(const std::string& path, const std::string& option) {
  if (path.empty()) throw UsageError(option + ": required");
  if (!fs::exists(path)) throw UsageError(option + ": no such file or folder: '" + path + "'");
  return fs::absolute(path).lexically_normal().string();
}

experiment::SuggestRequest request_from(const SuggestCliOptions& in) {
  experiment::SuggestRequest r;
  Json section = Json::object();
  if (!in.spec.empty()) {
    if (!in.model.empty() || !in.new_data.empty() || !in.original.empty()) {
      throw UsageError("--spec: give either a spec or MODEL --new DATA [--original DATA]");
    }
    const std::string path = existing(in.spec, "--spec");
    r.spec = json::parse_file(path);
    r.base_dir = fs::path(path).parent_path().string();
    if (r.spec.contains("suggest")) section = r.spec["suggest"];
  } else {
    if (in.model.empty()) throw UsageError("MODEL: required (or --spec SPEC.json)");
    const std::string model = existing(in.model, "MODEL");
    if (!fs::exists(fs::path(model) / "config.json")) {
      throw UsageError("MODEL: '" + in.model + "' has no config.json");
    }
    const std::string nd = existing(in.new_data, "--new");
    if (in.original.empty()) {
      throw UsageError(
          "--original: required: the forgetting is measured on original-domain "
          "data (or give a spec whose data.original.eval names it)");
    }
    const std::string od = existing(in.original, "--original");
    const double h = in.heldout;
    r.spec = {{"version", 1},
              {"name", "suggest"},
              {"model", model},
              {"data",
               {{"original",
                 {{"eval", part_of(od, in.format, "validation", h)},
                  {"test", part_of(od, in.format, "test", h)},
                  {"probe", part_of(od, in.format, "train", h)}}},
                {"new",
                 {{"train", part_of(nd, in.format, "train", h)},
                  {"eval", part_of(nd, in.format, "validation", h)},
                  {"test", part_of(nd, in.format, "test", h)}}}}},
              {"train", {{"steps", in.steps}}}};
  }
  try {
    r.options = experiment::parse_suggest_section(section, "spec.suggest");
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  // With --spec, the options given on the command line (not at their defaults) win over the
  // spec's section.
  try {
    if (in.spec.empty() || in.budget != SuggestCliOptions{}.budget) {
      r.options.forgetting_budget =
          experiment::parse_fraction_option(in.budget, "forgetting=", "--budget");
    }
    if (in.spec.empty() || in.params != SuggestCliOptions{}.params) {
      r.options.params_budget = experiment::parse_fraction_option(in.params, "max=", "--params");
    }
    if (in.spec.empty() || in.time != SuggestCliOptions{}.time) {
      r.options.time_s = experiment::parse_duration(in.time, "--time");
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (!in.rates.empty()) r.options.rates = in.rates;
  if (!in.variants.empty()) {
    for (const auto& v : in.variants) {
      if (!grow::find_variant(v)) throw UsageError("--variant: unknown variant '" + v + "'");
    }
    r.options.variants = in.variants;
  }
  if (in.max_candidates > 0) r.options.max_candidates = in.max_candidates;
  if (!in.spec.empty() && in.steps != SuggestCliOptions{}.steps) r.options.steps = in.steps;
  return r;
}

void print_summary(const Json& j) {
  const Json& rec = j.at("recommendation");
  std::printf("recommendation: %s (lr %g, step %lld of %lld)\n",
              rec.at("label").get<std::string>().c_str(), rec.at("lr").get<double>(),
              static_cast<long long>(rec.at("step").get<int64_t>()),
              static_cast<long long>(rec.at("steps").get<int64_t>()));
  std::printf("  plan: %s\n", rec.at("plan").dump().c_str());
  const Json& v = rec.at("validation");
  std::printf("  validation: new loss %.4f, original perplexity %+.2f %%\n",
              v.at("learning").get<double>(), v.at("forgetting").get<double>() * 100);
  const Json& t = rec.at("test");
  if (!t.at("learning").is_null() && !t.at("forgetting").is_null()) {
    std::printf("  test:       new loss %.4f, original perplexity %+.2f %%\n",
                t.at("learning").get<double>(), t.at("forgetting").get<double>() * 100);
  }
  if (rec.contains("note")) std::printf("  note: %s\n", rec["note"].get<std::string>().c_str());
  if (rec.contains("partial")) {
    std::printf("  note: %s\n", rec["partial"].get<std::string>().c_str());
  }
  if (rec.contains("next_best")) {
    const Json& n = rec["next_best"];
    std::printf("  next best: %s (new loss %.4f, forgetting %+.2f %%)\n",
                n.at("label").get<std::string>().c_str(), n.at("learning").get<double>(),
                n.at("forgetting").get<double>() * 100);
  }
  std::printf("\ncandidates (%zu):\n", j.at("candidates").size());
  for (const auto& c : j.at("candidates")) {
    std::string where =
        c.contains("alive_at_step")         ? std::string("alive when the time ran out")
        : c.at("stopped_at_step").is_null() ? std::string("ran to the end")
        : c.at("not_run").get<bool>()
            ? std::string("not run (time budget)")
            : fmt::format("stopped at step {}", c["stopped_at_step"].get<int64_t>());
    std::printf("  %-48s %s\n", c.at("label").get<std::string>().c_str(), where.c_str());
  }
  std::printf("\ngroup %s, %.1f s spent\n", j.at("search").at("group").get<std::string>().c_str(),
              j.at("time_s").get<double>());
}

int run_suggest_cmd(const SuggestCliOptions& in) {
  const experiment::SuggestRequest req = request_from(in);
  experiment::RunnerOptions o;
  o.db_path = in.db.empty() ? default_store_path() : in.db;
  o.workspace = in.workspace;
  o.cache_dir = in.cache;
  CancelToken cancel;
  cancel_on_signals(cancel);
  o.cancel = cancel;
  const bool quiet = in.quiet;
  o.on_event = [quiet](const events::Event& e) {
    if (!quiet) std::fprintf(stderr, "%s\n", events::to_json(e).dump().c_str());
  };
  const Json result = experiment::run_suggest(req, o);
  if (!in.report.empty()) {
    store::Store st = store::Store::open(o.db_path);
    experiment::ReportOptions ro;
    ro.cache_dir = in.cache;
    write_file_atomic(in.report, experiment::suggest_report_page(st, result, ro));
    if (!quiet) std::fprintf(stderr, "report written to %s\n", in.report.c_str());
  }
  if (in.json_out == "-") {
    std::printf("%s\n", result.dump(2).c_str());
    return 0;
  }
  if (!in.json_out.empty()) {
    std::ofstream f(in.json_out, std::ios::binary);
    if (!f) fail("--json: cannot write '{}'", in.json_out);
    f << result.dump(2) << "\n";
  }
  print_summary(result);
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "suggest",
    "suggest (MODEL --new DATA --original DATA | --spec SPEC.json) [--budget forgetting=X%] "
    "[--params max=Y%] [--time 30m] [--db DB] [--json OUT] [--report OUT.html]",
    "Which growth plan should I use? A budgeted search: candidate plans from every registered\n"
    "variant (layer policies, sizes within --params, a rate grid), short pilot runs in one\n"
    "run group of the store, successive halving on the validation halves, and one\n"
    "recommendation: the plan that learns most within the forgetting budget (or, when none\n"
    "meets it, the one that forgets least, said so), with its plan JSON, rate and the numbers\n"
    "on the test halves. Running the same command again on the same store continues the\n"
    "search and gives the same recommendation. docs/suggest.md describes the scheme and the\n"
    "JSON.",
    &declare_suggest, &run_suggest_cmd, "Exit code: 0 done, 1 error, 2 usage, 130 cancelled.");

}  // namespace gb::cli
