#include "util/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

extern char** environ;

namespace gb {

std::string describe_exit(int exit_code, int signal) {
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

namespace {

struct Running {
  size_t task = 0;
  pid_t pid = -1;
  int fd = -1;  // read end of the worker's stdout
  std::string pending;
  bool exited = false;
  int status = 0;
};

// Starts `program args` with stdout into a new pipe; returns the pid and the read end.
Running start(size_t task, const std::string& program, const std::string& argv0,
              const std::vector<std::string>& args, int cancel_signal) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    fail("could not start a worker: pipe failed: {}", std::strerror(errno));
  }
  // Everything the child needs is built before fork (only exec follows it).
  std::vector<std::string> argv_s;
  argv_s.push_back(argv0.empty() ? program : argv0);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  // The cancel signals stay blocked from before fork until the worker's own handlers are
  // in place (exec keeps the mask): none reaches the pool's handler in the child, or the
  // default action between exec and the worker's handlers.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, cancel_signal}) sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, &old);
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    sigprocmask(SIG_SETMASK, &old, nullptr);
    close(fds[0]);
    close(fds[1]);
    fail("could not start a worker: fork failed: {}", std::strerror(e));
  }
  if (pid == 0) {
    // Its own process group: a Ctrl-C at the terminal reaches the pool alone, which
    // forwards one cancel.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (dup2(fds[1], STDOUT_FILENO) < 0) _exit(127);
    signal(SIGPIPE, SIG_DFL);
    execve(program.c_str(), argv.data(), environ);
    _exit(127);
  }
  setpgid(pid, pid);  // both sides: whichever runs first
  sigprocmask(SIG_SETMASK, &old, nullptr);
  close(fds[1]);
  Running r;
  r.task = task;
  r.pid = pid;
  r.fd = fds[0];
  return r;
}

}  // namespace

PoolResult run_worker_pool(size_t tasks, const WorkerPoolOptions& o) {
  if (o.jobs < 1) fail("--jobs must be at least 1 (got {})", o.jobs);
  PoolResult result;
  std::vector<PoolExit>& exits = result.exits;
  exits.resize(tasks);
  std::vector<Running> running;
  size_t next = 0;
  bool forwarded = false;
  auto stopping = [&] { return o.cancel.cancelled() || !result.error.empty(); };
  auto deliver = [&](Running& r, bool flush) {
    size_t start = 0;
    for (size_t nl; (nl = r.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (o.on_line) o.on_line(r.task, r.pending.substr(start, nl - start));
    }
    r.pending.erase(0, start);
    if (flush && !r.pending.empty()) {
      if (o.on_line) o.on_line(r.task, r.pending);
      r.pending.clear();
    }
  };
  while (next < tasks || !running.empty()) {
    while (!stopping() && next < tasks && static_cast<int64_t>(running.size()) < o.jobs) {
      const size_t task = next;
      try {
        running.push_back(start(task, o.program, o.argv0,
                                o.args ? o.args(task) : std::vector<std::string>{},
                                o.cancel_signal));
      } catch (const std::exception& e) {
        result.error = e.what();
        break;
      }
      ++next;
      exits[task].started = true;
      exits[task].pid = running.back().pid;
      if (o.on_start) o.on_start(task, running.back().pid);
    }
    if (stopping()) {
      next = tasks;  // nothing more starts
      if (!forwarded) {
        forwarded = true;
        for (auto& r : running) {
          if (!r.exited) ::kill(r.pid, o.cancel_signal);
        }
      }
    }
    if (running.empty()) break;
    std::vector<pollfd> pfds;
    for (const auto& r : running) pfds.push_back({r.fd, static_cast<short>(POLLIN), 0});
    const int n = ::poll(pfds.data(), pfds.size(), 100);
    for (size_t i = 0; n > 0 && i < running.size(); ++i) {
      Running& r = running[i];
      if (r.fd < 0 || !(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t got = ::read(r.fd, buf, sizeof buf);
      if (got > 0) {
        r.pending.append(buf, static_cast<size_t>(got));
        deliver(r, false);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(r.fd);
        r.fd = -1;
        deliver(r, true);
      }
    }
    for (auto& r : running) {
      if (r.exited) continue;
      int status = 0;
      if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
        r.exited = true;
        r.status = status;
      }
    }
    // A worker is done when it exited and its output is read to the end (a grandchild
    // holding the pipe open cannot keep the pool waiting: the drain gives up after 2 s).
    for (auto it = running.begin(); it != running.end();) {
      if (it->exited && it->fd >= 0) {
        pollfd p{it->fd, POLLIN, 0};
        for (;;) {
          const int ready = ::poll(&p, 1, 2000);
          if (ready < 0 && errno == EINTR) continue;
          if (ready <= 0) break;
          char buf[65536];
          const ssize_t got = ::read(it->fd, buf, sizeof buf);
          if (got < 0 && errno == EINTR) continue;
          if (got <= 0) break;
          it->pending.append(buf, static_cast<size_t>(got));
        }
        close(it->fd);
        it->fd = -1;
        deliver(*it, true);
      }
      if (it->exited && it->fd < 0) {
        PoolExit& e = exits[it->task];
        if (WIFEXITED(it->status)) e.exit_code = WEXITSTATUS(it->status);
        if (WIFSIGNALED(it->status)) e.signal = WTERMSIG(it->status);
        it = running.erase(it);
      } else {
        ++it;
      }
    }
  }
  return result;
}

}  // namespace gb
