#include "train/trainer.h"

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <thread>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <ATen/ThreadLocalState.h>
#include <ATen/record_function.h>
#include <torch/torch.h>

#include "dist/grad_sync.h"
#include "dist/group.h"
#include "dist/shard.h"
#include "model/tensor_io.h"
#include "train/chunked_ce.h"
#include "train/parallel.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::train {

namespace fs = std::filesystem;

torch::Tensor lm_loss(const torch::Tensor& logits, const torch::Tensor& labels) {
  const int64_t v = logits.size(-1);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, v}).to(torch::kFloat), labels.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
}

namespace {

// OpenBLAS's own thread count, read and set through its C API when the BLAS LibTorch
// loaded is OpenBLAS (null functions otherwise).
struct OpenBlasThreads {
  int (*get)() = nullptr;
  void (*set)(int) = nullptr;
  OpenBlasThreads() {
    get = reinterpret_cast<int (*)()>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    set = reinterpret_cast<void (*)(int)>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (!get || !set) get = nullptr, set = nullptr;
  }
};

const OpenBlasThreads& openblas() {
  static const OpenBlasThreads o;
  return o;
}

// One BLAS thread per product while it lives (the shard threads are the parallelism);
// restores the previous count.
class SingleBlasThread {
 public:
  SingleBlasThread() {
    if (openblas().get) {
      m_previous = openblas().get();
      if (m_previous != 1) openblas().set(1);
    }
  }
  ~SingleBlasThread() {
    if (openblas().get && m_previous != 1) openblas().set(m_previous);
  }
  SingleBlasThread(const SingleBlasThread&) = delete;
  SingleBlasThread& operator=(const SingleBlasThread&) = delete;

 private:
  int m_previous = 1;
};

// torch::nn::utils::clip_grad_norm_ (LibTorch 1.13, 2-norm): the per-tensor norms (spread
// over threads), their norm, and the clamped coefficient, which the optimizer multiplies
// into every gradient as clip_grad_norm_'s in-place mul_ would (AdamW::step's grad_scale).
// The same operations on the same tensors, the same numbers, whatever the threads.
struct Clip {
  double total = 0.0;
  torch::Tensor coefficient;  // undefined when no tensor has a gradient
};

Clip clip_coefficient(const std::vector<torch::Tensor>& params, double max_norm, int64_t threads) {
  std::vector<torch::Tensor> with_grad;
  std::vector<int64_t> costs;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    with_grad.push_back(p);
    costs.push_back(p.numel());
  }
  Clip clip;
  if (with_grad.empty()) return clip;
  std::vector<torch::Tensor> norms(with_grad.size());
  parallel_items(costs, threads,
                 [&](size_t i) { norms[i] = with_grad[i].grad().data().norm(2.0); });
  const torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2.0);
  clip.coefficient = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  clip.total = total.item<double>();
  return clip;
}

int64_t default_shard_threads() {
  const int64_t cores =
      openblas().get ? openblas().get()
                     : static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max<int64_t>(1, cores / std::max(1, at::get_num_threads()));
}

}  // namespace

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
  if (options.row_shards < 1) fail("trainer: row_shards must be at least 1");
  m_shard_threads = options.shard_threads > 0 ? options.shard_threads : default_shard_threads();
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

int64_t Trainer::ce_chunk_for(const data::BatchTensors& bt) const {
  const HeadMatrix head = head_matrix(*m_model);
  const int64_t vocab = head.weight.defined() ? head.weight.size(0) : m_model->config.vocab_size;
  const int64_t chunk = ce_chunk_tokens(m_options.ce_chunk, bt.labels.numel(), vocab);
  if (chunk == 0) return 0;
  if (!head.weight.defined()) {
    if (m_options.ce_chunk > 0) {
      fail(
          "train.ce_chunk: the chunked cross-entropy needs a plain or tied LM head; this "
          "plan's head is '{}'{} (set ce_chunk to \"auto\" or 0)",
          m_model->head()->kind(), m_model->forward_override ? " with its own forward pass" : "");
    }
    return 0;
  }
  return chunk;
}

StepStats Trainer::step(const std::vector<data::Batch>& micro) {
  return step(micro, m_options.schedule, m_opt->step_count());
}

struct Trainer::PartLoss {
  torch::Tensor loss, lm;  // the loss (with its graph) and its cross-entropy part
  // Every extra term's contribution (detached), in the order they are summed; an undefined
  // tensor for a model-level term this part leaves to another (it counts as 0).
  std::vector<std::pair<std::string, torch::Tensor>> terms;
};

Trainer::PartLoss Trainer::part_loss(const data::BatchTensors& bt, double share,
                                     double original_share, int64_t global_targets, bool sum_form,
                                     bool model_terms) {
  PartLoss r;
  std::vector<AuxTerm> aux;
  ForwardOptions fo;
  fo.aux = &aux;
  fo.original_domain = bt.original;
  fo.domain_labels = bt.domain_labels;
  fo.original_rows = bt.original_rows;
  fo.checkpoint_layers = m_options.checkpointing;
  const int64_t chunk = ce_chunk_for(bt);
  if (chunk > 0) {
    // The loss from the final hidden states, never more than one chunk of logits at once.
    const torch::Tensor h = m_model->hidden_states(bt.inputs, fo);
    const HeadMatrix head = head_matrix(*m_model);
    const torch::Tensor sum = chunked_cross_entropy_sum(
        h.reshape({-1, h.size(-1)}), head.weight, bt.labels.reshape({-1}), chunk, head.softcap);
    r.lm = sum / static_cast<double>(sum_form ? global_targets : bt.targets);
  } else if (sum_form) {
    auto logits = m_model->forward(bt.inputs, fo);
    const int64_t v = logits.size(-1);
    r.lm = torch::nn::functional::cross_entropy(
               logits.reshape({-1, v}).to(torch::kFloat), bt.labels.reshape({-1}),
               torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
                   torch::kSum)) /
           static_cast<double>(global_targets);
  } else {
    r.lm = lm_loss(m_model->forward(bt.inputs, fo), bt.labels);
  }
  r.loss = r.lm;
  for (const auto& a : aux) {
    auto t = a.value * (a.coefficient * (a.original_rows_only ? original_share : share));
    r.loss = r.loss + t;
    r.terms.emplace_back(a.name, t.detach());
  }
  for (const auto& term : m_terms) {
    if (!model_terms) {
      r.terms.emplace_back(term->name(), torch::Tensor());
      continue;
    }
    auto t = term->compute() * term->coefficient();
    r.loss = r.loss + t;
    r.terms.emplace_back(term->name(), t.detach());
  }
  return r;
}

namespace {

// A block's share of its micro-batch's original-domain rows (`original_rows` in all its
// rows): the weight of terms that are means over those rows.
double original_share_of(const data::BatchTensors& block, int64_t original_rows) {
  if (original_rows <= 0) return 0.0;
  return static_cast<double>(block.n_original_rows) / static_cast<double>(original_rows);
}

void add_terms(const std::vector<std::pair<std::string, torch::Tensor>>& terms,
               std::map<std::string, torch::Tensor>& term_sum) {
  for (const auto& [name, t] : terms) {
    auto& acc = term_sum[name];
    if (!t.defined()) {
      // The name takes part in the sum of the statistics; another part adds the value.
      if (!acc.defined()) acc = torch::zeros({}, torch::kFloat);
    } else {
      acc = acc.defined() ? acc + t : t;
    }
  }
}

}  // namespace

void Trainer::sharded_micro_batch(const data::Batch& batch, int64_t global_targets, double n,
                                  int64_t step_index, torch::Tensor& total_sum,
                                  torch::Tensor& lm_sum,
                                  std::map<std::string, torch::Tensor>& term_sum) {
  const bool dp = static_cast<bool>(m_sync);
  const bool lead = !dp || m_options.group->leader();
  data::Batch mine;
  if (dp) {
    const auto& g = *m_options.group;
    mine = dist::slice_rows(batch, dist::shard_rows(batch.rows, g.world_size(), g.rank()));
  }
  const data::Batch& rows = dp ? mine : batch;
  const int64_t shards = std::min(m_options.row_shards, rows.rows);
  struct Part {
    data::BatchTensors bt;
    double share = 0, original_share = 0;
    PartLoss result;
    std::vector<torch::Tensor> grads;
  };
  const int64_t original_rows = batch.original_rows();
  std::vector<Part> parts(static_cast<size_t>(shards));
  for (int64_t s = 0; s < shards; ++s) {
    const dist::Shard sh = dist::shard_rows(rows.rows, shards, s);
    Part& part = parts[static_cast<size_t>(s)];
    part.bt = data::to_tensors(dist::slice_rows(rows, sh), m_device);
    part.share = static_cast<double>(sh.count) / static_cast<double>(batch.rows);
    part.original_share = original_share_of(part.bt, original_rows);
  }
  const std::vector<torch::Tensor> params = m_opt->parameters();
  auto compute = [&](size_t k) {
    Part& part = parts[k];
    std::optional<at::RecordFunction> forward_scope(at::RecordScope::USER_SCOPE);
    if (forward_scope->isActive()) forward_scope->before("gb::forward");
    part.result =
        part_loss(part.bt, part.share, part.original_share, global_targets, true, lead && k == 0);
    forward_scope.reset();
    RECORD_USER_SCOPE("gb::backward");
    part.grads = torch::autograd::grad({part.result.loss / n}, params, /*grad_outputs=*/{},
                                       /*retain_graph=*/false, /*create_graph=*/false,
                                       /*allow_unused=*/true);
    part.result.loss = part.result.loss.detach();
    part.result.lm = part.result.lm.detach();
  };
  const int64_t threads = parallel_threads();
  {
    // Products single-threaded on the CPU whatever the number of threads, so that the
    // arithmetic is the same for any (the shard threads are the parallelism).
    std::optional<SingleBlasThread> blas;
    if (m_device.is_cpu()) blas.emplace();
    std::vector<int64_t> costs;
    for (const auto& part : parts) costs.push_back(part.bt.inputs.size(0));
    parallel_items(costs, threads, compute);
  }
  torch::Tensor loss, lm;
  for (auto& part : parts) {
    loss = loss.defined() ? loss + part.result.loss : part.result.loss;
    lm = lm.defined() ? lm + part.result.lm : part.result.lm;
    add_terms(part.result.terms, term_sum);
  }
  total_sum = total_sum.defined() ? total_sum + loss : loss;
  lm_sum = lm_sum.defined() ? lm_sum + lm : lm;
  if (m_options.check_every_step && !dp) {
    check_finite(lm.item<double>(), "next-token cross-entropy", step_index);
    for (const auto& [name, value] : term_sum) check_finite(value.item<double>(), name, step_index);
  }
  // The blocks' gradients, summed in block order, added to what earlier micro-batches left.
  std::vector<int64_t> sizes;
  for (const auto& p : params) sizes.push_back(p.numel());
  parallel_items(sizes, threads, [&](size_t j) {
    torch::NoGradGuard no_grad;
    torch::Tensor g;
    int contributions = 0;
    for (const auto& part : parts) {
      const torch::Tensor& gj = part.grads[j];
      if (!gj.defined()) continue;
      g = g.defined() ? g + gj : gj;
      ++contributions;
    }
    if (!g.defined()) return;
    torch::Tensor p = params[j];
    if (p.grad().defined()) {
      p.mutable_grad().add_(g);
    } else {
      // A single block's gradient may be a view (an expanded zero, ...): its own copy.
      p.mutable_grad() = contributions > 1 ? g : g.clone(at::MemoryFormat::Contiguous);
    }
  });
}

int64_t Trainer::parallel_threads() const {
  return m_device.is_cpu() && m_options.row_shards > 1 ? m_shard_threads : 1;
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
    const int64_t targets = dist::batch_targets(micro[i]);  // the whole micro-batch's
    st.tokens += targets;
    st.original_batches += micro[i].domain == data::Domain::Original ? 1 : 0;
    if (m_options.row_shards > 1) {
      sharded_micro_batch(micro[i], targets, n, step_index, total_sum, lm_sum, term_sum);
      continue;
    }
    data::BatchTensors bt;
    double share = 1.0, original_share = 1.0;
    if (dp) {
      const auto& g = *m_options.group;
      const dist::Shard sh = dist::shard_rows(micro[i].rows, g.world_size(), g.rank());
      bt = data::to_tensors(dist::slice_rows(micro[i], sh), m_device);
      bt.original = micro[i].domain == data::Domain::Original;
      share = static_cast<double>(sh.count) / static_cast<double>(micro[i].rows);
      original_share = original_share_of(bt, micro[i].original_rows());
    } else {
      bt = data::to_tensors(micro[i], m_device);
    }
    // Profiler scopes (bench_train_step --profile); free when no profiler listens.
    std::optional<at::RecordFunction> forward_scope(at::RecordScope::USER_SCOPE);
    if (forward_scope->isActive()) forward_scope->before("gb::forward");
    PartLoss pl = part_loss(bt, share, original_share, targets, dp, lead);
    add_terms(pl.terms, term_sum);
    if (m_options.check_every_step && !dp) {
      check_finite(pl.lm.item<double>(), "next-token cross-entropy", step_index);
      for (const auto& [name, value] : term_sum)
        check_finite(value.item<double>(), name, step_index);
    }
    forward_scope.reset();
    {
      RECORD_USER_SCOPE("gb::backward");
      (pl.loss / n).backward();
    }
    total_sum = total_sum.defined() ? total_sum + pl.loss.detach() : pl.loss.detach();
    lm_sum = lm_sum.defined() ? lm_sum + pl.lm.detach() : pl.lm.detach();
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
  Clip clip;
  if (m_options.clip > 0) {
    RECORD_USER_SCOPE("gb::clip");
    clip = clip_coefficient(params, m_options.clip, parallel_threads());
    st.grad_norm = clip.total;
  }
  const double lr = m_options.adamw.lr * schedule.factor(schedule_step);
  {
    RECORD_USER_SCOPE("gb::optimizer");
    m_opt->step(lr, parallel_threads(), clip.coefficient);
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
