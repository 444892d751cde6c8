#include "experiment/preset.h"

#include "util/build_paths.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <torch/torch.h>
#include <unistd.h>

#include "data/packing.h"
#include "experiment/sources.h"
#include "grow/growth.h"
#include "model/config.h"
#include "model/hf_io.h"
#include "model/tokenizer.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/events.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::experiment {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {
// Bump when the preset builder changes what it produces for the same spec.
constexpr int kBuilderVersion = 1;
}  // namespace

Json tiny_llama_config(int64_t vocab_size, const Json& overrides) {
  Json c = {{"architectures", {"LlamaForCausalLM"}},
            {"model_type", "llama"},
            {"vocab_size", vocab_size},
            {"hidden_size", 256},
            {"intermediate_size", 688},
            {"num_hidden_layers", 4},
            {"num_attention_heads", 4},
            {"num_key_value_heads", 4},
            {"head_dim", 64},
            {"hidden_act", "silu"},
            {"max_position_embeddings", 512},
            {"rms_norm_eps", 1e-5},
            {"rope_theta", 10000.0},
            {"tie_word_embeddings", true},
            {"attention_bias", false},
            {"mlp_bias", false},
            {"torch_dtype", "float32"}};
  for (auto it = overrides.begin(); it != overrides.end(); ++it) c[it.key()] = it.value();
  return c;
}

std::string preset_key(const PresetSpec& preset, uint64_t seed) {
  Json k = {{"builder", kBuilderVersion}, {"preset", preset.raw}, {"seed", seed}};
  // QA and biography stages train with a new document order each epoch since the builder's
  // first version; presets with such a stage get a key of their own, text-only presets keep
  // theirs.
  for (const auto& st : preset.stages) {
    if (reorders_documents(st.data)) k["documents"] = "reordered each epoch";
  }
  std::string s = k.dump();
  return hex64(fnv1a64(s.data(), s.size()));
}

std::vector<std::string> preset_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* r = std::getenv("GROWBENCH_RESOURCES"))
    dirs.push_back(std::string(r) + "/presets");
#ifdef GB_SOURCE_RESOURCES
  dirs.push_back(std::string(GB_SOURCE_RESOURCES) + "/presets");
#endif
#ifdef GB_INSTALL_DATADIR
  dirs.push_back(std::string(GB_INSTALL_DATADIR) + "/presets");
#endif
  // Relocatable installs (the Debian package under /usr, an unpacked tree): the data folder
  // beside the running program, <exe dir>/../share/growbench.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share/growbench/presets").string());
  return dirs;
}

namespace {

bool is_complete(const fs::path& dir) {
  return fs::exists(dir / "config.json") && fs::exists(dir / "model.safetensors") &&
         fs::exists(dir / "tokenizer.json") && fs::exists(dir / "preset.json");
}

std::string build(const PresetSpec& preset, uint64_t seed, const fs::path& final_dir,
                  const std::string& cache_dir, const Progress& progress,
                  const std::function<void(const events::Event&)>& on_event) {
  auto logger = log::get("preset");
  const std::string key = final_dir.filename().string();
  logger->info("building preset {} ({}) into {}", preset.preset, key, final_dir.string());

  // 1. Tokenizer: byte-level BPE on the tokenizer text.
  std::vector<std::string> texts;
  for (const auto& src : preset.tokenizer_data) {
    for (auto& d : source_documents(src, seed)) texts.push_back(std::move(d.text));
  }
  std::string tok_json =
      tok::train_byte_level_bpe(texts, static_cast<int>(preset.vocab_size), {"<|endoftext|>"});
  tok::Tokenizer tokenizer = tok::Tokenizer::from_json(tok_json, "preset tokenizer");
  auto eos = tokenizer.token_to_id("<|endoftext|>");

  // 2. Architecture and initial weights.
  Json cfg_json = tiny_llama_config(tokenizer.vocab_size(), preset.config);
  if (eos) {
    cfg_json["eos_token_id"] = *eos;
    cfg_json["bos_token_id"] = *eos;
  }
  ModelConfig cfg = parse_config(cfg_json, "preset config");
  torch::manual_seed(seed);
  CausalLM model(cfg);
  init_weights(*model, 0.02);

  // 3. Training stages (full training of every parameter).
  data::TextEncoder encoder = data::encoder_for(tokenizer);
  Json losses = Json::array();
  for (size_t si = 0; si < preset.stages.size(); ++si) {
    const PretrainStage& st = preset.stages[si];
    auto stream = source_tokens(st.data, encoder, seed, "preset-" + st.name, cache_dir);
    data::BatcherOptions bo;
    bo.seq_len = st.seq_len;
    bo.batch_size = st.batch_size;
    bo.seed = seed + si;
    bo.shuffle_documents = reorders_documents(st.data);
    data::Batcher batcher(stream, bo);
    grow::GrowthPlan full = grow::parse_plan(Json{{"variant", "full"}});
    grow::GrowthResult g = grow::apply_plan(*model, full);
    train::TrainOptions to;
    to.adamw.lr = st.lr;
    to.adamw.beta2 = 0.95;
    to.adamw.weight_decay = 0.1;
    to.schedule.kind = "cosine";
    to.schedule.warmup = st.warmup;
    to.schedule.total = st.steps;
    to.schedule.min_ratio = 0.1;
    train::Trainer trainer(model, g, to, torch::kCPU);
    Progress stage_progress = progress;
    stage_progress.begin("pretrain/" + st.name);
    auto start = std::chrono::steady_clock::now();
    double last = 0;
    int64_t tokens = 0;
    for (int64_t s = 0; s < st.steps; ++s) {
      auto stats = trainer.step({batcher.next()});
      last = stats.lm_loss;
      tokens += stats.tokens;
      if ((s + 1) % 10 == 0 || s + 1 == st.steps) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double frac = double(s + 1) / st.steps;
        stage_progress.report(frac, fmt::format("loss {:.3f}", last));
        if (on_event) {
          events::Progress e;
          e.stage = "pretrain/" + st.name;
          e.step = s + 1;
          e.total = st.steps;
          e.loss = last;
          e.tokens_per_s = tokens / std::max(el, 1e-9);
          e.eta_s = el * (1 - frac) / frac;
          on_event(events::Event(e));
        }
      }
    }
    losses.push_back({{"stage", st.name}, {"final_loss", last}, {"steps", st.steps}});
    logger->info("preset stage {}: {} steps, final loss {:.4f}", st.name, st.steps, last);
  }
  for (auto& p : model->parameters(true)) p.set_requires_grad(false);

  // 4. Write atomically: a temporary folder renamed into place.
  fs::create_directories(final_dir.parent_path());
  fs::path tmp = final_dir.parent_path() / (".tmp-" + key + "-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  // export_hf writes its folder as a whole (staged, renamed into place), so the tokenizer
  // goes in after it.
  export_hf(*model, tmp.string(), "");
  write_file_atomic((tmp / "tokenizer.json").string(), tok_json);
  Json meta = {{"preset", preset.raw}, {"seed", seed},
               {"key", key},           {"builder_version", kBuilderVersion},
               {"stages", losses},     {"growbench_version", GB_VERSION}};
  write_file_atomic((tmp / "preset.json").string(), meta.dump(2) + "\n");
  std::error_code ec;
  // A folder left incomplete (an interrupted copy by hand, an older builder) is replaced.
  if (fs::exists(final_dir) && !is_complete(final_dir)) {
    logger->warn("replacing the incomplete preset folder {}", final_dir.string());
    fs::remove_all(final_dir, ec);
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) {
    fs::remove_all(tmp);
    if (!is_complete(final_dir))
      fail("cannot move the built preset into {}: {}", final_dir.string(), ec.message());
  }
  return final_dir.string();
}

}  // namespace

std::string ensure_preset(const PresetSpec& preset, uint64_t seed, const std::string& cache_dir,
                          const Progress& progress,
                          const std::function<void(const events::Event&)>& on_event) {
  const std::string key = preset.preset + "-" + preset_key(preset, seed);
  for (const auto& dir : preset_search_dirs()) {
    fs::path p = fs::path(dir) / key;
    if (is_complete(p)) {
      log::get("preset")->info("using shipped preset {}", p.string());
      return p.string();
    }
  }
  fs::path cached = fs::path(cache_dir) / "presets" / key;
  if (is_complete(cached)) {
    log::get("preset")->info("using cached preset {}", cached.string());
    return cached.string();
  }
  return build(preset, seed, cached, cache_dir, progress, on_event);
}

}  // namespace gb::experiment
