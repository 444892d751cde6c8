// Importance probes and layer selection (core/importance): masking against brute force on
// every family, cached masking's layer-forward count, Taylor and Fisher against direct
// autograd, calibrated ranks, effective rank of known spectra, selection policies and their
// ties, probe-set layouts, the preliminary run, cancellation, and the probe writer.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "test_util.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/variant.h"
#include "importance/effective_rank.h"
#include "importance/masking.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/result.h"
#include "importance/selection.h"
#include "importance/unit_importance.h"
#include "importance/update_magnitude.h"
#include "model/config.h"
#include "model/modules.h"
#include "store/store.h"
#include "train/chunked_ce.h"
#include "test_models.h"
#include "util/error.h"
#include "util/json.h"

namespace imp = gb::importance;
using Json = nlohmann::json;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

using gb::test::error_of;

// A model of `family`: the fixture (2 layers, real weights) when layers == 0, otherwise a
// `layers`-deep model of the fixture's shape with random weights (deterministic), so that
// the masking test also sees deeper stacks (and Gemma 3's sliding/full mix).
gb::CausalLM make_model(const std::string& family, int64_t layers = 0) {
  if (layers == 0) return gb::test::load_family(family);
  gb::ModelConfig c;
  if (family == "gemma3_text") {
    c = gb::test::gemma3_config(layers);
  } else {
    auto j = gb::json::parse_file(gb::test::fixture_dir(family) + "/config.json");
    j[j.contains("n_layer") ? "n_layer" : "num_hidden_layers"] = layers;
    c = gb::parse_config(j, family + " test config");
  }
  torch::manual_seed(11);
  gb::CausalLM m(c);
  gb::init_weights(*m, 0.15);
  torch::NoGradGuard ng;
  for (auto& item : m->named_parameters(true)) {
    if (item.key().find("norm") != std::string::npos)
      item.value().add_(0.1 * torch::randn_like(item.value()));
  }
  m->eval();
  return m;
}

// Random tokens as a packed probe set: `windows` rows of `t` tokens.
imp::ProbeSet random_packed(const gb::CausalLMImpl& m, int64_t windows, int64_t t, int64_t b,
                            uint64_t seed = 5) {
  gb::data::TokenStream s;
  auto ids = gb::test::random_ids(m, 1, windows * t + 1, seed).view({-1});
  for (int64_t i = 0; i < ids.size(0); ++i)
    s.tokens.push_back(static_cast<int32_t>(ids[i].item<int64_t>()));
  s.offsets = {0, s.tokens.size()};
  imp::ProbeSetOptions o;
  o.seq_len = t;
  o.batch_size = b;
  return imp::pack_stream(s, o, "random");
}

// Multiple-choice style examples of varied lengths with random tokens.
std::vector<imp::ScoredExample> random_examples(int64_t vocab, int n, uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  std::vector<imp::ScoredExample> out;
  for (int i = 0; i < n; ++i) {
    const int64_t c = 3 + (i * 5) % 9, a = 1 + (i * 3) % 4;
    auto ids = torch::randint(3, vocab, {c + a}, gen, torch::kLong);
    imp::ScoredExample e;
    for (int64_t k = 0; k < c + a; ++k) {
      (k < c ? e.context : e.continuation).push_back(static_cast<int32_t>(ids[k].item<int64_t>()));
    }
    out.push_back(e);
  }
  return out;
}

// A toy text encoder: one id per byte (3 + byte % 200), BOS = 1 when asked, EOS = 2.
gb::data::TextEncoder toy_encoder() {
  gb::data::TextEncoder e;
  e.encode = [](std::string_view text, bool special) {
    std::vector<int32_t> ids;
    if (special) ids.push_back(1);
    for (unsigned char ch : text) ids.push_back(3 + ch % 200);
    return ids;
  };
  e.eos_id = 2;
  e.identity = "toy";
  return e;
}

std::string write_file(const QTemporaryDir& dir, const std::string& name, const std::string& s) {
  std::string path = dir.path().toStdString() + "/" + name;
  std::ofstream(path) << s;
  return path;
}

// Counts calls of a wrapped norm: every decoder layer calls its input norm exactly once.
class CountingNorm : public gb::NormUnitImpl {
 public:
  CountingNorm(gb::NormUnit inner, int64_t* counter)
      : m_inner(register_module("inner", inner)), m_counter(counter) {}
  torch::Tensor forward(const torch::Tensor& x) override {
    ++*m_counter;
    return m_inner->forward(x);
  }
  int64_t features() const override { return m_inner->features(); }
  std::string kind() const override { return "Counting"; }

 private:
  gb::NormUnit m_inner;
  int64_t* m_counter;
};

bool close(double a, double b, double rtol, double atol) {
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

imp::ProbeResult layer_result(const std::string& method, std::vector<double> values) {
  imp::ProbeResult r;
  r.method = method;
  r.layers = std::move(values);
  return r;
}

std::vector<double> doubles(const Json& j) {
  return j.get<std::vector<double>>();
}

}  // namespace

class TestImportance : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    gb::test::quiet_logs();
  }

  void maskingEqualsBruteForceLayerRemoval_data();
  void maskingEqualsBruteForceLayerRemoval();
  void cachedMaskingTakesAboutHalfTheLayerForwards_data();
  void cachedMaskingTakesAboutHalfTheLayerForwards();
  void taylorAndFisherEqualDirectAutograd_data();
  void taylorAndFisherEqualDirectAutograd();
  void taylorCodeEqualsPerBatchGradientMagnitudes_data();
  void taylorCodeEqualsPerBatchGradientMagnitudes();
  void signedTaylorCannotTellScalingPairsApart();
  void unitProbeCoversEveryUnitAndRestoresRequiresGrad_data();
  void unitProbeCoversEveryUnitAndRestoresRequiresGrad();
  void layerTotalsByCumulationAndRankAggregation();
  void calibratedRanksOnConstructedInputs_data();
  void calibratedRanksOnConstructedInputs();
  void effectiveRankOfKnownMatrices_data();
  void effectiveRankOfKnownMatrices();
  void effectiveRankStagesUseConsecutiveOrBaseDeltas();
  void selectionPoliciesOnHandMadeVectors_data();
  void selectionPoliciesOnHandMadeVectors();
  void invalidPoliciesGiveSpecificErrors_data();
  void invalidPoliciesGiveSpecificErrors();
  void requiredProbesListWhatPoliciesNeed();
  void policyRegistryDeclaresEachPolicyOnce();
  void policyResolvesGrowthPlanLayers();
  void diagonalFisherFeedsEwc();
  void packedLayoutScoresEveryTokenOnceWithoutPadding();
  void bucketedLayoutScoresOnlyContinuations();
  void bucketedPaddingDoesNotChangeTheLoss();
  void loadProbeSetIsDeterministicAndHonoursBudgets_data();
  void loadProbeSetIsDeterministicAndHonoursBudgets();
  void updateMagnitudeIsDeterministicAndRestoresTheModel();
  void preliminaryRunLowersTheLoss();
  void probesReportProgressAndCancel();
  void probeLossChunkedEqualsPlain_data();
  void probeLossChunkedEqualsPlain();
  void gradientProbesWithCheckpointingAreTheSame();
  void shardedProbesSumOverRanksAndShareACancel();
  void probeRoundTripsThroughJsonAndStore();
};

// ---------------------------------------------------------------------------------------

void TestImportance::maskingEqualsBruteForceLayerRemoval_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<int>("layers");
  for (const auto& f : gb::test::all_families()) {
    QTest::newRow((f + "/fixture").c_str()) << qs(f) << 0;
    QTest::newRow((f + "/4-layers").c_str()) << qs(f) << 4;
  }
}

void TestImportance::maskingEqualsBruteForceLayerRemoval() {
  QFETCH(QString, family);
  QFETCH(int, layers);
  auto base = make_model(family.toStdString(), layers);
  const int64_t n = base->num_layers();
  auto probes = random_packed(*base, 5, 12, 2);
  auto r = imp::masking_importance(*base, probes);
  QCOMPARE(static_cast<int64_t>(r.importance.size()), n);
  const double base_loss = imp::probe_loss(*base, probes);
  QVERIFY(std::fabs(r.base_loss - base_loss) < 1e-6 * std::max(1.0, std::fabs(base_loss)));
  for (int64_t l = 0; l < n; ++l) {
    // The same model rebuilt with layer l removed and the rest renumbered.
    auto removed = make_model(family.toStdString(), layers);
    auto list = removed->all_layers();
    list.erase(list.begin() + l);
    removed->set_layers(list);
    QCOMPARE(removed->num_layers(), n - 1);
    const double brute = imp::probe_loss(*removed, probes) - base_loss;
    QVERIFY2(
        std::fabs(r.importance[l] - brute) <= 1e-5 * std::max(1.0, std::fabs(base_loss)),
        qPrintable(
            QString("layer %1: cached %2, brute force %3").arg(l).arg(r.importance[l]).arg(brute)));
    // A bypassed layer changes the loss (the check above is not vacuous).
    QVERIFY(std::fabs(brute) > 1e-6);
  }
  // The naive loop gives the same values.
  auto naive = imp::masking_importance(*base, probes, imp::MaskingMode::Naive);
  for (int64_t l = 0; l < n; ++l) QVERIFY(std::fabs(naive.importance[l] - r.importance[l]) < 1e-6);
}

void TestImportance::cachedMaskingTakesAboutHalfTheLayerForwards_data() {
  QTest::addColumn<int>("layers");
  QTest::newRow("2") << 2;
  QTest::newRow("8") << 8;
  QTest::newRow("16") << 16;
}

void TestImportance::cachedMaskingTakesAboutHalfTheLayerForwards() {
  QFETCH(int, layers);
  auto m = make_model("llama", layers);
  int64_t calls = 0;
  for (auto& layer : m->all_layers()) {
    layer->set_norm("input_norm", std::make_shared<CountingNorm>(layer->input_layernorm, &calls));
  }
  auto probes = random_packed(*m, 3, 8, 2);  // 2 batches
  const int64_t batches = static_cast<int64_t>(probes.batches.size());
  QCOMPARE(batches, int64_t(2));

  calls = 0;
  auto cached = imp::masking_importance(*m, probes, imp::MaskingMode::Cached);
  const int64_t cached_calls = calls;
  calls = 0;
  auto naive = imp::masking_importance(*m, probes, imp::MaskingMode::Naive);
  const int64_t naive_calls = calls;

  const int64_t L = layers;
  QCOMPARE(cached_calls, batches * L * (L + 1) / 2);
  QCOMPARE(naive_calls, batches * L * L);
  QCOMPARE(cached.layer_forwards, cached_calls);
  QCOMPARE(naive.layer_forwards, naive_calls);
  QCOMPARE(imp::masking_layer_forwards(L, batches, imp::MaskingMode::Cached), cached_calls);
  // About half: (L + 1) / (2L) of the naive loop.
  const double ratio = double(cached_calls) / double(naive_calls);
  QVERIFY(std::fabs(ratio - double(L + 1) / (2.0 * L)) < 1e-12);
  if (L >= 8) QVERIFY(ratio < 0.57);
  for (int64_t l = 0; l < L; ++l)
    QVERIFY(std::fabs(cached.importance[l] - naive.importance[l]) < 1e-6);
}

// ---------------------------------------------------------------------------------------

void TestImportance::taylorAndFisherEqualDirectAutograd_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  for (const char* f : {"llama", "gpt_neox", "gpt2", "gemma3_text"}) {
    QTest::newRow((std::string(f) + "/sequence").c_str()) << QString(f) << QString("sequence");
    QTest::newRow((std::string(f) + "/batch").c_str()) << QString(f) << QString("batch");
    QTest::newRow((std::string(f) + "/taylor-only").c_str()) << QString(f) << QString("none");
  }
}

void TestImportance::taylorAndFisherEqualDirectAutograd() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  auto m = make_model(family.toStdString());
  auto probes = random_packed(*m, 5, 9, 2);  // batches of 2, 2, 1 rows
  imp::UnitOptions o;
  // "none": Taylor alone (one backward per batch of the probe-set loss share).
  const bool with_fisher = mode != "none";
  o.fisher = with_fisher;
  o.fisher_mode = imp::parse_fisher_mode(with_fisher ? mode.toStdString() : "batch");
  o.keep_parameter_fisher = true;
  auto u = imp::unit_importance(*m, probes, o);

  // Direct: the loss of the whole probe set as ONE graph, one autograd::grad.
  std::vector<torch::Tensor> params;
  std::vector<std::string> names;
  for (auto& item : m->named_parameters(true)) {
    params.push_back(item.value());
    names.push_back(item.key());
  }
  torch::Tensor total;
  for (const auto& b : probes.batches) {
    auto nll = imp::summed_nll(m->forward(b.ids), b.targets);
    total = total.defined() ? total + nll : nll;
  }
  auto loss = total / double(probes.scored_tokens);
  auto grads = torch::autograd::grad({loss}, params, {}, false, false, true);
  // Float32 sums in another order (per row against per batch): relative 1e-6.
  QVERIFY2(
      close(u.loss, loss.item<double>(), 1e-6, 0),
      qPrintable(QString("%1 vs %2").arg(u.loss, 0, 'g', 10).arg(loss.item<double>(), 0, 'g', 10)));

  // Direct empirical Fisher: squared gradients of per-row (or per-batch) mean NLL.
  std::vector<torch::Tensor> fisher(params.size());
  for (size_t i = 0; i < params.size(); ++i) fisher[i] = torch::zeros_like(params[i]);
  int64_t terms = 0;
  for (const auto& b : probes.batches) {
    std::vector<std::pair<torch::Tensor, torch::Tensor>> parts;
    if (mode == "sequence") {
      for (int64_t r = 0; r < b.rows(); ++r)
        parts.emplace_back(b.ids[r].unsqueeze(0), b.targets[r].unsqueeze(0));
    } else {
      parts.emplace_back(b.ids, b.targets);
    }
    for (auto& [ids, targets] : parts) {
      auto mean = imp::summed_nll(m->forward(ids), targets) /
                  double((targets != imp::kIgnoreTarget).sum().item<int64_t>());
      auto g = torch::autograd::grad({mean}, params, {}, false, false, true);
      for (size_t i = 0; i < params.size(); ++i) {
        if (g[i].defined()) fisher[i] += g[i] * g[i];
      }
      ++terms;
    }
  }
  for (auto& f : fisher) f /= double(terms);

  std::map<const void*, size_t> index;
  for (size_t i = 0; i < params.size(); ++i) index[params[i].unsafeGetTensorImpl()] = i;
  int checked = 0;
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& unit : m->layer(l)->units()) {
      double t = 0, ta = 0, fs = 0;
      int64_t count = 0;
      for (const auto& p : unit.module->parameters(true)) {
        const size_t i = index.at(p.unsafeGetTensorImpl());
        auto prod = p.detach() * grads[i];
        t += prod.sum().item<double>();
        ta += prod.abs().sum().item<double>();
        fs += fisher[i].sum().item<double>();
        count += p.numel();
      }
      size_t col =
          std::find(u.unit_names.begin(), u.unit_names.end(), unit.name) - u.unit_names.begin();
      QVERIFY(col < u.unit_names.size());
      QCOMPARE(u.numel[l][col], count);
      const double scale = std::max(1e-12, ta / count);
      QVERIFY2(close(u.taylor[l][col], t / count, 1e-4, 1e-4 * scale),
               qPrintable(QString("taylor layer %1 %2: %3 vs %4")
                              .arg(l)
                              .arg(qs(unit.name))
                              .arg(u.taylor[l][col])
                              .arg(t / count)));
      QVERIFY2(close(u.taylor_abs[l][col], ta / count, 1e-4, 1e-10),
               qPrintable(QString("taylor-abs layer %1 %2").arg(l).arg(qs(unit.name))));
      QVERIFY(u.taylor_abs[l][col] >= 0);
      QVERIFY(u.taylor_abs[l][col] >= std::fabs(u.taylor[l][col]) * (1 - 1e-9));
      if (!with_fisher) {
        QVERIFY(u.fisher.empty());
        ++checked;
        continue;
      }
      QVERIFY2(close(u.fisher[l][col], fs, 1e-4, 1e-14),
               qPrintable(QString("fisher layer %1 %2: %3 vs %4")
                              .arg(l)
                              .arg(qs(unit.name))
                              .arg(u.fisher[l][col])
                              .arg(fs)));
      QVERIFY(u.fisher[l][col] > 0);
      ++checked;
    }
  }
  QVERIFY(checked >= 2 * 8);
  if (!with_fisher) return;
  // The per-parameter Fisher map (EWC) covers every parameter and matches too.
  QCOMPARE(u.parameter_fisher.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& f = u.parameter_fisher.at(names[i]);
    QCOMPARE(f.sizes(), params[i].sizes());
    const double err = (f - fisher[i]).abs().max().item<double>();
    QVERIFY2(err <= 1e-4 * fisher[i].abs().max().item<double>() + 1e-14, names[i].c_str());
  }
}

void TestImportance::taylorCodeEqualsPerBatchGradientMagnitudes_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");  // the Fisher computed beside it: none, batch, sequence
  for (const char* f : {"llama", "gpt2", "gemma3_text"}) {
    for (const char* mode : {"none", "batch", "sequence"}) {
      QTest::newRow((std::string(f) + "/" + mode).c_str()) << QString(f) << QString(mode);
    }
  }
}

void TestImportance::taylorCodeEqualsPerBatchGradientMagnitudes() {
  // taylor-code (ADEPT's public code): per unit, the mean over its entries of |θ| times the
  // mean over probe batches of |∂L_b/∂θ|, L_b the batch's mean next-token loss. Computed
  // here independently: one autograd::grad per batch, |g| accumulated, then |θ|-weighted.
  // With the per-sequence Fisher the probe sums a batch's gradient from its rows first.
  QFETCH(QString, family);
  QFETCH(QString, mode);
  auto m = make_model(family.toStdString());
  auto probes = random_packed(*m, 5, 9, 2);  // batches of 2, 2, 1 rows
  imp::UnitOptions o;
  o.taylor_code = true;
  o.fisher = mode != "none";
  o.fisher_mode = imp::parse_fisher_mode(mode == "none" ? "batch" : mode.toStdString());
  auto u = imp::unit_importance(*m, probes, o);
  QVERIFY(u.has_taylor_code);
  QCOMPARE(u.code_batches, int64_t(3));

  std::vector<torch::Tensor> params;
  for (auto& item : m->named_parameters(true)) params.push_back(item.value());
  std::vector<torch::Tensor> abs_sum(params.size()), grad(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    abs_sum[i] = torch::zeros_like(params[i], torch::kDouble);
    grad[i] = torch::zeros_like(params[i], torch::kDouble);
  }
  for (const auto& b : probes.batches) {
    const double n_b = double((b.targets != imp::kIgnoreTarget).sum().item<int64_t>());
    auto mean = imp::summed_nll(m->forward(b.ids), b.targets) / n_b;
    auto g = torch::autograd::grad({mean}, params, {}, false, false, true);
    for (size_t i = 0; i < params.size(); ++i) {
      if (!g[i].defined()) continue;
      abs_sum[i] += g[i].abs().to(torch::kDouble);
      grad[i] += g[i].to(torch::kDouble) * (n_b / double(probes.scored_tokens));
    }
  }
  std::map<const void*, size_t> index;
  for (size_t i = 0; i < params.size(); ++i) index[params[i].unsafeGetTensorImpl()] = i;
  int checked = 0;
  double layer0 = 0;
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& unit : m->layer(l)->units()) {
      double code = 0, signed_sum = 0, abs_prod = 0;
      int64_t count = 0;
      for (const auto& p : unit.module->parameters(true)) {
        const size_t i = index.at(p.unsafeGetTensorImpl());
        auto theta = p.detach().to(torch::kDouble);
        code += (theta.abs() * abs_sum[i] / 3.0).sum().item<double>();
        signed_sum += (theta * grad[i]).sum().item<double>();
        abs_prod += (theta * grad[i]).abs().sum().item<double>();
        count += p.numel();
      }
      const size_t col =
          std::find(u.unit_names.begin(), u.unit_names.end(), unit.name) - u.unit_names.begin();
      QVERIFY(col < u.unit_names.size());
      QVERIFY2(code > 0, qPrintable(qs(unit.name)));
      QVERIFY2(close(u.taylor_code[l][col], code / count, 1e-5, 0),
               qPrintable(QString("taylor-code layer %1 %2: %3 vs %4")
                              .arg(l)
                              .arg(qs(unit.name))
                              .arg(u.taylor_code[l][col], 0, 'g', 10)
                              .arg(code / count, 0, 'g', 10)));
      QVERIFY(close(u.taylor_code_sum[l][col], code, 1e-5, 0));
      // The signed Taylor of the probe-set loss is unchanged by the per-batch backward.
      QVERIFY2(close(u.taylor[l][col], signed_sum / count, 1e-4, 1e-4 * abs_prod / count),
               qPrintable(QString("taylor layer %1 %2").arg(l).arg(qs(unit.name))));
      if (l == 0) layer0 += code;
      ++checked;
    }
  }
  QVERIFY(checked >= 2 * 8);
  // The probe result: the unit matrix, and layer totals by cumulation (Σ over the entries).
  auto r = u.result(imp::methods::kTaylorCode);
  QCOMPARE(r.units, u.taylor_code);
  QVERIFY(close(r.layers[0], layer0, 1e-5, 0));
  QCOMPARE(r.details["batches"].get<int64_t>(), int64_t(3));
  if (mode == "none") {
    // The probe dispatcher (CLI, runner) runs exactly this.
    imp::ProbeOptions po;
    po.method = imp::methods::kTaylorCode;
    auto d = imp::run_probe(*m, probes, po);
    QCOMPARE(d.units, u.taylor_code);
    QCOMPARE(d.layers, r.layers);
  }
  // Without the option it is not computed, and asking for it says so.
  o.taylor_code = false;
  auto without = imp::unit_importance(*m, probes, o);
  QVERIFY(without.taylor_code.empty());
  QVERIFY(error_of([&] {
            without.result(imp::methods::kTaylorCode);
          }).find("taylor-code was not computed") != std::string::npos);
}

void TestImportance::signedTaylorCannotTellScalingPairsApart() {
  // Summed over a matrix W, Σ θ·∂L/∂θ = d/dα L(αW) at α = 1. Scaling q or k scales every
  // attention score alike, scaling v or o the attention output, scaling up or down the MLP
  // output: in a Llama layer (no biases, no q/k norms; equal shapes here) the signed Taylor
  // of q equals k's, v's equals o's, up's equals down's. taylor-abs and taylor-code tell
  // them apart.
  auto m = make_model("llama");
  auto probes = random_packed(*m, 6, 12, 2);
  imp::UnitOptions o;
  o.fisher = false;
  o.taylor_code = true;
  auto u = imp::unit_importance(*m, probes, o);
  auto col = [&](const char* name) {
    return size_t(std::find(u.unit_names.begin(), u.unit_names.end(), name) - u.unit_names.begin());
  };
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    const std::vector<std::pair<const char*, const char*>> pairs = {
        {"q", "k"}, {"v", "o"}, {"up", "down"}};
    for (const auto& [a, b] : pairs) {
      const size_t ca = col(a), cb = col(b);
      QCOMPARE(u.numel[l][ca], u.numel[l][cb]);
      // Float32 sums of the products; relative to the magnitudes summed.
      const double scale = std::max(u.taylor_abs[l][ca], u.taylor_abs[l][cb]);
      QVERIFY2(std::fabs(u.taylor[l][ca] - u.taylor[l][cb]) <= 1e-4 * scale,
               qPrintable(QString("layer %1 %2 %3: %4 vs %5")
                              .arg(l)
                              .arg(a)
                              .arg(b)
                              .arg(u.taylor[l][ca])
                              .arg(u.taylor[l][cb])));
      // The magnitudes differ beyond float32 noise (~1e-6; the fixture's q and k, drawn
      // alike, come within 1e-3 under taylor-abs).
      QVERIFY2(!close(u.taylor_code[l][ca], u.taylor_code[l][cb], 1e-4, 0),
               qPrintable(QString("taylor-code layer %1: %2 = %3 (%4, %5)")
                              .arg(l)
                              .arg(a)
                              .arg(b)
                              .arg(u.taylor_code[l][ca], 0, 'g', 8)
                              .arg(u.taylor_code[l][cb], 0, 'g', 8)));
      QVERIFY2(!close(u.taylor_abs[l][ca], u.taylor_abs[l][cb], 1e-4, 0),
               qPrintable(QString("taylor-abs layer %1: %2 = %3 (%4, %5)")
                              .arg(l)
                              .arg(a)
                              .arg(b)
                              .arg(u.taylor_abs[l][ca], 0, 'g', 8)
                              .arg(u.taylor_abs[l][cb], 0, 'g', 8)));
    }
  }
}

void TestImportance::unitProbeCoversEveryUnitAndRestoresRequiresGrad_data() {
  QTest::addColumn<QString>("family");
  for (const auto& f : gb::test::all_families()) QTest::newRow(f.c_str()) << qs(f);
}

void TestImportance::unitProbeCoversEveryUnitAndRestoresRequiresGrad() {
  QFETCH(QString, family);
  auto m = make_model(family.toStdString());
  // Freeze half the parameters: the probe needs their gradients but must restore the flags.
  std::map<std::string, bool> flags;
  int i = 0;
  for (auto& item : m->named_parameters(true)) {
    item.value().set_requires_grad(i++ % 2 == 0);
    flags[item.key()] = item.value().requires_grad();
  }
  auto before = m->named_parameters(true)[0].value().detach().clone();
  auto probes = random_packed(*m, 2, 8, 2);
  imp::UnitOptions o;
  o.fisher = false;
  auto u = imp::unit_importance(*m, probes, o);
  QCOMPARE(u.unit_names, m->layer(0)->unit_names());
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (size_t c = 0; c < u.unit_names.size(); ++c) {
      QVERIFY(u.numel[l][c] > 0);
      QVERIFY(!std::isnan(u.taylor[l][c]));
      QVERIFY(u.taylor_abs[l][c] > 0);  // frozen units got gradients too
    }
  }
  for (auto& item : m->named_parameters(true)) {
    QCOMPARE(item.value().requires_grad(), flags[item.key()]);
    QVERIFY(!item.value().grad().defined());
  }
  QVERIFY(torch::equal(before, m->named_parameters(true)[0].value()));
  QVERIFY(error_of([&] { u.result(imp::methods::kFisher); }).find("Fisher was not computed") !=
          std::string::npos);
}

void TestImportance::layerTotalsByCumulationAndRankAggregation() {
  imp::UnitImportance u;
  u.unit_names = {"q", "up", "input_norm"};
  u.numel = {{2, 4, 1}, {2, 4, 1}, {2, 4, 0}};
  u.taylor_sum = {{1.0, 8.0, -1.0}, {2.0, 4.0, 3.0}, {-4.0, 0.0, imp::kMissing}};
  u.taylor = {{0.5, 2.0, -1.0}, {1.0, 1.0, 3.0}, {-2.0, 0.0, imp::kMissing}};
  u.taylor_abs_sum = u.taylor_abs = u.taylor;  // not used here
  // Cumulation: the sum over the layer's unit parameters = Σ of unit SUMS (eq. 11).
  auto cum = u.cumulation(imp::methods::kTaylor);
  QCOMPARE(cum, (std::vector<double>{8.0, 9.0, -4.0}));
  // Rank aggregation over unit MEANS: q ranks (2, 1, 3), up ranks (1, 2, 3), input_norm
  // (2, 1, -): mean ranks (5/3, 4/3, 3).
  auto r = u.result(imp::methods::kTaylor);
  QCOMPARE(r.layers, cum);
  QCOMPARE(r.layer_mean_rank.size(), size_t(3));
  QVERIFY(std::fabs(r.layer_mean_rank[0] - 5.0 / 3) < 1e-12);
  QVERIFY(std::fabs(r.layer_mean_rank[1] - 4.0 / 3) < 1e-12);
  QVERIFY(std::fabs(r.layer_mean_rank[2] - 3.0) < 1e-12);
  // Ties inside a column go to the lower index.
  auto tied = imp::rank_aggregate({{1.0}, {1.0}, {0.5}});
  QCOMPARE(tied, (std::vector<double>{1.0, 2.0, 3.0}));
}

// ---------------------------------------------------------------------------------------

void TestImportance::calibratedRanksOnConstructedInputs_data() {
  QTest::addColumn<QString>("general");
  QTest::addColumn<QString>("domain");
  QTest::addColumn<QString>("scores");
  QTest::addColumn<int>("k");
  QTest::addColumn<QString>("selected");
  // general ranks (1 = most important) 1..5; domain ranks 5,4,1,2,3 → d − g = 4,2,-2,-2,-2.
  QTest::newRow("domain-critical-upper") << "[5,4,3,2,1]"
                                         << "[0.1,0.2,0.9,0.8,0.7]"
                                         << "[4,2,-2,-2,-2]" << 2 << "[2,3]";
  // Same ranking on both sets: every score 0; ties → lowest indices.
  QTest::newRow("identical") << "[3,1,2]"
                             << "[30,10,20]"
                             << "[0,0,0]" << 2 << "[0,1]";
  // Layer 1 is least important in general but most important in-domain.
  QTest::newRow("one-swap") << "[9,1,5]"
                            << "[1,9,5]"
                            << "[2,-2,0]" << 1 << "[1]";
  // Ties in the importance values themselves: equal values rank by index.
  QTest::newRow("value-ties") << "[1,1,1]"
                              << "[2,2,3]"
                              << "[1,1,-2]" << 1 << "[2]";
}

void TestImportance::calibratedRanksOnConstructedInputs() {
  QFETCH(QString, general);
  QFETCH(QString, domain);
  QFETCH(QString, scores);
  QFETCH(int, k);
  QFETCH(QString, selected);
  auto g = doubles(Json::parse(general.toStdString()));
  auto d = doubles(Json::parse(domain.toStdString()));
  QCOMPARE(imp::calibrated_scores(g, d), doubles(Json::parse(scores.toStdString())));
  imp::ImportanceResults res;
  res.add_general(layer_result("masking", g));
  res.add_domain(layer_result("masking", d));
  auto layers = imp::select_layers({{"policy", "calibrated"}, {"k", k}}, res);
  QCOMPARE(Json(layers), Json::parse(selected.toStdString()));
}

// ---------------------------------------------------------------------------------------

void TestImportance::effectiveRankOfKnownMatrices_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<double>("expected");
  QTest::newRow("rank-1") << "rank1" << 1.0;
  QTest::newRow("identity-7") << "identity" << 7.0;
  QTest::newRow("rank-3-equal") << "rank3" << 3.0;
  // σ = (3, 2, 1): p = (1/2, 1/3, 1/6), erank = exp(H(p)).
  const double h = -(0.5 * std::log(0.5) + std::log(1.0 / 3) / 3 + std::log(1.0 / 6) / 6);
  QTest::newRow("diag-3-2-1") << "diag" << std::exp(h);
  QTest::newRow("rotated-diag") << "rotated" << std::exp(h);
  QTest::newRow("zero") << "zero" << 0.0;
}

void TestImportance::effectiveRankOfKnownMatrices() {
  QFETCH(QString, kind);
  QFETCH(double, expected);
  auto gen = at::detail::createCPUGenerator(3);
  auto opts = torch::TensorOptions().dtype(torch::kDouble);
  torch::Tensor m;
  if (kind == "rank1") {
    m = torch::outer(torch::randn({6}, gen, opts), torch::randn({9}, gen, opts));
  } else if (kind == "identity") {
    m = torch::eye(7, opts);
  } else if (kind == "rank3") {
    auto q = std::get<0>(at::linalg_qr(torch::randn({8, 3}, gen, opts)));
    m = 2.5 * q.mm(std::get<0>(at::linalg_qr(torch::randn({5, 3}, gen, opts))).t());
  } else if (kind == "diag" || kind == "rotated") {
    m = torch::zeros({4, 5}, opts);
    m[0][0] = 3.0;
    m[1][1] = 2.0;
    m[2][2] = 1.0;
    if (kind == "rotated") {
      auto u = std::get<0>(at::linalg_qr(torch::randn({4, 4}, gen, opts)));
      auto v = std::get<0>(at::linalg_qr(torch::randn({5, 5}, gen, opts)));
      m = u.mm(m).mm(v.t());
    }
  } else {
    m = torch::zeros({3, 3}, opts);
  }
  const double e = imp::effective_rank(m);
  QVERIFY2(std::fabs(e - expected) < 1e-9, qPrintable(QString("%1 vs %2").arg(e).arg(expected)));
  // Scale invariance and float32 input.
  if (expected > 0)
    QVERIFY(std::fabs(imp::effective_rank(m.to(torch::kFloat) * 4) - expected) < 1e-4);
}

void TestImportance::effectiveRankStagesUseConsecutiveOrBaseDeltas() {
  auto opts = torch::TensorOptions().dtype(torch::kFloat);
  std::vector<torch::Tensor> base = {torch::zeros({5, 5}, opts), torch::ones({5, 5}, opts)};
  auto rank1 = torch::outer(torch::arange(1, 6, opts), torch::ones({5}, opts));
  auto eye = torch::eye(5, opts);
  // Stage 1: layer 0 gets a rank-1 update, layer 1 the identity; stage 2 adds the identity to
  // layer 0 and nothing to layer 1.
  std::vector<std::vector<torch::Tensor>> stages = {{base[0] + rank1, base[1] + eye},
                                                    {base[0] + rank1 + eye, base[1] + eye}};
  auto prev = imp::effective_rank_stages(base, stages, {"s1", "s2"}, imp::DeltaReference::Previous);
  QCOMPARE(prev.values.size(), size_t(2));  // layers
  QVERIFY(std::fabs(prev.values[0][0] - 1.0) < 1e-5);
  QVERIFY(std::fabs(prev.values[0][1] - 5.0) < 1e-5);  // W_2 − W_1 = identity
  QVERIFY(std::fabs(prev.values[1][0] - 5.0) < 1e-5);
  QCOMPARE(prev.values[1][1], 0.0);  // no change: defined as 0
  auto from_base =
      imp::effective_rank_stages(base, stages, {"s1", "s2"}, imp::DeltaReference::Base);
  QVERIFY(std::fabs(from_base.values[0][1] -
                    imp::effective_rank((rank1 + eye).to(torch::kDouble))) < 1e-9);
  QVERIFY(std::fabs(from_base.values[1][1] - 5.0) < 1e-5);
  auto r = prev.result();
  QCOMPARE(r.method, std::string("effective-rank"));
  QCOMPARE(r.layers, (std::vector<double>{prev.values[0][1], prev.values[1][1]}));
  QCOMPARE(r.stage_names, (std::vector<std::string>{"s1", "s2"}));
  // Mismatched shapes name the layer and the stage.
  std::vector<std::vector<torch::Tensor>> bad = {{torch::zeros({5, 4}), base[1]}};
  auto msg = error_of([&] { imp::effective_rank_stages(base, bad, {"ckpt-a"}); });
  QVERIFY2(msg.find("layer 0") != std::string::npos && msg.find("ckpt-a") != std::string::npos,
           msg.c_str());
}

// ---------------------------------------------------------------------------------------

void TestImportance::selectionPoliciesOnHandMadeVectors_data() {
  QTest::addColumn<QString>("policy");
  QTest::addColumn<QString>("expected");
  // General masking [0.5, 0.1, 0.1, 0.9, 0.3, 0.1]; taylor mean ranks; update magnitude.
  QTest::newRow("least-important-k1-tie") << R"({"policy":"least-important","k":1})"
                                          << "[1]";
  QTest::newRow("least-important-k2-tie") << R"({"policy":"least-important","k":2})"
                                          << "[1,2]";
  QTest::newRow("least-important-k4") << R"({"policy":"least-important","k":4})"
                                      << "[1,2,4,5]";
  QTest::newRow("most-important-k2") << R"({"policy":"most-important","k":2})"
                                     << "[0,3]";
  QTest::newRow("most-important-tie") << R"({"policy":"most-important","k":1,"method":"taylor"})"
                                      << "[2]";
  QTest::newRow("least-important-taylor-cumulation")
      << R"({"policy":"least-important","k":2,"method":"taylor"})"
      << "[0,1]";
  // The plan names the score; signed and absolute Taylor rank differently: signed values of
  // −1 look least important, while their magnitudes are not the smallest.
  QTest::newRow("least-important-score-taylor")
      << R"({"policy":"least-important","k":2,"score":"taylor"})"
      << "[0,1]";
  QTest::newRow("least-important-score-taylor-abs")
      << R"({"policy":"least-important","k":2,"score":"taylor-abs"})"
      << "[0,3]";
  QTest::newRow("score-and-method-agreeing")
      << R"({"policy":"least-important","k":2,"score":"taylor-abs","method":"taylor-abs"})"
      << "[0,3]";
  QTest::newRow("least-important-taylor-rank")
      << R"({"policy":"least-important","k":2,"method":"taylor","aggregate":"rank"})"
      << "[0,5]";
  QTest::newRow("most-important-taylor-rank")
      << R"({"policy":"most-important","k":1,"method":"taylor","aggregate":"rank"})"
      << "[3]";
  QTest::newRow("update-magnitude-top2") << R"({"policy":"update-magnitude","k":2})"
                                         << "[1,4]";
  QTest::newRow("update-magnitude-n-tie") << R"({"policy":"update-magnitude","n":3})"
                                          << "[1,2,4]";
  QTest::newRow("uniform-3-of-6") << R"({"policy":"uniform","count":3})"
                                  << "[1,3,5]";
  QTest::newRow("uniform-4-of-6") << R"({"policy":"uniform","k":4})"
                                  << "[0,2,3,5]";
  QTest::newRow("uniform-all") << R"({"policy":"uniform","count":6})"
                               << "[0,1,2,3,4,5]";
  QTest::newRow("above-lfp-2") << R"({"policy":"above-lfp","l_fp":2})"
                               << "[2,3,4,5]";
  QTest::newRow("above-lfp-0") << R"({"policy":"above-lfp","l_fp":0})"
                               << "[0,1,2,3,4,5]";
  QTest::newRow("manual") << R"({"policy":"manual","layers":[4,1,4]})"
                          << "[1,4]";
  QTest::newRow("calibrated-k1") << R"({"policy":"calibrated","k":1})"
                                 << "[4]";
}

void TestImportance::selectionPoliciesOnHandMadeVectors() {
  QFETCH(QString, policy);
  QFETCH(QString, expected);
  imp::ImportanceResults res;
  res.add_general(layer_result("masking", {0.5, 0.1, 0.1, 0.9, 0.3, 0.1}));
  auto taylor = layer_result("taylor", {-1.0, -1.0, 2.0, 0.0, 2.0, 1.0});
  taylor.layer_mean_rank = {5.0, 2.5, 4.0, 1.0, 3.0, 5.0};
  res.add_general(taylor);
  res.add_general(layer_result("taylor-abs", {1.0, 1.5, 2.0, 0.5, 2.5, 1.0}));
  res.add_general(layer_result("update-magnitude", {1.0, 3.0, 2.0, 0.5, 3.0, 2.0}));
  // Domain masking: layer 4 jumps from general rank 3 to domain rank 1.
  res.add_domain(layer_result("masking", {0.5, 0.1, 0.1, 0.9, 2.0, 0.1}));
  auto layers = imp::select_layers(Json::parse(policy.toStdString()), res);
  QCOMPARE(Json(layers).dump(), Json::parse(expected.toStdString()).dump());
  // Deterministic: the same answer again.
  QCOMPARE(imp::select_layers(Json::parse(policy.toStdString()), res), layers);
}

void TestImportance::invalidPoliciesGiveSpecificErrors_data() {
  QTest::addColumn<QString>("policy");
  QTest::addColumn<QString>("message");
  QTest::newRow("k-too-large") << R"({"policy":"least-important","k":7})"
                               << "asks for 7 layers but the model has 6";
  QTest::newRow("k-zero") << R"({"policy":"most-important","k":0})"
                          << "'k' must be at least 1";
  QTest::newRow("k-missing") << R"({"policy":"least-important"})"
                             << "missing 'k'";
  QTest::newRow("unknown-policy") << R"({"policy":"random","k":1})"
                                  << "unknown policy 'random'";
  QTest::newRow("bad-method") << R"({"policy":"least-important","k":1,"method":"grad"})"
                              << "'method' must be masking, taylor";
  QTest::newRow("bad-score") << R"({"policy":"least-important","k":1,"score":"taylor_abs"})"
                             << "'score' must be masking, taylor (signed θ·∂L/∂θ), taylor-abs";
  QTest::newRow("score-and-method")
      << R"({"policy":"least-important","k":1,"score":"taylor","method":"fisher"})"
      << "give 'score' or its older name 'method', not both";
  QTest::newRow("missing-probe") << R"({"policy":"least-important","k":1,"method":"fisher"})"
                                 << "needs a 'fisher' probe on the general probe set (available: "
                                    "masking)";
  QTest::newRow("missing-domain") << R"({"policy":"calibrated","k":1})"
                                  << "on the domain probe set (available: none)";
  QTest::newRow("rank-needs-unit-method")
      << R"({"policy":"least-important","k":1,"aggregate":"rank"})"
      << "needs a unit method";
  QTest::newRow("unknown-key") << R"({"policy":"uniform","count":2,"every":3})"
                               << "every";
  QTest::newRow("lfp-range") << R"({"policy":"above-lfp","l_fp":6})"
                             << "'l_fp' must be in [0, 5]";
  QTest::newRow("uniform-range") << R"({"policy":"uniform","count":9})"
                                 << "'count' must be in [1, 6]";
  QTest::newRow("manual-range") << R"({"policy":"manual","layers":[6]})"
                                << "layer 6 is out of range";
  QTest::newRow("not-object") << R"([1,2])"
                              << "expected an object";
}

void TestImportance::invalidPoliciesGiveSpecificErrors() {
  QFETCH(QString, policy);
  QFETCH(QString, message);
  imp::ImportanceResults res;
  res.add_general(layer_result("masking", {0.5, 0.1, 0.1, 0.9, 0.3, 0.1}));
  auto msg = error_of([&] { imp::select_layers(Json::parse(policy.toStdString()), res); });
  QVERIFY2(msg.find(message.toStdString()) != std::string::npos, msg.c_str());
}

void TestImportance::requiredProbesListWhatPoliciesNeed() {
  using V = std::vector<imp::ProbeNeed>;
  QVERIFY(imp::required_probes({{"policy", "least-important"}, {"k", 2}}) ==
          (V{{"masking", false}}));
  QVERIFY(imp::required_probes({{"policy", "calibrated"}, {"k", 1}, {"method", "taylor"}}) ==
          (V{{"taylor", false}, {"taylor", true}}));
  QVERIFY(imp::required_probes({{"policy", "update-magnitude"}, {"n", 3}}) ==
          (V{{"update-magnitude", false}}));
  QVERIFY(imp::required_probes({{"policy", "uniform"}, {"count", 2}}).empty());
  QVERIFY(imp::required_probes({{"policy", "above-lfp"}, {"l_fp", 1}}).empty());
}

void TestImportance::policyRegistryDeclaresEachPolicyOnce() {
  // The registry (importance/policy.h) in its display order; what a form writes for k
  // layers; the keys with their aliases; both unknown-policy messages name every id.
  std::vector<std::string> ids;
  for (const imp::LayerPolicy* p : imp::layer_policies()) ids.push_back(p->id);
  QCOMPARE(ids, (std::vector<std::string>{"least-important", "most-important", "update-magnitude",
                                          "uniform", "above-lfp", "calibrated", "manual"}));
  QCOMPARE(imp::find_policy("least-important")->form_json(2),
           (Json{{"policy", "least-important"}, {"k", 2}, {"score", "masking"}}));
  QCOMPARE(imp::find_policy("update-magnitude")->form_json(3),
           (Json{{"policy", "update-magnitude"}, {"k", 3}}));
  QCOMPARE(imp::find_policy("uniform")->form_json(2), (Json{{"policy", "uniform"}, {"count", 2}}));
  QCOMPARE(imp::find_policy("update-magnitude")->accepted_keys(),
           (std::set<std::string>{"k", "n", "policy"}));
  QCOMPARE(imp::find_policy("calibrated")->accepted_keys(),
           (std::set<std::string>{"aggregate", "k", "method", "policy", "score"}));
  QCOMPARE(imp::find_policy("uniform")->count({{"policy", "uniform"}, {"k", 4}}), int64_t(4));
  QVERIFY(imp::find_policy("random") == nullptr);
  const std::string known =
      "unknown policy 'random' (known: least-important, most-important, update-magnitude, "
      "uniform, above-lfp, calibrated, manual)";
  const std::string selection = error_of([] { imp::required_probes({{"policy", "random"}}); });
  QVERIFY2(selection.find("layer policy: " + known) != std::string::npos, selection.c_str());
  const std::string plan = error_of([] {
    gb::grow::parse_plan({{"variant", "lora"}, {"layers", {{"policy", "random"}}}});
  });
  QVERIFY2(plan.find(".layers: " + known) != std::string::npos, plan.c_str());
  // The estimates' layer count (grow::estimate_layer_count, the planner's figures) comes from
  // each policy's declaration: its count, L − l_fp above l_fp, 1 when the count is unreadable.
  auto layers = [](const Json& policy) {
    const auto sel = gb::grow::LayerSelection::parse(policy, "plan");
    return gb::grow::estimate_layer_count(sel, 12, nullptr);
  };
  QCOMPARE(layers({{"policy", "least-important"}, {"k", 3}}), 3);
  QCOMPARE(layers({{"policy", "update-magnitude"}, {"n", 5}}), 5);
  QCOMPARE(layers({{"policy", "uniform"}, {"count", 4}}), 4);
  QCOMPARE(layers({{"policy", "uniform"}, {"k", 6}}), 6);
  QCOMPARE(layers({{"policy", "above-lfp"}, {"l_fp", 9}}), 3);
  QCOMPARE(layers({{"policy", "calibrated"}, {"k", 2}}), 2);
  QCOMPARE(layers({{"policy", "least-important"}, {"k", 0}}), 1);
}

void TestImportance::policyResolvesGrowthPlanLayers() {
  // The runner's wiring: probe, then resolve the plan's policy through ApplyContext.
  auto m = make_model("llama", 4);
  auto probes = random_packed(*m, 4, 10, 2);
  imp::ImportanceResults res;
  res.add_general(imp::to_probe_result(imp::masking_importance(*m, probes)));
  auto expected = imp::k_extreme(res.general.at("masking").layers, 2, false, "test");
  gb::grow::ApplyContext ctx;
  ctx.resolve_policy = [&](const Json& policy) { return imp::select_layers(policy, res); };
  auto plan = gb::grow::parse_plan({{"variant", "depth"},
                                    {"style", "adept"},
                                    {"layers", {{"policy", "least-important"}, {"k", 2}}}});
  auto r = gb::grow::apply_plan(*m, plan, ctx);
  QCOMPARE(r.plan.layers()->layers, expected);
  QCOMPARE(m->num_layers(), int64_t(6));
}

void TestImportance::diagonalFisherFeedsEwc() {
  auto m = make_model("qwen3");
  auto probes = random_packed(*m, 3, 8, 2);
  gb::grow::ApplyContext ctx;
  ctx.fisher = imp::diagonal_fisher(*m, probes, imp::FisherMode::PerBatch);
  QCOMPARE(ctx.fisher.size(), m->named_parameters(true).size());
  auto r =
      gb::grow::apply_plan(*m, gb::grow::parse_plan({{"variant", "ewc"}, {"lambda", 1.0}}), ctx);
  QCOMPARE(r.loss_terms.size(), size_t(1));
  // At the anchor the penalty is zero; it grows once a weight with Fisher mass moves.
  QCOMPARE(r.loss_terms[0]->compute().item<double>(), 0.0);
  {
    torch::NoGradGuard ng;
    m->layer(0)->mlp->up_proj->dense_weight().add_(0.1);
  }
  QVERIFY(r.loss_terms[0]->compute().item<double>() > 0);

  // Restricted to some parameters (EWC on a plan's trainable ones): exactly those names, the
  // same values as the full computation, and no other parameter got a gradient meanwhile.
  const std::string a = "model.layers.1.mlp.up_proj.weight",
                    b = "model.layers.0.self_attn.q_proj.weight";
  auto m2 = make_model("qwen3");
  std::map<std::string, bool> flags;
  for (auto& item : m2->named_parameters(true)) {
    item.value().set_requires_grad(item.key() == a);  // as a plan leaves them
    flags[item.key()] = item.value().requires_grad();
  }
  auto part = imp::diagonal_fisher(*m2, probes, imp::FisherMode::PerBatch, {}, {a, b});
  QCOMPARE(part.size(), size_t(2));
  for (const auto& name : {a, b}) {
    const auto& want = ctx.fisher.at(name);
    const double scale = want.abs().max().item<double>();
    QVERIFY(scale > 0);
    QVERIFY2((part.at(name) - want).abs().max().item<double>() <= 1e-5 * scale, name.c_str());
  }
  for (auto& item : m2->named_parameters(true)) {
    QCOMPARE(item.value().requires_grad(), flags.at(item.key()));  // restored
    QVERIFY(!item.value().grad().defined());
  }
}

// ---------------------------------------------------------------------------------------

void TestImportance::packedLayoutScoresEveryTokenOnceWithoutPadding() {
  gb::data::TokenStream s;
  for (int i = 0; i < 23; ++i) s.tokens.push_back(100 + i);
  s.offsets = {0, 10, 23};
  imp::ProbeSetOptions o;
  o.seq_len = 5;
  o.batch_size = 2;
  auto p = imp::pack_stream(s, o, "stream");
  // floor((23 - 1) / 5) = 4 windows of 5 targets; 2 tokens of tail dropped.
  QCOMPARE(p.rows(), int64_t(4));
  QCOMPARE(p.batches.size(), size_t(2));
  QCOMPARE(p.scored_tokens, int64_t(20));
  QCOMPARE(p.padding_tokens, int64_t(0));
  QCOMPARE(p.dropped_tokens, int64_t(2));
  QCOMPARE(p.layout, imp::ProbeLayout::Packed);
  std::vector<int64_t> seen;
  for (const auto& b : p.batches) {
    QCOMPARE(b.length(), int64_t(5));
    for (int64_t r = 0; r < b.rows(); ++r) {
      for (int64_t t = 0; t < 5; ++t) {
        QCOMPARE(b.targets[r][t].item<int64_t>(), b.ids[r][t].item<int64_t>() + 1);
        seen.push_back(b.targets[r][t].item<int64_t>());
      }
    }
  }
  for (size_t i = 0; i < seen.size(); ++i) QCOMPARE(seen[i], int64_t(101 + i));  // once each
  // A loss mask removes targets; a short stream gives one shorter row.
  s.loss_mask.assign(23, 1);
  s.loss_mask[3] = 0;
  QCOMPARE(imp::pack_stream(s, o, "masked").scored_tokens, int64_t(19));
  gb::data::TokenStream tiny;
  tiny.tokens = {5, 6, 7};
  tiny.offsets = {0, 3};
  auto t = imp::pack_stream(tiny, o, "tiny");
  QCOMPARE(t.rows(), int64_t(1));
  QCOMPARE(t.batches[0].length(), int64_t(2));
  // The token budget: only the stream's first max_tokens tokens are packed (a run's probe
  // and Fisher sets come from whole corpora), the documents cut at the budget.
  s.loss_mask.clear();
  o.max_tokens = 12;
  auto b = imp::pack_stream(s, o, "budget");
  QCOMPARE(b.rows(), int64_t(2));  // floor((12 - 1) / 5) windows
  QCOMPARE(b.scored_tokens, int64_t(10));
  QCOMPARE(b.examples, int64_t(2));
  QCOMPARE(b.batches.back().targets[1][4].item<int64_t>(), int64_t(110));
  o.max_tokens = 1000;  // a budget above the stream's size changes nothing
  QCOMPARE(imp::pack_stream(s, o, "all").scored_tokens, int64_t(20));
}

void TestImportance::bucketedLayoutScoresOnlyContinuations() {
  std::vector<imp::ScoredExample> ex = {
      {{1, 10, 11, 12}, {20, 21}},               // 6 tokens → 5 positions, 2 scored
      {{1, 10}, {20}},                           // 3 tokens → 2 positions, 1 scored
      {{1, 10, 11}, {20, 21}},                   // 5 tokens → 4 positions, 2 scored
      {{1, 2, 3, 4, 5, 6, 7, 8}, {30, 31, 32}},  // 11 tokens: truncated to seq_len + 1 = 7
  };
  imp::ProbeSetOptions o;
  o.seq_len = 6;
  o.batch_size = 2;
  auto p = imp::bucket_examples(ex, o, "mc");
  QCOMPARE(p.layout, imp::ProbeLayout::Bucketed);
  QCOMPARE(p.batches.size(), size_t(2));
  // Sorted by length: (3, 5) then (6, 7 after truncation).
  QCOMPARE(p.batches[0].length(), int64_t(4));
  QCOMPARE(p.batches[1].length(), int64_t(6));
  QCOMPARE(p.scored_tokens, int64_t(1 + 2 + 2 + 3));
  QCOMPARE(p.padding_tokens, int64_t(2 + 0 + 1 + 0));
  QCOMPARE(p.dropped_tokens, int64_t(4));
  // Row 0 of batch 0 is example 1: target 20 at position 1 only.
  auto t0 = p.batches[0].targets[0];
  QCOMPARE(t0[0].item<int64_t>(), imp::kIgnoreTarget);
  QCOMPARE(t0[1].item<int64_t>(), int64_t(20));
  QCOMPARE(t0[2].item<int64_t>(), imp::kIgnoreTarget);
  // The truncated example keeps its whole continuation, scored.
  auto t3 = p.batches[1].targets[1];
  QCOMPARE(t3[3].item<int64_t>(), int64_t(30));
  QCOMPARE(t3[4].item<int64_t>(), int64_t(31));
  QCOMPARE(t3[5].item<int64_t>(), int64_t(32));
  QCOMPARE(t3[2].item<int64_t>(), imp::kIgnoreTarget);
}

void TestImportance::bucketedPaddingDoesNotChangeTheLoss() {
  auto m = make_model("gemma3_text");
  auto ex = random_examples(m->config.vocab_size, 7, 9);
  imp::ProbeSetOptions o;
  o.seq_len = 32;
  o.batch_size = 3;
  auto p = imp::bucket_examples(ex, o, "mc");
  QVERIFY(p.padding_tokens > 0);
  // Reference: each example alone, unpadded.
  double sum = 0;
  int64_t n = 0;
  torch::NoGradGuard ng;
  for (const auto& e : ex) {
    std::vector<int64_t> seq(e.context.begin(), e.context.end());
    seq.insert(seq.end(), e.continuation.begin(), e.continuation.end());
    auto ids = torch::tensor(seq, torch::kLong).unsqueeze(0);
    auto logits = m->forward(ids.narrow(1, 0, ids.size(1) - 1));
    auto logp = torch::log_softmax(logits.squeeze(0), -1);
    for (size_t k = e.context.size(); k < seq.size(); ++k) {
      sum -= logp[k - 1][seq[k]].item<double>();
      ++n;
    }
  }
  QCOMPARE(p.scored_tokens, n);
  QVERIFY(std::fabs(imp::probe_loss(*m, p) - sum / n) < 1e-5);
  // Masking on a bucketed (padded) set equals brute-force removal of each layer, as on a
  // packed set (maskingEqualsBruteForceLayerRemoval): padding must not leak into either.
  auto r = imp::masking_importance(*m, p);
  const int64_t layers = m->num_layers();
  QCOMPARE(static_cast<int64_t>(r.importance.size()), layers);
  const double base_loss = imp::probe_loss(*m, p);
  for (int64_t l = 0; l < layers; ++l) {
    auto removed = make_model("gemma3_text");
    auto list = removed->all_layers();
    list.erase(list.begin() + l);
    removed->set_layers(list);
    const double brute = imp::probe_loss(*removed, p) - base_loss;
    QVERIFY2(
        std::fabs(r.importance[l] - brute) <= 1e-5 * std::max(1.0, std::fabs(base_loss)),
        qPrintable(
            QString("layer %1: cached %2, brute force %3").arg(l).arg(r.importance[l]).arg(brute)));
    QVERIFY(std::fabs(brute) > 1e-6);  // not vacuous
  }
}

void TestImportance::loadProbeSetIsDeterministicAndHonoursBudgets_data() {
  QTest::addColumn<QString>("kind");
  QTest::newRow("text") << "text";
  QTest::newRow("jsonl") << "jsonl";
  QTest::newRow("mc") << "mc";
}

void TestImportance::loadProbeSetIsDeterministicAndHonoursBudgets() {
  QFETCH(QString, kind);
  QTemporaryDir dir;
  std::string path;
  if (kind == "text") {
    std::string text;
    for (int i = 0; i < 12; ++i)
      text += "Paragraph number " + std::to_string(i) + " has words.\n\n";
    path = write_file(dir, "probe.txt", text);
  } else if (kind == "jsonl") {
    std::string text;
    for (int i = 0; i < 12; ++i)
      text += Json({{"text", "Document " + std::to_string(i)}}).dump() + "\n";
    path = write_file(dir, "probe.jsonl", text);
  } else {
    std::string text;
    for (int i = 0; i < 12; ++i) {
      text += Json({{"context", "Question " + std::to_string(i) + "?"},
                    {"choices", {"yes", "no"}},
                    {"answer", i % 2}})
                  .dump() +
              "\n";
    }
    path = write_file(dir, "probe.jsonl", text);
  }
  const auto expected = kind == "mc"      ? imp::ProbeFormat::MultipleChoice
                        : kind == "jsonl" ? imp::ProbeFormat::Jsonl
                                          : imp::ProbeFormat::Text;
  QCOMPARE(imp::detect_probe_format(path), expected);
  auto enc = toy_encoder();
  imp::ProbeSetOptions o;
  o.seq_len = 16;
  o.batch_size = 4;
  o.seed = 3;
  auto a = imp::load_probe_set(path, enc, o);
  auto b = imp::load_probe_set(path, enc, o);
  QCOMPARE(a.fingerprint(), b.fingerprint());
  QCOMPARE(a.layout, kind == "mc" ? imp::ProbeLayout::Bucketed : imp::ProbeLayout::Packed);
  o.seed = 4;
  QVERIFY(imp::load_probe_set(path, enc, o).fingerprint() != a.fingerprint());
  o.seed = 3;
  o.max_examples = 5;
  auto few = imp::load_probe_set(path, enc, o);
  QCOMPARE(few.examples, int64_t(5));
  o.max_examples = -1;
  o.max_tokens = 40;
  auto budget = imp::load_probe_set(path, enc, o);
  QVERIFY(budget.scored_tokens < 40);
  QVERIFY(budget.input_tokens <= 40 + (kind == "mc" ? budget.padding_tokens : 0));
  if (kind == "mc") {
    // Only the answers are scored: " yes" / " no" are 4 / 3 toy tokens.
    QVERIFY(a.scored_tokens >= 12 * 3 && a.scored_tokens <= 12 * 4);
  }
}

// ---------------------------------------------------------------------------------------

void TestImportance::updateMagnitudeIsDeterministicAndRestoresTheModel() {
  auto m = make_model("llama");
  auto probes = random_packed(*m, 8, 8, 2);  // 4 batches
  std::map<std::string, torch::Tensor> before;
  for (auto& item : m->named_parameters(true)) {
    before[item.key()] = item.value().detach().clone();
    item.value().set_requires_grad(item.key().find("layers.0") != std::string::npos);
  }
  imp::UpdateMagnitudeOptions o;
  o.steps = 6;
  o.lr = 1e-3;
  o.snapshot_every = 2;
  auto a = imp::update_magnitude(*m, probes, o);
  for (auto& item : m->named_parameters(true)) {
    QVERIFY2(torch::equal(item.value(), before[item.key()]), item.key().c_str());
    QCOMPARE(item.value().requires_grad(), item.key().find("layers.0") != std::string::npos);
  }
  QCOMPARE(a.magnitude.size(), size_t(2));
  QCOMPARE(a.losses.size(), size_t(6));
  QCOMPARE(a.snapshot_steps, (std::vector<int64_t>{0, 2, 4, 6}));
  QCOMPARE(a.up_snapshots.size(), size_t(4));
  for (int64_t l = 0; l < 2; ++l) {
    // Frozen layers train too (full fine-tuning); the up projection's change is part of the
    // layer's change.
    QVERIFY(a.magnitude[l] > 0);
    const double up = (a.up_snapshots.back()[l] - a.up_snapshots.front()[l]).norm().item<double>();
    QVERIFY(up > 0 && up <= a.magnitude[l] * (1 + 1e-6));
    double w0 = 0;
    for (const auto& [name, t] : before) {
      if (name.rfind("model.layers." + std::to_string(l) + ".", 0) == 0)
        w0 += t.pow(2).sum().item<double>();
    }
    QVERIFY(std::fabs(a.relative[l] - a.magnitude[l] / std::sqrt(w0)) < 1e-9);
  }
  auto b = imp::update_magnitude(*m, probes, o);
  QCOMPARE(a.magnitude, b.magnitude);
  QCOMPARE(a.losses, b.losses);
  o.seed = 1;
  QVERIFY(imp::update_magnitude(*m, probes, o).magnitude != a.magnitude);
  auto r = a.result();
  QCOMPARE(r.method, std::string("update-magnitude"));
  QCOMPARE(r.layers, a.magnitude);
}

void TestImportance::preliminaryRunLowersTheLoss() {
  auto m = make_model("gpt2");
  auto probes = random_packed(*m, 2, 12, 2);  // one batch, trained on repeatedly
  imp::UpdateMagnitudeOptions o;
  o.steps = 15;
  o.lr = 3e-3;
  auto r = imp::update_magnitude(*m, probes, o);
  QVERIFY2(r.losses.back() < r.losses.front() - 0.1,
           qPrintable(QString("%1 -> %2").arg(r.losses.front()).arg(r.losses.back())));
  // And the model is back where it started.
  QVERIFY(std::fabs(imp::probe_loss(*m, probes) - r.losses.front()) < 1e-5);
}

void TestImportance::probesReportProgressAndCancel() {
  auto m = make_model("llama");
  auto probes = random_packed(*m, 6, 8, 2);  // 3 batches
  std::vector<double> fractions;
  std::vector<std::string> stages, messages;
  gb::Progress progress([&](const gb::ProgressUpdate& u) {
    fractions.push_back(u.fraction);
    stages.push_back(u.stage);
    messages.push_back(u.message);
  });
  // Masking reports by layer: the start, then per batch layers 1..L-1 bypassed and the
  // batch's end (exactly b/3), rising with the work done (weighted by the layers' and the
  // head's weights).
  const int64_t L = m->num_layers();
  for (auto mode : {imp::MaskingMode::Cached, imp::MaskingMode::Naive}) {
    fractions.clear();
    messages.clear();
    imp::masking_importance(*m, probes, mode, progress);
    QCOMPARE(static_cast<int64_t>(fractions.size()), 1 + 3 * L);
    QCOMPARE(fractions.front(), 0.0);
    for (size_t i = 1; i < fractions.size(); ++i) QVERIFY(fractions[i] > fractions[i - 1]);
    QCOMPARE(fractions[L], 1.0 / 3);
    QCOMPARE(fractions[2 * L], 2.0 / 3);
    QCOMPARE(fractions.back(), 1.0);
    QCOMPARE(messages[1], "batch 1/3, layer 1/" + std::to_string(L));
    QCOMPARE(messages[L + L - 1],
             "batch 2/3, layer " + std::to_string(L - 1) + "/" + std::to_string(L));
    QCOMPARE(messages.back(), std::string("batch 3/3"));
    QCOMPARE(stages.back(), std::string("probe/masking"));
  }
  fractions.clear();
  imp::UnitOptions uo;
  uo.fisher = false;
  imp::unit_importance(*m, probes, uo, progress);
  QCOMPARE(fractions.back(), 1.0);
  QCOMPARE(stages.back(), std::string("probe/units"));
  // The per-sequence Fisher takes one backward pass per row and reports by row.
  fractions.clear();
  messages.clear();
  uo.fisher = true;
  imp::unit_importance(*m, probes, uo, progress);
  QCOMPARE(fractions, (std::vector<double>{0.0, 1.0 / 6, 1.0 / 3, 0.5, 2.0 / 3, 5.0 / 6, 1.0}));
  QCOMPARE(messages[1], std::string("batch 1/3, row 1/2"));

  // Cancelling: the probe stops with CancelledError, and the model is left as it was.
  gb::CancelToken token;
  int reports = 0;
  gb::Progress cancelling(
      [&](const gb::ProgressUpdate& u) {
        if (++reports == 2) token.cancel();
      },
      token);
  QVERIFY_EXCEPTION_THROWN(
      imp::masking_importance(*m, probes, imp::MaskingMode::Cached, cancelling),
      gb::CancelledError);
  auto before = m->layer(0)->mlp->up_proj->dense_weight().detach().clone();
  gb::CancelToken token2;
  gb::Progress cancel_training(
      [&](const gb::ProgressUpdate& u) {
        if (u.fraction > 0.3) token2.cancel();
      },
      token2);
  imp::UpdateMagnitudeOptions o;
  o.steps = 10;
  o.lr = 1e-2;
  QVERIFY_EXCEPTION_THROWN(imp::update_magnitude(*m, probes, o, cancel_training),
                           gb::CancelledError);
  QVERIFY(torch::equal(before, m->layer(0)->mlp->up_proj->dense_weight()));
  for (auto& p : m->parameters(true)) QVERIFY(!p.grad().defined());
}

void TestImportance::probeLossChunkedEqualsPlain_data() {
  QTest::addColumn<QString>("family");
  for (const char* f : {"llama", "gpt2", "gemma3_text"}) QTest::newRow(f) << QString(f);
}

void TestImportance::probeLossChunkedEqualsPlain() {
  // The probes' loss (train::summed_lm_nll, used by masking, taylor and fisher): with
  // ce_chunk 0 it is the plain summed NLL of the forward pass, bit for bit; chunked (here 5
  // tokens at a time; at real size the automatic rule chunks) it equals that up to float32
  // rounding, value and gradients, and so does the masking probe's restart from the layers.
  QFETCH(QString, family);
  auto m = make_model(family.toStdString());
  auto probes = random_packed(*m, 4, 9, 3);
  const auto& b = probes.batches.front();
  auto targets = b.targets.clone();
  targets.index_put_({0, 3}, imp::kIgnoreTarget);  // an unscored position too
  std::vector<torch::Tensor> params;
  for (auto& p : m->parameters(true)) {
    p.set_requires_grad(true);
    params.push_back(p);
  }
  auto plain = imp::summed_nll(m->forward(b.ids), targets);
  auto zero = gb::train::summed_lm_nll(*m, b.ids, targets, gb::ForwardOptions{}, 0);
  QCOMPARE(zero.item<double>(), plain.item<double>());
  auto auto_chunk = gb::train::summed_lm_nll(*m, b.ids, targets, gb::ForwardOptions{});
  QCOMPARE(auto_chunk.item<double>(), plain.item<double>());  // tiny: auto never chunks
  auto chunked = gb::train::summed_lm_nll(*m, b.ids, targets, gb::ForwardOptions{}, 5);
  QVERIFY2(close(chunked.item<double>(), plain.item<double>(), 1e-6, 0),
           qPrintable(QString("%1 vs %2").arg(chunked.item<double>()).arg(plain.item<double>())));
  auto g_plain = torch::autograd::grad({plain}, params, {}, false, false, true);
  auto g_chunk = torch::autograd::grad({chunked}, params, {}, false, false, true);
  // Relative to the gradients' scale over the whole model (a parameter whose gradient
  // nearly cancels, as GPT-2's biases, has only rounding left to compare).
  double scale = 0;
  for (const auto& g : g_plain) {
    if (g.defined()) scale = std::max(scale, g.abs().max().item<double>());
  }
  for (size_t i = 0; i < params.size(); ++i) {
    QCOMPARE(g_plain[i].defined(), g_chunk[i].defined());
    if (!g_plain[i].defined()) continue;
    const double err = (g_chunk[i] - g_plain[i]).abs().max().item<double>();
    QVERIFY2(err <= 1e-5 * scale + 1e-12,
             qPrintable(QString("parameter %1: %2 of %3").arg(i).arg(err).arg(scale)));
  }
  // From the last layer's output, as the masking probe continues after a bypassed layer.
  torch::NoGradGuard no_grad;
  auto state = m->make_state(b.ids.size(1), gb::ForwardOptions{}, torch::Device(torch::kCPU));
  auto h = m->embed(b.ids, state.past);
  for (int64_t l = 0; l < m->num_layers(); ++l) h = m->run_layer(l, h, state);
  const double from_layers_plain =
      gb::train::summed_lm_nll_from_layers(*m, h, targets, 0).item<double>();
  const double from_layers = gb::train::summed_lm_nll_from_layers(*m, h, targets, 4).item<double>();
  QCOMPARE(from_layers_plain, plain.item<double>());
  QVERIFY(close(from_layers, plain.item<double>(), 1e-6, 0));
}

void TestImportance::gradientProbesWithCheckpointingAreTheSame() {
  // probe.checkpointing recomputes each layer's activations in the backward pass: the same
  // arithmetic, so the same Taylor, taylor-code and Fisher scores, bit for bit, and the
  // model's flags as they were.
  auto m = make_model("llama");
  auto probes = random_packed(*m, 5, 9, 2);
  std::vector<bool> flags;
  for (const auto& p : m->parameters(true)) flags.push_back(p.requires_grad());
  std::vector<imp::UnitOptions> cases(3);
  cases[0].fisher_mode = imp::FisherMode::PerSequence;
  cases[0].taylor_code = true;
  cases[1].fisher_mode = imp::FisherMode::PerBatch;
  cases[1].taylor_code = true;
  cases[2].fisher = false;  // Taylor alone: summed in the parameters' own gradients
  for (auto o : cases) {
    const auto plain = imp::unit_importance(*m, probes, o);
    o.checkpointing = true;
    const auto ckpt = imp::unit_importance(*m, probes, o);
    QVERIFY(!plain.taylor.empty());
    QVERIFY(ckpt.taylor == plain.taylor);
    QVERIFY(ckpt.taylor_abs == plain.taylor_abs);
    QVERIFY(ckpt.taylor_code == plain.taylor_code);
    QVERIFY(ckpt.fisher == plain.fisher);
    QCOMPARE(ckpt.loss, plain.loss);
  }
  size_t i = 0;
  for (const auto& p : m->parameters(true)) {
    QCOMPARE(p.requires_grad(), static_cast<bool>(flags[i++]));
    QVERIFY(!p.grad().defined());
  }
  // The option reaches the probe from JSON and is recorded with a gradient probe only.
  auto po = imp::probe_options_from_json({{"method", "taylor"}, {"checkpointing", true}}, "probe");
  QVERIFY(po.checkpointing);
  QCOMPARE(imp::to_json(po).at("checkpointing"), Json(true));
  QVERIFY(!imp::probe_options_from_json(Json::object(), "probe").checkpointing);
  const QString err = qs(error_of([] {
    imp::probe_options_from_json({{"checkpointing", "yes"}}, "spec.probe");
  }));
  QVERIFY2(err.contains("spec.probe") && err.contains("'checkpointing' must be a boolean"),
           qPrintable(err));
}

// A data-parallel probe as rank 0 of 2, the other rank simulated inside the sums: rank 1
// runs the odd batches, so the two halves (each computed here as a separate single-rank
// probe over its batches) sum to the whole probe; a cancel on either rank reaches both.
void TestImportance::shardedProbesSumOverRanksAndShareACancel() {
  auto m = make_model("llama");
  auto probes = random_packed(*m, 6, 8, 2);  // 3 batches: rank 0 gets 0 and 2, rank 1 gets 1
  imp::ProbeSet odd = probes, even = probes;
  odd.batches = {probes.batches[1]};
  odd.scored_tokens = probes.batches[1].scored;
  even.batches = {probes.batches[0], probes.batches[2]};
  const auto whole = imp::masking_importance(*m, probes);
  const auto whole_units = imp::unit_importance(*m, probes);

  // Rank 1's sums, in the order rank 0 reduces them, from a probe of its own batch.
  const auto r1 = imp::masking_importance(*m, odd);
  imp::UnitOptions uo1;
  uo1.keep_parameter_fisher = true;
  const auto u1 = imp::unit_importance(*m, odd, uo1);
  int reductions = 0;
  bool other_cancels = false;
  imp::ProbeSharding shard;
  shard.world = 2;
  shard.rank = 0;
  shard.sum_values = [&](std::vector<double>& v) {
    ++reductions;
    const size_t layers = static_cast<size_t>(m->num_layers());
    if (v.size() == layers + 3) {  // masking: bypass sums, base sum, forwards, cancel flag
      const double n1 = static_cast<double>(odd.scored_tokens);
      for (size_t l = 0; l < layers; ++l) v[l] += r1.bypass_loss[l] * n1;
      v[layers] += r1.base_loss * n1;
      v[layers + 1] += static_cast<double>(r1.layer_forwards);
      v[layers + 2] += other_cancels ? 1.0 : 0.0;
    } else if (v.size() == 4) {  // units: loss sum, passes, Fisher terms, cancel flag
      v[0] += u1.loss * static_cast<double>(odd.scored_tokens);
      v[1] += static_cast<double>(u1.backward_passes);
      v[2] += static_cast<double>(u1.backward_passes);  // per-sequence: one term per pass
      v[3] += other_cancels ? 1.0 : 0.0;
    } else {  // batches by rank
      v[1] += 1.0;
    }
  };
  int tensor_reductions = 0;
  shard.sum_tensors = [&](std::vector<torch::Tensor>& t) {
    // The accumulated gradients and Fisher: counted only (tst_dist compares the unit values
    // of real two-process runs with one process).
    ++tensor_reductions;
    (void)t;
  };
  const auto mine = imp::masking_importance(*m, probes, imp::MaskingMode::Cached, {}, &shard);
  QCOMPARE(mine.batches_by_rank, (std::vector<int64_t>{2, 1}));
  QCOMPARE(mine.layer_forwards, whole.layer_forwards);
  QVERIFY(std::fabs(mine.base_loss - whole.base_loss) <= 1e-9 * std::fabs(whole.base_loss));
  for (size_t l = 0; l < whole.importance.size(); ++l) {
    QVERIFY2(
        std::fabs(mine.importance[l] - whole.importance[l]) <=
            1e-9 * std::max(1.0, std::fabs(whole.importance[l])),
        qPrintable(
            QString("layer %1: %2 vs %3").arg(l).arg(mine.importance[l]).arg(whole.importance[l])));
  }
  imp::UnitOptions uo;
  uo.shard = &shard;
  const auto units = imp::unit_importance(*m, probes, uo);
  QCOMPARE(units.backward_passes, whole_units.backward_passes);
  QVERIFY(std::fabs(units.loss - whole_units.loss) <= 1e-9 * whole_units.loss);
  QCOMPARE(tensor_reductions, 2);  // gradient and Fisher accumulators, once each
  QCOMPARE(units.batches_by_rank, (std::vector<int64_t>{2, 1}));

  // The other rank cancelled: this rank, which did not, still reduces and then stops.
  other_cancels = true;
  reductions = 0;
  QVERIFY_EXCEPTION_THROWN(
      imp::masking_importance(*m, probes, imp::MaskingMode::Cached, {}, &shard),
      gb::CancelledError);
  QCOMPARE(reductions, 1);
  reductions = 0;
  QVERIFY_EXCEPTION_THROWN(imp::unit_importance(*m, probes, uo), gb::CancelledError);
  QCOMPARE(reductions, 1);
  // This rank cancelled: it still takes part in the reduction (the other rank is waiting
  // in it) before it stops.
  other_cancels = false;
  reductions = 0;
  gb::CancelToken token;
  token.cancel();
  gb::Progress cancelled({}, token);
  QVERIFY_EXCEPTION_THROWN(
      imp::masking_importance(*m, probes, imp::MaskingMode::Cached, cancelled, &shard),
      gb::CancelledError);
  QCOMPARE(reductions, 1);
  // The unit probe cancelled after its first report (the per-sequence Fisher's first row,
  // gradients taken; the Taylor probe's first batch, its gradient summed in the parameters'
  // own): it reduces, stops, and leaves no gradient behind.
  imp::UnitOptions taylor_alone;
  taylor_alone.fisher = false;
  taylor_alone.shard = &shard;
  for (const auto& o : {uo, taylor_alone}) {
    reductions = 0;
    gb::CancelToken after_first;
    gb::Progress cancel_after_first(
        [&](const gb::ProgressUpdate& u) {
          if (u.fraction > 0) after_first.cancel();
        },
        after_first);
    QVERIFY_EXCEPTION_THROWN(imp::unit_importance(*m, probes, o, cancel_after_first),
                             gb::CancelledError);
    QCOMPARE(reductions, 1);
    for (auto& p : m->parameters(true)) QVERIFY(!p.grad().defined());
  }

  // Taylor alone, sharded: one tensor reduction (the gradient, contiguous, as the
  // accumulators were), and rank 0's share is a probe of its own batches scaled to the whole
  // set's tokens (the other rank's gradient is taken as zero here).
  imp::ProbeSet own_set = even;
  own_set.scored_tokens = probes.batches[0].scored + probes.batches[2].scored;
  imp::UnitOptions own_options;
  own_options.fisher = false;
  const auto own = imp::unit_importance(*m, own_set, own_options);
  tensor_reductions = 0;
  bool contiguous = true;
  shard.sum_tensors = [&](std::vector<torch::Tensor>& t) {
    ++tensor_reductions;
    for (const auto& x : t) contiguous = contiguous && x.is_contiguous();
  };
  const auto sharded = imp::unit_importance(*m, probes, taylor_alone);
  QCOMPARE(tensor_reductions, 1);
  QVERIFY(contiguous);
  const double share =
      static_cast<double>(own_set.scored_tokens) / static_cast<double>(probes.scored_tokens);
  int compared = 0;
  for (size_t l = 0; l < own.taylor.size(); ++l) {
    for (size_t u = 0; u < own.taylor[l].size(); ++u) {
      if (own.numel[l][u] == 0) continue;
      const double want = own.taylor_abs[l][u] * share;
      QVERIFY2(close(sharded.taylor_abs[l][u], want, 1e-5, 1e-12),
               qPrintable(QString("layer %1 unit %2: %3 vs %4")
                              .arg(l)
                              .arg(u)
                              .arg(sharded.taylor_abs[l][u])
                              .arg(want)));
      ++compared;
    }
  }
  QVERIFY(compared >= 8);
  for (auto& p : m->parameters(true)) QVERIFY(!p.grad().defined());
}

void TestImportance::probeRoundTripsThroughJsonAndStore() {
  auto m = make_model("qwen3");
  auto probes = random_packed(*m, 3, 8, 2);
  imp::UnitOptions uo;
  uo.fisher = false;
  auto taylor = imp::unit_importance(*m, probes, uo).result("taylor");
  auto masking = imp::to_probe_result(imp::masking_importance(*m, probes));
  imp::EffectiveRankStages er;
  er.stage_names = {"step 2", "step 4"};
  er.stage_steps = {2, 4};
  er.values = {{1.5, 2.0}, {1.0, imp::kMissing}};
  auto erank = er.result();

  // JSON: the CLI shape.
  Json j = imp::probe_json(taylor);
  QCOMPARE(j["method"].get<std::string>(), std::string("taylor"));
  QCOMPARE(j["layers"].size(), size_t(2));
  QCOMPARE(j["units"]["names"].get<std::vector<std::string>>(), m->layer(0)->unit_names());
  QCOMPARE(j["units"]["values"].size(), size_t(2));
  QCOMPARE(j["units"]["values"][0].size(), m->layer(0)->unit_names().size());
  Json jm = imp::probe_json(masking);
  QCOMPARE(jm["units"], Json({{"names", Json::array()}, {"values", Json::array()}}));
  Json je = imp::probe_json(erank);
  QVERIFY(je["stages"]["values"][1][1].is_null());
  QCOMPARE(je["layers"][0].get<double>(), 2.0);
  auto back = imp::probe_from_json(j, "test");
  QCOMPARE(back.layers, taylor.layers);
  QCOMPARE(back.unit_names, taylor.unit_names);
  QCOMPARE(back.layer_mean_rank, taylor.layer_mean_rank);

  // Store: record and load back.
  QTemporaryDir dir;
  auto st = gb::store::Store::open(dir.path().toStdString() + "/runs.db");
  imp::ProbeRecord rec;
  rec.model_key = "/models/qwen3";
  rec.model_family = "qwen3";
  rec.dataset_name = "probe.txt";
  rec.dataset_path = "/data/probe.txt";
  rec.dataset_kind = "text";
  rec.dataset_hash = "abc";
  rec.probe_set = probes.description;
  rec.params = {{"seq_len", 8}};
  const int64_t id1 = imp::record_probe(st, taylor, rec);
  const int64_t id2 = imp::record_probe(st, masking, rec);
  const int64_t id3 = imp::record_probe(st, erank, rec);
  QCOMPARE(st.list_probes().size(), size_t(3));
  QCOMPARE(st.list_models().size(), size_t(1));
  auto t2 = imp::load_probe(st, id1);
  QCOMPARE(t2.method, std::string("taylor"));
  QCOMPARE(t2.layers, taylor.layers);
  QCOMPARE(t2.unit_names, taylor.unit_names);
  QCOMPARE(t2.units, taylor.units);
  QCOMPARE(t2.layer_mean_rank, taylor.layer_mean_rank);
  auto m2 = imp::load_probe(st, id2);
  QCOMPARE(m2.layers, masking.layers);
  QVERIFY(m2.unit_names.empty());
  QVERIFY(std::fabs(m2.base_loss - masking.base_loss) < 1e-12);
  auto e2 = imp::load_probe(st, id3);
  QCOMPARE(e2.stage_names, erank.stage_names);
  QCOMPARE(e2.stage_steps, erank.stage_steps);
  QCOMPARE(e2.stages[0], erank.stages[0]);
  QVERIFY(std::isnan(e2.stages[1][1]));
  // Selection from stored probes.
  imp::ImportanceResults res;
  res.add_general(m2);
  QCOMPARE(imp::select_layers({{"policy", "least-important"}, {"k", 1}}, res),
           imp::k_extreme(masking.layers, 1, false, "test"));
}

QTEST_APPLESS_MAIN(TestImportance)
#include "tst_importance.moc"
