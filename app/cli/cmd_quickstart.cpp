#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "common.h"
#include "human_events.h"
#include "experiment/fronts.h"
#include "experiment/preset.h"
#include "experiment/runner.h"
#include "experiment/spec.h"
#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/metrics.h"
#include "util/paths.h"

namespace gb::cli {

namespace {

namespace fs = std::filesystem;

std::string quickstart_spec_path() {
  for (const auto& dir : experiment::preset_search_dirs()) {
    fs::path p = fs::path(dir).parent_path() / "experiments" / "quickstart.json";
    if (file_exists(p.string())) return p.string();
  }
  fail(
      "the built-in quickstart spec (resources/experiments/quickstart.json) was not found; "
      "set GROWBENCH_RESOURCES to the resources folder");
}

struct Span {
  double first = NAN, last = NAN;
};

Span span(const store::Series& s) {
  Span r;
  if (!s.values.empty()) {
    r.first = s.values.front();
    r.last = s.values.back();
  }
  return r;
}

std::string pct(double a, double b) {
  if (std::isnan(a) || std::isnan(b) || a == 0) return "n/a";
  return fmt::format("{:+.1f}%", 100.0 * (b - a) / a);
}

// Forgetting at matched learning (fronts.h) over the runs' group: every method's English
// validation perplexity where its German validation loss first reaches the level every
// method reaches (auto), interpolated between evaluations.
void print_matched(store::Store& store, const std::vector<experiment::RunOutcome>& outcomes) {
  if (outcomes.empty()) return;
  const auto run = store.find_run(outcomes.front().run_id);
  if (!run || run->experiment.empty()) return;
  experiment::FrontOptions fo;
  fo.group = run->experiment;
  fo.learning = metrics::kEvalNewLoss;
  fo.forgetting = metrics::kEvalOrigLoss;
  experiment::MatchedResult r;
  try {
    r = experiment::compare_at(store, fo, std::nullopt);
  } catch (const std::exception& e) {
    std::printf("\nAt matched learning: not available (%s)\n", e.what());
    return;
  }
  std::printf(
      "\nAt matched learning: each method's English perplexity where its German validation\n"
      "loss reaches %.4f (German ppl %.0f, the best level every method reaches; interpolated\n"
      "between evaluations; %s sets):\n",
      r.value, std::exp(r.value), r.split.c_str());
  for (const auto& row : r.rows) {
    if (!row.reaches()) {
      std::printf("  %-28s does not reach it\n", row.plan.substr(0, 28).c_str());
      continue;
    }
    const auto& p = row.points.front();
    std::printf("  %-28s English ppl %7.1f (loss %.4f) at step %s\n",
                row.plan.substr(0, 28).c_str(), std::exp(row.forgetting.mean), row.forgetting.mean,
                p.interpolated() ? fmt::format("{:.1f}", p.step).c_str()
                                 : fmt::format("{}", p.step0).c_str());
  }
}

}  // namespace

// Prints the forgetting/learning summary of runs (also used by the GUI's tour).
void print_summary(store::Store& store, const std::vector<experiment::RunOutcome>& outcomes) {
  std::printf("\n%-28s %9s %8s %22s %22s %8s %9s %7s\n", "run", "trainable", "lr",
              "English ppl (forget)", "German ppl (learn)", "drift", "status", "time");
  std::vector<std::pair<std::string, std::string>> chosen;  // label, how its rate was chosen
  for (const auto& oc : outcomes) {
    const auto params = store.run_params(oc.run_id);
    std::string lr = "n/a";
    if (auto it = params.find("train.lr"); it != params.end() && it->second.is_number()) {
      lr = fmt::format("{:g}", it->second.get<double>());
    }
    if (auto it = params.find("comment"); it != params.end() && it->second.is_string()) {
      chosen.emplace_back(oc.label, it->second.get<std::string>());
    }
    auto series = store.metric_series(oc.run_id);
    Span en = span(series[metrics::kEvalOrigPpl]);
    Span de = span(series[metrics::kEvalNewPpl]);
    Span drift = span(series[metrics::kDriftCosine]);
    Span trainable = span(series[metrics::kTrainableParams]);
    double base = oc.growth.value("base_params", 0.0);
    std::string share = base > 0 && !std::isnan(trainable.first)
                            ? fmt::format("{:.1f}%", 100.0 * trainable.first / base)
                            : "n/a";
    std::printf("%-28s %9s %8s %8.1f→%-6.1f %6s %8.1f→%-6.1f %6s %8.4f %9s %6.0fs\n",
                oc.label.substr(0, 28).c_str(), share.c_str(), lr.c_str(), en.first, en.last,
                pct(en.first, en.last).c_str(), de.first, de.last, pct(de.first, de.last).c_str(),
                drift.last, oc.status.c_str(), oc.seconds);
  }
  std::printf(
      "\nEnglish perplexity is measured on held-out English fortunes (the original\n"
      "domain: forgetting), German on held-out German fortunes (the new domain:\n"
      "learning); drift is the cosine of final hidden states to step 0.\n");
  print_matched(store, outcomes);
  if (!chosen.empty()) {
    std::printf("\nHow each learning rate was chosen:\n");
    for (const auto& [label, how] : chosen) {
      std::printf("  %s: %s\n", label.c_str(), how.c_str());
    }
  }
}

namespace {

struct QuickstartOptions {
  std::string db, spec, cache;
  bool progress = false;
};

void declare_quickstart(CLI::App& app, QuickstartOptions& o) {
  add_option(app, "--db", o.db, "DB",
             "the run store (default: the default workspace's growbench.db)");
  add_option(app, "--spec", o.spec, "FILE",
             "another spec instead of resources/experiments/quickstart.json");
  add_option(app, "--cache", o.cache, "DIR",
             "presets and tokenised corpora (default ~/.cache/growbench)");
  add_flag(app, "--progress", o.progress,
           "print every progress object (JSON lines) instead of a summary");
}

int run_quickstart(const QuickstartOptions& args) {
  CancelToken cancel;
  cancel_on_signals(cancel);

  auto start = std::chrono::steady_clock::now();
  experiment::RunnerOptions o;
  o.db_path = args.db.empty() ? default_store_path() : args.db;
  fs::create_directories(fs::absolute(o.db_path).parent_path());
  o.cache_dir = args.cache;
  o.cancel = cancel;
  o.tags = {"quickstart"};
  const bool verbose = args.progress;
  // On a terminal, a progress line (stage, step/total, tokens/s, ETA, memory) rewritten in
  // place between the lines below.
  std::shared_ptr<HumanEvents> human;
  if (!verbose && ::isatty(STDOUT_FILENO)) human = std::make_shared<HumanEvents>(stdout, true);
  auto say = [human](const std::string& text) {
    if (human) {
      human->line(text);
    } else {
      std::printf("%s\n", text.c_str());
      std::fflush(stdout);
    }
  };
  o.on_event = [verbose, human, say](const events::Event& ev) {
    if (verbose) {
      print_json(events::to_json(ev));
    } else if (const auto* e = std::get_if<events::RunStarted>(&ev)) {
      say(fmt::format("[{}/{}] {} ...", e->index.value_or(0) + 1, e->runs.value_or(0), e->label));
    } else if (const auto* e = std::get_if<events::Stage>(&ev); e && e->stage == "preset") {
      say("preparing the built-in base model (tiny-llama) ...");
    } else if (const auto* e = std::get_if<events::RunFinished>(&ev)) {
      say(fmt::format("      {} in {:.0f} s{}{}", e->status, e->seconds,
                      e->error.empty() ? "" : ": ", e->error));
    } else if (human && std::holds_alternative<events::Progress>(ev)) {
      (*human)(ev);
    }
  };
  auto spec = experiment::load_spec(args.spec.empty() ? quickstart_spec_path() : args.spec);
  auto outcomes = experiment::run_experiment(spec, o);
  if (human) human->clear();
  store::Store store = store::Store::open(o.db_path, store::OpenMode::ReadOnly);
  print_summary(store, outcomes);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nquickstart: %zu runs in %.0f s, recorded in %s\n", outcomes.size(), seconds,
              o.db_path.c_str());
  for (const auto& oc : outcomes) {
    if (oc.status != "finished") return oc.status == "cancelled" ? 130 : 3;
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "quickstart", "quickstart [--db DB] [--spec SPEC.json] [--progress]",
    "Runs the built-in quickstart headless: a tiny English Llama-shaped model (built once\n"
    "from the committed preset spec, or shipped) adapted to German (Debian's fortunes and\n"
    "fortunes-de) with full fine-tuning, LoRA, Grow G-Freeze, ADEPT and LLaMA-Pro depth\n"
    "expansion and SCALE-Preserve, then prints the forgetting/learning summary table.",
    &declare_quickstart, &run_quickstart);

}  // namespace gb::cli
