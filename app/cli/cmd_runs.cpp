// growbench-cli runs: list, show, export and delete runs of the store.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "store/csv.h"
#include "store/store.h"
#include "store/tensorboard.h"
#include "util/error.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct RunsOptions {
  std::string action;
  std::string target;  // ID, or GROUP for export
  std::string db, group, status, format = "csv", out;
  bool json = false, yes = false;
};

void declare_runs(CLI::App& app, RunsOptions& o) {
  app.add_option("ACTION", o.action, "list, show, export or delete")
      ->type_name("ACTION")
      ->required()
      ->check(one_of({"list", "show", "export", "delete"}));
  app.add_option("TARGET", o.target, "a run id (show, delete, export) or a group (export)")
      ->type_name("ID|GROUP");
  add_option(app, "--db", o.db, "DB",
             "the run store (default: the default workspace's growbench.db)");
  add_option(app, "--group", o.group, "GROUP", "list: only the runs of this group");
  add_option(app, "--status", o.status, "STATUS",
             "list: only runs with this status (queued, running, finished, failed,\n"
             "cancelled, interrupted, diverged, stopped)");
  add_option(app, "--format", o.format, "FORMAT",
             "export: csv or jsonl (one file), or tensorboard (an event file\n"
             "in DIR for one run; DIR/run-<id>/ per run for a group)")
      ->check(one_of({"csv", "jsonl", "tensorboard"}));
  add_option(app, "--out", o.out, "FILE|DIR",
             "export: the file to write (csv, jsonl) or the folder (tensorboard)");
  add_flag(app, "--json", o.json, "list, show: print JSON");
  add_flag(app, "--yes", o.yes, "delete: do not ask");
}

Json run_json(const store::RunInfo& r) {
  Json j = {{"id", r.id},
            {"name", r.name},
            {"group", r.experiment},
            {"status", store::to_string(r.status)},
            {"seed", r.seed ? Json(*r.seed) : Json(nullptr)},
            {"variant", r.variant},
            {"spec_hash", r.spec_hash},
            {"created", store::iso_time(r.created)},
            {"tags", r.tags}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

int64_t run_id_of(const std::string& text) {
  try {
    size_t used = 0;
    const long long id = std::stoll(text, &used);
    if (used == text.size() && id > 0) return id;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("TARGET: expected a run id, found '{}'", text));
}

int list(store::Store& st, const RunsOptions& o) {
  store::RunFilter f;
  f.experiment = o.group;
  if (!o.status.empty()) {
    try {
      f.statuses.push_back(store::parse_run_status(o.status));
    } catch (const std::exception& e) {
      throw UsageError(std::string("--status: ") + e.what());
    }
  }
  const auto runs = st.list_runs(f);
  if (o.json) {
    Json out = Json::array();
    for (const auto& r : runs) out.push_back(run_json(r));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const auto& r : runs) {
    std::printf("%6lld  %-11s  %-24s  %s\n", static_cast<long long>(r.id),
                store::to_string(r.status), r.experiment.c_str(), r.name.c_str());
  }
  return 0;
}

int show(store::Store& st, const RunsOptions& o) {
  const store::RunInfo r = st.get_run(run_id_of(o.target));
  Json j = run_json(r);
  j["spec"] = Json::parse(r.spec, nullptr, false);
  j["params"] = st.run_params(r.id);
  Json finals = Json::object();
  for (const auto& m : st.latest_metrics({r.id}))
    finals[m.key] = {{"step", m.step}, {"value", m.value}};
  j["final_metrics"] = finals;
  Json events = Json::array();
  for (const auto& e : st.events(r.id)) {
    events.push_back({{"time", store::iso_time(e.time)},
                      {"level", store::to_string(e.level)},
                      {"message", e.message}});
  }
  j["events"] = events;
  if (o.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("run %lld: %s\n  status %s, group %s, seed %s\n", static_cast<long long>(r.id),
              r.name.c_str(), store::to_string(r.status), r.experiment.c_str(),
              r.seed ? std::to_string(*r.seed).c_str() : "-");
  std::printf("parameters:\n");
  for (auto it = j["params"].begin(); it != j["params"].end(); ++it) {
    std::printf("  %-28s %s\n", it.key().c_str(), it.value().dump().c_str());
  }
  std::printf("final metrics:\n");
  for (auto it = finals.begin(); it != finals.end(); ++it) {
    std::printf("  %-28s %.6g (step %lld)\n", it.key().c_str(), (*it)["value"].get<double>(),
                static_cast<long long>((*it)["step"].get<int64_t>()));
  }
  std::printf("events:\n");
  for (const auto& e : events) {
    std::printf("  %s %-7s %s\n", e["time"].get<std::string>().c_str(),
                e["level"].get<std::string>().c_str(), e["message"].get<std::string>().c_str());
  }
  return 0;
}

// The runs an export covers: a group's, or one run by id.
std::vector<store::RunInfo> export_targets(store::Store& st, const RunsOptions& o, bool* is_group) {
  store::RunFilter f;
  f.experiment = o.target;
  std::vector<store::RunInfo> runs = st.list_runs(f);
  *is_group = !runs.empty();
  if (runs.empty()) {
    bool numeric =
        !o.target.empty() && o.target.find_first_not_of("0123456789") == std::string::npos;
    if (!numeric) fail("runs export: no group '{}' in {}", o.target, st.path());
    runs.push_back(st.get_run(run_id_of(o.target)));
  }
  return runs;
}

// TensorBoard: one event file per run with a scalar per stored (step, metric). The store
// keeps no time per metric row, so every event carries the run's start time (TensorBoard's
// STEP axis is the meaningful one).
int export_tensorboard(store::Store& st, const RunsOptions& o) {
  bool group = false;
  const std::vector<store::RunInfo> runs = export_targets(st, o, &group);
  const fs::path dir = o.out;
  std::error_code ec;
  if (fs::exists(dir) && !fs::is_directory(dir)) {
    fail("runs export: --out '{}' is a file; tensorboard writes a folder", dir.string());
  }
  size_t scalars = 0;
  for (const auto& r : runs) {
    const fs::path run_dir = group ? dir / fmt::format("run-{}", r.id) : dir;
    if (fs::is_directory(run_dir)) {
      for (const auto& e : fs::directory_iterator(run_dir)) {
        if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) {
          fail(
              "runs export: {} already holds the event file {}; TensorBoard would read both "
              "(export into an empty folder, or delete it first)",
              run_dir.string(), e.path().filename().string());
        }
      }
    }
  }
  for (const auto& r : runs) {
    const fs::path run_dir = group ? dir / fmt::format("run-{}", r.id) : dir;
    fs::create_directories(run_dir, ec);
    if (ec) fail("runs export: cannot create '{}': {}", run_dir.string(), ec.message());
    const double t0 = r.started.value_or(r.created);
    std::vector<tb::Scalar> rows;
    for (const auto& m : st.metric_rows(r.id)) rows.push_back({m.step, m.key, m.value, t0});
    // TensorBoard reads a file in order: by step, then by key.
    std::stable_sort(rows.begin(), rows.end(), [](const tb::Scalar& a, const tb::Scalar& b) {
      return a.step != b.step ? a.step < b.step : a.tag < b.tag;
    });
    const std::string host = r.worker_host.empty() ? "localhost" : r.worker_host;
    const fs::path file = run_dir / tb::event_file_name(t0, host);
    tb::write_event_file(file.string(), t0, rows);
    scalars += rows.size();
    std::fprintf(stderr, "wrote %zu scalars of run %lld to %s\n", rows.size(),
                 static_cast<long long>(r.id), file.string().c_str());
  }
  std::fprintf(stderr, "wrote %zu run(s), %zu scalars, to %s\n", runs.size(), scalars,
               dir.string().c_str());
  return 0;
}

// Long format: run, step, key, value, then one column per hyper-parameter of the runs.
int export_runs(store::Store& st, const RunsOptions& o) {
  if (o.target.empty()) throw UsageError("export: missing TARGET (a group or a run id)");
  if (o.out.empty()) {
    throw UsageError(o.format == "tensorboard" ? "export: missing --out DIR"
                                               : "export: missing --out FILE");
  }
  if (o.format == "tensorboard") return export_tensorboard(st, o);
  bool group = false;
  std::vector<store::RunInfo> runs = export_targets(st, o, &group);
  std::map<int64_t, std::map<std::string, Json>> params;
  std::set<std::string> keys;
  for (const auto& r : runs) {
    params[r.id] = st.run_params(r.id);
    for (const auto& [k, v] : params[r.id]) keys.insert(k);
  }
  const fs::path out = o.out;
  const fs::path tmp = out.string() + fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) fail("runs export: cannot write '{}'", tmp.string());
    if (o.format == "csv") {
      std::vector<std::string> header = {"run", "step", "key", "value", "name", "group"};
      for (const auto& k : keys) header.push_back(k);
      f << store::csv_record(header);
    }
    for (const auto& r : runs) {
      std::vector<std::string> extra;
      Json pj = Json::object();
      for (const auto& k : keys) {
        auto it = params[r.id].find(k);
        const bool has = it != params[r.id].end();
        extra.push_back(!has                     ? ""
                        : it->second.is_string() ? it->second.get<std::string>()
                                                 : it->second.dump());
        if (has) pj[k] = it->second;
      }
      for (const auto& m : st.metric_rows(r.id)) {
        if (o.format == "csv") {
          std::vector<std::string> row = {std::to_string(r.id),
                                          std::to_string(m.step),
                                          m.key,
                                          store::csv_number(m.value),
                                          r.name,
                                          r.experiment};
          row.insert(row.end(), extra.begin(), extra.end());
          f << store::csv_record(row);
        } else {
          Json line = {{"run", r.id},      {"step", m.step}, {"key", m.key},
                       {"value", m.value}, {"name", r.name}, {"group", r.experiment},
                       {"params", pj}};
          f << line.dump() << "\n";
        }
      }
    }
    f.flush();
    if (!f) fail("runs export: writing '{}' failed (disk full?)", tmp.string());
  }
  fs::rename(tmp, out);
  std::fprintf(stderr, "wrote %zu run(s) to %s\n", runs.size(), out.string().c_str());
  return 0;
}

int delete_run(store::Store& st, const RunsOptions& o) {
  const store::RunInfo r = st.get_run(run_id_of(o.target));
  if (!o.yes) {
    std::fprintf(stderr, "delete run %lld (%s) with its metrics and checkpoints? [y/N] ",
                 static_cast<long long>(r.id), r.name.c_str());
    std::string answer;
    if (!std::getline(std::cin, answer) || (answer != "y" && answer != "yes")) {
      std::fprintf(stderr, "not deleted\n");
      return 1;
    }
  }
  for (const auto& p : st.delete_runs({r.id})) {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec)
      std::fprintf(stderr, "warning: could not remove %s: %s\n", p.c_str(), ec.message().c_str());
  }
  std::fprintf(stderr, "deleted run %lld\n", static_cast<long long>(r.id));
  return 0;
}

int run_runs(const RunsOptions& o) {
  const std::string db = o.db.empty() ? default_store_path() : o.db;
  if (!fs::exists(db)) fail("no run store at '{}'", db);
  const bool writes = o.action == "delete";
  store::Store st =
      store::Store::open(db, writes ? store::OpenMode::ReadWrite : store::OpenMode::ReadOnly);
  if ((o.action == "show" || o.action == "delete") && o.target.empty()) {
    throw UsageError(o.action + ": missing TARGET (a run id)");
  }
  if (o.action == "list") return list(st, o);
  if (o.action == "show") return show(st, o);
  if (o.action == "export") return export_runs(st, o);
  return delete_run(st, o);
}

}  // namespace

GB_REGISTER_COMMAND(
    "runs",
    "runs list [--group G] [--status S] [--json] | show ID [--json] | export GROUP|ID "
    "--format csv|jsonl|tensorboard --out FILE|DIR | delete ID [--yes]  [--db DB]",
    "The runs of a store. list: id, status, group and name (--json: an array of {id, name,\n"
    "group, status, seed, ...}). show: a run's spec, flattened hyper-parameters, final\n"
    "metrics and events. export: every metric row of a group's runs (or one run) in long\n"
    "format, run, step, key, value, then the run's name, group and one column per\n"
    "hyper-parameter; --format tensorboard writes TensorBoard event files instead (a scalar\n"
    "per metric and step; one file for a run, a run-<id> folder per run for a group).\n"
    "delete: a run with its metrics and checkpoint folders (asks first).",
    &declare_runs, &run_runs, "Exit code: 0 done, 1 error or not confirmed, 2 usage.");

}  // namespace gb::cli
