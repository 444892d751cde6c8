// bench_store: the run store at GUI scale. Creates a store with 1 000 runs and 1 000 000
// metric rows (one run with a 5 000-step series of 4 keys, the rest ~980 rows each), then
// times opening it, the compare table (runs with their latest metrics), reading one run's
// 4 x 5 000-point series, an incremental poll, mark_interrupted_runs and deleting a run.
//
//   bench_store [--dir DIR] [--runs N] [--rows N] [--keep]
//
// Only the store is used (no LibTorch calls). Prints figures; never a timed test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "store/store.h"
#include "util/error.h"
#include "util/log.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace st = gb::store;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time (user + system) of this process, in milliseconds: on a shared, loaded machine
// it is the steadier figure; wall time is what a user waits.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

struct Timing {
  double wall = 0, cpu = 0;
};

std::string str(const Timing& t) {
  return fmt::format("{:9.2f} ms wall {:9.2f} ms cpu", t.wall, t.cpu);
}

// Medians of `reps` timings of f.
Timing median(int reps, const std::function<void()>& f) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    f();
    cpu.push_back(cpu_ms() - c0);
    wall.push_back(ms_since(t0));
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

int64_t file_size(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 ? static_cast<int64_t>(s.st_size) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int64_t n_runs = 1000, n_rows = 1000000;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--runs" && i + 1 < argc) {
      n_runs = std::atoll(argv[++i]);
    } else if (a == "--rows" && i + 1 < argc) {
      n_rows = std::atoll(argv[++i]);
    } else if (a == "--keep") {
      keep = true;
    } else {
      std::fprintf(stderr, "usage: bench_store [--dir DIR] [--runs N] [--rows N] [--keep]\n");
      return 2;
    }
  }
  gb::log::set_level(spdlog::level::warn);
  if (dir.empty()) {
    char tmpl[] = "/tmp/bench_store-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 1;
    }
    dir = tmpl;
  }
  const std::string path = dir + "/runs.db";
  std::remove(path.c_str());
  const std::vector<std::string> big_keys = {st::keys::kTrainLoss, st::keys::kOrigPpl,
                                             st::keys::kNewPpl, st::keys::kTokensPerS};
  const std::vector<std::string> keys = {st::keys::kTrainLoss, st::keys::kOrigLoss,
                                         st::keys::kOrigPpl,   st::keys::kNewLoss,
                                         st::keys::kNewPpl,    st::keys::kTokensPerS};
  const int64_t big_steps = 5000;
  const int64_t dead_runs = std::min<int64_t>(50, n_runs - 1);
  try {
    fmt::print("bench_store: {} runs, {} metric rows, store {}\n", n_runs, n_rows, path);
    fmt::print("(medians of 5 unless noted; wall and process CPU time)\n");
    int64_t big_run = 0;
    std::vector<int64_t> runs;
    {
      st::Store store = st::Store::open(path);
      Timing create = median(1, [&] {
        for (int64_t i = 0; i < n_runs; ++i) {
          st::NewRun r;
          r.name = fmt::format("run {:04d}", i);
          r.variant = i % 3 == 0 ? "lora" : (i % 3 == 1 ? "grow/g-freeze" : "scale/preserve");
          r.spec = fmt::format(R"({{"steps": 5000, "lr": 0.0003, "seed": {}}})", i);
          r.tags = {i % 2 ? "odd" : "even"};
          runs.push_back(store.create_run(r));
        }
      });
      fmt::print("  create {} runs (a transaction each, once): {}\n", n_runs, str(create));
      big_run = runs[0];

      // Metrics through the default buffered writer (256 rows per transaction).
      const int64_t big_rows = static_cast<int64_t>(big_keys.size()) * big_steps;
      const int64_t rest = std::max<int64_t>(0, n_rows - big_rows);
      int64_t written = 0;
      Timing insert = median(1, [&] {
        st::MetricsWriter w = store.metrics_writer();
        for (int64_t s = 0; s < big_steps; ++s) {
          for (const auto& k : big_keys) w.add(big_run, s, k, 1.0 / (1.0 + s));
        }
        written += big_rows;
        for (size_t r = 1; r < runs.size(); ++r) {
          int64_t rows = rest / (n_runs - 1) + (static_cast<int64_t>(r) <= rest % (n_runs - 1));
          for (int64_t j = 0; j < rows; ++j) {
            w.add(runs[r], j / static_cast<int64_t>(keys.size()), keys[j % keys.size()],
                  static_cast<double>(j) * 0.001);
          }
          written += rows;
        }
      });
      fmt::print("  insert {} metric rows (MetricsWriter, 256 rows/tx, once): {}\n", written,
                 str(insert));
      fmt::print("    = {:.0f} rows/s wall, {:.0f} rows/s per CPU second\n",
                 written / (insert.wall / 1000.0), written / (insert.cpu / 1000.0));
    }

    // Runs whose worker died: a child process claims them and exits.
    pid_t child = fork();
    if (child == 0) {
      try {
        st::Store s =
            st::Store::open(path, st::OpenMode::ReadWrite, {5000, st::IntegrityCheck::None});
        for (int64_t i = 1; i <= dead_runs; ++i) s.set_status(runs[i], st::RunStatus::Running);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child: %s\n", e.what());
        _exit(1);
      }
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) gb::fail("the claiming child failed");
    fmt::print("  store file: {:.1f} MiB\n", file_size(path) / 1048576.0);

    // Opening.
    const st::OpenOptions none{5000, st::IntegrityCheck::None};
    const st::OpenOptions full{5000, st::IntegrityCheck::Full};
    fmt::print("  open read-write, quick_check (default):  {}\n",
               str(median(5, [&] { st::Store::open(path); })));
    fmt::print("  open read-write, no check:               {}\n",
               str(median(5, [&] { st::Store::open(path, st::OpenMode::ReadWrite, none); })));
    fmt::print("  open read-only, no check:                {}\n",
               str(median(5, [&] { st::Store::open(path, st::OpenMode::ReadOnly, none); })));
    fmt::print("  open read-write, integrity_check (once): {}\n",
               str(median(1, [&] { st::Store::open(path, st::OpenMode::ReadWrite, full); })));

    st::Store store = st::Store::open(path, st::OpenMode::ReadOnly, none);
    // The compare table: every run with the latest value of every key.
    size_t n_listed = 0, n_latest = 0;
    Timing first = median(1, [&] {
      n_listed = store.list_runs().size();
      n_latest = store.latest_metrics().size();
    });
    Timing compare = median(5, [&] {
      store.list_runs();
      store.latest_metrics();
    });
    fmt::print("  compare table ({} runs + {} latest values), first: {}\n", n_listed, n_latest,
               str(first));
    fmt::print("  compare table, again:                    {}\n", str(compare));
    fmt::print("    of which list_runs:                    {}\n",
               str(median(5, [&] { store.list_runs(); })));

    st::MetricQuery q;
    q.keys = big_keys;
    size_t points = 0;
    Timing series = median(5, [&] {
      auto s = store.metric_series(big_run, q);
      points = 0;
      for (const auto& [k, v] : s) points += v.steps.size();
    });
    fmt::print("  one run's series, 4 keys x 5000 ({} points): {}\n", points, str(series));
    q.after_step = big_steps - 11;
    fmt::print("  incremental poll (last 10 steps, 4 keys): {}\n",
               str(median(5, [&] { store.metric_series(big_run, q); })));
    fmt::print("  a ~1000-row run, all keys:               {}\n",
               str(median(5, [&] { store.metric_series(runs[n_runs / 2]); })));

    st::Store rw = st::Store::open(path, st::OpenMode::ReadWrite, none);
    size_t marked = 0;
    Timing mark = median(1, [&] { marked = rw.mark_interrupted_runs().size(); });
    fmt::print("  mark_interrupted_runs ({} marked, once): {}\n", marked, str(mark));
    fmt::print("  mark_interrupted_runs (none to mark):    {}\n",
               str(median(5, [&] { rw.mark_interrupted_runs(); })));
    fmt::print("  delete one ~1000-row run (once):         {}\n",
               str(median(1, [&] { rw.delete_runs({runs[n_runs - 1]}); })));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_store: %s\n", e.what());
    return 1;
  }
  if (!keep) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    rmdir(dir.c_str());
  } else {
    fmt::print("  kept {}\n", path);
  }
  return 0;
}
