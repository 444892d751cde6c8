#include "train/chunked_ce.h"

#include <algorithm>

#include <torch/torch.h>

#include "model/frozen_dtype.h"
#include "model/modules.h"
#include "util/error.h"

namespace gb::train {

namespace {

// The loss over chunks of rows, and, where a backward pass can follow, its gradients too: the
// loss is a sum at the end of the graph, so its gradient is known up to the incoming scalar
// before the backward pass starts. Each chunk's logits are formed once (the backward pass
// recomputed them before: one more (N × V × d) product a step), g = softmax − onehot follows
// from them at once, and dh = g W and dW = gᵀ h are summed in float32 into buffers the
// backward pass scales by the incoming gradient (in float32, then converted to h's and W's
// dtypes). dh and dW now exist from the loss's forward pass on rather than from its backward
// pass, which follows at once in a training step: about the same peak. Two (chunk × V)
// buffers serve every chunk: the logits (h's dtype; a float32 copy of them per chunk where
// that is narrower) and their float32 log-softmax, turned into g in place. Where h is
// float32, one pass over W forms a chunk's logits and the previous chunk's dh together, so a
// narrow head is converted once per chunk.
class ChunkedCrossEntropy : public torch::autograd::Function<ChunkedCrossEntropy> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& h,
                               const torch::Tensor& w, const torch::Tensor& labels, int64_t chunk,
                               double cap, bool need_h, bool need_w) {
    const int64_t n = h.size(0), v = w.size(0);
    const auto f32 = h.options().dtype(torch::kFloat);
    const bool wide_h = h.scalar_type() == torch::kFloat;
    torch::Tensor dh, dw;
    if (need_h) dh = torch::zeros(h.sizes(), f32);
    if (need_w) dw = torch::zeros(w.sizes(), f32);
    torch::Tensor total = torch::zeros({}, f32);
    const int64_t rows = std::min(chunk, n);
    torch::Tensor zbuf = torch::empty({rows, v}, h.options());
    torch::Tensor lbuf = torch::empty({rows, v}, f32);
    torch::Tensor scratch;
    // The chunk whose g (in lbuf) still owes its dh, formed with the next chunk's logits.
    torch::Tensor pending_g, pending_dh;
    for (int64_t s = 0; s < n || pending_g.defined(); s += chunk) {
      const bool more = s < n;
      const int64_t m = more ? std::min(chunk, n - s) : 0;
      const torch::Tensor hc = more ? h.narrow(0, s, m) : torch::Tensor();
      torch::Tensor zc = more ? zbuf.narrow(0, 0, m) : torch::Tensor();
      if (wide_h) {
        matmul_pair_mixed(w, hc, zc, pending_g, pending_dh, scratch);
      } else {
        // The logits in h's dtype (as the plain path forms them), dh in float32: two passes.
        torch::Tensor none;
        if (pending_g.defined()) matmul_pair_mixed(w, {}, none, pending_g, pending_dh, scratch);
        if (more) matmul_pair_mixed(w, hc, zc, {}, none, scratch);
      }
      pending_g = pending_dh = torch::Tensor();
      if (!more) break;
      torch::Tensor z = wide_h ? zc : zc.to(torch::kFloat);
      if (cap > 0) z.div_(cap).tanh_().mul_(cap);
      torch::Tensor logp = lbuf.narrow(0, 0, m);
      torch::_log_softmax_out(logp, z, 1, false);
      const torch::Tensor lab = labels.narrow(0, s, m);
      const torch::Tensor valid = lab.ne(-100);
      const torch::Tensor idx = torch::where(valid, lab, torch::zeros_like(lab)).unsqueeze(1);
      total.sub_(logp.gather(1, idx).squeeze(1).masked_fill_(valid.logical_not(), 0.0).sum());
      if (!need_h && !need_w) continue;
      // g = softmax(z) − onehot(label) on the target rows, 0 on the ignored ones.
      torch::Tensor g = logp.exp_();
      g.scatter_add_(1, idx, torch::full({m, 1}, -1.0f, g.options()));
      g.mul_(valid.unsqueeze(1).to(torch::kFloat));
      if (cap > 0) g.mul_(z.div_(cap).square_().neg_().add_(1.0));  // d(tanh(z/c)·c)/dz
      if (need_w) dw.addmm_(g.t(), wide_h ? hc : hc.to(torch::kFloat));
      if (need_h) {
        pending_g = g;
        pending_dh = dh.narrow(0, s, m);
      }
    }
    ctx->saved_data["dh"] = dh;
    ctx->saved_data["dw"] = dw;
    ctx->saved_data["h_dtype"] = static_cast<int64_t>(h.scalar_type());
    ctx->saved_data["w_dtype"] = static_cast<int64_t>(w.scalar_type());
    return total;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    if (torch::GradMode::is_enabled()) {
      fail(
          "chunked cross-entropy: no second derivatives (create_graph): its gradients are formed "
          "in the forward pass; use ce_chunk 0 for a loss that needs them");
    }
    torch::Tensor dh = ctx->saved_data["dh"].toTensor();
    torch::Tensor dw = ctx->saved_data["dw"].toTensor();
    if ((ctx->needs_input_grad(0) && !dh.defined()) ||
        (ctx->needs_input_grad(1) && !dw.defined())) {
      fail(
          "chunked cross-entropy: a second backward pass through the same loss (retain_graph) "
          "is not supported; compute the loss again");
    }
    // Given to the caller: scaled in place (float32), never held here again.
    ctx->saved_data["dh"] = torch::Tensor();
    ctx->saved_data["dw"] = torch::Tensor();
    const torch::Tensor go = grad_out[0].to(torch::kFloat);
    const auto h_dtype = static_cast<c10::ScalarType>(ctx->saved_data["h_dtype"].toInt());
    const auto w_dtype = static_cast<c10::ScalarType>(ctx->saved_data["w_dtype"].toInt());
    if (dh.defined() && ctx->needs_input_grad(0)) {
      dh = dh.mul_(go).to(h_dtype);
    } else {
      dh = torch::Tensor();
    }
    if (dw.defined() && ctx->needs_input_grad(1)) {
      dw = dw.mul_(go).to(w_dtype);
    } else {
      dw = torch::Tensor();
    }
    return {dh,
            dw,
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor(),
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
  // The gradients are formed in the forward pass only where a backward pass can follow.
  const bool grad = torch::GradMode::is_enabled();
  return ChunkedCrossEntropy::apply(h, weight, labels.reshape({-1}), chunk,
                                    softcap ? *softcap : 0.0, grad && h.requires_grad(),
                                    grad && weight.requires_grad());
}

int64_t ce_chunk_tokens(int64_t ce_chunk, int64_t tokens, int64_t vocab) {
  if (ce_chunk == 0 || tokens <= 0 || vocab <= 0) return 0;
  if (ce_chunk > 0) return std::min(ce_chunk, tokens);
  if (tokens * vocab * 4 <= kCeChunkAutoLogitBytes) return 0;
  return std::max<int64_t>(1, kCeChunkAutoChunkBytes / (vocab * 4));
}

HeadMatrix head_matrix(const CausalLMImpl& model) {
  HeadMatrix h;
  if (model.forward_override) return h;
  const HeadUnit head = model.head();
  if (const auto* linear = dynamic_cast<const LinearHeadImpl*>(head.get())) {
    h.weight = linear->weight;
    h.softcap = linear->softcap;
  } else if (const auto* tied = dynamic_cast<const TiedHeadImpl*>(head.get())) {
    if (auto e = tied->embedding.lock()) {
      h.weight = e->tied_weight();
      h.softcap = tied->softcap;
    }
  }
  return h;
}

namespace {

// The summed float32 cross-entropy of whole logits (the plain path).
torch::Tensor summed_plain_nll(const torch::Tensor& logits, const torch::Tensor& labels) {
  const int64_t v = logits.size(-1);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, v}).to(torch::kFloat), labels.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kSum));
}

// Tokens per chunk for this model and these labels; 0 = the plain path.
int64_t chunk_for(const HeadMatrix& head, const torch::Tensor& labels, int64_t ce_chunk) {
  if (!head.weight.defined()) return 0;
  return ce_chunk_tokens(ce_chunk, labels.numel(), head.weight.size(0));
}

}  // namespace

torch::Tensor summed_lm_nll(CausalLMImpl& model, const torch::Tensor& ids,
                            const torch::Tensor& labels, const ForwardOptions& options,
                            int64_t ce_chunk) {
  const HeadMatrix head = head_matrix(model);
  const int64_t chunk = chunk_for(head, labels, ce_chunk);
  if (chunk == 0) return summed_plain_nll(model.forward(ids, options), labels);
  const torch::Tensor h = model.hidden_states(ids, options);
  return chunked_cross_entropy_sum(h.reshape({-1, h.size(-1)}), head.weight, labels.reshape({-1}),
                                   chunk, head.softcap);
}

torch::Tensor summed_lm_nll_from_layers(CausalLMImpl& model, const torch::Tensor& h,
                                        const torch::Tensor& labels, int64_t ce_chunk) {
  const HeadMatrix head = head_matrix(model);
  const int64_t chunk = chunk_for(head, labels, ce_chunk);
  const torch::Tensor normed = model.final_hidden(h);
  if (chunk == 0) return summed_plain_nll(model.logits_from_hidden(normed), labels);
  return chunked_cross_entropy_sum(normed.reshape({-1, normed.size(-1)}), head.weight,
                                   labels.reshape({-1}), chunk, head.softcap);
}

}  // namespace gb::train
