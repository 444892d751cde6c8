#include "train/chunked_ce.h"

#include <algorithm>

#include <torch/torch.h>

#include "model/frozen_dtype.h"
#include "util/error.h"

namespace gb::train {

namespace {

// One chunk's float32 logits, and tanh(z / cap) where capped (its derivative needs it).
struct ChunkLogits {
  torch::Tensor logits, t;
};

ChunkLogits chunk_logits(const torch::Tensor& hc, const torch::Tensor& w, double cap) {
  ChunkLogits r;
  r.logits = matmul_wt_mixed(hc, w).to(torch::kFloat);
  if (cap > 0) {
    r.t = torch::tanh(r.logits / cap);
    r.logits = r.t * cap;
  }
  return r;
}

class ChunkedCrossEntropy : public torch::autograd::Function<ChunkedCrossEntropy> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& h,
                               const torch::Tensor& w, const torch::Tensor& labels, int64_t chunk,
                               double cap) {
    ctx->save_for_backward({h, w, labels});
    ctx->saved_data["chunk"] = chunk;
    ctx->saved_data["cap"] = cap;
    const int64_t n = h.size(0);
    torch::Tensor total = torch::zeros({}, h.options().dtype(torch::kFloat));
    for (int64_t s = 0; s < n; s += chunk) {
      const int64_t m = std::min(chunk, n - s);
      const torch::Tensor z = chunk_logits(h.narrow(0, s, m), w, cap).logits;
      const torch::Tensor lab = labels.narrow(0, s, m);
      const torch::Tensor valid = lab.ne(-100);
      const torch::Tensor picked =
          z.gather(1, torch::where(valid, lab, torch::zeros_like(lab)).unsqueeze(1)).squeeze(1);
      const torch::Tensor lse = torch::logsumexp(z, 1);
      total.add_((lse - picked).masked_fill_(valid.logical_not(), 0.0).sum());
    }
    return total;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& h = saved[0];
    const torch::Tensor& w = saved[1];
    const torch::Tensor& labels = saved[2];
    const int64_t chunk = ctx->saved_data["chunk"].toInt();
    const double cap = ctx->saved_data["cap"].toDouble();
    const torch::Tensor go = grad_out[0].to(torch::kFloat);
    const bool need_h = ctx->needs_input_grad(0), need_w = ctx->needs_input_grad(1);
    torch::Tensor dh, dw;
    if (need_h) dh = torch::empty_like(h);
    if (need_w) dw = torch::zeros(w.sizes(), w.options().dtype(torch::kFloat));
    const int64_t n = h.size(0);
    for (int64_t s = 0; s < n; s += chunk) {
      const int64_t m = std::min(chunk, n - s);
      const torch::Tensor hc = h.narrow(0, s, m);
      ChunkLogits cl = chunk_logits(hc, w, cap);
      const torch::Tensor lab = labels.narrow(0, s, m);
      const torch::Tensor valid = lab.ne(-100);
      // g = (softmax(z) − onehot(label)) · go on the target rows, 0 on the ignored ones.
      torch::Tensor g = torch::softmax(cl.logits, 1);
      cl.logits = torch::Tensor();
      const torch::Tensor idx = torch::where(valid, lab, torch::zeros_like(lab)).unsqueeze(1);
      g.scatter_add_(1, idx, torch::full({m, 1}, -1.0f, g.options()));
      g.mul_(valid.unsqueeze(1).to(torch::kFloat).mul_(go));
      if (cap > 0) g.mul_(1.0 - cl.t.square());  // d(tanh(z/c)·c)/dz = 1 − tanh²
      cl.t = torch::Tensor();
      const torch::Tensor gh = g.to(h.scalar_type());
      if (need_h) dh.narrow(0, s, m).copy_(matmul_w_mixed(gh, w));
      if (need_w) dw.addmm_(g.t(), hc.to(torch::kFloat));
    }
    return {dh, need_w ? dw.to(w.scalar_type()) : torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor chunked_cross_entropy_sum(const torch::Tensor& h, const torch::Tensor& weight,
                                        const torch::Tensor& labels, int64_t chunk,
                                        std::optional<double> softcap) {
  if (h.dim() != 2 || weight.dim() != 2 || h.size(1) != weight.size(1)) {
    fail("chunked cross-entropy: hidden states (N, d) and a head weight (V, d) expected");
  }
  if (labels.numel() != h.size(0)) fail("chunked cross-entropy: one label per row expected");
  if (chunk < 1) fail("chunked cross-entropy: chunk must be at least 1 token");
  if (softcap && *softcap <= 0) fail("chunked cross-entropy: a softcap must be positive");
  return ChunkedCrossEntropy::apply(h, weight, labels.reshape({-1}), chunk,
                                    softcap ? *softcap : 0.0);
}

int64_t ce_chunk_tokens(int64_t ce_chunk, int64_t tokens, int64_t vocab) {
  if (ce_chunk == 0 || tokens <= 0 || vocab <= 0) return 0;
  if (ce_chunk > 0) return std::min(ce_chunk, tokens);
  if (tokens * vocab * 4 <= kCeChunkAutoLogitBytes) return 0;
  return std::max<int64_t>(1, kCeChunkAutoChunkBytes / (vocab * 4));
}

}  // namespace gb::train
