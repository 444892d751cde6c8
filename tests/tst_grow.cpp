// Growth operators Grow (G-Freeze, G-Train), depth expansion (LLaMA-Pro, ADEPT), LoRA and the
// baselines full / freeze / EWC, on every model family: function preservation at
// initialisation, frozen means frozen, trainable-parameter counts against closed forms, export
// as plain Hugging Face folders, GrowBench checkpoint round trips, and specific errors.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <torch/torch.h>

#include "test_util.h"
#include "data/torch_batch.h"
#include "grow/variant.h"
#include "train/optimizer.h"
#include "train/parallel.h"
#include "train/trainer.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "grow/lora.h"
#include "grow/plan.h"
#include "grow/split_linear.h"
#include "model/arch.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/tensor_io.h"
#include "test_models.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace fs = std::filesystem;
namespace grow = gb::grow;
namespace F = torch::nn::functional;
using Json = nlohmann::json;

namespace {

constexpr double kPreserveTol = 1e-5;

bool gated(const std::string& family) {
  return family != "gpt2" && family != "gpt_neox";
}

grow::GrowthPlan plan_of(const Json& j) {
  return grow::parse_plan(j, "test plan");
}

using gb::test::error_of;

torch::Tensor logits_of(gb::CausalLMImpl& m, const torch::Tensor& ids) {
  torch::NoGradGuard ng;
  return m.forward(ids);
}

// Merging LoRA changes the order of float operations: 1e-5 relative to the logits' scale
// (about 80 float32 ulps), never below the absolute 1e-5 of function preservation.
double merged_tolerance(const torch::Tensor& logits) {
  return kPreserveTol * std::max(1.0, logits.abs().max().item<double>());
}

// Logits computed in float64: the model is converted for the forward and back afterwards
// (float32 -> float64 -> float32 is exact). Two models whose float32 forwards sum in
// different orders (GEMM blocking differs between CPUs) agree in float64 up to what their
// stored weights differ by, independent of the machine.
torch::Tensor logits_in_double(gb::CausalLMImpl& m, const torch::Tensor& ids) {
  torch::NoGradGuard ng;
  m.to(torch::kDouble);
  auto out = m.forward(ids);
  m.to(torch::kFloat);
  return out;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.sizes() != b.sizes()) return INFINITY;
  return (a - b).abs().max().item<double>();
}

// LoRA targets for a family: every projection it has.
Json lora_targets(const std::string& family) {
  if (gated(family)) return Json::array({"q", "k", "v", "o", "gate", "up", "down"});
  return Json::array({"q", "k", "v", "o", "up", "down"});
}

int64_t num_layers_of(const std::string& family) {
  return family == "gemma3_text" ? gb::test::gemma3_config().num_layers : 2;
}

// The plans of this file's variants (and the lead's baselines) for a family, by row name.
std::vector<std::pair<std::string, Json>> plans_for(const std::string& family) {
  const int64_t L = num_layers_of(family);
  return {
      {"grow-freeze-all", {{"variant", "grow"}, {"mode", "freeze"}, {"k", 2}, {"layers", "all"}}},
      {"grow-train-all", {{"variant", "grow"}, {"mode", "train"}, {"k", 2}, {"layers", "all"}}},
      {"grow-freeze-k3-l1", {{"variant", "grow"}, {"mode", "freeze"}, {"k", 3}, {"layers", {1}}}},
      {"grow-train-k3-l0", {{"variant", "grow"}, {"mode", "train"}, {"k", 3}, {"layers", {0}}}},
      {"depth-llama-pro-1", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 1}}},
      {"depth-llama-pro-L", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", L}}},
      {"depth-adept", {{"variant", "depth"}, {"style", "adept"}, {"layers", {0, L - 1}}}},
      // ADEPT without stage 1: the chosen original layers train in place, nothing added.
      {"depth-in-place", {{"variant", "depth"}, {"style", "in-place"}, {"layers", {L - 1}}}},
      {"lora", {{"variant", "lora"}, {"rank", 4}, {"alpha", 8}, {"targets", lora_targets(family)}}},
      {"lora-l1-qv", {{"variant", "lora"}, {"rank", 2}, {"targets", {"q", "v"}}, {"layers", {1}}}},
      {"full", {{"variant", "full"}}},
      {"freeze", {{"variant", "freeze"}, {"bottom", 1}}},
  };
}

void add_family_plan_rows() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  for (const auto& f : gb::test::all_families()) {
    for (const auto& [name, j] : plans_for(f)) {
      QTest::newRow((f + "/" + name).c_str())
          << QString::fromStdString(f) << QString::fromStdString(j.dump());
    }
  }
}

std::vector<torch::Tensor> group_params(const grow::GrowthResult& r) {
  std::vector<torch::Tensor> out;
  for (const auto& g : r.groups) {
    for (const auto& p : g.params) out.push_back(p);
  }
  return out;
}

// A few AdamW steps (no weight decay, so a tensor changes only through its gradient) over
// exactly the groups' tensors, on random next-token data, with the variant's loss terms.
void train_steps(gb::CausalLMImpl& m, const grow::GrowthResult& r, int steps, uint64_t seed) {
  torch::optim::AdamW opt(group_params(r), torch::optim::AdamWOptions(1e-2).weight_decay(0.0));
  m.train();
  for (int s = 0; s < steps; ++s) {
    auto ids = gb::test::random_ids(m, 2, 12, seed + s);
    auto logits = m.forward(ids);
    const int64_t t = ids.size(1), v = logits.size(2);
    auto loss = F::cross_entropy(logits.narrow(1, 0, t - 1).reshape({-1, v}),
                                 ids.narrow(1, 1, t - 1).reshape({-1}));
    for (const auto& term : r.loss_terms) loss = loss + term->coefficient() * term->compute();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  m.eval();
}

std::map<std::string, torch::Tensor> snapshot(gb::CausalLMImpl& m) {
  std::map<std::string, torch::Tensor> s;
  for (const auto& item : m.named_parameters(true)) {
    s.emplace(item.key(), item.value().detach().clone());
  }
  return s;
}

// Closed-form parameter count of one plain layer of `c`.
int64_t layer_params(const gb::ModelConfig& c) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  const int64_t qo = c.num_heads * c.head_dim, kvo = c.num_kv_heads * c.head_dim;
  const int64_t ups = c.gated_mlp ? 2 : 1;
  int64_t n = d * qo + 2 * d * kvo + qo * d;
  if (c.qkv_bias) n += qo + 2 * kvo;
  if (c.o_bias) n += d;
  if (c.qk_norm) n += 2 * c.head_dim;
  n += ups * p * d + p * d;
  if (c.mlp_bias) n += ups * p + d;
  const int64_t per_norm = c.norm == gb::NormKind::LayerNorm ? 2 * d : d;
  n += (c.sandwich_norms ? 4 : 2) * per_norm;
  return n;
}

// In and out features of a linear unit of the plain architecture.
std::pair<int64_t, int64_t> unit_dims(const gb::ModelConfig& c, const std::string& u) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  const int64_t qo = c.num_heads * c.head_dim, kvo = c.num_kv_heads * c.head_dim;
  if (u == "q") return {d, qo};
  if (u == "k" || u == "v") return {d, kvo};
  if (u == "o") return {qo, d};
  if (u == "gate" || u == "up") return {d, p};
  return {p, d};  // down
}

struct Expected {
  int64_t trainable = 0;
  int64_t added = 0;
};

// Trainable and added parameters by closed form, from the base config and the plan alone.
Expected closed_form(const gb::ModelConfig& c, const Json& plan) {
  const std::string v = plan["variant"];
  const int64_t L = c.num_layers, d = c.hidden_size, p = c.intermediate_size;
  const int64_t ups = c.gated_mlp ? 2 : 1;
  auto count_layers = [&](const Json& layers) -> int64_t {
    if (!layers.is_array()) return L;
    return static_cast<int64_t>(layers.size());
  };
  Expected e;
  if (v == "grow") {
    const int64_t k = plan["k"], n = count_layers(plan["layers"]);
    const int64_t bias_up = c.mlp_bias ? ups * p : 0;
    // G-Freeze: the (k−1) new copies of every up-type projection (rows, with their biases)
    // and of down (columns). G-Train: the whole grown up-type projections.
    if (plan["mode"] == "freeze") {
      e.trainable = n * (k - 1) * (ups * p * d + bias_up + d * p);
    } else {
      e.trainable = n * k * (ups * p * d + bias_up);
    }
    e.added = n * (k - 1) * (ups * p * d + bias_up + d * p);
  } else if (v == "depth") {
    const int64_t blocks =
        plan["style"] == "llama-pro" ? plan["count"].get<int64_t>() : count_layers(plan["layers"]);
    e.trainable = blocks * layer_params(c);
    e.added = plan["style"] == "in-place" ? 0 : e.trainable;
  } else if (v == "lora") {
    const int64_t r = plan["rank"], n = count_layers(plan.value("layers", Json("all")));
    int64_t per_layer = 0;
    for (const auto& t : plan["targets"]) {
      auto [in, out] = unit_dims(c, t.get<std::string>());
      per_layer += r * (in + out);
    }
    e.trainable = e.added = n * per_layer;
  } else if (v == "full" || v == "ewc") {
    e.trainable = c.param_count();
  } else if (v == "freeze") {
    int64_t frozen = plan["bottom"].get<int64_t>() * layer_params(c) + c.vocab_size * d;
    if (c.learned_positions) frozen += c.max_positions * d;
    e.trainable = c.param_count() - frozen;
  }
  return e;
}

struct Applied {
  gb::CausalLM model{nullptr};
  gb::ModelConfig base_config;
  grow::GrowthResult result;
  torch::Tensor base_logits;  // on ids
  torch::Tensor ids;
};

Applied grow_model(const std::string& family, const Json& plan, uint64_t seed = 11) {
  Applied a;
  a.model = gb::test::load_family(family);
  a.base_config = a.model->config;
  a.ids = gb::test::random_ids(*a.model, 2, 17, 99);
  a.base_logits = logits_of(*a.model, a.ids);
  grow::ApplyContext ctx;
  ctx.seed = seed;
  a.result = grow::apply_plan(*a.model, plan_of(plan), ctx);
  return a;
}

void rewrite_weights(const std::string& folder,
                     const std::function<void(std::map<std::string, torch::Tensor>&)>& edit) {
  const std::string path = (fs::path(folder) / "model.safetensors").string();
  auto tensors = gb::st::read_all(path);
  edit(tensors);
  std::vector<std::pair<std::string, torch::Tensor>> list(tensors.begin(), tensors.end());
  gb::st::write_tensors(path, list);
}

}  // namespace

class TestGrow : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    gb::test::quiet_logs();
    QVERIFY(m_tmp.isValid());
  }

  void functionPreservedAtInit_data() { add_family_plan_rows(); }
  void functionPreservedAtInit();
  void frozenTensorsStayBitIdentical_data() { add_family_plan_rows(); }
  void frozenTensorsStayBitIdentical();
  void trainableCountMatchesClosedForm_data() { add_family_plan_rows(); }
  void trainableCountMatchesClosedForm();
  void structureOnlyMatchesFullApply_data() { add_family_plan_rows(); }
  void structureOnlyMatchesFullApply();
  void growFreezeKeepsOriginalSlices_data();
  void growFreezeKeepsOriginalSlices();
  void growOperatorMatchesFormula_data() { growFreezeKeepsOriginalSlices_data(); }
  void growOperatorMatchesFormula();
  void depthInsertsIdentityBlocksAtPositions_data();
  void depthInsertsIdentityBlocksAtPositions();
  void loraInitFollowsPeftAndIsSeeded();
  void loraMergeGivesDenseUnits_data();
  void loraMergeGivesDenseUnits();
  void exportLoadsAsPlainArchitecture_data();
  void exportLoadsAsPlainArchitecture();
  void growbenchCheckpointRoundTrip_data();
  void growbenchCheckpointRoundTrip();
  void everyPlanFormRoundTripsThroughCheckpoint_data();
  void everyPlanFormRoundTripsThroughCheckpoint();
  void damagedCheckpointGivesSpecificError_data();
  void damagedCheckpointGivesSpecificError();
  void invalidPlanGivesSpecificError_data();
  void invalidPlanGivesSpecificError();
  void ewcPenaltyMatchesHandComputation_data();
  void ewcPenaltyMatchesHandComputation();
  void costBlocksCoverEveryItemOnce();
  void parallelItemsRethrowsAndRunsEveryItem();
  void shardedStepsAgree_data();
  void shardedStepsAgree();
  void shardedStepNamesANonFiniteLoss();
  void rowMixedStepWeighsLocalLossesByTheRowsDomains_data();
  void rowMixedStepWeighsLocalLossesByTheRowsDomains();
  void loraBudgetPicksTheNearestRank_data();
  void loraBudgetPicksTheNearestRank();
  void fusedAdamWEqualsTheOps();
  void fusedSplitLinearsEqualTheOps_data();
  void fusedSplitLinearsEqualTheOps();

 private:
  std::string tmp(const std::string& name) {
    return (fs::path(m_tmp.path().toStdString()) / name).string();
  }
  QTemporaryDir m_tmp;
};

// ---------------------------------------------------------------------------------------

void TestGrow::functionPreservedAtInit() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  Applied a = grow_model(family.toStdString(), Json::parse(plan.toStdString()));
  QVERIFY(a.result.function_preserving);
  const double diff = max_abs_diff(logits_of(*a.model, a.ids), a.base_logits);
  QVERIFY2(diff <= kPreserveTol, qPrintable(QString("max |logit diff| %1").arg(diff)));
}

void TestGrow::frozenTensorsStayBitIdentical() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  Applied a = grow_model(family.toStdString(), Json::parse(plan.toStdString()));
  // The groups hold exactly the tensors with requires_grad, each once.
  std::unordered_set<const void*> grouped;
  for (const auto& t : group_params(a.result)) {
    QVERIFY(t.requires_grad());
    QVERIFY2(grouped.insert(t.unsafeGetTensorImpl()).second, "a tensor is in two groups");
  }
  int64_t trainable_tensors = 0;
  for (const auto& t : a.model->parameters(true)) trainable_tensors += t.requires_grad();
  QCOMPARE(static_cast<int64_t>(grouped.size()), trainable_tensors);
  QVERIFY(trainable_tensors > 0);

  auto before = snapshot(*a.model);
  train_steps(*a.model, a.result, 4, 500);
  int changed = 0, kept = 0;
  for (const auto& item : a.model->named_parameters(true)) {
    const auto& old = before.at(item.key());
    const bool same = torch::equal(old, item.value());
    if (item.value().requires_grad()) {
      QVERIFY2(!same,
               qPrintable(
                   QString("trainable %1 did not change").arg(QString::fromStdString(item.key()))));
      ++changed;
    } else {
      QVERIFY2(same,
               qPrintable(QString("frozen %1 changed").arg(QString::fromStdString(item.key()))));
      // No weight gradient was computed for it (backward only computes what requires one):
      // the frozen parts of growth methods cost no gradient work.
      QVERIFY2(
          !item.value().grad().defined(),
          qPrintable(QString("frozen %1 got a gradient").arg(QString::fromStdString(item.key()))));
      ++kept;
    }
  }
  QVERIFY(changed > 0);
  const std::string v = Json::parse(plan.toStdString())["variant"];
  if (v != "full") QVERIFY(kept > 0);
}

void TestGrow::trainableCountMatchesClosedForm() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  const Json j = Json::parse(plan.toStdString());
  Applied a = grow_model(family.toStdString(), j);
  const Expected e = closed_form(a.base_config, j);
  QCOMPARE(a.result.base_params, a.base_config.param_count());
  QCOMPARE(a.result.trainable_params, e.trainable);
  QCOMPARE(a.result.added_params(), e.added);
  QCOMPARE(gb::count_parameters(*a.model, true), e.trainable);
  int64_t grouped = 0;
  for (const auto& g : a.result.groups) grouped += g.numel();
  QCOMPARE(grouped, e.trainable);
  if (j["variant"] == "grow" && j["mode"] == "freeze" && j["k"] == 2 && j["layers"] == "all" &&
      gated(family.toStdString())) {
    // The paper's example: k = 2 on every layer of a gated MLP trains 3·d·p per layer.
    const auto& c = a.base_config;
    QCOMPARE(e.trainable, c.num_layers * 3 * c.hidden_size * c.intermediate_size);
  }
}

void TestGrow::structureOnlyMatchesFullApply() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  const Json j = Json::parse(plan.toStdString());
  Applied a = grow_model(family.toStdString(), j);
  gb::CausalLM s{nullptr};
  {
    gb::SkipInitGuard skip;
    s = gb::CausalLM(a.base_config);
  }
  grow::ApplyContext ctx;
  ctx.structure_only = true;
  auto r = grow::apply_plan(*s, plan_of(j), ctx);
  auto full = a.model->named_parameters(true);
  auto structural = s->named_parameters(true);
  QCOMPARE(structural.size(), full.size());
  for (const auto& item : full) {
    const torch::Tensor* t = structural.find(item.key());
    QVERIFY2(t, qPrintable(QString("missing %1").arg(QString::fromStdString(item.key()))));
    QCOMPARE(t->sizes().vec(), item.value().sizes().vec());
    QCOMPARE(t->requires_grad(), item.value().requires_grad());
  }
  QCOMPARE(r.trainable_params, a.result.trainable_params);
  QCOMPARE(r.groups.size(), a.result.groups.size());
  for (size_t i = 0; i < r.groups.size(); ++i) {
    QCOMPARE(r.groups[i].name, a.result.groups[i].name);
    QCOMPARE(r.groups[i].numel(), a.result.groups[i].numel());
  }
}

// ---------------------------------------------------------------------------------------
// Grow specifics

void TestGrow::growFreezeKeepsOriginalSlices_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<int>("k");
  for (const auto& f : gb::test::all_families()) {
    QTest::newRow((f + "/k2").c_str()) << QString::fromStdString(f) << 2;
    QTest::newRow((f + "/k3").c_str()) << QString::fromStdString(f) << 3;
  }
}

void TestGrow::growFreezeKeepsOriginalSlices() {
  QFETCH(QString, family);
  QFETCH(int, k);
  Applied a = grow_model(family.toStdString(),
                         {{"variant", "grow"}, {"mode", "freeze"}, {"k", k}, {"layers", "all"}});
  const int64_t p = a.base_config.intermediate_size;
  struct Slices {
    torch::Tensor up_orig, up_new, down_orig, down_new;
  };
  auto slices = [&](int64_t l) {
    auto layer = a.model->layer(l);
    torch::NoGradGuard ng;
    auto up = layer->mlp->up_proj->dense_weight();      // (kp, d)
    auto down = layer->mlp->down_proj->dense_weight();  // (d, kp)
    return Slices{up.narrow(0, 0, p).clone(), up.narrow(0, p, (k - 1) * p).clone(),
                  down.narrow(1, 0, p).clone(), down.narrow(1, p, (k - 1) * p).clone()};
  };
  std::vector<Slices> before;
  for (int64_t l = 0; l < a.model->num_layers(); ++l) {
    auto layer = a.model->layer(l);
    // Split units: a frozen original part and a trainable new part.
    auto up = std::dynamic_pointer_cast<grow::RowSplitLinearImpl>(layer->mlp->up_proj);
    auto down = std::dynamic_pointer_cast<grow::ColSplitLinearImpl>(layer->mlp->down_proj);
    QVERIFY(up && down);
    QVERIFY(!up->frozen_weight.requires_grad() && up->grown_weight.requires_grad());
    QVERIFY(!down->frozen_weight.requires_grad() && down->grown_weight.requires_grad());
    if (down->bias.defined()) QVERIFY(!down->bias.requires_grad());
    if (up->frozen_bias.defined()) {
      QVERIFY(!up->frozen_bias.requires_grad() && up->grown_bias.requires_grad());
    }
    before.push_back(slices(l));
  }
  train_steps(*a.model, a.result, 3, 900);
  for (int64_t l = 0; l < a.model->num_layers(); ++l) {
    auto after = slices(l);
    QVERIFY2(torch::equal(after.up_orig, before[l].up_orig), "original up rows changed");
    QVERIFY2(torch::equal(after.down_orig, before[l].down_orig),
             "original (1/k-scaled) down columns changed");
    QVERIFY2(!torch::equal(after.up_new, before[l].up_new), "new up rows did not train");
    QVERIFY2(!torch::equal(after.down_new, before[l].down_new), "new down columns did not train");
  }
}

void TestGrow::growOperatorMatchesFormula() {
  QFETCH(QString, family);
  QFETCH(int, k);
  for (const char* mode : {"freeze", "train"}) {
    gb::CausalLM base = gb::test::load_family(family.toStdString());
    Applied a = grow_model(family.toStdString(),
                           {{"variant", "grow"}, {"mode", mode}, {"k", k}, {"layers", "all"}});
    torch::NoGradGuard ng;
    for (int64_t l = 0; l < base->num_layers(); ++l) {
      auto b = base->layer(l)->mlp;
      auto g = a.model->layer(l)->mlp;
      QCOMPARE(g->intermediate_size(), k * b->intermediate_size());
      // up (and gate): k stacked copies, biases copied.
      std::vector<std::pair<gb::LinearUnit, gb::LinearUnit>> ups = {{b->up_proj, g->up_proj}};
      if (b->gate_proj) ups.push_back({b->gate_proj, g->gate_proj});
      for (const auto& [bu, gu] : ups) {
        QVERIFY(torch::equal(gu->dense_weight(), bu->dense_weight().repeat({k, 1})));
        if (bu->dense_bias().defined()) {
          QVERIFY(torch::equal(gu->dense_bias(), bu->dense_bias().repeat({k})));
        } else {
          QVERIFY(!gu->dense_bias().defined());
        }
      }
      // down: k copies side by side, each divided by k; bias unchanged.
      auto want = (b->down_proj->dense_weight() / double(k)).repeat({1, k});
      QVERIFY(torch::equal(g->down_proj->dense_weight(), want));
      if (b->down_proj->dense_bias().defined()) {
        QVERIFY(torch::equal(g->down_proj->dense_bias(), b->down_proj->dense_bias()));
      }
      // G-Train: the whole up (and gate) projection trains, the whole down is frozen.
      if (std::string(mode) == "train") {
        QVERIFY(g->up_proj->dense_weight().requires_grad());
        for (const auto& t : g->down_proj->parameters(true)) QVERIFY(!t.requires_grad());
        QVERIFY(std::dynamic_pointer_cast<gb::DenseLinearImpl>(g->up_proj));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Depth specifics

void TestGrow::depthInsertsIdentityBlocksAtPositions_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QVector<int>>("sources");     // original layer each new block copies
  QTest::addColumn<QVector<int>>("new_layers");  // indices in the expanded model
  for (const auto& f : gb::test::all_families()) {
    const QString fam = QString::fromStdString(f);
    auto row = [&](const std::string& name, const Json& j, QVector<int> src, QVector<int> idx) {
      QTest::newRow((f + "/" + name).c_str())
          << fam << QString::fromStdString(j.dump()) << src << idx;
    };
    if (f == "gemma3_text") {  // L = 3
      row("llama-pro-1", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 1}}, {2}, {3});
      row("llama-pro-2", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 2}}, {0, 2},
          {1, 4});
      row("llama-pro-3", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 3}}, {0, 1, 2},
          {1, 3, 5});
      row("adept-1", {{"variant", "depth"}, {"style", "adept"}, {"layers", {1}}}, {1}, {2});
      row("adept-0-2", {{"variant", "depth"}, {"style", "adept"}, {"layers", {2, 0}}}, {0, 2},
          {1, 4});
    } else {  // L = 2
      row("llama-pro-1", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 1}}, {1}, {2});
      row("llama-pro-2", {{"variant", "depth"}, {"style", "llama-pro"}, {"count", 2}}, {0, 1},
          {1, 3});
      row("adept-0", {{"variant", "depth"}, {"style", "adept"}, {"layers", {0}}}, {0}, {1});
    }
  }
}

void TestGrow::depthInsertsIdentityBlocksAtPositions() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(QVector<int>, sources);
  QFETCH(QVector<int>, new_layers);
  gb::CausalLM base = gb::test::load_family(family.toStdString());
  Applied a = grow_model(family.toStdString(), Json::parse(plan.toStdString()));
  QCOMPARE(a.model->num_layers(), base->num_layers() + int64_t(sources.size()));
  QCOMPARE(a.model->config.num_layers, a.model->num_layers());
  std::vector<int64_t> want(new_layers.begin(), new_layers.end());
  QCOMPARE(a.result.new_layers, want);
  torch::NoGradGuard ng;
  for (int i = 0; i < sources.size(); ++i) {
    auto src = base->layer(sources[i]);
    auto blk = a.model->layer(new_layers[i]);
    // The copy sits right after its source and keeps its attention type.
    QVERIFY(a.model->layer(new_layers[i] - 1).get() != blk.get());
    QCOMPARE(blk->self_attn->sliding, src->self_attn->sliding);
    QCOMPARE(blk->self_attn->sliding_window, src->self_attn->sliding_window);
    QVERIFY(a.model->config.layer_types.at(new_layers[i]) ==
            base->config.layer_types.at(sources[i]));
    // A copy of the source's values except o and down, which are zero (weights and biases).
    auto sp = src->named_parameters(true);
    for (const auto& item : blk->named_parameters(true)) {
      const bool zeroed = item.key().rfind("self_attn.o_proj.", 0) == 0 ||
                          item.key().rfind("mlp.down_proj.", 0) == 0;
      if (zeroed) {
        QVERIFY2(item.value().abs().max().item<double>() == 0.0, item.key().c_str());
      } else {
        QVERIFY2(torch::equal(item.value(), *sp.find(item.key())), item.key().c_str());
      }
      QVERIFY(item.value().requires_grad());
    }
    // The new block is the exact identity on any hidden state (Gemma 3 too: RMSNorm(0) = 0).
    auto h = torch::randn({2, 9, a.base_config.hidden_size}, at::detail::createCPUGenerator(5 + i),
                          torch::kFloat);
    auto state = a.model->make_state(9, {}, torch::kCPU);
    auto out = a.model->run_layer(new_layers[i], h, state);
    QVERIFY2(torch::equal(out, h), "the new block is not the identity");
  }
  // Original layers are the same modules and frozen.
  for (int64_t l = 0; l < a.model->num_layers(); ++l) {
    if (std::count(new_layers.begin(), new_layers.end(), int(l))) continue;
    for (const auto& t : a.model->layer(l)->parameters(true)) QVERIFY(!t.requires_grad());
  }
}

// ---------------------------------------------------------------------------------------
// LoRA specifics

void TestGrow::loraInitFollowsPeftAndIsSeeded() {
  const Json j = {{"variant", "lora"}, {"rank", 4}, {"alpha", 16}, {"targets", {"q", "down"}}};
  Applied a = grow_model("llama", j, 3);
  Applied b = grow_model("llama", j, 3);
  Applied c = grow_model("llama", j, 4);
  for (int64_t l = 0; l < 2; ++l) {
    for (const char* u : {"q", "down"}) {
      auto la = std::dynamic_pointer_cast<grow::LoraLinearImpl>(a.model->layer(l)->linear(u));
      auto lb = std::dynamic_pointer_cast<grow::LoraLinearImpl>(b.model->layer(l)->linear(u));
      auto lc = std::dynamic_pointer_cast<grow::LoraLinearImpl>(c.model->layer(l)->linear(u));
      QVERIFY(la && lb && lc);
      QCOMPARE(la->scale, 16.0 / 4.0);
      QCOMPARE(la->lora_A.sizes().vec(), (std::vector<int64_t>{4, la->in_features()}));
      QCOMPARE(la->lora_B.sizes().vec(), (std::vector<int64_t>{la->out_features(), 4}));
      // B = 0; A ~ U(−1/√in, 1/√in) (PEFT's kaiming_uniform_(a=√5)), spread over the range.
      QCOMPARE(la->lora_B.abs().max().item<double>(), 0.0);
      const double bound = 1.0 / std::sqrt(double(la->in_features()));
      QVERIFY(la->lora_A.abs().max().item<double>() <= bound);
      QVERIFY(la->lora_A.abs().max().item<double>() > 0.8 * bound);
      QVERIFY(std::fabs(la->lora_A.mean().item<double>()) < 0.2 * bound);
      // Deterministic given the seed; another seed gives other values.
      QVERIFY(torch::equal(la->lora_A, lb->lora_A));
      QVERIFY(!torch::equal(la->lora_A, lc->lora_A));
      // The base is frozen.
      for (const auto& t : la->base->parameters(true)) QVERIFY(!t.requires_grad());
    }
  }
  // Different units get different values.
  auto q0 = std::dynamic_pointer_cast<grow::LoraLinearImpl>(a.model->layer(0)->linear("q"));
  auto q1 = std::dynamic_pointer_cast<grow::LoraLinearImpl>(a.model->layer(1)->linear("q"));
  QVERIFY(!torch::equal(q0->lora_A, q1->lora_A));
}

void TestGrow::loraMergeGivesDenseUnits_data() {
  QTest::addColumn<QString>("family");
  for (const auto& f : gb::test::all_families()) {
    QTest::newRow(f.c_str()) << QString::fromStdString(f);
  }
}

void TestGrow::loraMergeGivesDenseUnits() {
  QFETCH(QString, family);
  const std::string f = family.toStdString();
  Applied a =
      grow_model(f, {{"variant", "lora"}, {"rank", 4}, {"alpha", 8}, {"targets", lora_targets(f)}});
  train_steps(*a.model, a.result, 3, 40);
  {
    // dense_weight() is W + (alpha / r) · B A.
    torch::NoGradGuard ng;
    auto lora = std::dynamic_pointer_cast<grow::LoraLinearImpl>(a.model->layer(0)->linear("v"));
    QVERIFY(lora);
    QVERIFY(lora->lora_B.abs().max().item<double>() > 0);
    auto want = lora->base->dense_weight() + 2.0 * torch::matmul(lora->lora_B, lora->lora_A);
    QVERIFY(max_abs_diff(lora->dense_weight(), want) <= 1e-7);
  }
  auto before = logits_of(*a.model, a.ids);
  QVERIFY(max_abs_diff(before, a.base_logits) > 1e-4);  // training changed the function
  const int64_t merged = grow::merge_lora(*a.model);
  QCOMPARE(merged, a.model->num_layers() * int64_t(lora_targets(f).size()));
  for (int64_t l = 0; l < a.model->num_layers(); ++l) {
    for (const auto& u : a.model->layer(l)->units()) {
      if (std::dynamic_pointer_cast<gb::LinearUnitImpl>(u.module)) {
        QVERIFY(std::dynamic_pointer_cast<gb::DenseLinearImpl>(u.module));
      }
    }
  }
  QCOMPARE(gb::count_parameters(*a.model), a.base_config.param_count());
  const double diff = max_abs_diff(logits_of(*a.model, a.ids), before);
  const double tol = merged_tolerance(before);
  QVERIFY2(diff <= tol, qPrintable(QString("merged logits differ by %1 > %2").arg(diff).arg(tol)));
}

// ---------------------------------------------------------------------------------------
// Export and checkpoints

void TestGrow::exportLoadsAsPlainArchitecture_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  for (const auto& f : gb::test::all_families()) {
    for (const auto& [name, j] : plans_for(f)) {
      // Expressible results: Grow on all layers, depth expansion, LoRA (merged), baselines.
      if (name == "grow-freeze-k3-l1" || name == "grow-train-k3-l0") continue;
      QTest::newRow((f + "/" + name).c_str())
          << QString::fromStdString(f) << QString::fromStdString(j.dump());
    }
    const Json k3 = {{"variant", "grow"}, {"mode", "freeze"}, {"k", 3}, {"layers", "all"}};
    QTest::newRow((f + "/grow-freeze-k3-all").c_str())
        << QString::fromStdString(f) << QString::fromStdString(k3.dump());
  }
}

void TestGrow::exportLoadsAsPlainArchitecture() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  const Json j = Json::parse(plan.toStdString());
  const std::string f = family.toStdString();
  Applied a = grow_model(f, j);
  train_steps(*a.model, a.result, 2, 77);  // non-trivial values in every grown part
  const std::string out = tmp("export-" + f + "-" + QTest::currentDataTag());
  auto saved = grow::save_model(*a.model, a.base_config, &a.result.plan, out, "");
  QVERIFY2(saved.format == grow::SaveFormat::HuggingFace, saved.reason.c_str());
  QVERIFY(!grow::is_growbench_checkpoint(out));

  gb::LoadedModel plain = gb::load_hf_model(out);
  const auto& c = plain.config;
  const auto& b = a.base_config;
  QCOMPARE(c.model_type, b.model_type);
  QCOMPARE(c.hidden_size, b.hidden_size);
  QCOMPARE(c.vocab_size, b.vocab_size);
  const std::string v = j["variant"];
  if (v == "grow") {
    QCOMPARE(c.intermediate_size, j["k"].get<int64_t>() * b.intermediate_size);
  } else {
    QCOMPARE(c.intermediate_size, b.intermediate_size);
  }
  if (v == "depth") {
    const int64_t added = j["style"] == "llama-pro"  ? j["count"].get<int64_t>()
                          : j["style"] == "in-place" ? 0
                                                     : static_cast<int64_t>(j["layers"].size());
    QCOMPARE(c.num_layers, b.num_layers + added);
    for (int64_t l = 0; l < c.num_layers; ++l) {
      QVERIFY(c.layer_types.at(l) == a.model->config.layer_types.at(l));
    }
  } else {
    QCOMPARE(c.num_layers, b.num_layers);
  }
  QCOMPARE(gb::count_parameters(*plain.model), c.param_count());
  // Split units joined sum in a different order (one GEMM over the joined width instead of
  // one per part), and merged LoRA (W + s·B·A) x rounds differently from W x + s·B(A x):
  // in float32 the difference depends on the CPU's GEMM blocking (1.14e-5 on one machine
  // where another gave less), so the two models are compared in float64, where only the
  // float32 rounding of the exported (merged) weights remains.
  const auto grown64 = logits_in_double(*a.model, a.ids);
  const double scale = grown64.abs().max().item<double>();
  const double diff = max_abs_diff(logits_in_double(*plain.model, a.ids), grown64);
  // Measured: 0 for every plan whose export copies values (split units joined, depth, Grow),
  // at most 2.8e-7 of the scale for merged LoRA (the float32 rounding of W + s·B·A).
  const double tol = 2e-6 * scale;
  QVERIFY2(diff <= tol,
           qPrintable(QString("reloaded logits differ by %1 > %2").arg(diff).arg(tol)));
  // grow::load_model reads the same folder as a plain model.
  gb::LoadedModel again = grow::load_model(out);
  QVERIFY(again.plan.is_null());
  QVERIFY(torch::equal(logits_of(*again.model, a.ids), logits_of(*plain.model, a.ids)));
}

void TestGrow::growbenchCheckpointRoundTrip_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<bool>("force");  // SaveFormat::GrowBench rather than Auto
  for (const auto& f : gb::test::all_families()) {
    const QString fam = QString::fromStdString(f);
    auto row = [&](const std::string& name, const Json& j, bool force) {
      QTest::newRow((f + "/" + name).c_str()) << fam << QString::fromStdString(j.dump()) << force;
    };
    // Grow on a subset of layers: layers of different MLP sizes, not expressible.
    row("grow-freeze-l0", {{"variant", "grow"}, {"mode", "freeze"}, {"k", 2}, {"layers", {0}}},
        false);
    row("grow-train-k3-l1", {{"variant", "grow"}, {"mode", "train"}, {"k", 3}, {"layers", {1}}},
        false);
    // Expressible ones, kept as GrowBench checkpoints on request (adapters and splits kept).
    row("grow-freeze-all", {{"variant", "grow"}, {"mode", "freeze"}, {"layers", "all"}}, true);
    row("lora", {{"variant", "lora"}, {"rank", 2}, {"targets", lora_targets(f)}}, true);
    row("depth-adept", {{"variant", "depth"}, {"style", "adept"}, {"layers", {0}}}, true);
    row("freeze", {{"variant", "freeze"}, {"bottom", 1}}, true);
  }
}

void TestGrow::growbenchCheckpointRoundTrip() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(bool, force);
  const std::string f = family.toStdString();
  Applied a = grow_model(f, Json::parse(plan.toStdString()));
  train_steps(*a.model, a.result, 2, 31);
  auto grown_logits = logits_of(*a.model, a.ids);
  const std::string out = tmp("gbck-" + f + "-" + QTest::currentDataTag());
  const std::string source = f == "gemma3_text" ? "" : gb::test::fixture_dir(f);
  auto saved = grow::save_model(*a.model, a.base_config, &a.result.plan, out, source,
                                force ? grow::SaveFormat::GrowBench : grow::SaveFormat::Auto);
  QVERIFY(saved.format == grow::SaveFormat::GrowBench);
  QVERIFY(!saved.reason.empty());
  if (!force) QVERIFY2(saved.reason.find("MLP sizes") != std::string::npos, saved.reason.c_str());
  QVERIFY(grow::is_growbench_checkpoint(out));
  QVERIFY(!gb::file_exists((fs::path(out) / "config.json").string()));

  gb::LoadedModel back = grow::load_model(out);
  QVERIFY2(back.plan == grow::to_json(a.result.plan), back.plan.dump().c_str());
  QCOMPARE(back.config.num_layers, a.base_config.num_layers);
  // Same names, values and trainable set; bit-identical logits.
  auto want = a.model->named_parameters(true);
  auto got = back.model->named_parameters(true);
  QCOMPARE(got.size(), want.size());
  for (const auto& item : want) {
    const torch::Tensor* t = got.find(item.key());
    QVERIFY2(t, item.key().c_str());
    QVERIFY2(torch::equal(*t, item.value()), item.key().c_str());
    QVERIFY2(t->requires_grad() == item.value().requires_grad(), item.key().c_str());
  }
  QVERIFY(torch::equal(logits_of(*back.model, a.ids), grown_logits));
}

void TestGrow::everyPlanFormRoundTripsThroughCheckpoint_data() {
  // Every plan form of grow/plan.h, including the variants other files implement: the
  // checkpoint relies only on apply_plan(structure_only) and registered names.
  const char* const kForms[] = {
      R"({"variant":"full"})",
      R"({"variant":"freeze","bottom":1})",
      R"({"variant":"lora","rank":8,"alpha":16,"targets":["q","v","gate","up","down"]})",
      R"({"variant":"grow","mode":"freeze","k":2,"layers":[0]})",
      R"({"variant":"grow","mode":"train","k":2,"layers":"all"})",
      R"({"variant":"scale","mode":"preserve","d_up":64,"p_up":128,"init":"svd,zero"})",
      R"({"variant":"scale","mode":"adapt","d_up":64,"p_up":128,"l_fp":1,"init":"svd,zero"})",
      R"({"variant":"scale","mode":"route","d_up":64,"p_up":128,"l_fp":1,"tau":0.5})",
      R"({"variant":"depth","style":"llama-pro","count":2})",
      R"({"variant":"depth","style":"adept","layers":[0,1]})",
      R"({"variant":"depth","style":"in-place","layers":[1]})",
      R"({"variant":"neutral-residues","gate":"elu","layers":"all","budget":0.2,"alpha":100})",
      R"({"variant":"neutral-residues","gate":"sigmoid","layers":"all","budget":0.2})",
      R"({"variant":"adapters","layers":"all","budget":0.2})",
      R"({"variant":"ewc","lambda":1.0})",
      R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4})",
      R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4})",
      R"({"variant":"mh-moe","heads":4,"rank":4,"placement":"beside-mlp"})",
  };
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  for (const char* f : {"llama", "gemma3_text"}) {
    for (const char* form : kForms) {
      const Json j = Json::parse(form);
      std::string name = j["variant"].get<std::string>();
      for (const char* key : {"mode", "style", "gate", "placement"}) {
        if (j.contains(key)) name += "-" + j[key].get<std::string>();
      }
      QTest::newRow((std::string(f) + "/" + name).c_str()) << QString(f) << QString(form);
    }
  }
}

void TestGrow::everyPlanFormRoundTripsThroughCheckpoint() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  const std::string f = family.toStdString();
  gb::CausalLM model = gb::test::load_family(f);
  const gb::ModelConfig base = model->config;
  grow::ApplyContext ctx;
  ctx.seed = 5;
  for (const auto& item : model->named_parameters(true)) {
    ctx.fisher[item.key()] = torch::ones_like(item.value());  // EWC
  }
  grow::GrowthResult r;
  const std::string err = error_of(
      [&] { r = grow::apply_plan(*model, plan_of(Json::parse(plan.toStdString())), ctx); });
  QVERIFY2(err == "NO ERROR", err.c_str());
  {
    // Move every trainable value away from its initialisation.
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(17);
    for (auto& t : group_params(r)) {
      t.add_(torch::randn(t.sizes(), gen, torch::kFloat).to(t.options()) * 0.01);
    }
  }
  auto ids = gb::test::random_ids(*model, 2, 11, 8);
  auto want = logits_of(*model, ids);
  const std::string out = tmp("every-" + f + "-" + QTest::currentDataTag());
  auto saved = grow::save_model(*model, base, &r.plan, out, "", grow::SaveFormat::GrowBench);
  QVERIFY(saved.format == grow::SaveFormat::GrowBench);
  gb::LoadedModel back = grow::load_model(out);
  QVERIFY2(back.plan == grow::to_json(r.plan), back.plan.dump().c_str());
  QCOMPARE(gb::count_parameters(*back.model), gb::count_parameters(*model));
  QCOMPARE(gb::count_parameters(*back.model, true), gb::count_parameters(*model, true));
  auto got = back.model->named_parameters(true);
  for (const auto& item : model->named_parameters(true)) {
    const torch::Tensor* t = got.find(item.key());
    QVERIFY2(t, item.key().c_str());
    QVERIFY2(t->requires_grad() == item.value().requires_grad(), item.key().c_str());
  }
  QVERIFY(torch::equal(logits_of(*back.model, ids), want));
}

void TestGrow::damagedCheckpointGivesSpecificError_data() {
  QTest::addColumn<QString>("damage");
  QTest::addColumn<QString>("expected");
  QTest::newRow("missing tensor") << "missing"
                                  << "model.layers.0.mlp.up_proj.grown_weight";
  QTest::newRow("unexpected tensor") << "unexpected"
                                     << "unexpected tensor(s)";
  QTest::newRow("wrong shape") << "shape"
                               << "has shape [320, 64] but the model rebuilt";
  QTest::newRow("not a growbench marker") << "format"
                                          << "'format' must be";
  QTest::newRow("future version") << "version"
                                  << "version 2 is not supported";
  QTest::newRow("invalid plan") << "plan"
                                << "'k' must be at least 2";
  QTest::newRow("no weights") << "weights"
                              << "no model.safetensors";
}

void TestGrow::damagedCheckpointGivesSpecificError() {
  QFETCH(QString, damage);
  QFETCH(QString, expected);
  Applied a = grow_model("llama", {{"variant", "grow"}, {"mode", "freeze"}, {"layers", {0}}});
  const std::string out = tmp("damaged-" + damage.toStdString());
  grow::save_model(*a.model, a.base_config, &a.result.plan, out, "");
  const std::string grown = "model.layers.0.mlp.up_proj.grown_weight";
  const std::string marker = (fs::path(out) / "growbench.json").string();
  auto edit_marker = [&](const std::function<void(Json&)>& edit) {
    Json j = gb::json::parse_file(marker);
    edit(j);
    gb::write_file_atomic(marker, j.dump());
  };
  const std::string d = damage.toStdString();
  if (d == "missing") {
    rewrite_weights(out, [&](auto& t) { t.erase(grown); });
  } else if (d == "unexpected") {
    rewrite_weights(out, [&](auto& t) { t["model.layers.0.mlp.extra"] = torch::zeros({3}); });
  } else if (d == "shape") {
    // The grown part of up is (k−1)p × d = 160 × 64 for k = 2; write k = 3's instead.
    rewrite_weights(out, [&](auto& t) { t[grown] = torch::zeros({320, 64}); });
  } else if (d == "format") {
    edit_marker([](Json& j) { j["format"] = "something-else"; });
  } else if (d == "version") {
    edit_marker([](Json& j) { j["version"] = 2; });
  } else if (d == "plan") {
    edit_marker([](Json& j) { j["plan"]["k"] = 1; });
  } else if (d == "weights") {
    fs::remove(fs::path(out) / "model.safetensors");
  }
  const std::string err = error_of([&] { grow::load_model(out); });
  QVERIFY2(err.find(expected.toStdString()) != std::string::npos, err.c_str());
}

// ---------------------------------------------------------------------------------------
// Errors

void TestGrow::invalidPlanGivesSpecificError_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("expected");
  auto row = [](const char* name, const char* f, const char* plan, const char* expected) {
    QTest::newRow(name) << QString(f) << QString(plan) << QString(expected);
  };
  row("grow layer out of range", "llama", R"({"variant":"grow","layers":[0,5]})",
      "layer index 5 is out of range (the model has 2 layers");
  row("grow k < 2", "llama", R"({"variant":"grow","k":1})", "'k' must be at least 2");
  row("grow unknown mode", "qwen2", R"({"variant":"grow","mode":"fast"})",
      "'mode' must be one of freeze, train");
  row("unknown variant", "llama", R"({"variant":"grwo"})", "unknown variant 'grwo'");
  row("unknown key", "llama", R"({"variant":"grow","kk":2})", "unknown key 'kk'");
  row("lora gate on gpt2", "gpt2", R"({"variant":"lora","targets":["q","gate"]})",
      "LoRA target 'gate'");
  row("lora gate on gpt_neox", "gpt_neox", R"({"variant":"lora","targets":["gate"]})",
      "has no gated MLP");
  row("lora unknown target", "llama", R"({"variant":"lora","targets":["qkv"]})",
      "unknown LoRA target 'qkv'");
  row("lora rank 0", "llama", R"({"variant":"lora","rank":0})", "'rank' must be at least 1");
  row("lora rank and budget", "llama", R"({"variant":"lora","rank":4,"budget":0.2})",
      "give 'rank' or 'budget', not both");
  row("lora budget below rank 1", "llama", R"({"variant":"lora","budget":0.0001})",
      "nearer to none than to rank 1");
  row("lora layer out of range", "gemma3_text", R"({"variant":"lora","layers":[3]})",
      "layer index 3 is out of range (the model has 3 layers");
  row("adept without layers", "llama", R"({"variant":"depth","style":"adept"})",
      "ADEPT needs 'layers'");
  row("adept layer out of range", "qwen3", R"({"variant":"depth","style":"adept","layers":[2]})",
      "layer index 2 is out of range");
  row("in-place without layers", "llama", R"({"variant":"depth","style":"in-place"})",
      "the in-place style needs 'layers'");
  row("in-place layer out of range", "llama",
      R"({"variant":"depth","style":"in-place","layers":[2]})", "layer index 2 is out of range");
  row("llama-pro count > L", "llama", R"({"variant":"depth","style":"llama-pro","count":3})",
      "'count' = 3 exceeds the 2 layers");
  row("llama-pro without count", "llama", R"({"variant":"depth","style":"llama-pro"})",
      "'count' must be at least 1");
  row("llama-pro with layers", "llama",
      R"({"variant":"depth","style":"llama-pro","count":1,"layers":[0]})",
      "give 'count', not 'layers'");
  row("freeze everything", "llama", R"({"variant":"freeze","bottom":2})",
      "leaves nothing to train");
  row("policy without probes", "llama",
      R"({"variant":"grow","layers":{"policy":"update-magnitude","k":1}})",
      "needs importance probes");
}

void TestGrow::invalidPlanGivesSpecificError() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(QString, expected);
  gb::CausalLM model = gb::test::load_family(family.toStdString());
  const std::string err = error_of(
      [&] { grow::apply_plan(*model, plan_of(gb::json::parse(plan.toStdString(), "test"))); });
  QVERIFY2(err.find(expected.toStdString()) != std::string::npos, err.c_str());
}

// ---------------------------------------------------------------------------------------
// EWC

void TestGrow::ewcPenaltyMatchesHandComputation_data() {
  QTest::addColumn<QString>("family");
  for (const auto& f : gb::test::all_families()) {
    QTest::newRow(f.c_str()) << QString::fromStdString(f);
  }
}

void TestGrow::ewcPenaltyMatchesHandComputation() {
  QFETCH(QString, family);
  gb::CausalLM model = gb::test::load_family(family.toStdString());
  const double lambda = 0.7;
  const Json j = {{"variant", "ewc"}, {"lambda", lambda}};
  // Without a Fisher probe EWC cannot be set up.
  const std::string err = error_of([&] { grow::apply_plan(*model, plan_of(j)); });
  QVERIFY2(err.find("diagonal Fisher") != std::string::npos, err.c_str());

  grow::ApplyContext ctx;
  auto gen = at::detail::createCPUGenerator(21);
  for (const auto& item : model->named_parameters(true)) {
    ctx.fisher[item.key()] = torch::rand(item.value().sizes(), gen, torch::kFloat) * 50.0;
  }
  auto anchors = snapshot(*model);
  auto r = grow::apply_plan(*model, plan_of(j), ctx);
  QCOMPARE(int(r.loss_terms.size()), 1);
  auto& term = *r.loss_terms[0];
  QCOMPARE(term.coefficient(), lambda / 2.0);
  QCOMPARE(term.compute().item<double>(), 0.0);  // θ = θ* at the start
  QCOMPARE(r.trainable_params, model->config.param_count());
  train_steps(*model, r, 2, 60);
  double hand = 0;
  for (const auto& item : model->named_parameters(true)) {
    auto delta =
        item.value().detach().to(torch::kDouble) - anchors.at(item.key()).to(torch::kDouble);
    hand += (ctx.fisher.at(item.key()).to(torch::kDouble) * delta.pow(2)).sum().item<double>();
  }
  QVERIFY(hand > 0);
  const double got = term.coefficient() * term.compute().item<double>();
  const double want = lambda / 2.0 * hand;
  QVERIFY2(std::fabs(got - want) <= 1e-5 * want,
           qPrintable(QString("penalty %1, by hand %2").arg(got).arg(want)));
  // A Fisher map of the wrong shape is refused naming the parameter.
  gb::CausalLM other = gb::test::load_family(family.toStdString());
  ctx.fisher[gb::arch::names::kEmbed] = torch::ones({3});
  const std::string shape_err = error_of([&] { grow::apply_plan(*other, plan_of(j), ctx); });
  QVERIFY2(shape_err.find("model.embed_tokens.weight") != std::string::npos, shape_err.c_str());
}

// The one-pass AdamW (train/adamw_kernel.h) against the per-tensor ops it replaces: the
// same float operations and fused multiply-adds, so the same bits, over sizes that leave
// every remainder of the 8-wide loop, gradients across many orders of magnitude, decayed
// and undecayed groups with their own rates, clipping's coefficient on some steps, and
// more threads than one.
void TestGrow::fusedAdamWEqualsTheOps() {
  if (!gb::train::adamw_fused_available())
    QSKIP("no AVX2/FMA CPU, or LibTorch not on its AVX2 kernels");
  torch::manual_seed(7);
  const std::vector<std::vector<int64_t>> shapes = {{1}, {7}, {8}, {9}, {33, 17}, {1003}, {64, 65}};
  auto spread = [](std::vector<int64_t> shape) {
    return torch::randn(shape) * torch::exp(torch::randn(shape) * 3.0);
  };
  std::vector<torch::Tensor> a, b;
  for (const auto& shape : shapes) {
    auto t = spread(shape);
    a.push_back(t.clone().requires_grad_(true));
    b.push_back(t.clone().requires_grad_(true));
  }
  auto groups = [&](std::vector<torch::Tensor>& params) {
    std::vector<gb::train::OptimGroup> g(2);
    g[0].name = "decayed";
    g[0].lr_scale = 1.0;
    g[1].name = "plain";
    g[1].lr_scale = 0.37;
    g[1].decay = false;
    for (size_t i = 0; i < params.size(); ++i) {
      auto& grp = g[i % 2];
      grp.params.push_back(params[i]);
      grp.names.push_back("p" + std::to_string(i));
    }
    return g;
  };
  gb::train::AdamWOptions o;
  o.weight_decay = 0.05;
  gb::train::AdamW fused(groups(a), o), ops(groups(b), o);
  ops.set_fused(false);
  QVERIFY(fused.fused());
  QVERIFY(!ops.fused());
  for (int step = 0; step < 6; ++step) {
    for (size_t i = 0; i < a.size(); ++i) {
      auto g = spread(a[i].sizes().vec());
      if (step == 2 && i == 3) g[0] = 0.0;  // a zero gradient where v is small
      a[i].mutable_grad() = g.clone();
      b[i].mutable_grad() = g.clone();
    }
    torch::Tensor scale;
    if (step % 2 == 1) scale = torch::tensor(0.0123f);
    const double lr = 1e-3 * (step + 1);
    fused.step(lr, step % 3 == 2 ? 2 : 1, scale);
    ops.step(lr, 1, scale);
    for (size_t i = 0; i < a.size(); ++i) {
      QVERIFY2(torch::equal(a[i].detach(), b[i].detach()),
               qPrintable(QString("step %1, tensor %2: parameters differ").arg(step).arg(i)));
    }
    const auto sa = fused.state(), sb = ops.state();
    QCOMPARE(sa.size(), sb.size());
    for (size_t k = 0; k < sa.size(); ++k) {
      QVERIFY2(torch::equal(sa[k].second, sb[k].second),
               qPrintable(QString("step %1: %2 differs").arg(step).arg(sa[k].first.c_str())));
    }
    fused.zero_grad();
    ops.zero_grad();
  }
}

void TestGrow::fusedSplitLinearsEqualTheOps_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<bool>("createGraph");
  const QString freeze = R"({"variant": "grow", "mode": "freeze", "k": 2, "layers": "all"})";
  const QString partial = R"({"variant": "grow", "mode": "freeze", "k": 3, "layers": [0]})";
  for (const char* f : {"llama", "qwen3", "gemma"}) {
    QTest::newRow(qPrintable(QString("%1, G-Freeze").arg(f))) << QString(f) << freeze << false;
  }
  QTest::newRow("llama, G-Freeze k 3, layer 0") << QString("llama") << partial << false;
  QTest::newRow("llama, G-Freeze, create_graph") << QString("llama") << freeze << true;
}

// The split linears with both products in one tensor (RowSplit forward, ColSplit's input
// gradient) against the concatenation and the zero-filled halves of the ops: logits and
// every trainable gradient equal, in a model grown by Grow, training mode.
void TestGrow::fusedSplitLinearsEqualTheOps() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(bool, createGraph);
  auto run = [&](bool fused) {
    Applied a = grow_model(family.toStdString(), Json::parse(plan.toStdString()));
    {
      // Grow's copies make both parts' gradients equal; different weights make the order in
      // which x's gradients are added matter.
      torch::NoGradGuard ng;
      auto gen = at::detail::createCPUGenerator(17);
      for (auto& item : a.model->named_parameters(true)) {
        if (item.key().find("grown_weight") == std::string::npos) continue;
        item.value().add_(torch::randn(item.value().sizes(), gen) * 0.05);
      }
    }
    int splits = 0;
    for (auto& module : a.model->modules()) {
      if (auto* r = dynamic_cast<grow::RowSplitLinearImpl*>(module.get())) {
        r->fused = fused;
        ++splits;
      } else if (auto* c = dynamic_cast<grow::ColSplitLinearImpl*>(module.get())) {
        c->fused = fused;
        ++splits;
      }
    }
    a.model->train();
    auto logits = a.model->forward(a.ids);
    auto loss = logits.square().mean() + logits.mean();
    std::vector<torch::Tensor> params;
    for (auto& p : a.model->parameters()) {
      if (p.requires_grad()) params.push_back(p);
    }
    auto grads = torch::autograd::grad({loss}, params, {}, true, createGraph, true);
    grads.insert(grads.begin(), logits.detach());
    return std::make_pair(grads, splits);
  };
  const auto [a, splits] = run(true);
  const auto b = run(false).first;
  QVERIFY2(splits > 0, "the plan made no split linears");
  // The first tensor that differs (0: the logits), -1 for none.
  QCOMPARE(gb::test::first_unequal(a, b), int64_t{-1});
}

void TestGrow::costBlocksCoverEveryItemOnce() {
  const std::vector<int64_t> costs = {5, 1, 1, 1, 8, 2, 2, 0, 4};
  for (int64_t threads : {1, 2, 3, 4, 9, 12}) {
    const auto b = gb::train::cost_blocks(costs, threads);
    QCOMPARE(b.front(), size_t(0));
    QCOMPARE(b.back(), costs.size());
    QCOMPARE(b.size(), static_cast<size_t>(threads) + 1);
    for (size_t i = 1; i < b.size(); ++i) {
      QVERIFY(b[i - 1] <= b[i]);
      // No empty block while there are items enough for every thread.
      if (threads <= static_cast<int64_t>(costs.size())) QVERIFY(b[i - 1] < b[i]);
    }
  }
  // Two threads: the cut is at the item where half the cost (12 of 24) is reached.
  QCOMPARE(gb::train::cost_blocks(costs, 2), (std::vector<size_t>{0, 5, 9}));
  QCOMPARE(gb::train::cost_blocks({}, 2), (std::vector<size_t>{0, 0, 0}));
}

void TestGrow::parallelItemsRethrowsAndRunsEveryItem() {
  std::vector<int> seen(7, 0);
  gb::train::parallel_items(std::vector<int64_t>(7, 1), 3, [&](size_t i) { seen[i] += 1; });
  QCOMPARE(seen, std::vector<int>(7, 1));
  // Grad mode is the caller's in every thread.
  std::vector<int> grad_mode(4, -1);
  {
    torch::NoGradGuard no_grad;
    gb::train::parallel_items(std::vector<int64_t>(4, 1), 2, [&](size_t i) {
      grad_mode[i] = torch::GradMode::is_enabled() ? 1 : 0;
    });
  }
  QCOMPARE(grad_mode, std::vector<int>(4, 0));
  const std::string err = error_of([] {
    gb::train::parallel_items(std::vector<int64_t>(4, 1), 2, [](size_t i) {
      if (i == 3) gb::fail("item {} failed", i);
    });
  });
  QVERIFY2(err.find("item 3 failed") != std::string::npos, err.c_str());
}

void TestGrow::shardedStepsAgree_data() {
  QTest::addColumn<QString>("plan");
  for (const grow::VariantModule* m : grow::variants()) {
    Json plan = {{"variant", m->id}};
    if (m->id == "scale") plan["d_up"] = 64;
    if (m->id == "depth") plan["count"] = 1;
    if (m->id == "freeze") plan["bottom"] = 1;
    QTest::newRow(m->id.c_str()) << QString::fromStdString(plan.dump());
  }
  QTest::newRow("lora-q-v-layer-1") << QString::fromStdString(
      Json{{"variant", "lora"}, {"rank", 2}, {"targets", {"q", "v"}}, {"layers", {1}}}.dump());
}

// train.row_shards: the blocks of rows of a batch computed on one thread and on two give the
// same numbers bit for bit (each block is computed whole by one thread, BLAS single-threaded
// either way; the parallel clipping and AdamW do the same operations per tensor); against
// one block, the loss and the gradient (AdamW's first moment after one step, 0.1 · the
// clipped gradient) agree up to float32 rounding. Frozen tensors get no gradient.
void TestGrow::shardedStepsAgree() {
  QFETCH(QString, plan);
  const Json j = Json::parse(plan.toStdString());
  struct Outcome {
    std::vector<double> losses, norms;
    std::map<std::string, double> terms;
    std::map<std::string, torch::Tensor> params, first_moment;
    int64_t shard_threads = 0;
  };
  auto batch = [](const gb::CausalLMImpl& m, uint64_t seed, bool original) {
    gb::data::Batch b;
    b.rows = 5;  // two blocks of 3 and 2 rows
    b.seq_len = 12;
    auto ids = gb::test::random_ids(m, b.rows, b.seq_len + 1, seed).to(torch::kInt);
    b.tokens.assign(ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel());
    b.domain = original ? gb::data::Domain::Original : gb::data::Domain::New;
    if (original) {
      // A loss mask: the first 4 positions of every row do not count.
      b.loss_mask.assign(b.tokens.size(), 1);
      for (int64_t r = 0; r < b.rows; ++r) {
        for (int64_t t = 0; t < 4; ++t) b.loss_mask[r * (b.seq_len + 1) + t] = 0;
      }
    }
    return b;
  };
  auto run = [&](int64_t shards, int64_t threads, int steps) {
    gb::CausalLM model = gb::test::load_family("llama");
    grow::ApplyContext ctx;
    ctx.seed = 11;
    if (j["variant"] == "ewc") {
      auto gen = at::detail::createCPUGenerator(21);
      for (const auto& item : model->named_parameters(true)) {
        ctx.fisher[item.key()] = torch::rand(item.value().sizes(), gen, torch::kFloat) * 50.0;
      }
    }
    grow::GrowthResult r = grow::apply_plan(*model, plan_of(j), ctx);
    gb::train::TrainOptions o;
    o.adamw.lr = 1e-3;
    o.adamw.weight_decay = 0.1;
    o.schedule.kind = "constant";
    o.clip = 0.05;  // small enough to clip
    o.row_shards = shards;
    o.shard_threads = threads;
    gb::train::Trainer trainer(model, r, o, torch::Device(torch::kCPU));
    Outcome out;
    out.shard_threads = trainer.shard_threads();
    for (int s = 0; s < steps; ++s) {
      // Two micro-batches (accumulation 2): one new-domain, one original with a loss mask.
      auto st = trainer.step({batch(*model, 40 + 2 * s, false), batch(*model, 41 + 2 * s, true)});
      out.losses.push_back(st.loss);
      out.losses.push_back(st.lm_loss);
      out.norms.push_back(st.grad_norm);
      for (const auto& [name, v] : st.terms) out.terms[name + "@" + std::to_string(s)] = v;
      if (s == 0) {
        for (const auto& [name, t] : trainer.optimizer().state()) {
          if (name.size() > 8 && name.compare(name.size() - 8, 8, ".exp_avg") == 0)
            out.first_moment[name] = t.clone();
        }
      }
    }
    for (const auto& item : model->named_parameters(true)) {
      if (!item.value().requires_grad()) {
        if (item.value().grad().defined()) {
          QTest::qFail(("frozen " + item.key() + " got a gradient").c_str(), __FILE__, __LINE__);
        }
      }
      out.params[item.key()] = item.value().detach().clone();
    }
    return out;
  };
  const Outcome one = run(1, 0, 1);
  const Outcome seq = run(2, 1, 2);
  const Outcome par = run(2, 2, 2);
  QCOMPARE(seq.shard_threads, int64_t(1));
  QCOMPARE(par.shard_threads, int64_t(2));
  // Two blocks on one thread and on two: identical.
  QCOMPARE(par.losses, seq.losses);
  QCOMPARE(par.norms, seq.norms);
  QCOMPARE(par.terms, seq.terms);
  QVERIFY(!par.norms.empty() && par.norms[0] > 0.05);  // clipping acted
  for (const auto& [name, t] : seq.params) {
    QVERIFY2(torch::equal(t, par.params.at(name)), name.c_str());
  }
  for (const auto& [name, t] : seq.first_moment) {
    QVERIFY2(torch::equal(t, par.first_moment.at(name)), name.c_str());
  }
  // Against one block: the first step's loss, gradient norm, terms and gradients, up to
  // float32 rounding relative to each value's scale.
  QVERIFY(!one.first_moment.empty());
  for (size_t i = 0; i < one.losses.size(); ++i) {
    QVERIFY2(std::abs(one.losses[i] - seq.losses[i]) <= 1e-5 * std::max(1.0, one.losses[i]),
             qPrintable(QString("loss %1: %2 vs %3").arg(i).arg(one.losses[i]).arg(seq.losses[i])));
  }
  QVERIFY(std::abs(one.norms[0] - seq.norms[0]) <= 1e-4 * one.norms[0]);
  for (const auto& [name, v] : one.terms) {
    QVERIFY2(std::abs(v - seq.terms.at(name)) <= 1e-5 * std::max(1.0, std::abs(v)), name.c_str());
  }
  for (const auto& [name, m] : one.first_moment) {
    const torch::Tensor& other = seq.first_moment.at(name);
    const double scale = m.abs().max().item<double>();
    const double diff = (m - other).abs().max().item<double>();
    QVERIFY2(diff <= 1e-4 * scale + 1e-12,
             qPrintable(QString("%1: gradients differ by %2 (scale %3)")
                            .arg(QString::fromStdString(name))
                            .arg(diff)
                            .arg(scale)));
  }
}

void TestGrow::rowMixedStepWeighsLocalLossesByTheRowsDomains_data() {
  QTest::addColumn<QString>("gate");
  QTest::addColumn<int>("shards");
  for (const char* g : {"elu", "sigmoid"}) {
    for (int n : {1, 2}) {
      QTest::newRow(fmt::format("{} row_shards={}", g, n).c_str()) << QString(g) << n;
    }
  }
}

// replay_mode "rows": for a micro-batch mixed per row the trainer's ℓ1 term is α · the mean
// over its original-domain rows' tokens, and the explicit selector's classifier loss takes each
// row's own label: what forwards of the two domains' rows apart give. Split into row shards,
// each block's ℓ1 counts by its share of the original rows (here all in the first block, the
// second has none), not by its share of all rows.
void TestGrow::rowMixedStepWeighsLocalLossesByTheRowsDomains() {
  QFETCH(QString, gate);
  QFETCH(int, shards);
  using gb::data::Domain;
  gb::CausalLM model = gb::test::load_family("llama");
  grow::ApplyContext ctx;
  ctx.seed = 3;
  grow::GrowthResult r = grow::apply_plan(
      *model,
      plan_of({{"variant", "neutral-residues"}, {"gate", gate.toStdString()}, {"inner", 8}}), ctx);
  {
    // W_down ≠ 0, so that the adapters' outputs (and the ℓ1 term) are not zero.
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(5);
    int found = 0;
    for (auto& item : model->named_parameters(true)) {
      if (item.key().find(".adapter.down_proj.") == std::string::npos) continue;
      item.value().normal_(0.0, 0.2, gen);
      ++found;
    }
    QCOMPARE(found, 2);
  }
  gb::data::Batch mixed;
  mixed.rows = 5;
  mixed.seq_len = 12;
  auto ids = gb::test::random_ids(*model, mixed.rows, mixed.seq_len + 1, 77).to(torch::kInt);
  mixed.tokens.assign(ids.data_ptr<int32_t>(), ids.data_ptr<int32_t>() + ids.numel());
  mixed.row_domains = {Domain::Original, Domain::New, Domain::Original, Domain::New, Domain::New};
  auto rows_of = [&](const std::vector<int64_t>& pick, Domain domain) {
    gb::data::Batch b;
    b.rows = static_cast<int64_t>(pick.size());
    b.seq_len = mixed.seq_len;
    b.domain = domain;
    for (int64_t row : pick) {
      b.tokens.insert(b.tokens.end(), mixed.row(row), mixed.row(row) + mixed.row_length());
    }
    return b;
  };
  auto terms_of = [&](const gb::data::Batch& b) {  // coefficient · value, summed over layers
    auto bt = gb::data::to_tensors(b, torch::kCPU);
    std::vector<gb::AuxTerm> aux;
    gb::ForwardOptions fo;
    fo.aux = &aux;
    fo.original_domain = bt.original;
    fo.domain_labels = bt.domain_labels;
    torch::NoGradGuard ng;
    model->train();
    model->forward(bt.inputs, fo);
    std::map<std::string, double> sum;
    for (const auto& a : aux) sum[a.name] += a.coefficient * a.value.item<double>();
    return sum;
  };
  const auto orig = terms_of(rows_of({0, 2}, Domain::Original));
  const auto fresh = terms_of(rows_of({1, 3, 4}, Domain::New));
  const double want_l1 = orig.at("local_l1");
  QVERIFY(want_l1 > 0);
  QVERIFY(!fresh.count("local_l1"));

  gb::train::TrainOptions o;
  o.adamw.lr = 1e-3;
  o.schedule.kind = "constant";
  o.clip = 0;
  o.row_shards = shards;
  o.shard_threads = 1;
  gb::train::Trainer trainer(model, r, o, torch::Device(torch::kCPU));
  const auto st = trainer.step({mixed});
  QVERIFY(st.terms.count("local_l1"));
  const double l1 = st.terms.at("local_l1");
  QVERIFY2(std::abs(l1 - want_l1) <= 1e-5 * std::max(1.0, want_l1),
           qPrintable(QString("l1 %1, want %2").arg(l1).arg(want_l1)));
  if (gate == "sigmoid") {
    // Mean over all rows' tokens (every row has seq_len of them), each row with its label.
    const double want_bce = (2 * orig.at("gate_bce") + 3 * fresh.at("gate_bce")) / 5;
    const double bce = st.terms.at("gate_bce");
    QVERIFY2(std::abs(bce - want_bce) <= 1e-5 * std::max(1.0, want_bce),
             qPrintable(QString("bce %1, want %2").arg(bce).arg(want_bce)));
  }
}

void TestGrow::loraBudgetPicksTheNearestRank_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<double>("budget");
  QTest::addColumn<QString>("plan");
  auto row = [](const char* f, double budget, const char* plan) {
    QTest::newRow(fmt::format("{} budget={} {}", f, budget, plan).c_str())
        << QString(f) << budget << QString(plan);
  };
  // The neutral-residues paper's 20 %, on attention and on MLP targets.
  row("llama", 0.2, R"({"targets":["q","v"]})");
  row("llama", 0.2, R"({"targets":["gate","up","down"]})");
  row("llama", 0.05, R"({"targets":["q","k","v","o"],"layers":[1]})");
  row("qwen3", 0.2, R"({"targets":["q","v"],"alpha":4})");
  row("gpt2", 0.1, R"({"targets":["q","v","o","up","down"]})");
}

// LoRA at a parameter budget (as neutral residues size their adapters): the rank whose added
// parameters come nearest to budget · base parameters among all ranks; the grown model, the
// planner's estimate, the resolved plan and its label all report that rank; alpha defaults
// to 2 · that rank.
void TestGrow::loraBudgetPicksTheNearestRank() {
  QFETCH(QString, family);
  QFETCH(double, budget);
  QFETCH(QString, plan);
  gb::CausalLM model = gb::test::load_family(family.toStdString());
  Json j = gb::json::parse(plan.toStdString(), "test plan");
  j["variant"] = "lora";
  j["budget"] = budget;
  const grow::GrowthPlan p = plan_of(j);
  QVERIFY2(p.label().find(fmt::format("budget={:g}", budget)) != std::string::npos,
           p.label().c_str());
  const grow::VariantModule& m = grow::variant_module("lora");
  const grow::VariantEstimate est = m.estimate(*p.params.get(), model->config);
  const grow::GrowthResult r = grow::apply_plan(*model, p);
  const auto& rp = r.plan.get<grow::LoraParams>();
  const int64_t rank = rp.rank;
  QCOMPARE(r.base_params, model->config.param_count());
  const int64_t added = r.added_params();
  QCOMPARE(est.added, added);
  QVERIFY(rank >= 1);
  const int64_t per = added / rank;  // added parameters are linear in the rank
  QCOMPARE(per * rank, added);
  const double target = budget * static_cast<double>(r.base_params);
  auto gap = [&](int64_t rr) { return std::abs(static_cast<double>(rr * per) - target); };
  QVERIFY2(
      gap(rank) <= gap(rank + 1) && (rank == 1 || gap(rank) <= gap(rank - 1)),
      qPrintable(QString("rank %1: %2 added for a budget of %3").arg(rank).arg(added).arg(target)));
  // Reported: the resolved plan (the grown event's JSON, checkpoints) and its label.
  const Json grown = r.to_json();
  QCOMPARE(grown.at("plan").at("rank").get<int64_t>(), rank);
  QVERIFY(!grown.at("plan").contains("budget"));
  const std::string label = grown.at("label").get<std::string>();
  const std::string want = fmt::format("lora r={}", rank);
  QVERIFY2(label == want || label.rfind(want + " ", 0) == 0, label.c_str());
  QCOMPARE(rp.alpha, j.contains("alpha") ? j["alpha"].get<double>() : 2.0 * rank);
  // The resolved plan reloads as itself.
  QCOMPARE(QString::fromStdString(grow::to_json(plan_of(grow::to_json(r.plan))).dump()),
           QString::fromStdString(grow::to_json(r.plan).dump()));
}

void TestGrow::shardedStepNamesANonFiniteLoss() {
  gb::CausalLM model = gb::test::load_family("llama");
  grow::GrowthResult r = grow::apply_plan(*model, plan_of({{"variant", "full"}}));
  gb::train::TrainOptions o;
  o.row_shards = 2;
  o.shard_threads = 2;
  gb::train::Trainer trainer(model, r, o, torch::Device(torch::kCPU));
  gb::data::Batch b;
  b.rows = 4;
  b.seq_len = 8;
  b.tokens.assign(static_cast<size_t>(b.rows * (b.seq_len + 1)), 5);
  {
    torch::NoGradGuard no_grad;
    r.groups.front().params.front().fill_(NAN);
  }
  try {
    trainer.step({b});
    QFAIL("no DivergedError");
  } catch (const gb::train::DivergedError& e) {
    QCOMPARE(e.step, int64_t(0));
    QCOMPARE(e.term, std::string("next-token cross-entropy"));
  }
  // A block that fails in its thread is reported, not lost: a row of ids past the
  // vocabulary fails the embedding lookup in the second block.
  b.tokens.back() = static_cast<int32_t>(model->config.vocab_size + 7);
  const std::string err = error_of([&] { trainer.step({b}); });
  QVERIFY2(err.find("index out of range") != std::string::npos ||
               err.find("out of bounds") != std::string::npos,
           err.c_str());
}

QTEST_APPLESS_MAIN(TestGrow)
#include "tst_grow.moc"
