#include "model/frozen_dtype.h"

#include <algorithm>
#include <map>
#include <set>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <torch/torch.h>

#include "model/modules.h"
#include "model/runtime.h"
#include "model/tensor_io.h"
#include "util/error.h"

namespace gb {

namespace F = torch::nn::functional;

namespace {

// y = x Wᵀ + b with a frozen W stored narrower than x, W converted a block of rows at a
// time (matmul_wt_mixed): only W (narrow) is kept for the backward pass, which converts it
// again, block by block, for x's gradient.
struct NarrowFrozenLinear : public torch::autograd::Function<NarrowFrozenLinear> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& w) {
    ctx->save_for_backward({w});
    auto sizes = x.sizes().vec();
    sizes.back() = w.size(0);
    return matmul_wt_mixed(x.reshape({-1, x.size(-1)}), w).view(sizes);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const torch::Tensor w = ctx->get_saved_variables()[0];
    const torch::Tensor& g = grad_out[0];
    torch::Tensor dx;
    if (ctx->needs_input_grad(0)) {
      auto sizes = g.sizes().vec();
      sizes.back() = w.size(1);
      dx = matmul_w_mixed(g.reshape({-1, g.size(-1)}), w).view(sizes);
    }
    return {dx, torch::Tensor()};
  }
};

bool narrower(c10::ScalarType a, c10::ScalarType than) {
  return c10::elementSize(a) < c10::elementSize(than);
}

}  // namespace

torch::Tensor mixed_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const auto wide = x.scalar_type();
  if (w.scalar_type() == wide && (!b.defined() || b.scalar_type() == wide)) {
    return F::linear(x, w, b);
  }
  const bool frozen = !w.requires_grad() && (!b.defined() || !b.requires_grad());
  if (frozen && x.dim() >= 1) {
    // The bias (frozen too) is added outside: a custom function takes no undefined input.
    torch::Tensor y = NarrowFrozenLinear::apply(x, w);
    return b.defined() ? y + b.to(y.scalar_type()) : y;
  }
  // A trainable narrow weight: autograd converts it as usual.
  return F::linear(x, w.to(wide), b.defined() ? b.to(wide) : b);
}

namespace {

// Rows [r, r + n) of W in `dtype`, in the first n rows of `scratch` (reallocated only where it
// is too small or of another shape or dtype).
torch::Tensor converted_rows(const torch::Tensor& w, int64_t r, int64_t n, c10::ScalarType dtype,
                             torch::Tensor& scratch) {
  const int64_t rows = std::min(kMixedBlockRows, w.size(0));
  if (!scratch.defined() || scratch.scalar_type() != dtype || scratch.dim() != 2 ||
      scratch.size(1) != w.size(1) || scratch.size(0) < rows) {
    scratch = torch::empty({rows, w.size(1)}, w.options().dtype(dtype));
  }
  torch::Tensor block = scratch.narrow(0, 0, n);
  block.copy_(w.narrow(0, r, n));
  return block;
}

}  // namespace

void matmul_pair_mixed(const torch::Tensor& w, const torch::Tensor& x, torch::Tensor& z,
                       const torch::Tensor& g, torch::Tensor& d, torch::Tensor& scratch) {
  const auto wide = x.defined() ? x.scalar_type() : g.scalar_type();
  if (w.scalar_type() == wide) {
    if (x.defined()) torch::mm_out(z, x, w.t());
    if (g.defined()) d.addmm_(g, w);
    return;
  }
  const int64_t v = w.size(0);
  for (int64_t r = 0; r < v; r += kMixedBlockRows) {
    const int64_t n = std::min(kMixedBlockRows, v - r);
    const torch::Tensor block = converted_rows(w, r, n, wide, scratch);
    if (x.defined()) {
      auto zb = z.narrow(1, r, n);
      torch::mm_out(zb, x, block.t());
    }
    if (g.defined()) d.addmm_(g.narrow(1, r, n), block);
  }
}

torch::Tensor matmul_wt_mixed(const torch::Tensor& x, const torch::Tensor& w) {
  if (w.scalar_type() == x.scalar_type()) return torch::matmul(x, w.t());
  torch::Tensor out = torch::empty({x.size(0), w.size(0)}, x.options());
  torch::Tensor none, scratch;
  matmul_pair_mixed(w, x, out, {}, none, scratch);
  return out;
}

torch::Tensor matmul_w_mixed(const torch::Tensor& g, const torch::Tensor& w) {
  if (w.scalar_type() == g.scalar_type()) return torch::matmul(g, w);
  torch::Tensor out = torch::zeros({g.size(0), w.size(1)}, g.options());
  torch::Tensor none, scratch;
  matmul_pair_mixed(w, {}, none, g, out, scratch);
  return out;
}

std::optional<c10::ScalarType> checkpoint_dtype(const std::string& folder) {
  st::Checkpoint ck(folder);
  std::map<st::DType, int64_t> elements;
  for (const auto& name : ck.names()) {
    const st::TensorInfo& info = ck.info(name);
    switch (info.dtype) {
      case st::DType::F16:
      case st::DType::BF16:
      case st::DType::F32:
      case st::DType::F64:
        elements[info.dtype] += info.numel();
        break;
      default:
        break;
    }
  }
  if (elements.empty()) return std::nullopt;
  const auto most =
      std::max_element(elements.begin(), elements.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  return st::torch_dtype(most->first);
}

std::optional<c10::ScalarType> frozen_storage_dtype(const std::string& frozen_dtype,
                                                    c10::ScalarType activations,
                                                    std::optional<c10::ScalarType> stored) {
  std::optional<c10::ScalarType> want;
  if (frozen_dtype == "checkpoint") {
    want = stored;
  } else {
    want = parse_dtype(frozen_dtype);
  }
  if (!want || !narrower(*want, activations)) return std::nullopt;
  return want;
}

FrozenStorage store_frozen_as(CausalLMImpl& model, c10::ScalarType dtype) {
  FrozenStorage r;
  // What may be stored narrow: the weights of plain linear units, and where the head is a
  // plain or tied one computed by the model's own forward pass, the embeddings and the head.
  std::vector<torch::Tensor> candidates;
  std::set<const void*> candidate_impls;
  auto consider = [&](const torch::Tensor& t) {
    if (!t.defined() || t.requires_grad() || t.dim() != 2) return;
    if (!narrower(dtype, t.scalar_type())) return;
    if (candidate_impls.insert(t.unsafeGetTensorImpl()).second) candidates.push_back(t);
  };
  std::set<const torch::nn::Module*> owners;
  for (const auto& m : model.modules(/*include_self=*/false)) {
    if (auto* dense = dynamic_cast<DenseLinearImpl*>(m.get())) {
      consider(dense->weight);
      owners.insert(m.get());
    } else if (auto* narrowable = dynamic_cast<NarrowableFrozen*>(m.get())) {
      for (const auto& t : narrowable->narrowable_matrices()) consider(t);
      owners.insert(m.get());
    }
  }
  const bool plain_head =
      !model.forward_override && (std::dynamic_pointer_cast<LinearHeadImpl>(model.lm_head) ||
                                  std::dynamic_pointer_cast<TiedHeadImpl>(model.lm_head));
  if (plain_head) {
    if (auto e = std::dynamic_pointer_cast<EmbeddingImpl>(model.model->embed_tokens)) {
      consider(e->weight);
      owners.insert(e.get());
    }
    if (model.model->embed_positions) {
      consider(model.model->embed_positions->weight);
      owners.insert(model.model->embed_positions.get());
    }
    if (auto h = std::dynamic_pointer_cast<LinearHeadImpl>(model.lm_head)) {
      consider(h->weight);
      owners.insert(h.get());
    }
  }
  // A tensor also held by a module of another kind stays as it is: that module's own
  // products expect the activations' dtype.
  std::set<const void*> elsewhere;
  for (const auto& m : model.modules(/*include_self=*/false)) {
    if (owners.count(m.get())) continue;
    for (const auto& p : m->named_parameters(/*recurse=*/false)) {
      elsewhere.insert(p.value().unsafeGetTensorImpl());
    }
  }
  torch::NoGradGuard no_grad;
  std::optional<c10::ScalarType> activations;
  for (auto& t : candidates) {
    if (elsewhere.count(t.unsafeGetTensorImpl())) continue;
    if (!activations) activations = t.scalar_type();
    const int64_t before = t.numel() * static_cast<int64_t>(t.element_size());
    t.set_data(t.to(dtype));
    r.tensors += 1;
    r.elements += t.numel();
    r.bytes_saved += before - t.numel() * static_cast<int64_t>(t.element_size());
  }
  if (r.tensors > 0) {
    model.activation_dtype = *activations;
#if defined(__GLIBC__)
    // The wide copies of matrices under the mmap threshold were freed into the heap, between
    // the narrow ones: give their pages back (measured on the Qwen3-0.6B shape: without
    // this the LoRA step's peak kept about 0.6 GiB of them resident).
    malloc_trim(0);
#endif
  }
  return r;
}

}  // namespace gb
