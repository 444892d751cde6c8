// Tokenizer throughput: this implementation against Hugging Face's Rust library (the npm
// package tokenizers, a prebuilt Node addon) and its JavaScript port (@huggingface/tokenizers)
// on the same corpus in the same run, for the Qwen 3, Llama 3 and Gemma 3 tokenizer.json
// files (bench/tokenizer_bench.mjs runs the references).
//
// Run from the repository root, pinned to one core (both sides are single-threaded):
//   taskset -c 0 build/bench/bench_tokenizer [--passes N] [--root DIR]
//
// Corpus: every fortune of Debian's fortunes and fortunes-de (/usr/share/games/fortunes and
// .../de, not *.dat, not symlinks), one input per fortune, as tests/tst_tokenizer.cpp builds
// it. Each side loads the tokenizer (timed), encodes the corpus once to warm up, then N times;
// throughput is UTF-8 megabytes per second of the best pass, by wall-clock time and by process
// CPU time (the fairer figure on a shared, loaded machine). Needs node and the packages of
// scripts/npm-deps.sh.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/tokenizer.h"
#include "util/files.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::vector<std::string> list_fortune_files(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (!d) return files;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // no symlinks
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".dat") == 0) continue;
    files.push_back(path);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> fortunes() {
  std::vector<std::string> out;
  std::vector<std::string> files = list_fortune_files("/usr/share/games/fortunes");
  for (const std::string& f : list_fortune_files("/usr/share/games/fortunes/de"))
    files.push_back(f);
  for (const std::string& f : files) {
    std::string text = gb::read_file(f);
    std::string current;
    bool started = false;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? text.size() : nl + 1;
      if (line == "%") {
        if (!current.empty()) out.push_back(current);
        current.clear();
        started = false;
        continue;
      }
      current = started ? current + "\n" + line : line;
      started = true;
    }
    if (!current.empty()) out.push_back(current);
  }
  return out;
}

// Runs argv (no shell) and returns its stdout.
std::string run_capture(const std::vector<std::string>& argv, int& status) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::perror("exec node");
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  waitpid(pid, &status, 0);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int passes = 3;
  std::string root = ".";
  {
    // Default root: the source tree this file was compiled from, else the working directory.
    std::string here = __FILE__;
    size_t cut = here.rfind("/bench/");
    if (cut != std::string::npos && gb::file_exists(here.substr(0, cut) + "/tests/npm"))
      root = here.substr(0, cut);
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--passes" && i + 1 < argc) {
      passes = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--root" && i + 1 < argc) {
      root = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_tokenizer [--passes N] [--root REPO]\n");
      return 2;
    }
  }
  const std::string models = root + "/tests/npm/node_modules/@lenml";
  if (!gb::file_exists(models + "/tokenizer-gemma3/models/tokenizer.json")) {
    std::fprintf(stderr, "bench_tokenizer: %s is missing; run scripts/npm-deps.sh\n",
                 models.c_str());
    return 1;
  }
  std::vector<std::string> corpus = fortunes();
  size_t bytes = 0;
  for (const std::string& s : corpus) bytes += s.size();
  if (bytes < 1000000) {
    std::fprintf(stderr,
                 "bench_tokenizer: only %zu bytes of fortunes; install fortunes and "
                 "fortunes-de\n",
                 bytes);
    return 1;
  }
  char tmpl[] = "/tmp/bench_tokenizer_XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string corpus_path = std::string(tmpl) + "/corpus.json";
  gb::write_file_atomic(corpus_path, nlohmann::json(corpus).dump());
  std::printf(
      "corpus: %zu fortunes, %.2f MB (English and German); %d timed passes each, "
      "best pass reported\n\n",
      corpus.size(), bytes / 1e6, passes);
  std::printf("%-8s %-5s %17s | %17s | %9s %9s %6s | %9s %9s %6s |\n", "", "", "load wall s",
              "load cpu s", "wall MB/s", "wall MB/s", "", "cpu MB/s", "cpu MB/s", "");
  std::printf("%-8s %-5s %8s %8s | %8s %8s | %9s %9s %6s | %9s %9s %6s | %s\n", "model", "ref",
              "ours", "ref", "ours", "ref", "ours", "ref", "ratio", "ours", "ref", "ratio",
              "ids per pass");
  int status_all = 0;
  for (const char* name : {"qwen3", "llama3", "gemma3"}) {
    const std::string dir = models + "/tokenizer-" + name + "/models";
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    gb::tok::Tokenizer tok = gb::tok::Tokenizer::from_file(dir);
    double load = seconds_since(t0), load_cpu = cpu_seconds() - c0;
    size_t ids = 0;
    for (const std::string& s : corpus) ids += tok.encode(s).size();  // warm-up
    double best = 1e30, best_cpu = 1e30;
    for (int p = 0; p < passes; ++p) {
      auto t = Clock::now();
      double c = cpu_seconds();
      size_t n = 0;
      for (const std::string& s : corpus) n += tok.encode(s).size();
      best_cpu = std::min(best_cpu, cpu_seconds() - c);
      best = std::min(best, seconds_since(t));
      if (n != ids) std::fprintf(stderr, "bench_tokenizer: passes differ\n");
    }
    // rust: Hugging Face's Rust library (npm tokenizers, the reference); js: its
    // JavaScript port (@huggingface/tokenizers).
    for (const char* reference : {"rust", "js"}) {
      int status = 0;
      std::string out = run_capture({"node", root + "/bench/tokenizer_bench.mjs", dir, corpus_path,
                                     std::to_string(passes), reference},
                                    status);
      double js_load = 0, js_load_cpu = 0, js_best = 1e30, js_best_cpu = 1e30;
      size_t js_ids = 0;
      try {
        nlohmann::json j = nlohmann::json::parse(out);
        js_load = j.at("load_s").get<double>();
        js_load_cpu = j.at("load_cpu_s").get<double>();
        for (const auto& v : j.at("pass_s")) js_best = std::min(js_best, v.get<double>());
        for (const auto& v : j.at("pass_cpu_s"))
          js_best_cpu = std::min(js_best_cpu, v.get<double>());
        js_ids = j.at("ids").get<size_t>();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_tokenizer: node (%s) failed (status %d): %s\n%s\n", reference,
                     status, e.what(), out.c_str());
        status_all = 1;
        continue;
      }
      double ours = bytes / best / 1e6, theirs = bytes / js_best / 1e6;
      double ours_cpu = bytes / best_cpu / 1e6, theirs_cpu = bytes / js_best_cpu / 1e6;
      std::printf(
          "%-8s %-5s %8.2f %8.2f | %8.2f %8.2f | %9.2f %9.2f %5.1fx | %9.2f %9.2f %5.1fx | %zu%s\n",
          name, reference, load, js_load, load_cpu, js_load_cpu, ours, theirs, ours / theirs,
          ours_cpu, theirs_cpu, ours_cpu / theirs_cpu, ids,
          ids == js_ids ? "" : " (reference: different count!)");
      std::fflush(stdout);
    }
  }
  std::remove(corpus_path.c_str());
  rmdir(tmpl);
  return status_all;
}
