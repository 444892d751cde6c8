#include "dist/group.h"

#include "dist/dist_config.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <torch/torch.h>
#include <torch/version.h>

#if GB_HAVE_GLOO
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if GB_HAVE_NCCL
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#endif

#include "util/log.h"

namespace gb::dist {

using Clock = std::chrono::steady_clock;

std::string failure_key(int64_t rank) {
  return "gb/failed/" + std::to_string(rank);
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

namespace {

std::string to_string(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}
std::vector<uint8_t> to_bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

std::string heartbeat_key(int64_t rank) {
  return "gb/alive/" + std::to_string(rank);
}

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::max(seconds, 0.001) * 1000.0));
}

// The first line of an exception's message (c10 errors append a backtrace).
std::string first_line(const std::exception& e) {
  std::string s;
  if (auto* c = dynamic_cast<const c10::Error*>(&e)) {
    s = c->what_without_backtrace();
  } else {
    s = e.what();
  }
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

#if GB_HAVE_GLOO

// LibTorch 2.x made the backends (Gloo, NCCL) c10d::Backend; in 1.13 they are ProcessGroups.
// Both have the collectives used here with the same signatures.
#if TORCH_VERSION_MAJOR >= 2
using PgBase = c10d::Backend;
#else
using PgBase = c10d::ProcessGroup;
#endif

struct Group::Impl {
  WorldInfo world;
  GroupOptions options;
  std::string backend;
  std::string device;  // the run's, from rank 0
  int64_t cuda_device = -1;
  std::vector<std::string> hosts;
  c10::intrusive_ptr<c10d::Store> store;     // prefixed
  c10::intrusive_ptr<c10d::TCPStore> tcp;    // rank 0's server, or a client
  c10::intrusive_ptr<c10d::Store> hb_store;  // the heartbeat thread's own connection
  c10::intrusive_ptr<PgBase> pg;
  std::thread heartbeat;
  std::mutex hb_mutex;
  std::condition_variable hb_cv;
  bool hb_stop = false;
  double reduce_seconds = 0;
  int64_t reduce_bytes = 0;

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(hb_mutex);
      hb_stop = true;
    }
    hb_cv.notify_all();
    if (heartbeat.joinable()) heartbeat.join();
  }

  std::string who(int64_t r) const {
    const std::string host = r < static_cast<int64_t>(hosts.size()) ? hosts[r] : "?";
    return fmt::format("rank {} on {}", r, host);
  }

  // Why a collective failed: a failure notice, else the ranks whose heartbeat stopped,
  // else the transport's message.
  std::string diagnose(const std::string& op, const std::exception& e) {
    const std::string transport = first_line(e);
    std::string found;
    try {
      // A dying rank's notice (the local launcher writes it after waitpid) may lag the
      // transport's error by a moment.
      const auto until = Clock::now() + std::chrono::seconds(3);
      std::map<int64_t, int64_t> beats;
      for (int64_t r = 0; r < world.world_size; ++r) {
        if (r == world.rank) continue;
        beats[r] = store->add(heartbeat_key(r), 0);
      }
      while (found.empty()) {
        for (int64_t r = 0; r < world.world_size && found.empty(); ++r) {
          if (r == world.rank) continue;
          if (store->check({failure_key(r)})) {
            found = fmt::format("{} failed: {}", who(r), to_string(store->get(failure_key(r))));
          }
        }
        if (!found.empty() || Clock::now() >= until) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (found.empty()) {
        // Heartbeats advance every 0.5 s: a rank whose count did not move in 3 s is gone or
        // stopped.
        std::vector<std::string> silent;
        for (const auto& [r, before] : beats) {
          if (store->add(heartbeat_key(r), 0) == before) silent.push_back(who(r));
        }
        if (!silent.empty()) {
          found =
              fmt::format("{} stopped responding (no heartbeat for 3 s)", fmt::join(silent, ", "));
        }
      }
    } catch (const std::exception& se) {
      // The store itself is gone: it lived in rank 0 (no agent store) or in the launcher.
      found = fmt::format("the rendezvous store at {}:{} is gone ({}), so {} ended",
                          world.master_addr, world.master_port, first_line(se),
                          world.agent_store ? "the launcher" : who(0));
    }
    if (found.empty()) found = "a peer left or timed out";
    return fmt::format("distributed {} failed on {}: {} [{}; timeout {} s]", op, who(world.rank),
                       found, transport, options.timeout_s);
  }

  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* op) {
    try {
      work->wait(ms(options.timeout_s));
    } catch (const std::exception& e) {
      throw PeerError(diagnose(op, e));
    }
  }
};

namespace {

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

c10::intrusive_ptr<c10d::TCPStore> connect_store(const WorldInfo& w, double timeout_s,
                                                 bool server) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(w.master_port);
  so.isServer = server;
  so.numWorkers = c10::nullopt;
  so.waitWorkers = false;
  so.timeout = ms(timeout_s);
  try {
    return c10::make_intrusive<c10d::TCPStore>(w.master_addr, so);
  } catch (const std::exception& e) {
    const std::string msg = first_line(e);
    if (server) {
      if (msg.find("in use") != std::string::npos || msg.find("EADDRINUSE") != std::string::npos) {
        fail(
            "rank 0 could not listen on port {} for the rendezvous: the port is in use (another "
            "run or program); choose a free MASTER_PORT ({})",
            w.master_port, msg);
      }
      fail("rank 0 could not start the rendezvous store on port {}: {}", w.master_port, msg);
    }
    fail(
        "rank {} on {} could not reach the rendezvous store at {}:{} within {} s: check "
        "MASTER_ADDR and MASTER_PORT, that rank 0 is running and that the port is open ({})",
        w.rank, host_name(), w.master_addr, w.master_port, timeout_s, msg);
  }
}

}  // namespace

std::shared_ptr<Group> Group::join(const WorldInfo& world, const GroupOptions& options) {
  if (options.timeout_s <= 0) fail("--dist-timeout must be positive (got {})", options.timeout_s);
  auto impl = std::make_unique<Impl>();
  impl->world = world;
  impl->options = options;
  if (options.backend != "auto" && options.backend != "gloo" && options.backend != "nccl") {
    fail("unknown distributed backend '{}' (auto, gloo or nccl)", options.backend);
  }
  if (options.backend == "nccl" && !nccl_available()) {
    fail(
        "--dist-backend nccl: this build has no NCCL (LibTorch without CUDA, as Debian's); use "
        "gloo");
  }
  if (world.rank == 0 && options.device.empty()) fail("rank 0 must know the run's device");
  auto log = log::get("dist");
  const bool server = !world.agent_store && world.rank == 0;
  impl->tcp = connect_store(world, options.timeout_s, server);
  if (world.agent_store) {
    impl->store = c10::make_intrusive<c10d::PrefixStore>(world.store_prefix, impl->tcp);
  } else {
    impl->store = impl->tcp;
  }
  auto store = impl->store;
  // The run's device, as rank 0 knows it (a resuming follower has no spec to read it from).
  if (world.rank == 0) {
    store->set("gb/device", to_bytes(options.device));
    impl->device = options.device;
  } else {
    try {
      store->wait({"gb/device"}, ms(options.timeout_s));
    } catch (const std::exception& e) {
      fail("rank {} on {}: rank 0 did not join within {} s ({})", world.rank, host_name(),
           options.timeout_s, first_line(e));
    }
    const auto bytes = store->get("gb/device");
    impl->device = std::string(bytes.begin(), bytes.end());
  }
  // This rank's backend and CUDA device. A problem here (no such device on this machine)
  // is published with the spec hash below, so that every rank stops naming this one instead
  // of waiting for it until the timeout.
  std::string setup_error;
  try {
    const bool cuda = impl->device.rfind("cuda", 0) == 0;
    std::string backend = options.backend;
    if (backend == "auto") backend = cuda && nccl_available() ? "nccl" : "gloo";
    if (backend == "nccl" && !cuda) {
      fail("--dist-backend nccl needs a CUDA device (the run's device is '{}')", impl->device);
    }
    impl->backend = backend;
    if (cuda) {
      impl->cuda_device =
          rank_cuda_device(impl->device, world, static_cast<int64_t>(torch::cuda::device_count()));
    }
  } catch (const std::exception& e) {
    setup_error = first_line(e);
    if (setup_error.empty()) setup_error = "setup failed";
  }
  const std::string me = host_name();
  // Who is who, and the same spec everywhere.
  store->set("gb/host/" + std::to_string(world.rank), to_bytes(me));
  store->set("gb/spec/" + std::to_string(world.rank), to_bytes(options.spec_hash));
  store->set("gb/setup/" + std::to_string(world.rank), to_bytes(setup_error));
  std::vector<std::string> specs, setups;
  for (int64_t r = 0; r < world.world_size; ++r) {
    const std::string hk = "gb/host/" + std::to_string(r);
    try {
      store->wait({hk}, ms(options.timeout_s));
    } catch (const std::exception& e) {
      fail(
          "rank {} on {}: rank {} did not join within {} s (WORLD_SIZE={}: are all {} processes "
          "started, with the same MASTER_ADDR and MASTER_PORT?) ({})",
          world.rank, me, r, options.timeout_s, world.world_size, world.world_size, first_line(e));
    }
    impl->hosts.push_back(to_string(store->get(hk)));
    specs.push_back(to_string(store->get("gb/spec/" + std::to_string(r))));
    setups.push_back(to_string(store->get("gb/setup/" + std::to_string(r))));
  }
  {
    // Every rank has read the others before any can leave (rank 0 may host the store).
    // Two counters: "read" says everyone has read, "left" that everyone has stopped polling
    // "read". Rank 0 waits for "left" so that a store it hosts outlives the last poll (a
    // rank that fails next, say on mismatched specs, must not close it under the others).
    const auto until = Clock::now() + ms(options.timeout_s);
    auto wait_for = [&](const std::string& key, int64_t n) {
      while (n < world.world_size) {
        if (Clock::now() > until) {
          fail("rank {} on {}: not every rank read the rendezvous within {} s", world.rank, me,
               options.timeout_s);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        n = store->add(key, 0);
      }
    };
    wait_for("gb/read", store->add("gb/read", 1));
    const int64_t left = store->add("gb/left", 1);
    if (world.rank == 0) wait_for("gb/left", left);
  }
  for (int64_t r = 0; r < world.world_size; ++r) {
    if (!setups[r].empty()) {
      fail("rank {} on {} cannot take part: {}", r, impl->hosts[r], setups[r]);
    }
  }
  for (int64_t r = 1; r < world.world_size; ++r) {
    if (specs[r] != specs[0]) {
      fail(
          "the ranks run different experiments: rank 0 on {} has spec hash {}, rank {} on {} has "
          "{}; start every rank with the same SPEC.json (or --resume RUN_ID) and options",
          impl->hosts[0], specs[0], r, impl->hosts[r], specs[r]);
    }
  }
  // Heartbeats on a connection of their own (the main one may be inside a long wait).
  if (world.agent_store) {
    impl->hb_store = c10::make_intrusive<c10d::PrefixStore>(
        world.store_prefix, connect_store(world, options.timeout_s, false));
  } else {
    impl->hb_store = connect_store(world, options.timeout_s, false);
  }
  {
    Impl* self = impl.get();
    self->heartbeat = std::thread([self] {
      std::unique_lock<std::mutex> lock(self->hb_mutex);
      while (!self->hb_stop) {
        try {
          self->hb_store->add(heartbeat_key(self->world.rank), 1);
        } catch (...) {
          return;  // the store is gone: the main thread finds out at its next collective
        }
        self->hb_cv.wait_for(lock, std::chrono::milliseconds(500));
      }
    });
  }
  const auto timeout = ms(options.timeout_s);
  try {
    if (impl->backend == "gloo") {
      auto o = c10d::ProcessGroupGloo::Options::create(timeout);
      if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
        o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      } else if (is_loopback(world.master_addr)) {
        o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      impl->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(
          c10::make_intrusive<c10d::PrefixStore>("gloo", store), static_cast<int>(world.rank),
          static_cast<int>(world.world_size), o);
    } else {
#if GB_HAVE_NCCL
      auto o = c10d::ProcessGroupNCCL::Options::create();
      o->timeout = timeout;
      impl->pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(
          c10::make_intrusive<c10d::PrefixStore>("nccl", store), static_cast<int>(world.rank),
          static_cast<int>(world.world_size), o);
#endif
    }
  } catch (const std::exception& e) {
    fail("rank {} on {}: could not create the {} process group of {} ranks within {} s: {}",
         world.rank, me, impl->backend, world.world_size, options.timeout_s, first_line(e));
  }
  log->info("rank {} of {} on {} joined ({}, {}, store {}:{}{})", world.rank, world.world_size, me,
            impl->backend, world.launcher, world.master_addr, world.master_port,
            world.agent_store ? " " + world.store_prefix : "");
  auto group = std::shared_ptr<Group>(new Group(std::move(impl)));
  group->barrier();
  return group;
}

Group::Group(std::unique_ptr<Impl> impl) : m(std::move(impl)) {}
Group::~Group() = default;

const WorldInfo& Group::world() const {
  return m->world;
}
const std::string& Group::backend() const {
  return m->backend;
}
const std::string& Group::device() const {
  return m->device;
}
int64_t Group::cuda_device() const {
  return m->cuda_device;
}
const std::vector<std::string>& Group::hosts() const {
  return m->hosts;
}
double Group::timeout_s() const {
  return m->options.timeout_s;
}

void Group::all_reduce_sum(std::vector<torch::Tensor>& tensors) {
  const auto t0 = Clock::now();
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  int64_t bytes = 0;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::SUM;
    o.timeout = ms(m->options.timeout_s);
    works.push_back(m->pg->allreduce(one, o));
    bytes += static_cast<int64_t>(t.numel() * t.element_size());
  }
  for (auto& w : works) m->wait(w, "all-reduce");
  m->reduce_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  m->reduce_bytes += bytes;
}

std::vector<double> Group::all_reduce_sum(const std::vector<double>& values) {
  if (values.empty()) return {};
  auto t = torch::tensor(values, torch::kDouble);
  if (m->backend == "nccl")
    t = t.to(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(m->cuda_device)));
  std::vector<at::Tensor> one{t};
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::SUM;
  m->wait(m->pg->allreduce(one, o), "all-reduce");
  t = one[0].cpu().contiguous();
  return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

void Group::broadcast(std::vector<torch::Tensor>& tensors, int64_t root) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    works.push_back(m->pg->broadcast(one, o));
  }
  for (auto& w : works) m->wait(w, "broadcast");
}

double Group::broadcast(double value, int64_t root) {
  std::vector<torch::Tensor> t{torch::tensor({value}, torch::kDouble)};
  if (m->backend == "nccl")
    t[0] = t[0].to(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(m->cuda_device)));
  broadcast(t, root);
  return t[0].cpu().item<double>();
}

void Group::barrier() {
  c10d::BarrierOptions o;
  o.timeout = ms(m->options.timeout_s);
  // NCCL would otherwise guess the device from the rank (rank % local devices).
  if (m->backend == "nccl") o.device_ids = {m->cuda_device};
  m->wait(m->pg->barrier(o), "barrier");
}

void Group::store_set(const std::string& key, const std::string& value) {
  m->store->set(key, to_bytes(value));
}

std::string Group::store_get(const std::string& key, double timeout_s) {
  // Polls (check, never a blocking wait: a timed-out wait would leave the store's answer to
  // it in the connection) and checks the other ranks in between: a long wait (the followers
  // wait up to hours for rank 0 to prepare) ends as soon as a rank left a failure notice or
  // its heartbeat (every 0.5 s, on a connection of its own) stopped for kSilentS.
  constexpr double kSilentS = 10.0;
  const auto start = Clock::now();
  std::map<int64_t, std::pair<int64_t, Clock::time_point>> beats;  // count, when it moved
  try {
    for (;;) {
      if (m->store->check({key})) return to_string(m->store->get(key));
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - start).count() >= timeout_s) {
        throw PeerError(fmt::format("{} waited {:.0f} s for '{}' in vain (timeout)",
                                    m->who(m->world.rank), timeout_s, key));
      }
      std::vector<std::string> silent;
      for (int64_t r = 0; r < m->world.world_size; ++r) {
        if (r == m->world.rank) continue;
        if (m->store->check({failure_key(r)})) {
          throw PeerError(fmt::format("{} failed while {} waited for '{}': {}", m->who(r),
                                      m->who(m->world.rank), key,
                                      to_string(m->store->get(failure_key(r)))));
        }
        const int64_t count = m->store->add(heartbeat_key(r), 0);
        auto it = beats.find(r);
        if (it == beats.end() || it->second.first != count) {
          beats[r] = {count, now};
        } else if (std::chrono::duration<double>(now - it->second.second).count() >= kSilentS) {
          silent.push_back(m->who(r));
        }
      }
      if (!silent.empty()) {
        throw PeerError(fmt::format(
            "{} stopped responding (no heartbeat for {:.0f} s) while {} waited for '{}'",
            fmt::join(silent, ", "), kSilentS, m->who(m->world.rank), key));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } catch (const PeerError&) {
    throw;
  } catch (const std::exception& e) {
    throw PeerError(m->diagnose("wait for '" + key + "'", e));
  }
}

void Group::report_failure(const std::string& cause) noexcept {
  try {
    m->store->set(failure_key(m->world.rank), to_bytes(cause));
  } catch (...) {
  }
}

double Group::all_reduce_seconds() const {
  return m->reduce_seconds;
}
int64_t Group::all_reduce_bytes() const {
  return m->reduce_bytes;
}

#else  // no c10d with Gloo in this build

struct Group::Impl {
  WorldInfo world;
  std::string backend, device;
  std::vector<std::string> hosts;
};

std::shared_ptr<Group> Group::join(const WorldInfo&, const GroupOptions&) {
  fail("distributed runs are unavailable: {}", unavailable_reason());
}
Group::Group(std::unique_ptr<Impl> impl) : m(std::move(impl)) {}
Group::~Group() = default;
const WorldInfo& Group::world() const {
  return m->world;
}
const std::string& Group::backend() const {
  return m->backend;
}
const std::string& Group::device() const {
  return m->device;
}
int64_t Group::cuda_device() const {
  return -1;
}
const std::vector<std::string>& Group::hosts() const {
  return m->hosts;
}
double Group::timeout_s() const {
  return 0;
}
void Group::all_reduce_sum(std::vector<torch::Tensor>&) {}
std::vector<double> Group::all_reduce_sum(const std::vector<double>& v) {
  return v;
}
void Group::broadcast(std::vector<torch::Tensor>&, int64_t) {}
double Group::broadcast(double value, int64_t) {
  return value;
}
void Group::barrier() {}
void Group::store_set(const std::string&, const std::string&) {}
std::string Group::store_get(const std::string& key, double) {
  fail("no rendezvous store for '{}': {}", key, unavailable_reason());
}
void Group::report_failure(const std::string&) noexcept {}
double Group::all_reduce_seconds() const {
  return 0;
}
int64_t Group::all_reduce_bytes() const {
  return 0;
}

#endif

}  // namespace gb::dist
