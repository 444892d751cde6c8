// The CUDA test set (GPU machines; every test skips cleanly without CUDA, so CI on CPU
// builds and runs this file too): forward parity of every family on CUDA in float32 against
// the CPU path (which tst_model checks against the Hugging Face reference logits within
// 1e-4), bfloat16 parity within what bf16 gives on the CPU for the same model, function
// preservation of every growth variant applied on the GPU, and a short training run per variant on
// the GPU.
#include <QtTest>

#include <torch/torch.h>

#include "data/packing.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "test_models.h"
#include "train/trainer.h"

using Json = nlohmann::json;

namespace {

// Float32 on CUDA against float32 on the CPU: the same bound tst_model holds against the
// reference (different kernels and reduction orders, same precision).
constexpr double kFloat32Tol = 1e-4;
// bfloat16 keeps 8 significand bits: unit roundoff u = 2^-8. What bf16 really gives on a
// model is not a constant fraction of its largest logit (a worst-case sum of the roundings of
// two layers is about 12u, the 5 % this test used to allow); it is measured here: the same
// weights in bf16 on the CPU (bf16 storage, every op's output rounded to bf16, products
// accumulated in float32, as CUDA's bf16 GEMMs do) against float32. The CUDA bf16 logits must
// be as close to float32 as that, within a factor 2 for kernels that round in another order
// (a rounding that flips changes an element by one unit, so the errors are of the same size,
// not the same values), plus two roundings of the logits themselves (2u at their scale).
constexpr double kBf16Unit = 1.0 / 256;
// Function preservation on the GPU: as on the CPU (tst_grow), 1e-5 relative to the scale.
constexpr double kPreserveTol = 1e-5;

bool have_cuda() {
  return torch::cuda::is_available();
}

torch::Tensor logits_of(gb::CausalLMImpl& m, const torch::Tensor& ids) {
  torch::NoGradGuard ng;
  return m.forward(ids).to(torch::kCPU, torch::kFloat32);
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// Every variant of the plan contract (issue 3) that applies to the llama fixture.
std::vector<std::pair<const char*, const char*>> plans() {
  return {
      {"full", R"({"variant":"full"})"},
      {"freeze", R"({"variant":"freeze","bottom":1})"},
      {"lora", R"({"variant":"lora","rank":4,"alpha":8,"targets":["q","v","gate","up","down"]})"},
      {"grow-freeze", R"({"variant":"grow","mode":"freeze","k":2,"layers":"all"})"},
      {"grow-train", R"({"variant":"grow","mode":"train","k":2,"layers":[1]})"},
      {"scale-preserve", R"({"variant":"scale","mode":"preserve","d_up":32,"p_up":64})"},
      {"scale-adapt", R"({"variant":"scale","mode":"adapt","d_up":32,"p_up":64,"l_fp":1})"},
      {"llama-pro", R"({"variant":"depth","style":"llama-pro","count":2})"},
      {"adept", R"({"variant":"depth","style":"adept","layers":[0,1]})"},
      {"neutral-residues", R"({"variant":"neutral-residues","gate":"elu","layers":"all",
                               "budget":0.2,"alpha":100})"},
      {"adapters", R"({"variant":"adapters","layers":"all","budget":0.2})"},
      {"loramoe", R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4})"},
      {"mh-moe", R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4})"},
  };
}

gb::data::Batch random_batch(int64_t vocab, int64_t rows, int64_t seq_len, uint64_t seed) {
  gb::data::Batch b;
  b.rows = rows;
  b.seq_len = seq_len;
  std::mt19937_64 rng(seed);
  b.tokens.resize(static_cast<size_t>(rows * (seq_len + 1)));
  for (auto& t : b.tokens) t = static_cast<int32_t>(3 + rng() % (vocab - 3));
  return b;
}

}  // namespace

class TestCuda : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { gb::test::quiet_logs(); }

  void forwardParityFloat32_data() {
    QTest::addColumn<QString>("family");
    for (const auto& f : gb::test::all_families()) QTest::newRow(f.c_str()) << QString(f.c_str());
  }
  void forwardParityFloat32() {
    if (!have_cuda()) QSKIP("CUDA is not available");
    QFETCH(QString, family);
    gb::CausalLM m = gb::test::load_family(family.toStdString());
    torch::Tensor ids = gb::test::random_ids(*m, 2, 17);
    torch::Tensor cpu = logits_of(*m, ids);
    m->to(torch::kCUDA);
    torch::Tensor gpu = logits_of(*m, ids.to(torch::kCUDA));
    const double d = max_diff(cpu, gpu);
    QVERIFY2(d <= kFloat32Tol, qPrintable(QString("max |Δlogit| %1").arg(d)));
  }

  void forwardParityBfloat16_data() { forwardParityFloat32_data(); }
  void forwardParityBfloat16() {
    if (!have_cuda()) QSKIP("CUDA is not available");
    QFETCH(QString, family);
    gb::CausalLM m = gb::test::load_family(family.toStdString());
    torch::Tensor ids = gb::test::random_ids(*m, 2, 17);
    torch::Tensor cpu = logits_of(*m, ids);
    const double scale = cpu.abs().max().item<double>();
    m->to(torch::kBFloat16);
    const double cpu_bf16 = max_diff(cpu, logits_of(*m, ids));  // what bf16 gives here
    QVERIFY2(cpu_bf16 > 0, "bf16 on the CPU equals float32: the reference measures nothing");
    m->to(torch::kCUDA);
    torch::Tensor gpu = logits_of(*m, ids.to(torch::kCUDA));
    const double d = max_diff(cpu, gpu);
    const double bound = 2.0 * cpu_bf16 + 2.0 * kBf16Unit * scale;
    QVERIFY2(d <= bound, qPrintable(QString("CUDA bf16: max |Δlogit| %1 > %2 (bf16 on the CPU: "
                                            "%3; logits up to %4)")
                                        .arg(d)
                                        .arg(bound)
                                        .arg(cpu_bf16)
                                        .arg(scale)));
  }

  void growthPreservesFunctionOnCuda_data() {
    QTest::addColumn<QString>("plan");
    for (const auto& [name, plan] : plans()) QTest::newRow(name) << QString(plan);
  }
  void growthPreservesFunctionOnCuda() {
    if (!have_cuda()) QSKIP("CUDA is not available");
    QFETCH(QString, plan);
    gb::CausalLM m = gb::test::load_family("llama");
    m->to(torch::kCUDA);
    torch::Tensor ids = gb::test::random_ids(*m, 2, 17).to(torch::kCUDA);
    torch::Tensor before = logits_of(*m, ids);
    gb::grow::ApplyContext ctx;
    ctx.seed = 5;
    auto r = gb::grow::apply_plan(*m, gb::grow::parse_plan(Json::parse(plan.toStdString())), ctx);
    for (const auto& p : m->parameters()) QCOMPARE(p.device().type(), torch::kCUDA);
    // Every plan of this list claims preservation at initialisation (zero-initialised
    // down projections, B = 0, identity blocks, W12 = 0): a variant that stops claiming it
    // must fail here, not skip its check.
    QVERIFY2(r.function_preserving, "the variant no longer claims function preservation");
    torch::Tensor after = logits_of(*m, ids);
    const double d = max_diff(before, after);
    const double tol = kPreserveTol * std::max(1.0, before.abs().max().item<double>());
    QVERIFY2(d <= tol, qPrintable(QString("max |Δlogit| %1 > %2").arg(d).arg(tol)));
  }

  void shortTrainingRunPerVariantOnCuda_data() { growthPreservesFunctionOnCuda_data(); }
  void shortTrainingRunPerVariantOnCuda() {
    if (!have_cuda()) QSKIP("CUDA is not available");
    QFETCH(QString, plan);
    gb::CausalLM m = gb::test::load_family("llama");
    m->to(torch::kCUDA);
    gb::grow::ApplyContext ctx;
    ctx.seed = 5;
    auto r = gb::grow::apply_plan(*m, gb::grow::parse_plan(Json::parse(plan.toStdString())), ctx);
    gb::train::TrainOptions o;
    o.adamw.lr = 3e-3;
    gb::train::Trainer trainer(m, r, o, torch::Device(torch::kCUDA));
    // One fixed batch, 8 steps: the loss must fall (memorisation) and stay finite.
    const gb::data::Batch b = random_batch(m->config.vocab_size, 4, 32, 3);
    double first = 0, last = 0;
    for (int s = 0; s < 8; ++s) {
      gb::train::StepStats st = trainer.step({b});
      QVERIFY(std::isfinite(st.loss));
      if (s == 0) first = st.lm_loss;
      last = st.lm_loss;
    }
    QVERIFY2(last < first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
  }
};

QTEST_APPLESS_MAIN(TestCuda)
#include "tst_cuda.moc"
