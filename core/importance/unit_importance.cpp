#include "importance/unit_importance.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <torch/torch.h>

#include "importance/internal.h"
#include "train/chunked_ce.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::importance {

namespace {

const std::vector<std::vector<double>>& sums_for(const UnitImportance& u,
                                                 const std::string& method) {
  if (method == methods::kTaylor) return u.taylor_sum;
  if (method == methods::kTaylorAbs) return u.taylor_abs_sum;
  if (method == methods::kTaylorCode) {
    if (!u.has_taylor_code) {
      fail(
          "unit importance: taylor-code was not computed in this probe (set "
          "UnitOptions::taylor_code)");
    }
    return u.taylor_code_sum;
  }
  if (method == methods::kFisher) {
    if (!u.has_fisher) fail("unit importance: the Fisher was not computed in this probe");
    return u.fisher;
  }
  fail("unit importance: '{}' is not a unit method (taylor, taylor-abs, taylor-code or fisher)",
       method);
}

// Position of the last scored target + 1 in a row (0 when nothing is scored).
int64_t scored_length(const torch::Tensor& row_targets) {
  auto idx = (row_targets != kIgnoreTarget).nonzero();
  if (idx.numel() == 0) return 0;
  return idx.max().item<int64_t>() + 1;
}

}  // namespace

std::vector<double> UnitImportance::cumulation(const std::string& method) const {
  const auto& sums = sums_for(*this, method);
  std::vector<double> out(sums.size(), 0.0);
  for (size_t l = 0; l < sums.size(); ++l) {
    for (size_t u = 0; u < sums[l].size(); ++u) {
      if (numel[l][u] > 0) out[l] += sums[l][u];
    }
  }
  return out;
}

ProbeResult UnitImportance::result(const std::string& method) const {
  ProbeResult r;
  r.method = method;
  r.layers = cumulation(method);
  r.unit_names = unit_names;
  if (method == methods::kTaylor) {
    r.units = taylor;
  } else if (method == methods::kTaylorAbs) {
    r.units = taylor_abs;
  } else if (method == methods::kTaylorCode) {
    r.units = taylor_code;
  } else {
    r.units = fisher;
  }
  r.layer_mean_rank = rank_aggregate(r.units);
  r.base_loss = loss;
  r.details = {{"aggregation", "cumulation"},
               {"layers_mean_rank", r.layer_mean_rank},
               {"unit_numel", numel},
               {"backward_passes", backward_passes}};
  if (method == methods::kFisher) r.details["fisher_mode"] = fisher_mode_name(fisher_mode);
  if (method == methods::kTaylorCode) r.details["batches"] = code_batches;
  if (!batches_by_rank.empty()) r.details["batches_by_rank"] = batches_by_rank;
  return r;
}

UnitImportance unit_importance(CausalLMImpl& model, const ProbeSet& probes,
                               const UnitOptions& options, Progress progress) {
  if (probes.empty()) fail("unit importance probe: the probe set is empty");
  detail::AllParametersRequireGrad require_grad(model, options.only);
  const auto device = detail::model_device(model);

  std::vector<std::string> names;
  // grad_acc: Σ of the probe-set loss gradient; fisher_acc: Σ g²; code_acc: Σ_b |g_b|
  // (taylor-code); batch_acc: a batch's gradient summed from its rows (PerSequence Fisher
  // with taylor-code).
  std::vector<torch::Tensor> params, grad_acc, fisher_acc, code_acc, batch_acc;
  const bool per_sequence = options.fisher && options.fisher_mode == FisherMode::PerSequence;
  const bool code = options.taylor_code;
  std::unordered_map<const void*, size_t> index;
  for (auto& item : model.named_parameters(true)) {
    if (!options.only.empty() && !options.only.count(item.key())) continue;
    index[item.value().unsafeGetTensorImpl()] = params.size();
    names.push_back(item.key());
    params.push_back(item.value());
  }
  // The signed and absolute Taylor scores alone (no Fisher, no taylor-code) need only the
  // probe-set loss's gradient: with float32 parameters, the backward passes sum it in the
  // parameters' own gradients (the same additions in the same order as an accumulator,
  // g_1 + g_2 + ..., so the same numbers), and no accumulator the size of the model is kept
  // beside them (2.4 GB on the Qwen3-0.6B shape).
  bool in_place = !options.fisher && !code;
  for (const auto& p : params) in_place = in_place && p.scalar_type() == torch::kFloat;
  for (const auto& p : params) {
    if (in_place) {
      grad_acc.emplace_back();  // filled from the gradients after the last batch
      continue;
    }
    auto zeros =
        torch::zeros(p.sizes(), torch::TensorOptions().dtype(torch::kFloat).device(device));
    grad_acc.push_back(zeros);
    if (options.fisher) fisher_acc.push_back(zeros.clone());
    if (code) code_acc.push_back(zeros.clone());
    if (code && per_sequence) batch_acc.push_back(zeros.clone());
  }
  for (auto& p : params) p.mutable_grad().reset();
  ForwardOptions forward_options;
  forward_options.checkpoint_layers = options.checkpointing;
  // Σ NLL of a batch: chunked for a large vocabulary (train/chunked_ce.h), so that a batch's
  // whole logits and their gradient never exist at once.
  auto summed_loss = [&](const torch::Tensor& batch_ids, const torch::Tensor& batch_targets) {
    return train::summed_lm_nll(model, batch_ids, batch_targets, forward_options);
  };

  const double total = static_cast<double>(probes.scored_tokens);
  UnitImportance out;
  out.has_fisher = options.fisher;
  out.has_taylor_code = code;
  out.fisher_mode = options.fisher_mode;
  double loss_sum = 0;
  int64_t fisher_terms = 0;
  // Moves the gradients of the last backward into the accumulators and clears them.
  // code_share > 0 (taylor-code): the gradient is a batch's (|g| goes to code_acc), or in
  // PerSequence mode a row's, which enters its batch's gradient with the row's share n_r/n_b.
  auto take_gradients = [&](double weight, bool square, double code_share) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& g = params[i].grad();
      if (!g.defined()) continue;  // the parameter took no part (zero gradient)
      auto gf = g.to(torch::kFloat);
      grad_acc[i].add_(gf, weight);
      if (square) fisher_acc[i].addcmul_(gf, gf);
      if (code_share > 0 && per_sequence) batch_acc[i].add_(gf, code_share);
      if (code_share > 0 && !per_sequence) code_acc[i].add_(gf.abs());
      params[i].mutable_grad().reset();
    }
  };
  // PerSequence with taylor-code: the batch's gradient is complete; add its magnitude.
  auto end_code_batch = [&] {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      code_acc[i].add_(batch_acc[i].abs());
      batch_acc[i].zero_();
    }
  };
  int64_t code_batches = 0;

  const int64_t n_batches = static_cast<int64_t>(probes.batches.size());
  int64_t mine = 0;
  // Sharded, a cancel must not leave the other ranks waiting in the reduction: it is noted,
  // reduced with the sums, and then every rank stops.
  bool cancelled = false;
  try {
    progress.begin("probe/units");
    for (int64_t b = 0; b < n_batches; ++b) {
      if (options.shard && !options.shard->owns(b)) continue;
      ++mine;
      const auto& batch = probes.batches[b];
      auto ids = batch.ids.to(device);
      auto targets = batch.targets.to(device);
      // A batch's mean loss L_b (taylor-code) divides by its scored tokens.
      const double n_b = static_cast<double>(std::max<int64_t>(batch.scored, 1));
      if (per_sequence) {
        for (int64_t r = 0; r < batch.rows(); ++r) {
          auto row_targets = targets.narrow(0, r, 1);
          const int64_t len = scored_length(row_targets);  // trailing padding is dropped
          if (len == 0) continue;
          auto t = row_targets.narrow(1, 0, len);
          const double n_r = static_cast<double>((t != kIgnoreTarget).sum().item<int64_t>());
          auto nll = summed_loss(ids.narrow(0, r, 1).narrow(1, 0, len), t);
          loss_sum += nll.item<double>();
          (nll / n_r).backward();  // gradient of the row's mean token NLL
          ++out.backward_passes;
          take_gradients(n_r / total, true, code ? n_r / n_b : 0.0);
          ++fisher_terms;
          progress.check_cancel();
          if (r + 1 < batch.rows()) {  // one backward pass per row: progress by row
            progress.report((static_cast<double>(b) +
                             static_cast<double>(r + 1) / static_cast<double>(batch.rows())) /
                                static_cast<double>(n_batches),
                            "batch " + std::to_string(b + 1) + "/" + std::to_string(n_batches) +
                                ", row " + std::to_string(r + 1) + "/" +
                                std::to_string(batch.rows()));
          }
        }
        if (code) {
          end_code_batch();
          ++code_batches;
        }
      } else {
        auto nll = summed_loss(ids, targets);
        loss_sum += nll.item<double>();
        if (options.fisher || code) {
          (nll / n_b).backward();  // gradient of the batch's mean token NLL
          take_gradients(n_b / total, options.fisher, code ? 1.0 : 0.0);
          if (options.fisher) ++fisher_terms;
          if (code) ++code_batches;
        } else {
          (nll / total).backward();  // this batch's share of the probe-set loss
          if (!in_place) take_gradients(1.0, false, 0.0);
        }
        ++out.backward_passes;
      }
      progress.report(static_cast<double>(b + 1) / static_cast<double>(n_batches),
                      "batch " + std::to_string(b + 1) + "/" + std::to_string(n_batches));
    }
  } catch (const CancelledError&) {
    if (!options.shard || options.shard->world <= 1) throw;
    cancelled = true;
  }
  if (in_place) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& g = params[i].grad();
      // Contiguous, as the accumulators were (a sharded run reduces them over the ranks).
      grad_acc[i] = g.defined() ? g.detach().contiguous()
                                : torch::zeros(params[i].sizes(), params[i].options());
      params[i].mutable_grad().reset();
    }
  }
  if (options.shard && options.shard->world > 1) {
    std::vector<double> sums = {loss_sum, static_cast<double>(out.backward_passes),
                                static_cast<double>(fisher_terms), cancelled ? 1.0 : 0.0};
    if (code) sums.push_back(static_cast<double>(code_batches));
    sum_over_ranks(options.shard, sums);
    if (sums[3] > 0) throw CancelledError();
    loss_sum = sums[0];
    out.backward_passes = std::llround(sums[1]);
    fisher_terms = std::llround(sums[2]);
    if (code) code_batches = std::llround(sums[4]);
    sum_over_ranks(options.shard, grad_acc);
    if (options.fisher) sum_over_ranks(options.shard, fisher_acc);
    if (code) sum_over_ranks(options.shard, code_acc);
    out.batches_by_rank = batches_by_rank(options.shard, mine);
  }
  out.loss = loss_sum / total;
  if (options.fisher && fisher_terms > 0) {
    for (auto& f : fisher_acc) f.div_(static_cast<double>(fisher_terms));
  }
  // Mean over batches of |g_b|.
  if (code && code_batches > 0) {
    for (auto& a : code_acc) a.div_(static_cast<double>(code_batches));
  }
  out.code_batches = code_batches;

  // Per unit: Σ θ·g, Σ |θ·g|, Σ |θ|·mean_b|g_b|, Σ F and the parameter count.
  torch::NoGradGuard no_grad;
  const int64_t n_layers = model.num_layers();
  std::map<std::string, size_t> column;
  struct Cell {
    double taylor = 0, taylor_abs = 0, code = 0, fisher = 0;
    int64_t numel = 0;
  };
  std::vector<std::map<size_t, Cell>> cells(n_layers);
  for (int64_t l = 0; l < n_layers && options.only.empty(); ++l) {
    for (const auto& unit : model.layer(l)->units()) {
      auto it = column.find(unit.name);
      if (it == column.end()) {
        it = column.emplace(unit.name, out.unit_names.size()).first;
        out.unit_names.push_back(unit.name);
      }
      Cell& c = cells[l][it->second];
      for (const auto& p : unit.module->parameters(true)) {
        auto found = index.find(p.unsafeGetTensorImpl());
        if (found == index.end()) {
          fail(
              "unit importance: a parameter of layer {} unit '{}' is not registered in the "
              "model",
              l, unit.name);
        }
        const size_t i = found->second;
        const auto theta = params[i].detach().to(torch::kFloat);
        auto prod = theta * grad_acc[i];
        c.taylor += prod.sum().item<double>();
        c.taylor_abs += prod.abs().sum().item<double>();
        if (code) c.code += (theta.abs() * code_acc[i]).sum().item<double>();
        if (options.fisher) c.fisher += fisher_acc[i].sum().item<double>();
        c.numel += p.numel();
      }
    }
  }
  const size_t n_units = out.unit_names.size();
  auto matrix = [&](double fill) {
    return std::vector<std::vector<double>>(n_layers, std::vector<double>(n_units, fill));
  };
  out.taylor = out.taylor_abs = out.taylor_sum = out.taylor_abs_sum = matrix(kMissing);
  if (options.fisher) out.fisher = matrix(kMissing);
  if (code) out.taylor_code = out.taylor_code_sum = matrix(kMissing);
  out.numel.assign(n_layers, std::vector<int64_t>(n_units, 0));
  for (int64_t l = 0; l < n_layers; ++l) {
    for (const auto& [u, c] : cells[l]) {
      out.numel[l][u] = c.numel;
      if (c.numel == 0) continue;
      const double n = static_cast<double>(c.numel);
      out.taylor_sum[l][u] = c.taylor;
      out.taylor_abs_sum[l][u] = c.taylor_abs;
      out.taylor[l][u] = c.taylor / n;
      out.taylor_abs[l][u] = c.taylor_abs / n;
      if (code) {
        out.taylor_code_sum[l][u] = c.code;
        out.taylor_code[l][u] = c.code / n;
      }
      if (options.fisher) out.fisher[l][u] = c.fisher;
    }
  }
  if (options.fisher && options.keep_parameter_fisher) {
    for (size_t i = 0; i < params.size(); ++i) out.parameter_fisher[names[i]] = fisher_acc[i];
  }
  log::get("importance")
      ->debug("unit probe: loss {:.6f}, {} backward passes, {} units per layer", out.loss,
              out.backward_passes, n_units);
  return out;
}

std::map<std::string, torch::Tensor> diagonal_fisher(CausalLMImpl& model, const ProbeSet& probes,
                                                     FisherMode mode, Progress progress,
                                                     const std::set<std::string>& only,
                                                     const ProbeSharding* shard,
                                                     std::vector<int64_t>* batches_by_rank,
                                                     bool checkpointing) {
  UnitOptions o;
  o.checkpointing = checkpointing;
  o.only = only;
  o.shard = shard;
  o.fisher = true;
  o.fisher_mode = mode;
  o.keep_parameter_fisher = true;
  UnitImportance u = unit_importance(model, probes, o, std::move(progress));
  if (batches_by_rank) *batches_by_rank = u.batches_by_rank;
  return std::move(u.parameter_fisher);
}

}  // namespace gb::importance
