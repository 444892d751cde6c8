#include "train/optimizer.h"

#include <cmath>

#include <torch/torch.h>

#include "train/adamw_kernel.h"
#include "train/parallel.h"
#include "util/error.h"
#include "util/torch_compat.h"

namespace gb::train {

AdamW::AdamW(std::vector<OptimGroup> groups, const AdamWOptions& options)
    : m_groups(std::move(groups)), m_options(options), m_fused(adamw_fused_available()) {
  for (auto& g : m_groups) {
    if (g.names.size() != g.params.size()) {
      fail("optimizer group '{}': {} names for {} parameters", g.name, g.names.size(),
           g.params.size());
    }
    std::vector<torch::Tensor> m, v;
    for (auto& p : g.params) {
      if (!p.requires_grad()) fail("optimizer group '{}' holds a frozen tensor", g.name);
      // Moments in float32 even for reduced-precision parameters.
      m.push_back(torch::zeros_like(p, torch::TensorOptions().dtype(torch::kFloat)));
      v.push_back(torch::zeros_like(p, torch::TensorOptions().dtype(torch::kFloat)));
    }
    m_exp_avg.push_back(std::move(m));
    m_exp_avg_sq.push_back(std::move(v));
  }
}

std::vector<torch::Tensor> AdamW::parameters() const {
  std::vector<torch::Tensor> out;
  for (const auto& g : m_groups) out.insert(out.end(), g.params.begin(), g.params.end());
  return out;
}

void AdamW::zero_grad() {
  for (auto& g : m_groups) {
    for (auto& p : g.params) {
      if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
    }
  }
}

void AdamW::step(double lr, int64_t threads, const torch::Tensor& grad_scale) {
  ++m_step;
  const double b1 = m_options.beta1, b2 = m_options.beta2;
  const double bc1 = 1.0 - std::pow(b1, static_cast<double>(m_step));
  const double bc2 = 1.0 - std::pow(b2, static_cast<double>(m_step));
  // The scalars as LibTorch's float kernels take them (Scalar::to<float>).
  AdamWCoefficients base;
  base.scales = grad_scale.defined();
  base.grad_scale = base.scales ? grad_scale.item<float>() : 1.0f;
  base.one_minus_beta1 = static_cast<float>(1.0 - b1);
  base.beta2 = static_cast<float>(b2);
  base.one_minus_beta2 = static_cast<float>(1.0 - b2);
  base.bias2_sqrt = static_cast<float>(std::sqrt(bc2));
  base.eps = static_cast<float>(m_options.eps);
  const bool fused_ok = m_fused && base.one_minus_beta1 < 0.5f;
  std::vector<std::pair<size_t, size_t>> items;
  std::vector<int64_t> costs;
  for (size_t gi = 0; gi < m_groups.size(); ++gi) {
    for (size_t i = 0; i < m_groups[gi].params.size(); ++i) {
      items.emplace_back(gi, i);
      costs.push_back(m_groups[gi].params[i].numel());
    }
  }
  // Every tensor's update is its own: spread over threads, the numbers do not change.
  parallel_items(costs, threads, [&](size_t k) {
    torch::NoGradGuard no_grad;
    const auto [gi, i] = items[k];
    auto& g = m_groups[gi];
    const double glr = lr * g.lr_scale;
    const double wd = g.decay ? m_options.weight_decay : 0.0;
    auto& p = g.params[i];
    if (!p.grad().defined()) return;
    auto& m = m_exp_avg[gi][i];
    auto& v = m_exp_avg_sq[gi][i];
    const torch::Tensor& raw = p.grad();
    if (fused_ok && p.device().is_cpu() && p.scalar_type() == torch::kFloat &&
        raw.scalar_type() == torch::kFloat && p.is_contiguous() && raw.is_contiguous() &&
        m.is_contiguous() && v.is_contiguous() && raw.numel() == p.numel()) {
      AdamWCoefficients c = base;
      c.decays = wd != 0.0;
      c.decay = static_cast<float>(1.0 - glr * wd);
      c.step = static_cast<float>(-glr / bc1);
      adamw_fused_update(p.data_ptr<float>(), raw.data_ptr<float>(), m.data_ptr<float>(),
                         v.data_ptr<float>(), p.numel(), c);
      // As the in-place ops would: autograd sees p, m and v as modified.
      for (auto* t : {&p, &m, &v}) torch::autograd::impl::bump_version(*t);
      return;
    }
    if (grad_scale.defined()) p.grad().data().mul_(grad_scale);
    auto grad = p.grad().to(torch::kFloat);
    const bool fp32 = p.scalar_type() == torch::kFloat;
    torch::Tensor master = fp32 ? p : p.to(torch::kFloat);
    if (wd != 0.0) master.mul_(1.0 - glr * wd);
    m.lerp_(grad, 1.0 - b1);
    v.mul_(b2).addcmul_(grad, grad, 1.0 - b2);
    auto denom = (v.sqrt() / std::sqrt(bc2)).add_(m_options.eps);
    master.addcdiv_(m, denom, -glr / bc1);
    if (!fp32) p.copy_(master);
  });
}

std::vector<std::pair<std::string, torch::Tensor>> AdamW::state() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (size_t gi = 0; gi < m_groups.size(); ++gi) {
    for (size_t i = 0; i < m_groups[gi].params.size(); ++i) {
      out.emplace_back(m_groups[gi].names[i] + ".exp_avg", m_exp_avg[gi][i]);
      out.emplace_back(m_groups[gi].names[i] + ".exp_avg_sq", m_exp_avg_sq[gi][i]);
    }
  }
  return out;
}

void AdamW::load_state(const std::map<std::string, torch::Tensor>& tensors, int64_t step) {
  torch::NoGradGuard no_grad;
  for (size_t gi = 0; gi < m_groups.size(); ++gi) {
    for (size_t i = 0; i < m_groups[gi].params.size(); ++i) {
      for (int which = 0; which < 2; ++which) {
        std::string key = m_groups[gi].names[i] + (which == 0 ? ".exp_avg" : ".exp_avg_sq");
        auto it = tensors.find(key);
        if (it == tensors.end()) fail("optimizer state: missing '{}'", key);
        auto& dst = which == 0 ? m_exp_avg[gi][i] : m_exp_avg_sq[gi][i];
        if (it->second.sizes() != dst.sizes()) {
          fail("optimizer state: '{}' has the wrong shape", key);
        }
        dst.copy_(it->second);
      }
    }
  }
  m_step = step;
}

double Schedule::factor(int64_t step) const {
  if (warmup > 0 && step < warmup) return static_cast<double>(step + 1) / warmup;
  if (kind == "constant") return 1.0;
  const double span = std::max<int64_t>(1, total - warmup);
  const double progress = std::min(1.0, std::max(0.0, (step - warmup) / span));
  if (kind == "linear") return 1.0 - (1.0 - min_ratio) * progress;
  if (kind == "cosine")
    return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + std::cos(M_PI * progress));
  fail("unknown schedule '{}' (expected constant, linear or cosine)", kind);
}

}  // namespace gb::train
