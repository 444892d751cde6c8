// Memory estimates (experiment/estimate.h): the formulas against the parameters of built
// models, the estimate against the measured peak RSS growth of real training steps (each
// measured in a fresh child process of this executable), `run --dry-run` on a Qwen3-0.6B
// config without weights in seconds, and `run` refusing a run that does not fit.
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <torch/torch.h>

#include "experiment/estimate.h"
#include "experiment/preset.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "model/config.h"
#include "model/modules.h"
#include "store/store.h"
#include "train/trainer.h"
#include "util/allocator.h"

namespace fs = std::filesystem;
namespace ex = gb::experiment;
using Json = nlohmann::json;

namespace {

constexpr const char* kChildEnv = "GB_TST_ESTIMATE_CHILD";

// From /proc/self/status: VmRSS or VmHWM in bytes (-1 when absent).
int64_t status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream f(line.substr(prefix.size()));
    int64_t kb = 0;
    if (f >> kb) return kb * 1024;
  }
  return -1;
}

// The child: builds the model of the request's config with random weights, applies the plan
// and runs two training steps on random tokens; prints {"rss0", "peak", "growth"} (bytes):
// the peak RSS (VmHWM, reset to the current RSS first where the kernel allows) less the RSS
// before the model.
int measure_child(const std::string& request) {
  const Json r = Json::parse(request);
  torch::set_num_threads(1);
  const gb::ModelConfig c = gb::parse_config(r.at("config"), "measured config");
  const int64_t rows = r.at("batch_size").get<int64_t>(), len = r.at("seq_len").get<int64_t>();
  std::vector<gb::data::Batch> batches;
  uint64_t x = 12345;
  for (int b = 0; b < 2; ++b) {
    gb::data::Batch batch;
    batch.rows = rows;
    batch.seq_len = len;
    batch.tokens.resize(static_cast<size_t>(rows * (len + 1)));
    for (auto& t : batch.tokens) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      t = static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(c.vocab_size));
    }
    batches.push_back(std::move(batch));
  }
  const int64_t rss0 = status_bytes("VmRSS");
  { std::ofstream("/proc/self/clear_refs") << "5"; }  // VmHWM := VmRSS (Linux >= 4.0)
  gb::CausalLM model(c);
  gb::init_weights(*model, 0.02);
  gb::grow::GrowthResult growth = gb::grow::apply_plan(*model, gb::grow::parse_plan(r.at("plan")));
  gb::train::TrainOptions to;
  to.adamw.lr = 1e-4;
  to.schedule.kind = "constant";
  to.ce_chunk = r.value("ce_chunk", int64_t(-1));
  to.checkpointing = r.value("checkpointing", false);
  gb::train::Trainer trainer(model, growth, to, torch::Device(torch::kCPU));
  for (const auto& b : batches) trainer.step({b});
  const int64_t peak = status_bytes("VmHWM");
  std::printf("%s\n", Json{{"rss0", rss0}, {"peak", peak}, {"growth", peak - rss0}}.dump().c_str());
  return 0;
}

// The Qwen3-0.6B config.json (Hugging Face), as a real checkpoint ships it.
Json qwen3_06b_config() {
  return Json{{"architectures", {"Qwen3ForCausalLM"}},
              {"attention_bias", false},
              {"attention_dropout", 0.0},
              {"bos_token_id", 151643},
              {"eos_token_id", 151645},
              {"head_dim", 128},
              {"hidden_act", "silu"},
              {"hidden_size", 1024},
              {"initializer_range", 0.02},
              {"intermediate_size", 3072},
              {"max_position_embeddings", 40960},
              {"max_window_layers", 28},
              {"model_type", "qwen3"},
              {"num_attention_heads", 16},
              {"num_hidden_layers", 28},
              {"num_key_value_heads", 8},
              {"rms_norm_eps", 1e-06},
              {"rope_scaling", nullptr},
              {"rope_theta", 1000000},
              {"sliding_window", nullptr},
              {"tie_word_embeddings", true},
              {"torch_dtype", "bfloat16"},
              {"use_cache", true},
              {"use_sliding_window", false},
              {"vocab_size", 151936}};
}

}  // namespace

class TestEstimate : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void formulasCountTheBuiltModel_data();
  void formulasCountTheBuiltModel();
  void activationsStartAtTheLowestLayerWithAGraph();
  void loadingCanBeThePeak();
  void checkpointedPeakIsTheLargerMoment();
  void estimateWithinFifteenPercentOfMeasuredPeak_data();
  void estimateWithinFifteenPercentOfMeasuredPeak();
  void dryRunOfARealSizeModelAnswersInSeconds();
  void runBeyondAvailableMemoryIsRefused();

 private:
  QTemporaryDir m_tmp;
  std::string m_model;  // a folder with the Qwen3-0.6B config.json alone
  std::string m_text;   // a small corpus
  Json spec(const Json& plans) const;
  std::pair<int, std::string> cli(const QStringList& args, const QProcessEnvironment& env,
                                  std::string* err = nullptr) const;
};

void TestEstimate::initTestCase() {
  QVERIFY(m_tmp.isValid());
  const fs::path dir = m_tmp.path().toStdString();
  m_model = (dir / "qwen3-0.6b-config-only").string();
  fs::create_directories(m_model);
  std::ofstream(m_model + "/config.json") << qwen3_06b_config().dump(2);
  m_text = (dir / "text.txt").string();
  std::ofstream out(m_text);
  for (int i = 0; i < 200; ++i) out << "Line " << i << " of a small corpus for the spec.\n";
}

Json TestEstimate::spec(const Json& plans) const {
  return Json{
      {"version", 1},
      {"name", "estimate"},
      {"model", m_model},
      {"data", {{"original", {{"eval", m_text}}}, {"new", {{"train", m_text}, {"eval", m_text}}}}},
      {"plans", plans},
      {"train", {{"steps", 10}, {"seq_len", 256}, {"batch_size", 4}}},
      {"eval", {{"batch_size", 4}}}};
}

std::pair<int, std::string> TestEstimate::cli(const QStringList& args,
                                              const QProcessEnvironment& env,
                                              std::string* err) const {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(GB_CLI_PATH), args);
  p.closeWriteChannel();
  p.waitForFinished(300000);
  if (err) *err = p.readAllStandardError().toStdString();
  return {p.exitCode(), p.readAllStandardOutput().toStdString()};
}

void TestEstimate::formulasCountTheBuiltModel_data() {
  QTest::addColumn<QString>("config");
  QTest::addColumn<QString>("plan");
  const std::string tiny = ex::tiny_llama_config(512, Json::object()).dump();
  Json gqa = ex::tiny_llama_config(512, {{"num_key_value_heads", 2}});
  gqa["model_type"] = "qwen3";
  gqa["architectures"] = {"Qwen3ForCausalLM"};
  gqa["tie_word_embeddings"] = false;
  for (const auto& [name, c] : {std::pair{"tiny", tiny}, std::pair{"qwen3 gqa", gqa.dump()}}) {
    for (const char* plan :
         {R"({"variant": "full"})", R"({"variant": "lora", "rank": 8})",
          R"({"variant": "freeze", "bottom": 2})",
          R"({"variant": "grow", "k": 2, "mode": "freeze", "layers": [1, 3]})"}) {
      QTest::newRow((std::string(name) + " " + plan).c_str())
          << QString::fromStdString(c) << QString::fromUtf8(plan);
    }
  }
}

// Weights, gradients and optimizer state come from the parameter counts: they must be the
// built model's (the variant estimates' counts are exact for these plans).
void TestEstimate::formulasCountTheBuiltModel() {
  QFETCH(QString, config);
  QFETCH(QString, plan);
  const gb::ModelConfig c = gb::parse_config(Json::parse(config.toStdString()), "config");
  const gb::grow::GrowthPlan p = gb::grow::parse_plan(Json::parse(plan.toStdString()));
  ex::StepShape shape;
  const ex::MemoryEstimate e = ex::estimate_memory(c, p, shape);
  gb::CausalLM model(c);
  gb::grow::GrowthResult g = gb::grow::apply_plan(*model, p);
  const int64_t total = gb::count_parameters(*model), trainable = g.trainable_params;
  QCOMPARE(e.params + e.added, total);
  QCOMPARE(e.trainable, trainable);
  QCOMPARE(e.weights, 4 * total);
  QCOMPARE(e.gradients + e.optimizer, 12 * trainable);
  QCOMPARE(e.state(), ex::state_bytes(total, trainable));
  QCOMPARE(e.load, 4 * total + ex::kRuntimeBytes);  // built float32 before any narrowing
  // Activations and logits scale with the tokens of a micro-batch.
  shape.batch_size *= 2;
  const ex::MemoryEstimate twice = ex::estimate_memory(c, p, shape);
  QCOMPARE(twice.activations, 2 * e.activations);
  QCOMPARE(twice.logits, 2 * e.logits);
  QCOMPARE(twice.state(), e.state());
  QVERIFY(e.activations > 0 && e.logits > 0 && e.eval > 0);
}

// A plan that freezes the embedding and every layer below its lowest trainable one keeps no
// activations there (autograd builds no graph); one whose embedding trains keeps every
// layer's, and so does a policy (its layers are known only when the run starts).
void TestEstimate::activationsStartAtTheLowestLayerWithAGraph() {
  const gb::ModelConfig c = gb::parse_config(qwen3_06b_config(), "config");
  QCOMPARE(c.num_layers, int64_t(28));
  ex::StepShape shape;
  const auto est = [&](const char* plan) {
    return ex::estimate_memory(c, gb::grow::parse_plan(Json::parse(plan)), shape);
  };
  const int64_t final_norm = 2 * c.hidden_size * 4;  // the final norm's input and output
  const ex::MemoryEstimate full = est(R"({"variant": "full"})");
  const ex::MemoryEstimate top4 = est(R"({"variant": "freeze", "bottom": 24})");
  const ex::MemoryEstimate top4_embedding =
      est(R"({"variant": "freeze", "bottom": 24, "freeze_embedding": false})");
  QCOMPARE(top4_embedding.activations, full.activations);
  const double per_layer_full = static_cast<double>(full.activations_per_token - final_norm) / 28;
  const double per_layer_top4 = static_cast<double>(top4.activations_per_token - final_norm) / 4;
  QVERIFY2(std::fabs(per_layer_top4 / per_layer_full - 1.0) < 0.01,
           fmt::format("{} {}", per_layer_top4, per_layer_full).c_str());
  // Grow and LoRA on the top four layers: four layers' graph; on every layer or by a policy:
  // all 28.
  const ex::MemoryEstimate grow_top4 =
      est(R"({"variant": "grow", "k": 2, "mode": "freeze", "layers": [24, 25, 26, 27]})");
  const ex::MemoryEstimate grow_all = est(R"({"variant": "grow", "k": 2, "mode": "freeze"})");
  QVERIFY(grow_top4.activations < grow_all.activations / 5);
  const ex::MemoryEstimate lora_top4 =
      est(R"({"variant": "lora", "rank": 8, "layers": [24, 25, 26, 27]})");
  const ex::MemoryEstimate lora_policy =
      est(R"({"variant": "lora", "rank": 8, "layers": {"policy": "update-magnitude", "k": 4}})");
  QVERIFY(lora_top4.activations < lora_policy.activations / 5);
  QVERIFY(static_cast<double>(lora_policy.activations_per_token - final_norm) >
          27 * per_layer_full);
}

// A run loads and grows its model at the run's dtype before the frozen part is narrowed:
// with the bf16 base and checkpointing, the Qwen3-0.6B shape's LoRA step needs less than
// that (bench_train_step measured 2.57 GiB for the whole process: the load, estimated at
// 2.29 GiB; the steps alone 1.97 GiB).
void TestEstimate::loadingCanBeThePeak() {
  const gb::ModelConfig c = gb::parse_config(qwen3_06b_config(), "config");
  const auto plan = gb::grow::parse_plan(Json{
      {"variant", "lora"}, {"rank", 16}, {"targets", {"q", "k", "v", "o", "gate", "up", "down"}}});
  ex::StepShape shape;
  shape.batch_size = 4;
  shape.seq_len = 256;
  shape.checkpointing = true;
  const ex::MemoryEstimate f32 = ex::estimate_memory(c, plan, shape);
  shape.frozen_dtype = "bfloat16";
  const ex::MemoryEstimate bf16 = ex::estimate_memory(c, plan, shape);
  QCOMPARE(bf16.load, f32.load);
  QCOMPARE(bf16.load, 4 * (bf16.params + bf16.added) + ex::kRuntimeBytes);
  QVERIFY(bf16.weights < f32.weights * 6 / 10);
  QVERIFY(f32.peak() > f32.load);  // float32 weights: the step outgrows the load
  QVERIFY2(bf16.training() < bf16.load, ex::format_bytes(bf16.training()).c_str());
  QCOMPARE(bf16.peak(), bf16.load);
}

// With checkpointing the cross-entropy's tensors are freed before the layers' gradients
// form: the step's peak is the larger of the two moments (measured on the SmolLM2-135M shape,
// full fine-tuning, logits not chunked: 2.41 GiB; the sum would be 2.94 GiB).
void TestEstimate::checkpointedPeakIsTheLargerMoment() {
  Json j = qwen3_06b_config();
  j["vocab_size"] = 32000;
  j["num_hidden_layers"] = 4;
  const gb::ModelConfig c = gb::parse_config(j, "config");
  const auto full = gb::grow::parse_plan(Json{{"variant", "full"}});
  ex::StepShape shape;
  shape.batch_size = 4;
  shape.seq_len = 256;
  shape.ce_chunk = 0;
  const ex::MemoryEstimate plain = ex::estimate_memory(c, full, shape);
  QCOMPARE(plain.apart, int64_t(0));
  shape.checkpointing = true;
  const ex::MemoryEstimate e = ex::estimate_memory(c, full, shape);
  const int64_t head_grad = 4 * c.vocab_size * c.hidden_size;
  QCOMPARE(e.apart, std::min(e.logits, e.gradients - head_grad));
  QCOMPARE(e.training(), e.state() + e.activations + e.logits + e.runtime - e.apart);
  // LoRA's few gradients: nearly the whole sum.
  const ex::MemoryEstimate lora =
      ex::estimate_memory(c, gb::grow::parse_plan(Json{{"variant", "lora"}, {"rank", 8}}), shape);
  QCOMPARE(lora.apart, lora.gradients);
}

void TestEstimate::estimateWithinFifteenPercentOfMeasuredPeak_data() {
  QTest::addColumn<QString>("config");
  QTest::addColumn<QString>("plan");
  QTest::addColumn<int>("batch");
  QTest::addColumn<int>("seqLen");
  QTest::addColumn<int>("ceChunk");
  QTest::addColumn<bool>("checkpointing");
  // The tiny preset's architecture and vocabulary (4096) at the quickstart's shape.
  const std::string tiny = ex::tiny_llama_config(4096, Json::object()).dump();
  QTest::newRow("tiny preset, full")
      << QString::fromStdString(tiny) << R"({"variant": "full"})" << 8 << 128 << -1 << false;
  QTest::newRow("tiny preset, LoRA")
      << QString::fromStdString(tiny) << R"({"variant": "lora", "rank": 8})" << 8 << 128 << -1
      << false;
  // A larger Qwen3-shaped model: grouped kv heads, q/k norms, a 32k vocabulary.
  Json q = qwen3_06b_config();
  q["hidden_size"] = 512;
  q["intermediate_size"] = 1536;
  q["num_hidden_layers"] = 4;
  q["num_attention_heads"] = 8;
  q["num_key_value_heads"] = 4;
  q["head_dim"] = 64;
  q["vocab_size"] = 32000;
  q["torch_dtype"] = "float32";
  QTest::newRow("qwen3-shaped 29M, full")
      << QString::fromStdString(q.dump()) << R"({"variant": "full"})" << 4 << 256 << -1 << false;
  QTest::newRow("qwen3-shaped 29M, LoRA")
      << QString::fromStdString(q.dump()) << R"({"variant": "lora", "rank": 16})" << 4 << 256 << -1
      << false;
  // Only the top layer trains and the embedding is frozen: no graph below it (the estimate
  // counts one layer's activations, not four).
  QTest::newRow("qwen3-shaped 29M, G-Freeze on the top layer")
      << QString::fromStdString(q.dump())
      << R"({"variant": "grow", "k": 2, "mode": "freeze", "layers": [3]})" << 4 << 256 << -1
      << false;
  QTest::newRow("qwen3-shaped 29M, LoRA on every linear")
      << QString::fromStdString(q.dump()) << R"({"variant": "lora", "rank": 16,
             "targets": ["q", "k", "v", "o", "gate", "up", "down"]})"
      << 4 << 256 << -1 << false;
  // The memory savers (train.ce_chunk, train.checkpointing; tests/tst_memory.cpp).
  const QString all_linears = R"({"variant": "lora", "rank": 16,
             "targets": ["q", "k", "v", "o", "gate", "up", "down"]})";
  QTest::newRow("qwen3-shaped 29M, LoRA on every linear, chunked cross-entropy")
      << QString::fromStdString(q.dump()) << all_linears << 4 << 256 << 128 << false;
  QTest::newRow("qwen3-shaped 29M, LoRA on every linear, chunked, checkpointing")
      << QString::fromStdString(q.dump()) << all_linears << 4 << 256 << 128 << true;
  QTest::newRow("qwen3-shaped 29M, full, chunked, checkpointing")
      << QString::fromStdString(q.dump()) << R"({"variant": "full"})" << 4 << 256 << 128 << true;
  // Not a row: the frozen base in bf16 (frozen_dtype). Its steps keep more than the
  // estimate counts (0.88 of the measured peak at this shape, 0.80 with checkpointing; at
  // the Qwen3-0.6B shape 0.96 and 0.87): docs/performance.md, "Not yet measured or met".
}

void TestEstimate::estimateWithinFifteenPercentOfMeasuredPeak() {
  QFETCH(QString, config);
  QFETCH(QString, plan);
  QFETCH(int, batch);
  QFETCH(int, seqLen);
  QFETCH(int, ceChunk);
  QFETCH(bool, checkpointing);
  const Json request = {{"config", Json::parse(config.toStdString())},
                        {"plan", Json::parse(plan.toStdString())},
                        {"batch_size", batch},
                        {"seq_len", seqLen},
                        {"ce_chunk", ceChunk},
                        {"checkpointing", checkpointing}};
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(kChildEnv, QString::fromStdString(request.dump()));
  env.insert("OPENBLAS_NUM_THREADS", "1");
  p.setProcessEnvironment(env);
  p.start(QCoreApplication::applicationFilePath(), {});
  QVERIFY(p.waitForFinished(600000));
  const std::string out = p.readAllStandardOutput().toStdString();
  QVERIFY2(p.exitCode() == 0, (out + p.readAllStandardError().toStdString()).c_str());
  const Json m = Json::parse(out);
  const double measured = m.at("growth").get<double>();
  ex::StepShape shape;
  shape.batch_size = batch;
  shape.seq_len = seqLen;
  shape.ce_chunk = ceChunk;
  shape.checkpointing = checkpointing;
  const gb::ModelConfig c = gb::parse_config(request["config"], "config");
  const ex::MemoryEstimate e = ex::estimate_memory(c, gb::grow::parse_plan(request["plan"]), shape);
  // The child trains without evaluating: its peak is the training step's or the load's.
  const int64_t peak = std::max(e.training(), e.load);
  const double estimated = static_cast<double>(peak);
  const double ratio = estimated / measured;
  const std::string what = fmt::format(
      "estimated {} (training {}: state {}, activations {}, logits {}, runtime {}; load {}), "
      "measured {} ({:.3f})",
      ex::format_bytes(peak), ex::format_bytes(e.training()), ex::format_bytes(e.state()),
      ex::format_bytes(e.activations), ex::format_bytes(e.logits), ex::format_bytes(e.runtime),
      ex::format_bytes(e.load), ex::format_bytes(static_cast<int64_t>(measured)), ratio);
  qInfo("%s", what.c_str());
  QVERIFY2(std::fabs(ratio - 1.0) <= 0.15, what.c_str());
}

// The 0.6B config without weights: the dry run reads config.json and answers in seconds
// with the per-plan memory; nothing is loaded or built.
void TestEstimate::dryRunOfARealSizeModelAnswersInSeconds() {
  const fs::path path = fs::path(m_tmp.path().toStdString()) / "dry.json";
  std::ofstream(path) << spec(Json::array({Json{{"variant", "full"}},
                                           Json{{"variant", "lora"}, {"rank", 16}}}))
                             .dump();
  const std::string db = (fs::path(m_tmp.path().toStdString()) / "dry.db").string();
  QElapsedTimer timer;
  timer.start();
  auto [code, out] = cli({"run", QString::fromStdString(path.string()), "--dry-run", "--json",
                          "--db", QString::fromStdString(db)},
                         QProcessEnvironment::systemEnvironment());
  const qint64 ms = timer.elapsed();
  QVERIFY2(code == 0, out.c_str());
  QVERIFY2(ms < 10000, std::to_string(ms).c_str());
  const Json runs = Json::parse(out);
  QCOMPARE(runs.size(), size_t(2));
  const Json& full = runs[0]["memory"];
  const Json& lora = runs[1]["memory"];
  QVERIFY2(!runs[0].contains("estimated_s"), out.c_str());  // no timing pilot by default
  const gb::ModelConfig c = gb::parse_config(qwen3_06b_config(), "config");
  QCOMPARE(full["params"].get<int64_t>(), c.param_count());
  QCOMPARE(full["trainable"].get<int64_t>(), c.param_count());
  QVERIFY(lora["trainable"].get<int64_t>() < c.param_count() / 20);
  // 596 M float32 weights, and full fine-tuning's gradients and moments on top.
  QCOMPARE(full["weights_bytes"].get<int64_t>(), 4 * c.param_count());
  QVERIFY(full["peak_bytes"].get<int64_t>() > 16 * c.param_count());
  // LoRA saves the gradients and moments of nearly every parameter, not the activations.
  QVERIFY(lora["peak_bytes"].get<int64_t>() <
          full["peak_bytes"].get<int64_t>() - full["optimizer_bytes"].get<int64_t>());
  for (const char* k : {"gradients_bytes", "optimizer_bytes", "activations_per_token_bytes",
                        "activations_bytes", "logits_bytes", "eval_bytes", "trainable_share"}) {
    QVERIFY2(full.contains(k), k);
  }
  QVERIFY(!fs::exists(db));
  // The text form names the figures per plan.
  std::tie(code, out) = cli({"run", QString::fromStdString(path.string()), "--dry-run", "--db",
                             QString::fromStdString(db)},
                            QProcessEnvironment::systemEnvironment());
  QCOMPARE(code, 0);
  for (const char* s : {"peak", "weights", "activations", "logits", "trainable"}) {
    QVERIFY2(out.find(s) != std::string::npos, out.c_str());
  }
}

// A run whose estimate exceeds the available memory stops before anything loads: exit 4,
// the memory it needs and what would fit; the store gets no run. --force-memory runs it.
void TestEstimate::runBeyondAvailableMemoryIsRefused() {
  const fs::path path = fs::path(m_tmp.path().toStdString()) / "big.json";
  std::ofstream(path) << spec(Json::array({Json{{"variant", "full"}}})).dump();
  const std::string db = (fs::path(m_tmp.path().toStdString()) / "big.db").string();
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("GB_MEM_AVAILABLE_MB", "4096");
  std::string err;
  auto [code, out] =
      cli({"run", QString::fromStdString(path.string()), "--db", QString::fromStdString(db)}, env,
          &err);
  QVERIFY2(code == 4, (std::to_string(code) + ": " + err).c_str());
  for (const char* s : {"needs", "GiB", "available", "LoRA", "batch_size", "--force-memory"}) {
    QVERIFY2(err.find(s) != std::string::npos, (s + std::string(": ") + err).c_str());
  }
  QVERIFY2(!fs::exists(db), "the store was created");
  // Forced, the run starts (and fails here: the folder has no weights): never `running`.
  std::tie(code, out) = cli({"run", QString::fromStdString(path.string()), "--db",
                             QString::fromStdString(db), "--force-memory"},
                            env, &err);
  QVERIFY2(code != 4 && code != 0, err.c_str());
  QVERIFY2(err.find("--force-memory") == std::string::npos, err.c_str());
  if (fs::exists(db)) {
    gb::store::Store store = gb::store::Store::open(db);
    for (const auto& r : store.list_runs()) {
      QVERIFY(r.status != gb::store::RunStatus::Running);
    }
  }
}

int main(int argc, char** argv) {
  if (const char* request = std::getenv(kChildEnv)) {
    // The same allocator settings as growbench-cli run (util/allocator.h).
    gb::reexec_with_allocator_tunables(argv);
    try {
      return measure_child(request);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "measure: %s\n", e.what());
      return 1;
    }
  }
  QCoreApplication app(argc, argv);
  TestEstimate t;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&t, argc, argv);
}

#include "tst_estimate.moc"
