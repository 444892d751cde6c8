#include "experiment/integrity.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "experiment/sources.h"
#include "util/files.h"
#include "util/json.h"

namespace gb::experiment {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr uint64_t kWhole = 4ull << 20;  // files up to this size are hashed whole
constexpr uint64_t kEnd = 1ull << 20;    // larger ones: first and last MiB

// Hash of one file: whole, or its size and first and last MiB.
uint64_t file_hash(const std::string& path, uint64_t size) {
  if (size == 0) return fnv1a64("", 0);
  MappedFile f(path);
  if (f.size() <= kWhole) return fnv1a64(f.data(), f.size());
  uint64_t h = fnv1a64(&size, sizeof size);
  h = fnv1a64(f.data(), kEnd, h);
  return fnv1a64(f.data() + f.size() - kEnd, kEnd, h);
}

uint64_t mix(uint64_t h, const std::string& s) {
  return fnv1a64(s.data(), s.size() + 1, h);  // with the terminating NUL as a separator
}

// The corpus, QA or task file of a source ("" when it has none: a generated biography).
std::string source_path(const DataSource& s) {
  if (!s.defined()) return {};
  if (s.kind == DataSource::Kind::Qa) return s.qa_path;
  if (s.kind == DataSource::Kind::Corpus && s.corpus.is_object() && s.corpus.contains("path") &&
      s.corpus["path"].is_string()) {
    return s.corpus["path"].get<std::string>();
  }
  return {};
}

std::string describe(const Json& f) {
  if (f.value("missing", false)) return "missing";
  std::string out = fmt::format("{} bytes", f.value("size", int64_t(0)));
  if (f.contains("files")) out += fmt::format(" in {} files", f["files"].get<int64_t>());
  return out + ", hash " + f.value("hash", std::string("?"));
}

}  // namespace

Json fingerprint_path(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return Json{{"path", path}, {"missing", true}};
  if (fs::is_regular_file(st)) {
    const uint64_t size = fs::file_size(path);
    return Json{{"path", path}, {"size", size}, {"hash", hex64(file_hash(path, size))}};
  }
  std::vector<std::pair<std::string, fs::path>> files;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) {
      files.emplace_back(fs::relative(it->path(), path).generic_string(), it->path());
    }
  }
  std::sort(files.begin(), files.end());
  uint64_t h = fnv1a64("", 0), total = 0;
  for (const auto& [rel, full] : files) {
    const uint64_t size = fs::file_size(full);
    total += size;
    h = mix(h, rel);
    h = mix(h, std::to_string(size));
    h = mix(h, hex64(file_hash(full.string(), size)));
  }
  return Json{{"path", path}, {"size", total}, {"files", files.size()}, {"hash", hex64(h)}};
}

Json input_fingerprints(const ExperimentSpec& spec, const std::string& base_folder,
                        const std::string& tokenizer_file) {
  Json out = Json::object();
  {
    // The weights and their structure; not the tokenizer (its own entry) or other files.
    uint64_t h = fnv1a64("", 0), total = 0;
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base_folder, ec)) {
      const std::string n = e.path().filename().string();
      const bool weights = n == "config.json" || n == "growbench.json" ||
                           (n.size() > 12 && n.compare(n.size() - 12, 12, ".safetensors") == 0) ||
                           n == "model.safetensors.index.json";
      if (e.is_regular_file() && weights) names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      const Json f = fingerprint_path((fs::path(base_folder) / n).string());
      total += f.value("size", uint64_t(0));
      h = mix(h, n);
      h = mix(h, f.value("hash", std::string()));
    }
    out["base model weights"] = {
        {"path", base_folder}, {"size", total}, {"files", names.size()}, {"hash", hex64(h)}};
  }
  if (!tokenizer_file.empty()) out["tokenizer"] = fingerprint_path(tokenizer_file);
  auto add = [&](const std::string& key, const DataSource& s) {
    const std::string p = source_path(s);
    if (!p.empty()) out[key] = fingerprint_path(p);
  };
  add("data.original.eval", spec.original_eval);
  add("data.original.replay", spec.original_replay);
  add("data.original.probe", spec.original_probe);
  add("data.original.test", spec.original_test);
  add("data.new.train", spec.new_train);
  add("data.new.eval", spec.new_eval);
  add("data.new.test", spec.new_test);
  for (const auto& t : spec.tasks) {
    add("tasks." + t.name, t.source);
    if (!t.mc_path.empty()) out["tasks." + t.name] = fingerprint_path(t.mc_path);
  }
  for (const auto& st : spec.sequence) {
    add("sequence." + st.name + ".train", st.train);
    add("sequence." + st.name + ".eval", st.eval.source);
    if (!st.eval.mc_path.empty()) {
      out["sequence." + st.name + ".eval"] = fingerprint_path(st.eval.mc_path);
    }
  }
  // How training documents are ordered: QA items and biographies get a new order every epoch
  // (since 7a1f087). A run that started before kept one order; resuming it now would change
  // its data order mid-run, so the entry is compared even when the run never recorded it.
  bool reorders = reorders_documents(spec.new_train) || reorders_documents(spec.original_replay);
  for (const auto& st : spec.sequence) reorders = reorders || reorders_documents(st.train);
  if (reorders) out[kDataOrderInput] = {{"order", kDocumentsReordered}, {"hash", "reordered-v1"}};
  return out;
}

std::vector<std::string> changed_inputs(const Json& recorded, const Json& current) {
  std::vector<std::string> out;
  if (!recorded.is_object()) return out;
  if (current.contains(kDataOrderInput) && !recorded.contains(kDataOrderInput)) {
    out.push_back(
        fmt::format("{}: one fixed document order every epoch (the run started before QA items and "
                    "biographies were reordered each epoch) -> {}",
                    kDataOrderInput, kDocumentsReordered));
  }
  for (auto it = recorded.begin(); it != recorded.end(); ++it) {
    if (!current.contains(it.key())) continue;
    const Json& was = it.value();
    const Json& now = current[it.key()];
    if (was.value("hash", std::string()) == now.value("hash", std::string()) &&
        was.value("size", int64_t(-1)) == now.value("size", int64_t(-1)) &&
        was.value("missing", false) == now.value("missing", false)) {
      continue;
    }
    out.push_back(fmt::format("{} ({}): {} -> {}", it.key(), now.value("path", std::string()),
                              describe(was), describe(now)));
  }
  return out;
}

std::string run_spec_hash(const Json& spec_raw) {
  const std::string text = spec_raw.dump();
  return hex64(fnv1a64(text.data(), text.size()));
}

FolderDigest checkpoint_digest(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  FolderDigest d;
  uint64_t h = fnv1a64("", 0);
  for (const auto& n : names) {
    const std::string p = (fs::path(dir) / n).string();
    MappedFile f(p);
    d.bytes += static_cast<int64_t>(f.size());
    h = mix(h, n);
    h = mix(h, std::to_string(f.size()));
    h = fnv1a64(f.data(), f.size(), h);
  }
  d.checksum = hex64(h);
  return d;
}

std::string checkpoint_problem(const store::CheckpointInfo& ck, int64_t run_id,
                               const std::string& store_uuid, const std::string& spec_hash) {
  std::error_code ec;
  if (!fs::is_directory(ck.path, ec)) return "its folder is missing";
  const std::string meta_path = (fs::path(ck.path) / "trainer.json").string();
  if (!file_exists(meta_path)) return "it has no trainer.json (incomplete)";
  try {
    if (!ck.checksum.empty() || ck.bytes > 0) {
      const FolderDigest d = checkpoint_digest(ck.path);
      if (ck.bytes > 0 && d.bytes != ck.bytes) {
        return fmt::format("its files hold {} bytes, the store recorded {} (truncated?)", d.bytes,
                           ck.bytes);
      }
      if (!ck.checksum.empty() && d.checksum != ck.checksum) {
        return fmt::format("its checksum is {}, the store recorded {} (damaged)", d.checksum,
                           ck.checksum);
      }
    }
    const Json meta = json::parse_file(meta_path);
    const Json extra = meta.value("extra", Json::object());
    if (extra.contains("store") && extra["store"].get<std::string>() != store_uuid) {
      return fmt::format("it was written by another run store ({}, this store is {})",
                         extra["store"].get<std::string>(), store_uuid);
    }
    if (extra.contains("run_id") && extra["run_id"].get<int64_t>() != run_id) {
      return fmt::format("it belongs to run {}", extra["run_id"].get<int64_t>());
    }
    if (extra.contains("spec_hash") && extra["spec_hash"].get<std::string>() != spec_hash) {
      return fmt::format("it was written for another spec (hash {}, the run's is {})",
                         extra["spec_hash"].get<std::string>(), spec_hash);
    }
    if (extra.contains("global_step") && extra["global_step"].get<int64_t>() != ck.step) {
      return fmt::format("it holds step {}, the store lists it as step {}",
                         extra["global_step"].get<int64_t>(), ck.step);
    }
  } catch (const std::exception& e) {
    return fmt::format("it cannot be read: {}", e.what());
  }
  return {};
}

}  // namespace gb::experiment
