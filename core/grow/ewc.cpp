#include "grow/ewc.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "util/error.h"

namespace gb::grow {

EwcPenalty::EwcPenalty(const EwcOptions& options,
                       std::vector<std::pair<std::string, torch::Tensor>> params)
    : m_options(options), m_params(std::move(params)) {
  if (m_params.empty()) fail("EWC: no trainable parameters to penalise");
}

torch::Tensor EwcPenalty::compute() {
  torch::Tensor total;
  for (const auto& a : m_anchors) {
    for (size_t i = 0; i < m_params.size(); ++i) {
      auto term = (a.fisher[i] * (m_params[i].second - a.values[i]).pow(2)).sum();
      total = total.defined() ? total + term : term;
    }
  }
  if (!total.defined()) total = torch::zeros({}, m_params.front().second.options());
  return total;
}

void EwcPenalty::add_task(const std::map<std::string, torch::Tensor>& fisher) {
  torch::NoGradGuard no_grad;
  Anchor a;
  for (const auto& [name, p] : m_params) {
    auto it = fisher.find(name);
    if (it == fisher.end()) fail("EWC: no Fisher values for parameter '{}'", name);
    if (it->second.sizes() != p.sizes()) {
      fail("EWC: Fisher values for '{}' have the wrong shape", name);
    }
    a.values.push_back(p.detach().clone());
    a.fisher.push_back(it->second.to(p.device(), p.scalar_type()));
  }
  if (m_options.mode == "online" && !m_anchors.empty()) {
    Anchor& prev = m_anchors.front();
    for (size_t i = 0; i < a.fisher.size(); ++i) {
      a.fisher[i] = prev.fisher[i] * m_options.gamma + a.fisher[i];
    }
    m_anchors.front() = std::move(a);
  } else {
    m_anchors.push_back(std::move(a));
  }
  ++m_tasks_seen;
}

std::vector<std::pair<std::string, torch::Tensor>> EwcPenalty::state() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (size_t k = 0; k < m_anchors.size(); ++k) {
    for (size_t i = 0; i < m_params.size(); ++i) {
      out.emplace_back(fmt::format("task{}/anchor/{}", k, m_params[i].first),
                       m_anchors[k].values[i].cpu());
      out.emplace_back(fmt::format("task{}/fisher/{}", k, m_params[i].first),
                       m_anchors[k].fisher[i].cpu());
    }
  }
  out.emplace_back("tasks_seen", torch::tensor({m_tasks_seen}, torch::kLong));
  return out;
}

void EwcPenalty::load_state(const std::map<std::string, torch::Tensor>& state) {
  std::vector<Anchor> anchors;
  for (size_t k = 0;; ++k) {
    const std::string first = fmt::format("task{}/anchor/{}", k, m_params.front().first);
    if (!state.count(first)) break;
    Anchor a;
    for (const auto& [name, p] : m_params) {
      auto v = state.find(fmt::format("task{}/anchor/{}", k, name));
      auto f = state.find(fmt::format("task{}/fisher/{}", k, name));
      if (v == state.end() || f == state.end() || v->second.sizes() != p.sizes() ||
          f->second.sizes() != p.sizes()) {
        fail("EWC checkpoint state: task {} lacks a matching anchor or Fisher for '{}'", k, name);
      }
      a.values.push_back(v->second.to(p.device(), p.scalar_type()));
      a.fisher.push_back(f->second.to(p.device(), p.scalar_type()));
    }
    anchors.push_back(std::move(a));
  }
  auto seen = state.find("tasks_seen");
  if (anchors.empty() || seen == state.end()) fail("EWC checkpoint state is empty or incomplete");
  m_anchors = std::move(anchors);
  m_tasks_seen = seen->second.item<int64_t>();
}

}  // namespace gb::grow
