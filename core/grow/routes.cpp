// Route statistics of the routed-expert banks; definitions in routes.h.
#include "grow/routes.h"

#include <torch/torch.h>

#include "data/torch_batch.h"
#include "util/error.h"

namespace gb::grow {

torch::Tensor route_ids(const torch::Tensor& selected) {
  const int64_t k = selected.size(-1);
  auto sel = selected.to(torch::kCPU).to(torch::kLong);
  if (k <= 63) {
    std::vector<int64_t> bits(static_cast<size_t>(k));
    for (int64_t j = 0; j < k; ++j) bits[static_cast<size_t>(j)] = int64_t(1) << j;
    return (sel * torch::tensor(bits, torch::kLong)).sum(-1);
  }
  // Large banks: a hash of the selected indices (order-free: a sum of mixed indices).
  std::vector<int64_t> mixed(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    uint64_t x = static_cast<uint64_t>(j) + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    mixed[static_cast<size_t>(j)] = static_cast<int64_t>((x ^ (x >> 31)) >> 2);
  }
  return (sel * torch::tensor(mixed, torch::kLong)).sum(-1);
}

void RouteRecorder::record(const std::string& bank, int64_t top_k, const torch::Tensor& routes,
                           const torch::Tensor& compositions, const torch::Tensor& selected,
                           const torch::Tensor& token_weights) {
  auto r = routes.to(torch::kCPU).to(torch::kLong).contiguous();
  auto c = compositions.to(torch::kCPU).to(torch::kLong).contiguous();
  auto s = selected.to(torch::kCPU).to(torch::kDouble);
  const int64_t n = r.size(0), h = r.size(1), cs = c.size(1), k = s.size(2);
  torch::Tensor w;
  if (token_weights.defined()) w = token_weights.to(torch::kCPU).to(torch::kDouble).reshape({n});
  BankRoutes& b = m_banks[bank];
  if (b.joint.empty()) {
    b.heads = h;
    b.experts = k;
    b.top_k = top_k;
    b.composition_slices = cs;
    b.selections.assign(static_cast<size_t>(h * k), 0.0);
    b.joint.resize(static_cast<size_t>(h));
  } else if (b.heads != h || b.experts != k || b.composition_slices != cs) {
    fail("route statistics: bank '{}' reported two different shapes", bank);
  }
  auto sel_sum = (w.defined() ? s * w.reshape({n, 1, 1}) : s).sum(0).contiguous();  // (H, K)
  const double* ss = sel_sum.data_ptr<double>();
  for (int64_t i = 0; i < h * k; ++i) b.selections[static_cast<size_t>(i)] += ss[i];
  const int64_t* rp = r.data_ptr<int64_t>();
  const int64_t* cp = c.data_ptr<int64_t>();
  const double* wp = w.defined() ? w.data_ptr<double>() : nullptr;
  std::vector<int64_t> comp(static_cast<size_t>(cs));
  for (int64_t t = 0; t < n; ++t) {
    const double wt = wp ? wp[t] : 1.0;
    if (wt <= 0) continue;
    b.tokens += wt;
    for (int64_t j = 0; j < cs; ++j) comp[static_cast<size_t>(j)] = cp[t * cs + j];
    for (int64_t m = 0; m < h; ++m) {
      b.joint[static_cast<size_t>(m)][static_cast<uint64_t>(rp[t * h + m])][comp] += wt;
    }
  }
}

double effective_compositions(const std::map<std::vector<int64_t>, double>& counts) {
  double total = 0, sq = 0;
  for (const auto& [c, n] : counts) total += n;
  if (total <= 0) return 0.0;
  for (const auto& [c, n] : counts) sq += (n / total) * (n / total);
  return 1.0 / sq;
}

std::vector<RouteSummary> summarise(const RouteRecorder& recorder) {
  std::vector<RouteSummary> out;
  for (const auto& [name, b] : recorder.banks()) {
    RouteSummary s;
    s.bank = name;
    s.tokens = b.tokens;
    s.composition_slices = b.composition_slices;
    double mass = 0, weighted = 0;
    for (const auto& per_route : b.joint) {
      for (const auto& [route, comps] : per_route) {
        double m = 0;
        for (const auto& [c, n] : comps) m += n;
        mass += m;
        weighted += m * effective_compositions(comps);
      }
    }
    s.neff = mass > 0 ? weighted / mass : 0.0;
    s.usage.assign(static_cast<size_t>(b.heads), std::vector<double>(b.experts, 0.0));
    for (int64_t m = 0; m < b.heads; ++m) {
      double row = 0;
      for (int64_t j = 0; j < b.experts; ++j) row += b.selections[m * b.experts + j];
      for (int64_t j = 0; j < b.experts; ++j) {
        s.usage[m][j] = row > 0 ? b.selections[m * b.experts + j] / row : 0.0;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool has_routed_experts(CausalLMImpl& model) {
  for (const auto& m : model.modules(false)) {
    if (dynamic_cast<const RoutedExperts*>(m.get())) return true;
  }
  return false;
}

std::vector<RouteSummary> route_statistics(CausalLMImpl& model,
                                           const std::vector<data::Batch>& batches,
                                           const c10::Device& device) {
  if (!has_routed_experts(model)) return {};
  const bool was_training = model.is_training();
  model.eval();
  RouteRecorder recorder;
  {
    torch::NoGradGuard no_grad;
    for (const auto& b : batches) {
      auto bt = data::to_tensors(b, device);
      ForwardOptions o;
      o.routes = &recorder;
      o.original_domain = true;
      model.forward(bt.inputs, o);
    }
  }
  model.train(was_training);
  return summarise(recorder);
}

}  // namespace gb::grow
