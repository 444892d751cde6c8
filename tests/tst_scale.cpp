// SCALE width upscaling (grow/scale.h): the original stream bit-exact at initialisation and
// after training in Preserve, trainable sets of Preserve / Adapt / L_fp / attention-only /
// Route, closed-form parameter counts, the W21/W22 initialisation pairs against an
// independent SVD, Route's cosine threshold and stop-gradient router, KV-cache decoding,
// structure-only application (checkpoint loading) and the specific errors of invalid plans.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "test_util.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/scale.h"
#include "model/modules.h"
#include "test_models.h"
#include "util/error.h"
#include "util/json.h"

namespace F = torch::nn::functional;
using gb::grow::ScaleLinearImpl;

namespace {

// A Gemma 3 model with attention and final logit softcaps (no fixture has a final softcap).
gb::CausalLM load_model(const std::string& family) {
  if (family != "gemma3_softcap") return gb::test::load_family(family);
  auto j = gb::json::parse(R"({"model_type":"gemma3_text","architectures":["Gemma3ForCausalLM"],
    "vocab_size":512,"hidden_size":64,"intermediate_size":160,"num_hidden_layers":3,
    "num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,"sliding_window":8,
    "sliding_window_pattern":2,"query_pre_attn_scalar":24,"rope_local_base_freq":10000.0,
    "rope_theta":1000000.0,"max_position_embeddings":128,"rms_norm_eps":1e-6,
    "final_logit_softcapping":30.0,"attn_logit_softcapping":50.0,
    "tie_word_embeddings":true})",
                           "gemma3 softcap test config");
  torch::manual_seed(11);
  gb::CausalLM m(gb::parse_config(j, "gemma3 softcap test config"));
  gb::init_weights(*m, 0.2);
  torch::NoGradGuard ng;
  for (auto& item : m->named_parameters(true)) {
    if (item.key().find("norm") != std::string::npos) item.value().normal_(0.0, 0.1);
  }
  m->eval();
  return m;
}

std::vector<std::string> families() {
  auto f = gb::test::all_families();
  f.push_back("gemma3_softcap");
  return f;
}

// The smallest d_up SCALE accepts (one kv group of new heads), doubled when small so that
// at least two new q heads exist.
int64_t d_up_for(const gb::ModelConfig& c) {
  const int64_t group = c.head_dim * c.kv_groups();
  return group < 32 ? 2 * group : group;
}

nlohmann::json scale_plan(const gb::ModelConfig& c, const std::string& mode,
                          nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json j = {{"variant", "scale"}, {"mode", mode}, {"d_up", d_up_for(c)}, {"p_up", 32}};
  for (auto& [k, v] : extra.items()) j[k] = v;
  return j;
}

// Applies a SCALE plan through apply_plan (validation included; every family, GPT-2 with its
// learned positions widened too), and checks that the parameter groups cover exactly the
// trainable set.
gb::grow::GrowthResult grow(gb::CausalLMImpl& m, const nlohmann::json& j, uint64_t seed = 0,
                            bool structure_only = false) {
  gb::grow::ApplyContext ctx;
  ctx.seed = seed;
  ctx.structure_only = structure_only;
  auto r = gb::grow::apply_plan(m, gb::grow::parse_plan(j), ctx);
  int64_t grouped = 0;
  for (const auto& g : r.groups) {
    for (const auto& p : g.params) {
      if (!p.requires_grad()) throw gb::Error("group holds a frozen tensor: " + g.name);
      grouped += p.numel();
    }
  }
  if (grouped != r.trainable_params) throw gb::Error("groups do not cover the trainable set");
  return r;
}

using gb::test::error_of;

std::map<std::string, torch::Tensor> snapshot(const gb::CausalLMImpl& m) {
  std::map<std::string, torch::Tensor> s;
  for (const auto& [n, t] : gb::named_parameters(m)) s[n] = t.detach().clone();
  return s;
}

std::vector<torch::Tensor> group_params(const gb::grow::GrowthResult& r) {
  std::vector<torch::Tensor> ps;
  for (const auto& g : r.groups) ps.insert(ps.end(), g.params.begin(), g.params.end());
  return ps;
}

// A new key bias shifts every score of a query by the same amount, which softmax ignores:
// its gradient is zero up to rounding, so whether it moves is not a property of SCALE.
bool is_key_bias(const std::string& name) {
  return name.find("k_proj.bias_up") != std::string::npos;
}

// A few AdamW steps of next-token loss on random batches, over exactly the groups' params.
void train(gb::CausalLMImpl& m, const gb::grow::GrowthResult& r, int steps = 4) {
  torch::optim::AdamW opt(group_params(r), torch::optim::AdamWOptions(1e-2));
  m.train();
  for (int s = 0; s < steps; ++s) {
    auto ids = gb::test::random_ids(m, 2, 12, 100 + s);
    auto logits = m.forward(ids);
    auto loss =
        F::cross_entropy(logits.narrow(1, 0, ids.size(1) - 1).reshape({-1, logits.size(-1)}),
                         ids.narrow(1, 1, ids.size(1) - 1).reshape({-1}));
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  m.eval();
}

std::vector<std::string> linear_units(const gb::DecoderLayerImpl& layer) {
  std::vector<std::string> u;
  for (const auto& ref : layer.units()) {
    if (std::dynamic_pointer_cast<gb::LinearUnitImpl>(ref.module)) u.push_back(ref.name);
  }
  return u;
}

std::shared_ptr<ScaleLinearImpl> scale_unit(const gb::CausalLMImpl& m, int64_t l,
                                            const std::string& unit) {
  auto s = std::dynamic_pointer_cast<ScaleLinearImpl>(m.layer(l)->linear(unit));
  if (!s) throw gb::Error("not a SCALE unit: " + unit);
  return s;
}

bool is_attention(const std::string& u) {
  return u == "q" || u == "k" || u == "v" || u == "o";
}

// The original LM head weight W_out (V, d): lm_head.weight, or E when tied.
torch::Tensor head_weight(gb::CausalLMImpl& m) {
  auto params = gb::grow::parameter_map(m);
  auto it = params.find("lm_head.weight");
  return it != params.end() ? it->second : params.at("model.embed_tokens.weight");
}

torch::Tensor cap(const gb::ModelConfig& c, const torch::Tensor& z) {
  return c.final_softcap ? torch::tanh(z / *c.final_softcap) * *c.final_softcap : z;
}

// Logit parts computed independently of the SCALE head: Z = W_out·X, Z_up = W_out_up·X_up.
struct Logits {
  torch::Tensor z, z_up;  // (B, T, V)
};
Logits logits_of(gb::CausalLMImpl& m, const torch::Tensor& ids, bool mask_w12) {
  gb::ForwardOptions o;
  o.mask_w12 = mask_w12;
  auto h = m.hidden_states(ids, o);
  auto w = head_weight(m);
  const int64_t d = w.size(1);
  auto w_up = gb::grow::parameter_map(m).at("lm_head.weight_up");
  return {F::linear(h.narrow(-1, 0, d), w), F::linear(h.narrow(-1, d, h.size(-1) - d), w_up)};
}

torch::Tensor token_cos(const Logits& p, const Logits& a) {
  return F::cosine_similarity(p.z, a.z, F::CosineSimilarityFuncOptions().dim(-1)).detach();
}

// A Route model (l_fp = L - 1: W12 only in the last layer, as the paper's biography run)
// whose last-layer W12 blocks and W_out_up are set to random values, so that Z_a and Z_p
// and the two Z_up differ. Deterministic: the same perturbation for every call.
gb::CausalLM perturbed_route(const std::string& family, double tau) {
  auto m = load_model(family);
  const int64_t last = m->num_layers() - 1;
  grow(*m, scale_plan(m->config, "route", {{"l_fp", last}, {"tau", tau}}));
  auto gen = at::detail::createCPUGenerator(99);
  torch::NoGradGuard ng;
  for (const auto& u : linear_units(*m->layer(last))) {
    auto s = scale_unit(*m, last, u);
    s->w12.copy_(torch::randn(s->w12.sizes(), gen) * 0.3);
  }
  auto w_up = gb::grow::parameter_map(*m).at("lm_head.weight_up");
  w_up.copy_(torch::randn(w_up.sizes(), gen) * 0.3);
  return m;
}

// A threshold in the middle of the widest gap between the central per-token cosines, so
// that both routes occur and no token sits near the threshold.
double central_tau(const torch::Tensor& cos) {
  auto v = std::get<0>(cos.flatten().sort());
  const int64_t n = v.size(0);
  double best_gap = -1, tau = 0;
  for (int64_t i = n / 4; i < 3 * n / 4; ++i) {
    double lo = v[i].item<double>(), hi = v[i + 1].item<double>();
    if (hi - lo > best_gap) {
      best_gap = hi - lo;
      tau = (lo + hi) / 2;
    }
  }
  return std::clamp(tau, -1.0, 1.0);  // a valid plan value even when every cosine is 1
}

double max_abs(const torch::Tensor& t) {
  return t.numel() ? t.abs().max().item<double>() : 0;
}

}  // namespace

class TestScale : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    gb::test::quiet_logs();
  }

  void originalStreamIsBitExactAtInit_data();
  void originalStreamIsBitExactAtInit();
  void preserveTrainingLeavesOriginalStreamBitExact_data();
  void preserveTrainingLeavesOriginalStreamBitExact();
  void frozenHeadLogitsAreTheOriginalTermAlone_data();
  void frozenHeadLogitsAreTheOriginalTermAlone();
  void collaborationTrainsW12OnlyAboveLfp_data();
  void collaborationTrainsW12OnlyAboveLfp();
  void trainableCountMatchesClosedForm_data();
  void trainableCountMatchesClosedForm();
  void initPairsProduceDocumentedBlocks_data();
  void initPairsProduceDocumentedBlocks();
  void initIsDeterministicGivenSeed();
  void routeFollowsCosineThreshold_data();
  void routeFollowsCosineThreshold();
  void routeDecisionCarriesNoGradient_data() { routeFollowsCosineThreshold_data(); }
  void routeDecisionCarriesNoGradient();
  void kvCacheDecodingMatchesFullForward_data();
  void kvCacheDecodingMatchesFullForward();
  void structureOnlyRebuildsTheSameModel_data();
  void structureOnlyRebuildsTheSameModel();
  void denseWeightMatchesForward_data() { routeFollowsCosineThreshold_data(); }
  void denseWeightMatchesForward();
  void gpt2LearnedPositionsAreWidened();
  void invalidPlansGiveSpecificErrors_data();
  void invalidPlansGiveSpecificErrors();
};

// ---------------------------------------------------------------------------------------

void TestScale::originalStreamIsBitExactAtInit_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  QTest::addColumn<QString>("init");
  QTest::addColumn<int>("threads");
  for (const auto& f : families()) {
    const QString q = QString::fromStdString(f);
    for (const char* mode : {"preserve", "adapt", "route"}) {
      QTest::newRow((f + "/" + mode).c_str()) << q << mode << "svd,zero" << 1;
    }
    QTest::newRow((f + "/adapt random,random").c_str()) << q << "adapt"
                                                        << "random,random" << 1;
    // Several threads split elementwise kernels into shape-dependent chunks.
    QTest::newRow((f + "/route 4 threads").c_str()) << q << "route"
                                                    << "svd,zero" << 4;
  }
}

void TestScale::originalStreamIsBitExactAtInit() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  QFETCH(QString, init);
  QFETCH(int, threads);
  torch::set_num_threads(threads);
  struct Restore {
    ~Restore() { torch::set_num_threads(1); }
  } restore;
  auto base = load_model(family.toStdString());
  auto m = load_model(family.toStdString());
  const int64_t d = m->config.hidden_size;
  auto r = grow(*m, scale_plan(m->config, mode.toStdString(), {{"init", init.toStdString()}}));
  QVERIFY(r.function_preserving);
  QVERIFY(!gb::is_hf_expressible(*m));
  torch::NoGradGuard ng;
  // With several threads, inputs large enough for ATen to split kernels across threads.
  const int64_t batch = threads > 1 ? 4 : 2, len = threads > 1 ? 100 : 17;
  auto ids = gb::test::random_ids(*m, batch, len);
  // Plain batch, and a right-padded one (key padding mask path).
  gb::ForwardOptions padded;
  padded.key_padding = torch::ones({batch, len}, torch::kBool);
  padded.key_padding[1].narrow(0, len - 5, 5).fill_(false);
  for (const auto& o : {gb::ForwardOptions{}, padded}) {
    auto h_base = base->hidden_states(ids, o);
    auto h = m->hidden_states(ids, o);
    QCOMPARE(h.size(-1), d + d_up_for(m->config));
    QVERIFY2(torch::equal(h.narrow(-1, 0, d), h_base), "original part of the hidden state");
    QVERIFY2(max_abs(h.narrow(-1, d, h.size(-1) - d)) > 0, "the new part carries values");
    // W_out_up = 0: logits equal the base's exactly (Route: through the routed pass).
    QVERIFY2(torch::equal(m->forward(ids, o), base->forward(ids, o)), "logits");
  }
}

// ---------------------------------------------------------------------------------------

void TestScale::preserveTrainingLeavesOriginalStreamBitExact_data() {
  QTest::addColumn<QString>("family");
  for (const auto& f : families()) QTest::newRow(f.c_str()) << QString::fromStdString(f);
}

void TestScale::frozenHeadLogitsAreTheOriginalTermAlone_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  for (const auto& f : families()) {
    for (const char* mode : {"preserve", "adapt"}) {
      QTest::newRow((f + "/" + mode).c_str()) << QString::fromStdString(f) << mode;
    }
  }
}

// After training (W_out_up ≠ 0, the logits moved), FrozenHeadLogits masks the head's new term:
// the logits are cap(W_out·X) alone, for Preserve exactly the base model's logits (SCALE's
// guarantee on the original stream, read through the frozen head), for Adapt the original
// term of its (moved) stream. The head is restored afterwards; other models are left alone.
void TestScale::frozenHeadLogitsAreTheOriginalTermAlone() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  auto base = load_model(family.toStdString());
  auto m = load_model(family.toStdString());
  auto r = grow(*m, scale_plan(m->config, mode.toStdString()));
  train(*m, r);
  m->eval();
  QVERIFY(gb::grow::is_upscaled(*m));
  QVERIFY(!gb::grow::is_upscaled(*base));
  auto head = std::dynamic_pointer_cast<gb::grow::ScaleHeadImpl>(m->head());
  QVERIFY(head);
  torch::NoGradGuard ng;
  QVERIFY2(max_abs(head->weight_up) > 0, "W_out_up trained");
  auto ids = gb::test::random_ids(*m, 2, 17);
  const auto full = m->forward(ids);
  torch::Tensor frozen;
  {
    gb::grow::FrozenHeadLogits guard(*m);
    QVERIFY(guard.active());
    frozen = m->forward(ids);
  }
  QVERIFY2(torch::equal(m->forward(ids), full), "the head is restored");
  QVERIFY2(!torch::equal(frozen, full), "the new term counts in the full logits");
  if (mode == "preserve") {
    QVERIFY2(torch::equal(frozen, base->forward(ids)), "frozen logits are the base model's");
  } else {
    QVERIFY2(torch::equal(frozen, head->cap(head->parts(m->hidden_states(ids)).original)),
             "frozen logits are cap(W_out X)");
    QVERIFY2(!torch::equal(frozen, base->forward(ids)), "Adapt moved the original stream");
  }
  gb::grow::FrozenHeadLogits none(*base);
  QVERIFY(!none.active());
}

void TestScale::preserveTrainingLeavesOriginalStreamBitExact() {
  QFETCH(QString, family);
  auto base = load_model(family.toStdString());
  auto m = load_model(family.toStdString());
  const auto base_names = snapshot(*base);
  auto r = grow(*m, scale_plan(m->config, "preserve"));
  const auto before = snapshot(*m);
  train(*m, r);
  const auto after = snapshot(*m);
  QCOMPARE(after.size(), before.size());
  int changed = 0;
  for (const auto& [name, t] : after) {
    const bool original = base_names.count(name) > 0;
    if (original) {
      QVERIFY2(torch::equal(t, before.at(name)), ("original tensor moved: " + name).c_str());
      QVERIFY2(torch::equal(t, base_names.at(name)), ("differs from base: " + name).c_str());
    } else if (!is_key_bias(name)) {
      // Every new tensor trains (W21, W22, new biases and norm parts, E_up, W_out_up).
      QVERIFY2(!torch::equal(t, before.at(name)), ("new tensor did not train: " + name).c_str());
      ++changed;
    }
  }
  QVERIFY(changed > 0);
  // No W12 anywhere: the top-right block of every dense weight is still zero.
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& u : linear_units(*m->layer(l))) {
      auto s = scale_unit(*m, l, u);
      QVERIFY(!s->has_w12());
      auto dense = s->dense_weight();
      QVERIFY(
          max_abs(dense.narrow(0, 0, s->out_original()).narrow(1, s->in_original(), s->in_up())) ==
          0);
    }
  }
  torch::NoGradGuard ng;
  auto ids = gb::test::random_ids(*m, 2, 15, 77);
  const int64_t d = m->config.hidden_size;
  QVERIFY2(torch::equal(m->hidden_states(ids).narrow(-1, 0, d), base->hidden_states(ids)),
           "original part of the hidden state after training");
  // Training moved the new logits part: the model is no longer the base at the output.
  QVERIFY(!torch::equal(m->forward(ids), base->forward(ids)));
}

// ---------------------------------------------------------------------------------------

void TestScale::collaborationTrainsW12OnlyAboveLfp_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  QTest::addColumn<int>("l_fp");
  QTest::addColumn<QString>("collaboration");  // all | attention | ffn | attention_only
  for (const auto& f : families()) {
    const QString q = QString::fromStdString(f);
    QTest::newRow((f + "/adapt").c_str()) << q << "adapt" << 0 << "all";
    QTest::newRow((f + "/adapt l_fp=1").c_str()) << q << "adapt" << 1 << "all";
    QTest::newRow((f + "/adapt l_fp=1 attention").c_str()) << q << "adapt" << 1 << "attention";
    QTest::newRow((f + "/adapt l_fp=1 ffn").c_str()) << q << "adapt" << 1 << "ffn";
    QTest::newRow((f + "/route l_fp=1").c_str()) << q << "route" << 1 << "all";
    QTest::newRow((f + "/route attention_only (earlier key)").c_str())
        << q << "route" << 0 << "attention_only";
    QTest::newRow((f + "/route ffn").c_str()) << q << "route" << 0 << "ffn";
  }
}

void TestScale::collaborationTrainsW12OnlyAboveLfp() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  QFETCH(int, l_fp);
  QFETCH(QString, collaboration);
  auto base = load_model(family.toStdString());
  auto m = load_model(family.toStdString());
  const auto base_names = snapshot(*base);
  nlohmann::json extra = {{"l_fp", l_fp}};
  if (collaboration == "attention_only") {
    extra["attention_only"] = true;
  } else {
    extra["collaboration"] = collaboration.toStdString();
  }
  const std::string where_w12 =
      collaboration == "attention_only" ? "attention" : collaboration.toStdString();
  auto r = grow(*m, scale_plan(m->config, mode.toStdString(), extra));
  QCOMPARE(QString::fromStdString(r.plan.get<gb::grow::ScaleParams>().collaboration),
           QString::fromStdString(where_w12));
  const auto before = snapshot(*m);
  train(*m, r);
  const auto after = snapshot(*m);
  for (const auto& [name, t] : after) {
    if (base_names.count(name)) {
      QVERIFY2(torch::equal(t, before.at(name)), ("original tensor moved: " + name).c_str());
    } else if (!is_key_bias(name)) {
      QVERIFY2(!torch::equal(t, before.at(name)), ("new tensor did not train: " + name).c_str());
    }
  }
  int collaborating = 0;
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& u : linear_units(*m->layer(l))) {
      auto s = scale_unit(*m, l, u);
      const bool expected =
          l >= l_fp && (where_w12 == "all" || (where_w12 == "attention") == is_attention(u));
      const std::string where = "layer " + std::to_string(l) + " unit " + u;
      QVERIFY2(s->has_w12() == expected, ("W12 presence at " + where).c_str());
      auto dense = s->dense_weight();
      auto w12 = dense.narrow(0, 0, s->out_original()).narrow(1, s->in_original(), s->in_up());
      if (expected) {
        QVERIFY2(s->w12.requires_grad(), where.c_str());
        QVERIFY2(max_abs(w12) > 0, ("W12 did not train at " + where).c_str());
        ++collaborating;
      } else {
        QVERIFY2(max_abs(w12) == 0, ("W12 not zero at " + where).c_str());
      }
    }
  }
  QVERIFY(collaborating > 0);
}

// ---------------------------------------------------------------------------------------

void TestScale::trainableCountMatchesClosedForm_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  QTest::addColumn<int>("l_fp");
  QTest::addColumn<QString>("collaboration");
  QTest::addColumn<int>("p_up");
  for (const auto& f : families()) {
    const QString q = QString::fromStdString(f);
    QTest::newRow((f + "/preserve").c_str()) << q << "preserve" << 0 << "all" << 32;
    QTest::newRow((f + "/preserve p_up=0").c_str()) << q << "preserve" << 0 << "all" << 0;
    QTest::newRow((f + "/adapt").c_str()) << q << "adapt" << 0 << "all" << 32;
    QTest::newRow((f + "/adapt p_up=0").c_str()) << q << "adapt" << 0 << "all" << 0;
    QTest::newRow((f + "/route l_fp=1 attention").c_str())
        << q << "route" << 1 << "attention" << 48;
    QTest::newRow((f + "/adapt l_fp=1 ffn").c_str()) << q << "adapt" << 1 << "ffn" << 48;
    QTest::newRow((f + "/adapt l_fp=L").c_str()) << q << "adapt" << -1 << "all" << 32;
  }
}

// Closed form. Per layer, with d, d_up, p, p_up, heads H, kv heads K, head dim h, a = H·h,
// a_kv = K·h, new kv width n_kv = d_up / (H / K), b_x = 1 when the unit has a bias:
//   q:    d_up·(d + d_up) + b_qkv·d_up           W12: a·d_up
//   k, v: n_kv·(d + d_up) + b_qkv·n_kv           W12: a_kv·d_up
//   o:    d_up·(a + d_up) + b_o·d_up             W12: d·d_up
//   gate, up (each): p_up·(d + d_up) + b_mlp·p_up W12: p·d_up
//   down: d_up·(p + p_up) + b_mlp·d_up           W12: d·p_up
//   norms: d_up per hidden norm (2·d_up for LayerNorm), h per q/k norm
// plus E_up and W_out_up (V·d_up each), the final norm's new part, GPT-2's P_up
// (T_max·d_up). W12 counts in the layers l >= l_fp of adapt/route (q, k, v, o only with
// attention_only). Every added tensor trains, so added = trainable.
void TestScale::trainableCountMatchesClosedForm() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  QFETCH(int, l_fp);
  QFETCH(QString, collaboration);
  QFETCH(int, p_up);
  auto m = load_model(family.toStdString());
  const gb::ModelConfig c = m->config;
  const int64_t L = c.num_layers, lfp = l_fp < 0 ? L : l_fp;
  const int64_t d = c.hidden_size, du = d_up_for(c), p = c.intermediate_size, pu = p_up;
  const int64_t h = c.head_dim, a = c.num_heads * h, akv = c.num_kv_heads * h;
  const int64_t nkv = du / c.kv_groups();
  const int64_t norm_w = c.norm == gb::NormKind::LayerNorm ? 2 : 1;
  int64_t per_layer = du * (d + du) + 2 * nkv * (d + du) + du * (a + du) +
                      (c.gated_mlp ? 2 : 1) * pu * (d + du) + du * (p + pu);
  if (c.qkv_bias) per_layer += du + 2 * nkv;
  if (c.o_bias) per_layer += du;
  if (c.mlp_bias) per_layer += (c.gated_mlp ? 2 : 1) * pu + du;
  per_layer += (c.sandwich_norms ? 4 : 2) * norm_w * du;
  if (c.qk_norm) per_layer += 2 * h;
  const int64_t w12_attn = a * du + 2 * akv * du + d * du;
  const int64_t w12_mlp = (c.gated_mlp ? 2 : 1) * p * du + d * pu;
  int64_t expected = L * per_layer + 2 * c.vocab_size * du + norm_w * du;
  if (c.learned_positions) expected += c.max_positions * du;
  if (mode != "preserve") {
    expected += (L - lfp) * (collaboration == "attention" ? w12_attn
                             : collaboration == "ffn"     ? w12_mlp
                                                          : w12_attn + w12_mlp);
  }

  auto j = scale_plan(c, mode.toStdString(), {{"p_up", p_up}});
  if (mode != "preserve") {
    j["l_fp"] = lfp;
    j["collaboration"] = collaboration.toStdString();
  }
  auto r = grow(*m, j);
  QCOMPARE(r.trainable_params, expected);
  QCOMPARE(r.added_params(), expected);
  QCOMPARE(gb::count_parameters(*m, true), expected);
}

// ---------------------------------------------------------------------------------------

void TestScale::initPairsProduceDocumentedBlocks_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("init");
  QTest::addColumn<int>("p_up");
  for (const char* f : {"llama", "qwen2", "gemma", "gpt_neox"}) {
    for (const char* init : {"svd,zero", "zero,svd", "random,zero", "zero,random"}) {
      QTest::newRow((std::string(f) + "/" + init).c_str()) << f << init << 32;
    }
  }
  // p_up = 96 > rank 64 of up/gate (160 x 64): rows beyond the rank are He-random.
  QTest::newRow("llama/svd,svd beyond rank") << "llama"
                                             << "svd,svd" << 96;
  QTest::newRow("qwen3/svd,random beyond rank") << "qwen3"
                                                << "svd,random" << 96;
}

void TestScale::initPairsProduceDocumentedBlocks() {
  QFETCH(QString, family);
  QFETCH(QString, init);
  QFETCH(int, p_up);
  auto m = load_model(family.toStdString());
  grow(*m, scale_plan(m->config, "preserve", {{"init", init.toStdString()}, {"p_up", p_up}}));
  const std::string w21_kind = init.section(',', 0, 0).toStdString();
  const std::string w22_kind = init.section(',', 1, 1).toStdString();
  torch::NoGradGuard ng;
  // He normal: entries with mean 0 and standard deviation sqrt(2 / fan_in).
  auto check_he = [](const torch::Tensor& t, int64_t fan_in, const std::string& what) {
    QVERIFY2(t.numel() > 0, what.c_str());
    const double want = std::sqrt(2.0 / fan_in);
    const double sd = t.std().item<double>(), mean = t.mean().item<double>();
    const double tol = 4.0 / std::sqrt(2.0 * t.numel());  // ~4 standard errors
    QVERIFY2(std::fabs(sd / want - 1) < tol,
             qPrintable(QString("%1: std %2, He wants %3").arg(what.c_str()).arg(sd).arg(want)));
    QVERIFY2(std::fabs(mean) < 4 * want / std::sqrt(double(t.numel())), what.c_str());
  };
  int beyond_rank = 0;
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& u : linear_units(*m->layer(l))) {
      auto s = scale_unit(*m, l, u);
      const std::string where = "layer " + std::to_string(l) + " " + u;
      const int64_t out_up = s->out_up(), in_up = s->in_up(), in = s->in_original();
      if (out_up == 0) continue;
      // Independent singular values of W in float64.
      auto sv = torch::linalg_svdvals(s->weight.to(torch::kDouble));
      const int64_t r = sv.size(0);
      const double tol = 1e-4 * sv[0].item<double>();
      auto w21 = s->w21.to(torch::kDouble);
      if (w21_kind == "zero") {
        QVERIFY2(max_abs(w21) == 0, where.c_str());
      } else if (w21_kind == "random") {
        check_he(w21, in, where + " W21");
      } else {
        // Rows of S·Vᵀ, checked through properties that do not depend on how a float32 SVD
        // resolves close singular values (a singular vector is only defined up to
        // eps·‖W‖ / gap, and the gaps of random test weights can be tiny): row i has norm
        // s_i, the rows are orthogonal, each row's direction v satisfies WᵀW v = s_i² v, and
        // its largest-magnitude entry is positive (the documented sign convention).
        const int64_t k = std::min(out_up, r);
        auto top = w21.narrow(0, 0, k);       // (k, in)
        auto s2 = sv.narrow(0, 0, k).pow(2);  // (k)
        const double tol2 = 1e-4 * sv[0].item<double>() * sv[0].item<double>();
        auto gram = top.matmul(top.t());  // (k, k)
        QVERIFY2(max_abs(gram - torch::diag(s2)) <= tol2, (where + " W21 rows: S²").c_str());
        auto w = s->weight.to(torch::kDouble);
        auto dirs = top / sv.narrow(0, 0, k).unsqueeze(1);                   // (k, in) rows v_i
        auto resid = dirs.matmul(w.t().matmul(w)) - s2.unsqueeze(1) * dirs;  // WᵀW v − s² v
        QVERIFY2(max_abs(resid) <= tol2, (where + " W21 rows: singular directions").c_str());
        auto lead = top.gather(1, top.abs().argmax(1, true));
        QVERIFY2((lead > 0).all().item<bool>(), (where + " W21 rows: sign").c_str());
        if (out_up > r) {
          check_he(w21.narrow(0, r, out_up - r), in, where + " W21 rows beyond the rank");
          ++beyond_rank;
        }
      }
      if (in_up == 0) {
        QVERIFY(!s->w22.defined());
        continue;
      }
      auto w22 = s->w22.to(torch::kDouble);
      if (w22_kind == "zero") {
        QVERIFY2(max_abs(w22) == 0, where.c_str());
      } else if (w22_kind == "random") {
        check_he(w22, in_up, where + " W22");
      } else {
        auto want = torch::zeros({out_up, in_up}, torch::kDouble);
        const int64_t k = std::min({out_up, in_up, r});
        want.diagonal().narrow(0, 0, k).copy_(sv.narrow(0, 0, k));
        QVERIFY2(max_abs(w22 - want) <= tol, (where + " W22 = diag(S)").c_str());
      }
    }
  }
  if (p_up > m->config.hidden_size && w21_kind == "svd") QVERIFY(beyond_rank > 0);
}

void TestScale::initIsDeterministicGivenSeed() {
  auto make = [](uint64_t seed) {
    auto m = load_model("qwen2");
    grow(*m, scale_plan(m->config, "adapt", {{"init", "random,random"}}), seed);
    return snapshot(*m);
  };
  auto a = make(5), b = make(5), c = make(6);
  QCOMPARE(a.size(), b.size());
  int differ = 0;
  for (const auto& [name, t] : a) {
    QVERIFY2(torch::equal(t, b.at(name)), name.c_str());
    if (!torch::equal(t, c.at(name))) ++differ;
  }
  // E_up and every W21 / W22 are drawn from the seed.
  QVERIFY(
      !torch::equal(a.at("model.embed_tokens.weight_up"), c.at("model.embed_tokens.weight_up")));
  QVERIFY(!torch::equal(a.at("model.layers.1.self_attn.q_proj.w21"),
                        c.at("model.layers.1.self_attn.q_proj.w21")));
  QVERIFY(differ >= 2 * 7 * 2);
}

// ---------------------------------------------------------------------------------------

void TestScale::routeFollowsCosineThreshold_data() {
  QTest::addColumn<QString>("family");
  for (const auto& f : families()) QTest::newRow(f.c_str()) << QString::fromStdString(f);
}

void TestScale::routeFollowsCosineThreshold() {
  QFETCH(QString, family);
  const std::string f = family.toStdString();
  auto ids = gb::test::random_ids(*load_model(f), 2, 16, 4321);
  torch::Tensor cos;
  {
    auto probe = perturbed_route(f, 0.5);
    torch::NoGradGuard ng;
    cos = token_cos(logits_of(*probe, ids, true), logits_of(*probe, ids, false));
  }
  const double tau = central_tau(cos);
  auto m = perturbed_route(f, tau);
  torch::NoGradGuard ng;
  auto zp = logits_of(*m, ids, true);
  auto za = logits_of(*m, ids, false);
  QVERIFY2(torch::allclose(token_cos(zp, za), cos), "the constructed case is deterministic");
  auto averaged = cap(m->config, (zp.z + za.z) / 2 + zp.z_up);  // cos > tau
  auto adapt = cap(m->config, za.z + za.z_up);                  // cos <= tau
  auto out = m->forward(ids);
  int n_avg = 0, n_adapt = 0;
  for (int64_t b = 0; b < ids.size(0); ++b) {
    for (int64_t t = 0; t < ids.size(1); ++t) {
      const bool agree = cos[b][t].item<double>() > tau;
      auto want = agree ? averaged[b][t] : adapt[b][t];
      auto other = agree ? adapt[b][t] : averaged[b][t];
      const double err = max_abs(out[b][t] - want), sep = max_abs(out[b][t] - other);
      const QString where = QString("token (%1, %2) cos %3 tau %4: err %5, to the other path %6")
                                .arg(b)
                                .arg(t)
                                .arg(cos[b][t].item<double>())
                                .arg(tau)
                                .arg(err)
                                .arg(sep);
      QVERIFY2(err <= 1e-4, qPrintable(where));
      // Count the tokens whose two candidate outputs are far apart: there the match above
      // tells which path was taken.
      if (sep > 1e-2) (agree ? n_avg : n_adapt)++;
    }
  }
  QVERIFY2(n_avg > 0 && n_adapt > 0, "both routes taken, on clearly distinct outputs");
  // mask_w12 asks for the preserve path alone: Z_p + Z_up,p.
  gb::ForwardOptions masked;
  masked.mask_w12 = true;
  QVERIFY(torch::allclose(m->forward(ids, masked), cap(m->config, zp.z + zp.z_up), 1e-5, 1e-5));
}

void TestScale::routeDecisionCarriesNoGradient() {
  QFETCH(QString, family);
  const std::string f = family.toStdString();
  auto ids = gb::test::random_ids(*load_model(f), 2, 16, 4321);
  torch::Tensor cos;
  {
    auto probe = perturbed_route(f, 0.5);
    torch::NoGradGuard ng;
    cos = token_cos(logits_of(*probe, ids, true), logits_of(*probe, ids, false));
  }
  auto m = perturbed_route(f, central_tau(cos));
  const double tau = central_tau(cos);
  std::vector<std::pair<std::string, torch::Tensor>> trainable;
  for (const auto& [n, t] : gb::named_parameters(*m)) {
    if (t.requires_grad()) trainable.emplace_back(n, t);
  }
  auto weights = torch::randn({ids.size(0), ids.size(1), m->config.vocab_size},
                              at::detail::createCPUGenerator(5));
  auto grads = [&](const std::function<torch::Tensor()>& logits) {
    for (auto& [n, t] : trainable) t.mutable_grad() = torch::Tensor();
    (logits() * weights).sum().backward();
    std::map<std::string, torch::Tensor> g;
    for (auto& [n, t] : trainable) {
      g[n] = t.grad().defined() ? t.grad().clone() : torch::zeros_like(t);
    }
    return g;
  };
  auto routed = grads([&] { return m->forward(ids); });
  // Manual: the same formula with the decision as a constant mask.
  auto manual = grads([&] {
    auto zp = logits_of(*m, ids, true);
    auto za = logits_of(*m, ids, false);
    auto keep = (cos > tau).unsqueeze(-1);
    return cap(m->config, torch::where(keep, (zp.z + za.z) / 2 + zp.z_up, za.z + za.z_up));
  });
  double w12_grad = 0;
  for (auto& [n, g] : routed) {
    const double scale = std::max(1.0, max_abs(manual.at(n)));
    QVERIFY2(
        max_abs(g - manual.at(n)) <= 1e-4 * scale,
        qPrintable(
            QString("%1: |routed - manual| = %2").arg(n.c_str()).arg(max_abs(g - manual.at(n)))));
    if (n.find(".w12") != std::string::npos) w12_grad = std::max(w12_grad, max_abs(g));
  }
  QVERIFY2(w12_grad > 0, "W12 receives gradient through Z_a");
}

// ---------------------------------------------------------------------------------------

void TestScale::kvCacheDecodingMatchesFullForward_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  for (const auto& f : families()) {
    QTest::newRow((f + "/preserve").c_str()) << QString::fromStdString(f) << "preserve";
    QTest::newRow((f + "/route").c_str()) << QString::fromStdString(f) << "route";
  }
}

void TestScale::kvCacheDecodingMatchesFullForward() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  const std::string f = family.toStdString();
  auto ids = gb::test::random_ids(*load_model(f), 1, 12, 55);
  gb::CausalLM m{nullptr};
  if (mode == "route") {
    torch::Tensor cos;
    {
      auto probe = perturbed_route(f, 0.5);
      torch::NoGradGuard ng;
      cos = token_cos(logits_of(*probe, ids, true), logits_of(*probe, ids, false));
    }
    m = perturbed_route(f, central_tau(cos));
  } else {
    m = load_model(f);
    grow(*m, scale_plan(m->config, "preserve", {{"init", "random,random"}}));
    torch::NoGradGuard ng;
    auto w_up = gb::grow::parameter_map(*m).at("lm_head.weight_up");
    w_up.copy_(torch::randn(w_up.sizes(), at::detail::createCPUGenerator(3)) * 0.3);
  }
  torch::NoGradGuard ng;
  auto full = m->forward(ids);
  gb::KVCache cache;
  gb::ForwardOptions o;
  o.cache = &cache;
  auto first = m->forward(ids.narrow(1, 0, 5), o);
  QVERIFY(torch::allclose(first, full.narrow(1, 0, 5), 1e-4, 1e-4));
  for (int64_t t = 5; t < ids.size(1); ++t) {
    auto step = m->forward(ids.narrow(1, t, 1), o);
    const double diff = max_abs(step.squeeze(1) - full.select(1, t));
    QVERIFY2(diff <= 1e-4, qPrintable(QString("position %1: diff %2").arg(t).arg(diff)));
  }
}

// ---------------------------------------------------------------------------------------

void TestScale::structureOnlyRebuildsTheSameModel_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("mode");
  for (const auto& f : families()) {
    QTest::newRow((f + "/route").c_str()) << QString::fromStdString(f) << "route";
    QTest::newRow((f + "/preserve").c_str()) << QString::fromStdString(f) << "preserve";
  }
}

void TestScale::structureOnlyRebuildsTheSameModel() {
  QFETCH(QString, family);
  QFETCH(QString, mode);
  const std::string f = family.toStdString();
  auto a = load_model(f);
  auto plan = scale_plan(a->config, mode.toStdString(), {{"init", "svd,random"}});
  auto ra = grow(*a, plan, 3);
  {
    // Trained-like values everywhere, so that a copy that misses a tensor shows.
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(8);
    for (auto& t : group_params(ra)) t.add_(torch::randn(t.sizes(), gen) * 0.05);
  }
  auto b = load_model(f);
  auto rb = grow(*b, plan, 3, /*structure_only=*/true);
  auto pa = gb::named_parameters(*a), pb = gb::named_parameters(*b);
  QCOMPARE(pb.size(), pa.size());
  QCOMPARE(rb.trainable_params, ra.trainable_params);
  torch::NoGradGuard ng;
  for (size_t i = 0; i < pa.size(); ++i) {
    QCOMPARE(QString::fromStdString(pb[i].first), QString::fromStdString(pa[i].first));
    QVERIFY2(pb[i].second.sizes() == pa[i].second.sizes(), pa[i].first.c_str());
    QCOMPARE(pb[i].second.requires_grad(), pa[i].second.requires_grad());
  }
  // Structure only: no values were computed (W21 = svd and E_up stay zero).
  QCOMPARE(max_abs(scale_unit(*b, 0, "q")->w21), 0.0);
  QCOMPARE(max_abs(gb::grow::parameter_map(*b).at("model.embed_tokens.weight_up")), 0.0);
  for (size_t i = 0; i < pa.size(); ++i) pb[i].second.copy_(pa[i].second);
  auto ids = gb::test::random_ids(*a, 2, 13);
  QVERIFY(torch::equal(b->forward(ids), a->forward(ids)));
  QCOMPARE(static_cast<bool>(b->forward_override), mode == "route");
}

// ---------------------------------------------------------------------------------------

void TestScale::denseWeightMatchesForward() {
  QFETCH(QString, family);
  auto m = load_model(family.toStdString());
  grow(*m, scale_plan(m->config, "adapt", {{"init", "random,random"}}));
  torch::NoGradGuard ng;
  auto gen = at::detail::createCPUGenerator(21);
  for (int64_t l = 0; l < m->num_layers(); ++l) {
    for (const auto& u : linear_units(*m->layer(l))) {
      auto s = scale_unit(*m, l, u);
      s->w12.copy_(torch::randn(s->w12.sizes(), gen) * 0.1);
      if (s->bias_up.defined()) s->bias_up.copy_(torch::randn(s->bias_up.sizes(), gen));
      auto x = torch::randn({2, 3, s->in_features()}, gen);
      gb::ForwardState state;
      auto want = F::linear(x, s->dense_weight(), s->dense_bias());
      QVERIFY2(torch::allclose(s->forward(x, state), want, 1e-5, 1e-5), u.c_str());
      // mask_w12: as if the W12 block were zero.
      state.mask_w12 = true;
      auto w = s->dense_weight();
      w.narrow(0, 0, s->out_original()).narrow(1, s->in_original(), s->in_up()).zero_();
      QVERIFY2(torch::allclose(s->forward(x, state), F::linear(x, w, s->dense_bias()), 1e-5, 1e-5),
               u.c_str());
      QCOMPARE(s->dense_weight().size(0), s->out_features());
    }
  }
}

// ---------------------------------------------------------------------------------------

// GPT-2 (learned absolute positions) through the normal path: validate_plan accepts it, the
// position embedding gains d_up trainable columns (P_up, initialised like E_up), and the
// logits equal the base model's (W_out_up = 0) within 1e-5 of their scale.
void TestScale::gpt2LearnedPositionsAreWidened() {
  auto base = load_model("gpt2");
  auto m = load_model("gpt2");
  const auto plan = gb::grow::parse_plan(scale_plan(m->config, "adapt"));
  gb::grow::validate_plan(plan, m->config);  // refused before
  const int64_t d_up = d_up_for(m->config);
  auto r = gb::grow::apply_plan(*m, plan);
  torch::Tensor p_up;
  for (const auto& [n, t] : gb::named_parameters(*m)) {
    if (n.find("embed_positions") != std::string::npos &&
        n.find("weight_up") != std::string::npos) {
      p_up = t;
    }
  }
  QVERIFY2(p_up.defined(), "no widened position embedding");
  QCOMPARE(p_up.size(0), m->config.max_positions);
  QCOMPARE(p_up.size(1), d_up);
  QVERIFY(p_up.requires_grad());
  bool grouped = false;
  for (const auto& g : r.groups) {
    for (const auto& t : g.params) grouped |= t.is_same(p_up);
  }
  QVERIFY(grouped);
  torch::NoGradGuard ng;
  auto ids = gb::test::random_ids(*m, 2, 19);
  const auto want = base->forward(ids), got = m->forward(ids);
  const double diff = (got - want).abs().max().item<double>();
  QVERIFY2(diff <= 1e-5 * std::max(1.0, want.abs().max().item<double>()),
           qPrintable(QString("max |logit diff| %1").arg(diff)));
}

void TestScale::invalidPlansGiveSpecificErrors_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("expected");
  QTest::newRow("d_up not whole kv groups (GQA)")
      << "qwen2"
      << R"({"variant":"scale","d_up":16})"
      << "'d_up' = 16 must be a multiple of head_dim x (heads / kv heads) = 16 x 2 = 32";
  QTest::newRow("d_up not whole kv groups (MQA)")
      << "gemma"
      << R"({"variant":"scale","d_up":64})"
      << "= 32 x 4 = 128, so that whole kv groups of heads are added";
  QTest::newRow("d_up not whole heads") << "llama"
                                        << R"({"variant":"scale","d_up":24})"
                                        << "'d_up' = 24 must be a multiple of head_dim";
  QTest::newRow("l_fp beyond the layers")
      << "llama"
      << R"({"variant":"scale","mode":"adapt","d_up":16,"l_fp":3})"
      << "'l_fp' = 3 exceeds the number of layers (2)";
  QTest::newRow("l_fp with preserve")
      << "llama"
      << R"({"variant":"scale","mode":"preserve","d_up":16,"l_fp":1})"
      << "'l_fp' applies to adapt and route";
  QTest::newRow("init without a comma") << "llama"
                                        << R"({"variant":"scale","d_up":16,"init":"svd"})"
                                        << "'init' must be \"W21,W22\"";
  QTest::newRow("unknown init") << "llama"
                                << R"({"variant":"scale","d_up":16,"init":"svd,he"})"
                                << "'init' part 'he' must be zero, random or svd";
  QTest::newRow("applied twice") << "llama"
                                 << "twice"
                                 << "is not a plain embedding (SCALE or another variant replaced";
}

void TestScale::invalidPlansGiveSpecificErrors() {
  QFETCH(QString, family);
  QFETCH(QString, plan);
  QFETCH(QString, expected);
  auto m = load_model(family.toStdString());
  std::string msg;
  if (plan == "twice") {
    auto j = scale_plan(m->config, "preserve");
    gb::grow::apply_plan(*m, gb::grow::parse_plan(j));
    msg = error_of([&] { gb::grow::apply_plan(*m, gb::grow::parse_plan(j)); });
  } else {
    msg = error_of([&] {
      gb::grow::apply_plan(*m, gb::grow::parse_plan(gb::json::parse(plan.toStdString(), "plan")));
    });
  }
  QVERIFY2(msg.find(expected.toStdString()) != std::string::npos,
           qPrintable("got: " + QString::fromStdString(msg)));
}

QTEST_APPLESS_MAIN(TestScale)
#include "tst_scale.moc"
