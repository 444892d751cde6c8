// Data-parallel training throughput (issue 16's benchmark): the same global batch trained
// by 1 process and by N processes on this machine (each with one intra-op thread), through
// gb::train::Trainer exactly as a run does it (rows sharded, trainable gradients summed over
// the ranks in buckets, clipping on the sum). A small Llama-shaped model with random weights
// (defaults: 4 layers, d = 256, 4 heads, MLP 688, vocabulary 2048), CPU float32, a global
// batch of 8 x 128 tokens. Prints one JSON line per world size: tokens/s of the whole world,
// step time, the all-reduce time per step and the bytes all-reduced per step.
//
// Usage: bench_dist [--nproc N (2)] [--steps S (20)] [--warmup W (3)] [--plan full|lora|grow]
//          [--bucket-mb MB (25)] [--layers L] [--hidden D] [--mlp P] [--vocab V]
//          [--seq-len T] [--batch B]
// The N-process measurement relaunches this program through dist::launch_local (torchrun's
// variables and a local rendezvous store), as `growbench-cli run --nproc-per-node N` does.
//
// bench_dist --table: no measurement; prints the Markdown tables of docs/distributed.md: the
// bytes all-reduced per step by each method of the quickstart spec on the quickstart preset
// and on a Qwen2-0.5B-shaped config (trainable parameters from the variants' closed-form
// estimates), and a stated model of an 8-GPU step (ring all-reduce, buckets, overlap).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "data/packing.h"
#include "dist/grad_sync.h"
#include "dist/group.h"
#include "dist/launcher.h"
#include "dist/world.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/variant.h"
#include "model/config.h"
#include "model/modules.h"
#include "train/trainer.h"
#include "util/json.h"
#include "util/log.h"

namespace {

struct Options {
  int64_t nproc = 2, steps = 20, warmup = 3;
  int64_t layers = 4, hidden = 256, heads = 4, mlp = 688, vocab = 2048;
  int64_t seq_len = 128, batch = 8;
  double bucket_mb = 25;
  std::string plan = "full";
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "bench_dist: %s\n(see the comment at the top of the source)\n", why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("option " + a + " needs a value").c_str());
    const char* v = argv[++i];
    const std::map<std::string, int64_t*> ints = {
        {"--layers", &o.layers}, {"--hidden", &o.hidden}, {"--heads", &o.heads},
        {"--mlp", &o.mlp},       {"--vocab", &o.vocab},   {"--seq-len", &o.seq_len},
        {"--batch", &o.batch},   {"--steps", &o.steps},   {"--warmup", &o.warmup},
        {"--nproc", &o.nproc}};
    if (a == "--plan") {
      o.plan = v;
    } else if (a == "--bucket-mb") {
      o.bucket_mb = std::atof(v);
    } else if (ints.count(a)) {
      *ints.at(a) = std::atoll(v);
    } else {
      usage(("unknown option " + a).c_str());
    }
  }
  if (o.steps < 1 || o.warmup < 0 || o.batch < o.nproc || o.nproc < 1 || o.bucket_mb <= 0) {
    usage("steps >= 1, warmup >= 0, batch >= nproc >= 1, bucket-mb > 0");
  }
  if (o.plan != "full" && o.plan != "lora" && o.plan != "grow") usage("--plan full|lora|grow");
  return o;
}

nlohmann::json plan_json(const std::string& plan) {
  if (plan == "lora") return {{"variant", "lora"}, {"rank", 8}, {"targets", {"q", "v"}}};
  if (plan == "grow") return {{"variant", "grow"}, {"mode", "freeze"}, {"k", 2}};
  return {{"variant", "full"}};
}

gb::ModelConfig config(const Options& o) {
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
                      {"tie_word_embeddings", false},
                      {"torch_dtype", "float32"}};
  return gb::parse_config(j, "bench_dist config");
}

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
    out.push_back(std::move(batch));
  }
  return out;
}

// Trains; prints the JSON line on rank 0 (or the single process).
void measure(const Options& o, std::shared_ptr<gb::dist::Group> group) {
  torch::set_num_threads(1);
  torch::manual_seed(1);
  gb::CausalLM model(config(o));
  gb::init_weights(*model, 0.02);
  namespace grow = gb::grow;
  grow::GrowthResult growth = grow::apply_plan(*model, grow::parse_plan(plan_json(o.plan)));
  gb::train::TrainOptions to;
  to.adamw.lr = 1e-4;
  to.schedule.kind = "constant";
  to.clip = 1.0;
  to.group = group;
  to.bucket_bytes = static_cast<int64_t>(o.bucket_mb * 1024 * 1024);
  gb::train::Trainer trainer(model, growth, to, torch::Device(torch::kCPU));
  const auto data = batches(o, 4);
  double seconds = 0, reduce_s = 0;
  int64_t tokens = 0;
  for (int64_t s = 0; s < o.warmup + o.steps; ++s) {
    const double r0 = group ? group->all_reduce_seconds() : 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto st = trainer.step({data[static_cast<size_t>(s) % data.size()]});
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < o.warmup) continue;
    seconds += dt;
    tokens += st.tokens;
    if (group) reduce_s += group->all_reduce_seconds() - r0;
  }
  if (group && !group->leader()) return;
  const auto* sync = trainer.gradient_sync();
  nlohmann::json out = {{"plan", o.plan},
                        {"nproc", group ? group->world_size() : 1},
                        {"threads_per_process", 1},
                        {"trainable_params", growth.trainable_params},
                        {"global_batch_tokens", o.batch * o.seq_len},
                        {"steps", o.steps},
                        {"step_ms", 1000.0 * seconds / static_cast<double>(o.steps)},
                        {"tokens_per_s", static_cast<double>(tokens) / seconds},
                        {"allreduce_ms_per_step", 1000.0 * reduce_s / static_cast<double>(o.steps)},
                        {"allreduce_bytes_per_step", sync ? sync->last_bytes() : 0},
                        {"buckets", sync ? sync->last_buckets() : 0}};
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);
}

// ---- --table ----------------------------------------------------------------------------

struct Shape {
  std::string name;
  nlohmann::json config;
};

std::vector<Shape> table_shapes() {
  nlohmann::json quick = {{"model_type", "llama"},
                          {"architectures", {"LlamaForCausalLM"}},
                          {"vocab_size", 2048},
                          {"hidden_size", 192},
                          {"intermediate_size", 512},
                          {"num_hidden_layers", 4},
                          {"num_attention_heads", 4},
                          {"num_key_value_heads", 4},
                          {"head_dim", 48},
                          {"max_position_embeddings", 256},
                          {"tie_word_embeddings", true}};
  // Qwen2-0.5B's published shape.
  nlohmann::json qwen = {{"model_type", "qwen2"},
                         {"architectures", {"Qwen2ForCausalLM"}},
                         {"vocab_size", 151936},
                         {"hidden_size", 896},
                         {"intermediate_size", 4864},
                         {"num_hidden_layers", 24},
                         {"num_attention_heads", 14},
                         {"num_key_value_heads", 2},
                         {"max_position_embeddings", 32768},
                         {"tie_word_embeddings", true}};
  return {{"quickstart preset (tiny-llama 192/512/4 layers, vocabulary 2048)", quick},
          {"Qwen2-0.5B shape (896/4864/24 layers, 14 q / 2 kv heads, vocabulary 151 936)", qwen}};
}

// The quickstart spec's plans (resources/experiments/quickstart.json), SCALE scaled to the
// model (d_up = one kv group of heads ... per shape), and a LoRA on q and v.
std::vector<nlohmann::json> table_plans(const gb::ModelConfig& c) {
  const int64_t group = c.head_dim * (c.num_heads / c.num_kv_heads);
  const int64_t d_up = std::max<int64_t>(group, c.hidden_size / 4 / group * group);
  return {
      {{"variant", "full"}, {"name", "Full fine-tuning"}},
      {{"variant", "lora"},
       {"name", "LoRA r=16, all projections"},
       {"rank", 16},
       {"alpha", 32},
       {"targets", {"q", "k", "v", "o", "gate", "up", "down"}}},
      {{"variant", "lora"}, {"name", "LoRA r=8, q and v"}, {"rank", 8}, {"targets", {"q", "v"}}},
      {{"variant", "grow"},
       {"name", "Grow G-Freeze k=2, all layers"},
       {"mode", "freeze"},
       {"k", 2}},
      {{"variant", "depth"},
       {"name", "ADEPT, 2 layers"},
       {"style", "adept"},
       {"layers", {{"policy", "least-important"}, {"k", 2}, {"score", "masking"}}}},
      {{"variant", "neutral-residues"},
       {"name", "Neutral residues, 20 % budget"},
       {"gate", "elu"},
       {"budget", 0.2}},
      {{"variant", "scale"},
       {"name", fmt::format("SCALE-Preserve d_up={} p_up={}", d_up, c.intermediate_size / 4)},
       {"mode", "preserve"},
       {"d_up", d_up},
       {"p_up", c.intermediate_size / 4}},
  };
}

void print_table() {
  // The stated model of one data-parallel step on 8 GPUs (docs/distributed.md).
  const double gpus = 8, flops = 400e12, beta = 100e9, alpha = 10e-6;
  const double tokens = 8 * 1024;  // per GPU and step
  const double grad_bytes = 2;     // bf16 gradients at scale; fp32 (4) on this CPU
  const double bucket = 25.0 * 1024 * 1024;
  std::printf(
      "| model | method | trainable parameters | share | fp32 bytes / step | "
      "bf16 bytes / step | vs full |\n|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<std::string> model_rows;
  for (const auto& shape : table_shapes()) {
    const gb::ModelConfig c = gb::parse_config(shape.config, shape.name);
    const double base = static_cast<double>(c.param_count());
    double full = 0;
    for (const auto& pj : table_plans(c)) {
      gb::grow::GrowthPlan p = gb::grow::parse_plan(pj);
      const auto& m = gb::grow::variant_module(p.variant);
      if (m.resolve) m.resolve(*p.params.get(), c, "plan");
      const double n = static_cast<double>(m.estimate(*p.params.get(), c).trainable);
      if (p.variant == "full") full = n;
      std::printf("| %s | %s | %.0f | %.2f %% | %.1f MB | %.1f MB | %.1f %% |\n",
                  shape.name.c_str(), pj["name"].get<std::string>().c_str(), n, 100 * n / base,
                  4 * n / 1e6, 2 * n / 1e6, 100 * n / full);
      // The 8-GPU step model: ring all-reduce of S bytes in b buckets moves 2(N-1)/N·S per
      // GPU and pays 2(N-1) latency steps per bucket; backward = dX (2·P·T FLOPs) + dW of the
      // trainable (2·n·T); overlap hides all but the last bucket behind backward.
      const double S = grad_bytes * n;
      const double buckets = std::max(1.0, std::ceil(S / bucket));
      const double comm = 2 * (gpus - 1) / gpus * S / beta + buckets * 2 * (gpus - 1) * alpha;
      const double last =
          2 * (gpus - 1) / gpus * std::min(S, bucket) / beta + 2 * (gpus - 1) * alpha;
      const double fwd = 2 * base * tokens / flops;
      const double bwd = (2 * base + 2 * n) * tokens / flops;
      const double exposed_overlap = last + std::max(0.0, comm - last - bwd);
      const double one_bucket = 2 * (gpus - 1) / gpus * S / beta + 2 * (gpus - 1) * alpha;
      model_rows.push_back(fmt::format(
          "| {} | {} | {:.1f} | {:.1f} | {:.2f} | {:.2f} | {:.2f} | {:.0f} % |", shape.name,
          pj["name"].get<std::string>(), 1e3 * (fwd + bwd), buckets, 1e3 * one_bucket, 1e3 * comm,
          1e3 * exposed_overlap, 100 * (fwd + bwd) / (fwd + bwd + exposed_overlap)));
    }
  }
  std::printf(
      "\n| model | method | compute ms / step | buckets of 25 MiB | all-reduce ms, one "
      "bucket | all-reduce ms, 25 MiB buckets | exposed ms with overlap | scaling "
      "efficiency |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& r : model_rows) std::printf("%s\n", r.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--table") {
    gb::log::set_level(spdlog::level::warn);
    print_table();
    return 0;
  }
  const Options o = parse(argc, argv);
  gb::log::set_level(spdlog::level::warn);
  const gb::dist::WorldInfo world = gb::dist::detect_world();
  if (world.distributed()) {
    gb::dist::GroupOptions go;
    go.timeout_s = 120;
    go.device = "cpu";
    measure(o, gb::dist::Group::join(world, go));
    return 0;
  }
  measure(o, nullptr);
  if (o.nproc > 1) {
    if (!gb::dist::available()) {
      std::fprintf(stderr, "bench_dist: %s\n", gb::dist::unavailable_reason().c_str());
      return 1;
    }
    gb::dist::LaunchOptions lo;
    lo.nproc = o.nproc;
    lo.program = "/proc/self/exe";
    auto cmd = gb::dist::own_command_line();
    lo.args.assign(cmd.begin() + 1, cmd.end());
    lo.timeout_s = 120;
    return gb::dist::launch_local(lo).exit_code;
  }
  return 0;
}
