#pragma once
// `growbench-cli run --nproc-per-node N`: starts N worker processes on this machine, each the
// same command line with torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, ...,
// TORCHELASTIC_USE_AGENT_STORE=True), and hosts their rendezvous store on a free local port,
// as torchrun's agent does. It forwards SIGINT/SIGTERM (cancel) to the workers and watches
// them: when one dies it leaves a failure notice in the store (the survivors' collectives
// fail at once and name it), gives rank 0 the group's timeout to record the failure, then
// ends every worker still running; when rank 0 itself dies it marks rank 0's running runs
// failed in the store. Workers die with the launcher (PR_SET_PDEATHSIG). No LibTorch in
// this header.

#include <cstdint>
#include <string>
#include <vector>

#include "util/progress.h"

namespace gb::dist {

struct LaunchOptions {
  int64_t nproc = 2;
  std::string program;            // the executable (e.g. /proc/self/exe)
  std::vector<std::string> args;  // its arguments (argv[1..])
  double timeout_s = 300;         // the workers' --dist-timeout
  std::string db_path;            // the run store rank 0 writes
  CancelToken cancel;             // set by SIGINT/SIGTERM: forwarded to the workers
};

struct WorkerExit {
  int64_t rank = 0;
  int64_t pid = 0;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool terminated_by_launcher = false;
  std::string describe() const;  // "exited with status 3", "killed by signal 9 (Killed)"
};

struct LaunchResult {
  int exit_code = 0;  // rank 0's; 3 when rank 0 died and its runs were marked failed
  std::vector<WorkerExit> workers;
  bool rank0_died = false;                  // by a signal, or terminated by the launcher
  std::vector<int64_t> runs_marked_failed;  // rank 0's runs the launcher marked failed
  std::string failure;                      // the first worker failure, if any
};

// Runs the workers to the end. Throws gb::Error when distributed runs are unavailable or a
// worker cannot be started.
LaunchResult launch_local(const LaunchOptions& options);

// This process's command line (argv[0..]) as the kernel has it (/proc/self/cmdline).
std::vector<std::string> own_command_line();

}  // namespace gb::dist
