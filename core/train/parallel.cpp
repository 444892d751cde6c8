#include "train/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <ATen/ThreadLocalState.h>

namespace gb::train {

std::vector<size_t> cost_blocks(const std::vector<int64_t>& costs, int64_t threads) {
  const size_t n = costs.size();
  const size_t blocks = static_cast<size_t>(std::max<int64_t>(1, threads));
  int64_t total = 0;
  for (int64_t c : costs) total += std::max<int64_t>(0, c);
  std::vector<size_t> bounds = {0};
  size_t i = 0;
  int64_t done = 0;
  for (size_t b = 1; b < blocks; ++b) {
    // Block b ends where the running cost first reaches b/blocks of the total, leaving at
    // least one item for every block still to come.
    const double target =
        static_cast<double>(total) * static_cast<double>(b) / static_cast<double>(blocks);
    const size_t leave = blocks - b;
    while (i + leave < n && (i == bounds.back() || static_cast<double>(done) < target)) {
      done += std::max<int64_t>(0, costs[i]);
      ++i;
    }
    bounds.push_back(std::max(i, bounds.back()));
  }
  bounds.push_back(n);
  return bounds;
}

namespace {

thread_local bool t_in_pool_worker = false;

// Worker threads kept for the life of the process: a thread created for every call starts
// cold (its allocator arena grows and faults in pages again, LibTorch's per-thread state is
// set up again), which measured about 10 % slower than the calling thread on the same block.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool();  // never destroyed: workers may outlive static destructors
    return *pool;
  }

  // Runs block(b) for b in [0, blocks): 0 here, the others on the workers (this thread takes
  // any a worker could not be started for). False (nothing run) when the pool is busy with
  // another caller, or in a forked child, which has none of the parent's threads.
  bool run(size_t blocks, const std::function<void(size_t)>& block) {
    if (::getpid() != m_pid || t_in_pool_worker) return false;
    std::unique_lock<std::mutex> caller(m_caller, std::try_to_lock);
    if (!caller.owns_lock()) return false;
    const size_t wanted = blocks - 1;
    while (m_workers.size() < wanted) {
      try {
        m_workers.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;
      }
    }
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_block = &block;
      m_next = 1;
      m_total = blocks;
      m_pending = blocks - 1;
      ++m_generation;
    }
    m_wake.notify_all();
    block(0);
    // Help with what no worker took yet, then wait for the rest.
    for (;;) {
      size_t b;
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_next >= m_total) break;
        b = m_next++;
      }
      block(b);
      finish_one();
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_done.wait(lock, [this] { return m_pending == 0; });
    m_block = nullptr;
    return true;
  }

 private:
  Pool() : m_pid(::getpid()) {}

  void finish_one() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (--m_pending == 0) m_done.notify_all();
  }

  void work() {
    t_in_pool_worker = true;
    uint64_t seen = 0;
    for (;;) {
      size_t b;
      const std::function<void(size_t)>* block;
      {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_wake.wait(lock, [&] { return m_generation != seen && m_next < m_total; });
        b = m_next++;
        block = m_block;
        if (m_next >= m_total) seen = m_generation;
      }
      (*block)(b);
      finish_one();
    }
  }

  const pid_t m_pid;
  std::mutex m_caller;  // one caller at a time
  std::mutex m_mutex;
  std::condition_variable m_wake, m_done;
  std::vector<std::thread> m_workers;
  const std::function<void(size_t)>* m_block = nullptr;
  size_t m_next = 0, m_total = 0, m_pending = 0;
  uint64_t m_generation = 0;
};

}  // namespace

void parallel_items(const std::vector<int64_t>& costs, int64_t threads,
                    const std::function<void(size_t)>& fn) {
  const size_t n = costs.size();
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  const std::vector<size_t> bounds =
      cost_blocks(costs, std::min<int64_t>(threads, static_cast<int64_t>(n)));
  const size_t blocks = bounds.size() - 1;
  std::vector<std::exception_ptr> errors(blocks);
  const at::ThreadLocalState state;
  const std::function<void(size_t)> block = [&](size_t b) {
    at::ThreadLocalStateGuard guard(state);
    try {
      for (size_t i = bounds[b]; i < bounds[b + 1]; ++i) fn(i);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  };
  if (!Pool::get().run(blocks, block)) {
    for (size_t b = 0; b < blocks; ++b) block(b);
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace gb::train
