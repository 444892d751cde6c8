// PEFT LoRA adapters (grow/peft.h): reading adapter_config.json and the safetensors header
// into a LoRA plan, loading A and B into LoRA units, and writing an adapter folder.
#include "grow/peft.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "grow/lora.h"
#include "model/arch.h"
#include "model/config.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "model/units.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::grow::peft {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// Hugging Face module names of the linear units inside a decoder layer, per naming scheme;
// q, k and v of GPT-2 and GPT-NeoX are one fused module, which a GrowBench LoRA unit (one
// per projection) cannot express.
struct Scheme {
  const char* layer_prefix;                                // before the layer index
  std::vector<std::pair<std::string, std::string>> units;  // module path in layer -> unit
  std::vector<std::string> fused;                          // fused q/k/v module paths
};

const std::vector<Scheme>& schemes() {
  static const std::vector<Scheme> s = [] {
    Scheme llama{"model.layers.", {}, {}};
    for (const auto& u : units::all()) {
      if (u.kind == units::Kind::Linear) llama.units.emplace_back(u.path, u.name);
    }
    Scheme neox{
        "gpt_neox.layers.",
        {{"attention.dense", "o"}, {"mlp.dense_h_to_4h", "up"}, {"mlp.dense_4h_to_h", "down"}},
        {"attention.query_key_value"}};
    Scheme gpt2{"transformer.h.",
                {{"attn.c_proj", "o"}, {"mlp.c_fc", "up"}, {"mlp.c_proj", "down"}},
                {"attn.c_attn"}};
    return std::vector<Scheme>{llama, neox, gpt2};
  }();
  return s;
}

std::string supported_units_text() {
  return "GrowBench's LoRA adapts the linear units q, k, v, o, gate, up and down of the "
         "decoder layers";
}

// (layer, unit) of a Hugging Face module path, or throws naming the tensor.
std::pair<int64_t, std::string> unit_of_module(const std::string& module, const std::string& tensor,
                                               const std::string& where) {
  for (const Scheme& s : schemes()) {
    const std::string prefix = s.layer_prefix;
    if (module.rfind(prefix, 0) != 0) continue;
    const size_t digits_end = module.find_first_not_of("0123456789", prefix.size());
    if (digits_end == prefix.size() || digits_end == std::string::npos ||
        module[digits_end] != '.') {
      break;
    }
    const int64_t layer = std::stoll(module.substr(prefix.size(), digits_end - prefix.size()));
    const std::string inner = module.substr(digits_end + 1);
    for (const auto& [path, unit] : s.units) {
      if (inner == path) return {layer, unit};
    }
    for (const auto& f : s.fused) {
      if (inner == f) {
        fail(
            "{}: tensor '{}' adapts the fused q/k/v projection '{}'; GrowBench keeps q, k and v "
            "as separate units with one LoRA each, so an adapter on the fused module cannot be "
            "expressed (target the other projections, or convert the adapter)",
            where, tensor, module);
      }
    }
    break;
  }
  fail(
      "{}: tensor '{}' adapts the module '{}', which is not a linear unit of a decoder layer; "
      "{} (modules such as 'model.layers.0.self_attn.q_proj')",
      where, tensor, module, supported_units_text());
}

bool is_null_or_empty(const Json& j) {
  return j.is_null() || ((j.is_array() || j.is_object() || j.is_string()) && j.empty());
}

// PEFT's rule for a list of target names: the module's full name equals the entry or ends
// with "." + entry.
bool matches_entry(const std::string& module, const std::string& entry) {
  if (module == entry) return true;
  return module.size() > entry.size() &&
         module.compare(module.size() - entry.size(), entry.size(), entry) == 0 &&
         module[module.size() - entry.size() - 1] == '.';
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

}  // namespace

std::string tensor_name(const std::string& hf_module, char which) {
  return fmt::format("{}{}.lora_{}.weight", kKeyPrefix, hf_module, which);
}

namespace {

Adapter read_from_disk(const std::string& folder_arg, const std::string& folder) {
  Adapter a;
  a.folder = folder;
  const std::string& dir = a.folder;
  if (!is_directory(dir)) {
    fail("PEFT adapter '{}': not a folder (expected {} and {})", folder_arg, kConfigFile,
         kWeightsFile);
  }
  const std::string config_path = (fs::path(dir) / kConfigFile).string();
  if (!file_exists(config_path)) {
    fail("PEFT adapter {}: no {} (a folder written by PEFT's save_pretrained holds it)", dir,
         kConfigFile);
  }
  const Json c = json::parse_file(config_path);
  const std::string where = config_path;
  if (!c.is_object()) fail("{}: expected a JSON object", where);

  // What it is.
  const Json peft_type = c.value("peft_type", Json());
  if (!peft_type.is_string() || peft_type.get<std::string>() != "LORA") {
    fail("{}: 'peft_type' is {}; only LoRA adapters (\"LORA\") can be imported", where,
         peft_type.dump());
  }
  if (c.contains("task_type") && !c["task_type"].is_null() && c["task_type"] != Json("CAUSAL_LM")) {
    fail("{}: 'task_type' is {}; GrowBench models are causal language models (\"CAUSAL_LM\")",
         where, c["task_type"].dump());
  }
  // The rank and the scale.
  if (!c.contains("r") || !c["r"].is_number_integer() || c["r"].get<int64_t>() < 1) {
    fail("{}: 'r' must be a positive integer (the LoRA rank), found {}", where,
         c.value("r", Json()).dump());
  }
  a.rank = c["r"].get<int64_t>();
  const Json alpha = c.value("lora_alpha", Json(8));  // PEFT's default
  if (!alpha.is_number() || !(alpha.get<double>() > 0)) {
    fail("{}: 'lora_alpha' must be a positive number, found {}", where, alpha.dump());
  }
  a.lora_alpha = alpha.get<double>();
  const Json rslora = c.value("use_rslora", Json(false));
  if (!rslora.is_boolean()) fail("{}: 'use_rslora' must be true or false", where);
  a.use_rslora = rslora.get<bool>();
  // GrowBench scales by alpha / r; rsLoRA by lora_alpha / √r.
  a.alpha = a.use_rslora ? a.lora_alpha * std::sqrt(static_cast<double>(a.rank)) : a.lora_alpha;
  const Json dropout = c.value("lora_dropout", Json(0.0));
  if (!dropout.is_number()) fail("{}: 'lora_dropout' must be a number", where);
  a.dropout = dropout.get<double>();
  if (a.dropout > 0) {
    a.warnings.push_back(fmt::format(
        "{}: lora_dropout {} is ignored: GrowBench's LoRA applies no dropout when training", where,
        a.dropout));
  }
  if (c.contains("base_model_name_or_path") && c["base_model_name_or_path"].is_string()) {
    a.base_model = c["base_model_name_or_path"].get<std::string>();
  }

  // Options GrowBench's LoRA unit does not have.
  auto refuse_if = [&](const char* key, bool bad, const std::string& why) {
    if (bad) fail("{}: '{}' = {} is not supported: {}", where, key, c[key].dump(), why);
  };
  auto flag = [&](const char* key) { return c.contains(key) && c[key] == Json(true); };
  auto set = [&](const char* key) { return c.contains(key) && !is_null_or_empty(c[key]); };
  refuse_if("use_dora", flag("use_dora"),
            "DoRA adds a magnitude vector per module, which GrowBench's LoRA unit does not have");
  refuse_if("bias", c.contains("bias") && c["bias"] != Json("none") && !c["bias"].is_null(),
            "the adapter trains biases; GrowBench's LoRA keeps every bias frozen (\"none\")");
  refuse_if("lora_bias", flag("lora_bias"), "GrowBench's LoRA B has no bias");
  refuse_if("modules_to_save", set("modules_to_save"),
            "fully trained extra modules are not part of a GrowBench LoRA plan");
  refuse_if("rank_pattern", set("rank_pattern"),
            "GrowBench's LoRA plan has one rank for every module");
  refuse_if("alpha_pattern", set("alpha_pattern"),
            "GrowBench's LoRA plan has one alpha for every module");
  refuse_if("layer_replication", set("layer_replication"),
            "replicated layers change the model's depth");
  refuse_if("trainable_token_indices", set("trainable_token_indices"),
            "trainable token embeddings are not part of a LoRA plan");
  refuse_if("target_parameters", set("target_parameters"),
            "LoRA on raw parameters (not modules) is not supported");
  refuse_if("use_qalora", flag("use_qalora"), "QA-LoRA's pooled input is not supported");
  refuse_if("megatron_config", set("megatron_config"), "Megatron-parallel layers");

  // The tensors.
  const std::string weights = (fs::path(dir) / kWeightsFile).string();
  if (!file_exists(weights)) {
    if (file_exists((fs::path(dir) / "adapter_model.bin").string())) {
      fail(
          "PEFT adapter {}: only adapter_model.bin (a pickled PyTorch file, which can run code "
          "when loaded) is there; GrowBench reads {} (save with safe_serialization=True, or "
          "convert it with the safetensors package)",
          dir, kWeightsFile);
    }
    fail("PEFT adapter {}: no {}", dir, kWeightsFile);
  }
  st::File file(weights);
  static const std::regex key_re(R"(^base_model\.model\.(.+)\.lora_(A|B)\.weight$)");
  std::map<std::string, std::pair<int, int>> seen;  // module -> (has A, has B)
  std::set<std::pair<int64_t, std::string>> pairs;
  for (const st::TensorInfo& t : file.header().tensors) {
    std::smatch m;
    if (!std::regex_match(t.name, m, key_re)) {
      std::string why = "not a LoRA A/B matrix named base_model.model.<module>.lora_A.weight";
      if (t.name.find("lora_magnitude_vector") != std::string::npos) {
        why = "a DoRA magnitude vector (DoRA is not supported)";
      } else if (t.name.find("lora_embedding_") != std::string::npos) {
        why = "LoRA on an embedding (" + supported_units_text() + ")";
      } else if (t.name.find(".bias") != std::string::npos) {
        why = "a trained bias (bias \"none\" only)";
      } else if (t.name.find(".lora_A.") != std::string::npos ||
                 t.name.find(".lora_B.") != std::string::npos) {
        why =
            "a LoRA matrix with an adapter name in its key (PEFT's save_pretrained removes "
            "it: '...lora_A.weight')";
      }
      fail("{}: unexpected tensor '{}': {}", weights, t.name, why);
    }
    const std::string module = m[1];
    const bool is_a = m[2] == "A";
    auto [layer, unit] = unit_of_module(module, t.name, weights);
    if (t.shape.size() != 2) {
      fail("{}: '{}' has {} dimensions; LoRA matrices have 2", weights, t.name, t.shape.size());
    }
    const int64_t r = is_a ? t.shape[0] : t.shape[1];
    if (r != a.rank) {
      fail("{}: '{}' has shape [{}, {}], rank {}; adapter_config.json says r = {}", weights, t.name,
           t.shape[0], t.shape[1], r, a.rank);
    }
    auto& s = seen[module];
    (is_a ? s.first : s.second) += 1;
    const std::string key = fmt::format("{}.{}", layer, unit);
    auto known = a.modules.find(key);
    if (known != a.modules.end() && known->second != module) {
      fail("{}: layer {} unit {} is adapted twice ('{}' and '{}')", weights, layer, unit,
           known->second, module);
    }
    a.modules[key] = module;
    pairs.insert({layer, unit});
  }
  if (pairs.empty()) fail("{}: no LoRA tensors", weights);
  for (const auto& [module, s] : seen) {
    if (s.first != 1 || s.second != 1) {
      fail("{}: module '{}' needs exactly one lora_A and one lora_B, found {} and {}", weights,
           module, s.first, s.second);
    }
  }
  {
    // Naming schemes must not mix (one model).
    std::set<std::string> prefixes;
    for (const auto& [module, s] : seen) prefixes.insert(module.substr(0, module.find('.')));
    if (prefixes.size() > 1) {
      fail("{}: the tensors name modules of different model families ({})", weights,
           join(std::vector<std::string>(prefixes.begin(), prefixes.end())));
    }
  }
  // Layers x targets: one plan applies the same targets to every chosen layer.
  std::set<int64_t> layers;
  std::set<std::string> unit_set;
  for (const auto& [l, u] : pairs) {
    layers.insert(l);
    unit_set.insert(u);
  }
  for (const auto& u : units::all()) {
    if (unit_set.count(u.name)) a.targets.emplace_back(u.name);
  }
  a.layers.assign(layers.begin(), layers.end());
  for (int64_t l : a.layers) {
    for (const auto& u : a.targets) {
      if (!pairs.count({l, u})) {
        fail(
            "{}: layer {} has no LoRA on unit {}, which other layers have; a GrowBench LoRA plan "
            "applies the same targets ({}) to every adapted layer",
            weights, l, u, join(a.targets));
      }
    }
  }

  // The config's own view of the targets must agree with the tensors.
  if (c.contains("layers_to_transform") && !c["layers_to_transform"].is_null()) {
    const Json& lt = c["layers_to_transform"];
    std::set<int64_t> want;
    if (lt.is_number_integer()) {
      want.insert(lt.get<int64_t>());
    } else if (lt.is_array()) {
      for (const auto& x : lt) {
        if (!x.is_number_integer()) fail("{}: 'layers_to_transform' must hold integers", where);
        want.insert(x.get<int64_t>());
      }
    } else {
      fail("{}: 'layers_to_transform' must be an integer or a list of integers", where);
    }
    if (want != layers) {
      fail("{}: 'layers_to_transform' {} differs from the layers that have tensors in {} ({})",
           where, lt.dump(), kWeightsFile, Json(a.layers).dump());
    }
  }
  const Json tm = c.value("target_modules", Json());
  std::vector<std::string> modules;
  for (const auto& [module, s] : seen) modules.push_back(module);
  if (tm.is_array()) {
    std::vector<std::string> entries;
    for (const auto& e : tm) {
      if (!e.is_string()) fail("{}: 'target_modules' must hold strings, found {}", where, e.dump());
      entries.push_back(e.get<std::string>());
    }
    for (const auto& e : entries) {
      const bool used = std::any_of(modules.begin(), modules.end(),
                                    [&](const std::string& m) { return matches_entry(m, e); });
      if (!used) {
        fail(
            "{}: unknown target module '{}': no tensor of {} adapts a module of that name ({}; "
            "the adapter's modules end in {})",
            where, e, kWeightsFile, supported_units_text(), join(a.targets));
      }
    }
    for (const auto& m : modules) {
      const bool listed = std::any_of(entries.begin(), entries.end(),
                                      [&](const std::string& e) { return matches_entry(m, e); });
      if (!listed) {
        fail("{}: {} adapts '{}', which 'target_modules' ({}) does not name", where, kWeightsFile,
             m, join(entries));
      }
    }
  } else if (tm.is_string()) {
    const std::string pattern = tm.get<std::string>();
    if (pattern != "all-linear") {
      try {
        const std::regex re(pattern);
        for (const auto& m : modules) {
          if (!std::regex_match(m, re)) {
            fail("{}: {} adapts '{}', which the 'target_modules' pattern '{}' does not match",
                 where, kWeightsFile, m, pattern);
          }
        }
      } catch (const std::regex_error&) {
        a.warnings.push_back(fmt::format(
            "{}: 'target_modules' pattern '{}' is not a regular expression GrowBench can check; "
            "the tensors' names decide",
            where, pattern));
      }
    }
  } else if (!tm.is_null()) {
    fail("{}: 'target_modules' must be a list of names or a pattern, found {}", where, tm.dump());
  }
  return a;
}

// What identifies a version of one file: a file rewritten in place changes its size or its
// modification time, one replaced by a rename (write_file_atomic, PEFT's save_pretrained
// over an old folder) its inode; the change time catches a rewrite within the clock's tick
// that keeps the size (it is set anew by every write and rename).
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns &&
           ctime_ns == o.ctime_ns;
  }
};

std::optional<FileStamp> stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  FileStamp f;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.size = st.st_size;
  f.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  f.ctime_ns = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return f;
}

// Both files of an adapter folder; none when either is missing (the read then fails with
// its own message).
std::optional<std::pair<FileStamp, FileStamp>> folder_stamp(const std::string& folder) {
  auto config = stamp((fs::path(folder) / kConfigFile).string());
  auto weights = stamp((fs::path(folder) / kWeightsFile).string());
  if (!config || !weights) return std::nullopt;
  return std::make_pair(*config, *weights);
}

// Adapters read in this process, by canonical folder (one entry whatever the spelling of
// the path), with the stamps of their files when they were read. Few entries: one per
// adapter folder a process plans with.
struct Cache {
  std::mutex mutex;
  std::map<std::string, std::pair<std::pair<FileStamp, FileStamp>, Adapter>> entries;
  int64_t reads = 0;
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

Adapter read_adapter(const std::string& folder_arg) {
  const std::string folder = fs::absolute(folder_arg).lexically_normal().string();
  std::error_code ec;
  const std::string key = fs::canonical(folder, ec).string();
  Cache& c = cache();
  // Held while reading: two threads planning with one adapter read it once.
  std::lock_guard<std::mutex> lock(c.mutex);
  // Stamped before the read: a file changed during it gets a newer stamp, read next time.
  const auto now = ec ? std::nullopt : folder_stamp(key);
  if (now) {
    auto it = c.entries.find(key);
    if (it != c.entries.end() && it->second.first == *now) {
      Adapter a = it->second.second;
      a.folder = folder;  // as this caller names it (plans record it)
      return a;
    }
  }
  ++c.reads;
  Adapter a = read_from_disk(folder_arg, folder);
  if (now) c.entries.insert_or_assign(key, std::make_pair(*now, a));
  return a;
}

int64_t adapter_reads() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.reads;
}

ModuleName hf_module(const ModelConfig& config, int64_t layer, const std::string& unit) {
  const std::string internal = arch::names::layer_prefix(layer) + units::path(unit) + ".weight";
  for (const arch::TensorMap& t : arch::hf_tensors(config)) {
    if (std::find(t.internal.begin(), t.internal.end(), internal) == t.internal.end()) continue;
    const std::string suffix = ".weight";
    if (t.transform != arch::Transform::Identity && t.transform != arch::Transform::Transpose) {
      fail(
          "LoRA on unit {} cannot be written as a PEFT adapter for {}: its Hugging Face module "
          "'{}' fuses q, k and v, and GrowBench's adapters are per projection",
          unit, config.model_type, t.hf_name.substr(0, t.hf_name.size() - suffix.size()));
    }
    ModuleName n;
    n.path = t.hf_name.substr(0, t.hf_name.size() - suffix.size());
    n.fan_in_fan_out = t.transform == arch::Transform::Transpose;
    return n;
  }
  fail("{} has no unit {} in layer {}", config.model_type, unit, layer);
}

void load_weights(CausalLMImpl& model, const Adapter& adapter) {
  const std::string weights = (fs::path(adapter.folder) / kWeightsFile).string();
  st::File file(weights);
  torch::NoGradGuard no_grad;
  if (!adapter.layers.empty() && adapter.layers.back() >= model.num_layers()) {
    fail("{}: the adapter has layer {}, the model only {} layers", weights, adapter.layers.back(),
         model.num_layers());
  }
  for (int64_t l : adapter.layers) {
    auto layer = model.layer(l);
    for (const auto& unit : adapter.targets) {
      const std::string module = adapter.modules.at(fmt::format("{}.{}", l, unit));
      const ModuleName expected = hf_module(model.config, l, unit);
      if (expected.path != module) {
        fail(
            "{}: the adapter names layer {} unit {} '{}', but this {} model names it '{}' (an "
            "adapter for another model family)",
            weights, l, unit, module, model.config.model_type, expected.path);
      }
      auto lora = std::dynamic_pointer_cast<LoraLinearImpl>(layer->linear(unit));
      if (!lora)
        fail("layer {} unit {} is not a LoRA unit (apply the adapter's plan first)", l, unit);
      const int64_t in = lora->in_features(), out = lora->out_features();
      const st::TensorInfo& ai = file.at(tensor_name(module, 'A'));
      const st::TensorInfo& bi = file.at(tensor_name(module, 'B'));
      if (ai.shape != std::vector<int64_t>{lora->rank, in}) {
        fail("{}: '{}' has shape [{}, {}], expected [{}, {}] (rank, in features of {})", weights,
             ai.name, ai.shape[0], ai.shape[1], lora->rank, in, module);
      }
      if (bi.shape != std::vector<int64_t>{out, lora->rank}) {
        fail("{}: '{}' has shape [{}, {}], expected [{}, {}] (out features of {}, rank)", weights,
             bi.name, bi.shape[0], bi.shape[1], out, lora->rank, module);
      }
      const auto dtype = lora->lora_A.scalar_type();
      const auto device = lora->lora_A.device();
      lora->lora_A.copy_(st::to_tensor(ai, file.data(ai), dtype, device));
      lora->lora_B.copy_(st::to_tensor(bi, file.data(bi), dtype, device));
    }
  }
  for (const auto& w : adapter.warnings) log::get("grow")->warn("{}", w);
}

ExportResult export_adapter(CausalLMImpl& model, const std::string& out_dir,
                            const std::string& base_model) {
  struct Entry {
    int64_t layer;
    std::string unit;
    std::shared_ptr<LoraLinearImpl> lora;
  };
  std::vector<Entry> entries;
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    auto layer = model.layer(l);
    if (!layer->branches().empty()) {
      fail("layer {} has a parallel branch ({}); a PEFT LoRA adapter holds LoRA units only", l,
           layer->branches().front().first);
    }
    for (const auto& u : layer->units()) {
      if (auto lora = std::dynamic_pointer_cast<LoraLinearImpl>(u.module)) {
        entries.push_back({l, u.name, lora});
      }
    }
  }
  if (entries.empty()) {
    fail(
        "the model has no LoRA units: a PEFT LoRA adapter can be written from a LoRA run or "
        "a GrowBench checkpoint of a LoRA plan (for other plans export a Hugging Face folder)");
  }
  {
    // Anything else grown (wider MLPs, new layers, other unit kinds) is not in an adapter.
    std::string reason;
    if (!is_hf_expressible(model, &reason)) {
      fail("the model is grown beyond LoRA ({}); a PEFT adapter holds only the LoRA matrices",
           reason);
    }
  }
  const int64_t rank = entries.front().lora->rank;
  const double alpha = entries.front().lora->alpha;
  std::set<int64_t> layers;
  std::set<std::string> units_used;
  for (const auto& e : entries) {
    if (e.lora->rank != rank || e.lora->alpha != alpha) {
      fail(
          "LoRA units differ in rank or alpha (layer {} unit {}: r = {}, alpha = {}; first: r = "
          "{}, alpha = {}); PEFT adapters written here have one rank and one alpha",
          e.layer, e.unit, e.lora->rank, e.lora->alpha, rank, alpha);
    }
    layers.insert(e.layer);
    units_used.insert(e.unit);
  }
  for (int64_t l : layers) {
    for (const auto& u : units_used) {
      const bool has = std::any_of(entries.begin(), entries.end(),
                                   [&](const Entry& e) { return e.layer == l && e.unit == u; });
      if (!has) fail("layer {} has no LoRA on unit {}, which other layers have", l, u);
    }
  }
  // target_modules: the last component of each module's name, or the last two where the
  // last one is shared by two units of a layer (GPT-2's attn.c_proj and mlp.c_proj).
  std::vector<std::string> targets;
  bool fan_in_fan_out = false;
  const int64_t l0 = *layers.begin();
  std::vector<std::string> all_modules;
  for (const auto& u : units::all()) {
    if (u.kind != units::Kind::Linear || !u.exists(model.config)) continue;
    try {
      all_modules.push_back(hf_module(model.config, l0, u.name).path);
    } catch (const Error&) {
      // fused q/k/v: not a target, but its name still counts for ambiguity below
    }
  }
  auto last_parts = [](const std::string& path, int parts) {
    size_t pos = path.size();
    for (int i = 0; i < parts; ++i) {
      pos = path.rfind('.', pos - 1);
      if (pos == std::string::npos) return path;
    }
    return path.substr(pos + 1);
  };
  for (const auto& u : units::all()) {
    if (!units_used.count(u.name)) continue;
    const ModuleName n = hf_module(model.config, l0, u.name);
    fan_in_fan_out |= n.fan_in_fan_out;
    std::string name = last_parts(n.path, 1);
    const auto shared = std::count_if(all_modules.begin(), all_modules.end(),
                                      [&](const auto& m) { return last_parts(m, 1) == name; });
    if (shared > 1) name = last_parts(n.path, 2);
    targets.push_back(name);
  }
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& e : entries) {
    const std::string module = hf_module(model.config, e.layer, e.unit).path;
    tensors.emplace_back(tensor_name(module, 'A'), e.lora->lora_A.detach());
    tensors.emplace_back(tensor_name(module, 'B'), e.lora->lora_B.detach());
  }
  const bool all_layers = static_cast<int64_t>(layers.size()) == model.num_layers();
  const std::string layers_pattern =
      model.config.family == Family::Gpt2 ? "h" : std::string("layers");
  Json cfg = {
      {"alpha_pattern", Json::object()},
      {"auto_mapping", nullptr},
      {"base_model_name_or_path", base_model.empty() ? Json() : Json(base_model)},
      {"bias", "none"},
      {"fan_in_fan_out", fan_in_fan_out},
      {"inference_mode", true},
      {"init_lora_weights", true},
      {"layer_replication", nullptr},
      {"layers_pattern", all_layers ? Json() : Json(layers_pattern)},
      {"layers_to_transform",
       all_layers ? Json() : Json(std::vector<int64_t>(layers.begin(), layers.end()))},
      {"lora_alpha", alpha},
      {"lora_dropout", 0.0},
      {"modules_to_save", nullptr},
      {"peft_type", "LORA"},
      {"r", rank},
      {"rank_pattern", Json::object()},
      {"revision", nullptr},
      {"target_modules", targets},
      {"task_type", "CAUSAL_LM"},
      {"use_dora", false},
      {"use_rslora", false},
  };
  // An integral alpha is written as an integer, as PEFT configs usually hold it.
  if (alpha == std::floor(alpha) && std::abs(alpha) < 1e15) {
    cfg["lora_alpha"] = static_cast<int64_t>(alpha);
  }
  // Written as a whole (staged, then renamed into place): a kill or a full disk never
  // leaves weights of one adapter beside the config of another.
  StagedFolder staged(out_dir);
  const fs::path dir(staged.path());
  st::write_tensors((dir / kWeightsFile).string(), tensors, {{"format", "pt"}});
  write_file_atomic((dir / kConfigFile).string(), cfg.dump(2) + "\n");
  staged.commit();
  ExportResult r;
  r.folder = out_dir;
  r.tensors = static_cast<int64_t>(tensors.size());
  r.rank = rank;
  r.alpha = alpha;
  r.target_modules = targets;
  return r;
}

}  // namespace gb::grow::peft
