#pragma once
// The frozen base in the checkpoint's dtype (issue 38): during training, the frozen weight
// matrices of a model (plain linear units, the token and position embeddings, a plain or tied
// LM head) may be stored in a narrower dtype than the activations (bfloat16 or float16 beside
// float32), while trainable and new parameters, their gradients and the optimizer state stay
// float32. A frozen matrix is converted to the activations' dtype only where a product needs
// it: a linear unit's whole weight for its product (forward, and again in the backward pass
// for the input's gradient, never kept), a large head a block of rows at a time.
//
// Where every weight has the activations' dtype nothing changes: the products are the same
// calls on the same operands as before, bit for bit.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>
#include <torch/types.h>

namespace gb {

class CausalLMImpl;

// y = x Wᵀ + b (F::linear). Where W has x's dtype: F::linear itself. Where a frozen W (and b)
// is narrower: converted for the product, and the backward pass converts W again for x's
// gradient instead of keeping the converted copy (only the narrow W is saved).
torch::Tensor mixed_linear(const torch::Tensor& x, const torch::Tensor& w,
                           const torch::Tensor& b = {});

// x Wᵀ for x (N, d) and W (V, d), and g W for g (N, V): where W has x's (g's) dtype, one
// matmul; where it is narrower, W is converted `kMixedBlockRows` rows at a time (no more
// than one block's wider copy exists).
constexpr int64_t kMixedBlockRows = 8192;
torch::Tensor matmul_wt_mixed(const torch::Tensor& x, const torch::Tensor& w);
torch::Tensor matmul_w_mixed(const torch::Tensor& g, const torch::Tensor& w);

// One pass over W for two products that share it, into a caller's memory (the chunked
// cross-entropy: one chunk's logits and the previous chunk's dh): z = x Wᵀ (N, V) where x is
// defined, and d += g W (M, d) where g is defined. A narrower W is converted one block of
// rows at a time, once for both products, into `scratch` (kept between calls, grown on
// demand) rather than into memory allocated anew: a block of tens of MiB is above the
// allocator's mmap threshold, and each of its pages would be faulted in and zeroed again at
// several times the cost of the conversion itself. Where W has the operands' dtype: one mm
// and one addmm, the scratch unused.
void matmul_pair_mixed(const torch::Tensor& w, const torch::Tensor& x, torch::Tensor& z,
                       const torch::Tensor& g, torch::Tensor& d, torch::Tensor& scratch);

// The dtype most of a checkpoint's floating-point elements are stored in (its safetensors
// headers; a folder or a .safetensors file), or nullopt where there are no weights to read.
std::optional<c10::ScalarType> checkpoint_dtype(const std::string& folder);

// Spec `frozen_dtype` ("checkpoint", "float32", "bfloat16", "float16") for a run whose
// activations are `activations` and whose checkpoint stores `stored`: the dtype frozen
// matrices are kept in, or nullopt where they stay as they are (never wider than the
// activations; "checkpoint" of a float32 checkpoint changes nothing).
std::optional<c10::ScalarType> frozen_storage_dtype(const std::string& frozen_dtype,
                                                    c10::ScalarType activations,
                                                    std::optional<c10::ScalarType> stored);

// A linear unit of another kind than the plain one whose frozen matrices may be stored
// narrower, because its forward and backward passes convert them where a product needs them
// (grow/split_linear.h: the frozen half of a grown projection). store_frozen_as narrows those
// of the listed matrices that take no gradient.
class NarrowableFrozen {
 public:
  virtual ~NarrowableFrozen() = default;
  virtual std::vector<torch::Tensor> narrowable_matrices() const = 0;
};

struct FrozenStorage {
  int64_t tensors = 0;      // matrices converted
  int64_t elements = 0;     // their elements
  int64_t bytes_saved = 0;  // memory given back
};

// Stores the frozen matrices of `model` (requires_grad false) of plain linear units, of units
// that declare them narrowable (NarrowableFrozen), the embeddings and a plain or tied head in
// `dtype`, and sets model.activation_dtype so the
// hidden states keep their dtype. A tensor another kind of module also holds (a SCALE unit
// built around a base weight) stays as it is, and so does a model with a forward override
// or a head of its own kind for its embedding and head. Norms and biases of one dimension
// stay as they are (small). Call it after growth and freezing, before the optimizer is built.
FrozenStorage store_frozen_as(CausalLMImpl& model, c10::ScalarType dtype);

}  // namespace gb
