#pragma once
// Work over a list of items (the trainable tensors, the row blocks of a batch) spread over a
// few threads. Every item is handled whole by one thread, so a result never depends on the
// number of threads; the calling thread's LibTorch thread-local state (grad mode, the
// profiler, ...) holds in every thread it starts.

#include <cstdint>
#include <functional>
#include <vector>

namespace gb::train {

// Calls fn(i) for every i in [0, costs.size()) on up to `threads` threads at once (this one
// among them): the items in contiguous blocks of about equal total cost, one block a
// thread. With threads <= 1 or a single item, in order on this thread. The first exception
// an item throws is rethrown here once every thread has finished.
void parallel_items(const std::vector<int64_t>& costs, int64_t threads,
                    const std::function<void(size_t)>& fn);

// The blocks parallel_items gives each thread: `threads` + 1 boundaries (begin of every
// block, then costs.size()), blocks of about equal cost, none empty unless items are fewer
// than threads.
std::vector<size_t> cost_blocks(const std::vector<int64_t>& costs, int64_t threads);

}  // namespace gb::train
