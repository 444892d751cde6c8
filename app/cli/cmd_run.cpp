#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "common.h"
#include "human_events.h"
#include "dist/group.h"
#include "dist/launcher.h"
#include "dist/world.h"
#include "experiment/estimate.h"
#include "experiment/expand.h"
#include "experiment/pilot.h"
#include "experiment/runner.h"
#include "experiment/smoke.h"
#include "experiment/spec.h"
#include "store/store.h"
#include "util/log.h"
#include "util/paths.h"
#include "util/worker_pool.h"

namespace gb::cli {

namespace {

struct RunOptions {
  std::string spec, db, workspace, cache, tag, log;
  std::optional<int64_t> resume;
  int64_t inject_nan_at = -1;
  bool quiet = false;
  bool dry_run = false;
  bool json = false;
  bool smoke = false;
  bool no_pilot = false;  // the default now; kept for earlier command lines
  bool pilot = false;
  bool force_memory = false;
  std::string events = "auto";
  // Data-parallel (docs/distributed.md).
  int64_t nproc = 1;
  std::string dist_backend = "auto";
  double dist_timeout = 300;
  double dist_bucket_mb = 25;
  std::string dist_fault;  // tests: RANK:STEP:KIND
  bool force_resume = false;
  int64_t jobs = 1;         // runs side by side, each in its own worker process
  int64_t pool_parent = 0;  // hidden: this worker was started by `run --jobs` (its pid)
};

void declare_run(CLI::App& app, RunOptions& o) {
  auto* spec = app.add_option("SPEC.json", o.spec, "the experiment spec (see docs/experiments.md)")
                   ->type_name("SPEC.json");
  add_option(app, "--db", o.db, "DB",
             "the run store (default: the default workspace's growbench.db)");
  auto* resume = add_option(app, "--resume", o.resume, "RUN_ID",
                            "continue an interrupted, cancelled or failed run from its newest\n"
                            "valid checkpoint, or start it from the beginning when it has none\n"
                            "(SPEC.json not needed: the run's spec is in the store); the result\n"
                            "equals an uninterrupted run")
                     ->check(at_least(1));
  spec->excludes(resume);
  add_flag(app, "--force-resume", o.force_resume,
           "with --resume: continue although the run's base model, tokenizer or\n"
           "data files changed since it started (recorded as warnings)");
  add_option(app, "--workspace", o.workspace, "DIR",
             "where checkpoints go (default: <db without .db>.runs)");
  add_option(app, "--cache", o.cache, "DIR",
             "presets and tokenised corpora (default ~/.cache/growbench)");
  add_option(app, "--tag", o.tag, "TAG", "add a tag to every run");
  add_option(app, "--log", o.log, "FILE", "also write the log to FILE");
  add_flag(app, "--quiet", o.quiet, "no progress lines");
  add_option(app, "--events", o.events, "MODE",
             "json: one JSON object per event on stdout (what the GUI and scripts read);\n"
             "human: a progress line updated in place and a line per finished run;\n"
             "auto (default): human when stdout is a terminal, json otherwise")
      ->check(one_of({"auto", "json", "human"}));
  add_flag(app, "--dry-run", o.dry_run,
           "list the runs the spec stands for (plans x sweep points x seeds), each\n"
           "plan's parameters and estimated memory (from config.json and formulas:\n"
           "seconds for any model size), and start nothing");
  add_flag(app, "--pilot", o.pilot,
           "with --dry-run: also a timing pilot (each plan runs 2 steps per phase in a\n"
           "scratch store, with a progress line on stderr), and every run is listed\n"
           "with its estimated time");
  add_flag(app, "--no-pilot", o.no_pilot, "with --dry-run: no timing pilot (the default)");
  auto* json = add_flag(app, "--json", o.json,
                        "with --dry-run: one JSON array, an object per run: {\"name\",\n"
                        "\"plan\", \"seed\", every swept key with its value, \"memory\"\n"
                        "(the estimate, bytes) and with --pilot \"estimated_s\" (seconds)}");
  (void)json;
  add_flag(app, "--force-memory", o.force_memory,
           "start runs whose estimated memory exceeds the memory available on this\n"
           "machine (refused otherwise, before anything loads: exit code 4)");
  add_flag(app, "--smoke", o.smoke,
           "the smoke version of the spec: a few steps, one seed, no sweep, small\n"
           "evaluation sets (its runs form the group '<name>-smoke'; `report SPEC --smoke`\n"
           "reports them): checks the pipeline, not the results");
  add_option(app, "--jobs", o.jobs, "N",
             "run up to N of the spec's runs side by side, each in its own worker\n"
             "process on this machine (one intra-op thread per run is fastest on a\n"
             "CPU: N = the number of cores); each run's numbers equal a run alone")
      ->check(int_range(1, 256));
  add_option(app, "--pool-parent", o.pool_parent, "PID", "")->check(at_least(1))->group("");
  add_option(app, "--nproc-per-node", o.nproc, "N",
             "data-parallel: start N worker processes on this machine (rank 0\n"
             "writes the store); under torchrun or srun leave it out: the worker\n"
             "joins the world their environment describes (docs/distributed.md)")
      ->check(int_range(1, 1024));
  add_option(app, "--dist-backend", o.dist_backend, "NAME",
             "collectives: gloo (CPU), nccl (CUDA, where built), auto: nccl for a\n"
             "CUDA device when available, else gloo")
      ->check(one_of({"auto", "gloo", "nccl"}));
  add_option(app, "--dist-timeout", o.dist_timeout, "SECONDS",
             "rendezvous and every collective: a rank that died or hangs ends\n"
             "the run failed within this time")
      ->check(positive_number());
  add_option(app, "--dist-bucket-mb", o.dist_bucket_mb, "MB", "gradient all-reduce bucket size")
      ->check(positive_number());
  add_option(app, "--dist-fault", o.dist_fault, "RANK:STEP:KIND", "")->group("");
  // Tests: a NaN loss at this step (divergence handling).
  add_option(app, "--inject-nan-at", o.inject_nan_at, "STEP", "")->check(at_least(0))->group("");
}

std::string minutes(double s) {
  return fmt::format("{:.1f} min", s / 60.0);
}

// The memory estimate of each run of a spec (experiment/estimate.h), from the model's
// config.json: no weights load, no preset is built.
std::vector<experiment::MemoryEstimate> run_memory(const experiment::ExperimentSpec& spec,
                                                   const std::vector<experiment::ExpandedRun>& runs,
                                                   const std::string& base_dir) {
  const ModelConfig config = experiment::spec_model_config(spec);
  std::vector<experiment::MemoryEstimate> out;
  for (const auto& r : runs) {
    // A swept key may change the shape (train.batch_size); the run's own spec has it.
    if (r.swept.empty()) {
      out.push_back(experiment::estimate_memory(config, spec.plans[r.plan_index],
                                                experiment::step_shape(spec)));
      continue;
    }
    const experiment::ExperimentSpec& rs = r.typed;
    out.push_back(experiment::estimate_memory(config, rs.plans.at(0), experiment::step_shape(rs)));
  }
  return out;
}

nlohmann::json memory_json(const experiment::MemoryEstimate& e) {
  return {{"params", e.params},
          {"added", e.added},
          {"trainable", e.trainable},
          {"trainable_share", e.trainable_share()},
          {"weights_bytes", e.weights},
          {"gradients_bytes", e.gradients},
          {"optimizer_bytes", e.optimizer},
          {"activations_per_token_bytes", e.activations_per_token},
          {"tokens", e.tokens},
          {"activations_bytes", e.activations},
          {"logits_bytes", e.logits},
          {"ce_chunk_tokens", e.ce_chunk},
          {"eval_bytes", e.eval},
          {"runtime_bytes", e.runtime},
          {"apart_bytes", e.apart},
          {"training_bytes", e.training()},
          {"evaluation_bytes", e.evaluation()},
          {"load_bytes", e.load},
          {"peak_bytes", e.peak()}};
}

std::string millions(int64_t n) {
  return fmt::format("{:.1f} M", static_cast<double>(n) / 1e6);
}

// The runs a spec stands for, in the order they would run, each plan's parameters and
// memory estimate, and with --pilot the time a short timing pilot (experiment/pilot.h)
// estimates for each run.
int dry_run(const RunOptions& in) {
  const auto spec = experiment::load_spec_for(in.spec, in.smoke);
  const auto runs = experiment::expand_runs(spec);
  const std::string base_dir = std::filesystem::absolute(in.spec).parent_path().string();
  const std::vector<experiment::MemoryEstimate> memory = run_memory(spec, runs, base_dir);
  std::optional<experiment::PilotResult> pilot;
  if (in.pilot) {
    experiment::RunnerOptions o;
    o.cache_dir = in.cache;
    // What the pilot does, on stderr (stdout has the answer).
    auto human = std::make_shared<HumanEvents>(stderr, ::isatty(STDERR_FILENO) != 0);
    human->line(
        fmt::format("timing pilot: {} plan(s), 2 steps per phase each ...", spec.plans.size()));
    o.on_event = [human](const events::Event& e) { (*human)(e); };
    pilot = experiment::timing_pilot(spec, runs, base_dir, o);
    human->clear();
  }
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    nlohmann::json o = {
        {"name", r.name}, {"plan", spec.plans[r.plan_index].label()}, {"seed", r.seed}};
    for (auto it = r.swept.begin(); it != r.swept.end(); ++it) o[it.key()] = *it;
    o["memory"] = memory_json(memory[i]);
    if (pilot) o["estimated_s"] = pilot->run_seconds[i];
    out.push_back(std::move(o));
  }
  if (in.json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%zu run%s from %s (group spec hash %s):\n", runs.size(), runs.size() == 1 ? "" : "s",
              in.spec.c_str(), experiment::spec_hash(spec).c_str());
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string mem = experiment::format_bytes(memory[i].peak());
    if (pilot) {
      std::printf("%4zu  %-9s %-10s %s\n", i + 1, minutes(pilot->run_seconds[i]).c_str(),
                  mem.c_str(), runs[i].name.c_str());
    } else {
      std::printf("%4zu  %-10s %s\n", i + 1, mem.c_str(), runs[i].name.c_str());
    }
  }
  // Per plan (the first run of each: runs of a plan differ in rate and seed).
  const std::string frozen = experiment::step_shape(spec).frozen_dtype;
  std::printf("memory per plan (estimates from config.json, %s%s; docs/performance.md):\n",
              spec.dtype.c_str(),
              frozen.empty() ? "" : (", frozen matrices " + frozen + " (frozen_dtype)").c_str());
  std::vector<bool> shown(spec.plans.size(), false);
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t p = runs[i].plan_index;
    if (shown[p]) continue;
    shown[p] = true;
    const auto& e = memory[i];
    namespace ex = experiment;
    std::printf("  %s: %s parameters (+%s added), %s trainable (%.1f %%)\n",
                spec.plans[p].label().c_str(), millions(e.params).c_str(),
                millions(e.added).c_str(), millions(e.trainable).c_str(),
                100.0 * e.trainable_share());
    std::printf(
        "    peak %s: training %s = weights %s + gradients %s + optimizer %s + activations %s "
        "(%lld tokens x %s) + logits %s + runtime %s%s; an evaluation %s; loading %s\n",
        ex::format_bytes(e.peak()).c_str(), ex::format_bytes(e.training()).c_str(),
        ex::format_bytes(e.weights).c_str(), ex::format_bytes(e.gradients).c_str(),
        ex::format_bytes(e.optimizer).c_str(), ex::format_bytes(e.activations).c_str(),
        static_cast<long long>(e.tokens), ex::format_bytes(e.activations_per_token).c_str(),
        ex::format_bytes(e.logits).c_str(), ex::format_bytes(e.runtime).c_str(),
        e.apart > 0 ? (" - " + ex::format_bytes(e.apart) + " never alive together").c_str() : "",
        ex::format_bytes(e.evaluation()).c_str(), ex::format_bytes(e.load).c_str());
  }
  if (const auto avail = experiment::available_memory_bytes()) {
    std::printf("available on this machine: %s\n", experiment::format_bytes(*avail).c_str());
  }
  if (pilot) {
    std::printf(
        "estimated: %s in all, one run after another (preparation %s; per plan from "
        "a timing pilot of 2 steps per phase)\n",
        minutes(pilot->total_s()).c_str(), minutes(pilot->prepare_s).c_str());
    if (in.jobs > 1) {
      std::printf("  with --jobs %lld: %s (each worker as fast as one run alone)\n",
                  static_cast<long long>(in.jobs), minutes(pilot->wall_s(in.jobs)).c_str());
    }
    for (const auto& t : pilot->plans) {
      std::printf("  %s: setup %.1f s, %.3f s/step, %.2f s/evaluation\n", t.plan.c_str(), t.setup_s,
                  t.step_s, t.eval_s);
    }
  } else {
    std::printf("time: --pilot measures the steps of each plan (minutes on a large model)\n");
  }
  return 0;
}

// Exit code of a run refused for its memory.
constexpr int kExitMemory = 4;

// Refuses (exit 4, before anything loads) a spec whose largest run's estimate, times the
// processes that run side by side, exceeds the memory available, naming what would fit.
// Returns 0 when it fits or when the machine does not say what it has.
int check_memory(const RunOptions& in, const experiment::ExperimentSpec& spec) {
  namespace ex = experiment;
  const auto avail = ex::available_memory_bytes();
  if (!avail) return 0;
  const auto runs = ex::expand_runs(spec);
  if (runs.empty()) return 0;
  const std::string base_dir = std::filesystem::absolute(in.spec).parent_path().string();
  const std::vector<ex::MemoryEstimate> memory = run_memory(spec, runs, base_dir);
  size_t worst = 0;
  for (size_t i = 1; i < memory.size(); ++i) {
    if (memory[i].peak() > memory[worst].peak()) worst = i;
  }
  const int64_t side_by_side =
      in.jobs > 1 ? std::min<int64_t>(in.jobs, static_cast<int64_t>(runs.size())) : in.nproc;
  auto needs = [&](const ex::MemoryEstimate& e) {
    return side_by_side * (e.peak() + ex::kProcessOverheadBytes);
  };
  const ex::MemoryEstimate& e = memory[worst];
  if (needs(e) <= *avail) return 0;
  const ex::ExperimentSpec& rs = runs[worst].swept.empty() ? spec : runs[worst].typed;
  const ModelConfig config = ex::spec_model_config(spec);
  const ex::StepShape shape = ex::step_shape(rs);
  const grow::GrowthPlan& plan =
      runs[worst].swept.empty() ? spec.plans[runs[worst].plan_index] : rs.plans.at(0);
  std::string msg = fmt::format(
      "refused: run '{}' needs about {} (weights {}, gradients {}, optimizer {}, "
      "activations {}, logits {}, runtime {}, this process {}){}, but {} is available "
      "(MemAvailable).",
      runs[worst].name, ex::format_bytes(needs(e)), ex::format_bytes(e.weights),
      ex::format_bytes(e.gradients), ex::format_bytes(e.optimizer), ex::format_bytes(e.activations),
      ex::format_bytes(e.logits), ex::format_bytes(e.runtime),
      ex::format_bytes(ex::kProcessOverheadBytes),
      side_by_side > 1 ? fmt::format(" x {} processes side by side", side_by_side) : "",
      ex::format_bytes(*avail));
  // What would fit: LoRA instead of the plan, a smaller micro-batch (the same tokens per
  // step with more accumulation), both.
  std::vector<std::string> fits;
  const grow::GrowthPlan lora = grow::parse_plan({{"variant", "lora"}, {"rank", 16}}, "LoRA");
  auto smallest_batch = [&](const grow::GrowthPlan& p) -> int64_t {
    for (int64_t b = shape.batch_size - 1; b >= 1; --b) {
      ex::StepShape s = shape;
      s.batch_size = b;
      s.eval_batch_size = std::min(shape.eval_batch_size, b);
      if (needs(ex::estimate_memory(config, p, s)) <= *avail) return b;
    }
    return 0;
  };
  auto batch_text = [&](int64_t b) {
    ex::StepShape s = shape;
    s.batch_size = b;
    s.eval_batch_size = std::min(shape.eval_batch_size, b);
    const int64_t acc = rs.train.accumulation * ((shape.batch_size + b - 1) / b);
    return fmt::format(
        "train.batch_size {} with train.accumulation {} (about the same tokens per step){}", b, acc,
        s.eval_batch_size < shape.eval_batch_size
            ? fmt::format(" and eval.batch_size {}", s.eval_batch_size)
            : std::string());
  };
  const bool is_lora = plan.variant == grow::Variant::Lora;
  if (!shape.checkpointing) {
    ex::StepShape s = shape;
    s.checkpointing = true;
    const int64_t with = needs(ex::estimate_memory(config, plan, s));
    if (with <= *avail) {
      fits.push_back(fmt::format("activation checkpointing (train.checkpointing true): about {}",
                                 ex::format_bytes(with)));
    }
  }
  if (!is_lora) {
    const ex::MemoryEstimate l = ex::estimate_memory(config, lora, shape);
    if (needs(l) <= *avail) {
      fits.push_back(
          fmt::format("LoRA (a plan {{\"variant\": \"lora\", \"rank\": 16}}): "
                      "about {}",
                      ex::format_bytes(needs(l))));
    }
  }
  if (const int64_t b = smallest_batch(plan); b > 0) {
    ex::StepShape s = shape;
    s.batch_size = b;
    s.eval_batch_size = std::min(shape.eval_batch_size, b);
    fits.push_back(fmt::format("{}: about {}", batch_text(b),
                               ex::format_bytes(needs(ex::estimate_memory(config, plan, s)))));
  } else if (!is_lora) {
    if (const int64_t b = smallest_batch(lora); b > 0 && fits.empty()) {
      fits.push_back("LoRA (rank 16) with " + batch_text(b));
    }
  }
  if (side_by_side > 1) fits.push_back("fewer runs side by side (--jobs, --nproc-per-node)");
  if (fits.empty() || (fits.size() == 1 && side_by_side > 1)) {
    msg +=
        "\nNeither LoRA nor a smaller batch_size fits: a smaller model, a bfloat16 dtype or "
        "a machine with more memory.";
  }
  if (!fits.empty()) {
    msg += "\nWhat would fit:";
    for (const auto& f : fits) msg += "\n  - " + f;
  }
  msg += "\n--force-memory starts it anyway (docs/performance.md, \"Memory estimates\").";
  std::fprintf(stderr, "growbench-cli run: %s\n", msg.c_str());
  return kExitMemory;
}

experiment::DistFault parse_fault(const std::string& text) {
  experiment::DistFault f;
  const auto a = text.find(':'), b = text.rfind(':');
  try {
    if (a == std::string::npos || a == b) throw std::invalid_argument("format");
    f.rank = std::stoll(text.substr(0, a));
    const std::string step = text.substr(a + 1, b - a - 1);
    f.step = step == "prepare" ? experiment::DistFault::kPrepare : std::stoll(step);
    f.kind = text.substr(b + 1);
  } catch (const std::exception&) {
    throw UsageError("--dist-fault: expected RANK:STEP:KIND, got '" + text + "'");
  }
  if (f.kind != "kill" && f.kind != "hang" && f.kind != "fail") {
    throw UsageError("--dist-fault: KIND is kill, hang or fail");
  }
  return f;
}

// --nproc-per-node N: this process launches N workers (the same command line) and waits.
int launch_workers(const RunOptions& in, const std::string& db_path, CancelToken cancel) {
  if (!dist::available()) {
    fail("--nproc-per-node {}: distributed runs are unavailable: {}", in.nproc,
         dist::unavailable_reason());
  }
  dist::LaunchOptions lo;
  lo.nproc = in.nproc;
  lo.program = "/proc/self/exe";
  auto cmd = dist::own_command_line();
  lo.args.assign(cmd.begin() + (cmd.empty() ? 0 : 1), cmd.end());
  lo.timeout_s = in.dist_timeout;
  lo.db_path = db_path;
  lo.cancel = cancel;
  const dist::LaunchResult r = dist::launch_local(lo);
  if (r.rank0_died) {
    // Rank 0 printed no `done`: the launcher reports what it recorded.
    events::Done done;
    done.db = db_path;
    done.exit_code = r.exit_code;
    for (int64_t id : r.runs_marked_failed) done.runs.push_back({id, "", "failed", r.failure});
    print_json(events::to_json(done));
  }
  return r.exit_code;
}

int exit_code_of(const std::vector<std::string>& statuses) {
  int code = 0;
  for (const auto& s : statuses) {
    if (s == "cancelled")
      code = 130;
    else if (s != "finished" && s != "stopped" && code == 0)
      code = 3;
  }
  return code;
}

// --jobs N: this process creates the runs and prepares their inputs (presets, tokenised
// corpora, all cached), then runs each in a worker `growbench-cli run --resume ID` (which
// may start a queued run this process claimed), N at a time. The workers' progress lines
// come through whole; their `done` lines give way to one for the whole spec.
int run_jobs(const RunOptions& in, experiment::RunnerOptions o,
             const experiment::ExperimentSpec& spec, std::shared_ptr<HumanEvents> human) {
  o.create_only = true;
  const std::vector<experiment::RunOutcome> created = experiment::run_experiment(spec, o);
  // OpenBLAS starts a thread per core in every process: N workers would each spin on all
  // the cores. Each worker gets its share of them (measured here on 2 cores: 6 runs of the
  // quickstart shape took 198 s one after another, 210 s two at a time with a BLAS thread
  // per core each, 165 s two at a time with one each). A value the user set stays.
  if (!std::getenv("OPENBLAS_NUM_THREADS")) {
    const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
    const int64_t workers =
        std::max<int64_t>(1, std::min<int64_t>(in.jobs, static_cast<int64_t>(created.size())));
    const int64_t each = std::max<int64_t>(1, cores / workers);
    ::setenv("OPENBLAS_NUM_THREADS", std::to_string(each).c_str(), 1);
  }
  WorkerPoolOptions po;
  po.jobs = in.jobs;
  // This very executable, even if its file was replaced since it started; named by its
  // path in the workers' argv[0] (what ps shows).
  po.program = "/proc/self/exe";
  std::error_code ec;
  po.argv0 = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  po.cancel = o.cancel;
  po.cancel_signal = kPoolCancelSignal;
  const std::string parent = std::to_string(::getpid());
  po.args = [&](size_t i) {
    std::vector<std::string> a = {"run",  "--resume", std::to_string(created[i].run_id),
                                  "--db", o.db_path,  "--pool-parent",
                                  parent};
    if (!in.workspace.empty()) a.insert(a.end(), {"--workspace", in.workspace});
    if (!in.cache.empty()) a.insert(a.end(), {"--cache", in.cache});
    if (!in.log.empty()) a.insert(a.end(), {"--log", in.log});
    if (in.quiet) a.push_back("--quiet");
    if (in.inject_nan_at >= 0)
      a.insert(a.end(), {"--inject-nan-at", std::to_string(in.inject_nan_at)});
    return a;
  };
  po.on_line = [human](size_t, const std::string& line) {
    // Each worker's own `done` (one run) gives way to the spec's below.
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("event", "") == "done") return;
    if (human && !j.is_discarded() && j.is_object()) {
      // The workers print JSON (their stdout is a pipe); people read them here.
      try {
        (*human)(events::parse(j));
        return;
      } catch (const std::exception&) {
        // not an event: passed through as it came
      }
    }
    if (human) human->clear();
    std::string out = line + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  };
  auto log = log::get("runner");
  log->info("running {} runs, {} at a time, each in its own worker process", created.size(),
            std::min<int64_t>(in.jobs, static_cast<int64_t>(created.size())));
  const PoolResult pool = run_worker_pool(created.size(), po);
  const std::vector<PoolExit>& exits = pool.exits;
  if (!pool.error.empty()) log->error("stopped starting runs: {}", pool.error);
  // The store has the truth: a worker that died left its run running (marked interrupted
  // here, resumable); a run whose worker never got to it is still queued under this claim.
  store::Store store = store::Store::open(o.db_path);
  store.mark_interrupted_runs();
  events::Done done;
  done.db = o.db_path;
  std::vector<std::string> statuses;
  for (size_t i = 0; i < created.size(); ++i) {
    const int64_t id = created[i].run_id;
    store::RunInfo info = store.get_run(id);
    if (info.status == store::RunStatus::Queued) {
      // Never got to it: a cancel (this process's, or the worker's own before it began),
      // or a worker that could not start.
      const bool cancelled =
          exits[i].exit_code == 130 || (o.cancel.cancelled() && pool.error.empty());
      if (!exits[i].started && !pool.error.empty()) {
        store.set_status(id, store::RunStatus::Failed, "not started: " + pool.error);
      } else if (!exits[i].started || cancelled) {
        store.set_status(id, store::RunStatus::Cancelled, "cancelled before it started");
      } else {
        store.set_status(
            id, store::RunStatus::Failed,
            fmt::format("its worker process (pid {}) {} before starting it", exits[i].pid,
                        describe_exit(exits[i].exit_code, exits[i].signal)));
      }
      info = store.get_run(id);
    } else if (exits[i].started && exits[i].signal != 0) {
      log->error("run {}: its worker process (pid {}) was {}", id, exits[i].pid,
                 describe_exit(exits[i].exit_code, exits[i].signal));
    }
    const std::string status = store::to_string(info.status);
    statuses.push_back(status);
    done.runs.push_back({id, created[i].label, status, info.error});
  }
  done.exit_code = exit_code_of(statuses);
  if (human) {
    (*human)(done);
  } else {
    print_json(events::to_json(done));
  }
  return done.exit_code;
}

int run_run(const RunOptions& in) {
  if (in.spec.empty() && !in.resume) {
    throw UsageError("missing argument SPEC.json (or --resume RUN_ID)");
  }
  if (in.json && !in.dry_run) throw UsageError("--json applies to --dry-run only");
  if (in.no_pilot && !in.dry_run) throw UsageError("--no-pilot applies to --dry-run only");
  if (in.pilot && !in.dry_run) throw UsageError("--pilot applies to --dry-run only");
  if (in.pilot && in.no_pilot) throw UsageError("--pilot or --no-pilot, not both");
  if (in.force_memory && in.dry_run)
    throw UsageError("--force-memory applies to runs, not --dry-run");
  if (in.smoke && in.resume) throw UsageError("--smoke applies to a spec, not to --resume");
  if (in.force_resume && !in.resume) throw UsageError("--force-resume applies to --resume only");
  if (in.pool_parent && !in.resume) throw UsageError("--pool-parent applies to --resume only");
  if (in.jobs > 1) {
    if (in.resume) {
      throw UsageError("--jobs runs the runs of a spec side by side; --resume continues one run");
    }
    if (in.nproc > 1) {
      throw UsageError(
          "--jobs and --nproc-per-node do not mix: run the spec's runs side by side (--jobs) "
          "or each run data-parallel (--nproc-per-node)");
    }
  }
  if (in.dry_run) {
    if (in.resume) throw UsageError("--dry-run lists the runs of a spec, not --resume");
    return dry_run(in);
  }
  CancelToken cancel;
  cancel_on_signals(cancel);

  const dist::WorldInfo world = dist::detect_world();
  if (in.nproc > 1 && world.distributed()) {
    if (world.launcher != "launcher") {
      throw UsageError(fmt::format(
          "--nproc-per-node starts local workers itself; this process is already rank {} of {} "
          "({}): leave --nproc-per-node out",
          world.rank, world.world_size, world.launcher));
    }
  }
  if (in.jobs > 1 && world.distributed()) {
    throw UsageError(fmt::format(
        "--jobs runs the spec's runs side by side on this machine; this process is rank {} of "
        "{} ({}): leave --jobs out",
        world.rank, world.world_size, world.launcher));
  }
  if (!in.dist_fault.empty() && !world.distributed() && in.nproc <= 1) {
    throw UsageError("--dist-fault applies to data-parallel runs only");
  }
  std::optional<experiment::ExperimentSpec> spec;
  if (!in.resume) spec = experiment::load_spec_for(in.spec, in.smoke);
  // Before anything loads or the store opens: a run that would not fit in memory (the
  // kernel's OOM killer would end it with its run left `running`).
  if (spec && !in.force_memory && !world.distributed() && !in.pool_parent) {
    if (const int code = check_memory(in, *spec); code != 0) return code;
  }
  experiment::RunnerOptions o;
  o.db_path = in.db.empty() ? default_store_path() : in.db;
  if (in.nproc > 1 && !world.distributed()) return launch_workers(in, o.db_path, cancel);
  std::filesystem::create_directories(std::filesystem::absolute(o.db_path).parent_path());
  o.workspace = in.workspace;
  o.cache_dir = in.cache;
  o.cancel = cancel;
  o.inject_nan_at = in.inject_nan_at;
  o.force_resume = in.force_resume;
  o.pool_parent = in.pool_parent;
  if (!in.tag.empty()) o.tags.push_back(in.tag);
  if (!in.log.empty()) log::add_file(in.log);
  const bool quiet = in.quiet;
  std::shared_ptr<HumanEvents> human;
  if (events_mode(in.events) == EventsMode::Human) {
    human = std::make_shared<HumanEvents>(stdout, ::isatty(STDOUT_FILENO) != 0);
    // Log lines on the same terminal would break the progress line: warnings and errors
    // only, unless a level was asked for (--log-level, GROWBENCH_LOG); workers inherit it.
    if (::isatty(STDERR_FILENO) && !std::getenv("GROWBENCH_LOG")) {
      log::set_level(spdlog::level::warn);
      ::setenv("GROWBENCH_LOG", "warn", 1);
    }
  }
  o.on_event = [quiet, human](const events::Event& e) {
    if (quiet) return;
    if (human) {
      (*human)(e);
    } else {
      print_json(events::to_json(e));
    }
  };
  if (!in.dist_fault.empty()) o.dist_fault = parse_fault(in.dist_fault);
  o.bucket_bytes = static_cast<int64_t>(in.dist_bucket_mb * 1024 * 1024);
  if (world.distributed()) {
    if (!dist::available()) {
      fail("this process is rank {} of {} ({}), but distributed runs are unavailable: {}",
           world.rank, world.world_size, world.launcher, dist::unavailable_reason());
    }
    dist::GroupOptions go;
    go.backend = in.dist_backend;
    go.timeout_s = in.dist_timeout;
    // The run's device picks the backend (auto) and each rank's CUDA device. --resume has
    // no spec: rank 0 reads the run's device from the store and gives it to the others in
    // the rendezvous (they may not see the store). A run it cannot read joins as "cpu" and
    // resume_run then reports why to every rank.
    if (spec) {
      go.device = spec->device;
    } else if (world.rank == 0) {
      go.device = experiment::stored_run_device(o.db_path, *in.resume);
      if (go.device.empty()) go.device = "cpu";
    }
    go.spec_hash =
        in.resume ? "resume:" + std::to_string(*in.resume) : experiment::spec_hash(*spec);
    o.dist = dist::Group::join(world, go);
    // Only rank 0 reports: the others' records are scratch.
    if (!o.dist->leader()) o.on_event = nullptr;
  }
  std::vector<experiment::RunOutcome> outcomes;
  if (in.resume) {
    // Rank 0 alone needs the store (the others take the run from it).
    if ((!o.dist || o.dist->leader()) && !std::filesystem::exists(o.db_path)) {
      const std::string why =
          fmt::format("--resume {}: there is no run store at '{}' (give the --db of the run)",
                      *in.resume, o.db_path);
      // The other ranks wait for rank 0's answer about the run (experiment::resume_run).
      if (o.dist) {
        o.dist->store_set(fmt::format("gb/resume/{}", *in.resume),
                          nlohmann::json{{"error", why}}.dump());
      }
      fail("{}", why);
    }
    outcomes.push_back(experiment::resume_run(*in.resume, o));
  } else if (in.jobs > 1) {
    return run_jobs(in, o, *spec, human);
  } else {
    outcomes = experiment::run_experiment(*spec, o);
  }
  std::vector<std::string> statuses;
  for (const auto& oc : outcomes) statuses.push_back(oc.status);
  const int code = exit_code_of(statuses);
  if (o.dist && !o.dist->leader()) return code;
  events::Done done;
  done.db = o.db_path;
  done.exit_code = code;
  for (const auto& oc : outcomes) done.runs.push_back({oc.run_id, oc.label, oc.status, oc.error});
  if (human) {
    (*human)(done);
  } else {
    print_json(events::to_json(done));
  }
  return code;
}

}  // namespace

GB_REGISTER_COMMAND(
    "run",
    "run (SPEC.json | --resume RUN_ID [--force-resume]) [--db DB] [--workspace DIR] "
    "[--cache DIR] [--smoke] [--dry-run [--json] [--pilot]] [--events json|human|auto] "
    "[--force-memory] [--jobs N] [--nproc-per-node N]",
    "Runs an experiment spec (see docs/experiments.md): one run per plan, sweep point and\n"
    "seed (all in one group of the store), each probed,\n"
    "grown, trained and evaluated, everything recorded in the SQLite run store.\n"
    "On a terminal it prints a progress line (stage, step/total, tokens/s, ETA, memory)\n"
    "and a line per finished run; otherwise (or with --events json) it\n"
    "prints one JSON object per line on stdout: {\"event\": \"stage\"|\"progress\"|\"eval\"|\n"
    "\"grown\"|\"checkpoint\"|\"run_started\"|\"run_finished\"|\"done\", ...}; progress objects\n"
    "carry stage, step, total, loss, lr, tokens_per_s and eta_s. Logs go to stderr.\n"
    "SIGINT/SIGTERM cancel cleanly: the run is marked cancelled and a checkpoint written;\n"
    "a second signal exits at once (the run resumes from its last checkpoint).\n"
    "--jobs N runs up to N of the spec's runs side by side, each in its own process.\n"
    "Data-parallel (docs/distributed.md): --nproc-per-node N starts N local workers; under\n"
    "torchrun --no_python or srun each process joins the world its environment describes.\n"
    "Rank 0 alone writes the store; the numbers equal one process's.",
    &declare_run, &run_run,
    "A run whose estimated memory (run --dry-run) exceeds the memory available is refused\n"
    "before anything loads, naming what would fit (--force-memory starts it anyway).\n"
    "Exit code: 0 all runs finished (or stopped by their forgetting guard), 3 a run failed or\n"
    "diverged, 4 refused for its memory, 130 cancelled, 2 usage.");

}  // namespace gb::cli
