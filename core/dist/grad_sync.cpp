#include "dist/grad_sync.h"

#include <torch/torch.h>

#include "dist/group.h"
#include "util/error.h"

namespace gb::dist {

std::vector<std::vector<size_t>> plan_buckets(const std::vector<int64_t>& bytes,
                                              int64_t bucket_bytes) {
  std::vector<std::vector<size_t>> out;
  int64_t filled = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (out.empty() || (filled > 0 && filled + bytes[i] > bucket_bytes)) {
      out.emplace_back();
      filled = 0;
    }
    out.back().push_back(i);
    filled += bytes[i];
  }
  return out;
}

GradientSync::GradientSync(std::shared_ptr<Group> group, int64_t bucket_bytes)
    : m_group(std::move(group)), m_bucket_bytes(bucket_bytes) {
  if (bucket_bytes <= 0) fail("the gradient bucket size must be positive (got {})", bucket_bytes);
}

void GradientSync::sum(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard ng;
  // Which gradients exist anywhere: one small collective.
  std::vector<double> defined(params.size(), 0.0);
  for (size_t i = 0; i < params.size(); ++i) defined[i] = params[i].grad().defined() ? 1.0 : 0.0;
  defined = m_group->all_reduce_sum(defined);
  std::vector<torch::Tensor> live;
  for (size_t i = 0; i < params.size(); ++i) {
    if (defined[i] == 0.0) continue;
    auto p = params[i];
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    live.push_back(p);
  }
  // Buckets of one dtype and device each, in parameter order.
  std::vector<int64_t> bytes;
  for (const auto& p : live) bytes.push_back(p.numel() * p.element_size());
  std::vector<std::vector<size_t>> buckets;
  {
    std::vector<std::vector<size_t>> planned = plan_buckets(bytes, m_bucket_bytes);
    for (auto& b : planned) {
      // Split a planned bucket where the dtype or device changes.
      std::vector<size_t> cur;
      for (size_t i : b) {
        if (!cur.empty() && (live[i].scalar_type() != live[cur[0]].scalar_type() ||
                             live[i].device() != live[cur[0]].device())) {
          buckets.push_back(std::move(cur));
          cur.clear();
        }
        cur.push_back(i);
      }
      if (!cur.empty()) buckets.push_back(std::move(cur));
    }
  }
  std::vector<torch::Tensor> flat;
  flat.reserve(buckets.size());
  for (const auto& b : buckets) {
    std::vector<torch::Tensor> parts;
    for (size_t i : b) parts.push_back(live[i].grad().reshape({-1}));
    flat.push_back(torch::cat(parts));
  }
  m_group->all_reduce_sum(flat);
  m_last_bytes = 0;
  for (size_t k = 0; k < buckets.size(); ++k) {
    int64_t offset = 0;
    for (size_t i : buckets[k]) {
      auto g = live[i].grad();
      const int64_t n = g.numel();
      g.copy_(flat[k].narrow(0, offset, n).view_as(g));
      offset += n;
    }
    m_last_bytes += flat[k].numel() * flat[k].element_size();
  }
  m_last_buckets = static_cast<int64_t>(buckets.size());
}

}  // namespace gb::dist
