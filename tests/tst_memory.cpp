// The trainer's memory savers (issue 38): the chunked cross-entropy and activation
// checkpointing give the plain path's loss and gradients (within float32 rounding, or bit
// for bit where the arithmetic is the same), the default leaves the tiny preset's training
// bit for bit as it was, and the spec keys parse and check. The frozen base kept in bf16
// computes what a float32 model holding the same (rounded) weights computes.
#include <QtTest>

#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "data/packing.h"
#include "data/torch_batch.h"
#include "experiment/estimate.h"
#include "experiment/preset.h"
#include "experiment/spec.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/split_linear.h"
#include "model/config.h"
#include "model/frozen_dtype.h"
#include "model/modules.h"
#include "model/runtime.h"
#include "model/tensor_io.h"
#include "train/chunked_ce.h"
#include "train/trainer.h"

namespace ex = gb::experiment;
using Json = nlohmann::json;

namespace {

// max |a − b| / max(max |b|, tiny): the difference relative to the reference's scale.
double rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-30);
  return (a - b).abs().max().item<double>() / scale;
}

gb::ModelConfig tiny_config(int64_t vocab = 512) {
  return gb::parse_config(ex::tiny_llama_config(vocab, Json::object()), "tiny preset");
}

// A fresh tiny-preset model (the same weights for the same seed) with `plan` applied.
std::pair<gb::CausalLM, gb::grow::GrowthResult> tiny_model(const Json& plan, uint64_t seed = 3,
                                                           int64_t vocab = 512) {
  torch::manual_seed(seed);
  gb::CausalLM m(tiny_config(vocab));
  gb::init_weights(*m, 0.02);
  auto g = gb::grow::apply_plan(*m, gb::grow::parse_plan(plan));
  if (plan.value("variant", "") == "lora") {
    // LoRA's B starts at zero: random values so that every adapter has a gradient path.
    torch::NoGradGuard ng;
    for (auto& item : m->named_parameters(true)) {
      if (item.key().find("lora_B") != std::string::npos) item.value().normal_(0.0, 0.02);
    }
  }
  return {m, g};
}

gb::data::Batch random_batch(int64_t rows, int64_t len, int64_t vocab, uint64_t seed,
                             bool masked = false) {
  gb::data::Batch b;
  b.rows = rows;
  b.seq_len = len;
  b.tokens.resize(static_cast<size_t>(rows * (len + 1)));
  uint64_t x = seed;
  for (auto& t : b.tokens) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t = static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(vocab));
  }
  if (masked) {
    // The first third of every row is a prompt (no loss).
    b.loss_mask.assign(b.tokens.size(), 1);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < (len + 1) / 3; ++i)
        b.loss_mask[static_cast<size_t>(r * (len + 1) + i)] = 0;
    }
  }
  return b;
}

std::vector<torch::Tensor> trainable(const gb::CausalLM& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m->parameters(true)) {
    if (p.requires_grad()) out.push_back(p);
  }
  return out;
}

// Loss and gradients of the trainable tensors for one batch: the plain path (logits and
// trainer's lm_loss) or the chunked one, with or without checkpointing.
std::pair<torch::Tensor, std::vector<torch::Tensor>> loss_and_grads(gb::CausalLM& m,
                                                                    const gb::data::Batch& batch,
                                                                    int64_t chunk,
                                                                    bool checkpoint) {
  const auto bt = gb::data::to_tensors(batch, torch::kCPU);
  gb::ForwardOptions fo;
  fo.checkpoint_layers = checkpoint;
  torch::Tensor loss;
  if (chunk > 0) {
    auto h = m->hidden_states(bt.inputs, fo);
    auto* tied = dynamic_cast<gb::TiedHeadImpl*>(m->head().get());
    torch::Tensor w = tied ? tied->embedding.lock()->tied_weight()
                           : dynamic_cast<gb::LinearHeadImpl*>(m->head().get())->weight;
    loss = gb::train::chunked_cross_entropy_sum(h.reshape({-1, h.size(-1)}), w, bt.labels, chunk) /
           static_cast<double>(bt.targets);
  } else {
    loss = gb::train::lm_loss(m->logits_from_hidden(m->hidden_states(bt.inputs, fo)), bt.labels);
  }
  auto params = trainable(m);
  auto grads = torch::autograd::grad({loss}, params, {}, false, false, true);
  return {loss.detach(), grads};
}

}  // namespace

class TestMemory : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { torch::set_num_threads(1); }
  void chunkedCrossEntropyEqualsPlain_data();
  void chunkedCrossEntropyEqualsPlain();
  void chunkedLossOfTheModelEqualsPlain_data();
  void chunkedLossOfTheModelEqualsPlain();
  void chunkedGradientsAreFormedInTheForwardPass();
  void chunkedLossOfANarrowHead();
  void checkpointingEqualsPlain_data();
  void checkpointingEqualsPlain();
  void trainerOptionsMatchThePlainStep();
  void defaultIsBitForBitOnTheTinyPreset();
  void checkpointingRefusesAuxiliaryLosses();
  void autoChunksOnlyLargeLogits();
  void specKeys();
  void estimateShrinks();
  void frozenBaseInBf16_data();
  void frozenBaseInBf16();
  void frozenDtypeFollowsTheCheckpoint();
  void splitUnitsWithANarrowFrozenHalf();
};

void TestMemory::chunkedCrossEntropyEqualsPlain_data() {
  QTest::addColumn<int>("chunk");
  QTest::addColumn<double>("softcap");
  for (int chunk : {1, 7, 37, 100}) {
    for (double cap : {0.0, 5.0}) {
      QTest::newRow(QString("chunk %1, softcap %2").arg(chunk).arg(cap).toUtf8()) << chunk << cap;
    }
  }
}

// Against cross_entropy(sum) of cap(h Wᵀ) with ignored labels: the loss and dh, dW.
void TestMemory::chunkedCrossEntropyEqualsPlain() {
  QFETCH(int, chunk);
  QFETCH(double, softcap);
  torch::manual_seed(11);
  const int64_t n = 37, d = 16, v = 53;
  auto h0 = torch::randn({n, d});
  auto w0 = torch::randn({v, d}) * 0.5;
  auto labels = torch::randint(0, v, {n}, torch::kLong);
  labels.index_put_({torch::tensor({0, 5, 6, 30})}, -100);
  auto h1 = h0.clone().requires_grad_(true), w1 = w0.clone().requires_grad_(true);
  auto z = torch::matmul(h1, w1.t());
  if (softcap > 0) z = torch::tanh(z / softcap) * softcap;
  auto plain = torch::nn::functional::cross_entropy(
      z, labels,
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kSum));
  auto g1 = torch::autograd::grad({plain * 0.37}, {h1, w1});
  auto h2 = h0.clone().requires_grad_(true), w2 = w0.clone().requires_grad_(true);
  auto chunked = gb::train::chunked_cross_entropy_sum(
      h2, w2, labels, chunk, softcap > 0 ? std::optional<double>(softcap) : std::nullopt);
  auto g2 = torch::autograd::grad({chunked * 0.37}, {h2, w2});
  QVERIFY2(rel_diff(chunked, plain) < 1e-6, qPrintable(QString::number(rel_diff(chunked, plain))));
  QVERIFY2(rel_diff(g2[0], g1[0]) < 1e-5, qPrintable(QString::number(rel_diff(g2[0], g1[0]))));
  QVERIFY2(rel_diff(g2[1], g1[1]) < 1e-5, qPrintable(QString::number(rel_diff(g2[1], g1[1]))));
  // Ignored rows get no gradient.
  QCOMPARE(g2[0][0].abs().max().item<double>(), 0.0);
  // A frozen head: no dW is computed, dh is the same.
  auto h3 = h0.clone().requires_grad_(true);
  auto g3 = torch::autograd::grad(
      {gb::train::chunked_cross_entropy_sum(
           h3, w0, labels, chunk, softcap > 0 ? std::optional<double>(softcap) : std::nullopt) *
       0.37},
      {h3});
  QVERIFY(torch::equal(g3[0], g2[0]));
}

// The chunked loss forms its gradients while it computes the logits (no second product in
// the backward pass): changing h and W after the forward pass (through .data(), which
// autograd does not see) leaves the gradients those of the forward pass's values, where a
// recomputation would see the changed ones. Without grad mode no gradient is formed, and a
// second backward pass through the same loss is refused with a clear error.
void TestMemory::chunkedGradientsAreFormedInTheForwardPass() {
  torch::manual_seed(12);
  const int64_t n = 29, d = 8, v = 41;
  auto h0 = torch::randn({n, d});
  auto w0 = torch::randn({v, d}) * 0.5;
  auto labels = torch::randint(0, v, {n}, torch::kLong);
  auto h1 = h0.clone().requires_grad_(true), w1 = w0.clone().requires_grad_(true);
  auto g1 = torch::autograd::grad({gb::train::chunked_cross_entropy_sum(h1, w1, labels, 6) * 0.5},
                                  {h1, w1});
  auto h2 = h0.clone().requires_grad_(true), w2 = w0.clone().requires_grad_(true);
  auto sum = gb::train::chunked_cross_entropy_sum(h2, w2, labels, 6);
  auto loss = sum * 0.5;
  h2.data().mul_(3.0);
  w2.data().add_(1.0);
  auto g2 = torch::autograd::grad({loss}, {h2, w2}, {}, /*retain_graph=*/true);
  QVERIFY(torch::equal(g2[0], g1[0]));
  QVERIFY(torch::equal(g2[1], g1[1]));
  bool refused = false;
  try {
    torch::autograd::grad({loss}, {h2, w2});
  } catch (const std::exception& e) {
    refused = QString(e.what()).contains("second backward pass");
  }
  QVERIFY(refused);
  // No second derivatives: refused rather than silently zero.
  auto h4 = h0.clone().requires_grad_(true);
  refused = false;
  try {
    torch::autograd::grad({gb::train::chunked_cross_entropy_sum(h4, w0, labels, 6)}, {h4}, {},
                          /*retain_graph=*/true, /*create_graph=*/true);
  } catch (const std::exception& e) {
    refused = QString(e.what()).contains("create_graph");
  }
  QVERIFY(refused);
  // bf16 hidden states (a run with dtype bfloat16): the logits in bf16 as the plain path forms
  // them, the gradients in float32 until they are converted last.
  auto hb = h0.to(torch::kBFloat16).requires_grad_(true);
  auto wb = w0.to(torch::kBFloat16).requires_grad_(true);
  auto gb16 = torch::autograd::grad(
      {gb::train::chunked_cross_entropy_sum(hb, wb, labels, 6) * 0.37}, {hb, wb});
  QCOMPARE(gb16[0].scalar_type(), torch::kBFloat16);
  QCOMPARE(gb16[1].scalar_type(), torch::kBFloat16);
  auto g5 = torch::autograd::grad({gb::train::chunked_cross_entropy_sum(h1, w1, labels, 6) * 0.37},
                                  {h1, w1});
  QVERIFY2(rel_diff(gb16[0].to(torch::kFloat), g5[0]) < 3e-2,
           qPrintable(QString::number(rel_diff(gb16[0].to(torch::kFloat), g5[0]))));
  QVERIFY2(rel_diff(gb16[1].to(torch::kFloat), g5[1]) < 3e-2,
           qPrintable(QString::number(rel_diff(gb16[1].to(torch::kFloat), g5[1]))));
  torch::NoGradGuard no_grad;
  auto plain = gb::train::chunked_cross_entropy_sum(h1, w1, labels, 6);
  QVERIFY(!plain.requires_grad());
  QVERIFY(torch::equal(plain, sum.detach()));  // the same arithmetic for the loss either way
}

// A frozen head stored in bf16 (model/frozen_dtype.h), wider than two conversion blocks:
// the chunked loss and dh against the plain path on the head's float32 values, for chunks of
// one row, of several and of all rows; a trainable bf16 head gets its dW in bf16.
void TestMemory::chunkedLossOfANarrowHead() {
  torch::manual_seed(13);
  const int64_t n = 23, d = 5, v = 2 * gb::kMixedBlockRows + 37;
  auto h0 = torch::randn({n, d});
  auto wb = (torch::randn({v, d}) * 0.5).to(torch::kBFloat16);
  auto labels = torch::randint(0, v, {n}, torch::kLong);
  labels.index_put_({torch::tensor({2, 9})}, -100);
  auto h1 = h0.clone().requires_grad_(true), w1 = wb.to(torch::kFloat).requires_grad_(true);
  auto plain = torch::nn::functional::cross_entropy(
      torch::matmul(h1, w1.t()), labels,
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kSum));
  auto g1 = torch::autograd::grad({plain * 0.25}, {h1, w1});
  for (int64_t chunk : {1, 6, 23}) {
    auto h2 = h0.clone().requires_grad_(true);
    auto loss = gb::train::chunked_cross_entropy_sum(h2, wb, labels, chunk);
    auto g2 = torch::autograd::grad({loss * 0.25}, {h2});
    QVERIFY2(rel_diff(loss, plain) < 1e-6, qPrintable(QString::number(rel_diff(loss, plain))));
    QVERIFY2(rel_diff(g2[0], g1[0]) < 1e-5, qPrintable(QString::number(rel_diff(g2[0], g1[0]))));
    auto h3 = h0.clone().requires_grad_(true), w3 = wb.clone().requires_grad_(true);
    auto g3 = torch::autograd::grad(
        {gb::train::chunked_cross_entropy_sum(h3, w3, labels, chunk) * 0.25}, {h3, w3});
    QCOMPARE(g3[1].scalar_type(), torch::kBFloat16);
    QVERIFY(torch::equal(g3[0], g2[0]));
    QVERIFY2(rel_diff(g3[1].to(torch::kFloat), g1[1]) < 1e-2,
             qPrintable(QString::number(rel_diff(g3[1].to(torch::kFloat), g1[1]))));
  }
}

void TestMemory::chunkedLossOfTheModelEqualsPlain_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<bool>("masked");
  QTest::newRow("full") << R"({"variant": "full"})" << false;
  QTest::newRow("full, prompt masked") << R"({"variant": "full"})" << true;
  QTest::newRow("LoRA") << R"({"variant": "lora", "rank": 4})" << false;
}

// The tiny preset (tied head: the embedding takes both gradients), chunks of 5 tokens of
// 2 × 32: the loss and every trainable gradient within float32 rounding of the plain path.
void TestMemory::chunkedLossOfTheModelEqualsPlain() {
  QFETCH(QString, plan);
  QFETCH(bool, masked);
  auto [m, g] = tiny_model(Json::parse(plan.toStdString()));
  const auto batch = random_batch(2, 32, 512, 99, masked);
  auto [l0, g0] = loss_and_grads(m, batch, 0, false);
  auto [l1, g1] = loss_and_grads(m, batch, 5, false);
  QVERIFY2(rel_diff(l1, l0) < 1e-6, qPrintable(QString::number(rel_diff(l1, l0))));
  QCOMPARE(g0.size(), g1.size());
  double worst = 0;
  for (size_t i = 0; i < g0.size(); ++i) {
    QVERIFY(g0[i].defined() && g1[i].defined());
    worst = std::max(worst, rel_diff(g1[i], g0[i]));
  }
  qInfo("chunked vs plain: loss %.3g, worst gradient %.3g (relative to scale)", rel_diff(l1, l0),
        worst);
  QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
}

void TestMemory::checkpointingEqualsPlain_data() {
  QTest::addColumn<QString>("plan");
  QTest::newRow("full") << R"({"variant": "full"})";
  QTest::newRow("LoRA") << R"({"variant": "lora", "rank": 4})";
  QTest::newRow("LoRA on every linear")
      << R"({"variant": "lora", "rank": 4, "targets": ["q", "k", "v", "o", "gate", "up", "down"]})";
  QTest::newRow("freeze bottom 2") << R"({"variant": "freeze", "bottom": 2})";
}

// The recomputed layers do the same arithmetic as the plain pass: the loss and the gradients
// are equal bit for bit (plain cross-entropy and chunked alike).
void TestMemory::checkpointingEqualsPlain() {
  QFETCH(QString, plan);
  auto [m, g] = tiny_model(Json::parse(plan.toStdString()));
  const auto batch = random_batch(2, 32, 512, 7);
  for (int64_t chunk : {0, 9}) {
    auto [l0, g0] = loss_and_grads(m, batch, chunk, false);
    auto [l1, g1] = loss_and_grads(m, batch, chunk, true);
    QVERIFY(torch::equal(l0, l1));
    QCOMPARE(g0.size(), g1.size());
    for (size_t i = 0; i < g0.size(); ++i) {
      QVERIFY(g0[i].defined() == g1[i].defined());
      if (!g0[i].defined()) continue;
      QVERIFY2(torch::equal(g0[i], g1[i]),
               qPrintable(QString("tensor %1: %2").arg(i).arg(rel_diff(g1[i], g0[i]))));
    }
  }
  // Without gradients (evaluation) the option changes nothing.
  torch::NoGradGuard ng;
  const auto bt = gb::data::to_tensors(batch, torch::kCPU);
  gb::ForwardOptions fo;
  fo.checkpoint_layers = true;
  QVERIFY(torch::equal(m->forward(bt.inputs, fo), m->forward(bt.inputs)));
}

// Three trainer steps: checkpointing gives the same parameters bit for bit; an explicit
// chunk the same losses within float32 rounding.
void TestMemory::trainerOptionsMatchThePlainStep() {
  for (const char* plan : {R"({"variant": "full"})", R"({"variant": "lora", "rank": 4})"}) {
    std::vector<std::vector<torch::Tensor>> params;
    std::vector<std::vector<double>> losses;
    for (int variant = 0; variant < 3; ++variant) {
      auto [m, g] = tiny_model(Json::parse(plan));
      gb::train::TrainOptions to;
      to.adamw.lr = 1e-3;
      to.schedule.kind = "constant";
      to.ce_chunk = variant == 2 ? 11 : 0;
      to.checkpointing = variant == 1;
      gb::train::Trainer trainer(m, g, to, torch::kCPU);
      std::vector<double> l;
      for (int s = 0; s < 3; ++s)
        l.push_back(trainer.step({random_batch(4, 24, 512, 100 + s)}).loss);
      losses.push_back(l);
      std::vector<torch::Tensor> p;
      for (const auto& t : trainable(m)) p.push_back(t.detach().clone());
      params.push_back(p);
    }
    for (size_t i = 0; i < params[0].size(); ++i) QVERIFY(torch::equal(params[0][i], params[1][i]));
    QVERIFY(losses[0] == losses[1]);
    for (size_t s = 0; s < losses[0].size(); ++s) {
      QVERIFY2(
          std::fabs(losses[2][s] - losses[0][s]) <= 1e-5 * std::fabs(losses[0][s]),
          qPrintable(
              QString("%1 vs %2").arg(losses[2][s], 0, 'g', 10).arg(losses[0][s], 0, 'g', 10)));
    }
  }
}

// The default options (ce_chunk auto, no checkpointing) on the tiny preset's vocabulary
// (4096) at the quickstart's batch: the plain path, bit for bit.
void TestMemory::defaultIsBitForBitOnTheTinyPreset() {
  std::vector<std::vector<torch::Tensor>> params;
  std::vector<std::vector<double>> losses;
  for (int variant = 0; variant < 2; ++variant) {
    auto [m, g] = tiny_model(Json{{"variant", "full"}}, 5, 4096);
    gb::train::TrainOptions to;
    to.schedule.kind = "constant";
    if (variant == 1) to.ce_chunk = 0;  // explicitly plain; variant 0 keeps the default
    gb::train::Trainer trainer(m, g, to, torch::kCPU);
    std::vector<double> l;
    for (int s = 0; s < 2; ++s)
      l.push_back(trainer.step({random_batch(8, 128, 4096, 50 + s)}).loss);
    losses.push_back(l);
    std::vector<torch::Tensor> p;
    for (const auto& t : trainable(m)) p.push_back(t.detach().clone());
    params.push_back(p);
  }
  QVERIFY(losses[0] == losses[1]);
  for (size_t i = 0; i < params[0].size(); ++i) QVERIFY(torch::equal(params[0][i], params[1][i]));
  QCOMPARE(gb::train::ce_chunk_tokens(-1, 8 * 128, 4096), int64_t(0));
}

// A layer that adds an auxiliary loss during its forward pass (a mixture of LoRA experts'
// load balance) cannot be recomputed: the step fails, naming the term and the option.
void TestMemory::checkpointingRefusesAuxiliaryLosses() {
  auto [m, g] = tiny_model(
      Json{{"variant", "loramoe"}, {"experts", 2}, {"top_k", 1}, {"rank", 2}, {"balance", 0.01}});
  {
    auto [m0, g0] = tiny_model(
        Json{{"variant", "loramoe"}, {"experts", 2}, {"top_k", 1}, {"rank", 2}, {"balance", 0.01}});
    gb::train::Trainer plain(m0, g0, gb::train::TrainOptions{}, torch::kCPU);
    const auto st = plain.step({random_batch(2, 16, 512, 1)});
    QVERIFY2(st.terms.count("balance"), "the plan adds no balance term");
  }
  gb::train::TrainOptions to;
  to.checkpointing = true;
  gb::train::Trainer trainer(m, g, to, torch::kCPU);
  std::string err;
  try {
    trainer.step({random_batch(2, 16, 512, 1)});
  } catch (const std::exception& e) {
    err = e.what();
  }
  QVERIFY2(
      err.find("checkpointing") != std::string::npos && err.find("balance") != std::string::npos,
      ("error: '" + err + "'").c_str());
  // A caller that collects no auxiliary terms (a gradient probe with probe.checkpointing)
  // has the layers add none, checkpointed or not: no refusal, the same logits, and the
  // backward pass reaches the experts.
  const auto bt = gb::data::to_tensors(random_batch(2, 16, 512, 1), torch::kCPU);
  gb::ForwardOptions fo;
  const torch::Tensor plain = m->forward(bt.inputs, fo);
  fo.checkpoint_layers = true;
  const torch::Tensor ckpt = m->forward(bt.inputs, fo);
  QVERIFY(torch::equal(plain, ckpt));
  ckpt.square().mean().backward();
  int64_t with_grad = 0;
  for (const auto& t : trainable(m)) with_grad += t.grad().defined() ? 1 : 0;
  QVERIFY(with_grad > 0);
}

void TestMemory::autoChunksOnlyLargeLogits() {
  // Qwen3's vocabulary at 4 × 256 tokens: 594 MiB of float32 logits, chunked.
  const int64_t c = gb::train::ce_chunk_tokens(-1, 1024, 151936);
  QVERIFY(c > 0 && c * 151936 * 4 <= gb::train::kCeChunkAutoChunkBytes);
  QCOMPARE(gb::train::ce_chunk_tokens(0, 1024, 151936), int64_t(0));
  QCOMPARE(gb::train::ce_chunk_tokens(64, 1024, 151936), int64_t(64));
  QCOMPARE(gb::train::ce_chunk_tokens(4096, 1024, 512), int64_t(1024));
  // A 32k vocabulary at 4 × 256 (125 MiB): not chunked.
  QCOMPARE(gb::train::ce_chunk_tokens(-1, 1024, 32000), int64_t(0));
}

void TestMemory::specKeys() {
  Json j = {{"model", "models/tiny"}, {"data", {{"new", {{"train", "de.txt"}}}}}};
  ex::ExperimentSpec s = ex::parse_spec(j, "/base", "spec");
  QCOMPARE(s.train.ce_chunk, int64_t(-1));
  QCOMPARE(s.train.checkpointing, false);
  j["train"] = {{"ce_chunk", "auto"}, {"checkpointing", true}};
  s = ex::parse_spec(j, "/base", "spec");
  QCOMPARE(s.train.ce_chunk, int64_t(-1));
  QCOMPARE(s.train.checkpointing, true);
  j["train"] = {{"ce_chunk", 0}};
  QCOMPARE(ex::parse_spec(j, "/base", "spec").train.ce_chunk, int64_t(0));
  j["train"] = {{"ce_chunk", 128}};
  QCOMPARE(ex::parse_spec(j, "/base", "spec").train.ce_chunk, int64_t(128));
  QCOMPARE(ex::step_shape(ex::parse_spec(j, "/base", "spec")).ce_chunk, int64_t(128));
  for (const Json& bad : {Json(-3), Json("big"), Json(1.5), Json(true)}) {
    j["train"] = {{"ce_chunk", bad}};
    QVERIFY_EXCEPTION_THROWN(ex::parse_spec(j, "/base", "spec"), std::exception);
  }
  j["train"] = {{"checkpointing", "yes"}};
  QVERIFY_EXCEPTION_THROWN(ex::parse_spec(j, "/base", "spec"), std::exception);
}

// The estimate counts one chunk of logits and, with checkpointing, one layer's activations
// plus every layer's input.
void TestMemory::estimateShrinks() {
  Json q = {{"architectures", {"Qwen3ForCausalLM"}},
            {"model_type", "qwen3"},
            {"head_dim", 128},
            {"hidden_act", "silu"},
            {"hidden_size", 1024},
            {"intermediate_size", 3072},
            {"max_position_embeddings", 40960},
            {"num_attention_heads", 16},
            {"num_hidden_layers", 28},
            {"num_key_value_heads", 8},
            {"rms_norm_eps", 1e-6},
            {"rope_theta", 1000000},
            {"tie_word_embeddings", true},
            {"vocab_size", 151936}};
  const gb::ModelConfig c = gb::parse_config(q, "qwen3-0.6b");
  const auto plan = gb::grow::parse_plan(Json{{"variant", "lora"}, {"rank", 16}});
  ex::StepShape shape;
  shape.batch_size = 4;
  shape.seq_len = 256;
  shape.ce_chunk = 0;
  const auto plain = ex::estimate_memory(c, plan, shape);
  shape.ce_chunk = -1;
  const auto chunked = ex::estimate_memory(c, plan, shape);
  shape.checkpointing = true;
  const auto both = ex::estimate_memory(c, plan, shape);
  QVERIFY(chunked.ce_chunk > 0 && plain.ce_chunk == 0);
  QVERIFY(chunked.logits * 10 < plain.logits);
  QCOMPARE(chunked.activations, plain.activations);
  QVERIFY(both.activations * 5 < chunked.activations);
  QCOMPARE(both.state(), plain.state());
}

void TestMemory::frozenBaseInBf16_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<int>("converted");  // matrices kept in bf16 (tiny preset: 4 layers, tied)
  // LoRA: every linear of every layer and the tied embedding (q, v wrapped: still plain inside).
  QTest::newRow("lora") << R"({"variant": "lora", "rank": 4, "targets": ["q", "v", "down"]})"
                        << 4 * 7 + 1;
  // Freeze: the two bottom layers' linears and the embedding.
  QTest::newRow("freeze") << R"({"variant": "freeze", "bottom": 2})" << 2 * 7 + 1;
  // G-Freeze: the original halves of the split MLPs (grow/split_linear.h: gate and up split
  // by rows, down by columns) are narrowed with attention and the embedding; the grown halves
  // train in float32.
  QTest::newRow("grow") << R"({"variant": "grow", "mode": "freeze", "k": 2})" << 4 * 7 + 1;
  QTest::newRow("grow, top 2 layers")
      << R"({"variant": "grow", "mode": "freeze", "k": 2, "layers": [2, 3]})" << 4 * 7 + 1;
  QTest::newRow("neutral residues")
      << R"({"variant": "neutral-residues", "budget": 0.1})" << 4 * 7 + 1;
  QTest::newRow("depth") << R"({"variant": "depth", "style": "llama-pro", "count": 1})"
                         << 4 * 7 + 1;
  QTest::newRow("full (nothing frozen)") << R"({"variant": "full"})" << 0;
}

// The same model twice: one with its frozen matrices kept in bf16 (model/frozen_dtype.h),
// one float32 holding those matrices rounded to bf16. Without gradients the logits are the
// same bit for bit (the products are the same calls on the same values); the loss of a
// training step too; the trainable tensors' gradients within float32 rounding (the input's
// gradient through a frozen matrix is formed by another call); three trainer steps keep the
// trainable tensors float32 and follow the float32 model's losses.
void TestMemory::frozenBaseInBf16() {
  QFETCH(QString, plan);
  QFETCH(int, converted);
  const Json p = Json::parse(plan.toStdString());
  auto [a, ga] = tiny_model(p);  // float32, rounded below
  auto [b, gb_] = tiny_model(p);
  int64_t bytes_before = 0;
  for (const auto& t : b->parameters(true)) bytes_before += t.numel() * t.element_size();
  const gb::FrozenStorage kept = gb::store_frozen_as(*b, torch::kBFloat16);
  if (converted >= 0) QCOMPARE(kept.tensors, int64_t(converted));
  if (converted != 0) QVERIFY(kept.tensors > 0);
  int64_t bytes_after = 0;
  {
    torch::NoGradGuard ng;
    auto pa = a->named_parameters(true);
    for (const auto& item : b->named_parameters(true)) {
      const torch::Tensor& t = item.value();
      bytes_after += t.numel() * t.element_size();
      if (t.requires_grad()) {
        QCOMPARE(t.scalar_type(), torch::kFloat);  // trainable and new: float32
        continue;
      }
      if (t.scalar_type() == torch::kBFloat16) pa[item.key()].copy_(t.to(torch::kFloat));
    }
  }
  QCOMPARE(bytes_before - bytes_after, kept.bytes_saved);
  QCOMPARE(kept.bytes_saved, kept.elements * 2);
  if (kept.tensors == 0) {
    QVERIFY(!b->activation_dtype);
    return;
  }
  QCOMPARE(*b->activation_dtype, torch::kFloat);

  const auto batch = random_batch(2, 32, 512, 7);
  const auto bt = gb::data::to_tensors(batch, torch::kCPU);
  {
    torch::NoGradGuard ng;
    const torch::Tensor la = a->forward(bt.inputs), lb = b->forward(bt.inputs);
    QCOMPARE(lb.scalar_type(), torch::kFloat);
    QVERIFY2(torch::equal(la, lb), qPrintable(QString::number(rel_diff(lb, la))));
  }
  for (int64_t chunk : {0, 9}) {
    for (bool checkpoint : {false, true}) {
      auto [l0, g0] = loss_and_grads(a, batch, chunk, checkpoint);
      auto [l1, g1] = loss_and_grads(b, batch, chunk, checkpoint);
      if (chunk == 0) {
        QVERIFY2(torch::equal(l0, l1), qPrintable(QString::number(rel_diff(l1, l0))));
      } else {
        QVERIFY2(rel_diff(l1, l0) <= 1e-6, qPrintable(QString::number(rel_diff(l1, l0))));
      }
      QCOMPARE(g0.size(), g1.size());
      for (size_t i = 0; i < g0.size(); ++i) {
        QVERIFY(g0[i].defined() == g1[i].defined());
        if (!g0[i].defined()) continue;
        QVERIFY2(
            rel_diff(g1[i], g0[i]) <= 1e-5,
            qPrintable(
                QString("chunk %1, tensor %2: %3").arg(chunk).arg(i).arg(rel_diff(g1[i], g0[i]))));
      }
    }
  }
  std::vector<double> losses[2];
  int side = 0;
  for (gb::CausalLM* m : {&a, &b}) {
    gb::train::TrainOptions to;
    to.adamw.lr = 1e-3;
    to.schedule.kind = "constant";
    gb::train::Trainer trainer(*m, side == 0 ? ga : gb_, to, torch::kCPU);
    for (int s = 0; s < 3; ++s)
      losses[side].push_back(trainer.step({random_batch(4, 24, 512, 100 + s)}).loss);
    ++side;
  }
  for (size_t s = 0; s < 3; ++s) {
    QVERIFY2(std::fabs(losses[1][s] - losses[0][s]) <= 1e-5 * std::fabs(losses[0][s]),
             qPrintable(QString("step %1: %2 vs %3")
                            .arg(s)
                            .arg(losses[1][s], 0, 'g', 10)
                            .arg(losses[0][s], 0, 'g', 10)));
  }
  for (const auto& t : trainable(b)) QCOMPARE(t.scalar_type(), torch::kFloat);
}

// Grow's split units with their frozen half stored in bf16, on both of their paths (the
// one-tensor products and the ops, with biases): the same outputs as float32 units holding
// the bf16-rounded values, bit for bit without gradients, and gradients of the input, the
// grown half and the biases within float32 rounding; the frozen half takes no gradient and
// stays narrow; dense_weight() joins the halves in float32.
void TestMemory::splitUnitsWithANarrowFrozenHalf() {
  torch::manual_seed(17);
  const auto round = [](const torch::Tensor& t) {
    return t.to(torch::kBFloat16).to(torch::kFloat);
  };
  const auto wf = round(torch::randn({6, 5})), wg = torch::randn({3, 5});
  const auto cf = round(torch::randn({4, 5})), cg = torch::randn({4, 2});
  for (bool bias : {false, true}) {
    for (bool fused : {true, false}) {
      const auto bf = bias ? torch::randn({6}) : torch::Tensor();
      const auto bg = bias ? torch::randn({3}) : torch::Tensor();
      const auto b = bias ? torch::randn({4}) : torch::Tensor();
      auto clone = [](const torch::Tensor& t) { return t.defined() ? t.clone() : t; };
      std::vector<std::shared_ptr<gb::LinearUnitImpl>> units[2];
      for (int side = 0; side < 2; ++side) {
        auto row = std::make_shared<gb::grow::RowSplitLinearImpl>(
            wf.clone(), clone(bf), wg.clone().requires_grad_(), clone(bg));
        auto col = std::make_shared<gb::grow::ColSplitLinearImpl>(
            cf.clone(), cg.clone().requires_grad_(), bias ? b.clone().requires_grad_() : b);
        row->frozen_weight.set_requires_grad(false);
        col->frozen_weight.set_requires_grad(false);
        if (bias) row->frozen_bias.set_requires_grad(false);
        if (bias) row->grown_bias.set_requires_grad(true);
        row->fused = fused;
        col->fused = fused;
        if (side == 1) {
          torch::NoGradGuard ng;
          for (auto* w : {&row->frozen_weight, &col->frozen_weight}) {
            w->set_data(w->to(torch::kBFloat16));
          }
          QCOMPARE(row->narrowable_matrices().front().scalar_type(), torch::kBFloat16);
        }
        units[side] = {row, col};
      }
      for (size_t u = 0; u < 2; ++u) {
        const int64_t in = units[0][u]->in_features();
        const auto x0 = torch::randn({2, 3, in});
        std::vector<torch::Tensor> y, gx;
        std::vector<std::vector<torch::Tensor>> gp;
        for (int side = 0; side < 2; ++side) {
          auto x = x0.clone().requires_grad_();
          const auto out = units[side][u]->forward(x, gb::ForwardState{});
          y.push_back(out.detach());
          (out * out).sum().backward();
          gx.push_back(x.grad());
          std::vector<torch::Tensor> grads;
          for (const auto& p : units[side][u]->parameters()) {
            if (p.requires_grad()) grads.push_back(p.grad());
            if (!p.requires_grad()) QVERIFY(!p.grad().defined());
          }
          gp.push_back(grads);
        }
        const QString where = QString("unit %1, bias %2, fused %3").arg(u).arg(bias).arg(fused);
        QVERIFY2(torch::equal(y[0], y[1]), qPrintable(where));
        QVERIFY2(rel_diff(gx[1], gx[0]) <= 1e-6, qPrintable(where));
        QCOMPARE(gp[0].size(), gp[1].size());
        for (size_t i = 0; i < gp[0].size(); ++i) {
          QVERIFY2(rel_diff(gp[1][i], gp[0][i]) <= 1e-6, qPrintable(where));
        }
        QCOMPARE(units[1][u]->dense_weight().scalar_type(), torch::kFloat);
        QVERIFY(torch::equal(units[1][u]->dense_weight(), units[0][u]->dense_weight()));
      }
    }
  }
}

// "checkpoint" keeps a bf16 checkpoint's frozen matrices bf16 and changes nothing for a
// float32 one; an explicit dtype narrows, never widens; the spec key parses and checks; the
// estimate counts the frozen part at its narrow size.
void TestMemory::frozenDtypeFollowsTheCheckpoint() {
  using gb::frozen_storage_dtype;
  QVERIFY(!frozen_storage_dtype("checkpoint", torch::kFloat, torch::kFloat));
  QCOMPARE(*frozen_storage_dtype("checkpoint", torch::kFloat, torch::kBFloat16), torch::kBFloat16);
  QCOMPARE(*frozen_storage_dtype("checkpoint", torch::kFloat, torch::kHalf), torch::kHalf);
  QVERIFY(!frozen_storage_dtype("checkpoint", torch::kFloat, std::nullopt));
  QVERIFY(!frozen_storage_dtype("float32", torch::kFloat, torch::kBFloat16));
  QCOMPARE(*frozen_storage_dtype("bfloat16", torch::kFloat, torch::kFloat), torch::kBFloat16);
  QVERIFY(!frozen_storage_dtype("bfloat16", torch::kBFloat16, torch::kBFloat16));
  QVERIFY(!frozen_storage_dtype("checkpoint", torch::kBFloat16, torch::kBFloat16));

  // The checkpoint's dtype: the one most of its elements are stored in.
  const QString dir = QDir::tempPath() + "/tst_memory_ckpt_" + QString::number(getpid());
  QDir().mkpath(dir);
  const std::string file = (dir + "/model.safetensors").toStdString();
  gb::st::write_tensors(file, {{"big", torch::zeros({64, 64}, torch::kBFloat16)},
                               {"norm", torch::ones({64}, torch::kFloat)}});
  QCOMPARE(*gb::checkpoint_dtype(dir.toStdString()), torch::kBFloat16);
  gb::st::write_tensors(file, {{"big", torch::zeros({64, 64}, torch::kFloat)}});
  QCOMPARE(*gb::checkpoint_dtype(dir.toStdString()), torch::kFloat);
  QDir(dir).removeRecursively();

  Json j = {{"model", "models/tiny"}, {"data", {{"new", {{"train", "de.txt"}}}}}};
  QCOMPARE(ex::parse_spec(j, "/base", "spec").frozen_dtype, std::string("checkpoint"));
  j["frozen_dtype"] = "float32";
  QCOMPARE(ex::parse_spec(j, "/base", "spec").frozen_dtype, std::string("float32"));
  j["frozen_dtype"] = "int8";
  QVERIFY_EXCEPTION_THROWN(ex::parse_spec(j, "/base", "spec"), std::exception);

  const gb::ModelConfig c = tiny_config();
  const auto plan = gb::grow::parse_plan(Json{{"variant", "lora"}, {"rank", 4}});
  ex::StepShape shape;
  const auto wide = ex::estimate_memory(c, plan, shape);
  shape.frozen_dtype = "bfloat16";
  const auto narrow = ex::estimate_memory(c, plan, shape);
  QCOMPARE(narrow.weights, 2 * (wide.params + wide.added - wide.trainable) + 4 * wide.trainable);
  QCOMPARE(narrow.gradients, wide.gradients);
  QCOMPARE(narrow.optimizer, wide.optimizer);
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
