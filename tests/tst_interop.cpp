// Interoperability, through the real growbench-cli on the Llama reference fixture:
// - PEFT LoRA adapters: `export --format peft` writes PEFT's key names, shapes and config
//   fields; an adapter written here the way PEFT writes one imports ({"variant": "lora",
//   "from_peft": DIR}) with PEFT's scaling (lora_alpha / r, rsLoRA lora_alpha / √r) against a
//   merged reference computed in the test; export → import gives bit-identical logits;
//   `grow --peft` merges within a scale-relative bound; unsupported adapters fail clearly;
//   `run` trains a plan from an adapter and `export --run` writes it back.
// - `eval --json`: the lm-evaluation-harness layout, and its values against log-likelihoods
//   and standard errors computed here by hand.
// - `runs export --format tensorboard`: the event file read back by a reader written here
//   (TFRecord framing, CRC-32C computed bit by bit, protobuf decoded by field number) equals
//   the store's metric rows.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <torch/torch.h>

#include "data/tasks.h"
#include "data/tokenized.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "grow/lora.h"
#include "grow/peft.h"
#include "model/hf_io.h"
#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "store/tensorboard.h"
#include "test_models.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct CliResult {
  int code = -1;
  QByteArray out, err;
};

CliResult run_cli(const QStringList& args) {
  QProcess p;
  p.setProgram(QStringLiteral(GB_CLI_PATH));
  p.setArguments(args);
  p.start();
  CliResult r;
  if (!p.waitForFinished(600000)) {
    r.err = "growbench-cli did not finish";
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

torch::Tensor read(const gb::st::File& f, const std::string& name) {
  const gb::st::TensorInfo& info = f.at(name);
  return gb::st::to_tensor(info, f.data(info));
}

// JSON as text, for QCOMPARE (a failed comparison shows both).
QString js(const Json& j) {
  return QString::fromStdString(j.dump());
}

std::string words(int count, uint32_t seed) {
  static const char* const kWords[] = {
      "the",   "model",  "learns", "new",    "facts",   "without", "forgetting", "old",
      "ones",  "a",      "small",  "layer",  "grows",   "wider",   "and",        "deeper",
      "while", "its",    "units",  "keep",   "what",    "they",    "know",       "about",
      "words", "cities", "people", "rivers", "quickly", "slowly",  "German",     "English"};
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < count; ++i) {
    out += kWords[rng() % 32];
    out += (i % 9 == 8) ? ".\n" : " ";
  }
  return out;
}

void copy_folder(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
  }
}

torch::Tensor logits_of(gb::CausalLMImpl& m, const torch::Tensor& ids) {
  torch::NoGradGuard ng;
  m.eval();
  return m.forward(ids).to(torch::kFloat);
}

// max |a - b| / max |b|: a bound relative to the logits' scale.
double rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / b.abs().max().item<double>();
}

// ---- an independent TFRecord / protobuf reader -------------------------------------------

// CRC-32C bit by bit (no table), and TFRecord's mask.
uint32_t crc32c_bitwise(const std::string& s) {
  uint32_t c = 0xffffffffu;
  for (unsigned char ch : s) {
    c ^= ch;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
  }
  return ~c;
}
uint32_t masked(uint32_t c) {
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}
uint64_t le(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(s[at + i])) << (8 * i);
  return v;
}

struct Field {
  uint32_t number = 0;
  int wire = 0;
  uint64_t value = 0;  // varint, fixed32, fixed64
  std::string bytes;   // length-delimited
};
std::vector<Field> decode_message(const std::string& s) {
  std::vector<Field> out;
  size_t i = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; i < s.size(); shift += 7) {
      const uint8_t b = static_cast<uint8_t>(s[i++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::runtime_error("truncated varint");
  };
  while (i < s.size()) {
    Field f;
    const uint64_t key = varint();
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<int>(key & 7);
    if (f.wire == 0) {
      f.value = varint();
    } else if (f.wire == 1) {
      f.value = le(s, i, 8);
      i += 8;
    } else if (f.wire == 5) {
      f.value = le(s, i, 4);
      i += 4;
    } else if (f.wire == 2) {
      const uint64_t n = varint();
      f.bytes = s.substr(i, n);
      i += n;
    } else {
      throw std::runtime_error("unexpected wire type");
    }
    if (i > s.size()) throw std::runtime_error("field beyond the message");
    out.push_back(f);
  }
  return out;
}

struct Event {
  double wall_time = 0;
  int64_t step = 0;
  std::string file_version;
  std::string tag;
  float value = 0;
  bool scalar = false;
};

// Reads every record of an event file; QVERIFY-style failures as exceptions.
std::vector<Event> read_events(const std::string& path) {
  const std::string s = gb::read_file(path);
  std::vector<Event> events;
  size_t at = 0;
  while (at < s.size()) {
    if (at + 12 > s.size()) throw std::runtime_error("truncated record header");
    const uint64_t len = le(s, at, 8);
    if (masked(crc32c_bitwise(s.substr(at, 8))) != le(s, at + 8, 4)) {
      throw std::runtime_error("bad length CRC");
    }
    if (at + 12 + len + 4 > s.size()) throw std::runtime_error("truncated record");
    const std::string data = s.substr(at + 12, len);
    if (masked(crc32c_bitwise(data)) != le(s, at + 12 + len, 4)) {
      throw std::runtime_error("bad data CRC");
    }
    at += 12 + len + 4;
    Event e;
    for (const Field& f : decode_message(data)) {
      if (f.number == 1 && f.wire == 1) {
        std::memcpy(&e.wall_time, &f.value, 8);
      } else if (f.number == 2 && f.wire == 0) {
        e.step = static_cast<int64_t>(f.value);
      } else if (f.number == 3 && f.wire == 2) {
        e.file_version = f.bytes;
      } else if (f.number == 5 && f.wire == 2) {
        for (const Field& v : decode_message(f.bytes)) {  // Summary.value = 1
          if (v.number != 1 || v.wire != 2) throw std::runtime_error("unexpected Summary field");
          for (const Field& x : decode_message(v.bytes)) {
            if (x.number == 1 && x.wire == 2) e.tag = x.bytes;
            if (x.number == 2 && x.wire == 5) {
              const uint32_t bits = static_cast<uint32_t>(x.value);
              std::memcpy(&e.value, &bits, 4);
              e.scalar = true;
            }
          }
        }
      } else {
        throw std::runtime_error("unexpected Event field " + std::to_string(f.number));
      }
    }
    events.push_back(e);
  }
  return events;
}

std::vector<fs::path> event_files(const fs::path& dir) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) v.push_back(e.path());
  }
  return v;
}

}  // namespace

class TestInterop : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void peftExportHasPeftKeysShapesAndConfig();
  void peftExportThenImportGivesIdenticalLogits();
  void peftMergedEqualsUnmergedLora();
  void peftAdapterIsReadOnceUntilItChanges();
  void peftAdapterAsPeftWritesItImportsWithItsScaling_data();
  void peftAdapterAsPeftWritesItImportsWithItsScaling();
  void peftUnsupportedAdaptersFailClearly_data();
  void peftUnsupportedAdaptersFailClearly();
  void runTrainsAPeftPlanAndExportsItBack();
  void evalWritesHarnessShapedJson();
  void evalOfARunCheckpoint();
  void tensorboardEventsReadBackEqualTheStore();
  void tensorboardGroupExportAndRefusal();
  void crc32cCheckValue();

 private:
  // A PEFT adapter folder written as PEFT writes one: tensors for `modules` (layer, HF path
  // inside the layer) with rank r, and the config of PEFT 0.19 with `overrides`.
  std::string write_peft_adapter(const std::string& name, int64_t r, double lora_alpha,
                                 const std::vector<std::pair<int64_t, std::string>>& modules,
                                 const Json& overrides, uint64_t seed);
  std::string path(const std::string& name) const {
    return (fs::path(m_tmp.path().toStdString()) / name).string();
  }
  void ensure_run();

  QTemporaryDir m_tmp;
  std::string m_model;      // the Llama fixture with a trained tokenizer
  std::string m_lora_ckpt;  // a GrowBench checkpoint of a LoRA plan with trained B
  std::string m_adapter;    // exported from m_lora_ckpt with --format peft
  std::string m_db;         // a store with one finished run of a from_peft plan
  torch::Tensor m_ids;      // (2, 17)
  torch::Tensor m_lora_logits;
  gb::grow::GrowthPlan m_lora_plan;
};

void TestInterop::initTestCase() {
  torch::set_num_threads(1);
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  // GB_KEEP_TEST_DIR=1 keeps the folder (adapters, event files, JSON) for a look by hand.
  if (qEnvironmentVariableIsSet("GB_KEEP_TEST_DIR")) {
    m_tmp.setAutoRemove(false);
    qInfo("keeping %s", qPrintable(m_tmp.path()));
  }
  m_model = path("llama");
  copy_folder(gb::test::fixture_dir("llama"), m_model);
  fs::remove(fs::path(m_model) / "reference.json");
  gb::write_file_atomic(
      m_model + "/tokenizer.json",
      gb::tok::train_byte_level_bpe({words(3000, 1), words(3000, 2)}, 512, {"<|endoftext|>"}));
  gb::LoadedModel base = gb::grow::load_model(m_model);
  m_ids = gb::test::random_ids(*base.model);

  // LoRA on q, v and down of layer 1 only (so layers_to_transform is written), with A and B
  // drawn at random: a trained adapter.
  m_lora_plan = gb::grow::parse_plan(Json::parse(
      R"({"variant":"lora","rank":4,"alpha":8,"targets":["q","v","down"],"layers":[1]})"));
  gb::grow::ApplyContext ctx;
  ctx.seed = 3;
  auto r = gb::grow::apply_plan(*base.model, m_lora_plan, ctx);
  {
    torch::NoGradGuard ng;
    auto gen = at::detail::createCPUGenerator(11);
    for (auto& g : r.groups) {
      for (auto& p : g.params) p.copy_(torch::randn(p.sizes(), gen) * 0.2);
    }
  }
  m_lora_logits = logits_of(*base.model, m_ids);
  m_lora_ckpt = path("lora-ckpt");
  gb::grow::save_model(*base.model, base.config, &r.plan, m_lora_ckpt, m_model,
                       gb::grow::SaveFormat::GrowBench);
  m_adapter = path("adapter");
  CliResult e = run_cli({"export", q(m_lora_ckpt), "--format", "peft", "--out", q(m_adapter)});
  QVERIFY2(e.code == 0, e.err.constData());
}

void TestInterop::peftExportHasPeftKeysShapesAndConfig() {
  const Json c = gb::json::parse_file(m_adapter + "/adapter_config.json");
  QCOMPARE(js(c.at("peft_type")), js(Json("LORA")));
  QCOMPARE(js(c.at("task_type")), js(Json("CAUSAL_LM")));
  QCOMPARE(js(c.at("r")), js(Json(4)));
  QVERIFY(c.at("lora_alpha").is_number_integer());
  QCOMPARE(js(c.at("lora_alpha")), js(Json(8)));
  QCOMPARE(js(c.at("lora_dropout")), js(Json(0.0)));
  QCOMPARE(js(c.at("bias")), js(Json("none")));
  QCOMPARE(js(c.at("fan_in_fan_out")), js(Json(false)));
  QCOMPARE(js(c.at("use_rslora")), js(Json(false)));
  QCOMPARE(js(c.at("use_dora")), js(Json(false)));
  QCOMPARE(js(c.at("inference_mode")), js(Json(true)));
  QCOMPARE(js(c.at("layers_to_transform")), js(Json::array({1})));
  QCOMPARE(js(c.at("layers_pattern")), js(Json("layers")));
  QVERIFY(c.at("modules_to_save").is_null());
  QVERIFY(c.at("base_model_name_or_path").is_null());  // a checkpoint: no base folder
  std::set<std::string> targets;
  for (const auto& t : c.at("target_modules")) targets.insert(t.get<std::string>());
  QCOMPARE(targets, (std::set<std::string>{"q_proj", "v_proj", "down_proj"}));

  gb::st::File f(m_adapter + "/adapter_model.safetensors");
  QCOMPARE(f.header().metadata.at("format"), std::string("pt"));
  // PEFT's key names and shapes: lora_A (r, in), lora_B (out, r).
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight", {4, 64}},
      {"base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight", {64, 4}},
      {"base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight", {4, 64}},
      {"base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight", {64, 4}},
      {"base_model.model.model.layers.1.mlp.down_proj.lora_A.weight", {4, 160}},
      {"base_model.model.model.layers.1.mlp.down_proj.lora_B.weight", {64, 4}},
  };
  std::map<std::string, std::vector<int64_t>> found;
  for (const auto& t : f.header().tensors) {
    found[t.name] = t.shape;
    QCOMPARE(std::string(gb::st::dtype_name(t.dtype)), std::string("F32"));
  }
  QCOMPARE(found, expected);
  // The values are the LoRA units' own.
  gb::LoadedModel m = gb::grow::load_model(m_lora_ckpt);
  auto lora =
      std::dynamic_pointer_cast<gb::grow::LoraLinearImpl>(m.model->layer(1)->linear("down"));
  QVERIFY(lora);
  auto a = read(f, "base_model.model.model.layers.1.mlp.down_proj.lora_A.weight");
  auto b = read(f, "base_model.model.model.layers.1.mlp.down_proj.lora_B.weight");
  QVERIFY(torch::equal(a, lora->lora_A));
  QVERIFY(torch::equal(b, lora->lora_B));
}

void TestInterop::peftExportThenImportGivesIdenticalLogits() {
  const auto plan = gb::grow::parse_plan(Json{{"variant", "lora"}, {"from_peft", m_adapter}});
  QCOMPARE(plan.from_peft, fs::absolute(m_adapter).lexically_normal().string());
  const auto& p = plan.get<gb::grow::LoraParams>();
  QCOMPARE(p.rank, int64_t{4});
  QCOMPARE(p.alpha, 8.0);
  QCOMPARE(p.targets, (std::vector<std::string>{"q", "v", "down"}));
  QCOMPARE(p.layers.layers, (std::vector<int64_t>{1}));
  // The plan's JSON names the adapter and parses back to the same plan.
  const Json j = gb::grow::to_json(plan);
  QCOMPARE(j.at("from_peft").get<std::string>(), plan.from_peft);
  QCOMPARE(js(gb::grow::to_json(gb::grow::parse_plan(j))), js(j));

  gb::LoadedModel m = gb::grow::load_model(m_model);
  gb::grow::ApplyContext ctx;
  ctx.seed = 99;  // a different seed: A must come from the adapter, not the initialiser
  auto r = gb::grow::apply_plan(*m.model, plan, ctx);
  QVERIFY(!r.function_preserving);  // a trained B changes the function
  QVERIFY(torch::equal(logits_of(*m.model, m_ids), m_lora_logits));
}

void TestInterop::peftMergedEqualsUnmergedLora() {
  const std::string out = path("merged");
  CliResult g = run_cli({"grow", q(m_model), "--peft", q(m_adapter), "--out", q(out)});
  QVERIFY2(g.code == 0, g.err.constData());
  QVERIFY(!fs::exists(fs::path(out) / "growbench.json"));  // a plain Hugging Face folder
  gb::LoadedModel merged = gb::load_hf_model(out);
  const torch::Tensor l = logits_of(*merged.model, m_ids);
  const double d = rel_diff(l, m_lora_logits);
  QVERIFY2(d < 1e-5, qPrintable(QString::number(d)));
  // ... and differs from the base model: the adapter did something.
  gb::LoadedModel base = gb::load_hf_model(m_model);
  QVERIFY(rel_diff(logits_of(*base.model, m_ids), m_lora_logits) > 1e-3);
}

void TestInterop::peftAdapterIsReadOnceUntilItChanges() {
  namespace peft = gb::grow::peft;
  // A copy of the exported adapter (this test rewrites its config).
  const std::string dir = path("adapter-cached");
  copy_folder(m_adapter, dir);
  const Json plan_json = {{"variant", "lora"}, {"from_peft", dir}};
  const int64_t before = peft::adapter_reads();
  const auto first = gb::grow::parse_plan(plan_json);
  QCOMPARE(peft::adapter_reads(), before + 1);
  // Parsing the plan again (a spec is parsed per sweep point and per run) and applying it
  // do not read the folder again, and give what the first read gave.
  const auto again = gb::grow::parse_plan(plan_json);
  QCOMPARE(js(gb::grow::to_json(again)), js(gb::grow::to_json(first)));
  gb::LoadedModel m = gb::grow::load_model(m_model);
  auto r = gb::grow::apply_plan(*m.model, again, {});
  QVERIFY(!r.function_preserving);  // the adapter's weights were loaded
  QVERIFY(torch::equal(logits_of(*m.model, m_ids), m_lora_logits));
  QCOMPARE(peft::adapter_reads(), before + 1);
  // The same folder by another spelling is the same adapter.
  gb::grow::parse_plan(Json{{"variant", "lora"}, {"from_peft", dir + "/./"}});
  QCOMPARE(peft::adapter_reads(), before + 1);

  // A changed adapter (rewritten in place: a new size and modification time) is read again.
  const std::string config = dir + "/" + peft::kConfigFile;
  Json c = gb::json::parse_file(config);
  QCOMPARE(c.at("lora_alpha").get<double>(), 8.0);
  c["lora_alpha"] = 16;
  const auto old_size = fs::file_size(config);
  const auto old_time = fs::last_write_time(config);
  {
    std::ofstream out(config, std::ios::trunc);
    out << c.dump(2) << "\n";  // as export writes it: one byte more for "16"
  }
  fs::last_write_time(config, old_time + std::chrono::seconds(2));  // coarse clocks too
  QVERIFY(fs::file_size(config) != old_size);
  const auto changed = gb::grow::parse_plan(plan_json);
  QCOMPARE(peft::adapter_reads(), before + 2);
  QCOMPARE(changed.get<gb::grow::LoraParams>().alpha, 16.0);
  gb::grow::parse_plan(plan_json);
  QCOMPARE(peft::adapter_reads(), before + 2);
}

std::string TestInterop::write_peft_adapter(
    const std::string& name, int64_t r, double lora_alpha,
    const std::vector<std::pair<int64_t, std::string>>& modules, const Json& overrides,
    uint64_t seed) {
  const std::string dir = path(name);
  fs::create_directories(dir);
  // The fields PEFT 0.19's LoraConfig writes (peft/tuners/lora/config.py), defaults as there.
  Json c = {{"alpha_pattern", Json::object()},
            {"auto_mapping", nullptr},
            {"base_model_name_or_path", "llama"},
            {"bias", "none"},
            {"corda_config", nullptr},
            {"eva_config", nullptr},
            {"exclude_modules", nullptr},
            {"fan_in_fan_out", false},
            {"inference_mode", true},
            {"init_lora_weights", true},
            {"layer_replication", nullptr},
            {"layers_pattern", nullptr},
            {"layers_to_transform", nullptr},
            {"loftq_config", Json::object()},
            {"lora_alpha", lora_alpha},
            {"lora_bias", false},
            {"lora_dropout", 0.05},
            {"megatron_config", nullptr},
            {"megatron_core", "megatron.core"},
            {"modules_to_save", nullptr},
            {"peft_type", "LORA"},
            {"peft_version", "0.19.1"},
            {"r", r},
            {"rank_pattern", Json::object()},
            {"revision", nullptr},
            {"target_modules", Json::array()},
            {"target_parameters", nullptr},
            {"task_type", "CAUSAL_LM"},
            {"trainable_token_indices", nullptr},
            {"use_dora", false},
            {"use_qalora", false},
            {"use_rslora", false}};
  std::set<std::string> targets;
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  auto gen = at::detail::createCPUGenerator(seed);
  const std::map<std::string, std::pair<int64_t, int64_t>> shapes = {
      // (in, out)
      {"self_attn.q_proj", {64, 64}}, {"self_attn.k_proj", {64, 64}},
      {"self_attn.v_proj", {64, 64}}, {"self_attn.o_proj", {64, 64}},
      {"mlp.gate_proj", {64, 160}},   {"mlp.up_proj", {64, 160}},
      {"mlp.down_proj", {160, 64}},   {"lm_head", {64, 512}}};
  for (const auto& [layer, module] : modules) {
    const auto [in, out] = shapes.at(module);
    const std::string full =
        module == "lm_head" ? module : "model.layers." + std::to_string(layer) + "." + module;
    tensors.emplace_back("base_model.model." + full + ".lora_A.weight",
                         torch::randn({r, in}, gen) * 0.3);
    tensors.emplace_back("base_model.model." + full + ".lora_B.weight",
                         torch::randn({out, r}, gen) * 0.3);
    targets.insert(module.substr(module.rfind('.') + 1));
  }
  c["target_modules"] = std::vector<std::string>(targets.begin(), targets.end());
  for (auto it = overrides.begin(); it != overrides.end(); ++it) c[it.key()] = it.value();
  gb::write_file_atomic(dir + "/adapter_config.json", c.dump(2));
  gb::st::write_tensors(dir + "/adapter_model.safetensors", tensors, {{"format", "pt"}});
  return dir;
}

void TestInterop::peftAdapterAsPeftWritesItImportsWithItsScaling_data() {
  QTest::addColumn<bool>("rslora");
  QTest::newRow("lora_alpha / r") << false;
  QTest::newRow("rsLoRA: lora_alpha / sqrt(r)") << true;
}

void TestInterop::peftAdapterAsPeftWritesItImportsWithItsScaling() {
  QFETCH(bool, rslora);
  const int64_t r = 4;
  const double lora_alpha = 6;
  const std::vector<std::pair<int64_t, std::string>> modules = {
      {0, "self_attn.k_proj"}, {0, "self_attn.o_proj"}, {0, "mlp.gate_proj"},
      {1, "self_attn.k_proj"}, {1, "self_attn.o_proj"}, {1, "mlp.gate_proj"}};
  const std::string dir = write_peft_adapter(rslora ? "peft-rslora" : "peft-plain", r, lora_alpha,
                                             modules, {{"use_rslora", rslora}}, 5);
  // The reference: W + scaling · B A merged by hand into a plain copy of the model.
  const double scaling = rslora ? lora_alpha / std::sqrt(double(r)) : lora_alpha / double(r);
  auto weights = gb::st::read_all(m_model + "/model.safetensors");
  auto adapter = gb::st::read_all(dir + "/adapter_model.safetensors");
  for (const auto& [layer, module] : modules) {
    const std::string full = "model.layers." + std::to_string(layer) + "." + module;
    auto a = adapter.at("base_model.model." + full + ".lora_A.weight").to(torch::kDouble);
    auto b = adapter.at("base_model.model." + full + ".lora_B.weight").to(torch::kDouble);
    auto& w = weights.at(full + ".weight");
    w = (w.to(torch::kDouble) + scaling * b.matmul(a)).to(torch::kFloat);
  }
  const std::string ref = path(rslora ? "ref-rslora" : "ref-plain");
  fs::create_directories(ref);
  fs::copy_file(m_model + "/config.json", ref + "/config.json");
  std::vector<std::pair<std::string, torch::Tensor>> list(weights.begin(), weights.end());
  gb::st::write_tensors(ref + "/model.safetensors", list);
  const torch::Tensor want = logits_of(*gb::load_hf_model(ref).model, m_ids);

  const auto plan = gb::grow::parse_plan(Json{{"variant", "lora"}, {"from_peft", dir}});
  const auto& p = plan.get<gb::grow::LoraParams>();
  QCOMPARE(p.targets, (std::vector<std::string>{"k", "o", "gate"}));
  QCOMPARE(p.layers.layers, (std::vector<int64_t>{0, 1}));
  QVERIFY(std::abs(p.alpha / double(p.rank) - scaling) < 1e-12);
  gb::LoadedModel m = gb::grow::load_model(m_model);
  gb::grow::apply_plan(*m.model, plan, {});
  const torch::Tensor got = logits_of(*m.model, m_ids);
  const double d = rel_diff(got, want);
  QVERIFY2(d < 1e-5, qPrintable(QString::number(d)));
  // The adapter matters far beyond that bound (so a wrong scaling would show).
  gb::LoadedModel base = gb::grow::load_model(m_model);
  QVERIFY(rel_diff(logits_of(*base.model, m_ids), want) > 1e-2);
}

void TestInterop::peftUnsupportedAdaptersFailClearly_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("config");   // overrides (JSON)
  QTest::addColumn<QString>("modules");  // "layer:module,..."
  QTest::addColumn<QString>("change");   // a change to the files after writing
  QTest::addColumn<QString>("expected");
  auto row = [](const char* n, const char* cfg, const char* mods, const char* change,
                const char* want) {
    QTest::newRow(n) << QString::fromLatin1(n) << QString::fromLatin1(cfg)
                     << QString::fromLatin1(mods) << QString::fromLatin1(change)
                     << QString::fromLatin1(want);
  };
  const char* qv = "0:self_attn.q_proj,0:self_attn.v_proj";
  row("dora", R"({"use_dora": true})", qv, "", "'use_dora' = true is not supported: DoRA");
  row("bias", R"({"bias": "all"})", qv, "", "'bias' = \"all\" is not supported");
  row("rank_pattern", R"({"rank_pattern": {"q_proj": 8}})", qv, "", "one rank for every module");
  row("modules_to_save", R"({"modules_to_save": ["lm_head"]})", qv, "", "'modules_to_save'");
  row("not lora", R"({"peft_type": "IA3"})", qv, "", "only LoRA adapters");
  row("unknown target module", R"({"target_modules": ["q_proj", "v_proj", "lm_head"]})", qv, "",
      "unknown target module 'lm_head'");
  row("lora on the lm head", "{}", "0:self_attn.q_proj,0:lm_head", "",
      "adapts the module 'lm_head', which is not a linear unit");
  row("rank differs from r", R"({"r": 8})", qv, "", "adapter_config.json says r = 8");
  row("targets differ between layers", "{}", "0:self_attn.q_proj,1:self_attn.v_proj", "",
      "the same targets");
  row("layer beyond the model", "{}", "5:self_attn.q_proj", "", "out of range");
  row("shape of the model differs", "{}", "0:mlp.down_proj", "narrow-a", "expected [4, 160]");
  row("pickled weights only", "{}", qv, "bin-only", "adapter_model.bin");
  row("no config", "{}", qv, "no-config", "no adapter_config.json");
}

void TestInterop::peftUnsupportedAdaptersFailClearly() {
  QFETCH(QString, name);
  QFETCH(QString, config);
  QFETCH(QString, modules);
  QFETCH(QString, change);
  QFETCH(QString, expected);
  std::vector<std::pair<int64_t, std::string>> mods;
  for (const QString& m : modules.split(QLatin1Char(','))) {
    mods.emplace_back(m.section(QLatin1Char(':'), 0, 0).toLongLong(),
                      m.section(QLatin1Char(':'), 1).toStdString());
  }
  const std::string dir = write_peft_adapter("bad-" + name.toStdString(), 4, 8, mods,
                                             Json::parse(config.toStdString()), 7);
  const std::string weights = dir + "/adapter_model.safetensors";
  if (change == "narrow-a") {
    // down_proj's A as if the model's MLP were 80 wide.
    auto t = gb::st::read_all(weights);
    auto& a = t.at("base_model.model.model.layers.0.mlp.down_proj.lora_A.weight");
    a = a.narrow(1, 0, 80).contiguous();
    gb::st::write_tensors(weights, {t.begin(), t.end()});
  } else if (change == "bin-only") {
    fs::rename(weights, dir + "/adapter_model.bin");
  } else if (change == "no-config") {
    fs::remove(dir + "/adapter_config.json");
  }
  CliResult g = run_cli({"grow", q(m_model), "--peft", q(dir), "--out", q(dir + "-out")});
  const QString err = QString::fromUtf8(g.err);
  QVERIFY2(g.code == 1, qPrintable(QString::number(g.code) + ": " + err));
  QVERIFY2(err.contains(expected), qPrintable(err));
  QVERIFY(!fs::exists(dir + "-out"));
}

// One finished run of {"variant": "lora", "from_peft": "adapter"} (relative to the spec),
// trained for one step at a negligible learning rate.
void TestInterop::ensure_run() {
  if (!m_db.empty()) return;
  const std::string train = path("train.txt"), ev = path("eval.txt");
  gb::write_file_atomic(train, words(2000, 3));
  gb::write_file_atomic(ev, words(400, 4));
  const Json spec = {
      {"version", 1},
      {"name", "peft"},
      {"seed", 0},
      {"model", m_model},
      {"data", {{"original", {{"eval", ev}}}, {"new", {{"train", train}, {"eval", ev}}}}},
      {"plans", Json::array({{{"variant", "lora"}, {"from_peft", "adapter"}}})},
      {"train", {{"steps", 2}, {"seq_len", 32}, {"batch_size", 2}, {"lr", 1e-9}}},
      {"eval", {{"interval", 1}, {"tokens", 64}, {"batch_size", 2}, {"drift", false}}},
      {"probe", {{"tokens", 64}, {"seq_len", 32}, {"batch_size", 2}}}};
  const std::string spec_path = path("peft-spec.json");
  gb::write_file_atomic(spec_path, spec.dump(2));
  const std::string db = path("runs.db");
  CliResult r = run_cli({"run", q(spec_path), "--db", q(db), "--quiet"});
  QVERIFY2(r.code == 0, r.err.constData());
  m_db = db;
}

void TestInterop::runTrainsAPeftPlanAndExportsItBack() {
  ensure_run();
  QVERIFY(!m_db.empty());
  {
    gb::store::Store st = gb::store::Store::open(m_db, gb::store::OpenMode::ReadOnly);
    const Json spec = Json::parse(st.get_run(1).spec);
    // The stored plan names the adapter by its absolute path and holds its values.
    const Json plan = spec.at("plans").at(0);
    QCOMPARE(plan.at("from_peft").get<std::string>(),
             fs::absolute(m_adapter).lexically_normal().string());
    QCOMPARE(js(plan.at("rank")), js(Json(4)));
    QCOMPARE(st.get_run(1).status, gb::store::RunStatus::Finished);
  }
  const std::string out = path("run-adapter");
  CliResult e =
      run_cli({"export", "--run", "1", "--db", q(m_db), "--format", "peft", "--out", q(out)});
  QVERIFY2(e.code == 0, e.err.constData());
  const Json c = gb::json::parse_file(out + "/adapter_config.json");
  QCOMPARE(c.at("base_model_name_or_path").get<std::string>(), m_model);
  // Two AdamW steps at lr 1e-9 move each value by about 2e-9: the trained adapter is the
  // imported one (a fresh initialisation would differ by ~0.1).
  auto before = gb::st::read_all(m_adapter + "/adapter_model.safetensors");
  auto after = gb::st::read_all(out + "/adapter_model.safetensors");
  QCOMPARE(after.size(), before.size());
  for (const auto& [name, t] : before) {
    QVERIFY2(after.count(name), name.c_str());
    const double d = (after.at(name) - t).abs().max().item<double>();
    QVERIFY2(d < 1e-6, qPrintable(QString::fromStdString(name) + ": " + QString::number(d)));
  }
  // --format hf of the same run: the merged model, within float rounding of the adapter's.
  const std::string hf = path("run-hf");
  CliResult h = run_cli({"export", "--run", "1", "--db", q(m_db), "--out", q(hf)});
  QVERIFY2(h.code == 0, h.err.constData());
  const double d = rel_diff(logits_of(*gb::load_hf_model(hf).model, m_ids), m_lora_logits);
  QVERIFY2(d < 1e-5, qPrintable(QString::number(d)));
  // MODEL and --run exclude each other.
  CliResult both =
      run_cli({"export", q(m_model), "--run", "1", "--db", q(m_db), "--out", q(path("x"))});
  QCOMPARE(both.code, 2);
}

void TestInterop::evalWritesHarnessShapedJson() {
  // Multiple choice (6 items), QA (5 items) and a one-item task.
  std::string mc, qa;
  const char* ctx[] = {"The model learns", "A small layer", "Old facts",
                       "The cities",       "People know",   "Rivers flow"};
  for (int i = 0; i < 6; ++i) {
    mc += Json{{"context", ctx[i]},
               {"choices", {"new facts", "slowly", "about words and rivers"}},
               {"answer", i % 3}}
              .dump() +
          "\n";
  }
  for (int i = 0; i < 5; ++i) {
    qa += Json{{"question", std::string("What does the model learn ") + std::to_string(i)},
               {"answer", i % 2 ? "facts" : "words"}}
              .dump() +
          "\n";
  }
  gb::write_file_atomic(path("mc_task.jsonl"), mc);
  gb::write_file_atomic(path("qa_task.jsonl"), qa);
  gb::write_file_atomic(
      path("one.jsonl"),
      Json{{"context", "The"}, {"choices", {"model", "river"}}, {"answer", 0}}.dump() + "\n");
  const std::string out = path("eval.json");
  CliResult r = run_cli({"eval", q(m_model), "--tasks",
                         q(path("mc_task.jsonl") + "," + path("qa_task.jsonl")), "--tasks",
                         q(path("one.jsonl")), "--json", q(out)});
  QVERIFY2(r.code == 0, r.err.constData());
  const Json j = gb::json::parse_file(out);
  for (const char* k : {"results", "group_subtasks", "configs", "versions", "n-shot",
                        "higher_is_better", "n-samples", "config", "date"}) {
    QVERIFY2(j.contains(k), k);
  }
  QCOMPARE(j.at("results").size(), size_t{3});
  for (const char* t : {"mc_task", "qa_task", "one"}) {
    QVERIFY2(j.at("results").contains(t), t);
    QCOMPARE(js(j.at("results").at(t).at("alias")), js(Json(t)));
    QCOMPARE(js(j.at("versions").at(t)), js(Json(1.0)));
    QCOMPARE(js(j.at("n-shot").at(t)), js(Json(0)));
  }
  QCOMPARE(js(j.at("n-samples").at("mc_task")), js((Json{{"original", 6}, {"effective", 6}})));
  QCOMPARE(js(j.at("configs").at("mc_task").at("output_type")), js(Json("multiple_choice")));
  QCOMPARE(js(j.at("higher_is_better").at("mc_task")),
           js((Json{{"acc", true}, {"acc_norm", true}})));

  // By hand: each choice's log-likelihood from one full forward pass over context + choice.
  gb::LoadedModel m = gb::load_hf_model(m_model);
  const auto tok = gb::tok::Tokenizer::from_file(m_model + "/tokenizer.json");
  int hits = 0, hits_norm = 0;
  torch::NoGradGuard ng;
  for (int i = 0; i < 6; ++i) {
    const std::vector<std::string> choices = {"new facts", "slowly", "about words and rivers"};
    std::vector<double> ll, norm;
    const auto context = tok.encode(ctx[i], true);
    for (const auto& c : choices) {
      const auto cont = tok.encode(" " + c, false);
      std::vector<int64_t> ids(context.begin(), context.end());
      ids.insert(ids.end(), cont.begin(), cont.end());
      auto logp = torch::log_softmax(
          m.model->forward(torch::tensor(ids).unsqueeze(0)).to(torch::kDouble)[0], -1);
      double s = 0;
      for (size_t k = 0; k < cont.size(); ++k) {
        s += logp[static_cast<int64_t>(context.size() + k - 1)][cont[k]].item<double>();
      }
      ll.push_back(s);
      norm.push_back(s / static_cast<double>(c.size()));
    }
    hits += std::max_element(ll.begin(), ll.end()) - ll.begin() == i % 3;
    hits_norm += std::max_element(norm.begin(), norm.end()) - norm.begin() == i % 3;
  }
  // For 0/1 values the sample standard error is sqrt(p (1 - p) / (n - 1)).
  auto se = [](double p, double n) { return std::sqrt(p * (1 - p) / (n - 1)); };
  const Json& res = j.at("results").at("mc_task");
  const double acc = hits / 6.0, acc_norm = hits_norm / 6.0;
  QVERIFY2(std::abs(res.at("acc,none").get<double>() - acc) < 1e-12, res.dump().c_str());
  QVERIFY2(std::abs(res.at("acc_norm,none").get<double>() - acc_norm) < 1e-12, res.dump().c_str());
  QVERIFY(std::abs(res.at("acc_stderr,none").get<double>() - se(acc, 6)) < 1e-12);
  QVERIFY(std::abs(res.at("acc_norm_stderr,none").get<double>() - se(acc_norm, 6)) < 1e-12);
  // QA: acc (first token) and exact_match, both in [0, 1], with their errors.
  const Json& qr = j.at("results").at("qa_task");
  for (const char* k : {"acc", "exact_match"}) {
    const double p = qr.at(std::string(k) + ",none").get<double>();
    QVERIFY(p >= 0 && p <= 1 && std::abs(p * 5 - std::round(p * 5)) < 1e-9);
    QVERIFY(std::abs(qr.at(std::string(k) + "_stderr,none").get<double>() - se(p, 5)) < 1e-12);
  }
  QCOMPARE(js(j.at("configs").at("qa_task").at("output_type")), js(Json("generate_until")));
  // One item: no standard error, as the harness writes it.
  QCOMPARE(js(j.at("results").at("one").at("acc_stderr,none")), js(Json("N/A")));

  // --limit: the first N items; n-samples says so.
  CliResult l = run_cli(
      {"eval", q(m_model), "--tasks", q(path("mc_task.jsonl")), "--limit", "3", "--json", "-"});
  QVERIFY2(l.code == 0, l.err.constData());
  const Json lj = Json::parse(l.out.toStdString());
  QCOMPARE(js(lj.at("n-samples").at("mc_task")), js((Json{{"original", 6}, {"effective", 3}})));
  QCOMPARE(js(lj.at("config").at("limit")), js(Json(3)));
  // Two files with one stem are refused (the task name would repeat).
  fs::create_directories(path("other"));
  gb::write_file_atomic(path("other/mc_task.jsonl"), mc);
  CliResult dup = run_cli({"eval", q(m_model), "--tasks",
                           q(path("mc_task.jsonl") + "," + path("other/mc_task.jsonl"))});
  QCOMPARE(dup.code, 2);
  QVERIFY2(dup.err.contains("stem 'mc_task'"), dup.err.constData());
}

void TestInterop::evalOfARunCheckpoint() {
  ensure_run();
  QVERIFY(!m_db.empty());
  if (!fs::exists(path("mc_task.jsonl"))) QSKIP("evalWritesHarnessShapedJson writes the task");
  CliResult r = run_cli(
      {"eval", "--run", "1", "--db", q(m_db), "--tasks", q(path("mc_task.jsonl")), "--json", "-"});
  QVERIFY2(r.code == 0, r.err.constData());
  const Json j = Json::parse(r.out.toStdString());
  QCOMPARE(js(j.at("config").at("run_id")), js(Json(1)));
  QVERIFY(j.at("config").at("checkpoint_step").get<int64_t>() >= 1);
  QVERIFY(j.at("results").at("mc_task").contains("acc,none"));
}

void TestInterop::tensorboardEventsReadBackEqualTheStore() {
  ensure_run();
  QVERIFY(!m_db.empty());
  const std::string dir = path("tb");
  CliResult r =
      run_cli({"runs", "export", "1", "--db", q(m_db), "--format", "tensorboard", "--out", q(dir)});
  QVERIFY2(r.code == 0, r.err.constData());
  const auto files = event_files(dir);
  QCOMPARE(files.size(), size_t{1});
  std::vector<Event> events;
  try {
    events = read_events(files[0].string());
  } catch (const std::exception& e) {
    QFAIL(e.what());
  }
  gb::store::Store st = gb::store::Store::open(m_db, gb::store::OpenMode::ReadOnly);
  const auto run = st.get_run(1);
  const double t0 = run.started.value_or(run.created);
  QVERIFY(!events.empty());
  QCOMPARE(events[0].file_version, std::string("brain.Event:2"));
  QCOMPARE(events[0].wall_time, t0);
  std::multiset<std::tuple<int64_t, std::string, float>> got, want;
  for (size_t i = 1; i < events.size(); ++i) {
    QVERIFY(events[i].scalar);
    QCOMPARE(events[i].wall_time, t0);
    got.insert({events[i].step, events[i].tag, events[i].value});
  }
  const auto rows = st.metric_rows(1);
  QVERIFY(rows.size() > 10);
  for (const auto& m : rows) want.insert({m.step, m.key, static_cast<float>(m.value)});
  QCOMPARE(events.size(), rows.size() + 1);
  QVERIFY(got == want);
  // Steps never decrease through the file (TensorBoard reads it in order).
  for (size_t i = 2; i < events.size(); ++i) QVERIFY(events[i].step >= events[i - 1].step);
  // The file name: events.out.tfevents.<start seconds>.<host>.
  const std::string stem = files[0].filename().string();
  QVERIFY2(
      stem.rfind("events.out.tfevents." + std::to_string(int64_t(std::floor(t0))) + ".", 0) == 0,
      stem.c_str());
}

void TestInterop::tensorboardGroupExportAndRefusal() {
  ensure_run();
  QVERIFY(!m_db.empty());
  const std::string dir = path("tb-group");
  std::string group;
  {
    gb::store::Store st = gb::store::Store::open(m_db, gb::store::OpenMode::ReadOnly);
    group = st.get_run(1).experiment;  // "peft@<time>"
  }
  QVERIFY(group.rfind("peft@", 0) == 0);
  CliResult r = run_cli(
      {"runs", "export", q(group), "--db", q(m_db), "--format", "tensorboard", "--out", q(dir)});
  QVERIFY2(r.code == 0, r.err.constData());
  QCOMPARE(event_files(fs::path(dir) / "run-1").size(), size_t{1});
  // A second export into the same folder would leave two files that TensorBoard reads both.
  CliResult again = run_cli(
      {"runs", "export", q(group), "--db", q(m_db), "--format", "tensorboard", "--out", q(dir)});
  QCOMPARE(again.code, 1);
  QVERIFY2(again.err.contains("already holds the event file"), again.err.constData());
  QCOMPARE(event_files(fs::path(dir) / "run-1").size(), size_t{1});
  // csv still works.
  CliResult csv = run_cli(
      {"runs", "export", "1", "--db", q(m_db), "--format", "csv", "--out", q(path("runs.csv"))});
  QVERIFY2(csv.code == 0, csv.err.constData());
  QVERIFY(gb::read_file(path("runs.csv")).rfind("run,step,key,value", 0) == 0);
}

void TestInterop::crc32cCheckValue() {
  // The CRC-32C check value (RFC 3720 / the Castagnoli polynomial's catalogue entry).
  QCOMPARE(gb::tb::crc32c("123456789", 9), 0xe3069283u);
  QCOMPARE(crc32c_bitwise("123456789"), 0xe3069283u);
  // A record round trip through the writer and the reader of this test.
  const std::string rec = gb::tb::tfrecord(gb::tb::encode_scalar_event(1.5, -3, "a/b", 0.25f));
  const std::string file = path("one.tfevents");
  gb::write_file_atomic(file, rec);
  const auto ev = read_events(file);
  QCOMPARE(ev.size(), size_t{1});
  QCOMPARE(ev[0].step, int64_t{-3});
  QCOMPARE(ev[0].tag, std::string("a/b"));
  QCOMPARE(ev[0].value, 0.25f);
  QCOMPARE(ev[0].wall_time, 1.5);
}

QTEST_GUILESS_MAIN(TestInterop)
#include "tst_interop.moc"
