// Transformer core: forward parity with Hugging Face transformers on the reference fixtures,
// export round trips, and specific errors for bad checkpoints and configs.
#include <QDir>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <torch/torch.h>

#include "test_util.h"
#include "test_models.h"
#include "model/arch.h"
#include "model/config.h"
#include "model/exact_kernels.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"
#include "util/torch_compat.h"

namespace fs = std::filesystem;

namespace {

const char* const kFamilies[] = {"llama", "qwen2", "qwen3", "gemma", "gpt_neox", "gpt2"};

std::string fixture(const std::string& name) {
  return std::string(GB_SHARED_DIR) + "/fixtures/hf-reference/" + name;
}

float as_float(const nlohmann::json& v) {
  // The fixtures write the shortest decimal that round-trips to the float32 value.
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  return std::strtof(s.c_str(), nullptr);
}

// Copies a fixture folder so that a test can damage it.
std::string copy_fixture(const QTemporaryDir& dir, const std::string& name) {
  fs::path dst = fs::path(dir.path().toStdString()) / name;
  fs::create_directories(dst);
  for (const auto& e : fs::directory_iterator(fixture(name))) {
    fs::copy_file(e.path(), dst / e.path().filename());
  }
  return dst.string();
}

using gb::test::error_of;

}  // namespace

class TestModel : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    gb::log::set_level(spdlog::level::warn);
  }

  void forwardMatchesTransformers_data();
  void forwardMatchesTransformers();
  void hiddenStateNormsMatchTransformers_data() { forwardMatchesTransformers_data(); }
  void hiddenStateNormsMatchTransformers();
  void paddedBatchMatchesUnbatched_data() { forwardMatchesTransformers_data(); }
  void paddedBatchMatchesUnbatched();
  void kvCacheDecodingMatchesFullForward_data() { forwardMatchesTransformers_data(); }
  void kvCacheDecodingMatchesFullForward();
  void exportReloadIsBitExact_data() { forwardMatchesTransformers_data(); }
  void exportReloadIsBitExact();
  void nonFiniteWeightsAreRefusedOnLoad();
  void configParameterCountMatchesModules_data() { forwardMatchesTransformers_data(); }
  void configParameterCountMatchesModules();
  void badCheckpointGivesSpecificError_data();
  void badCheckpointGivesSpecificError();
  void badConfigGivesSpecificError_data();
  void badConfigGivesSpecificError();
  void llama3RopeScalingMatchesFormula();
  void gemma3SlidingLayersFollowPattern();
  void bfloat16ForwardIsCloseToFloat32();
  void fusedRopeEqualsTheOps_data();
  void fusedRopeEqualsTheOps();
  void fusedRmsNormEqualsTheOps_data();
  void fusedRmsNormEqualsTheOps();
  void fusedSwiGluEqualsTheOps_data();
  void fusedSwiGluEqualsTheOps();
  void fusedCausalMaskEqualsTheOps_data();
  void fusedCausalMaskEqualsTheOps();
  void fusedKernelsInModelsEqualTheOps_data();
  void fusedKernelsInModelsEqualTheOps();
};

void TestModel::forwardMatchesTransformers_data() {
  QTest::addColumn<QString>("family");
  for (const char* f : kFamilies) QTest::newRow(f) << QString(f);
}

void TestModel::forwardMatchesTransformers() {
  QFETCH(QString, family);
  auto ref = gb::json::parse_file(fixture(family.toStdString()) + "/reference.json");
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  torch::NoGradGuard ng;
  for (const auto& seq : ref["sequences"]) {
    std::vector<int64_t> ids = seq["input_ids"].get<std::vector<int64_t>>();
    auto input = torch::tensor(ids, torch::kLong).unsqueeze(0);
    auto logits = m.model->forward(input).squeeze(0);  // (T, V)
    const int64_t t = logits.size(0);
    QCOMPARE(t, static_cast<int64_t>(ids.size()));
    double max_diff = 0;
    const auto& last = seq["last_logits"];
    QCOMPARE(static_cast<int64_t>(last.size()), logits.size(1));
    for (int64_t v = 0; v < logits.size(1); ++v) {
      max_diff = std::max(max_diff, std::fabs(logits[t - 1][v].item<double>() - as_float(last[v])));
    }
    const auto& first8 = seq["logits_first8"];
    for (int64_t p = 0; p < t; ++p) {
      for (int64_t v = 0; v < 8; ++v) {
        max_diff =
            std::max(max_diff, std::fabs(logits[p][v].item<double>() - as_float(first8[p][v])));
      }
    }
    QVERIFY2(
        max_diff <= 1e-4,
        qPrintable(
            QString("%1 len %2: max |logit diff| %3 > 1e-4").arg(family).arg(t).arg(max_diff)));
    auto loss = torch::nn::functional::cross_entropy(logits.narrow(0, 0, t - 1),
                                                     input.squeeze(0).narrow(0, 1, t - 1));
    double ref_loss = as_float(seq["loss"]);
    QVERIFY2(std::fabs(loss.item<double>() - ref_loss) <= 1e-5 * std::max(1.0, ref_loss),
             qPrintable(QString("loss %1 vs reference %2").arg(loss.item<double>()).arg(ref_loss)));
    QCOMPARE(logits[t - 1].argmax().item<int64_t>(), seq["argmax_last"].get<int64_t>());
  }
}

void TestModel::hiddenStateNormsMatchTransformers() {
  QFETCH(QString, family);
  auto ref = gb::json::parse_file(fixture(family.toStdString()) + "/reference.json");
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  torch::NoGradGuard ng;
  for (const auto& seq : ref["sequences"]) {
    auto input =
        torch::tensor(seq["input_ids"].get<std::vector<int64_t>>(), torch::kLong).unsqueeze(0);
    auto state = m.model->make_state(input.size(1), {}, torch::kCPU);
    auto h = m.model->embed(input);
    std::vector<torch::Tensor> outs{h};
    for (int64_t l = 0; l < m.model->num_layers(); ++l) {
      h = m.model->run_layer(l, h, state);
      outs.push_back(h);
    }
    auto final_h = m.model->final_hidden(h);
    const auto& norms = seq["hidden_state_norms"];
    const int64_t L = m.model->num_layers();
    for (int64_t i = 0; i <= L; ++i) {
      auto mine = (i == L ? final_h : outs[i]).squeeze(0).norm(2, -1);
      for (int64_t p = 0; p < mine.size(0); ++p) {
        double want = as_float(norms[i][p]);
        double got = mine[p].item<double>();
        QVERIFY2(
            std::fabs(got - want) <= 1e-4 * std::max(1.0, want),
            qPrintable(QString("hidden %1 pos %2: %3 vs %4").arg(i).arg(p).arg(got).arg(want)));
      }
    }
    auto pre = h.squeeze(0).norm(2, -1);
    for (int64_t p = 0; p < pre.size(0); ++p) {
      double want = as_float(seq["pre_final_norm_hidden_norms"][p]);
      QVERIFY(std::fabs(pre[p].item<double>() - want) <= 1e-4 * std::max(1.0, want));
    }
  }
}

void TestModel::paddedBatchMatchesUnbatched() {
  QFETCH(QString, family);
  auto ref = gb::json::parse_file(fixture(family.toStdString()) + "/reference.json");
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  torch::NoGradGuard ng;
  const auto& pb = ref["padded_batch"];
  std::vector<int64_t> flat, mask;
  for (const auto& r : pb["input_ids"])
    for (const auto& v : r) flat.push_back(v.get<int64_t>());
  for (const auto& r : pb["attention_mask"])
    for (const auto& v : r) mask.push_back(v.get<int64_t>());
  const int64_t b = pb["input_ids"].size(), t = pb["input_ids"][0].size();
  auto ids = torch::tensor(flat, torch::kLong).view({b, t});
  auto valid = torch::tensor(mask, torch::kLong).view({b, t}).to(torch::kBool);
  gb::ForwardOptions o;
  o.key_padding = valid;
  auto logits = m.model->forward(ids, o);
  // Every valid position: the reference's first 8 logits of each, the full last-valid row,
  // and the model's own unpadded forward of the row (the same arithmetic on fewer keys:
  // bounded relative to the logits' scale).
  double max_diff = 0, max_unbatched = 0, scale = 0;
  for (int64_t r = 0; r < b; ++r) {
    const int64_t n = valid[r].sum().item<int64_t>();
    const int64_t last = n - 1;
    const auto& first8 = pb["logits_first8"][r];
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t v = 0; v < 8; ++v) {
        max_diff =
            std::max(max_diff, std::fabs(logits[r][p][v].item<double>() - as_float(first8[p][v])));
      }
    }
    const auto& want = pb["last_valid_logits"][r];
    for (int64_t v = 0; v < logits.size(2); ++v) {
      max_diff =
          std::max(max_diff, std::fabs(logits[r][last][v].item<double>() - as_float(want[v])));
    }
    auto alone = m.model->forward(ids[r].narrow(0, 0, n).unsqueeze(0)).squeeze(0);  // (n, V)
    max_unbatched =
        std::max(max_unbatched, (logits[r].narrow(0, 0, n) - alone).abs().max().item<double>());
    scale = std::max(scale, alone.abs().max().item<double>());
  }
  QVERIFY2(max_diff <= 1e-4, qPrintable(QString("max diff %1").arg(max_diff)));
  QVERIFY2(
      max_unbatched <= 1e-5 * std::max(1.0, scale),
      qPrintable(QString("padded vs alone: max diff %1 (scale %2)").arg(max_unbatched).arg(scale)));
  // The masked loss of the fixture: next-token cross-entropy over the labels that are not
  // -100 (transformers shifts the labels by one inside the model).
  std::vector<int64_t> labels;
  for (const auto& r : pb["labels"])
    for (const auto& v : r) labels.push_back(v.get<int64_t>());
  auto lab = torch::tensor(labels, torch::kLong).view({b, t});
  auto loss = torch::nn::functional::cross_entropy(
      logits.narrow(1, 0, t - 1).reshape({-1, logits.size(2)}),
      lab.narrow(1, 1, t - 1).reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
  const double want_loss = pb["loss"].get<double>();
  QVERIFY2(
      std::fabs(loss.item<double>() - want_loss) <= 1e-4 * std::max(1.0, want_loss),
      qPrintable(QString("masked loss %1, reference %2").arg(loss.item<double>()).arg(want_loss)));
}

void TestModel::kvCacheDecodingMatchesFullForward() {
  QFETCH(QString, family);
  auto ref = gb::json::parse_file(fixture(family.toStdString()) + "/reference.json");
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  torch::NoGradGuard ng;
  auto ids =
      torch::tensor(ref["sequences"][1]["input_ids"].get<std::vector<int64_t>>(), torch::kLong)
          .unsqueeze(0);
  auto full = m.model->forward(ids).squeeze(0);
  gb::KVCache cache;
  gb::ForwardOptions o;
  o.cache = &cache;
  const int64_t prefix = 20;
  auto first = m.model->forward(ids.narrow(1, 0, prefix), o).squeeze(0);
  QVERIFY(torch::allclose(first, full.narrow(0, 0, prefix), 1e-5, 1e-5));
  for (int64_t p = prefix; p < ids.size(1); ++p) {
    auto step = m.model->forward(ids.narrow(1, p, 1), o).squeeze(0);
    double diff = (step[0] - full[p]).abs().max().item<double>();
    QVERIFY2(diff <= 1e-4, qPrintable(QString("position %1: diff %2").arg(p).arg(diff)));
  }
  QCOMPARE(cache.length(), ids.size(1));
}

void TestModel::nonFiniteWeightsAreRefusedOnLoad() {
  QTemporaryDir dir;
  gb::LoadedModel m = gb::load_hf_model(fixture("llama"));
  {
    torch::NoGradGuard ng;
    m.model->layer(1)->mlp->down_proj->dense_weight()[3][5] = std::nan("");
  }
  const std::string out = dir.path().toStdString() + "/nan";
  gb::export_hf(*m.model, out, m.folder);
  std::string msg;
  try {
    gb::load_hf_model(out);
  } catch (const std::exception& e) {
    msg = e.what();
  }
  QVERIFY2(
      msg.find("model.layers.1.mlp.down_proj.weight holds 1 non-finite value") != std::string::npos,
      msg.c_str());
}

void TestModel::exportReloadIsBitExact() {
  QFETCH(QString, family);
  QTemporaryDir dir;
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  std::string out = dir.path().toStdString() + "/exported";
  gb::export_hf(*m.model, out, m.folder);
  gb::LoadedModel back = gb::load_hf_model(out);
  auto a = gb::named_parameters(*m.model);
  auto b = gb::named_parameters(*back.model);
  QCOMPARE(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(a[i].first, b[i].first);
    QVERIFY2(torch::equal(a[i].second, b[i].second), a[i].first.c_str());
  }
  // The file itself holds the Hugging Face names and shapes of the family.
  gb::st::Checkpoint ck(out);
  for (const auto& mp : gb::arch::hf_tensors(m.config)) {
    QVERIFY2(ck.contains(mp.hf_name), mp.hf_name.c_str());
    QCOMPARE(ck.info(mp.hf_name).shape, mp.hf_shape);
  }
  torch::NoGradGuard ng;
  auto ids = torch::randint(3, m.config.vocab_size, {2, 11}, torch::kLong);
  QVERIFY(torch::equal(m.model->forward(ids), back.model->forward(ids)));
  auto cfg_in = gb::json::parse_file(m.folder + "/config.json");
  auto cfg_out = gb::json::parse_file(out + "/config.json");
  QCOMPARE(cfg_out["model_type"], cfg_in["model_type"]);
}

void TestModel::configParameterCountMatchesModules() {
  QFETCH(QString, family);
  gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
  QCOMPARE(gb::count_parameters(*m.model), m.config.param_count());
}

void TestModel::badCheckpointGivesSpecificError_data() {
  QTest::addColumn<QString>("damage");
  QTest::addColumn<QString>("expected");
  QTest::newRow("missing tensor") << "drop:model.layers.1.mlp.up_proj.weight"
                                  << "missing: model.layers.1.mlp.up_proj.weight";
  QTest::newRow("shape mismatch with config")
      << "config:intermediate_size=96"
      << "has shape [160, 64] but config.json implies [96, 64]";
  QTest::newRow("fewer layers in config") << "config:num_hidden_layers=1"
                                          << "unexpected tensor(s)";
  QTest::newRow("unsupported family") << "config:model_type=mamba"
                                      << "unsupported model_type 'mamba'";
  QTest::newRow("malformed config json") << "rawconfig:{\"model_type\": \"llama\","
                                         << "malformed JSON";
  QTest::newRow("pickled checkpoint") << "pickle"
                                      << "pickle";
  QTest::newRow("no config") << "noconfig"
                             << "has no config.json";
  QTest::newRow("integer dtype tensor") << "intdtype:model.norm.weight"
                                        << "expected a floating-point dtype";
}

void TestModel::badCheckpointGivesSpecificError() {
  QFETCH(QString, damage);
  QFETCH(QString, expected);
  QTemporaryDir dir;
  std::string folder = copy_fixture(dir, "llama");
  std::string d = damage.toStdString();
  auto cfg_path = folder + "/config.json";
  if (d.rfind("drop:", 0) == 0 || d.rfind("intdtype:", 0) == 0) {
    bool drop = d[0] == 'd';
    std::string victim = d.substr(d.find(':') + 1);
    auto all = gb::st::read_all(folder, c10::nullopt);
    std::vector<std::pair<std::string, torch::Tensor>> keep;
    for (auto& [n, t] : all) {
      if (n == victim) {
        if (drop) continue;
        keep.emplace_back(n, t.to(torch::kInt));
      } else {
        keep.emplace_back(n, t);
      }
    }
    gb::st::write_tensors(folder + "/model.safetensors", keep);
  } else if (d.rfind("config:", 0) == 0) {
    auto kv = d.substr(7);
    auto key = kv.substr(0, kv.find('='));
    auto value = kv.substr(kv.find('=') + 1);
    auto j = gb::json::parse_file(cfg_path);
    if (std::isdigit(static_cast<unsigned char>(value[0]))) {
      j[key] = std::stoll(value);
    } else {
      j[key] = value;
    }
    gb::write_file_atomic(cfg_path, j.dump());
  } else if (d.rfind("rawconfig:", 0) == 0) {
    gb::write_file_atomic(cfg_path, d.substr(10));
  } else if (d == "pickle") {
    fs::remove(folder + "/model.safetensors");
    gb::write_file_atomic(folder + "/pytorch_model.bin", "PK\x03\x04 not really");
  } else if (d == "noconfig") {
    fs::remove(cfg_path);
  }
  std::string msg = error_of([&] { gb::load_hf_model(folder); });
  QVERIFY2(msg.find(expected.toStdString()) != std::string::npos,
           qPrintable(QString("expected '%1' in: %2").arg(expected, QString::fromStdString(msg))));
}

void TestModel::badConfigGivesSpecificError_data() {
  QTest::addColumn<QString>("json");
  QTest::addColumn<QString>("expected");
  const QString base = R"({"model_type":"llama","vocab_size":10,"hidden_size":8,)"
                       R"("intermediate_size":16,"num_hidden_layers":1,"num_attention_heads":2)";
  QTest::newRow("heads do not divide") << base + R"(,"num_key_value_heads":3})"
                                       << "must be a multiple of num_key_value_heads";
  QTest::newRow("unknown rope scaling")
      << base + R"(,"rope_scaling":{"rope_type":"yarn","factor":2}})"
      << "rope_scaling type 'yarn' is not supported";
  QTest::newRow("unknown activation") << base + R"(,"hidden_act":"mish"})"
                                      << "unsupported activation 'mish'";
  QTest::newRow("negative size") << R"({"model_type":"llama","vocab_size":-4,"hidden_size":8,)"
                                    R"("intermediate_size":16,"num_hidden_layers":1,)"
                                    R"("num_attention_heads":2})"
                                 << "'vocab_size' must be positive";
  QTest::newRow("missing key") << R"({"model_type":"llama","hidden_size":8})"
                               << "missing required key 'vocab_size'";
  QTest::newRow("wrong type") << base + R"(,"rms_norm_eps":"small"})"
                              << "'rms_norm_eps' must be a number";
  QTest::newRow("multimodal gemma3") << R"({"model_type":"gemma3"})"
                                     << "gemma3_text";
  QTest::newRow("gpt2 inverse layer scaling")
      << R"({"model_type":"gpt2","vocab_size":10,"n_embd":8,"n_layer":1,"n_head":2,)"
         R"("n_positions":16,"scale_attn_by_inverse_layer_idx":true})"
      << "scale_attn_by_inverse_layer_idx";
}

void TestModel::badConfigGivesSpecificError() {
  QFETCH(QString, json);
  QFETCH(QString, expected);
  std::string msg = error_of(
      [&] { gb::parse_config(gb::json::parse(json.toStdString(), "config.json"), "config.json"); });
  QVERIFY2(msg.find(expected.toStdString()) != std::string::npos,
           qPrintable(QString("expected '%1' in: %2").arg(expected, QString::fromStdString(msg))));
}

void TestModel::llama3RopeScalingMatchesFormula() {
  // Llama 3.1 rope scaling: frequencies with wavelength above L/low are divided by the
  // factor, below L/high unchanged, smooth interpolation between.
  auto j = gb::json::parse(R"({"model_type":"llama","vocab_size":10,"hidden_size":256,
    "intermediate_size":16,"num_hidden_layers":1,"num_attention_heads":2,"rope_theta":500000.0,
    "rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
    "high_freq_factor":4.0,"original_max_position_embeddings":8192}})",
                           "t");
  auto c = gb::parse_config(j, "t");
  auto scaled = gb::rope_inv_freq(c, false);
  c.rope_scaling = gb::RopeScaling();
  auto plain = gb::rope_inv_freq(c, false);
  QCOMPARE(scaled.size(0), int64_t(64));
  for (int64_t i = 0; i < plain.size(0); ++i) {
    double f = plain[i].item<double>();
    double wavelen = 2 * M_PI / f;
    double want;
    if (wavelen < 8192.0 / 4.0) {
      want = f;
    } else if (wavelen > 8192.0 / 1.0) {
      want = f / 8.0;
    } else {
      double smooth = (8192.0 / wavelen - 1.0) / (4.0 - 1.0);
      want = (1 - smooth) * f / 8.0 + smooth * f;
    }
    QVERIFY2(std::fabs(scaled[i].item<double>() - want) <= 1e-6 * std::max(1e-3, want),
             qPrintable(QString("i=%1 %2 vs %3").arg(i).arg(scaled[i].item<double>()).arg(want)));
  }
}

void TestModel::gemma3SlidingLayersFollowPattern() {
  auto j = gb::json::parse(R"({"model_type":"gemma3_text","vocab_size":32,"hidden_size":16,
    "intermediate_size":32,"num_hidden_layers":7,"num_attention_heads":2,"num_key_value_heads":1,
    "head_dim":8,"sliding_window":4,"sliding_window_pattern":3,"query_pre_attn_scalar":16,
    "rope_local_base_freq":10000.0,"rope_theta":1000000.0})",
                           "g3");
  auto c = gb::parse_config(j, "g3");
  std::vector<gb::AttentionKind> want;
  for (int l = 0; l < 7; ++l) {
    want.push_back((l + 1) % 3 != 0 ? gb::AttentionKind::Sliding : gb::AttentionKind::Full);
  }
  QVERIFY(c.layer_types == want);
  QCOMPARE(c.attn_scale, 0.25);
  // In a sliding layer a query sees at most W keys: changing a token W or more positions
  // back must not change a one-layer sliding model's output.
  j["num_hidden_layers"] = 1;
  j["sliding_window_pattern"] = 2;  // layer 0 sliding
  auto c1 = gb::parse_config(j, "g3");
  QVERIFY(c1.layer_types[0] == gb::AttentionKind::Sliding);
  torch::manual_seed(0);
  gb::CausalLM m(c1);
  gb::init_weights(*m, 0.5);
  torch::NoGradGuard ng;
  auto ids = torch::randint(0, 32, {1, 12}, torch::kLong);
  auto ids2 = ids.clone();
  ids2[0][2] = (ids[0][2].item<int64_t>() + 1) % 32;
  auto a = m->forward(ids), b = m->forward(ids2);
  // position 6 sees keys 3..6 only; position 5 sees 2..5
  QVERIFY(torch::equal(a[0][6], b[0][6]));
  QVERIFY(!torch::equal(a[0][5], b[0][5]));
}

void TestModel::bfloat16ForwardIsCloseToFloat32() {
  gb::LoadedModel f32 = gb::load_hf_model(fixture("llama"));
  gb::LoadOptions o;
  o.dtype = torch::kBFloat16;
  gb::LoadedModel bf = gb::load_hf_model(fixture("llama"), o);
  QCOMPARE(bf.model->layer(0)->self_attn->q_proj->dense_weight().scalar_type(), torch::kBFloat16);
  torch::NoGradGuard ng;
  auto ids = torch::randint(3, 512, {1, 17}, at::detail::createCPUGenerator(7), torch::kLong);
  auto a = f32.model->forward(ids);
  auto b = bf.model->forward(ids).to(torch::kFloat);
  // What bf16 can give: every logit z_v = Σ_i W_vi h_i of the head. bf16 keeps 8 significand
  // bits (unit roundoff u = 2^-8); W is rounded once (u), the final hidden state h carries
  // the roundings of its computation, and z is rounded once more. The error of z_v is then a
  // multiple of u times S_v = Σ_i |W_vi| |h_i| (the size of the terms, which can be far
  // larger than z_v itself when they cancel), not a fixed absolute number. kRoundings counts
  // the roundings that reach a logit of this 2-layer model on its way (embedding, per layer:
  // the norm, q/k/v, attention, o, the residual, the norm, gate/up, the product, down, the
  // residual; the final norm, the head): about 25, which add up like a random walk
  // (sqrt(25) = 5) far more often than in the same direction; 8 leaves room for that. This
  // fixture measures 2.6 u S (max |diff| 0.043; the old bound was 0.5 absolute).
  constexpr double kUnit = 1.0 / 256;
  constexpr double kRoundings = 8;
  auto head = std::dynamic_pointer_cast<gb::LinearHeadImpl>(f32.model->lm_head);
  QVERIFY(head);
  auto h = f32.model->hidden_states(ids);                       // (1, T, d)
  auto terms = torch::matmul(h.abs(), head->weight.abs().t());  // (1, T, V): S_v
  auto err = (a - b).abs();
  const double worst = (err / (kUnit * terms)).max().item<double>();
  const double diff = err.max().item<double>();
  qInfo("bf16 vs f32: max |diff| %.4g; max |diff| / (u S) %.3g", diff, worst);
  QVERIFY2(
      worst <= kRoundings,
      qPrintable(QString("bf16 vs f32: |diff| up to %1 u S (max |diff| %2)").arg(worst).arg(diff)));
  QVERIFY(diff > 0);  // the bf16 model really computes in bf16
}

QTEST_APPLESS_MAIN(TestModel)
void TestModel::fusedRopeEqualsTheOps_data() {
  QTest::addColumn<int>("dim");
  QTest::addColumn<double>("scale");
  QTest::newRow("d 2") << 2 << 1.0;
  QTest::newRow("d 6") << 6 << 1.0;
  QTest::newRow("d 64") << 64 << 1.0;
  QTest::newRow("d 64, scale 1/8") << 64 << 0.125;
  QTest::newRow("d 34, scale 4") << 34 << 4.0;
}

// The one-pass RoPE (model/exact_kernels.h) against apply_rope's ops, bit for bit: forward
// on a strided (transposed) input, backward with and without create_graph, the exact
// power-of-two scale as a multiplication after the ops.
void TestModel::fusedRopeEqualsTheOps() {
  QFETCH(int, dim);
  QFETCH(double, scale);
  torch::manual_seed(11);
  const int64_t b = 2, t = 7, h = 3;
  auto base = torch::randn({b, t, h, dim}) * torch::exp(torch::randn({b, t, h, dim}) * 2.0);
  auto angles = torch::randn({t, dim / 2}) * 3.0;
  auto table = torch::cat({angles, angles}, -1);
  auto cos = table.cos(), sin = table.sin();
  auto x1 = base.clone().requires_grad_(true), x2 = base.clone().requires_grad_(true);
  auto in1 = x1.transpose(1, 2), in2 = x2.transpose(1, 2);  // (B, H, T, d), strided
  QVERIFY(gb::rope_fusable(in1, cos, sin, dim));
  QVERIFY(!gb::rope_fusable(in1, cos, sin, dim - 2));  // partial rotary: the ops
  auto fused = gb::apply_rope_fused(in1, cos, sin, scale);
  auto ops = gb::apply_rope(in2, cos, sin, dim);
  if (scale != 1.0) ops = ops * scale;
  QVERIFY(fused.is_contiguous());
  QVERIFY(torch::equal(fused, ops));
  auto grad = torch::randn(fused.sizes()).transpose(2, 3).contiguous().transpose(2, 3);
  for (bool create_graph : {false, true}) {
    // Under create_graph the backward is itself differentiated (here with respect to the
    // incoming gradient), so it must be spelled in ops.
    auto go = grad.detach().requires_grad_(create_graph);
    auto g1 = torch::autograd::grad({fused}, {x1}, {go}, true, create_graph)[0];
    auto g2 = torch::autograd::grad({ops}, {x2}, {go}, true, create_graph)[0];
    QVERIFY2(torch::equal(g1, g2), create_graph ? "create_graph" : "plain backward");
    QCOMPARE(g1.requires_grad(), create_graph);
  }
  QVERIFY_EXCEPTION_THROWN(gb::apply_rope_fused(in1, cos, sin, 0.3), gb::Error);
}

void TestModel::fusedRmsNormEqualsTheOps_data() {
  QTest::addColumn<int>("dim");
  QTest::addColumn<bool>("trainWeight");
  QTest::newRow("d 6") << 6 << true;
  QTest::newRow("d 34") << 34 << true;
  QTest::newRow("d 256") << 256 << true;
  QTest::newRow("d 100, frozen weight") << 100 << false;
}

// The one-pass RMSNorm against NormImpl's ops, bit for bit: output, the input's gradient
// when the input has a third use (a residual beside the norm, whose gradient the engine adds
// in the ops' order), the weight's gradient, with and without create_graph.
void TestModel::fusedRmsNormEqualsTheOps() {
  QFETCH(int, dim);
  QFETCH(bool, trainWeight);
  torch::manual_seed(5);
  auto base = torch::randn({3, 5, dim}) * torch::exp(torch::randn({3, 5, dim}) * 2.0);
  auto make = [&](bool fused) {
    auto norm = std::make_shared<gb::NormImpl>(gb::NormKind::RMSNorm, dim, 1e-6);
    torch::NoGradGuard ng;
    norm->weight.copy_(torch::randn({dim}, at::detail::createCPUGenerator(3)) * 0.5 + 1.0);
    norm->weight.requires_grad_(trainWeight);
    norm->fused = fused;
    return norm;
  };
  auto n1 = make(true), n2 = make(false);
  QVERIFY(gb::rms_norm_fusable(base, n1->weight));
  QVERIFY(!gb::rms_norm_fusable(base.transpose(0, 1), n1->weight));
  auto x1 = base.clone().requires_grad_(true), x2 = base.clone().requires_grad_(true);
  auto y1 = n1->forward(x1), y2 = n2->forward(x2);
  QVERIFY(torch::equal(y1, y2));
  auto mix = torch::randn(y1.sizes());
  for (bool create_graph : {false, true}) {
    // out = norm(x) · mix + x · 0.3: x's gradient has three parts.
    auto o1 = (y1 * mix + x1 * 0.3).sum(), o2 = (y2 * mix + x2 * 0.3).sum();
    std::vector<torch::Tensor> in1 = {x1}, in2 = {x2};
    if (trainWeight) {
      in1.push_back(n1->weight);
      in2.push_back(n2->weight);
    }
    auto g1 = torch::autograd::grad({o1}, in1, {}, true, create_graph);
    auto g2 = torch::autograd::grad({o2}, in2, {}, true, create_graph);
    for (size_t i = 0; i < g1.size(); ++i) {
      QVERIFY2(torch::equal(g1[i], g2[i]),
               qPrintable(
                   QString("%1, gradient %2").arg(create_graph ? "create_graph" : "plain").arg(i)));
    }
    if (create_graph) {
      // Second derivatives through r = rsqrt(mean(x²) + eps) as well.
      auto h1 = torch::autograd::grad({(g1[0] * mix).sum()}, {x1}, {}, true)[0];
      auto h2 = torch::autograd::grad({(g2[0] * mix).sum()}, {x2}, {}, true)[0];
      QVERIFY(torch::allclose(h1, h2, 1e-5, 1e-6));
    }
  }
}

void TestModel::fusedSwiGluEqualsTheOps_data() {
  QTest::addColumn<int>("n");
  QTest::addColumn<bool>("trainUp");
  QTest::addColumn<bool>("stridedGrad");
  // Every remainder of the 16-wide loop's tail matters: ATen computes it with the C library's
  // expf, the rest with Sleef's; 2 × 40 009 is above LibTorch's grain size, and split over two
  // threads its chunks end in tails of their own.
  for (int n : {1, 15, 16, 17, 31, 48, 1000, 40009}) {
    QTest::newRow(qPrintable(QString("n=%1").arg(n))) << n << true << false;
  }
  QTest::newRow("frozen up") << 1000 << false << false;
  QTest::newRow("strided gradient") << 1000 << true << true;
}

namespace {

// The first float32 tensor whose bits differ (NaNs and the signs of zeros included), -1 for none.
int64_t first_bits_unequal(const std::vector<torch::Tensor>& a,
                           const std::vector<torch::Tensor>& b) {
  std::vector<torch::Tensor> x, y;
  for (const auto& t : a) x.push_back(t.defined() ? t.contiguous().view(torch::kInt) : t);
  for (const auto& t : b) y.push_back(t.defined() ? t.contiguous().view(torch::kInt) : t);
  return gb::test::first_unequal(x, y);
}

}  // namespace

// silu(gate) · up in one pass each way against silu and mul (forward) and their autograd
// nodes (backward), bit for bit, on values over many orders of magnitude and the special
// ones (±0, ±inf, NaN, where exp under- and overflows), with and without create_graph.
void TestModel::fusedSwiGluEqualsTheOps() {
  QFETCH(int, n);
  QFETCH(bool, trainUp);
  QFETCH(bool, stridedGrad);
  if (!gb::swiglu_exact_available()) {
    QSKIP("no AVX2/FMA CPU, LibTorch not on its AVX2 kernels, or no Sleef in the process");
  }
  torch::manual_seed(11);
  auto gate = torch::randn({2, n}) * torch::exp(torch::randn({2, n}) * 2.5);
  auto up = torch::randn({2, n});
  const float specials[] = {0.0f,
                            -0.0f,
                            88.7f,
                            -88.8f,
                            104.0f,
                            -104.0f,
                            1e-30f,
                            -1e-38f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            20.0f,
                            -20.0f};
  for (int64_t i = 0; i < std::min<int64_t>(n, std::size(specials)); ++i) {
    gate[1][i] = specials[i];
  }
  if (n == 40009) {
    // Where the two threads' first chunk ends (elements 40 000 to 40 008 of row 0: its scalar
    // tail when split, inside the vectorised loop when not), values whose silu differs
    // between Sleef's exp and the C library's, so that a backward recomputing silu(g) on two
    // threads (not as the forward did) would show.
    const auto pool = torch::randn({4096}) * 4.0;
    const auto vectorised = torch::silu(pool);
    int64_t placed = 0;
    for (int64_t i = 0; i < pool.size(0) && placed < 9; ++i) {
      const auto one = pool.narrow(0, i, 1).clone();
      if (!torch::equal(torch::silu(one), vectorised.narrow(0, i, 1))) {
        gate[0][40000 + placed++] = pool[i];
      }
    }
    QVERIFY2(placed > 0, "no value whose silu differs between the two exp implementations");
  }
  QVERIFY(gb::swiglu_fusable(gate, up));
  if (n > 1) {
    QVERIFY(!gb::swiglu_fusable(gate.t(), up.t()));
    QVERIFY(!gb::swiglu_fusable(gate, up.narrow(1, 0, n / 2)));
  }
  QVERIFY(!gb::swiglu_fusable(gate.to(torch::kDouble), up.to(torch::kDouble)));
  auto g1 = gate.clone().requires_grad_(true), g2 = gate.clone().requires_grad_(true);
  auto u1 = up.clone().requires_grad_(trainUp), u2 = up.clone().requires_grad_(trainUp);
  auto h1 = gb::swiglu_fused(g1, u1);
  auto h2 = torch::silu(g2) * u2;
  QCOMPARE(first_bits_unequal({h1.detach()}, {h2.detach()}), int64_t{-1});
  auto mix = torch::randn({n, 2}) * 1e-2;
  for (bool create_graph : {false, true}) {
    auto loss = [&](const torch::Tensor& h) {
      // A transposed weighting makes the incoming gradient strided.
      return stridedGrad ? (h.t() * mix).sum() : (h * mix.t().contiguous()).sum();
    };
    std::vector<torch::Tensor> in1 = {g1}, in2 = {g2};
    if (trainUp) {
      in1.push_back(u1);
      in2.push_back(u2);
    }
    auto d1 = torch::autograd::grad({loss(h1)}, in1, {}, true, create_graph);
    auto d2 = torch::autograd::grad({loss(h2)}, in2, {}, true, create_graph);
    std::vector<torch::Tensor> a, b;
    for (auto& t : d1) a.push_back(t.detach());
    for (auto& t : d2) b.push_back(t.detach());
    QVERIFY2(first_bits_unequal(a, b) == -1, create_graph ? "create_graph" : "plain");
    if (create_graph) {
      // Second derivatives follow the ops' formulas.
      auto s1 = torch::autograd::grad({(d1[0] * mix.t()).nan_to_num().sum()}, {g1}, {}, true)[0];
      auto s2 = torch::autograd::grad({(d2[0] * mix.t()).nan_to_num().sum()}, {g2}, {}, true)[0];
      QVERIFY(torch::allclose(s1.nan_to_num(), s2.nan_to_num(), 1e-5, 1e-7));
    }
  }
  if (n >= 40000) {
    // A forward on one thread and a backward on two (LibTorch would split the backward's
    // loops): the backward takes the ops, with silu(g) as the forward computed it.
    auto f1 = gate.clone().requires_grad_(true), f2 = gate.clone().requires_grad_(true);
    auto w1 = up.clone().requires_grad_(true), w2 = up.clone().requires_grad_(true);
    auto y1 = gb::swiglu_fused(f1, w1);
    auto y2 = torch::silu(f2) * w2;
    const int threads = at::get_num_threads();
    at::set_num_threads(2);
    auto e1 = torch::autograd::grad({(y1 * mix.t()).sum()}, {f1, w1});
    auto e2 = torch::autograd::grad({(y2 * mix.t()).sum()}, {f2, w2});
    at::set_num_threads(threads);
    QCOMPARE(first_bits_unequal(e1, e2), int64_t{-1});
  }
  if (n >= 40000) {
    // Where LibTorch would split its loops over threads, the fused path steps aside.
    const int threads = at::get_num_threads();
    at::set_num_threads(2);
    const bool fusable = gb::swiglu_fusable(gate, up);
    at::set_num_threads(threads);
    QVERIFY(!fusable);
  }
}

void TestModel::fusedCausalMaskEqualsTheOps_data() {
  QTest::addColumn<int>("tq");
  QTest::addColumn<int>("tk");
  QTest::addColumn<double>("softcap");
  QTest::addColumn<int>("batch");
  QTest::addColumn<int>("threads");
  QTest::newRow("square") << 13 << 13 << 0.0 << 2 << 1;
  QTest::newRow("one query after a cache") << 1 << 9 << 0.0 << 2 << 1;
  QTest::newRow("queries after a cache") << 5 << 12 << 0.0 << 2 << 1;
  QTest::newRow("capped scores") << 7 << 7 << 30.0 << 2 << 1;
  QTest::newRow("longer rows") << 40 << 40 << 0.0 << 2 << 1;
  // 1 200 matrices, above the loops' grain: split over 2 threads.
  QTest::newRow("two threads") << 8 << 8 << 0.0 << 400 << 2;
}

// The causal mask written by loops against masked_fill_ with a boolean mask: attention
// outputs and q, k, v's gradients bit for bit, with and without create_graph.
void TestModel::fusedCausalMaskEqualsTheOps() {
  QFETCH(int, tq);
  QFETCH(int, tk);
  QFETCH(double, softcap);
  QFETCH(int, batch);
  QFETCH(int, threads);
  const int threads_before = at::get_num_threads();
  at::set_num_threads(threads);
  auto restore = qScopeGuard([&] { at::set_num_threads(threads_before); });
  torch::manual_seed(4);
  const auto q0 = torch::randn({batch, 3, tq, 8}), k0 = torch::randn({batch, 3, tk, 8}),
             v0 = torch::randn({batch, 3, tk, 8});
  const auto mix = torch::randn({batch, 3, tq, 8});
  QVERIFY(gb::compat::causal_mask_fusable(torch::zeros({2, 3, tq, tk})));
  if (tq > 1)
    QVERIFY(!gb::compat::causal_mask_fusable(torch::zeros({2, 3, tk, tq}).transpose(-2, -1)));
  QVERIFY(!gb::compat::causal_mask_fusable(torch::zeros({2, 3, tq, tk}, torch::kDouble)));
  {
    // The function alone, against masked_fill_, on an arbitrary upstream gradient.
    const auto base = torch::randn({batch, 3, tq, tk}), upstream = torch::randn({batch, 3, tq, tk});
    const auto mask = torch::ones({tq, tk}, torch::kBool).triu(tk - tq + 1);
    auto a = base.clone().requires_grad_(true), b = base.clone().requires_grad_(true);
    auto a2 = a * 1.0, b2 = b * 1.0;  // non-leaf, as the scores are
    auto ya = gb::compat::causal_mask_(a2);
    auto yb = b2.masked_fill_(mask, -std::numeric_limits<float>::infinity());
    auto ga = torch::autograd::grad({(ya.nan_to_num(0.0, 0.0, 0.0) * upstream).sum()}, {a})[0];
    auto gb_ = torch::autograd::grad({(yb.nan_to_num(0.0, 0.0, 0.0) * upstream).sum()}, {b})[0];
    QCOMPARE(first_bits_unequal({ya.detach(), ga}, {yb.detach(), gb_}), int64_t{-1});
  }
  for (bool create_graph : {false, true}) {
    std::vector<torch::Tensor> out[2];
    for (int fused = 0; fused < 2; ++fused) {
      auto q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true),
           v = v0.clone().requires_grad_(true);
      auto o = gb::compat::attention(q, k, v, {}, true, 0.35, softcap, fused == 1);
      auto grads = torch::autograd::grad({(o * mix).sum()}, {q, k, v}, {}, true, create_graph);
      out[fused] = {o.detach()};
      for (auto& g : grads) out[fused].push_back(g.detach());
      if (create_graph) {
        auto second = torch::autograd::grad({(grads[0] * grads[0]).sum()}, {k}, {}, true)[0];
        out[fused].push_back(second.detach());
      }
    }
    QVERIFY2(first_bits_unequal(out[1], out[0]) == -1, create_graph ? "create_graph" : "plain");
  }
}

void TestModel::fusedKernelsInModelsEqualTheOps_data() {
  QTest::addColumn<QString>("family");
  QTest::addColumn<bool>("rope");
  QTest::addColumn<bool>("norm");
  QTest::addColumn<bool>("swiglu");
  for (const char* f : kFamilies) {
    QTest::newRow(qPrintable(QString("%1, all").arg(f))) << QString(f) << true << true << true;
  }
  QTest::newRow("llama, rope only") << QString("llama") << true << false << false;
  QTest::newRow("llama, norm only") << QString("llama") << false << true << false;
  QTest::newRow("llama, swiglu only") << QString("llama") << false << false << true;
  QTest::newRow("qwen3, swiglu only") << QString("qwen3") << false << false << true;
}

// A whole model, training mode, each family: logits and every parameter's gradient with the
// fused RoPE (q scaled where 1/√d_h is a power of two; with it the causal mask's loops),
// RMSNorm and SwiGLU, where they apply, equal the ops'.
void TestModel::fusedKernelsInModelsEqualTheOps() {
  QFETCH(QString, family);
  QFETCH(bool, rope);
  QFETCH(bool, norm);
  QFETCH(bool, swiglu);
  if (swiglu && !rope && !gb::swiglu_exact_available()) {
    QSKIP("no AVX2/FMA CPU, LibTorch not on its AVX2 kernels, or no Sleef in the process");
  }
  auto run = [&](bool fused) {
    gb::LoadedModel m = gb::load_hf_model(fixture(family.toStdString()));
    for (auto& layer : m.model->all_layers()) {
      layer->self_attn->fused_rope = fused && rope;
      layer->self_attn->fused_mask = fused && rope;
      layer->mlp->fused_swiglu = fused && swiglu;
    }
    for (auto& module : m.model->modules()) {
      if (auto* n = dynamic_cast<gb::NormImpl*>(module.get())) n->fused = fused && norm;
    }
    m.model->train();
    for (auto& p : m.model->parameters()) p.requires_grad_(true);
    auto ids =
        torch::tensor({{5, 9, 13, 2, 7, 31, 4, 8, 16, 3, 11}, {6, 1, 2, 40, 41, 12, 9, 9, 3, 2, 1}},
                      torch::kLong);
    auto logits = m.model->forward(ids);
    (logits.square().mean() + logits.mean()).backward();
    std::vector<torch::Tensor> out = {logits.detach()};
    for (auto& p : m.model->parameters()) out.push_back(p.grad());
    return out;
  };
  const auto a = run(true), b = run(false);
  // The first tensor that differs (0: the logits), -1 for none.
  QCOMPARE(gb::test::first_unequal(a, b), int64_t{-1});
}

#include "tst_model.moc"
