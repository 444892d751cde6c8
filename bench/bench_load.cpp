// Checkpoint load benchmark: generates Llama-shaped checkpoints (float32, and the same weights
// in bfloat16) in a temporary folder, then times
//   (a) opening and validating the checkpoint (memory map + header checks),
//   (b) converting every tensor to a torch float32 tensor with st::to_tensor,
//   (c) the bfloat16 checkpoint converted to float32,
//   (d) st::write_tensors of the float32 weights (atomic: temporary file, fsync, rename),
// with a single-threaded memcpy of the same bytes into fresh memory, and into memory that is
// already faulted in (the memory-bandwidth ceiling), as references.
// Each figure is the best of N runs after one warm-up run; the page cache is warm (the files
// were just written and the warm-up reads them), so (b) and (c) measure memory, not disk.
//
// Usage: bench_load [MB (default 512)] [runs (default 3)] [folder (default $TMPDIR or /tmp)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "util/error.h"

namespace fs = std::filesystem;
namespace st = gb::st;

namespace {

using Tensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Llama-like shapes (hidden 1024, MLP 2816, GQA with 4 kv heads of 64, vocabulary up to 32000,
// untied embeddings), with as many layers as it takes to reach `target` bytes in float32.
Tensors llama_like(int64_t target) {
  const int64_t d = 1024, p = 2816, kv = 256;
  const int64_t vocab = std::max<int64_t>(1000, std::min<int64_t>(32000, target / 2 / (2 * d * 4)));
  const int64_t layer_bytes = (2 * d * d + 2 * kv * d + 3 * p * d + 2 * d) * 4;
  const int64_t layers =
      std::max<int64_t>(1, std::llround(double(target - 2 * vocab * d * 4) / layer_bytes));
  Tensors out;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    out.emplace_back(name, torch::randn(shape) * 0.02);
  };
  add("model.embed_tokens.weight", {vocab, d});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string pre = "model.layers." + std::to_string(l) + ".";
    add(pre + "input_layernorm.weight", {d});
    add(pre + "self_attn.q_proj.weight", {d, d});
    add(pre + "self_attn.k_proj.weight", {kv, d});
    add(pre + "self_attn.v_proj.weight", {kv, d});
    add(pre + "self_attn.o_proj.weight", {d, d});
    add(pre + "post_attention_layernorm.weight", {d});
    add(pre + "mlp.gate_proj.weight", {p, d});
    add(pre + "mlp.up_proj.weight", {p, d});
    add(pre + "mlp.down_proj.weight", {d, p});
  }
  add("model.norm.weight", {d});
  add("lm_head.weight", {vocab, d});
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One warm-up run, then the best of `runs`.
double best_of(int runs, const std::function<void()>& f) {
  f();
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

void report(const char* what, double bytes, double seconds) {
  std::printf("%-44s %9.1f MB  %9.4f s  %7.2f GB/s\n", what, bytes / 1e6, seconds,
              bytes / seconds / 1e9);
}

// Converts every tensor of the checkpoint; the results live until the end of the run, so each
// run allocates (and page-faults) fresh memory, as a real load does.
double load_all(const st::Checkpoint& ck, c10::optional<torch::ScalarType> target) {
  std::vector<torch::Tensor> keep;
  double bytes = 0;
  for (const std::string& name : ck.names()) {
    keep.push_back(st::to_tensor(ck, name, target));
    bytes += keep.back().nbytes();
  }
  return bytes;
}

int run(int argc, char** argv) {
  const double mb = argc > 1 ? std::atof(argv[1]) : 512;
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  fs::path base = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path();
  if (mb <= 0) gb::fail("bench_load: MB must be positive, got '{}'", argv[1]);

  std::string tmpl = (base / "gb-bench-load-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) gb::fail("bench_load: cannot create a folder in {}", base.string());
  const fs::path dir(tmpl);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  fs::create_directories(dir / "f32");
  fs::create_directories(dir / "bf16");

  torch::manual_seed(0);
  const Tensors f32 = llama_like(static_cast<int64_t>(mb * 1024 * 1024));
  Tensors bf16;
  double f32_bytes = 0, bf16_bytes = 0;
  for (const auto& [name, t] : f32) {
    bf16.emplace_back(name, t.to(torch::kBFloat16));
    f32_bytes += t.nbytes();
    bf16_bytes += bf16.back().second.nbytes();
  }
  const std::string f32_file = (dir / "f32" / "model.safetensors").string();
  const std::string bf16_file = (dir / "bf16" / "model.safetensors").string();
  st::write_tensors(bf16_file, bf16);

  std::printf("bench_load: %zu Llama-shaped tensors, %.1f MB float32 / %.1f MB bfloat16, in %s\n",
              f32.size(), f32_bytes / 1e6, bf16_bytes / 1e6, dir.c_str());
  std::printf("LibTorch %s, %d intra-op threads, %ld CPUs online\n", TORCH_VERSION,
              at::get_num_threads(), ::sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("best of %d runs after 1 warm-up; page cache warm (files just written and read)\n",
              runs);

  const double t_write = best_of(runs, [&] { st::write_tensors(f32_file, f32); });

  const double t_open = best_of(runs, [&] { st::Checkpoint ck((dir / "f32").string()); });

  st::Checkpoint ck32((dir / "f32").string());
  st::Checkpoint ck16((dir / "bf16").string());

  double ref_bytes = 0;
  const double t_memcpy = best_of(runs, [&] {
    std::vector<torch::Tensor> keep;
    ref_bytes = 0;
    for (const std::string& name : ck32.names()) {
      const st::TensorInfo& info = ck32.info(name);
      keep.push_back(torch::empty(info.shape));
      std::memcpy(keep.back().data_ptr(), ck32.data(name), info.end - info.begin);
      ref_bytes += info.end - info.begin;
    }
  });

  // The ceiling: the same bytes copied into memory that is already faulted in.
  std::vector<uint8_t> prefaulted(static_cast<size_t>(ref_bytes), 1);
  const double t_bandwidth = best_of(runs, [&] {
    size_t at = 0;
    for (const std::string& name : ck32.names()) {
      const st::TensorInfo& info = ck32.info(name);
      std::memcpy(prefaulted.data() + at, ck32.data(name), info.end - info.begin);
      at += info.end - info.begin;
    }
  });

  double out32 = 0, out16 = 0, out16n = 0;
  const double t_f32 = best_of(runs, [&] { out32 = load_all(ck32, torch::kFloat); });
  const double t_bf16 = best_of(runs, [&] { out16 = load_all(ck16, torch::kFloat); });
  const double t_bf16n = best_of(runs, [&] { out16n = load_all(ck16, c10::nullopt); });

  std::printf("\n");
  std::printf("(a) open + validate checkpoint (header only)   %9.1f MB  %9.4f s\n", f32_bytes / 1e6,
              t_open);
  report("(b) to_tensor f32 file -> float32", out32, t_f32);
  report("(c) to_tensor bf16 file -> float32 (output)", out16, t_bf16);
  report("    same, counted as bf16 bytes read", bf16_bytes, t_bf16);
  report("    to_tensor bf16 file -> bfloat16", out16n, t_bf16n);
  report("    reference: memcpy, 1 thread, fresh memory", ref_bytes, t_memcpy);
  report("    reference: memcpy, 1 thread, pre-faulted", ref_bytes, t_bandwidth);
  report("(d) write_tensors f32 (fsync + rename)", f32_bytes, t_write);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_load: %s\n", e.what());
    return 1;
  }
}
