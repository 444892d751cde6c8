// growbench-cli report: one self-contained HTML page (and the verdicts as JSON) for the runs
// of one or more experiments (experiment/report.h).
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli.h"
#include "common.h"
#include "experiment/expand.h"
#include "experiment/report.h"
#include "experiment/smoke.h"
#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

struct ReportCmdOptions {
  std::vector<std::string> inputs;
  std::string db, out, json, cache, title = "GrowBench report";
  bool smoke = false, no_weights = false;
};

void declare_report(CLI::App& app, ReportCmdOptions& o) {
  app.add_option("SPEC|GROUP", o.inputs,
                 "experiment spec files (the newest group of runs of each spec in the store;\n"
                 "its claims and figures from the file, so they may be reworded after the\n"
                 "runs) or group ids (as `runs list` shows them)")
      ->type_name("SPEC|GROUP")
      ->required();
  add_option(app, "--db", o.db, "DB", "the run store (default: the default workspace's store)");
  add_option(app, "--out", o.out, "FILE.html", "the report page to write")->required();
  add_option(app, "--json", o.json, "FILE.json",
             "also write the verdicts as JSON: {\"experiment\", \"claims\": [{\"id\", \"text\",\n"
             "\"verdict\", \"evidence\", \"rule\"}], ...} (an array for several experiments)");
  add_option(app, "--cache", o.cache, "DIR",
             "presets and tokenised corpora (figures that load "
             "checkpoints rebuild models from them)");
  add_option(app, "--title", o.title, "TEXT", "the page's title");
  add_flag(app, "--smoke", o.smoke, "report the runs of `run SPEC --smoke` (for spec inputs)");
  add_flag(app, "--no-weights", o.no_weights,
           "leave out the figures that load checkpoints (effective rank, spectra)");
}

int run_report(const ReportCmdOptions& o) {
  const std::string db = o.db.empty() ? default_store_path() : o.db;
  if (!std::filesystem::exists(db)) fail("there is no run store at '{}' (give --db)", db);
  store::Store store = store::Store::open(db);
  experiment::ReportOptions ro;
  ro.cache_dir = o.cache;
  ro.weights = !o.no_weights;
  std::vector<experiment::ExperimentReport> reports;
  for (const auto& in : o.inputs) {
    std::string group = in;
    experiment::ReportOptions one = ro;
    if (std::filesystem::is_regular_file(in)) {
      const auto spec = experiment::load_spec_for(in, o.smoke);
      // The runs of this spec: by its hash, or (a spec whose report section or description
      // changed since) by the runs it expands to. The report section is the file's.
      group = experiment::group_of_runs(store, spec);
      if (group.empty()) {
        group = experiment::group_of_spec(store, experiment::spec_hash(spec), spec.name);
      }
      one.report_section = spec.raw.value("report", nlohmann::json());
    } else {
      store::RunFilter f;
      f.experiment = in;
      f.limit = 1;
      if (store.list_runs(f).empty()) {
        throw UsageError(fmt::format("'{}' is neither a spec file nor a group of {}", in, db));
      }
    }
    reports.push_back(experiment::build_report(store, group, one));
  }
  write_file_atomic(o.out, experiment::report_page(reports, o.title));
  if (!o.json.empty()) write_file_atomic(o.json, experiment::report_json(reports).dump(2) + "\n");
  for (const auto& r : reports) {
    fmt::print("{} ({}):\n", r.experiment, r.group);
    for (const auto& c : r.claims) fmt::print("  {:<14} {}\n", c.verdict, c.id);
  }
  fmt::print("report written to {}\n", o.out);
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "report", "report SPEC|GROUP... --out FILE.html [--json FILE.json] [--db DB] [--smoke]",
    "Writes one self-contained HTML page (inline SVG figures, no network) with a section per\n"
    "experiment: the paper's claim, the setting, each method's metrics as mean ± std over\n"
    "seeds, the figures the spec's \"report\" section names, and a verdict per claim (holds,\n"
    "does not hold, or inconclusive when the difference is within the seed spread) with the\n"
    "numbers that decided it. A group whose spec has no report section gets the table and the\n"
    "curves of the standard metrics. See docs/reproductions.md.",
    &declare_report, &run_report,
    "Every evidence value in the JSON is a mean and standard deviation over the listed run ids\n"
    "of the store's metrics at step 0 or at each run's last step.\n"
    "Exit status: 0 written, 1 error (no runs of a spec, unreadable store), 2 usage.");

}  // namespace gb::cli
