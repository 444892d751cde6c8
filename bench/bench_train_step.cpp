// Training-step throughput of GrowBench's trainer (issue 5's benchmark; the PyTorch side is
// bench/train_step_torch.py, the driver bench/train_step_compare.sh). A small Llama-shaped
// model with random weights (defaults: 4 layers, d = 256, 4 heads of 64, MLP 688, vocabulary
// 2048, untied head) trained with full fine-tuning through gb::train::Trainer exactly as a
// run does it: AdamW (lr 1e-4, weight decay 0.01 on matrices), gradient clipping at 1.0,
// constant schedule, the loss read back every step; CPU float32; batch 8 x 128 tokens from a
// fixed pseudo-random sequence (a 64-bit LCG both sides share). Prints one JSON line.
//
// Usage: bench_train_step [--steps N (20)] [--warmup W (3)] [--threads T (1)]
//          [--layers L] [--hidden D] [--heads H] [--mlp P] [--vocab V] [--seq-len T]
//          [--batch B] [--save-init DIR] [--profile 1] [--shards S] [--shard-threads N]
//          [--plan JSON (default {"variant": "full"})] [--fused-adamw 1] [--fused-rope 1]
//          [--fused-norm 1] [--fused-split 1] [--fused-swiglu 1] [--fused-mask 1]
//          [--config CONFIG.json] [--ce-chunk -1|0|N] [--checkpointing 0|1]
//          [--frozen-dtype checkpoint|float32|bfloat16|float16] [--force-memory 1]
// --config builds the model of a Hugging Face config.json (random weights; --vocab is then
// the config's, and the batches draw from it) instead of the Llama shape of the size options.
// --ce-chunk is train.ce_chunk (-1 auto, 0 never, N tokens per chunk; train/chunked_ce.h),
// --checkpointing 1 train.checkpointing (activation checkpointing per decoder layer).
// --frozen-dtype is the spec's frozen_dtype (model/frozen_dtype.h): "checkpoint" (the
// default) keeps the frozen matrices in the config's torch_dtype (bf16 for the real configs;
// float32 for the Llama shape of the size options), "float32" keeps every weight float32.
// A step whose estimate (below) exceeds the available memory is refused before anything
// is built (exit 4, as `growbench-cli run` refuses it); --force-memory 1 runs it anyway.
// --threads sets LibTorch's intra-op threads (at::set_num_threads); OpenBLAS keeps its own
// pool, sized by OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS, else all cores).
// --shards S splits every batch into S blocks of rows computed on up to --shard-threads
// threads (0: the cores OpenBLAS would use), each product single-threaded (train/trainer.h
// row_shards). --fused-adamw 0 updates every tensor through LibTorch's per-tensor ops
// instead of the one-pass AdamW (train/adamw_kernel.h; the same numbers); --fused-rope 0
// computes RoPE through its tensor ops instead of the one-pass kernel (model/exact_kernels.h,
// with 1/sqrt(d_h) folded into q where it is a power of two; the same numbers); --fused-norm 0
// computes RMSNorm through its ops instead of the one-pass loops (the same numbers);
// --fused-split 0 has split linears (Grow) concatenate and pad as their ops do;
// --fused-swiglu 0 computes silu(gate) · up through its ops instead of the one-pass loops
// (the same numbers); --fused-mask 0 applies the causal mask through a boolean mask and
// masked_fill_ (the same numbers). --plan
// trains a growth plan (grow/plan.h) instead of full fine-tuning.
// --save-init writes the initial weights as a Hugging Face folder, which
// train_step_torch.py --init DIR/model.safetensors loads: both sides then train the very
// same model on the very same batches and their losses can be compared step by step.
// --profile 1 runs the measured steps under LibTorch's (legacy) profiler and adds "profile":
// per operator its self time and calls per step, and per phase of the trainer's step
// (gb::forward, gb::backward, gb::clip, gb::optimizer scopes) its total time per step;
// train_step_torch.py --profile prints the same for PyTorch, train_step_profile.sh compares.
// Profiling slows both sides down; compare its shares, not its times with unprofiled runs.
// "peak_rss_growth_mb" is the peak resident memory (VmHWM, reset where the kernel allows)
// less the resident memory before the model was built, over the load and all steps:
// "load_peak_growth_mb" building, growing and narrowing the model (the frozen part in bf16
// is built in float32 first, as a run loads it), "train_peak_growth_mb" the steps (VmHWM
// reset after the load); "estimated_peak_mb" the memory estimate of `run --dry-run` for the
// same model, plan and batch (experiment/estimate.h), the larger of its training step
// ("estimated_training_mb") and its load ("estimated_load_mb").
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include "data/packing.h"
#include "experiment/estimate.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/split_linear.h"
#include "model/config.h"
#include "model/frozen_dtype.h"
#include "model/runtime.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/tensor_io.h"
#include "train/trainer.h"
#include "util/files.h"
#include "util/json.h"
#include "util/allocator.h"
#include "util/log.h"

namespace {

struct Options {
  int64_t steps = 20, warmup = 3, threads = 1;
  int64_t layers = 4, hidden = 256, heads = 4, mlp = 688, vocab = 2048;
  int64_t seq_len = 128, batch = 8;
  std::string save_init;
  int64_t profile = 0;
  int64_t shards = 1, shard_threads = 0;
  int64_t fused_adamw = 1, fused_rope = 1, fused_norm = 1, fused_split = 1, fused_swiglu = 1,
          fused_mask = 1;
  std::string plan = R"({"variant": "full"})";
  std::string config;  // a config.json instead of the Llama shape of the size options
  int64_t ce_chunk = -1, checkpointing = 0, force_memory = 0;
  std::string frozen_dtype = "checkpoint";
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "bench_train_step: %s\n(see the comment at the top of the source)\n", why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("option " + a + " needs a value").c_str());
    const char* v = argv[++i];
    const std::map<std::string, int64_t*> ints = {{"--layers", &o.layers},
                                                  {"--hidden", &o.hidden},
                                                  {"--heads", &o.heads},
                                                  {"--mlp", &o.mlp},
                                                  {"--vocab", &o.vocab},
                                                  {"--seq-len", &o.seq_len},
                                                  {"--batch", &o.batch},
                                                  {"--steps", &o.steps},
                                                  {"--warmup", &o.warmup},
                                                  {"--threads", &o.threads},
                                                  {"--profile", &o.profile},
                                                  {"--shards", &o.shards},
                                                  {"--shard-threads", &o.shard_threads},
                                                  {"--fused-adamw", &o.fused_adamw},
                                                  {"--fused-rope", &o.fused_rope},
                                                  {"--fused-norm", &o.fused_norm},
                                                  {"--fused-split", &o.fused_split},
                                                  {"--fused-swiglu", &o.fused_swiglu},
                                                  {"--fused-mask", &o.fused_mask},
                                                  {"--ce-chunk", &o.ce_chunk},
                                                  {"--checkpointing", &o.checkpointing},
                                                  {"--force-memory", &o.force_memory}};
    if (a == "--save-init") {
      o.save_init = v;
    } else if (a == "--plan") {
      o.plan = v;
    } else if (a == "--config") {
      o.config = v;
    } else if (a == "--frozen-dtype") {
      o.frozen_dtype = v;
    } else if (ints.count(a)) {
      // The whole value must be an integer: "x" or "3x" is a usage error, not 0 or 3.
      int64_t n = 0;
      const char* end = v + std::strlen(v);
      const auto [ptr, ec] = std::from_chars(v, end, n);
      if (ec != std::errc() || ptr != end || ptr == v) {
        usage((a + " needs an integer, got '" + v + "'").c_str());
      }
      *ints.at(a) = n;
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  if (o.steps < 1 || o.warmup < 0 || o.threads < 1 || o.batch < 1 || o.seq_len < 2 ||
      o.shards < 1 || o.shard_threads < 0 || o.fused_adamw < 0 || o.fused_adamw > 1 ||
      o.fused_rope < 0 || o.fused_rope > 1 || o.fused_norm < 0 || o.fused_norm > 1 ||
      o.fused_split < 0 || o.fused_split > 1 || o.fused_swiglu < 0 || o.fused_swiglu > 1 ||
      o.fused_mask < 0 || o.fused_mask > 1 || o.ce_chunk < -1 || o.checkpointing < 0 ||
      o.checkpointing > 1 || o.force_memory < 0 || o.force_memory > 1) {
    usage(
        "steps, threads, batch, shards must be positive, warmup >= 0, seq-len >= 2, "
        "fused-*, checkpointing and force-memory 0 or 1");
  }
  return o;
}

gb::ModelConfig config(const Options& o) {
  if (!o.config.empty()) return gb::load_config(o.config);
  nlohmann::json j = {{"model_type", "llama"},
                      {"architectures", {"LlamaForCausalLM"}},
                      {"vocab_size", o.vocab},
                      {"hidden_size", o.hidden},
                      {"intermediate_size", o.mlp},
                      {"num_hidden_layers", o.layers},
                      {"num_attention_heads", o.heads},
                      {"num_key_value_heads", o.heads},
                      {"head_dim", o.hidden / o.heads},
                      {"max_position_embeddings", std::max<int64_t>(256, o.seq_len)},
                      {"rms_norm_eps", 1e-6},
                      {"rope_theta", 10000.0},
                      {"tie_word_embeddings", false},
                      {"torch_dtype", "float32"}};
  return gb::parse_config(j, "bench_train_step config");
}

// Batches of (batch, seq_len + 1) ids from a 64-bit LCG (train_step_torch.py draws the same).
std::vector<gb::data::Batch> batches(const Options& o, int count) {
  uint64_t x = 12345;
  std::vector<gb::data::Batch> out;
  for (int b = 0; b < count; ++b) {
    gb::data::Batch batch;
    batch.rows = o.batch;
    batch.seq_len = o.seq_len;
    batch.tokens.resize(static_cast<size_t>(o.batch * (o.seq_len + 1)));
    for (auto& t : batch.tokens) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      t = static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(o.vocab));
    }
    batch.step = static_cast<uint64_t>(b);
    out.push_back(std::move(batch));
  }
  return out;
}

// Self and total time per operator from the profiler's push/pop ranges (nested per thread).
struct OpTime {
  double self_us = 0, total_us = 0;
  int64_t calls = 0;
};

std::map<std::string, OpTime> aggregate(
    const torch::autograd::profiler::thread_event_lists& lists) {
  using torch::autograd::profiler::EventKind;
  using torch::autograd::profiler::LegacyEvent;
  std::map<std::string, OpTime> ops;
  for (const auto& events : lists) {
    struct Open {
      const LegacyEvent* start;
      double child_us;
    };
    std::vector<Open> stack;
    for (const auto& e : events) {
      if (e.kind() == EventKind::PushRange) {
        stack.push_back({&e, 0.0});
      } else if (e.kind() == EventKind::PopRange && !stack.empty()) {
        const Open top = stack.back();
        stack.pop_back();
        const double us = top.start->cpuElapsedUs(e);
        OpTime& t = ops[top.start->name()];
        t.self_us += us - top.child_us;
        t.total_us += us;
        ++t.calls;
        if (!stack.empty()) stack.back().child_us += us;
      }
    }
  }
  return ops;
}

// VmRSS or VmHWM of /proc/self/status in bytes (-1 when absent).
int64_t status_bytes(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  const size_t n = std::strlen(key);
  int64_t kb = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      kb = std::strtoll(line + n + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int run(int argc, char** argv) {
  namespace grow = gb::grow;
  Options o = parse(argc, argv);
  // As growbench-cli's training commands do (util/allocator.h); GB_NO_REEXEC=1 measures
  // glibc's default behaviour instead.
  gb::reexec_with_allocator_tunables(argv);
  torch::set_num_threads(static_cast<int>(o.threads));
  gb::log::set_level(spdlog::level::warn);
  const gb::ModelConfig c = config(o);
  o.vocab = c.vocab_size;  // the batches draw from the model's vocabulary
  // The frozen part's dtype, as a run keeps it (experiment/run_executor.cpp), and the
  // estimate of `run --dry-run`: a step that would not fit in the available memory is
  // refused before anything is built (exit 4), as `run` refuses it, unless --force-memory 1.
  std::optional<c10::ScalarType> narrow;
  {
    std::optional<c10::ScalarType> stored = c10::kFloat;
    if (!o.config.empty()) {
      const auto j = gb::json::parse_file(o.config);
      stored = gb::parse_dtype(j.value("torch_dtype", std::string("float32")));
    }
    narrow = gb::frozen_storage_dtype(o.frozen_dtype, c10::kFloat, stored);
  }
  const std::string frozen_name = narrow ? gb::dtype_name(*narrow) : std::string();
  gb::experiment::StepShape shape;
  shape.batch_size = o.batch;
  shape.seq_len = o.seq_len;
  shape.ce_chunk = o.ce_chunk;
  shape.checkpointing = o.checkpointing != 0;
  shape.frozen_dtype = frozen_name;
  const gb::experiment::MemoryEstimate estimate = gb::experiment::estimate_memory(
      c, grow::parse_plan(gb::json::parse(o.plan, "--plan")), shape);
  const int64_t needed = std::max(estimate.training(), estimate.load);
  if (const auto avail = gb::experiment::available_memory_bytes();
      avail && !o.force_memory && needed + gb::experiment::kProcessOverheadBytes > *avail) {
    std::fprintf(stderr,
                 "bench_train_step: the step is estimated at %s (training %s, load %s) and this "
                 "machine has %s available; not run (--force-memory 1 runs it)\n",
                 gb::experiment::format_bytes(needed).c_str(),
                 gb::experiment::format_bytes(estimate.training()).c_str(),
                 gb::experiment::format_bytes(estimate.load).c_str(),
                 gb::experiment::format_bytes(*avail).c_str());
    return 4;
  }
  torch::manual_seed(1);
  const int64_t rss0 = status_bytes("VmRSS");
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {  // VmHWM := VmRSS
    std::fputs("5", f);
    std::fclose(f);
  }
  gb::CausalLM model(c);
  gb::init_weights(*model, 0.02);
  if (!o.save_init.empty()) gb::export_hf(*model, o.save_init, "");

  grow::GrowthResult growth =
      grow::apply_plan(*model, grow::parse_plan(gb::json::parse(o.plan, "--plan")));
  if (!o.save_init.empty()) {
    // The grown model's every tensor under GrowBench's names, with requires_grad in the
    // metadata, for a reference implementation of the plan (train_step_torch.py --grown DIR).
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    nlohmann::json trainable = nlohmann::json::array();
    for (const auto& item : model->named_parameters(true)) {
      tensors.emplace_back(item.key(), item.value().detach());
      if (item.value().requires_grad()) trainable.push_back(item.key());
    }
    gb::st::write_tensors(o.save_init + "/grown.safetensors", tensors);
    gb::write_file_atomic(
        o.save_init + "/grown.json",
        nlohmann::json{{"plan", gb::json::parse(o.plan, "--plan")}, {"trainable", trainable}}.dump(
            1));
  }
  for (auto& module : model->modules()) {
    if (auto* r = dynamic_cast<grow::RowSplitLinearImpl*>(module.get())) r->fused = o.fused_split;
    if (auto* c = dynamic_cast<grow::ColSplitLinearImpl*>(module.get())) c->fused = o.fused_split;
    if (auto* m = dynamic_cast<gb::MLPImpl*>(module.get())) m->fused_swiglu = o.fused_swiglu != 0;
    if (auto* norm = dynamic_cast<gb::NormImpl*>(module.get())) norm->fused = o.fused_norm != 0;
  }
  // After the plan, so that layers it adds (depth growth) follow the flags too.
  for (auto& layer : model->all_layers()) {
    layer->self_attn->fused_rope = o.fused_rope != 0;
    layer->self_attn->fused_mask = o.fused_mask != 0;
  }
  // The frozen part in the checkpoint's dtype.
  if (narrow) gb::store_frozen_as(*model, *narrow);
  gb::train::TrainOptions to;
  to.adamw.lr = 1e-4;
  to.adamw.weight_decay = 0.01;
  to.schedule.kind = "constant";
  to.clip = 1.0;
  to.row_shards = o.shards;
  to.shard_threads = o.shard_threads;
  to.ce_chunk = o.ce_chunk;
  to.checkpointing = o.checkpointing != 0;
  // The peak of building, growing and narrowing the model (the load), then VmHWM starts
  // again for the training steps alone.
  const int64_t load_peak = status_bytes("VmHWM");
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
  gb::train::Trainer trainer(model, growth, to, torch::Device(torch::kCPU));
  trainer.optimizer().set_fused(o.fused_adamw != 0);

  const std::vector<gb::data::Batch> data = batches(o, 4);
  std::vector<double> ms, losses;
  namespace prof = torch::autograd::profiler;
  for (int64_t s = 0; s < o.warmup + o.steps; ++s) {
    if (o.profile && s == o.warmup)
      prof::enableProfilerLegacy(prof::ProfilerConfig(prof::ProfilerState::CPU));
    const auto t0 = std::chrono::steady_clock::now();
    gb::train::StepStats st = trainer.step({data[static_cast<size_t>(s) % data.size()]});
    const auto t1 = std::chrono::steady_clock::now();
    losses.push_back(st.loss);
    if (s >= o.warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  nlohmann::json profile;
  if (o.profile) {
    const double n = static_cast<double>(o.steps);
    for (const auto& [name, t] : aggregate(prof::disableProfilerLegacy())) {
      if (name.rfind("gb::", 0) == 0) {
        profile["phases"][name] = {{"total_ms", t.total_us / 1000.0 / n},
                                   {"self_ms", t.self_us / 1000.0 / n}};
      } else {
        profile["ops"][name] = {{"self_ms", t.self_us / 1000.0 / n},
                                {"calls", static_cast<double>(t.calls) / n}};
      }
    }
  }
  const int64_t train_peak = status_bytes("VmHWM");
  const int64_t peak = std::max(load_peak, train_peak);
  double total_ms = 0;
  for (double t : ms) total_ms += t;
  const int64_t tokens_per_step = o.batch * o.seq_len;
  nlohmann::json out = {
      {"impl", "growbench"},
      {"torch", TORCH_VERSION},
      {"threads", o.threads},
      {"shards", o.shards},
      {"ce_chunk", o.ce_chunk},
      {"checkpointing", o.checkpointing != 0},
      {"frozen_dtype", frozen_name.empty() ? std::string("float32") : frozen_name},
      {"shard_threads", trainer.shard_threads()},
      {"plan", gb::json::parse(o.plan, "--plan")},
      {"trainable", growth.trainable_params},
      {"steps", o.steps},
      {"warmup", o.warmup},
      {"params", gb::count_parameters(*model)},
      {"tokens_per_step", tokens_per_step},
      {"step_ms", ms},
      {"step_ms_median", median(ms)},
      {"step_ms_mean", total_ms / static_cast<double>(ms.size())},
      {"tokens_per_s", static_cast<double>(tokens_per_step) * ms.size() / (total_ms / 1000.0)},
      {"losses", losses},
      {"peak_rss_growth_mb", static_cast<double>(peak - rss0) / (1 << 20)},
      {"load_peak_growth_mb", static_cast<double>(load_peak - rss0) / (1 << 20)},
      {"train_peak_growth_mb", static_cast<double>(train_peak - rss0) / (1 << 20)},
      {"estimated_peak_mb", static_cast<double>(needed) / (1 << 20)},
      {"estimated_load_mb", static_cast<double>(estimate.load) / (1 << 20)},
      {"estimated_training_mb", static_cast<double>(estimate.training()) / (1 << 20)}};
  if (o.profile) out["profile"] = profile;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a bad --plan, an unwritable --save-init, ...
    std::fprintf(stderr, "bench_train_step: %s\n", e.what());
    return 2;
  }
}
