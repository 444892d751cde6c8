#pragma once
// Gradient all-reduce of the trainable parameters, bucketed: gradients are flattened into
// buckets of at most `bucket_bytes` (a parameter larger than that is a bucket of its own),
// every bucket is summed over the ranks by one collective (all in flight together), and the
// sums are copied back. Only the parameters the optimizer trains take part, so a growth
// plan that trains its new parameters only all-reduces those. A gradient that is undefined
// on every rank stays undefined (the optimizer skips it, as on one process); one defined on
// some ranks only counts as zeros on the others.

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/types.h>

namespace gb::dist {

class Group;

class GradientSync {
 public:
  GradientSync(std::shared_ptr<Group> group, int64_t bucket_bytes);

  // Sums the gradients of `params` over the ranks (in place in .grad()).
  void sum(const std::vector<torch::Tensor>& params);

  int64_t bucket_bytes() const { return m_bucket_bytes; }
  // The last sum(): buckets and bytes all-reduced.
  int64_t last_buckets() const { return m_last_buckets; }
  int64_t last_bytes() const { return m_last_bytes; }

 private:
  std::shared_ptr<Group> m_group;
  int64_t m_bucket_bytes;
  int64_t m_last_buckets = 0;
  int64_t m_last_bytes = 0;
};

// The buckets (lists of parameter indices, in order) that sum() forms for tensors of these
// byte sizes: consecutive, at most `bucket_bytes` each unless one tensor alone is larger.
std::vector<std::vector<size_t>> plan_buckets(const std::vector<int64_t>& bytes,
                                              int64_t bucket_bytes);

}  // namespace gb::dist
