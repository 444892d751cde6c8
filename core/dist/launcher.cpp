#include "dist/launcher.h"

#include "dist/dist_config.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#if GB_HAVE_GLOO
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

#include "dist/group.h"
#include "dist/world.h"
#include "store/store.h"
#include "util/error.h"
#include "util/log.h"
#include "util/worker_pool.h"

extern char** environ;

namespace gb::dist {

using Clock = std::chrono::steady_clock;

std::string WorkerExit::describe() const {
  return describe_exit(exit_code, signal) +
         (signal != 0 && terminated_by_launcher ? " from the launcher" : "");
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

#if GB_HAVE_GLOO

namespace {

// Marks the runs rank 0 (pid) was running as failed, naming the cause.
std::vector<int64_t> mark_rank0_runs(const std::string& db_path, int64_t pid,
                                     const std::string& why) {
  std::vector<int64_t> marked;
  try {
    store::Store s = store::Store::open(db_path);
    store::RunFilter f;
    f.statuses = {store::RunStatus::Running};
    const std::string host = host_name();
    for (const auto& r : s.list_runs(f)) {
      if (r.worker_pid.value_or(0) != pid || r.worker_host != host) continue;
      s.set_status(r.id, store::RunStatus::Failed, why);
      marked.push_back(r.id);
    }
  } catch (const std::exception& e) {
    log::get("dist")->error("launcher: could not mark rank 0's runs failed in {}: {}", db_path,
                            e.what());
  }
  return marked;
}

}  // namespace

LaunchResult launch_local(const LaunchOptions& o) {
  if (o.nproc < 1) fail("--nproc-per-node must be at least 1 (got {})", o.nproc);
  auto log = log::get("dist");
  // The agent store: every worker connects to it as a client.
  c10d::TCPStoreOptions so;
  so.port = 0;
  so.isServer = true;
  so.waitWorkers = false;
  so.timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  c10::intrusive_ptr<c10d::TCPStore> server;
  try {
    server = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
  } catch (const std::exception& e) {
    fail("could not start the rendezvous store on a free local port: {}", e.what());
  }
  const std::string prefix = "/worker/attempt_0";
  auto store = c10::make_intrusive<c10d::PrefixStore>(prefix, server);
  const int port = server->getPort();
  const std::string host = host_name();
  log->info("launcher: {} workers, rendezvous on 127.0.0.1:{}", o.nproc, port);

  // Everything the children need is built before fork (only exec follows it).
  std::vector<std::string> base_env;
  static const char* kOwn[] = {env::kRank,           env::kWorldSize,  env::kLocalRank,
                               env::kLocalWorldSize, env::kMasterAddr, env::kMasterPort,
                               env::kRestartCount,   env::kAgentStore, env::kLaunched};
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    bool own = false;
    for (const char* k : kOwn) own |= kv.rfind(std::string(k) + "=", 0) == 0;
    if (!own) base_env.push_back(kv);
  }
  std::map<pid_t, int64_t> rank_of;
  std::vector<WorkerExit> exits(o.nproc);
  std::vector<bool> alive(o.nproc, false);
  const pid_t parent = getpid();
  for (int64_t r = 0; r < o.nproc; ++r) {
    std::vector<std::string> env = base_env;
    env.push_back(fmt::format("{}={}", env::kRank, r));
    env.push_back(fmt::format("{}={}", env::kWorldSize, o.nproc));
    env.push_back(fmt::format("{}={}", env::kLocalRank, r));
    env.push_back(fmt::format("{}={}", env::kLocalWorldSize, o.nproc));
    env.push_back(fmt::format("{}=127.0.0.1", env::kMasterAddr));
    env.push_back(fmt::format("{}={}", env::kMasterPort, port));
    env.push_back(fmt::format("{}=0", env::kRestartCount));
    env.push_back(fmt::format("{}=True", env::kAgentStore));
    env.push_back(fmt::format("{}=1", env::kLaunched));
    std::vector<char*> envp, argv;
    for (auto& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string program = o.program;
    argv.push_back(program.data());
    std::vector<std::string> args = o.args;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      for (const auto& [p, rr] : rank_of) ::kill(p, SIGKILL);
      fail("could not start worker {}: fork failed: {}", r, std::strerror(errno));
    }
    if (pid == 0) {
      // A worker dies with its launcher; none is left waiting.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      execve(program.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    rank_of[pid] = r;
    exits[r].rank = r;
    exits[r].pid = pid;
    alive[r] = true;
  }

  LaunchResult result;
  bool forwarded_cancel = false;
  std::optional<Clock::time_point> first_failure, rank0_gone, sent_term;
  auto running = [&] {
    int64_t n = 0;
    for (bool a : alive) n += a ? 1 : 0;
    return n;
  };
  auto signal_all = [&](int sig, bool mark) {
    for (int64_t r = 0; r < o.nproc; ++r) {
      if (!alive[r]) continue;
      ::kill(static_cast<pid_t>(exits[r].pid), sig);
      if (mark) exits[r].terminated_by_launcher = true;
    }
  };
  while (running() > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && rank_of.count(pid)) {
      const int64_t r = rank_of[pid];
      WorkerExit& w = exits[r];
      alive[r] = false;
      if (WIFEXITED(status)) w.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) w.signal = WTERMSIG(status);
      const bool failed = w.signal != 0 || (w.exit_code != 0 && w.exit_code != 130);
      if (failed && !w.terminated_by_launcher) {
        const std::string cause = fmt::format("{} (pid {})", w.describe(), w.pid);
        log->error("launcher: rank {} on {} {}", r, host, cause);
        if (result.failure.empty())
          result.failure = fmt::format("rank {} on {} {}", r, host, cause);
        try {
          // The worker's own notice, when it left one, says more.
          if (!store->check({failure_key(r)})) {
            const std::string v = cause;
            store->set(failure_key(r), std::vector<uint8_t>(v.begin(), v.end()));
          }
        } catch (...) {
        }
        if (!first_failure) first_failure = Clock::now();
      }
      if (r == 0) {
        rank0_gone = Clock::now();
        if (w.signal != 0) {
          result.rank0_died = true;
          result.runs_marked_failed = mark_rank0_runs(
              o.db_path, w.pid, fmt::format("rank 0 on {} {} (pid {})", host, w.describe(), w.pid));
        }
      }
      continue;
    }
    if (o.cancel.cancelled() && !forwarded_cancel) {
      forwarded_cancel = true;
      signal_all(SIGTERM, false);  // the workers cancel cleanly (rank 0 checkpoints)
    }
    const auto now = Clock::now();
    // Rank 0 ended: the others have nothing left to do with it.
    const bool done0 = rank0_gone && now - *rank0_gone > std::chrono::seconds(5);
    // A worker failed: rank 0 gets the timeout (a hung peer) and some to record it.
    const bool overdue =
        first_failure && now - *first_failure > std::chrono::duration<double>(o.timeout_s + 30.0);
    if ((done0 || overdue) && !sent_term) {
      log->warn("launcher: ending {} remaining worker(s)", running());
      signal_all(SIGTERM, true);
      signal_all(SIGCONT, false);
      sent_term = now;
    } else if (sent_term && now - *sent_term > std::chrono::seconds(10)) {
      signal_all(SIGKILL, true);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Rank 0 ended by the launcher (it never returned from a hung collective).
  if (exits[0].terminated_by_launcher && exits[0].signal != 0 && !result.rank0_died) {
    result.rank0_died = true;
    const std::string why =
        result.failure.empty() ? "rank 0 did not end after its peers failed" : result.failure;
    result.runs_marked_failed = mark_rank0_runs(o.db_path, exits[0].pid, why);
  }
  result.workers = exits;
  if (result.rank0_died) {
    result.exit_code = result.runs_marked_failed.empty() ? 1 : 3;
  } else {
    result.exit_code = exits[0].exit_code;
    if (result.exit_code == 0 && !result.failure.empty()) {
      log->warn("launcher: rank 0 finished, but {}", result.failure);
    }
  }
  return result;
}

#else

LaunchResult launch_local(const LaunchOptions&) {
  fail("--nproc-per-node: distributed runs are unavailable: {}", unavailable_reason());
}

#endif

}  // namespace gb::dist
