#pragma once
// Where a worker process stands in a data-parallel world, read from its environment: the
// variables torchrun exports (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT, TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_USE_AGENT_STORE), the ones `srun`
// exports (SLURM_PROCID, SLURM_STEP_NUM_TASKS or SLURM_NTASKS, SLURM_LOCALID, the job's node
// list), or none (one process). `growbench-cli run --nproc-per-node N` starts its workers
// with torchrun's variables and hosts their rendezvous store itself, as torchrun's agent does.
// No LibTorch here: this header is also what the command line and the GUI may use.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gb::dist {

// Whether this build can run data-parallel (LibTorch's c10d with Gloo), and why not.
bool available();
std::string unavailable_reason();
// Whether this build has NCCL (LibTorch built with CUDA and c10d NCCL).
bool nccl_available();

struct WorldInfo {
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t local_rank = 0;
  int64_t local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int64_t master_port = 29500;
  // Every rank connects to an existing store (torchrun's agent, or the local launcher) under
  // this prefix; false: rank 0 hosts the rendezvous store at master_addr:master_port.
  bool agent_store = false;
  std::string store_prefix;  // "/worker/attempt_<restart count>" with an agent store
  // "single", "torchrun", "launcher" (--nproc-per-node), "slurm", "env" (RANK, WORLD_SIZE,
  // MASTER_ADDR and MASTER_PORT set by hand or by another launcher)
  std::string launcher;
  bool distributed() const { return world_size > 1; }
};

// Reads the world from environment variables (`getenv`; tests pass their own lookup).
// Throws gb::Error with the variable's name on malformed or inconsistent values.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
WorldInfo detect_world(const EnvLookup& env);
WorldInfo detect_world();  // from the process environment

// The CUDA device of a process (`local_rank` of `local_world_size` processes on its machine,
// which shows it `visible` devices): its local rank when there are at least as many devices
// as local processes (torchrun, --nproc-per-node, srun with every GPU visible to every
// task); device 0 when it sees exactly one (srun --gpus-per-task=1 and other bindings that
// give each process its own device). Anything else is an error naming the counts.
int64_t cuda_device_index(int64_t local_rank, int64_t local_world_size, int64_t visible);

// The CUDA device index of a rank for the run's device: N for "cuda:N" (the spec names it),
// else cuda_device_index over the devices this process sees.
int64_t rank_cuda_device(const std::string& device, const WorldInfo& world, int64_t visible);

// This node's entry of Slurm's compressed tasks-per-node list ("4(x2)", "2,1", "3(x2),1"),
// the node being `node` (SLURM_NODEID, 0-based). Throws gb::Error naming the list when it is
// malformed or shorter than `node` + 1 entries.
int64_t slurm_tasks_on_node(const std::string& list, int64_t node);

// The first host of a Slurm host list ("node[03-05,9],gpu1" -> "node03").
std::string first_slurm_host(const std::string& nodelist);

// Environment variable names the local launcher sets for its workers (torchrun's).
namespace env {
inline constexpr char kRank[] = "RANK";
inline constexpr char kWorldSize[] = "WORLD_SIZE";
inline constexpr char kLocalRank[] = "LOCAL_RANK";
inline constexpr char kLocalWorldSize[] = "LOCAL_WORLD_SIZE";
inline constexpr char kMasterAddr[] = "MASTER_ADDR";
inline constexpr char kMasterPort[] = "MASTER_PORT";
inline constexpr char kRestartCount[] = "TORCHELASTIC_RESTART_COUNT";
inline constexpr char kAgentStore[] = "TORCHELASTIC_USE_AGENT_STORE";
// Set by `--nproc-per-node` for its workers (so that they do not launch again).
inline constexpr char kLaunched[] = "GROWBENCH_DIST_LAUNCHED";
}  // namespace env

}  // namespace gb::dist
