#pragma once
// A pool of worker processes on this machine, at most `jobs` at a time, one per task: used
// by `growbench-cli run SPEC --jobs N` to run the runs of one experiment side by side (each
// run is `growbench-cli run --resume ID`; one intra-op thread per run is fastest on a CPU,
// so two cores run two runs). Each worker's stdout comes back line by line, whole lines
// only (two workers' lines never interleave); stderr is inherited. A cancel is forwarded
// to the running workers (cancel_signal: they cancel cleanly) and no further worker starts.
// Workers run in their own process group (a Ctrl-C reaches the pool, which forwards it once)
// and die with this process (PR_SET_PDEATHSIG): a killed pool leaves no worker behind.
// No LibTorch here.

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "util/progress.h"

namespace gb {

struct WorkerPoolOptions {
  int64_t jobs = 2;
  std::string program;  // the executable (e.g. /proc/self/exe)
  std::string argv0;    // the workers' argv[0] (what ps shows); default: program
  // The arguments (argv[1..]) of the worker for task i.
  std::function<std::vector<std::string>(size_t task)> args;
  // Each whole line (without its newline) a task's worker printed on stdout.
  std::function<void(size_t task, const std::string& line)> on_line;
  // A worker started (its pid).
  std::function<void(size_t task, int64_t pid)> on_start;
  CancelToken cancel;
  // Sent once to every running worker on a cancel. Workers start with SIGINT, SIGTERM and
  // this signal blocked (so a cancel that arrives while one is starting is never lost nor
  // fatal): each unblocks them once its handlers are in place.
  int cancel_signal = SIGTERM;
};

struct PoolExit {
  bool started = false;
  int64_t pid = 0;
  int exit_code = -1;  // -1 when killed by a signal or never started
  int signal = 0;
};

// "exited with status 3", "killed by signal 9 (Killed)".
std::string describe_exit(int exit_code, int signal);

struct PoolResult {
  std::vector<PoolExit> exits;  // one per task
  // Why the pool stopped starting workers (a fork or pipe that failed); the ones running
  // then were cancelled and waited for. Empty when every task got its worker or a cancel.
  std::string error;
};

// Runs `tasks` workers, `jobs` at a time, in task order, to the end (or, after a cancel or
// a worker that could not start, until the running ones ended).
PoolResult run_worker_pool(size_t tasks, const WorkerPoolOptions& options);

}  // namespace gb
