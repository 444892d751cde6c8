#include <cstdio>
#include <filesystem>

#include "common.h"
#include "experiment/runner.h"
#include "experiment/spec.h"
#include "util/log.h"
#include "util/paths.h"

namespace gb::cli {

namespace {

int run_run(const Args& args) {
  CancelToken cancel;
  cancel_on_signals(cancel);

  experiment::RunnerOptions o;
  o.db_path = args.get("db", default_store_path());
  std::filesystem::create_directories(std::filesystem::absolute(o.db_path).parent_path());
  o.workspace = args.get("workspace");
  o.cache_dir = args.get("cache");
  o.cancel = cancel;
  o.inject_nan_at = args.get_int("inject-nan-at", -1);
  if (args.has("tag")) o.tags.push_back(args.get("tag"));
  if (args.has("log")) log::add_file(args.get("log"));
  const bool quiet = args.flag("quiet");
  o.on_event = [quiet](const nlohmann::json& e) {
    if (!quiet) print_json(e);
  };
  std::vector<experiment::RunOutcome> outcomes;
  if (args.has("resume")) {
    outcomes.push_back(experiment::resume_run(args.get_int("resume", 0), o));
  } else {
    auto spec = experiment::load_spec(args.positional_at(0, "SPEC.json"));
    outcomes = experiment::run_experiment(spec, o);
  }
  int code = 0;
  for (const auto& oc : outcomes) {
    if (oc.status == "cancelled")
      code = 130;
    else if (oc.status != "finished" && code == 0)
      code = 3;
  }
  print_json({{"event", "done"},
              {"db", o.db_path},
              {"exit_code", code},
              {"runs", [&] {
                 nlohmann::json a = nlohmann::json::array();
                 for (const auto& oc : outcomes) {
                   a.push_back({{"run", oc.run_id},
                                {"label", oc.label},
                                {"status", oc.status},
                                {"error", oc.error}});
                 }
                 return a;
               }()}});
  return code;
}

}  // namespace

GB_REGISTER_COMMAND(
    "run", "run SPEC.json [--db DB] [--resume RUN_ID] [--workspace DIR] [--cache DIR]",
    "Runs an experiment spec (see docs/experiments.md): one run per plan, each probed,\n"
    "grown, trained and evaluated, everything recorded in the SQLite run store.\n"
    "Prints one JSON object per line on stdout: {\"event\": \"stage\"|\"progress\"|\"eval\"|\n"
    "\"grown\"|\"checkpoint\"|\"run_started\"|\"run_finished\"|\"done\", ...}; progress objects\n"
    "carry stage, step, total, loss, lr, tokens_per_s and eta_s. Logs go to stderr.\n"
    "SIGINT/SIGTERM cancel cleanly: the run is marked cancelled and a checkpoint written.\n\n"
    "  --db DB            the run store (default: the default workspace's growbench.db)\n"
    "  --resume RUN_ID    continue an interrupted or cancelled run from its last\n"
    "                     checkpoint (SPEC.json not needed: the run's spec is in the store);\n"
    "                     the result equals an uninterrupted run\n"
    "  --workspace DIR    where checkpoints go (default: <db without .db>.runs)\n"
    "  --cache DIR        presets and tokenised corpora (default ~/.cache/growbench)\n"
    "  --tag TAG          add a tag to every run\n"
    "  --log FILE         also write the log to FILE\n"
    "  --quiet            no progress lines\n\n"
    "Exit code: 0 all runs finished, 3 a run failed or diverged, 130 cancelled.",
    {"quiet"}, &run_run);

}  // namespace gb::cli
