// bench_soak_kill: SIGKILL soak of the real worker (issue 20). Runs a small spec (two runs
// on the llama fixture, checkpoints every 4 steps) once uninterrupted for reference, then
// again and again under SIGKILL at random instants: after every kill the store must pass
// PRAGMA integrity_check, and the next worker (`run --resume ID` for the first unfinished
// run: from its newest valid checkpoint, or from the beginning when it has none, orphaned
// queued runs included) must carry on. Every run must end finished with metrics equal to
// the uninterrupted run's (every step, every key except perf/ timings). Prints the counts.
//
//   bench_soak_kill --cli build/app/cli/growbench-cli --fixture
//   ../shared/fixtures/hf-reference/llama
//                   [--kills 100] [--seed 1] [--dir DIR] [--keep]
//
// Exit status 0 when every check held, 1 otherwise. Not a test: it takes minutes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "model/tokenizer.h"
#include "store/store.h"
#include "util/log.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
using gb::store::RunStatus;
using gb::store::Store;
using Metrics = std::map<std::pair<std::string, int64_t>, double>;

std::string g_cli;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string salad(const std::vector<std::string>& vocab, int words, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < words; ++i) out += vocab[rng() % vocab.size()] + (i % 9 == 8 ? ".\n" : " ");
  return out;
}

// Starts growbench-cli with `args` (stdout and stderr to `log`); returns its pid.
pid_t start(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(g_cli.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(g_cli.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits up to `ms` for `pid`; returns its exit status, or -1 while it still runs.
int wait_for(pid_t pid, int64_t ms) {
  const auto t0 = Clock::now();
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::duration<double, std::milli>(Clock::now() - t0).count() >= ms) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Metrics learning_metrics(Store& s, int64_t run) {
  Metrics m;
  for (const auto& r : s.metric_rows(run)) {
    if (r.key.rfind("perf/", 0) != 0) m[{r.key, r.step}] = r.value;
  }
  return m;
}

std::string first_difference(const Metrics& a, const Metrics& b) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) return fmt::format("{}@{} missing", k.first, k.second);
    if (!(it->second == v) && !(std::isnan(v) && std::isnan(it->second))) {
      return fmt::format("{}@{}: {:.17g} vs {:.17g}", k.first, k.second, v, it->second);
    }
  }
  if (a.size() != b.size()) return fmt::format("{} vs {} values", a.size(), b.size());
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  int kills_wanted = 100;
  uint32_t seed = 1;
  std::string dir, fixture;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--kills")
      kills_wanted = std::stoi(next());
    else if (a == "--seed")
      seed = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--dir")
      dir = next();
    else if (a == "--cli")
      g_cli = next();
    else if (a == "--fixture")
      fixture = next();
    else if (a == "--keep")
      keep = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_soak_kill --cli CLI --fixture LLAMA_FIXTURE "
                   "[--kills N] [--seed S] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (g_cli.empty() || fixture.empty()) {
    std::fprintf(stderr, "bench_soak_kill: --cli and --fixture are required\n");
    return 2;
  }
  g_cli = fs::absolute(g_cli).string();
  gb::log::set_level(spdlog::level::warn);
  if (dir.empty()) dir = (fs::temp_directory_path() / fmt::format("soak-{}", ::getpid())).string();
  fs::create_directories(dir);
  setenv("GROWBENCH_CACHE_DIR", (dir + "/cache").c_str(), 1);
  setenv("OMP_NUM_THREADS", "1", 1);

  // The model (fixture + a tokenizer trained here), the data and the spec.
  const std::vector<std::string> en = {"the",   "house", "river", "small", "light",
                                       "water", "green", "stone", "bread", "city",
                                       "of",    "and",   "a"};
  const std::vector<std::string> de = {"das", "Haus",   "der",   "Fluss", "klein", "und",
                                       "ist", "Wasser", "Stein", "Brot",  "mit",   "nicht"};
  const std::string model = dir + "/model";
  fs::create_directories(model);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(fs::path(fixture) / f, fs::path(model) / f, fs::copy_options::overwrite_existing);
  }
  const std::string en_text = salad(en, 1500, 1), de_text = salad(de, 1500, 2);
  write_text(model + "/tokenizer.json",
             gb::tok::train_byte_level_bpe({en_text, de_text}, 512, {"<|endoftext|>"}));
  write_text(dir + "/orig_eval.txt", salad(en, 300, 3));
  write_text(dir + "/new_train.txt", de_text);
  const Json spec = {
      {"version", 1},
      {"name", "soak"},
      {"seed", 0},
      {"threads", 1},
      {"model", model},
      {"data",
       {{"original", {{"eval", dir + "/orig_eval.txt"}}},
        {"new", {{"train", dir + "/new_train.txt"}}}}},
      {"plans", Json::array({{{"variant", "lora"}, {"rank", 4}, {"targets", {"q", "v", "down"}}},
                             {{"variant", "grow"}, {"mode", "freeze"}, {"layers", "all"}}})},
      {"train", {{"steps", 24}, {"seq_len", 32}, {"batch_size", 2}, {"lr", 1e-3}}},
      {"eval", {{"interval", 8}, {"tokens", 64}, {"batch_size", 2}, {"drift", false}}},
      {"checkpoint", {{"interval", 4}}}};
  const std::string spec_path = dir + "/spec.json";
  write_text(spec_path, spec.dump(2));
  const std::string log = dir + "/workers.log";

  // The uninterrupted reference and its duration (the range of the kill instants).
  const std::string ref_db = dir + "/reference.db";
  const auto t0 = Clock::now();
  const int ref_code = wait_for(start({"run", spec_path, "--db", ref_db, "--quiet"}, log), 1e9);
  const double full_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (ref_code != 0) {
    std::fprintf(stderr, "bench_soak_kill: the reference run failed (%d); see %s\n", ref_code,
                 log.c_str());
    return 1;
  }
  std::vector<Metrics> reference;
  {
    Store s = Store::open(ref_db);
    for (const auto& r : s.list_runs()) reference.push_back(learning_metrics(s, r.id));
    std::sort(reference.begin(), reference.end());  // by value: runs compared as a set
  }
  std::printf("reference: %zu runs in %.1f s (uninterrupted worker)\n", reference.size(),
              full_ms / 1000);

  // The soak: start the spec (a round), then resume its first unfinished run, killing each
  // worker at a random instant until `kills_wanted` kills have landed.
  const std::string db = dir + "/soak.db";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> delay(0.0, full_ms);
  int kills = 0, integrity_ok = 0, workers = 0, resumes = 0, from_checkpoint = 0, from_start = 0,
      orphaned = 0, rounds = 0, runs_ok = 0, runs_bad = 0, exits_bad = 0;
  bool new_round = true;
  std::set<int64_t> checked;
  while (kills < kills_wanted) {
    std::vector<std::string> args;
    int64_t target = 0;
    if (new_round) {
      args = {"run", spec_path, "--db", db, "--quiet"};
      ++rounds;
    } else {
      Store s = Store::open(db);
      s.mark_interrupted_runs();
      for (const auto& r : s.list_runs()) {
        if (r.status != RunStatus::Finished && (target == 0 || r.id < target)) target = r.id;
      }
      if (target == 0) {
        new_round = true;
        continue;
      }
      const auto info = s.get_run(target);
      if (info.error.find("orphaned") != std::string::npos) ++orphaned;
      (s.latest_checkpoint(target) ? from_checkpoint : from_start)++;
      args = {"run", "--resume", std::to_string(target), "--db", db, "--quiet"};
      ++resumes;
    }
    new_round = false;
    ++workers;
    const pid_t pid = start(args, log);
    const int code = wait_for(pid, static_cast<int64_t>(delay(rng)));
    if (code < 0) {
      ::kill(pid, SIGKILL);
      wait_for(pid, 1e9);
      ++kills;
    } else if (code != 0) {
      ++exits_bad;
      std::fprintf(stderr, "worker %s exited with %d (see %s)\n",
                   fmt::format("{}", fmt::join(args, " ")).c_str(), code, log.c_str());
    }
    Store s =
        Store::open(db, gb::store::OpenMode::ReadWrite, {5000, gb::store::IntegrityCheck::Full});
    if (s.integrity_check() == std::vector<std::string>{"ok"}) ++integrity_ok;
    // Finished runs: equal to the reference.
    for (const auto& r : s.list_runs()) {
      if (r.status != RunStatus::Finished || checked.count(r.id)) continue;
      checked.insert(r.id);
      const Metrics m = learning_metrics(s, r.id);
      std::string best = "no reference run";
      for (const auto& ref : reference) {
        const std::string d = first_difference(ref, m);
        if (d.empty()) {
          best.clear();
          break;
        }
        best = d;
      }
      if (best.empty()) {
        ++runs_ok;
      } else {
        ++runs_bad;
        std::fprintf(stderr, "run %lld differs from the uninterrupted run: %s\n",
                     static_cast<long long>(r.id), best.c_str());
      }
    }
    if (kills % 10 == 0 && code < 0) std::printf("  %d kills...\n", kills), std::fflush(stdout);
  }
  // Finish what is left without kills.
  for (int guard = 0; guard < 20; ++guard) {
    Store s = Store::open(db);
    s.mark_interrupted_runs();
    int64_t target = 0;
    for (const auto& r : s.list_runs()) {
      if (r.status != RunStatus::Finished && (target == 0 || r.id < target)) target = r.id;
    }
    if (target == 0) break;
    ++resumes;
    (s.latest_checkpoint(target) ? from_checkpoint : from_start)++;
    if (wait_for(start({"run", "--resume", std::to_string(target), "--db", db, "--quiet"}, log),
                 1e9) != 0) {
      ++exits_bad;
    }
  }
  int unfinished = 0;
  {
    Store s =
        Store::open(db, gb::store::OpenMode::ReadWrite, {5000, gb::store::IntegrityCheck::Full});
    if (s.integrity_check() == std::vector<std::string>{"ok"}) ++integrity_ok;
    for (const auto& r : s.list_runs()) {
      if (r.status != RunStatus::Finished) {
        ++unfinished;
        continue;
      }
      if (checked.count(r.id)) continue;
      checked.insert(r.id);
      bool ok = false;
      for (const auto& ref : reference)
        ok = ok || first_difference(ref, learning_metrics(s, r.id)).empty();
      (ok ? runs_ok : runs_bad)++;
    }
  }
  const int checks = integrity_ok;
  std::printf(
      "kills: %d (workers started: %d, rounds of the spec: %d)\n"
      "integrity_check ok: %d of %d\n"
      "resumes: %d (from a checkpoint: %d, from the beginning: %d; orphaned queued runs "
      "restarted: %d)\n"
      "runs finished equal to the uninterrupted run: %d; different: %d; unfinished: %d\n"
      "workers that exited with an error: %d\n",
      kills, workers, rounds, checks, workers + 1, resumes, from_checkpoint, from_start, orphaned,
      runs_ok, runs_bad, unfinished, exits_bad);
  if (!keep) fs::remove_all(dir);
  const bool ok = runs_bad == 0 && unfinished == 0 && exits_bad == 0 && checks == workers + 1;
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
