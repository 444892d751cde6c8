#include "train/trainer.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "dist/grad_sync.h"
#include "dist/group.h"
#include "dist/shard.h"
#include "model/tensor_io.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::train {

namespace fs = std::filesystem;

BatchTensors to_tensors(const data::Batch& batch, const c10::Device& device) {
  BatchTensors bt;
  const int64_t rows = batch.rows, len = batch.row_length();
  auto tokens =
      torch::from_blob(const_cast<int32_t*>(batch.tokens.data()), {rows, len}, torch::kInt)
          .to(torch::kLong);
  bt.inputs = tokens.narrow(1, 0, len - 1).contiguous();
  auto labels = tokens.narrow(1, 1, len - 1).clone();
  if (!batch.loss_mask.empty()) {
    auto mask =
        torch::from_blob(const_cast<uint8_t*>(batch.loss_mask.data()), {rows, len}, torch::kUInt8)
            .narrow(1, 1, len - 1)
            .to(torch::kBool);
    labels.masked_fill_(mask.logical_not(), -100);
    bt.targets = mask.sum().item<int64_t>();
  } else {
    bt.targets = rows * (len - 1);
  }
  bt.labels = labels;
  bt.original = batch.domain == data::Domain::Original;
  bt.domain_labels = torch::full({rows}, bt.original ? 0.0f : 1.0f);
  bt.inputs = bt.inputs.to(device);
  bt.labels = bt.labels.to(device);
  bt.domain_labels = bt.domain_labels.to(device);
  return bt;
}

torch::Tensor lm_loss(const torch::Tensor& logits, const torch::Tensor& labels) {
  const int64_t v = logits.size(-1);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, v}).to(torch::kFloat), labels.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
}

Trainer::Trainer(CausalLM model, const grow::GrowthResult& growth, const TrainOptions& options,
                 const c10::Device& device)
    : m_model(std::move(model)), m_terms(growth.loss_terms), m_options(options), m_device(device) {
  std::unordered_map<const void*, std::string> names;
  for (const auto& item : m_model->named_parameters(true)) {
    names[item.value().unsafeGetTensorImpl()] = item.key();
  }
  std::vector<OptimGroup> groups;
  for (const auto& g : growth.groups) {
    OptimGroup decay{g.name, {}, {}, 1.0, true};
    OptimGroup no_decay{g.name + ".no_decay", {}, {}, 1.0, false};
    for (const auto& p : g.params) {
      auto it = names.find(p.unsafeGetTensorImpl());
      if (it == names.end()) fail("trainer: a tensor of group '{}' is not in the model", g.name);
      // No weight decay on vectors (biases, norm weights, gates), as is customary.
      OptimGroup& dst = p.dim() >= 2 ? decay : no_decay;
      dst.params.push_back(p);
      dst.names.push_back(it->second);
    }
    if (!decay.params.empty()) groups.push_back(std::move(decay));
    if (!no_decay.params.empty()) groups.push_back(std::move(no_decay));
  }
  if (groups.empty()) fail("trainer: the plan leaves nothing to train");
  m_opt = std::make_unique<AdamW>(std::move(groups), options.adamw);
  if (options.group && options.group->world_size() > 1) {
    m_sync = std::make_shared<dist::GradientSync>(options.group, options.bucket_bytes);
  }
}

void Trainer::set_lr_scale(const std::string& group_name, double scale) {
  bool found = false;
  for (auto& g : m_opt->groups()) {
    if (g.name == group_name || g.name == group_name + ".no_decay") {
      g.lr_scale = scale;
      found = true;
    }
  }
  if (!found) fail("trainer: no parameter group '{}'", group_name);
}

namespace {

void check_finite(double value, const std::string& term, int64_t step) {
  if (!std::isfinite(value)) {
    throw DivergedError(
        fmt::format("training diverged at step {}: the {} loss is {}", step, term, value), step,
        term);
  }
}

}  // namespace

StepStats Trainer::step(const std::vector<data::Batch>& micro) {
  return step(micro, m_options.schedule, m_opt->step_count());
}

StepStats Trainer::step(const std::vector<data::Batch>& micro, const Schedule& schedule,
                        int64_t schedule_step) {
  if (micro.empty()) fail("trainer: empty step");
  m_model->train();
  const int64_t step_index = m_opt->step_count();  // 0-based index of this step
  const double n = static_cast<double>(micro.size());
  // Data-parallel: this rank's rows of every micro-batch, its loss a share of the global
  // mean (sum over its rows / the micro-batch's global targets; per-token means of aux terms
  // weighted by its share of rows), model-level terms (EWC) on rank 0 only; the sum over
  // the ranks is then the single-process loss, term by term.
  const bool dp = static_cast<bool>(m_sync);
  const bool lead = !dp || m_options.group->leader();
  StepStats st;
  torch::Tensor total_sum, lm_sum;
  std::map<std::string, torch::Tensor> term_sum;
  for (size_t i = 0; i < micro.size(); ++i) {
    BatchTensors bt;
    double share = 1.0;
    int64_t global_targets = 0;
    if (dp) {
      const auto& g = *m_options.group;
      const dist::Shard sh = dist::shard_rows(micro[i].rows, g.world_size(), g.rank());
      bt = to_tensors(dist::slice_rows(micro[i], sh), m_device);
      bt.original = micro[i].domain == data::Domain::Original;
      share = static_cast<double>(sh.count) / static_cast<double>(micro[i].rows);
      global_targets = dist::batch_targets(micro[i]);
    } else {
      bt = to_tensors(micro[i], m_device);
      global_targets = bt.targets;
    }
    std::vector<AuxTerm> aux;
    ForwardOptions fo;
    fo.aux = &aux;
    fo.original_domain = bt.original;
    fo.domain_labels = bt.domain_labels;
    // Profiler scopes (bench_train_step --profile); free when no profiler listens.
    std::optional<at::RecordFunction> forward_scope(at::RecordScope::USER_SCOPE);
    if (forward_scope->isActive()) forward_scope->before("gb::forward");
    auto logits = m_model->forward(bt.inputs, fo);
    torch::Tensor lm;
    if (dp) {
      const int64_t v = logits.size(-1);
      lm = torch::nn::functional::cross_entropy(
               logits.reshape({-1, v}).to(torch::kFloat), bt.labels.reshape({-1}),
               torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
                   torch::kSum)) /
           static_cast<double>(global_targets);
    } else {
      lm = lm_loss(logits, bt.labels);
    }
    torch::Tensor loss = lm;
    for (const auto& a : aux) {
      auto t = a.value * (a.coefficient * share);
      loss = loss + t;
      auto& acc = term_sum[a.name];
      acc = acc.defined() ? acc + t.detach() : t.detach();
    }
    for (const auto& term : m_terms) {
      auto& acc = term_sum[term->name()];
      if (!lead) {
        // The name takes part in the sum of the statistics; rank 0 adds the value.
        if (!acc.defined()) acc = torch::zeros({}, torch::kFloat);
        continue;
      }
      auto t = term->compute() * term->coefficient();
      loss = loss + t;
      acc = acc.defined() ? acc + t.detach() : t.detach();
    }
    if (m_options.check_every_step && !dp) {
      check_finite(lm.item<double>(), "next-token cross-entropy", step_index);
      for (const auto& [name, value] : term_sum)
        check_finite(value.item<double>(), name, step_index);
    }
    forward_scope.reset();
    {
      RECORD_USER_SCOPE("gb::backward");
      (loss / n).backward();
    }
    total_sum = total_sum.defined() ? total_sum + loss.detach() : loss.detach();
    lm_sum = lm_sum.defined() ? lm_sum + lm.detach() : lm.detach();
    st.tokens += global_targets;
    st.original_batches += bt.original ? 1 : 0;
  }
  auto params = m_opt->parameters();
  if (dp) {
    // The summed gradient on every rank, then the statistics; every rank decides alike.
    m_sync->sum(params);
    std::vector<double> values = {total_sum.item<double>(), lm_sum.item<double>()};
    for (const auto& [name, value] : term_sum) values.push_back(value.item<double>());
    values = m_options.group->all_reduce_sum(values);
    st.loss = values[0] / n;
    st.lm_loss = values[1] / n;
    size_t k = 2;
    for (const auto& [name, value] : term_sum) st.terms[name] = values[k++] / n;
    check_finite(st.lm_loss, "next-token cross-entropy", step_index);
    for (const auto& [name, value] : st.terms) check_finite(value, name, step_index);
  }
  if (m_options.clip > 0) {
    RECORD_USER_SCOPE("gb::clip");
    st.grad_norm = torch::nn::utils::clip_grad_norm_(params, m_options.clip);
  }
  const double lr = m_options.adamw.lr * schedule.factor(schedule_step);
  {
    RECORD_USER_SCOPE("gb::optimizer");
    m_opt->step(lr);
    m_opt->zero_grad();
  }
  st.step = m_opt->step_count();
  st.lr = lr;
  if (dp) {
    st.synced = true;
    check_finite(st.grad_norm, "gradient norm", step_index);
  } else if (m_options.check_every_step) {
    st.synced = true;
    st.loss = total_sum.item<double>() / n;
    st.lm_loss = lm_sum.item<double>() / n;
    for (const auto& [name, value] : term_sum) st.terms[name] = value.item<double>() / n;
    check_finite(st.grad_norm, "gradient norm", step_index);
  }
  return st;
}

void Trainer::save_checkpoint(const std::string& dir, const nlohmann::json& extra) const {
  fs::create_directories(dir);
  std::vector<std::pair<std::string, torch::Tensor>> trainable;
  for (const auto& g : m_opt->groups()) {
    for (size_t i = 0; i < g.params.size(); ++i) trainable.emplace_back(g.names[i], g.params[i]);
  }
  st::write_tensors((fs::path(dir) / "trainable.safetensors").string(), trainable);
  auto state = m_opt->state();
  auto rng = at::detail::getDefaultCPUGenerator().get_state();
  state.emplace_back("__rng_cpu__", rng);
  st::write_tensors((fs::path(dir) / "optimizer.safetensors").string(), state);
  nlohmann::json j = {{"optimizer_step", m_opt->step_count()}, {"extra", extra}};
  write_file_atomic((fs::path(dir) / "trainer.json").string(), j.dump(2));
}

nlohmann::json Trainer::load_checkpoint(const std::string& dir) {
  auto meta = json::parse_file((fs::path(dir) / "trainer.json").string());
  auto trainable = st::read_all((fs::path(dir) / "trainable.safetensors").string());
  torch::NoGradGuard no_grad;
  size_t restored = 0;
  for (auto& g : m_opt->groups()) {
    for (size_t i = 0; i < g.params.size(); ++i) {
      auto it = trainable.find(g.names[i]);
      if (it == trainable.end())
        fail("{}: checkpoint lacks trainable tensor '{}'", dir, g.names[i]);
      if (it->second.sizes() != g.params[i].sizes()) {
        fail("{}: tensor '{}' has the wrong shape", dir, g.names[i]);
      }
      g.params[i].copy_(it->second);
      ++restored;
    }
  }
  if (restored != trainable.size()) {
    fail("{}: the checkpoint holds {} trainable tensors, the plan trains {}", dir, trainable.size(),
         restored);
  }
  auto state = st::read_all((fs::path(dir) / "optimizer.safetensors").string());
  auto rng = state.find("__rng_cpu__");
  if (rng != state.end()) {
    at::Generator gen = at::detail::getDefaultCPUGenerator();  // a handle to the global one
    gen.set_state(rng->second);
  }
  m_opt->load_state(state, json::get<int64_t>(meta, "optimizer_step", dir));
  return meta.value("extra", nlohmann::json::object());
}

}  // namespace gb::train
