#include "dist/world.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "dist/dist_config.h"
#include "util/error.h"

namespace gb::dist {

bool available() {
  return GB_HAVE_GLOO != 0;
}

std::string unavailable_reason() {
  if (available()) return {};
  return "this build of GrowBench has no distributed support (LibTorch's c10d with Gloo was "
         "not found at configure time: install libgloo-dev, as scripts/setup.sh does, and "
         "configure again)";
}

bool nccl_available() {
  return GB_HAVE_NCCL != 0;
}

namespace {

int64_t parse_int(const std::string& name, const std::string& value, int64_t lo, int64_t hi) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || v < lo || v > hi) {
    fail("environment variable {}='{}' is not an integer in [{}, {}]", name, value, lo, hi);
  }
  return v;
}

std::optional<int64_t> get_int(const EnvLookup& env, const std::string& name, int64_t lo,
                               int64_t hi) {
  auto v = env(name);
  if (!v || v->empty()) return std::nullopt;
  return parse_int(name, *v, lo, hi);
}

constexpr int64_t kMaxWorld = 1 << 20;

}  // namespace

int64_t cuda_device_index(int64_t local_rank, int64_t local_world_size, int64_t visible) {
  if (visible <= 0) {
    fail("data-parallel on CUDA: this process (local rank {}) sees no CUDA device", local_rank);
  }
  if (visible >= local_world_size) return local_rank;
  if (visible == 1) return 0;
  fail(
      "data-parallel on CUDA: {} processes on this machine share {} visible CUDA devices; give "
      "each process its own device (srun --gpus-per-task=1) or make at least {} devices visible "
      "to every process",
      local_world_size, visible, local_world_size);
}

int64_t rank_cuda_device(const std::string& device, const WorldInfo& world, int64_t visible) {
  const auto colon = device.find(':');
  if (colon != std::string::npos) {
    return parse_int("the device index of '" + device + "'", device.substr(colon + 1), 0, 1 << 16);
  }
  return cuda_device_index(world.local_rank, world.local_world_size, visible);
}

int64_t slurm_tasks_on_node(const std::string& list, int64_t node) {
  auto bad = [&](const std::string& why) -> int64_t {
    fail("SLURM_STEP_TASKS_PER_NODE='{}' {}", list, why);
  };
  // Digits only, at most 7 of them (the world is at most kMaxWorld processes).
  auto number = [&](const std::string& text) -> int64_t {
    if (text.empty() || text.size() > 7 ||
        !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return bad("is not a tasks-per-node list (such as 4(x2) or 2,1)");
    }
    const int64_t v = std::stoll(text);
    if (v < 1 || v > kMaxWorld) return bad("has an entry outside 1.." + std::to_string(kMaxWorld));
    return v;
  };
  int64_t index = 0;
  size_t pos = 0;
  while (true) {
    const size_t end = std::min(list.find(',', pos), list.size());
    const std::string entry = list.substr(pos, end - pos);
    const auto paren = entry.find("(x");
    int64_t tasks = 0, repeat = 1;
    if (paren == std::string::npos) {
      tasks = number(entry);
    } else {
      if (entry.back() != ')') return bad("is not a tasks-per-node list (such as 4(x2) or 2,1)");
      tasks = number(entry.substr(0, paren));
      repeat = number(entry.substr(paren + 2, entry.size() - paren - 3));
    }
    if (node < index + repeat) return tasks;
    index += repeat;
    if (end == list.size()) break;
    pos = end + 1;
  }
  return bad(fmt::format("has {} node(s); SLURM_NODEID is {}", index, node));
}

std::string first_slurm_host(const std::string& nodelist) {
  // The first entry up to a top-level comma; a bracket expands to its first number.
  std::string prefix;
  size_t i = 0;
  while (i < nodelist.size() && nodelist[i] != ',' && nodelist[i] != '[') prefix += nodelist[i++];
  if (i < nodelist.size() && nodelist[i] == '[') {
    ++i;
    std::string first;
    while (i < nodelist.size() && std::isdigit(static_cast<unsigned char>(nodelist[i]))) {
      first += nodelist[i++];
    }
    if (first.empty()) fail("Slurm node list '{}': no number after '['", nodelist);
    prefix += first;
    // A suffix after the bracket ("n[1-2]-ib") belongs to the name too.
    while (i < nodelist.size() && nodelist[i] != ']') ++i;
    if (i < nodelist.size()) ++i;
    while (i < nodelist.size() && nodelist[i] != ',' && nodelist[i] != '[') {
      prefix += nodelist[i++];
    }
  }
  if (prefix.empty()) fail("Slurm node list '{}' names no host", nodelist);
  return prefix;
}

WorldInfo detect_world(const EnvLookup& env) {
  WorldInfo w;
  auto rank = get_int(env, env::kRank, 0, kMaxWorld);
  auto world = get_int(env, env::kWorldSize, 1, kMaxWorld);
  if (rank || world) {
    if (!rank || !world) {
      fail("RANK and WORLD_SIZE must be set together (found only {})",
           rank ? env::kRank : env::kWorldSize);
    }
    w.rank = *rank;
    w.world_size = *world;
    if (w.rank >= w.world_size) {
      fail("RANK={} is not below WORLD_SIZE={}", w.rank, w.world_size);
    }
    w.local_rank = get_int(env, env::kLocalRank, 0, kMaxWorld).value_or(w.rank);
    w.local_world_size = get_int(env, env::kLocalWorldSize, 1, kMaxWorld).value_or(w.world_size);
    if (auto a = env(env::kMasterAddr); a && !a->empty()) {
      w.master_addr = *a;
    } else if (w.world_size > 1) {
      fail("WORLD_SIZE={} but MASTER_ADDR is not set (the address of rank 0)", w.world_size);
    }
    if (auto p = get_int(env, env::kMasterPort, 1, 65535)) {
      w.master_port = *p;
    } else if (w.world_size > 1) {
      fail("WORLD_SIZE={} but MASTER_PORT is not set (the rendezvous port of rank 0)",
           w.world_size);
    }
    auto agent = env(env::kAgentStore);
    w.agent_store = agent && (*agent == "True" || *agent == "true" || *agent == "1");
    const int64_t restart = get_int(env, env::kRestartCount, 0, kMaxWorld).value_or(0);
    if (w.agent_store) w.store_prefix = "/worker/attempt_" + std::to_string(restart);
    auto launched = env(env::kLaunched);
    if (launched && !launched->empty()) {
      w.launcher = "launcher";
    } else {
      w.launcher = env(env::kRestartCount) ? "torchrun" : "env";
    }
    return w;
  }
  // srun exports SLURM_STEP_NUM_TASKS only inside a job step; a batch script itself (one
  // process, SLURM_NTASKS tasks allocated) is a single process.
  auto procid = get_int(env, "SLURM_PROCID", 0, kMaxWorld);
  auto ntasks = get_int(env, "SLURM_STEP_NUM_TASKS", 1, kMaxWorld);
  if (procid && ntasks && *ntasks > 1) {
    w.rank = *procid;
    w.world_size = *ntasks;
    if (w.rank >= w.world_size) {
      fail("SLURM_PROCID={} is not below SLURM_STEP_NUM_TASKS={}", w.rank, w.world_size);
    }
    w.local_rank = get_int(env, "SLURM_LOCALID", 0, kMaxWorld).value_or(0);
    w.local_world_size = w.world_size;
    // Compressed per node: "4(x2)" for 4 tasks on each of 2 nodes, "2,1" for uneven ones.
    if (auto list = env("SLURM_STEP_TASKS_PER_NODE"); list && !list->empty()) {
      const int64_t node = get_int(env, "SLURM_NODEID", 0, kMaxWorld).value_or(0);
      w.local_world_size = slurm_tasks_on_node(*list, node);
    }
    if (auto a = env(env::kMasterAddr); a && !a->empty()) {
      w.master_addr = *a;
    } else {
      auto nodes = env("SLURM_STEP_NODELIST");
      if (!nodes || nodes->empty()) nodes = env("SLURM_JOB_NODELIST");
      if (!nodes || nodes->empty()) {
        fail("srun task {} of {}: neither MASTER_ADDR nor SLURM_JOB_NODELIST is set", w.rank,
             w.world_size);
      }
      w.master_addr = first_slurm_host(*nodes);
    }
    if (auto p = get_int(env, env::kMasterPort, 1, 65535)) {
      w.master_port = *p;
    } else {
      // A port that differs between jobs sharing a node: 29500 + job id mod 1000.
      const int64_t job = get_int(env, "SLURM_JOB_ID", 0, INT64_MAX).value_or(0);
      w.master_port = 29500 + job % 1000;
    }
    w.launcher = "slurm";
    return w;
  }
  w.launcher = "single";
  return w;
}

WorldInfo detect_world() {
  return detect_world([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace gb::dist
