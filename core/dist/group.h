#pragma once
// A data-parallel process group on LibTorch's c10d: the rendezvous store (c10d::TCPStore,
// under torchrun's agent-store prefix when there is one) and a ProcessGroupGloo (CPU) or
// ProcessGroupNCCL (CUDA, LibTorch builds with NCCL). Every collective has the group's
// timeout; a failed collective throws PeerError whose message names the rank, its host and
// the cause, as far as the group can find out: a failure notice in the store (written by a
// rank that failed, or by the local launcher when a worker died), else the ranks whose
// heartbeat stopped, else the transport's message.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dist/world.h"
#include "util/error.h"

namespace gb::dist {

// A collective failed because a peer died, hung or left.
class PeerError : public Error {
 public:
  explicit PeerError(const std::string& message) : Error(message) {}
};

struct GroupOptions {
  std::string backend = "auto";  // auto (gloo on CPU, nccl on CUDA where built), gloo, nccl
  // The run's device ("cpu", "cuda", "cuda:1"): under "auto" it picks the backend, and on
  // CUDA the device of the collectives' own tensors. Empty on a rank that does not know it
  // (a follower resuming a run: the run's spec is in rank 0's store): rank 0's is used.
  std::string device;
  double timeout_s = 300;  // rendezvous and every collective
  // Compared across ranks at startup: a mismatch is an error naming the ranks.
  std::string spec_hash;
};

class Group {
 public:
  // Joins the world: connects to (or, as rank 0 without an agent store, hosts) the store,
  // checks the spec hash and creates the process group. Throws gb::Error with a clear
  // message for a port in use, an unreachable master, a timeout or mismatched specs.
  static std::shared_ptr<Group> join(const WorldInfo& world, const GroupOptions& options);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  const WorldInfo& world() const;
  int64_t rank() const { return world().rank; }
  int64_t world_size() const { return world().world_size; }
  bool leader() const { return rank() == 0; }
  const std::string& backend() const;
  // The run's device as rank 0 gave it, and the CUDA device index of this rank's collectives
  // (-1 on CPU).
  const std::string& device() const;
  int64_t cuda_device() const;
  const std::vector<std::string>& hosts() const;  // by rank
  double timeout_s() const;

  // Collectives, in place; every rank must call them in the same order.
  void all_reduce_sum(std::vector<torch::Tensor>& tensors);  // one collective per tensor
  std::vector<double> all_reduce_sum(const std::vector<double>& values);
  void broadcast(std::vector<torch::Tensor>& tensors, int64_t root = 0);
  double broadcast(double value, int64_t root = 0);
  void barrier();

  // Small values through the rendezvous store. `wait_get` waits up to `timeout_s`.
  void store_set(const std::string& key, const std::string& value);
  std::string store_get(const std::string& key, double timeout_s);

  // Leaves a notice that this rank failed (the cause), for the ranks that find their
  // collectives failing. Never throws.
  void report_failure(const std::string& cause) noexcept;

  // Time and bytes spent in all_reduce_sum of tensors since the group was made.
  double all_reduce_seconds() const;
  int64_t all_reduce_bytes() const;

  struct Impl;

 private:
  explicit Group(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m;
};

// The store key a failure notice of `rank` goes to (the local launcher writes it too).
std::string failure_key(int64_t rank);

// This machine's host name.
std::string host_name();

}  // namespace gb::dist
