// Branch growth operators (modules in parallel to the MLP): neutral residues (ELU and sigmoid
// gates), vanilla parallel adapters, LoRAMoE and MH-MoE. Function preservation, the frozen
// set, parameter counts, the budget rule, the local losses, routing and balancing, against
// computations written out by hand here.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include <torch/torch.h>

#include "test_util.h"
#include "grow/adapters.h"
#include "grow/growth.h"
#include "grow/moe.h"
#include "grow/plan.h"
#include "model/hf_io.h"
#include "grow/routes.h"
#include "grow/ewc.h"
#include "test_models.h"
#include "util/error.h"
#include "util/json.h"

namespace grow = gb::grow;

namespace {

// Plans exercised on every family: name → JSON.
const std::pair<const char*, const char*> kPlans[] = {
    {"nr-elu", R"({"variant":"neutral-residues","gate":"elu","layers":"all","budget":0.2,)"
               R"("alpha":100})"},
    {"nr-sigmoid", R"({"variant":"neutral-residues","gate":"sigmoid","layers":"all",)"
                   R"("budget":0.2,"alpha":100})"},
    {"adapters", R"({"variant":"adapters","layers":"all","budget":0.2})"},
    // Experts beside each MLP linear (the default placement, the paper's A.3.4).
    {"loramoe", R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4})"},
    // top_k = 1 trains the router only through the balancing loss (see moe.h).
    {"mh-moe", R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4,)"
               R"("balance":0.01})"},
    {"mh-moe-top2", R"({"variant":"mh-moe","heads":2,"experts":3,"top_k":2,"rank":2})"},
    // One bank beside the whole MLP.
    {"loramoe-beside",
     R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4,"placement":"beside-mlp"})"},
    {"mh-moe-beside", R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4,)"
                      R"("balance":0.01,"placement":"beside-mlp"})"},
};

bool beside_mlp(const std::string& plan) {
  return plan.find("\"adapter") != std::string::npos ||
         plan.find("neutral-residues") != std::string::npos ||
         plan.find("beside-mlp") != std::string::npos;
}

grow::GrowthPlan plan_of(const std::string& text) {
  return grow::parse_plan(gb::json::parse(text, "test plan"));
}

using gb::test::error_of;

bool is_branch_param(const std::string& name) {
  return name.find(".adapter.") != std::string::npos || name.find(".moe.") != std::string::npos ||
         name.find(".moe_") != std::string::npos;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

torch::Tensor lm_loss(const torch::Tensor& logits, const torch::Tensor& ids) {
  const int64_t t = ids.size(1), v = logits.size(2);
  return torch::nn::functional::cross_entropy(logits.narrow(1, 0, t - 1).reshape({-1, v}),
                                              ids.narrow(1, 1, t - 1).reshape({-1}));
}

const gb::AuxTerm* find_term(const std::vector<gb::AuxTerm>& aux, const std::string& name) {
  const gb::AuxTerm* found = nullptr;
  for (const auto& t : aux) {
    if (t.name == name) {
      if (found) return nullptr;  // more than one: callers expect exactly one
      found = &t;
    }
  }
  return found;
}

int count_terms(const std::vector<gb::AuxTerm>& aux, const std::string& name) {
  return static_cast<int>(
      std::count_if(aux.begin(), aux.end(), [&](const gb::AuxTerm& t) { return t.name == name; }));
}

// An adapter with random values everywhere (W_down too, so that a(x) ≠ 0).
grow::GatedAdapter random_adapter(grow::AdapterGate gate, int64_t d, int64_t m, double alpha,
                                  uint64_t seed) {
  grow::AdapterOptions o;
  o.hidden = d;
  o.inner = m;
  o.gate = gate;
  o.l1_alpha = alpha;
  auto a = std::make_shared<grow::GatedAdapterImpl>(o, torch::TensorOptions());
  torch::NoGradGuard ng;
  auto gen = at::detail::createCPUGenerator(seed);
  for (auto& p : a->parameters(true)) p.normal_(0.0, 0.5, gen);
  return a;
}

// a(x) and the gate logits z(x) written out: W_down (silu(W_g x) ⊙ W_up x), silu(u) = u·σ(u).
struct ManualAdapter {
  torch::Tensor a, z;
};
ManualAdapter manual_adapter(const grow::GatedAdapterImpl& ad, const torch::Tensor& x) {
  auto g = torch::matmul(x, ad.gate_proj->weight.t());
  auto u = torch::matmul(x, ad.up_proj->weight.t());
  auto h = g * (1.0 / (1.0 + torch::exp(-g))) * u;
  ManualAdapter r;
  r.a = torch::matmul(h, ad.down_proj->weight.t());
  if (ad.block_gate) r.z = torch::matmul(x, ad.block_gate->weight.t());
  return r;
}

// Switch-style balance K · Σ_i f_i P_i, averaged over groups, with plain loops.
// logits[n][g][i]; valid[n].
double manual_balance(const std::vector<std::vector<std::vector<double>>>& logits,
                      const std::vector<bool>& valid, int64_t top_k) {
  const size_t n_tok = logits.size(), groups = logits[0].size(), k_all = logits[0][0].size();
  double total = 0;
  for (size_t g = 0; g < groups; ++g) {
    std::vector<double> f(k_all, 0.0), p(k_all, 0.0);
    double n_valid = 0;
    for (size_t n = 0; n < n_tok; ++n) {
      if (!valid[n]) continue;
      n_valid += 1;
      const auto& a = logits[n][g];
      double mx = *std::max_element(a.begin(), a.end()), z = 0;
      for (double v : a) z += std::exp(v - mx);
      for (size_t i = 0; i < k_all; ++i) p[i] += std::exp(a[i] - mx) / z;
      std::vector<size_t> order(k_all);
      std::iota(order.begin(), order.end(), 0);
      auto by_logit = [&](size_t x, size_t y) { return a[x] > a[y]; };
      std::stable_sort(order.begin(), order.end(), by_logit);
      for (int64_t j = 0; j < top_k; ++j) f[order[j]] += 1.0;
    }
    double s = 0;
    for (size_t i = 0; i < k_all; ++i) s += (f[i] / (n_valid * top_k)) * (p[i] / n_valid);
    total += static_cast<double>(k_all) * s;
  }
  return total / static_cast<double>(groups);
}

}  // namespace

class TestBranches : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    gb::test::quiet_logs();
  }

  void functionPreservedAtInit_data();
  void functionPreservedAtInit();
  void frozenBaseStaysBitIdenticalAndBranchesTrain_data() { functionPreservedAtInit_data(); }
  void frozenBaseStaysBitIdenticalAndBranchesTrain();
  void trainableCountsMatchClosedForm_data();
  void trainableCountsMatchClosedForm();
  void budgetRuleGivesLargestInnerSizeWithinBudget_data();
  void budgetRuleGivesLargestInnerSizeWithinBudget();
  void lowVarianceInitOnlyForGatedAdapters_data();
  void lowVarianceInitOnlyForGatedAdapters();
  void gatesComputedAsSpecified_data();
  void gatesComputedAsSpecified();
  void localL1OnlyOnOriginalDomainBatches_data();
  void localL1OnlyOnOriginalDomainBatches();
  void localL1OfARowMixedBatchCoversItsOriginalRowsOnly_data();
  void localL1OfARowMixedBatchCoversItsOriginalRowsOnly();
  void gateBceMatchesManualBinaryCrossEntropy_data();
  void gateBceMatchesManualBinaryCrossEntropy();
  void ewcPenaltyMatchesItsDefinition();
  void top1RouterLearnsOnlyWithSoftmaxAll_data();
  void top1RouterLearnsOnlyWithSoftmaxAll();
  void topKRoutingWeightsSelectedExpertsOnly_data();
  void topKRoutingWeightsSelectedExpertsOnly();
  void balanceLossMatchesManualComputation_data();
  void balanceLossMatchesManualComputation();
  void mhMoeWithOneHeadEqualsLoraMoe();
  void mhMoeSumsHeadwiseExpertOutputs_data();
  void mhMoeSumsHeadwiseExpertOutputs();
  void expertsSitBesideEachMlpLinear_data();
  void expertsSitBesideEachMlpLinear();
  void effectiveCompositionNumberByHand();
  void routeStatisticsOfAGrownModel_data();
  void routeStatisticsOfAGrownModel();
  void structureOnlyAndSeedGiveReloadableDeterministicModels_data();
  void structureOnlyAndSeedGiveReloadableDeterministicModels();
  void kindDescribesBranch_data();
  void kindDescribesBranch();
  void invalidPlansGiveSpecificErrors_data();
  void invalidPlansGiveSpecificErrors();
  void invalidBranchOptionsGiveSpecificErrors();
};

// ---------------------------------------------------------------------------------------

void TestBranches::functionPreservedAtInit_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  for (const auto& f : gb::test::all_families()) {
    for (const auto& [name, json] : kPlans) {
      QTest::newRow((f + "/" + name).c_str()) << QString::fromStdString(f) << QString(json);
    }
  }
}

void TestBranches::functionPreservedAtInit() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  auto m = gb::test::load_family(family.toStdString());
  auto ids = gb::test::random_ids(*m);
  torch::NoGradGuard ng;
  auto base = m->forward(ids);
  grow::ApplyContext ctx;
  ctx.seed = 3;
  auto r = grow::apply_plan(*m, plan_of(plan.toStdString()), ctx);
  QVERIFY(r.function_preserving);
  for (const auto& layer : m->all_layers()) {
    if (beside_mlp(plan.toStdString())) {
      QCOMPARE(layer->branches().size(), size_t(1));
    } else {  // a bank beside each linear of the MLP
      QCOMPARE(layer->branches().size(), size_t(0));
      QVERIFY(std::dynamic_pointer_cast<grow::MoeLinearImpl>(layer->mlp->up_proj));
      QVERIFY(std::dynamic_pointer_cast<grow::MoeLinearImpl>(layer->mlp->down_proj));
      if (layer->mlp->gate_proj) {
        QVERIFY(std::dynamic_pointer_cast<grow::MoeLinearImpl>(layer->mlp->gate_proj));
      }
    }
  }
  auto grown = m->forward(ids);
  const double diff = max_abs_diff(base, grown);
  QVERIFY2(diff <= 1e-5, qPrintable(QString("max |logit diff| %1 > 1e-5").arg(diff)));

  // The comparison has teeth: with the zero-initialised output projections made non-zero,
  // the branches change the logits.
  for (auto& [name, p] : gb::named_parameters(*m)) {
    if (is_branch_param(name) && p.abs().max().item<double>() == 0.0) p.normal_(0.0, 0.5);
  }
  QVERIFY(max_abs_diff(base, m->forward(ids)) > 1e-4);
}

void TestBranches::frozenBaseStaysBitIdenticalAndBranchesTrain() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  auto m = gb::test::load_family(family.toStdString());
  auto r = grow::apply_plan(*m, plan_of(plan.toStdString()));
  std::map<std::string, torch::Tensor> before;
  for (const auto& [name, p] : gb::named_parameters(*m)) before[name] = p.detach().clone();
  std::vector<torch::Tensor> trainable;
  for (const auto& g : r.groups)
    trainable.insert(trainable.end(), g.params.begin(), g.params.end());
  QVERIFY(!trainable.empty());
  // No weight decay: every change below comes from a gradient.
  torch::optim::AdamW opt(trainable, torch::optim::AdamWOptions(1e-2).weight_decay(0.0));
  auto ids = gb::test::random_ids(*m, 2, 12, 99);
  for (int step = 0; step < 4; ++step) {
    std::vector<gb::AuxTerm> aux;
    gb::ForwardOptions o;
    o.aux = &aux;
    o.original_domain = step % 2 == 1;  // exercises the local l1 on alternate steps
    if (step == 2) o.domain_labels = torch::tensor({1.0f, 0.0f});
    auto loss = lm_loss(m->forward(ids, o), ids);
    for (const auto& t : aux) loss = loss + t.coefficient * t.value;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  int branch_tensors = 0;
  for (const auto& [name, p] : gb::named_parameters(*m)) {
    if (is_branch_param(name)) {
      ++branch_tensors;
      QVERIFY2(p.requires_grad(), name.c_str());
      QVERIFY2(!torch::equal(p, before.at(name)),
               qPrintable(QString::fromStdString(name + " did not change")));
    } else {
      QVERIFY2(!p.requires_grad(), name.c_str());
      QVERIFY2(torch::equal(p, before.at(name)),
               qPrintable(QString::fromStdString(name + " changed but is frozen")));
    }
  }
  QVERIFY(branch_tensors > 0);
}

// ---------------------------------------------------------------------------------------

void TestBranches::trainableCountsMatchClosedForm_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("unit");
  for (const auto& f : gb::test::all_families()) {
    for (const auto& [name, json] : kPlans) {
      std::string unit = std::string(name).rfind("nr", 0) == 0 || std::string(name) == "adapters"
                             ? "adapter"
                             : "moe";
      QTest::newRow((f + "/" + name).c_str())
          << QString::fromStdString(f) << QString(json) << QString::fromStdString(unit);
    }
    QTest::newRow((f + "/nr-inner-one-layer").c_str())
        << QString::fromStdString(f)
        << QString(R"({"variant":"neutral-residues","gate":"sigmoid","layers":[1],"inner":24})")
        << QString("adapter");
    QTest::newRow((f + "/mh-moe-alpha-one-layer").c_str())
        << QString::fromStdString(f)
        << QString(R"({"variant":"mh-moe","heads":8,"experts":2,"top_k":2,"rank":3,)"
                   R"("alpha":6,"layers":[0]})")
        << QString("moe");
  }
}

void TestBranches::trainableCountsMatchClosedForm() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(QString, unit);
  auto m = gb::test::load_family(family.toStdString());
  const int64_t base = gb::count_parameters(*m);
  const int64_t d = m->config.hidden_size, n_model_layers = m->num_layers();
  auto p = plan_of(plan.toStdString());
  auto r = grow::apply_plan(*m, p);
  const std::vector<int64_t> layers = r.plan.layers()->layers;
  const auto n = static_cast<int64_t>(layers.size());
  QVERIFY(n >= 1 && n <= n_model_layers);

  int64_t per_layer = 0;
  if (p.variant == grow::Variant::NeutralResidues || p.variant == grow::Variant::Adapters) {
    const auto& ap = p.get<grow::AdapterParams>();
    const bool gated = p.variant == grow::Variant::NeutralResidues;
    int64_t inner = ap.inner;
    if (inner == 0) {  // the budget rule, written out
      const int64_t g = gated ? d : 0;
      inner = static_cast<int64_t>(
          std::floor((ap.budget * double(base) / double(n) - g) / (3.0 * double(d))));
    }
    // 3·d·m (W_g, W_up, W_down) + d (w_s) when gated; no biases.
    per_layer = 3 * d * inner + (gated ? d : 0);
  } else {
    const auto& mp = p.get<grow::MoeParams>();
    const int64_t k = mp.experts, rank = mp.rank, h = mp.heads;
    // Per bank d_in → d_out: H · (K experts (d_in/H → r → d_out) + a router K × d_in/H).
    auto bank = [&](int64_t d_in, int64_t d_out) {
      return h * (k * rank * (d_in / h + d_out) + (d_in / h) * k);
    };
    if (mp.placement == "beside-mlp") {
      per_layer = bank(d, d);
      if (p.variant == grow::Variant::LoraMoe) {
        QCOMPARE(per_layer, k * rank * 2 * d + d * k);  // experts A, B + router
      }
    } else {
      const int64_t inner = m->config.intermediate_size;
      per_layer = (m->config.gated_mlp ? 2 : 1) * bank(d, inner) + bank(inner, d);
    }
  }
  QCOMPARE(r.trainable_params, n * per_layer);
  QCOMPARE(r.added_params(), n * per_layer);
  QCOMPARE(r.base_params, base);
  if (p.variant == grow::Variant::LoraMoe || p.variant == grow::Variant::MhMoe) {
    if (p.get<grow::MoeParams>().placement != "beside-mlp") {
      // One group per bank, named after the linear it sits beside.
      const std::vector<std::string> units = m->config.gated_mlp
                                                 ? std::vector<std::string>{"gate", "up", "down"}
                                                 : std::vector<std::string>{"up", "down"};
      QCOMPARE(r.groups.size(), layers.size() * units.size());
      int64_t total = 0;
      for (size_t i = 0; i < r.groups.size(); ++i) {
        const auto& g = r.groups[i];
        QCOMPARE(g.layer, layers[i / units.size()]);
        QCOMPARE(QString::fromStdString(g.unit), QString::fromStdString(units[i % units.size()]));
        QCOMPARE(QString::fromStdString(g.name),
                 QString("layers.%1.%2.moe").arg(g.layer).arg(QString::fromStdString(g.unit)));
        total += g.numel();
      }
      QCOMPARE(total, n * per_layer);
      return;
    }
  }
  // One group per selected layer, named after the branch.
  QCOMPARE(static_cast<int64_t>(r.groups.size()), n);
  for (size_t i = 0; i < r.groups.size(); ++i) {
    QCOMPARE(QString::fromStdString(r.groups[i].unit), unit);
    QCOMPARE(r.groups[i].layer, layers[i]);
    QCOMPARE(QString::fromStdString(r.groups[i].name),
             QString("layers.%1.%2").arg(layers[i]).arg(unit));
    QCOMPARE(r.groups[i].numel(), per_layer);
  }
}

void TestBranches::budgetRuleGivesLargestInnerSizeWithinBudget_data() {
  QTest::addColumn<QString>("gate");
  QTest::addColumn<QString>("layers");
  QTest::addColumn<double>("budget");  // fraction of the base model
  // > 0: instead of `budget`, the budget that pays for exactly this many (fractional) inner
  // units per layer, 3·d·units; `expected` is then the inner size the rule must give.
  QTest::addColumn<double>("units");
  QTest::addColumn<int>("expected");
  QTest::newRow("elu 20% all layers") << "elu"
                                      << "\"all\"" << 0.2 << 0.0 << 0;
  QTest::newRow("sigmoid 5% one layer") << "sigmoid"
                                        << "[1]" << 0.05 << 0.0 << 0;
  QTest::newRow("vanilla 20% all layers") << "none"
                                          << "\"all\"" << 0.2 << 0.0 << 0;
  QTest::newRow("vanilla 50% one layer") << "none"
                                         << "[0]" << 0.5 << 0.0 << 0;
  // The gate vector w_s (d values) comes out of the budget: 40.1 units of 3·d leave room
  // for 39 units plus w_s when gated, 40 units without gate.
  QTest::newRow("elu gate vector paid from budget") << "elu"
                                                    << "\"all\"" << 0.0 << 40.1 << 39;
  QTest::newRow("elu just enough") << "elu"
                                   << "[1]" << 0.0 << 40.34 << 40;
  QTest::newRow("vanilla has no gate vector") << "none"
                                              << "\"all\"" << 0.0 << 40.1 << 40;
}

void TestBranches::budgetRuleGivesLargestInnerSizeWithinBudget() {
  QFETCH(QString, gate);
  QFETCH(QString, layers);
  QFETCH(double, budget);
  QFETCH(double, units);
  QFETCH(int, expected);
  auto m = gb::test::load_family("llama");
  const int64_t base = gb::count_parameters(*m), d = m->config.hidden_size;
  const bool gated = gate != "none";
  const int64_t n_sel = layers == "\"all\"" ? m->num_layers() : 1;
  if (units > 0) budget = double(n_sel) * 3.0 * double(d) * units / double(base);
  std::string json = gated
                         ? R"({"variant":"neutral-residues","gate":")" + gate.toStdString() + "\","
                         : std::string(R"({"variant":"adapters",)");
  json += fmt::format("\"budget\":{},\"layers\":{}}}", budget, layers.toStdString());
  auto r = grow::apply_plan(*m, plan_of(json));
  const auto n = static_cast<int64_t>(r.plan.layers()->layers.size());
  QCOMPARE(n, n_sel);
  auto branch = std::dynamic_pointer_cast<grow::GatedAdapterImpl>(
      m->layer(r.plan.layers()->layers[0])->branches().at(0).second);
  QVERIFY(branch);
  const int64_t inner = branch->options.inner;
  if (expected > 0) QCOMPARE(inner, int64_t(expected));
  QCOMPARE(inner, grow::adapter_inner_size(base, budget, n, d, gated));
  // The documented rule: the largest m whose n·(3·d·m + g) stays within budget · base.
  auto total = [&](int64_t mm) { return static_cast<double>(n * (3 * d * mm + (gated ? d : 0))); };
  QVERIFY(inner >= 1);
  QVERIFY(total(inner) <= budget * double(base));
  QVERIFY(total(inner + 1) > budget * double(base));
  QCOMPARE(double(r.added_params()), total(inner));
}

void TestBranches::lowVarianceInitOnlyForGatedAdapters_data() {
  QTest::addColumn<QString>("gate");
  QTest::newRow("elu") << "elu";
  QTest::newRow("sigmoid") << "sigmoid";
  QTest::newRow("none") << "none";
}

void TestBranches::lowVarianceInitOnlyForGatedAdapters() {
  QFETCH(QString, gate);
  const int64_t d = 128, m = 256, layers = 4;
  grow::AdapterOptions o;
  o.hidden = d;
  o.inner = m;
  o.gate = grow::parse_adapter_gate(gate.toStdString());
  grow::GatedAdapterImpl a(o, torch::TensorOptions());
  a.init_values(layers, 17);
  const bool gated = gate != "none";
  // Gated: variance 1/(d·L); vanilla: He's 2/d.
  const double want = gated ? 1.0 / std::sqrt(double(d * layers)) : std::sqrt(2.0 / d);
  for (const auto& w : {a.gate_proj->weight, a.up_proj->weight}) {
    const double got = w.std().item<double>();
    QVERIFY2(std::fabs(got / want - 1.0) < 0.03,
             qPrintable(QString("std %1, expected %2").arg(got).arg(want)));
    QVERIFY(std::fabs(w.mean().item<double>()) < 0.1 * want);
  }
  QCOMPARE(a.down_proj->weight.abs().max().item<double>(), 0.0);
  QCOMPARE(static_cast<bool>(a.block_gate), gated);
  if (gated) {
    const double got = a.block_gate->weight.std().item<double>();
    QVERIFY2(std::fabs(got / want - 1.0) < 0.2,
             qPrintable(QString("w_s std %1, expected %2").arg(got).arg(want)));
  }
  // W_g and W_up are drawn independently.
  QVERIFY(!torch::equal(a.gate_proj->weight, a.up_proj->weight));
}

void TestBranches::gatesComputedAsSpecified_data() {
  lowVarianceInitOnlyForGatedAdapters_data();
}

void TestBranches::gatesComputedAsSpecified() {
  QFETCH(QString, gate);
  const auto g = grow::parse_adapter_gate(gate.toStdString());
  auto ad = random_adapter(g, 16, 8, 100.0, 5);
  auto x = torch::randn({2, 5, 16}, at::detail::createCPUGenerator(8), torch::kFloat);
  gb::ForwardState state;
  torch::NoGradGuard ng;
  auto y = ad->forward(x, state);
  auto man = manual_adapter(*ad, x);
  torch::Tensor want;
  if (g == grow::AdapterGate::None) {
    want = man.a;
  } else if (g == grow::AdapterGate::Elu) {
    // ELU(z) = z for z > 0, exp(z) − 1 otherwise.
    auto s = torch::where(man.z > 0, man.z, torch::exp(man.z) - 1.0);
    QVERIFY((man.z < 0).any().item<bool>() && (man.z > 0).any().item<bool>());
    want = s * man.a;
  } else {
    auto s = 1.0 / (1.0 + torch::exp(-man.z));
    want = s * man.a;
  }
  QVERIFY2(max_abs_diff(y, want) <= 1e-5,
           qPrintable(QString("diff %1").arg(max_abs_diff(y, want))));
}

void TestBranches::localL1OnlyOnOriginalDomainBatches_data() {
  QTest::addColumn<QString>("gate");
  QTest::addColumn<bool>("padded");
  for (const char* g : {"elu", "sigmoid", "none"}) {
    QTest::newRow(g) << QString(g) << false;
    QTest::newRow((std::string(g) + " padded").c_str()) << QString(g) << true;
  }
}

void TestBranches::localL1OnlyOnOriginalDomainBatches() {
  QFETCH(QString, gate);
  QFETCH(bool, padded);
  const auto g = grow::parse_adapter_gate(gate.toStdString());
  // Vanilla adapters have no local loss (the plan gives them alpha 0).
  const double alpha = g == grow::AdapterGate::None ? 0.0 : 100.0;
  auto ad = random_adapter(g, 16, 8, alpha, 6);
  auto x = torch::randn({2, 5, 16}, at::detail::createCPUGenerator(9), torch::kFloat);
  auto valid = torch::tensor({1, 1, 1, 0, 0, 1, 1, 1, 1, 1}, torch::kBool).view({2, 5});

  for (bool original : {false, true}) {
    gb::ForwardState state;
    std::vector<gb::AuxTerm> aux;
    state.aux = &aux;
    state.original_domain = original;
    if (padded) state.key_padding = valid;
    auto y = ad->forward(x, state);
    if (!original || alpha == 0) {
      QCOMPARE(count_terms(aux, "local_l1"), 0);
      continue;
    }
    const gb::AuxTerm* t = find_term(aux, "local_l1");
    QVERIFY(t);
    QCOMPARE(t->coefficient, alpha);
    // α · mean |s(x)·a(x)| by hand, over the valid tokens and the d features.
    auto man = manual_adapter(*ad, x);
    auto s = g == grow::AdapterGate::Elu ? torch::where(man.z > 0, man.z, torch::exp(man.z) - 1.0)
                                         : 1.0 / (1.0 + torch::exp(-man.z));
    auto absval = (s * man.a).abs();  // (2, 5, 16)
    double sum = 0, count = 0;
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t p = 0; p < 5; ++p) {
        if (padded && !valid[b][p].item<bool>()) continue;
        sum += absval[b][p].sum().item<double>();
        count += 16;
      }
    }
    const double want = alpha * sum / count;
    const double got = t->coefficient * t->value.item<double>();
    QVERIFY2(std::fabs(got - want) <= 1e-5 * std::max(1.0, want),
             qPrintable(QString("l1 term %1, manual %2").arg(got).arg(want)));
    QCOMPARE(t->value.dim(), int64_t(0));
    QVERIFY(t->value.requires_grad());
  }
  // No collector: nothing is computed, nothing breaks.
  gb::ForwardState plain;
  plain.original_domain = true;
  QVERIFY(ad->forward(x, plain).sizes() == x.sizes());
}

void TestBranches::localL1OfARowMixedBatchCoversItsOriginalRowsOnly_data() {
  QTest::addColumn<QString>("gate");
  QTest::addColumn<bool>("padded");
  QTest::addColumn<QString>("rows");  // 1 = an original-domain row, of 3
  for (const char* g : {"elu", "sigmoid"}) {
    for (const char* r : {"101", "010", "000"}) {
      QTest::newRow((std::string(g) + " rows " + r).c_str()) << QString(g) << false << r;
    }
    QTest::newRow((std::string(g) + " rows 101 padded").c_str()) << QString(g) << true << "101";
  }
}

// replay_mode "rows": a batch mixed per row (ForwardState::original_rows) gets α · mean |s·a|
// over the valid tokens of its original-domain rows only, marked original_rows_only, and
// pushed (value 0) when it has none; the batch-level flag plays no part.
void TestBranches::localL1OfARowMixedBatchCoversItsOriginalRowsOnly() {
  QFETCH(QString, gate);
  QFETCH(bool, padded);
  QFETCH(QString, rows);
  const auto g = grow::parse_adapter_gate(gate.toStdString());
  const double alpha = 100.0;
  auto ad = random_adapter(g, 16, 8, alpha, 6);
  auto x = torch::randn({3, 5, 16}, at::detail::createCPUGenerator(9), torch::kFloat);
  auto valid = torch::tensor({1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}, torch::kBool)
                   .view({3, 5});
  std::vector<float> original;
  for (QChar c : rows) original.push_back(c == '1' ? 1.0f : 0.0f);
  gb::ForwardState state;
  std::vector<gb::AuxTerm> aux;
  state.aux = &aux;
  state.original_domain = true;  // ignored beside original_rows
  state.original_rows = torch::tensor(original);
  if (padded) state.key_padding = valid;
  ad->forward(x, state);
  const gb::AuxTerm* t = find_term(aux, "local_l1");
  QVERIFY(t);
  QVERIFY(t->original_rows_only);
  QCOMPARE(t->coefficient, alpha);
  auto man = manual_adapter(*ad, x);
  auto s = g == grow::AdapterGate::Elu ? torch::where(man.z > 0, man.z, torch::exp(man.z) - 1.0)
                                       : 1.0 / (1.0 + torch::exp(-man.z));
  auto absval = (s * man.a).abs();  // (3, 5, 16)
  double sum = 0, count = 0;
  for (int64_t b = 0; b < 3; ++b) {
    if (original[static_cast<size_t>(b)] == 0) continue;
    for (int64_t p = 0; p < 5; ++p) {
      if (padded && !valid[b][p].item<bool>()) continue;
      sum += absval[b][p].sum().item<double>();
      count += 16;
    }
  }
  const double want = count > 0 ? alpha * sum / count : 0.0;
  const double got = t->coefficient * t->value.item<double>();
  QVERIFY2(std::fabs(got - want) <= 1e-5 * std::max(1.0, want),
           qPrintable(QString("l1 term %1, manual %2").arg(got).arg(want)));
  QVERIFY(t->value.requires_grad());
}

void TestBranches::gateBceMatchesManualBinaryCrossEntropy_data() {
  QTest::addColumn<QString>("labels");  // "given", "absent"
  QTest::addColumn<bool>("original");
  QTest::addColumn<bool>("padded");
  QTest::newRow("labels per row, new batch") << "given" << false << false;
  QTest::newRow("labels per row, padded") << "given" << false << true;
  QTest::newRow("no labels, original batch is 0") << "absent" << true << false;
  QTest::newRow("no labels, new batch is 1") << "absent" << false << false;
}

void TestBranches::gateBceMatchesManualBinaryCrossEntropy() {
  QFETCH(QString, labels);
  QFETCH(bool, original);
  QFETCH(bool, padded);
  auto ad = random_adapter(grow::AdapterGate::Sigmoid, 16, 8, 100.0, 7);
  ad->options.bce_coefficient = 1.0;
  auto x = torch::randn({2, 5, 16}, at::detail::createCPUGenerator(10), torch::kFloat);
  auto valid = torch::tensor({1, 1, 1, 1, 1, 1, 1, 0, 0, 0}, torch::kBool).view({2, 5});
  gb::ForwardState state;
  std::vector<gb::AuxTerm> aux;
  state.aux = &aux;
  state.original_domain = original;
  if (padded) state.key_padding = valid;
  std::vector<double> row_label;
  if (labels == "given") {
    state.domain_labels = torch::tensor({0.0f, 1.0f});
    row_label = {0.0, 1.0};
  } else {
    row_label = {original ? 0.0 : 1.0, original ? 0.0 : 1.0};
  }
  ad->forward(x, state);
  const gb::AuxTerm* t = find_term(aux, "gate_bce");
  QVERIFY(t);
  QCOMPARE(t->coefficient, 1.0);
  // −mean[y log σ(z) + (1 − y) log(1 − σ(z))] over valid tokens, by hand.
  auto z = manual_adapter(*ad, x).z;  // (2, 5, 1)
  double sum = 0, count = 0;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t p = 0; p < 5; ++p) {
      if (padded && !valid[b][p].item<bool>()) continue;
      const double zz = z[b][p][0].item<double>(), prob = 1.0 / (1.0 + std::exp(-zz));
      sum += -(row_label[b] * std::log(prob) + (1 - row_label[b]) * std::log(1 - prob));
      count += 1;
    }
  }
  const double want = sum / count, got = t->value.item<double>();
  QVERIFY2(std::fabs(got - want) <= 1e-5,
           qPrintable(QString("bce %1, manual %2").arg(got).arg(want)));
  // The ELU gate has no classifier loss.
  auto elu = random_adapter(grow::AdapterGate::Elu, 16, 8, 100.0, 7);
  std::vector<gb::AuxTerm> aux2;
  state.aux = &aux2;
  elu->forward(x, state);
  QCOMPARE(count_terms(aux2, "gate_bce"), 0);
}

// ---------------------------------------------------------------------------------------

// Router weights: under the paper's eq. 13 (renormalised over the selected experts) a top-1
// router gets exactly zero gradient and the growth result warns; under "softmax_all" the
// selected expert keeps its share of a softmax over all K and the router learns.
// The EWC penalty by hand: per-task sums every anchor's F·(θ − θ*)²; online keeps one anchor
// (the latest values) with F = γ·F_previous + F_task; the state round-trips.
void TestBranches::ewcPenaltyMatchesItsDefinition() {
  auto theta = torch::tensor({1.0f, 2.0f, 3.0f});
  std::vector<std::pair<std::string, torch::Tensor>> params = {{"w", theta}};
  grow::EwcOptions per_task;
  per_task.lambda = 4.0;
  grow::EwcPenalty a(per_task, params);
  a.add_task({{"w", torch::tensor({1.0f, 1.0f, 1.0f})}});  // anchor (1, 2, 3)
  theta.copy_(torch::tensor({2.0f, 2.0f, 2.0f}));
  a.add_task({{"w", torch::tensor({0.5f, 0.0f, 2.0f})}});  // anchor (2, 2, 2)
  theta.copy_(torch::tensor({3.0f, 0.0f, 1.0f}));
  // Task 1: 1·(2² + 2² + 2²) = 12; task 2: 0.5·1 + 0·4 + 2·1 = 2.5.
  QCOMPARE(a.compute().item<double>(), 14.5);
  QCOMPARE(a.coefficient(), 2.0);
  QCOMPARE(a.tasks(), int64_t(2));
  grow::EwcOptions online = per_task;
  online.mode = "online";
  online.gamma = 0.5;
  theta.copy_(torch::tensor({1.0f, 2.0f, 3.0f}));
  grow::EwcPenalty b(online, params);
  b.add_task({{"w", torch::tensor({1.0f, 1.0f, 1.0f})}});
  theta.copy_(torch::tensor({2.0f, 2.0f, 2.0f}));
  b.add_task({{"w", torch::tensor({0.5f, 0.0f, 2.0f})}});  // F = 0.5·(1,1,1) + (0.5,0,2)
  theta.copy_(torch::tensor({3.0f, 0.0f, 1.0f}));
  // One anchor (2, 2, 2): 1·1 + 0.5·4 + 2.5·1 = 5.5.
  QCOMPARE(b.compute().item<double>(), 5.5);
  QCOMPARE(b.tasks(), int64_t(2));
  // State round trip.
  std::map<std::string, torch::Tensor> st;
  for (const auto& [k, v] : a.state()) st[k] = v;
  grow::EwcPenalty c(per_task, params);
  c.load_state(st);
  QCOMPARE(c.compute().item<double>(), 14.5);
  QCOMPARE(c.tasks(), int64_t(2));
  QVERIFY(gb::test::error_of([&] {
            c.add_task({{"v", torch::ones({3})}});
          }).find("no Fisher values for parameter 'w'") != std::string::npos);
}

void TestBranches::top1RouterLearnsOnlyWithSoftmaxAll_data() {
  QTest::addColumn<QString>("variant");
  QTest::addColumn<QString>("router_weights");
  QTest::addColumn<bool>("learns");
  for (const char* v : {"loramoe", "mh-moe"}) {
    QTest::newRow(qPrintable(QString("%1 renormalised").arg(v)))
        << QString(v) << QString("renormalised") << false;
    QTest::newRow(qPrintable(QString("%1 softmax_all").arg(v)))
        << QString(v) << QString("softmax_all") << true;
  }
}

void TestBranches::top1RouterLearnsOnlyWithSoftmaxAll() {
  QFETCH(QString, variant);
  QFETCH(QString, router_weights);
  QFETCH(bool, learns);
  auto m = gb::test::load_family("llama");
  nlohmann::json j = {{"variant", variant.toStdString()},
                      {"experts", 4},
                      {"top_k", 1},
                      {"rank", 2},
                      {"router_weights", router_weights.toStdString()}};
  if (variant == "mh-moe") j["heads"] = 2;
  auto r = grow::apply_plan(*m, grow::parse_plan(j));
  bool warned = false;
  for (const auto& w : r.warnings)
    warned |= w.find("routers receive no gradient") != std::string::npos;
  QCOMPARE(warned, !learns);
  // B = 0 at initialisation would zero the router's gradient in any mode: give B values.
  {
    torch::NoGradGuard ng;
    for (auto& item : m->named_parameters(true)) {
      if (item.key().find("router") == std::string::npos && item.value().requires_grad()) {
        item.value().copy_(torch::randn(item.value().sizes(), at::detail::createCPUGenerator(3)) *
                           0.1);
      }
    }
  }
  auto ids = gb::test::random_ids(*m, 2, 12);
  auto logits = m->forward(ids);
  torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}), ids.reshape({-1}))
      .backward();
  int routers = 0;
  double grad = 0;
  for (auto& item : m->named_parameters(true)) {
    if (item.key().find("router") == std::string::npos) continue;
    ++routers;
    QVERIFY2(item.value().grad().defined() || !learns, item.key().c_str());
    if (item.value().grad().defined()) grad += item.value().grad().abs().sum().item<double>();
  }
  QVERIFY(routers > 0);
  if (learns) {
    QVERIFY2(grad > 0, "the router got no gradient");
  } else {
    QCOMPARE(grad, 0.0);  // exactly: d softmax(single logit) = 0
  }
}

void TestBranches::topKRoutingWeightsSelectedExpertsOnly_data() {
  QTest::addColumn<int>("heads");  // 0 = LoRAMoE
  QTest::addColumn<int>("experts");
  QTest::addColumn<int>("topk");
  QTest::newRow("loramoe K=4 top1") << 0 << 4 << 1;
  QTest::newRow("loramoe K=4 top2") << 0 << 4 << 2;
  QTest::newRow("loramoe K=5 top3") << 0 << 5 << 3;
  QTest::newRow("loramoe K=3 top3") << 0 << 3 << 3;
  QTest::newRow("mh-moe H=4 K=4 top2") << 4 << 4 << 2;
  QTest::newRow("mh-moe H=2 K=6 top1") << 2 << 6 << 1;
}

void TestBranches::topKRoutingWeightsSelectedExpertsOnly() {
  QFETCH(int, heads);
  QFETCH(int, experts);
  QFETCH(int, topk);
  const int64_t d = 16;
  grow::MoeOptions o;
  o.hidden = d;
  o.heads = std::max(heads, 1);
  o.experts = experts;
  o.top_k = topk;
  o.rank = 2;
  auto x = torch::randn({3, 7, d}, at::detail::createCPUGenerator(21), torch::kFloat);
  torch::NoGradGuard ng;
  grow::Routing route;
  torch::Tensor logits;  // (3, 7, H, K), by hand
  if (heads == 0) {
    grow::LoraMoeImpl moe(o, torch::TensorOptions());
    moe.init_values(4);
    route = moe.route(x);
    route.weights = route.weights.unsqueeze(-2);
    route.selected = route.selected.unsqueeze(-2);
    logits = torch::matmul(x, moe.router.t()).unsqueeze(-2);
  } else {
    grow::MhMoeImpl moe(o, torch::TensorOptions());
    moe.init_values(4);
    route = moe.route(x);
    const int64_t dh = d / heads;
    std::vector<torch::Tensor> per_head;
    for (int64_t h = 0; h < heads; ++h) {
      per_head.push_back(torch::matmul(x.narrow(-1, h * dh, dh), moe.router[h].t()));
    }
    logits = torch::stack(per_head, -2);
  }
  QVERIFY(route.weights.sizes() == logits.sizes());
  const int64_t h_n = logits.size(2);
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t t = 0; t < 7; ++t) {
      for (int64_t h = 0; h < h_n; ++h) {
        auto w = route.weights[b][t][h];
        auto a = logits[b][t][h];
        auto nz = w.ne(0);
        QCOMPARE(nz.sum().item<int64_t>(), int64_t(topk));
        QVERIFY(torch::equal(nz, route.selected[b][t][h].ne(0)));
        QVERIFY(std::fabs(w.sum().item<double>() - 1.0) <= 1e-6);
        // The selected experts are the top-k logits...
        if (topk < experts) {
          QVERIFY(a.masked_select(nz).min().item<double>() >=
                  a.masked_select(nz.logical_not()).max().item<double>());
        }
        // ... weighted by the softmax over the selected logits only.
        auto e = torch::exp(a.masked_select(nz) - a.max());
        QVERIFY(max_abs_diff(w.masked_select(nz), e / e.sum()) <= 1e-6);
      }
    }
  }
}

void TestBranches::balanceLossMatchesManualComputation_data() {
  QTest::addColumn<int>("heads");  // 0 = LoRAMoE
  QTest::addColumn<int>("topk");
  QTest::addColumn<bool>("padded");
  QTest::addColumn<bool>("zero_router");
  QTest::newRow("loramoe top1") << 0 << 1 << false << false;
  QTest::newRow("loramoe top2 padded") << 0 << 2 << true << false;
  QTest::newRow("loramoe uniform router gives 1") << 0 << 2 << false << true;
  QTest::newRow("mh-moe H=2 top1") << 2 << 1 << false << false;
  QTest::newRow("mh-moe H=4 top2 padded") << 4 << 2 << true << false;
}

void TestBranches::balanceLossMatchesManualComputation() {
  QFETCH(int, heads);
  QFETCH(int, topk);
  QFETCH(bool, padded);
  QFETCH(bool, zero_router);
  const int64_t d = 8, k_all = 4, h_n = std::max(heads, 1), dh = d / h_n;
  grow::MoeOptions o;
  o.hidden = d;
  o.heads = h_n;
  o.experts = k_all;
  o.top_k = topk;
  o.rank = 2;
  o.balance = 0.25;
  // A constructed router: expert i of head h reads feature (i mod dh) of its slice with
  // weight (1 + i + h), plus a small offset so that no logits tie.
  std::vector<float> rw;
  for (int64_t h = 0; h < h_n; ++h) {
    for (int64_t i = 0; i < k_all; ++i) {
      for (int64_t j = 0; j < dh; ++j) {
        rw.push_back(zero_router ? 0.0f : (j == i % dh ? float(1 + i + h) : 0.05f * float(i - j)));
      }
    }
  }
  auto router = torch::tensor(rw).view({h_n, k_all, dh});
  auto x = torch::randn({2, 6, d}, at::detail::createCPUGenerator(31), torch::kFloat);
  auto valid = torch::ones({2, 6}, torch::kBool);
  if (padded) valid[0].narrow(0, 4, 2).fill_(false);

  std::shared_ptr<gb::BranchImpl> moe;
  if (heads == 0) {
    auto m = std::make_shared<grow::LoraMoeImpl>(o, torch::TensorOptions());
    m->init_values(1);
    torch::NoGradGuard ng;
    m->router.copy_(router[0]);
    moe = m;
  } else {
    auto m = std::make_shared<grow::MhMoeImpl>(o, torch::TensorOptions());
    m->init_values(1);
    torch::NoGradGuard ng;
    m->router.copy_(router);
    moe = m;
  }
  gb::ForwardState state;
  std::vector<gb::AuxTerm> aux;
  state.aux = &aux;
  if (padded) state.key_padding = valid;
  moe->forward(x, state);
  const gb::AuxTerm* t = find_term(aux, "balance");
  QVERIFY(t);
  QCOMPARE(t->coefficient, 0.25);

  // Logits by hand, then K · Σ f_i P_i with loops.
  std::vector<std::vector<std::vector<double>>> logits;
  std::vector<bool> flags;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t p = 0; p < 6; ++p) {
      std::vector<std::vector<double>> per_head(h_n, std::vector<double>(k_all, 0.0));
      for (int64_t h = 0; h < h_n; ++h) {
        for (int64_t i = 0; i < k_all; ++i) {
          for (int64_t j = 0; j < dh; ++j) {
            per_head[h][i] += rw[(h * k_all + i) * dh + j] * x[b][p][h * dh + j].item<double>();
          }
        }
      }
      logits.push_back(per_head);
      flags.push_back(valid[b][p].item<bool>());
    }
  }
  const double want = manual_balance(logits, flags, topk), got = t->value.item<double>();
  QVERIFY2(std::fabs(got - want) <= 1e-5,
           qPrintable(QString("balance %1, manual %2").arg(got).arg(want)));
  if (zero_router) QVERIFY(std::fabs(got - 1.0) <= 1e-6);
  if (!zero_router) QVERIFY(t->value.requires_grad());
}

void TestBranches::mhMoeWithOneHeadEqualsLoraMoe() {
  const int64_t d = 16;
  grow::MoeOptions o;
  o.hidden = d;
  o.experts = 5;
  o.top_k = 2;
  o.rank = 3;
  o.scale = 2.0;
  o.balance = 0.1;
  grow::LoraMoeImpl lm(o, torch::TensorOptions());
  grow::MhMoeImpl mh(o, torch::TensorOptions());
  {
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(41);
    for (auto& p : lm.parameters(true)) p.normal_(0.0, 0.5, gen);
    mh.router.copy_(lm.router.unsqueeze(0));
    mh.lora_a.copy_(lm.lora_a.unsqueeze(0));
    mh.lora_b.copy_(lm.lora_b.unsqueeze(0));
  }
  auto x = torch::randn({2, 9, d}, at::detail::createCPUGenerator(42), torch::kFloat);
  gb::ForwardState s1, s2;
  std::vector<gb::AuxTerm> a1, a2;
  s1.aux = &a1;
  s2.aux = &a2;
  auto y1 = lm.forward(x, s1);
  auto y2 = mh.forward(x, s2);
  QVERIFY(y1.abs().max().item<double>() > 1e-3);
  // One head slices nothing, but the two paths sum in different orders: relative bound.
  const double tol = 1e-5 * std::max(1.0, y1.abs().max().item<double>());
  QVERIFY2(max_abs_diff(y1, y2) <= tol, qPrintable(QString("diff %1").arg(max_abs_diff(y1, y2))));
  QVERIFY(find_term(a1, "balance") && find_term(a2, "balance"));
  QVERIFY(std::fabs(find_term(a1, "balance")->value.item<double>() -
                    find_term(a2, "balance")->value.item<double>()) <= 1e-6);
}

void TestBranches::mhMoeSumsHeadwiseExpertOutputs_data() {
  QTest::addColumn<int>("out");  // d_out; 0 = d (beside the MLP)
  QTest::newRow("d -> d") << 0;
  QTest::newRow("d -> 24 (a linear of the MLP)") << 24;
}

void TestBranches::mhMoeSumsHeadwiseExpertOutputs() {
  QFETCH(int, out);
  const int64_t d = 16, h_n = 4, dh = d / h_n, k_all = 3, top = 2, rank = 2;
  const int64_t d_out = out > 0 ? out : d;
  grow::MoeOptions o;
  o.hidden = d;
  o.out = out;
  o.heads = h_n;
  o.experts = k_all;
  o.top_k = top;
  o.rank = rank;
  auto bank = std::make_shared<grow::MhMoeImpl>(o, torch::TensorOptions());
  auto& mh = *bank;
  {
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(51);
    for (auto& p : mh.parameters(true)) p.normal_(0.0, 0.5, gen);
  }
  auto x = torch::randn({1, 5, d}, at::detail::createCPUGenerator(52), torch::kFloat);
  gb::ForwardState state;
  torch::NoGradGuard ng;
  auto y = mh.forward(x, state);
  // Eq. 12-16 by hand: per token, per head slice: router, top-k, softmax over the selected,
  // Σ_j α_j B_j A_j x_m; then the sum over heads.
  QCOMPARE(y.size(-1), d_out);
  // Wrapped around a linear d → d_out, the bank adds to the linear's output.
  auto base = std::make_shared<gb::DenseLinearImpl>(
      torch::randn({d_out, d}, at::detail::createCPUGenerator(53)), torch::Tensor());
  grow::MoeLinearImpl unit(base, bank, "moe_test");
  QVERIFY(max_abs_diff(unit.forward(x, state), base->forward(x, state) + y) <= 1e-5);
  QVERIFY(torch::equal(unit.dense_weight(), base->dense_weight()));
  for (int64_t t = 0; t < 5; ++t) {
    auto want = torch::zeros({d_out});
    for (int64_t h = 0; h < h_n; ++h) {
      auto xm = x[0][t].narrow(0, h * dh, dh);
      std::vector<double> a(k_all);
      for (int64_t i = 0; i < k_all; ++i) a[i] = torch::dot(mh.router[h][i], xm).item<double>();
      std::vector<int64_t> order(k_all);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return a[p] > a[q]; });
      double z = 0;
      for (int64_t j = 0; j < top; ++j) z += std::exp(a[order[j]]);
      for (int64_t j = 0; j < top; ++j) {
        const int64_t e = order[j];
        const double alpha = std::exp(a[e]) / z;
        want += alpha * torch::matmul(mh.lora_b[h][e], torch::matmul(mh.lora_a[h][e], xm));
      }
    }
    QVERIFY2(max_abs_diff(y[0][t], want) <= 1e-5,
             qPrintable(QString("token %1: diff %2").arg(t).arg(max_abs_diff(y[0][t], want))));
  }
}

// ---------------------------------------------------------------------------------------

void TestBranches::structureOnlyAndSeedGiveReloadableDeterministicModels_data() {
  QTest::addColumn<QString>("plan");
  for (const auto& [name, json] : kPlans) QTest::newRow(name) << QString(json);
}

void TestBranches::structureOnlyAndSeedGiveReloadableDeterministicModels() {
  QFETCH(QString, plan);
  const auto p = plan_of(plan.toStdString());
  auto grown = [&](uint64_t seed, bool structure_only) {
    auto m = gb::test::load_family("qwen3");
    grow::ApplyContext ctx;
    ctx.seed = seed;
    ctx.structure_only = structure_only;
    grow::apply_plan(*m, p, ctx);
    return m;
  };
  auto a = grown(5, false), b = grown(5, false), c = grown(6, false), s = grown(5, true);
  auto pa = gb::named_parameters(*a), pb = gb::named_parameters(*b), pc = gb::named_parameters(*c),
       ps = gb::named_parameters(*s);
  QCOMPARE(pa.size(), ps.size());
  bool seed_matters = false;
  int branch_tensors = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    QCOMPARE(QString::fromStdString(ps[i].first), QString::fromStdString(pa[i].first));
    QVERIFY(ps[i].second.sizes() == pa[i].second.sizes());
    QCOMPARE(ps[i].second.requires_grad(), pa[i].second.requires_grad());
    if (!is_branch_param(pa[i].first)) continue;
    ++branch_tensors;
    QVERIFY2(torch::equal(pa[i].second, pb[i].second), pa[i].first.c_str());  // same seed
    seed_matters |= !torch::equal(pa[i].second, pc[i].second);
  }
  QVERIFY(branch_tensors > 0);
  QVERIFY(seed_matters);
  // A checkpoint load into the structure-only model reproduces the model exactly.
  {
    torch::NoGradGuard ng;
    for (size_t i = 0; i < pa.size(); ++i) ps[i].second.copy_(pa[i].second);
    for (const auto& [name, t] : pa) {
      if (is_branch_param(name) && t.abs().max().item<double>() == 0.0) t.normal_(0.0, 0.3);
    }
    for (size_t i = 0; i < pa.size(); ++i) ps[i].second.copy_(pa[i].second);
    auto ids = gb::test::random_ids(*a);
    QCOMPARE(max_abs_diff(a->forward(ids), s->forward(ids)), 0.0);
  }
}

// The paper's placement (A.3.4): a bank beside each linear of the MLP, named after it.
void TestBranches::expertsSitBesideEachMlpLinear_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("variant");
  for (const auto& f : gb::test::all_families()) {
    for (const char* v : {"loramoe", "mh-moe"}) {
      QTest::newRow((f + "/" + v).c_str()) << QString::fromStdString(f) << QString(v);
    }
  }
}

void TestBranches::expertsSitBesideEachMlpLinear() {
  QFETCH(QString, family);
  QFETCH(QString, variant);
  auto m = gb::test::load_family(family.toStdString());
  nlohmann::json j = {{"variant", variant.toStdString()}, {"rank", 2}, {"layers", {0}}};
  if (variant == "mh-moe") j["heads"] = 2;
  grow::apply_plan(*m, grow::parse_plan(j));
  // The family's own names of the MLP linears, beside GrowBench's.
  std::vector<std::pair<std::string, std::string>> linears;  // (GrowBench path, family name)
  if (family == "gpt2") {
    linears = {{"mlp.up_proj", "c_fc"}, {"mlp.down_proj", "c_proj"}};
  } else if (family == "gpt_neox") {
    linears = {{"mlp.up_proj", "dense_h_to_4h"}, {"mlp.down_proj", "dense_4h_to_h"}};
  } else {
    linears = {
        {"mlp.gate_proj", "gate_proj"}, {"mlp.up_proj", "up_proj"}, {"mlp.down_proj", "down_proj"}};
  }
  std::set<std::string> trainable;
  for (const auto& [name, p] : gb::named_parameters(*m)) {
    if (p.requires_grad()) trainable.insert(name);
  }
  std::set<std::string> want;
  for (const auto& [path, own] : linears) {
    for (const char* t : {"router", "lora_a", "lora_b"}) {
      want.insert("model.layers.0." + path + ".moe_" + own + "." + t);
    }
  }
  QCOMPARE(trainable, want);
  // The base weights sit under base.* and stay frozen; layer 1 is untouched.
  bool base_frozen = false;
  for (const auto& [name, p] : gb::named_parameters(*m)) {
    if (name == "model.layers.0." + linears.back().first + ".base.weight") {
      base_frozen = !p.requires_grad();
    }
  }
  QVERIFY(base_frozen);
  QVERIFY(!std::dynamic_pointer_cast<grow::MoeLinearImpl>(m->layer(1)->mlp->up_proj));
  // Routed experts have no plain form: an export must not drop them silently.
  std::string why;
  QVERIFY(!gb::is_hf_expressible(*m, &why));
  QVERIFY2(why.find("has no plain form") != std::string::npos, why.c_str());
  // Each bank maps its linear's input to its output; MH-MoE splits the input into heads.
  for (const auto& [path, own] : linears) {
    (void)own;
    const std::string unit = path == "mlp.gate_proj" ? "gate"
                             : path == "mlp.up_proj" ? "up"
                                                     : "down";
    auto lin = std::dynamic_pointer_cast<grow::MoeLinearImpl>(m->layer(0)->linear(unit));
    QVERIFY(lin);
    QCOMPARE(lin->bank->options.hidden, lin->base->in_features());
    QCOMPARE(lin->bank->options.out_features(), lin->base->out_features());
    QCOMPARE(lin->bank->options.heads, int64_t(variant == "mh-moe" ? 2 : 1));
  }
}

// Eq. 9 and the route/usage bookkeeping on counts written by hand.
void TestBranches::effectiveCompositionNumberByHand() {
  using C = std::map<std::vector<int64_t>, double>;
  QCOMPARE(grow::effective_compositions(C{{{0, 1}, 5}}), 1.0);
  QCOMPARE(grow::effective_compositions(C{{{0, 1}, 2}, {{1, 1}, 2}}), 2.0);
  // p = (1/2, 1/4, 1/4): 1 / (1/4 + 1/16 + 1/16) = 8/3.
  QVERIFY(std::fabs(grow::effective_compositions(C{{{0}, 2}, {{1}, 1}, {{2}, 1}}) - 8.0 / 3.0) <
          1e-12);
  QCOMPARE(grow::effective_compositions(C{}), 0.0);

  // Two heads, K = 2, top-1; 5 tokens, the last one padding.
  //   token: head-0 expert, head-1 expert
  //   t0: 0 0   t1: 0 1   t2: 0 1   t3: 1 1   t4 (padding): 1 0
  auto selected = torch::zeros({5, 2, 2});
  const int e[5][2] = {{0, 0}, {0, 1}, {0, 1}, {1, 1}, {1, 0}};
  for (int t = 0; t < 5; ++t) {
    for (int h = 0; h < 2; ++h) selected[t][h][e[t][h]] = 1.0;
  }
  auto routes = grow::route_ids(selected);  // bit sets: expert 0 → 1, expert 1 → 2
  QCOMPARE(routes[1][1].item<int64_t>(), int64_t(2));
  QCOMPARE(routes[0][0].item<int64_t>(), int64_t(1));
  grow::RouteRecorder rec;
  rec.record("0.up_proj", 1, routes, routes, selected, torch::tensor({1.f, 1.f, 1.f, 1.f, 0.f}));
  auto s = grow::summarise(rec);
  QCOMPARE(s.size(), size_t(1));
  QCOMPARE(QString::fromStdString(s[0].bank), QString("0.up_proj"));
  QCOMPARE(s[0].tokens, 4.0);
  // Head 0: route 0 holds t0-t2 with compositions (0,0), (0,1), (0,1): N = 1/(1/9 + 4/9) =
  // 9/5; route 1 holds t3 alone: 1. Head 1: route 0 holds t0: 1; route 1 holds t1-t3 with
  // (0,1), (0,1), (1,1): 9/5. Mass-weighted: (3·9/5 + 1 + 1 + 3·9/5) / 8 = 12.8 / 8 = 1.6.
  QVERIFY(std::fabs(s[0].neff - 1.6) < 1e-12);
  // Usage: head 0 picks expert 0 three times in four, head 1 expert 1.
  QCOMPARE(s[0].usage[0][0], 0.75);
  QCOMPARE(s[0].usage[0][1], 0.25);
  QCOMPARE(s[0].usage[1][0], 0.25);
  QCOMPARE(s[0].usage[1][1], 0.75);
}

// On a grown model: one summary per bank, usage rows that sum to 1, N_eff between 1 and the
// number of possible compositions, and for MH-MoE the compositions are the heads' routes,
// recomputed here from the bank's own routing of the captured inputs.
void TestBranches::routeStatisticsOfAGrownModel_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<int>("banks");
  QTest::newRow("loramoe beside each linear")
      << R"({"variant":"loramoe","experts":4,"rank":2,"layers":[1]})" << 3;
  QTest::newRow("mh-moe beside each linear")
      << R"({"variant":"mh-moe","heads":2,"experts":3,"rank":2,"layers":[0,1]})" << 6;
  QTest::newRow("mh-moe top-2 beside the MLP")
      << R"({"variant":"mh-moe","heads":4,"experts":3,"top_k":2,"rank":2,"placement":"beside-mlp"})"
      << 2;
}

void TestBranches::routeStatisticsOfAGrownModel() {
  QFETCH(QString, plan);
  QFETCH(int, banks);
  auto m = gb::test::load_family("llama");
  QVERIFY(!grow::has_routed_experts(*m));
  grow::apply_plan(*m, plan_of(plan.toStdString()));
  QVERIFY(grow::has_routed_experts(*m));
  auto ids = gb::test::random_ids(*m, 2, 16, 5);
  grow::RouteRecorder rec;
  {
    torch::NoGradGuard ng;
    gb::ForwardOptions o;
    o.routes = &rec;
    m->forward(ids, o);
  }
  auto s = grow::summarise(rec);
  QCOMPARE(static_cast<int>(s.size()), banks);
  for (const auto& b : s) {
    QCOMPARE(b.tokens, 32.0);
    const auto& info = rec.banks().at(b.bank);
    for (const auto& row : b.usage) {
      double sum = 0;
      for (double u : row) sum += u;
      QVERIFY(std::fabs(sum - 1.0) < 1e-12);
    }
    QVERIFY2(b.neff >= 1.0 - 1e-12, b.bank.c_str());
    double compositions = 0;
    for (const auto& per_route : info.joint) {
      std::set<std::vector<int64_t>> seen;
      for (const auto& [r, comps] : per_route) {
        for (const auto& [c, n] : comps) seen.insert(c);
      }
      compositions = std::max(compositions, static_cast<double>(seen.size()));
    }
    QVERIFY(b.neff <= compositions + 1e-12);
    if (info.heads > 1) {
      // Compositions are the tuples of the heads' routes.
      QCOMPARE(info.composition_slices, info.heads);
      for (size_t h = 0; h < info.joint.size(); ++h) {
        for (const auto& [route, comps] : info.joint[h]) {
          for (const auto& [c, n] : comps) {
            QCOMPARE(static_cast<uint64_t>(c[h]), route);
          }
        }
      }
    } else {
      QCOMPARE(info.composition_slices, int64_t(4));
    }
  }
}

void TestBranches::kindDescribesBranch_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("kind");
  QTest::newRow("elu") << R"({"variant":"neutral-residues","gate":"elu","inner":96})"
                       << "NeutralResidue(elu) 96";
  QTest::newRow("sigmoid") << R"({"variant":"neutral-residues","gate":"sigmoid","inner":96})"
                           << "NeutralResidue(sigmoid) 96";
  QTest::newRow("adapters") << R"({"variant":"adapters","inner":40})"
                            << "Adapter 40";
  QTest::newRow("loramoe")
      << R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4,"placement":"beside-mlp"})"
      << "LoRAMoE K=4 top2 r=4";
  QTest::newRow("mh-moe")
      << R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4,"placement":"beside-mlp"})"
      << "MH-MoE H=4 K=4 top1 r=4";
}

void TestBranches::kindDescribesBranch() {
  QFETCH(QString, plan);
  QFETCH(QString, kind);
  auto m = gb::test::load_family("gpt2");
  grow::apply_plan(*m, plan_of(plan.toStdString()));
  for (const auto& layer : m->all_layers()) {
    QCOMPARE(layer->branches().size(), size_t(1));
    QCOMPARE(QString::fromStdString(layer->branches()[0].second->kind()), kind);
  }
}

void TestBranches::invalidPlansGiveSpecificErrors_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("expected");
  QTest::newRow("heads not dividing d")
      << R"({"variant":"mh-moe","heads":3,"experts":4,"top_k":1,"rank":4})"
      << "'heads' = 3 equal slices; hidden size 64 is not divisible";
  QTest::newRow("top_k above experts") << R"({"variant":"loramoe","experts":4,"top_k":5,"rank":4})"
                                       << "'top_k' (5) cannot exceed 'experts' (4)";
  QTest::newRow("mh-moe top_k above experts")
      << R"({"variant":"mh-moe","heads":2,"experts":2,"top_k":3})"
      << "'top_k' (3) cannot exceed 'experts' (2)";
  QTest::newRow("loramoe with heads") << R"({"variant":"loramoe","heads":2})"
                                      << "use variant \"mh-moe\" for 'heads' > 1";
  QTest::newRow("budget below one unit")
      << R"({"variant":"neutral-residues","gate":"elu","budget":0.0001})"
      << "fewer than one inner unit needs (256); raise 'budget' or give 'inner'";
  QTest::newRow("vanilla budget below one unit") << R"({"variant":"adapters","budget":0.0001})"
                                                 << "fewer than one inner unit needs (192)";
  QTest::newRow("unknown gate") << R"({"variant":"neutral-residues","gate":"relu"})"
                                << "'gate' must be one of elu, sigmoid, found 'relu'";
  QTest::newRow("gate on vanilla adapters") << R"({"variant":"adapters","gate":"elu"})"
                                            << "unknown key 'gate'";
  QTest::newRow("layer out of range") << R"({"variant":"loramoe","layers":[2]})"
                                      << "layer index 2 is out of range";
}

void TestBranches::invalidPlansGiveSpecificErrors() {
  QFETCH(QString, plan);
  QFETCH(QString, expected);
  auto m = gb::test::load_family("llama");
  std::string msg = error_of([&] { grow::apply_plan(*m, plan_of(plan.toStdString())); });
  QVERIFY2(msg.find(expected.toStdString()) != std::string::npos, msg.c_str());
  for (const auto& layer : m->all_layers()) QCOMPARE(layer->branches().size(), size_t(0));
}

void TestBranches::invalidBranchOptionsGiveSpecificErrors() {
  // The modules check their options too (plans built in code bypass parse_plan).
  grow::MoeOptions o;
  o.hidden = 64;
  o.heads = 3;
  o.experts = 4;
  o.top_k = 1;
  auto options = torch::TensorOptions();
  std::string msg = error_of([&] { std::make_shared<grow::MhMoeImpl>(o, options); });
  QVERIFY2(msg.find("'heads' = 3 does not divide the hidden size 64") != std::string::npos,
           msg.c_str());
  o.heads = 1;
  o.top_k = 5;
  msg = error_of([&] { std::make_shared<grow::LoraMoeImpl>(o, options); });
  QVERIFY2(msg.find("'top_k' (5) must be between 1 and 'experts' (4)") != std::string::npos,
           msg.c_str());
  grow::GrowthPlan p = plan_of(R"({"variant":"mh-moe","heads":2})");
  p.get<grow::MoeParams>().top_k = 9;  // bypasses parse_plan's check
  auto m = gb::test::load_family("llama");
  msg = error_of([&] { grow::apply_plan(*m, p); });
  QVERIFY2(msg.find("'top_k' (9) cannot exceed 'experts' (4)") != std::string::npos, msg.c_str());
  msg = error_of([&] { grow::parse_adapter_gate("tanh"); });
  QVERIFY2(msg.find("adapter gate 'tanh' is unknown") != std::string::npos, msg.c_str());
}

QTEST_APPLESS_MAIN(TestBranches)
#include "tst_branches.moc"
