#include "train/parallel.h"

#include <algorithm>
#include <exception>
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
  auto run = [&](size_t b) {
    at::ThreadLocalStateGuard guard(state);
    try {
      for (size_t i = bounds[b]; i < bounds[b + 1]; ++i) fn(i);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::vector<size_t> here = {0};  // blocks this thread runs (any a thread could not start for)
  pool.reserve(blocks - 1);
  for (size_t b = 1; b < blocks; ++b) {
    try {
      pool.emplace_back(run, b);
    } catch (const std::system_error&) {
      here.push_back(b);
    }
  }
  for (size_t b : here) run(b);
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace gb::train
