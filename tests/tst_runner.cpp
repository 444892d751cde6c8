// The experiment runner (core/experiment, core/train, core/eval) on the llama fixture: spec
// validation, the learning-rate schedule, ADEPT's unit-wise learning rates (recomputed from
// importance every T_update steps, schedule on top) checked against the optimizer's actual
// updates, a short real run per growth variant starting at the base model's evaluation,
// resume after cancellation equal to an uninterrupted run (bit-exact on the CPU), SIGKILL of
// the real growbench-cli worker at random moments (integrity, interrupted, resume), clean
// cancellation by SIGINT/SIGTERM, NaN injection, OP/BWT of hand-made accuracy matrices, a
// task sequence's accuracy matrix, and the runner's cache folder for tokenised corpora.
// Store migrations from older schema versions are tested in tst_store
// (migratesVersion1StoreKeepingData, migratesFromEveryOlderVersion).
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>

#include <torch/torch.h>

#include "test_util.h"
#include "toy_layer_policy.h"
#include "toy_variant.h"
#include "data/packing.h"
#include "data/tokenized.h"
#include "data/torch_batch.h"
#include "eval/evaluate.h"
#include "experiment/compare.h"
#include "experiment/expand.h"
#include "experiment/integrity.h"
#include "experiment/pilot.h"
#include "experiment/runner.h"
#include "util/events.h"
#include "util/metrics.h"
#include "experiment/sources.h"
#include "experiment/spec.h"
#include "experiment/train_options.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "grow/run_hooks.h"
#include "grow/variant.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/selection.h"
#include "model/config.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "test_models.h"
#include "train/optimizer.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/json.h"

namespace fs = std::filesystem;
namespace ex = gb::experiment;
namespace grow = gb::grow;
using Json = nlohmann::json;
using gb::store::RunStatus;
using gb::store::Store;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::string str(const QString& s) {
  return s.toStdString();
}

using gb::test::error_of;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// Deterministic word salad: `words` words from `vocab`, in sentences and paragraphs.
std::string salad(const std::vector<std::string>& vocab, int words, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  int in_sentence = 0;
  for (int i = 0; i < words; ++i) {
    std::string w = vocab[rng() % vocab.size()];
    if (in_sentence == 0) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    out += w;
    ++in_sentence;
    if (in_sentence >= 6 + static_cast<int>(rng() % 8)) {
      out += ".";
      in_sentence = 0;
      out += (rng() % 5 == 0) ? "\n\n" : " ";
    } else {
      out += " ";
    }
  }
  return out + ".\n";
}

const std::vector<std::string> kEnglish = {
    "the",    "house", "river", "small",  "light",   "between", "garden", "people", "always",
    "under",  "water", "green", "before", "market",  "window",  "quiet",  "little", "morning",
    "cold",   "with",  "stone", "bread",  "evening", "street",  "open",   "paper",  "friend",
    "bright", "road",  "city",  "of",     "and",     "a",       "is",     "was",    "they"};
const std::vector<std::string> kGerman = {
    "das",    "Haus",  "der",   "Fluss",  "klein",   "zwischen", "Garten", "immer",  "unter",
    "Wasser", "und",   "ist",   "vorher", "Markt",   "Fenster",  "ruhig",  "Morgen", "kalt",
    "mit",    "Stein", "Brot",  "Abend",  "Strasse", "offen",    "Papier", "Freund", "hell",
    "Weg",    "Stadt", "nicht", "auch",   "schon",   "sehr",     "wir",    "sie",    "gleich"};

// Registered tensor names → values of a model.
std::map<std::string, torch::Tensor> named_params(gb::CausalLMImpl& m) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : m.named_parameters(true)) out[item.key()] = item.value();
  return out;
}

// Metrics of a run by (key, step), without the perf/ keys (timings, memory).
std::map<std::pair<std::string, int64_t>, double> learning_metrics(Store& store, int64_t run) {
  std::map<std::pair<std::string, int64_t>, double> out;
  for (const auto& r : store.metric_rows(run)) {
    if (r.key.rfind("perf/", 0) == 0) continue;
    out[{r.key, r.step}] = r.value;
  }
  return out;
}

std::map<std::string, double> metrics_at(Store& store, int64_t run, int64_t step) {
  std::map<std::string, double> out;
  for (const auto& r : store.metric_rows(run)) {
    if (r.step == step) out[r.key] = r.value;
  }
  return out;
}

// A readable diff of two metric maps (first differences), empty when equal.
std::string diff_metrics(const std::map<std::pair<std::string, int64_t>, double>& a,
                         const std::map<std::pair<std::string, int64_t>, double>& b) {
  std::string out;
  int shown = 0;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) {
      out += fmt::format("{}@{} only in the first; ", k.first, k.second);
    } else if (!(it->second == v)) {
      out += fmt::format("{}@{}: {:.17g} != {:.17g}; ", k.first, k.second, v, it->second);
    } else {
      continue;
    }
    if (++shown >= 6) break;
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k) && shown++ < 6)
      out += fmt::format("{}@{} only in the second; ", k.first, k.second);
  }
  return out;
}

// Tensors of two safetensors files are bit-identical, name by name.
std::string diff_tensor_files(const std::string& a, const std::string& b) {
  auto ta = gb::st::read_all(a);
  auto tb = gb::st::read_all(b);
  if (ta.size() != tb.size()) return fmt::format("{} vs {} tensors", ta.size(), tb.size());
  for (const auto& [name, t] : ta) {
    auto it = tb.find(name);
    if (it == tb.end()) return "missing " + name;
    if (!torch::equal(t, it->second)) {
      double d = (t.to(torch::kDouble) - it->second.to(torch::kDouble)).abs().max().item<double>();
      return fmt::format("{} differs by up to {}", name, d);
    }
  }
  return "";
}

// The learning-rate multiplier of the documented schedule (docs/experiments.md), by hand.
double schedule_factor(const std::string& kind, int64_t warmup, int64_t total, double min_ratio,
                       int64_t step) {
  if (warmup > 0 && step < warmup) return static_cast<double>(step + 1) / warmup;
  if (kind == "constant") return 1.0;
  double progress = std::clamp(static_cast<double>(step - warmup) / (total - warmup), 0.0, 1.0);
  if (kind == "linear") return 1.0 - (1.0 - min_ratio) * progress;
  return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

// Registered-name prefix of each ADEPT unit of a Llama layer (Hugging Face tensor names).
const std::vector<std::pair<std::string, std::string>> kLlamaUnits = {
    {"q", "self_attn.q_proj."},
    {"k", "self_attn.k_proj."},
    {"v", "self_attn.v_proj."},
    {"o", "self_attn.o_proj."},
    {"gate", "mlp.gate_proj."},
    {"up", "mlp.up_proj."},
    {"down", "mlp.down_proj."},
    {"input_norm", "input_layernorm."},
    {"post_attn_norm", "post_attention_layernorm."}};

// The run-time behaviour of the test variant declared in tests/toy_variant.h: every hook of
// grow/run_hooks.h; what the hooks saw goes to HookLog.
using gb::test::HookedParams;
struct HookLog {
  size_t fisher_tensors = 0;  // ApplyContext::fisher as apply saw it
  grow::RunFacts facts;
  std::vector<int64_t> steps;  // steps_done() at each before_step
  bool group_set = false, unknown_group_refused = false;
  int64_t probe_layers = -1, probe_units = -1;
  torch::Tensor frozen;         // the first group's first tensor when its rate went to 0
  std::vector<bool> unchanged;  // after it, at each later step
};
HookLog& hook_log() {
  static HookLog log;
  return log;
}
grow::VariantModule hooked_module() {
  grow::VariantModule m = gb::test::hooked_declaration();
  m.apply = [](gb::CausalLMImpl& model, const grow::GrowthPlan&, const grow::ApplyContext& a) {
    hook_log().fisher_tensors = a.fisher.size();
    for (auto& t : model.parameters(true)) t.set_requires_grad(true);
    grow::GrowthResult r;
    r.groups = grow::groups_from_requires_grad(model);
    r.function_preserving = true;
    return r;
  };
  m.run.needs_base_fisher = true;
  m.run.warnings = [](const grow::VariantParams&, const grow::RunFacts& f) {
    hook_log().facts = f;
    return std::vector<std::string>{"hooked: a warning from the variant's own file"};
  };
  m.run.before_step = [](const grow::VariantParams& vp, grow::RunContext& run) {
    auto& log = hook_log();
    const int64_t step = run.steps_done();
    const auto& first = run.growth().groups.front();
    log.steps.push_back(step);
    if (step == static_cast<const HookedParams&>(vp).freeze_at) {
      log.unknown_group_refused = !run.set_lr_scale("no.such.group", 0.5);
      log.group_set = run.set_lr_scale(first.name, 0.0);
      log.frozen = first.params.front().detach().clone();
      const auto probe = run.probe_units("taylor-code", {{"hook_step", step}});
      log.probe_layers = probe.num_layers();
      log.probe_units = static_cast<int64_t>(probe.unit_names.size());
      run.metric(gb::metrics::adept_lr_scale_key(first.name), 0.0);
      run.info("hooked: the rate of " + first.name + " set to 0");
    } else if (log.frozen.defined()) {
      log.unchanged.push_back(torch::equal(first.params.front(), log.frozen));
    }
  };
  return m;
}
GB_REGISTER_VARIANT(hooked_module);

}  // namespace

class TestRunner : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void accNormIsTheHarnessDefinition();
  void replayIsAPlanOption();
  void frozenBaseStaysInTheCheckpointsDtype();
  void replayPerRowPutsOriginalRowsInEveryBatch();
  void scaleRecordsOriginalStreamDriftAndFrozenHeadAccuracy_data();
  void scaleRecordsOriginalStreamDriftAndFrozenHeadAccuracy();
  void adeptStageTwoBelongsToThePlan();
  void ewcCombinesWithAnyPlanPerTask();

  void specRejectsUnknownKeysAndBadValuesNamingTheKey_data();
  void specRejectsUnknownKeysAndBadValuesNamingTheKey();
  void specAppliesDocumentedDefaultsAndResolvesPaths();
  void changedInputsNameADocumentOrderTheRunNeverRecorded();
  void specParsesTheBuiltInQuickstartAndSequences_data();
  void specParsesTheBuiltInQuickstartAndSequences();

  void scheduleFactorFollowsDocumentedFormula_data();
  void scheduleFactorFollowsDocumentedFormula();
  void opAndBwtOfHandMadeAccuracyMatrix_data();
  void opAndBwtOfHandMadeAccuracyMatrix();

  void baseRunStepZeroEqualsIndependentEvaluation();
  void shortRunPerVariantStartsAtTheBaseModel_data();
  void shortRunPerVariantStartsAtTheBaseModel();
  void adeptUnitLearningRatesFollowImportanceAndSchedule();
  void aVariantsRunHooksNeedNoRunnerChange();
  void aLayerPolicyNeedsNoOtherFileChange();
  void trainOptionsComeFromTheTrainSection();
  void resumeAfterCancelEqualsUninterruptedRun_data();
  void resumeAfterCancelEqualsUninterruptedRun();
  void nanInjectionMarksRunDivergedNamingStepAndTerm_data();
  void nanInjectionMarksRunDivergedNamingStepAndTerm();
  void taskSequenceRecordsAccuracyMatrixOpAndBwt();
  void cliProbeAndRunnerProbeAgreeExactly_data();
  void cliProbeAndRunnerProbeAgreeExactly();
  void tokenisedCorporaGoToTheRunnersCacheDir();
  void cliSignalCancelsCleanlyKeepingACheckpoint_data();
  void cliSignalCancelsCleanlyKeepingACheckpoint();
  void sigkilledWorkerLeavesConsistentStoreAndResumes();
  void seedsAndSweepsExpandDeterministically();
  void sweepErrorsNameTheKey_data();
  void sweepErrorsNameTheKey();
  void sweptRunsAreOneGroupWithTheirParameters();
  void budgetSelectionOnAHandMadeStore();
  void cliRunsAndCompareFollowTheContract();
  void forgettingGuardStopsOrRollsBack_data();
  void forgettingGuardStopsOrRollsBack();
  void forgettingGuardRollsBackToTheLastEvaluationWithinBudget();
  void testSetsAreEvaluatedAtTheStartAndTheEndOnly();
  void testSetsAtEveryEvaluationLeaveTheRunUnchanged();
  void finiteButRunawayLossIsDivergence();
  void sequenceLongerThanTheModelIsRefused();
  void threadsAreBoundedByTheMachine();
  void relativeStorePathsGiveAbsoluteCheckpoints();

 private:
  Json base_spec(const Json& plan) const;
  ex::RunnerOptions options(const std::string& db) const;
  ex::RunOutcome run_one(const Json& spec, const std::string& db,
                         ex::RunnerOptions opts = {}) const;
  std::string db_path(const std::string& name) const { return m_dir + "/" + name + ".db"; }
  // Step-0 metrics of the full fine-tuning run (the base model through the runner).
  const std::map<std::string, double>& full_step0();
  // A model of the plan's structure with the base weights, grown (deterministic).
  gb::CausalLM grown_model(const Json& plan, grow::GrowthResult* result = nullptr) const;

  QTemporaryDir m_tmp;
  std::string m_dir, m_model, m_orig_train, m_orig_eval, m_new_train, m_new_eval, m_cache;
  std::string m_mc1, m_mc2, m_mc3;
  double m_base_orig_loss = 0, m_base_new_loss = 0;
  std::optional<std::map<std::string, double>> m_full_step0;
  int m_counter = 0;
};

void TestRunner::initTestCase() {
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  m_dir = str(m_tmp.path());
  m_cache = m_dir + "/cache";
  // Every tokenised corpus goes to the test's folder (the worker processes inherit this).
  qputenv("GROWBENCH_CACHE_DIR", QByteArray::fromStdString(m_cache + "/default"));
  qputenv("OMP_NUM_THREADS", "1");

  m_orig_train = m_dir + "/orig_train.txt";
  m_orig_eval = m_dir + "/orig_eval.txt";
  m_new_train = m_dir + "/new_train.txt";
  m_new_eval = m_dir + "/new_eval.txt";
  const std::string orig_train = salad(kEnglish, 1500, 1), new_train = salad(kGerman, 1500, 2);
  write_text(m_orig_train, orig_train);
  write_text(m_orig_eval, salad(kEnglish, 400, 3));
  write_text(m_new_train, new_train);
  write_text(m_new_eval, salad(kGerman, 400, 4));

  // The llama fixture with a byte-level BPE tokenizer of its vocabulary size.
  m_model = m_dir + "/llama";
  fs::create_directories(m_model);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(gb::test::fixture_dir("llama") + "/" + f, m_model + "/" + f);
  }
  write_text(m_model + "/tokenizer.json",
             gb::tok::train_byte_level_bpe({orig_train, new_train}, 512, {"<|endoftext|>"}));

  // Multiple-choice tasks for the task sequence.
  auto mc = [&](const std::string& name, const std::vector<std::string>& vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::string text;
    for (int i = 0; i < 6; ++i) {
      Json item = {
          {"context", salad(vocab, 5, seed * 100 + i)},
          {"choices",
           {vocab[rng() % vocab.size()], vocab[rng() % vocab.size()], vocab[rng() % vocab.size()]}},
          {"answer", static_cast<int>(rng() % 3)}};
      text += item.dump() + "\n";
    }
    std::string path = m_dir + "/" + name + ".jsonl";
    write_text(path, text);
    return path;
  };
  m_mc1 = mc("mc1", kGerman, 11);
  m_mc2 = mc("mc2", kEnglish, 12);
  m_mc3 = mc("mc3", kGerman, 13);

  // The base model's evaluation computed here, without the runner: mean next-token
  // cross-entropy over the same evaluation windows (seq_len 32, 2 rows, 128 tokens).
  gb::LoadedModel base = gb::load_hf_model(m_model);
  base.model->eval();
  auto tokenizer = gb::tok::Tokenizer::from_file(m_model + "/tokenizer.json");
  auto encoder = gb::data::encoder_for(tokenizer);
  auto eval_loss = [&](const std::string& path) {
    auto src = ex::parse_source(Json(path), "", "test");
    auto stream = ex::source_tokens(src, encoder, 0, "test");
    auto batches = gb::data::sequential_batches(*stream, 32, 2, 2);
    torch::NoGradGuard ng;
    double nll = 0;
    int64_t n = 0;
    for (const auto& b : batches) {
      auto bt = gb::data::to_tensors(b, torch::kCPU);
      auto logits = base.model->forward(bt.inputs);
      nll += torch::nn::functional::cross_entropy(
                 logits.reshape({-1, logits.size(-1)}), bt.labels.reshape({-1}),
                 torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
                     torch::kSum))
                 .item<double>();
      n += bt.targets;
    }
    return nll / n;
  };
  m_base_orig_loss = eval_loss(m_orig_eval);
  m_base_new_loss = eval_loss(m_new_eval);
  QVERIFY(std::isfinite(m_base_orig_loss) && m_base_orig_loss > 1.0);
}

Json TestRunner::base_spec(const Json& plan) const {
  return Json{{"version", 1},
              {"name", "t"},
              {"seed", 0},
              {"threads", 1},
              {"model", m_model},
              {"data",
               {{"original", {{"eval", m_orig_eval}, {"replay", m_orig_train}}},
                {"new", {{"train", m_new_train}, {"eval", m_new_eval}}}}},
              {"plans", Json::array({plan})},
              {"train",
               {{"steps", 4},
                {"seq_len", 32},
                {"batch_size", 2},
                {"lr", 1e-3},
                {"schedule", "cosine"},
                {"warmup", 1}}},
              {"eval", {{"interval", 2}, {"tokens", 128}, {"batch_size", 2}, {"drift", true}}},
              {"probe", {{"tokens", 128}, {"seq_len", 32}, {"batch_size", 2}}}};
}

ex::RunnerOptions TestRunner::options(const std::string& db) const {
  ex::RunnerOptions o;
  o.db_path = db;
  o.cache_dir = m_cache;
  return o;
}

ex::RunOutcome TestRunner::run_one(const Json& spec, const std::string& db,
                                   ex::RunnerOptions opts) const {
  if (opts.db_path.empty()) {
    auto o = options(db);
    o.on_event = opts.on_event;
    o.cancel = opts.cancel;
    o.inject_nan_at = opts.inject_nan_at;
    opts = o;
  }
  auto outcomes = ex::run_experiment(ex::parse_spec(spec, "", "spec"), opts);
  if (outcomes.size() != 1) throw std::runtime_error("expected one run");
  return outcomes.front();
}

const std::map<std::string, double>& TestRunner::full_step0() {
  if (!m_full_step0) {
    auto oc = run_one(base_spec({{"variant", "full"}}), db_path("full-step0"));
    Store store = Store::open(db_path("full-step0"));
    m_full_step0 = metrics_at(store, oc.run_id, 0);
  }
  return *m_full_step0;
}

gb::CausalLM TestRunner::grown_model(const Json& plan, grow::GrowthResult* result) const {
  gb::LoadedModel m = grow::load_model(m_model);
  grow::ApplyContext ctx;
  ctx.seed = 0;
  auto r = grow::apply_plan(*m.model, grow::parse_plan(plan, "test plan"), ctx);
  if (result) *result = r;
  return m.model;
}

// ---- spec ------------------------------------------------------------------------------

void TestRunner::specRejectsUnknownKeysAndBadValuesNamingTheKey_data() {
  // A JSON merge patch applied to a valid spec (null deletes a key), and the parts the
  // error message must contain: the key path and the offending key or value.
  QTest::addColumn<QString>("patch");
  QTest::addColumn<QStringList>("expected");
  auto row = [](const char* name, const char* patch, QStringList expected) {
    QTest::newRow(name) << QString(patch) << expected;
  };
  row("unknown top-level key", R"({"trian": {}})", {"spec", "unknown key 'trian'"});
  row("unknown train key", R"({"train": {"lr_max": 1}})", {"spec.train", "'lr_max'"});
  row("unknown eval key", R"({"eval": {"intervall": 3}})", {"spec.eval", "'intervall'"});
  row("unknown data key", R"({"data": {"neu": {}}})", {"spec.data", "'neu'"});
  row("unknown source key", R"({"data": {"new": {"train": {"path": "x", "prat": "train"}}}})",
      {"spec.data.new.train", "'prat'"});
  row("unknown adept key", R"({"adept": {"tupdate": 3}})", {"spec.adept", "'tupdate'"});
  row("row shards above the batch", R"({"train": {"batch_size": 4, "row_shards": 5}})",
      {"spec.train.row_shards", "5 blocks", "batch_size is 4"});
  row("row shards zero", R"({"train": {"row_shards": 0}})", {"spec.train.row_shards"});
  row("unknown plan key", R"({"plans": [{"variant": "grow", "kk": 2}]})",
      {"spec.plans[0]", "'kk'"});
  row("negative lr", R"({"train": {"lr": -1}})", {"spec.train.lr", "-1"});
  row("zero steps", R"({"train": {"steps": 0}})", {"spec.train.steps", "0"});
  row("steps not an integer", R"({"train": {"steps": "ten"}})", {"spec.train", "'steps'"});
  row("unknown schedule", R"({"train": {"schedule": "cosin"}})", {"spec.train.schedule", "cosin"});
  row("batch_tokens not a multiple of seq_len",
      R"({"train": {"batch_size": null, "batch_tokens": 100}})",
      {"spec.train.batch_tokens", "100"});
  row("batch_tokens and batch_size", R"({"train": {"batch_tokens": 64}})",
      {"spec.train", "batch_tokens", "batch_size"});
  row("beta2 above 1", R"({"train": {"beta2": 1.5}})", {"spec.train.beta2", "1.5"});
  row("replay without replay data", R"({"train": {"replay": 0.2}, "data": {"original":
      {"replay": null}}})",
      {"spec.train.replay", "data.original.replay"});
  row("plan replay without replay data",
      R"({"data": {"original": {"replay": null}}, "plans": [{"variant": "lora", "replay": 0.1}]})",
      {"spec.plans[0].replay", "data.original.replay"});
  row("wrong version", R"({"version": 2})", {"spec.version", "2"});
  row("missing model", R"({"model": null})", {"spec", "'model'"});
  row("missing new train", R"({"data": {"new": {"train": null}}})", {"spec.data.new.train"});
  row("plan and plans", R"({"plan": {"variant": "full"}})", {"spec", "'plan'", "'plans'"});
  row("bad task kind", R"({"data": {"tasks": [{"name": "t", "kind": "xx", "path": "p"}]}})",
      {"spec.data.tasks[0].kind", "xx"});
  row("bad part", R"({"data": {"new": {"eval": {"path": "x", "part": "testing"}}}})",
      {"spec.data.new.eval.part", "testing"});
  row("zero eval interval", R"({"eval": {"interval": 0}})", {"spec.eval.interval", "0"});
  row("zero t_update", R"({"adept": {"t_update": 0}})", {"spec.adept.t_update", "0"});
  row("negative checkpoint interval", R"({"checkpoint": {"interval": -1}})",
      {"spec.checkpoint.interval", "-1"});
  row("zero threads", R"({"threads": 0})", {"spec.threads", "0"});
  row("unknown device", R"({"device": "tpu"})", {"spec.device", "tpu"});
  row("unknown dtype", R"({"dtype": "int8"})", {"spec.dtype", "int8"});
  row("adept method not a unit method", R"({"adept": {"method": "masking"}})",
      {"spec.adept.method", "masking"});
  row("unknown probe key", R"({"probe": {"seed": 3}})", {"spec.probe", "unknown key 'seed'"});
  row("unknown probe method", R"({"probe": {"method": "gradnorm"}})",
      {"spec.probe.method", "gradnorm", "update-magnitude"});
  row("unknown fisher mode", R"({"probe": {"fisher_mode": "rows"}})",
      {"spec.probe.fisher_mode", "rows", "sequence or batch"});
  row("unknown masking mode", R"({"probe": {"masking_mode": "fast"}})",
      {"spec.probe.masking_mode", "fast", "cached or naive"});
  row("zero probe steps", R"({"probe": {"steps": 0}})", {"spec.probe.steps", "0"});
  row("probe checkpointing not a boolean", R"({"probe": {"checkpointing": 1}})",
      {"spec.probe", "checkpointing"});
  row("negative probe lr", R"({"probe": {"lr": -0.1}})", {"spec.probe.lr", "-0.1"});
  row("unknown effective-rank reference", R"({"probe": {"reference": "first"}})",
      {"spec.probe.reference", "first", "previous or base"});
  row("sequence and new train", R"({"sequence": [{"name": "T1", "train": "a.txt",
      "eval": {"kind": "lm", "path": "b.txt"}}]})",
      {"spec", "sequence", "data.new.train"});
}

void TestRunner::specRejectsUnknownKeysAndBadValuesNamingTheKey() {
  QFETCH(QString, patch);
  QFETCH(QStringList, expected);
  Json spec = base_spec({{"variant", "full"}});
  // Valid as it is.
  QCOMPARE(qs(error_of([&] { ex::parse_spec(spec, "", "spec"); })), QString("NO ERROR"));
  spec.merge_patch(Json::parse(str(patch)));
  const std::string err = error_of([&] { ex::parse_spec(spec, "", "spec"); });
  QVERIFY2(err != "NO ERROR", "the spec was accepted");
  QVERIFY2(!contains(err, "UNEXPECTED"), err.c_str());
  for (const auto& part : expected) {
    QVERIFY2(contains(err, str(part)), qPrintable(QString("'%1' not in: %2").arg(part, qs(err))));
  }
}

// A run whose QA items or biographies are reordered every epoch records that with its inputs;
// a run recorded without it (started before the reordering) is refused on resume like a
// changed input, and text-only runs carry no such entry.
void TestRunner::changedInputsNameADocumentOrderTheRunNeverRecorded() {
  QTemporaryDir tmp;
  const std::string base = tmp.path().toStdString();
  const Json bio = {{"biography", {{"num_people", 20}}}, {"part", "task1"}};
  struct Case {
    Json spec;
    bool reorders;
  };
  const std::vector<Case> cases = {
      {{{"model", "m"}, {"data", {{"new", {{"train", "de.txt"}}}}}}, false},
      {{{"model", "m"}, {"data", {{"new", {{"train", bio}}}}}}, true},
      {{{"model", "m"}, {"data", {{"new", {{"train", {{"qa", "qa.jsonl"}}}}}}}}, true},
      {{{"model", "m"},
        {"data",
         {{"new", {{"train", "de.txt"}}},
          {"original",
           {{"replay", {{"biography", {{"num_people", 20}}}, {"part", "pretrain"}}}}}}}},
       true}};
  for (const auto& c : cases) {
    const auto spec = ex::parse_spec(c.spec, base, "spec");
    const Json now = ex::input_fingerprints(spec, base, "");
    QCOMPARE(now.contains(ex::kDataOrderInput), c.reorders);
    QVERIFY(ex::changed_inputs(now, now).empty());
    Json before = now;
    before.erase(ex::kDataOrderInput);
    const auto changed = ex::changed_inputs(before, now);
    if (!c.reorders) {
      QVERIFY(changed.empty());
      continue;
    }
    QCOMPARE(changed.size(), size_t(1));
    QVERIFY2(contains(changed[0], "data order") && contains(changed[0], "reordered each epoch"),
             changed[0].c_str());
    // A run that never recorded its inputs (older stores) records them now instead.
    QVERIFY(ex::changed_inputs(Json(), now).empty());
  }
}

void TestRunner::specAppliesDocumentedDefaultsAndResolvesPaths() {
  Json j = {{"model", "models/tiny"}, {"data", {{"new", {{"train", "de.txt"}}}}}};
  ex::ExperimentSpec s = ex::parse_spec(j, "/base/dir", "spec");
  QCOMPARE(s.version, 1);
  QCOMPARE(qs(s.name), QString("experiment"));
  QCOMPARE(s.seed, uint64_t(0));
  QCOMPARE(qs(s.device), QString("cpu"));
  QCOMPARE(qs(s.model.path), QString("/base/dir/models/tiny"));
  QCOMPARE(qs(s.new_train.corpus.at("path").get<std::string>()), QString("/base/dir/de.txt"));
  QCOMPARE(s.plans.size(), size_t(1));
  QCOMPARE(qs(grow::to_json(s.plans[0]).at("variant").get<std::string>()), QString("full"));
  // docs/experiments.md defaults.
  QCOMPARE(s.train.steps, int64_t(100));
  QCOMPARE(s.train.seq_len, int64_t(128));
  QCOMPARE(s.train.batch_size, int64_t(8));
  QCOMPARE(s.train.accumulation, int64_t(1));
  QCOMPARE(s.train.lr, 3e-4);
  QCOMPARE(qs(s.train.schedule), QString("cosine"));
  QCOMPARE(s.train.warmup, int64_t(0));
  QCOMPARE(s.train.min_lr_ratio, 0.1);
  QCOMPARE(s.train.weight_decay, 0.0);
  QCOMPARE(s.train.clip, 1.0);
  QCOMPARE(s.train.beta1, 0.9);
  QCOMPARE(s.train.beta2, 0.95);
  QCOMPARE(s.train.eps, 1e-8);
  QCOMPARE(s.train.replay, 0.0);
  QCOMPARE(s.eval.interval, int64_t(50));
  QCOMPARE(s.eval.tokens, int64_t(16384));
  QCOMPARE(s.eval.batch_size, int64_t(8));
  QVERIFY(s.eval.drift);
  QCOMPARE(s.adept.unit_lr, false);
  QCOMPARE(s.adept.t_update, int64_t(500));
  QCOMPARE(qs(s.adept.method), QString("taylor-code"));
  QCOMPARE(s.checkpoint_interval, int64_t(0));
  QCOMPARE(qs(s.probe.options.method), QString("masking"));
  QCOMPARE(s.probe.options.fisher_mode, gb::importance::FisherMode::PerSequence);
  QCOMPARE(s.probe.options.masking_mode, gb::importance::MaskingMode::Cached);
  QCOMPARE(s.probe.options.steps, int64_t(50));
  QCOMPARE(s.probe.options.lr, 1e-4);
  QCOMPARE(s.probe.tokens, int64_t(8192));
  QCOMPARE(s.probe.batch_size, int64_t(4));
  QCOMPARE(s.probe.seq_len, int64_t(128));
  // batch_tokens is converted to rows.
  j["train"] = {{"batch_tokens", 1024}, {"seq_len", 64}};
  QCOMPARE(ex::parse_spec(j, "/b", "spec").train.batch_size, int64_t(16));
  // The stored spec has absolute paths and canonical plans, and parses to the same spec.
  Json raw = ex::parse_spec(j, "/b", "spec").raw;
  QCOMPARE(qs(raw.at("model").get<std::string>()), QString("/b/models/tiny"));
  ex::ExperimentSpec again = ex::parse_spec(raw, "/elsewhere", "stored");
  QCOMPARE(qs(again.model.path), QString("/b/models/tiny"));
  QCOMPARE(again.train.batch_size, int64_t(16));
  QCOMPARE(qs(again.raw.dump()), qs(raw.dump()));
}

void TestRunner::specParsesTheBuiltInQuickstartAndSequences_data() {
  QTest::addColumn<QString>("which");
  QTest::newRow("quickstart") << "quickstart";
  QTest::newRow("sequence") << "sequence";
  QTest::newRow("every variant") << "variants";
  QTest::newRow("mh-moe router weights") << "router-weights";
}

void TestRunner::specParsesTheBuiltInQuickstartAndSequences() {
  QFETCH(QString, which);
  if (which == "quickstart") {
    auto s = ex::load_spec(std::string(GB_SOURCE_DIR) + "/resources/experiments/quickstart.json");
    QVERIFY(s.model.preset.has_value());
    QVERIFY(s.plans.size() >= 5);
    QVERIFY(!s.is_sequence());
    QCOMPARE(s.train.seq_len, int64_t(128));
  } else if (which == "router-weights") {
    auto s = ex::load_spec(std::string(GB_SOURCE_DIR) +
                           "/resources/experiments/mh-moe-router-weights.json");
    QVERIFY(s.is_sequence());
    QCOMPARE(s.sequence.size(), size_t(3));
    QCOMPARE(s.plans.size(), size_t(4));
  } else if (which == "sequence") {
    Json j = base_spec({{"variant", "loramoe"}});
    j["data"]["new"].erase("train");
    j["sequence"] = {
        {{"name", "T1"},
         {"train", "a.txt"},
         {"eval", {{"kind", "mc"}, {"path", "t1.jsonl"}}},
         {"steps", 3}},
        {{"name", "T2"}, {"train", "b.txt"}, {"eval", {{"kind", "lm"}, {"path", "b.txt"}}}}};
    auto s = ex::parse_spec(j, "/d", "spec");
    QVERIFY(s.is_sequence());
    QCOMPARE(s.sequence.size(), size_t(2));
    QCOMPARE(s.sequence[0].steps, int64_t(3));
    QCOMPARE(s.sequence[1].steps, int64_t(0));
    QCOMPARE(qs(s.sequence[0].eval.name), QString("T1"));
    QCOMPARE(qs(s.sequence[0].eval.mc_path), QString("/d/t1.jsonl"));
  } else {
    for (const char* plan :
         {R"({"variant":"full"})", R"({"variant":"freeze","bottom":1})",
          R"({"variant":"lora","rank":4})", R"({"variant":"grow","mode":"train"})",
          R"({"variant":"scale","mode":"route","d_up":16})",
          R"({"variant":"depth","style":"adept","layers":{"policy":"least-important","k":1}})",
          R"({"variant":"adapters"})", R"({"variant":"ewc","lambda":2})",
          R"({"variant":"loramoe"})", R"({"variant":"mh-moe","heads":4})"}) {
      Json j = base_spec(Json::parse(plan));
      QVERIFY2(error_of([&] { ex::parse_spec(j, "", "spec"); }) == "NO ERROR", plan);
    }
  }
}

// ---- schedule, OP/BWT --------------------------------------------------------------------

void TestRunner::scheduleFactorFollowsDocumentedFormula_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<int>("warmup");
  QTest::addColumn<int>("total");
  QTest::addColumn<double>("min_ratio");
  QTest::addColumn<int>("step");
  QTest::addColumn<double>("expected");
  // Values by hand: warm-up (step+1)/warmup, then cosine
  // min + (1 − min)·(1 + cos(π·(step − warmup)/(total − warmup)))/2, or linear decay.
  QTest::newRow("warm-up first step") << "cosine" << 10 << 110 << 0.1 << 0 << 0.1;
  QTest::newRow("warm-up last step") << "cosine" << 10 << 110 << 0.1 << 9 << 1.0;
  QTest::newRow("cosine start") << "cosine" << 10 << 110 << 0.1 << 10 << 1.0;
  QTest::newRow("cosine middle") << "cosine" << 10 << 110 << 0.1 << 60 << 0.55;
  QTest::newRow("cosine quarter") << "cosine" << 0 << 100 << 0.0 << 25
                                  << 0.5 * (1.0 + std::sqrt(0.5));
  QTest::newRow("cosine end") << "cosine" << 10 << 110 << 0.1 << 110 << 0.1;
  QTest::newRow("cosine past the end") << "cosine" << 10 << 110 << 0.1 << 500 << 0.1;
  QTest::newRow("linear quarter") << "linear" << 10 << 110 << 0.1 << 35 << 0.775;
  QTest::newRow("linear end") << "linear" << 0 << 50 << 0.2 << 50 << 0.2;
  QTest::newRow("constant after warm-up") << "constant" << 4 << 100 << 0.1 << 50 << 1.0;
  QTest::newRow("constant in warm-up") << "constant" << 4 << 100 << 0.1 << 1 << 0.5;
}

void TestRunner::scheduleFactorFollowsDocumentedFormula() {
  QFETCH(QString, kind);
  QFETCH(int, warmup);
  QFETCH(int, total);
  QFETCH(double, min_ratio);
  QFETCH(int, step);
  QFETCH(double, expected);
  gb::train::Schedule s;
  s.kind = str(kind);
  s.warmup = warmup;
  s.total = total;
  s.min_ratio = min_ratio;
  QVERIFY2(std::abs(s.factor(step) - expected) < 1e-12,
           qPrintable(QString("factor %1, expected %2").arg(s.factor(step)).arg(expected)));
  QVERIFY(std::abs(schedule_factor(str(kind), warmup, total, min_ratio, step) - expected) < 1e-12);
}

void TestRunner::opAndBwtOfHandMadeAccuracyMatrix_data() {
  // R[i][j]: accuracy on task j after training task i. DESIGN.md ("Protocols and metrics"):
  // OP = mean_j R[n][j]; BWT = mean_{j<n} (R[n][j] − R[j][j]).
  QTest::addColumn<QString>("matrix");
  QTest::addColumn<double>("op");
  QTest::addColumn<double>("bwt");
  // OP = (0.5 + 0.6 + 0.9)/3 = 2/3; BWT = ((0.5 − 0.8) + (0.6 − 0.7))/2 = −0.2.
  QTest::newRow("three tasks with forgetting")
      << "[[0.8,0.1,0.2],[0.6,0.7,0.3],[0.5,0.6,0.9]]" << 2.0 / 3.0 << -0.2;
  // OP = (0.9 + 0.8)/2 = 0.85; BWT = 0.9 − 0.7 = +0.2 (backward transfer).
  QTest::newRow("two tasks with backward transfer") << "[[0.7,0.2],[0.9,0.8]]" << 0.85 << 0.2;
  // One task: OP = R[0][0], no earlier task so BWT = 0.
  QTest::newRow("single task") << "[[0.42]]" << 0.42 << 0.0;
  // OP = (0.25 + 0.5 + 0.75 + 1)/4 = 0.625;
  // BWT = ((0.25 − 1) + (0.5 − 1) + (0.75 − 1))/3 = −0.5.
  QTest::newRow("four tasks, diagonal ones")
      << "[[1,0,0,0],[0.9,1,0,0],[0.5,0.8,1,0],[0.25,0.5,0.75,1]]" << 0.625 << -0.5;
}

void TestRunner::opAndBwtOfHandMadeAccuracyMatrix() {
  QFETCH(QString, matrix);
  QFETCH(double, op);
  QFETCH(double, bwt);
  auto r = Json::parse(str(matrix)).get<std::vector<std::vector<double>>>();
  auto m = gb::eval::op_bwt(r);
  QVERIFY2(std::abs(m.op - op) < 1e-12, qPrintable(QString::number(m.op, 'g', 17)));
  QVERIFY2(std::abs(m.bwt - bwt) < 1e-12, qPrintable(QString::number(m.bwt, 'g', 17)));
  // Non-square and empty matrices are refused.
  QVERIFY(contains(error_of([&] { gb::eval::op_bwt({{0.1, 0.2}}); }), "square"));
  QVERIFY(contains(error_of([&] { gb::eval::op_bwt({}); }), "empty"));
}

// ---- runs ---------------------------------------------------------------------------------

void TestRunner::baseRunStepZeroEqualsIndependentEvaluation() {
  const auto& m = full_step0();
  QVERIFY(m.count("eval/orig/loss") && m.count("eval/new/loss"));
  QVERIFY2(std::abs(m.at("eval/orig/loss") - m_base_orig_loss) < 1e-6,
           qPrintable(QString("%1 vs %2").arg(m.at("eval/orig/loss")).arg(m_base_orig_loss)));
  QVERIFY(std::abs(m.at("eval/new/loss") - m_base_new_loss) < 1e-6);
  QVERIFY(std::abs(m.at("eval/orig/ppl") - std::exp(m_base_orig_loss)) <
          1e-6 * std::exp(m_base_orig_loss));
  QVERIFY(!std::isnan(m.at("eval/drift/cosine")));
  QVERIFY(std::abs(m.at("eval/drift/cosine") - 1.0) < 1e-6);
  // The contract's perf keys at step 0.
  for (const char* k : {"perf/total_params", "perf/trainable_params", "perf/added_params"}) {
    QVERIFY2(m.count(k), k);
  }
  QCOMPARE(m.at("perf/added_params"), 0.0);
  QCOMPARE(m.at("perf/trainable_params"), m.at("perf/total_params"));
}

void TestRunner::shortRunPerVariantStartsAtTheBaseModel_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<bool>("exact");  // step 0 bit-identical to the unchanged base model
  QTest::addColumn<double>("replay");
  auto row = [](const char* name, const char* plan, bool exact, double replay = 0.0) {
    QTest::newRow(name) << QString(plan) << exact << replay;
  };
  row("full", R"({"variant":"full"})", true);
  row("freeze", R"({"variant":"freeze","bottom":1})", true);
  row("lora", R"({"variant":"lora","rank":4,"targets":["q","v","up"]})", true);
  row("grow freeze", R"({"variant":"grow","mode":"freeze","k":2})", false);
  row("grow train", R"({"variant":"grow","mode":"train","k":2,"layers":[1]})", false);
  row("scale preserve", R"({"variant":"scale","mode":"preserve","d_up":16,"p_up":32})", false);
  row("scale adapt", R"({"variant":"scale","mode":"adapt","d_up":16,"p_up":32,"l_fp":1})", false);
  row("scale route", R"({"variant":"scale","mode":"route","d_up":16,"p_up":32})", false);
  row("depth llama-pro", R"({"variant":"depth","style":"llama-pro","count":1})", true);
  row("depth adept (least important)",
      R"({"variant":"depth","style":"adept","layers":{"policy":"least-important","k":1}})", true);
  row("neutral residues elu", R"({"variant":"neutral-residues","gate":"elu","budget":0.1})", true,
      0.5);
  row("neutral residues sigmoid", R"({"variant":"neutral-residues","gate":"sigmoid","inner":16})",
      true, 0.5);
  row("adapters", R"({"variant":"adapters","inner":16})", true);
  row("ewc", R"({"variant":"ewc","lambda":1.0})", true);
  row("replay with full", R"({"variant":"full"})", true, 0.5);
  row("loramoe", R"({"variant":"loramoe","experts":2,"top_k":1,"rank":2,"balance":0.01})", true);
  row("mh-moe", R"({"variant":"mh-moe","heads":4,"experts":2,"top_k":1,"rank":2,"balance":0.01})",
      true);
}

void TestRunner::shortRunPerVariantStartsAtTheBaseModel() {
  QFETCH(QString, plan);
  QFETCH(bool, exact);
  QFETCH(double, replay);
  const auto base = full_step0();
  Json spec = base_spec(Json::parse(str(plan)));
  if (replay > 0) spec["train"]["replay"] = replay;
  const std::string db = db_path("variant");
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  QCOMPARE(store.get_run(oc.run_id).status, RunStatus::Finished);

  // Step 0: the grown model evaluates like the base model.
  auto m0 = metrics_at(store, oc.run_id, 0);
  QVERIFY(oc.growth.at("function_preserving").get<bool>());
  for (const char* k : {"eval/orig/loss", "eval/orig/ppl", "eval/new/loss", "eval/new/ppl"}) {
    QVERIFY2(m0.count(k), k);
    const double tol = 1e-5 * std::max(1.0, std::abs(base.at(k)));
    QVERIFY2(std::abs(m0.at(k) - base.at(k)) <= tol, qPrintable(QString("%1: %2 vs base %3")
                                                                    .arg(k)
                                                                    .arg(m0.at(k), 0, 'g', 17)
                                                                    .arg(base.at(k), 0, 'g', 17)));
    if (exact) {
      QVERIFY2(m0.at(k) == base.at(k), qPrintable(QString("%1 not bit-identical").arg(k)));
    }
  }
  QVERIFY(std::abs(m0.at("eval/drift/cosine") - 1.0) < 1e-5);
  QCOMPARE(m0.at("perf/trainable_params"),
           static_cast<double>(oc.growth.at("trainable_params").get<int64_t>()));
  QVERIFY(m0.at("perf/trainable_params") > 0);

  // Training ran and recorded the contract's metrics at every step and at the end.
  auto series = store.metric_series(oc.run_id);
  QCOMPARE(series["train/loss"].steps, (std::vector<int64_t>{1, 2, 3, 4}));
  for (double v : series["train/loss"].values) QVERIFY(std::isfinite(v));
  QCOMPARE(series["eval/orig/loss"].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series["eval/new/loss"].steps, (std::vector<int64_t>{0, 2, 4}));
  QVERIFY(series.count("perf/tokens_per_s") && !series["perf/tokens_per_s"].values.empty());
  QVERIFY(series["perf/tokens_per_s"].values.back() > 0);
  // Learning happened: the new-domain loss went down.
  QVERIFY2(series["eval/new/loss"].values.back() < series["eval/new/loss"].values.front(),
           qPrintable(QString("new loss %1 -> %2")
                          .arg(series["eval/new/loss"].values.front())
                          .arg(series["eval/new/loss"].values.back())));
  if (replay > 0) QVERIFY(series.count("train/lm_loss"));
  // Routed experts: route statistics on the original eval set at step 0 and at the end, one
  // N_eff per bank (a bank beside each MLP linear of the two layers) and their mean.
  if (plan.contains("moe")) {
    QCOMPARE(series["route/neff"].steps, (std::vector<int64_t>{0, 4}));
    double sum = 0;
    int banks = 0;
    for (const char* layer : {"0", "1"}) {
      for (const char* lin : {"gate_proj", "up_proj", "down_proj"}) {
        const std::string bank = std::string(layer) + "." + lin;
        const auto& s = series["route/" + bank + "/neff"];
        QVERIFY2(s.steps == (std::vector<int64_t>{0, 4}), bank.c_str());
        QVERIFY(s.values.back() >= 1.0);
        sum += s.values.back();
        ++banks;
        const auto& u = series["route/" + bank + "/usage/0/1"];
        QVERIFY(!u.values.empty() && u.values.back() >= 0 && u.values.back() <= 1);
      }
    }
    QVERIFY(std::fabs(series["route/neff"].values.back() - sum / banks) < 1e-9);
  } else {
    QVERIFY(!series.count("route/neff"));
  }
  // A final checkpoint is listed.
  auto ck = store.latest_checkpoint(oc.run_id);
  QVERIFY(ck.has_value());
  QCOMPARE(ck->step, int64_t(4));
  QVERIFY(fs::exists(fs::path(ck->path) / "trainable.safetensors"));
}

void TestRunner::aVariantsRunHooksNeedNoRunnerChange() {
  // The variant above lives in this file only: its Fisher need, warnings and per-step work
  // reach the run through grow/run_hooks.h, as EWC's, neutral residues' and ADEPT's do.
  hook_log() = HookLog();
  Json spec = base_spec({{"variant", "test-hooked"}, {"freeze_at", 2}});
  spec["train"]["steps"] = 5;
  spec["train"]["replay"] = 0.25;
  const std::string db = db_path("hooked");
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  const HookLog& log = hook_log();
  QVERIFY(log.fisher_tensors > 0);  // the base model's Fisher reached apply
  QCOMPARE(log.facts.replay, 0.25);
  QVERIFY(!log.facts.data_parallel);
  QVERIFY(!log.facts.resumed);
  QCOMPARE(log.steps, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  QVERIFY(log.group_set);
  QVERIFY(log.unknown_group_refused);
  // A rate multiplier of 0 keeps the group's weights exactly where they were.
  QCOMPARE(log.unchanged, (std::vector<bool>{true, true}));
  QVERIFY(log.probe_layers > 0);
  QVERIFY(log.probe_units > 0);

  Store store = Store::open(db);
  bool warned = false, informed = false;
  for (const auto& e : store.events(oc.run_id)) {
    warned |= e.level == gb::store::EventLevel::Warning &&
              e.message == "hooked: a warning from the variant's own file";
    informed |= e.message.rfind("hooked: the rate of ", 0) == 0;
  }
  QVERIFY(warned);
  QVERIFY(informed);
  bool probed = false;
  for (const auto& p : store.list_probes()) {
    if (p.run_id == oc.run_id && p.method == "taylor-code") {
      probed = Json::parse(p.params).value("hook_step", -1) == 2;
    }
  }
  QVERIFY(probed);
  const auto series = store.metric_series(oc.run_id);
  bool metric = false;
  for (const auto& [key, s] : series) {
    if (key.rfind(gb::metrics::adept_lr_scale_key(""), 0) == 0) {
      metric = s.steps == std::vector<int64_t>{2} && s.values == std::vector<double>{0.0};
    }
  }
  QVERIFY(metric);
}

void TestRunner::aLayerPolicyNeedsNoOtherFileChange() {
  // "top-layers" is declared in tests/toy_layer_policy.h only: the plan parser knows it, and
  // the runner resolves it (no probes) to the layers it chooses, the top one of two.
  const Json layers = {{"policy", "top-layers"}, {"k", 1}};
  const Json plan = {{"variant", "lora"}, {"rank", 4}, {"layers", layers}};
  QCOMPARE(grow::to_json(grow::parse_plan(plan)).at("layers"), layers);
  QVERIFY(gb::importance::required_probes(layers).empty());
  const std::string unknown = error_of([] {
    grow::parse_plan({{"variant", "lora"}, {"layers", {{"policy", "top-layer"}, {"k", 1}}}});
  });
  QVERIFY2(contains(unknown, "unknown policy 'top-layer'") && contains(unknown, "top-layers"),
           unknown.c_str());
  Json spec = base_spec(plan);
  spec["train"]["steps"] = 2;
  auto oc = run_one(spec, db_path("toy-policy"));
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  QCOMPARE(oc.growth.at("plan").at("layers"), Json::array({1}));
  QVERIFY(!oc.growth.at("groups").empty());
  for (const auto& g : oc.growth.at("groups")) QCOMPARE(g.at("layer").get<int64_t>(), int64_t(1));
}

void TestRunner::trainOptionsComeFromTheTrainSection() {
  // Every trainer option a spec sets, each to a value other than its default, through the
  // one function the runner builds the trainer's options with.
  Json spec = base_spec({{"variant", "full"}});
  spec["train"] = {{"steps", 7},           {"lr", 2.5e-4},         {"beta1", 0.8},
                   {"beta2", 0.9},         {"eps", 1e-6},          {"weight_decay", 0.05},
                   {"schedule", "linear"}, {"warmup", 3},          {"min_lr_ratio", 0.2},
                   {"clip", 0.5},          {"accumulation", 2},    {"row_shards", 2},
                   {"ce_chunk", 64},       {"checkpointing", true}};
  const auto to = ex::train_options(ex::parse_spec(spec, "", "spec").train);
  QCOMPARE(to.adamw.lr, 2.5e-4);
  QCOMPARE(to.adamw.beta1, 0.8);
  QCOMPARE(to.adamw.beta2, 0.9);
  QCOMPARE(to.adamw.eps, 1e-6);
  QCOMPARE(to.adamw.weight_decay, 0.05);
  QCOMPARE(QString::fromStdString(to.schedule.kind), QString("linear"));
  QCOMPARE(to.schedule.warmup, int64_t(3));
  QCOMPARE(to.schedule.min_ratio, 0.2);
  QCOMPARE(to.clip, 0.5);
  QCOMPARE(to.accumulation, int64_t(2));
  QCOMPARE(to.row_shards, int64_t(2));
  QCOMPARE(to.ce_chunk, int64_t(64));
  QVERIFY(to.checkpointing);
  QVERIFY(!to.group);  // the process's, not the spec's
}

void TestRunner::adeptUnitLearningRatesFollowImportanceAndSchedule() {
  // ADEPT stage 2 (DESIGN.md, core/grow/adept_stage2.h): every unit U of an expanded
  // layer trains with lr_U = 2·(max − I_U)/(max − min)·lr_base, I_U the unit's importance
  // (here the paper's signed Taylor, mean of θ·∂L/∂θ over the unit's parameters, L the
  // probe-set loss, named explicitly: ADEPT plans default to taylor-code) over the expanded
  // units, assigned after every T_update steps as ADEPT's code does (never at step 0: the
  // base rate until then); the schedule's warm-up and decay apply on top. This test checked
  // assignments at steps 0, 2 and 4 before; the schedule is now ADEPT's code's (2 and 4).
  const int64_t steps = 6, t_update = 2, warmup = 2;
  // Stage 2 is on by default for ADEPT plans; its interval and importance are plan keys.
  const Json plan = {{"variant", "depth"},
                     {"style", "adept"},
                     {"layers", {0}},
                     {"t_update", t_update},
                     {"unit_importance", "taylor"}};
  Json spec = base_spec(plan);
  const double lr = 2e-3, min_ratio = 0.1, beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  spec["train"] = {
      {"steps", steps},   {"seq_len", 32},        {"batch_size", 2},           {"lr", lr},
      {"warmup", warmup}, {"schedule", "cosine"}, {"min_lr_ratio", min_ratio}, {"beta1", beta1},
      {"beta2", beta2},   {"eps", eps},           {"weight_decay", 0.0}};
  spec["checkpoint"] = {{"interval", 1}};
  const std::string db = db_path("adept");
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto cks = store.checkpoints(oc.run_id);
  QCOMPARE(cks.size(), size_t(steps));
  auto lr_series = store.metric_series(oc.run_id, {{"train/lr"}, std::nullopt})["train/lr"];
  QCOMPARE(lr_series.values.size(), size_t(steps));

  // The probe set of the general domain, as documented (probe options of the spec).
  auto tokenizer = gb::tok::Tokenizer::from_file(m_model + "/tokenizer.json");
  auto encoder = gb::data::encoder_for(tokenizer);
  auto stream = ex::source_tokens(ex::parse_source(Json(m_orig_eval), "", "t"), encoder, 0, "t");
  gb::importance::ProbeSetOptions po;
  po.seq_len = 32;
  po.batch_size = 2;
  po.max_tokens = 128;
  auto probes = gb::importance::pack_stream(*stream, po);

  grow::GrowthResult growth;
  gb::CausalLM model = grown_model(plan, &growth);
  QCOMPARE(growth.new_layers, (std::vector<int64_t>{1}));
  auto params = named_params(*model);
  auto base_values = [&] {
    std::map<std::string, torch::Tensor> out;
    for (auto& [n, p] : params) out[n] = p.detach().clone();
    return out;
  }();
  auto load_state = [&](int64_t step) {
    torch::NoGradGuard ng;
    for (auto& [n, p] : params) p.copy_(base_values[n]);
    if (step == 0) return;
    auto t = gb::st::read_all(cks.at(step - 1).path + "/trainable.safetensors");
    for (auto& [n, v] : t) params.at(n).copy_(v);
  };
  // Expected multipliers at a model state: Taylor importance by direct autograd on the
  // probe-set loss, 2·(max − I)/(max − min) over the new layer's units (a constant
  // importance gives 1, i.e. lr_base).
  auto expected_scales = [&](int64_t state_step) {
    load_state(state_step);
    for (auto& [n, p] : params) p.mutable_grad().reset();
    std::vector<torch::Tensor> trainable;
    for (auto& [n, p] : params) {
      if (p.requires_grad()) trainable.push_back(p);
    }
    torch::Tensor nll_sum = torch::zeros({}, torch::kDouble);
    for (const auto& b : probes.batches) {
      auto logits = model->forward(b.ids);
      nll_sum = nll_sum +
                torch::nn::functional::cross_entropy(
                    logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                    torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(
                        torch::kSum))
                    .to(torch::kDouble);
    }
    (nll_sum / static_cast<double>(probes.scored_tokens)).backward();
    std::map<std::string, double> imp;
    for (int64_t l : growth.new_layers) {
      for (const auto& [unit, prefix] : kLlamaUnits) {
        const std::string pre = fmt::format("model.layers.{}.{}", l, prefix);
        double sum = 0;
        int64_t n = 0;
        for (auto& [name, p] : params) {
          if (name.rfind(pre, 0) != 0) continue;
          auto g = p.grad().defined() ? p.grad() : torch::zeros_like(p);
          sum += (p.detach().to(torch::kDouble) * g.to(torch::kDouble)).sum().item<double>();
          n += p.numel();
        }
        if (n > 0) imp[fmt::format("layers.{}.{}", l, unit)] = sum / n;
      }
    }
    for (auto& [n, p] : params) p.mutable_grad().reset();
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [u, v] : imp) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    std::map<std::string, double> scales;
    for (const auto& [u, v] : imp) scales[u] = hi > lo ? 2.0 * (hi - v) / (hi - lo) : 1.0;
    return scales;
  };

  std::map<int64_t, std::map<std::string, double>> expected_at;  // by importance state step
  int distinct_updates = 0;
  std::map<std::string, double> previous;
  for (int64_t k = 1; k <= steps; ++k) {
    // Checkpoint k holds the multipliers of step k − 1, computed at the last positive
    // multiple of T_update at or before it, from the model state of that step; none (1)
    // before the first.
    const int64_t state = ((k - 1) / t_update) * t_update;
    if (state > 0 && !expected_at.count(state)) expected_at[state] = expected_scales(state);
    const auto& want = expected_at[state];  // empty for state 0
    auto meta = gb::json::parse_file(cks.at(k - 1).path + "/trainer.json");
    QCOMPARE(meta.at("extra").at("global_step").get<int64_t>(), k);
    auto got = meta.at("extra").at("lr_scales").get<std::map<std::string, double>>();
    QCOMPARE(got.size(), want.size());
    QCOMPARE(got.size(), state > 0 ? kLlamaUnits.size() : size_t(0));
    for (const auto& [u, s] : want) {
      QVERIFY2(got.count(u), u.c_str());
      QVERIFY2(
          std::abs(got[u] - s) < 1e-4,
          qPrintable(QString("step %1 %2: %3, expected %4").arg(k).arg(qs(u)).arg(got[u]).arg(s)));
    }
    if (got != previous) ++distinct_updates;
    previous = got;

    // The schedule on top: the recorded base learning rate of step k.
    const double base_lr = lr * schedule_factor("cosine", warmup, steps, min_ratio, k - 1);
    QVERIFY2(
        std::abs(lr_series.values[k - 1] - base_lr) < 1e-12 * lr,
        qPrintable(
            QString("train/lr at %1: %2 vs %3").arg(k).arg(lr_series.values[k - 1]).arg(base_lr)));

    // The optimizer applied lr_U = base_lr · scale_U: AdamW's update of step k is
    // −lr_U · m̂/(√v̂ + eps) with the moments stored in checkpoint k (no weight decay).
    load_state(k - 1);
    std::map<std::string, torch::Tensor> before;
    for (auto& [n, p] : params) before[n] = p.detach().clone();
    auto after = gb::st::read_all(cks.at(k - 1).path + "/trainable.safetensors");
    auto moments = gb::st::read_all(cks.at(k - 1).path + "/optimizer.safetensors");
    const double bc1 = 1.0 - std::pow(beta1, k), bc2 = 1.0 - std::pow(beta2, k);
    int checked_units = 0;
    for (const auto& [unit, prefix] : kLlamaUnits) {
      const std::string pre = fmt::format("model.layers.1.{}", prefix);
      double du = 0, uu = 0;
      for (const auto& [name, value] : after) {
        if (name.rfind(pre, 0) != 0) continue;
        auto m = moments.at(name + ".exp_avg").to(torch::kDouble);
        auto v = moments.at(name + ".exp_avg_sq").to(torch::kDouble);
        auto u = (m / bc1) / (v.sqrt() / std::sqrt(bc2) + eps);
        auto delta = value.to(torch::kDouble) - before.at(name).to(torch::kDouble);
        du += (delta * u).sum().item<double>();
        uu += (u * u).sum().item<double>();
      }
      if (uu < 1e-6) continue;  // no gradient reached the unit yet (zero-initialised outputs)
      const double lr_eff = -du / uu;
      const double want_lr = base_lr * (state > 0 ? got.at("layers.1." + unit) : 1.0);
      QVERIFY2(std::abs(lr_eff - want_lr) <= 2e-3 * want_lr + 1e-9,
               qPrintable(QString("step %1 unit %2: effective lr %3, expected %4")
                              .arg(k)
                              .arg(qs(unit))
                              .arg(lr_eff)
                              .arg(want_lr)));
      ++checked_units;
    }
    QVERIFY2(checked_units >= 2, qPrintable(QString("step %1: no unit moved").arg(k)));
    // Frozen original layers did not move.
    for (const auto& [name, value] : after) QVERIFY2(contains(name, "layers.1."), name.c_str());
  }
  // Assigned after every T_update steps: the multipliers of steps 2 and 4 differ (steps 0
  // and 1 train at the base rate).
  QCOMPARE(distinct_updates, 2);
  int update_events = 0;
  for (const auto& e : store.events(oc.run_id)) {
    if (contains(e.message, "ADEPT unit learning rates updated")) ++update_events;
  }
  QCOMPARE(update_events, 2);
}

void TestRunner::resumeAfterCancelEqualsUninterruptedRun_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QString>("patch");  // merge patch of the spec
  QTest::addColumn<int>("cancel_after_eval");
  auto row = [](const char* name, const char* plan, const char* patch, int cancel) {
    QTest::newRow(name) << QString(plan) << QString(patch) << cancel;
  };
  row("full", R"({"variant":"full"})", "{}", 2);
  row("lora with weight decay", R"({"variant":"lora","rank":4})",
      R"({"train":{"weight_decay":0.1}})", 4);
  row("grow freeze, accumulation 2", R"({"variant":"grow","mode":"freeze"})",
      R"({"train":{"accumulation":2}})", 2);
  row("adept unit lrs", R"({"variant":"depth","style":"adept","layers":[1]})",
      R"({"adept":{"unit_lr":true,"t_update":3}})", 4);
  row("neutral residues with replay", R"({"variant":"neutral-residues","inner":16})",
      R"({"train":{"replay":0.5}})", 2);
  row("neutral residues with replay per row, 3 rows",
      R"({"variant":"neutral-residues","inner":16,"replay_mode":"rows"})",
      R"({"train":{"replay":0.25,"batch_size":3}})", 2);
  row("ewc", R"({"variant":"ewc","lambda":5})", "{}", 4);
  row("neutral residues, 2 row shards, accumulation 2",
      R"({"variant":"neutral-residues","inner":16})",
      R"({"train":{"row_shards":2,"accumulation":2}})", 2);
  row("mh-moe with balance",
      R"({"variant":"mh-moe","heads":2,"experts":2,"top_k":1,"rank":2,"balance":0.1})", "{}", 2);
  row("sequence, cancelled in the second task", R"({"variant":"loramoe","rank":2})",
      R"({"sequence":"seq"})", 4);
  row("sequence, cancelled at the task boundary", R"({"variant":"full"})",
      R"({"sequence":"seq","eval":{"interval":3}})", 3);
  // EWC's anchors of finished tasks travel with the checkpoint.
  row("lora + per-task EWC, cancelled in the second task",
      R"({"variant":"lora","rank":2,"ewc":{"lambda":50}})", R"({"sequence":"seq"})", 4);
  row("grow + online EWC, cancelled in the second task",
      R"({"variant":"grow","ewc":{"lambda":50,"mode":"online","gamma":0.5}})",
      R"({"sequence":"seq"})", 4);
}

void TestRunner::resumeAfterCancelEqualsUninterruptedRun() {
  QFETCH(QString, plan);
  QFETCH(QString, patch);
  QFETCH(int, cancel_after_eval);
  Json spec = base_spec(Json::parse(str(plan)));
  spec["train"]["steps"] = 6;
  Json p = Json::parse(str(patch));
  if (p.contains("sequence")) {
    p.erase("sequence");
    spec["data"]["new"].erase("train");
    spec["sequence"] = {{{"name", "T1"},
                         {"train", m_new_train},
                         {"eval", {{"kind", "mc"}, {"path", m_mc1}}},
                         {"steps", 3}},
                        {{"name", "T2"},
                         {"train", m_orig_train},
                         {"eval", {{"kind", "mc"}, {"path", m_mc2}}},
                         {"steps", 3}}};
  }
  spec.merge_patch(p);
  const std::string db = db_path(fmt::format("resume-{}", m_counter++));

  auto a = run_one(spec, db);
  QVERIFY2(a.status == "finished", a.error.c_str());

  ex::RunnerOptions o = options(db);
  gb::CancelToken cancel;
  o.cancel = cancel;
  int64_t cancelled_at = -1;
  o.on_event = [&](const gb::events::Event& ev) {
    const auto* e = std::get_if<gb::events::Eval>(&ev);
    if (e && e->step == cancel_after_eval) {
      cancelled_at = e->step;
      cancel.cancel();
    }
  };
  auto b = run_one(spec, db, o);
  QCOMPARE(qs(b.status), QString("cancelled"));
  QCOMPARE(cancelled_at, int64_t(cancel_after_eval));
  {
    Store store = Store::open(db);
    QCOMPARE(store.get_run(b.run_id).status, RunStatus::Cancelled);
    auto ck = store.latest_checkpoint(b.run_id);
    QVERIFY(ck.has_value());
    QCOMPARE(ck->step, int64_t(cancel_after_eval));
  }
  auto resumed = ex::resume_run(b.run_id, options(db));
  QVERIFY2(resumed.status == "finished", resumed.error.c_str());

  Store store = Store::open(db);
  QCOMPARE(store.get_run(b.run_id).status, RunStatus::Finished);
  // Every recorded metric, at every step, bit-identical.
  auto ma = learning_metrics(store, a.run_id), mb = learning_metrics(store, b.run_id);
  QVERIFY(ma.size() > 20);
  const std::string d = diff_metrics(ma, mb);
  QVERIFY2(d.empty(), d.c_str());
  // Final metrics of the outcomes.
  for (const auto& [k, v] : resumed.final_metrics.items()) {
    if (k.rfind("perf/", 0) == 0) continue;
    QVERIFY2(a.final_metrics.contains(k), k.c_str());
    QVERIFY2(a.final_metrics[k].get<double>() == v.get<double>(), k.c_str());
  }
  // The final checkpoints: trainable tensors and optimizer state (moments, RNG).
  auto cka = store.latest_checkpoint(a.run_id), ckb = store.latest_checkpoint(b.run_id);
  QVERIFY(cka && ckb);
  QCOMPARE(cka->step, ckb->step);
  QVERIFY(cka->path != ckb->path);
  for (const char* f : {"trainable.safetensors", "optimizer.safetensors"}) {
    const std::string td = diff_tensor_files(cka->path + "/" + f, ckb->path + "/" + f);
    QVERIFY2(td.empty(), td.c_str());
  }
  // A task sequence's accuracy matrix too.
  auto ta = store.task_matrix(a.run_id), tb = store.task_matrix(b.run_id);
  QCOMPARE(ta.cells.size(), tb.cells.size());
  for (size_t i = 0; i < ta.cells.size(); ++i) QCOMPARE(ta.cells[i].value, tb.cells[i].value);
}

void TestRunner::nanInjectionMarksRunDivergedNamingStepAndTerm_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<int>("step");
  QTest::newRow("full at the first step") << R"({"variant":"full"})" << 0;
  QTest::newRow("lora at step 2") << R"({"variant":"lora","rank":2})" << 2;
  QTest::newRow("grow freeze at step 3") << R"({"variant":"grow","mode":"freeze"})" << 3;
}

void TestRunner::nanInjectionMarksRunDivergedNamingStepAndTerm() {
  QFETCH(QString, plan);
  QFETCH(int, step);
  Json spec = base_spec(Json::parse(str(plan)));
  spec["train"]["steps"] = 5;
  const std::string db = db_path("nan");
  ex::RunnerOptions o = options(db);
  o.inject_nan_at = step;
  auto oc = run_one(spec, db, o);
  QCOMPARE(qs(oc.status), QString("diverged"));
  const std::string want_step = fmt::format("step {}", step);
  QVERIFY2(contains(oc.error, want_step), oc.error.c_str());
  QVERIFY2(contains(oc.error, "next-token cross-entropy"), oc.error.c_str());
  QVERIFY2(contains(oc.error, "nan"), oc.error.c_str());
  Store store = Store::open(db);
  auto info = store.get_run(oc.run_id);
  QCOMPARE(info.status, RunStatus::Diverged);
  QCOMPARE(qs(info.error), qs(oc.error));
  // The steps before the divergence are recorded, none after it.
  auto loss = store.metric_series(oc.run_id, {{"train/loss"}, std::nullopt})["train/loss"];
  QCOMPARE(static_cast<int>(loss.steps.size()), step);
  for (double v : loss.values) QVERIFY(std::isfinite(v));
  QVERIFY(metrics_at(store, oc.run_id, 0).count("eval/orig/loss"));
}

void TestRunner::taskSequenceRecordsAccuracyMatrixOpAndBwt() {
  Json spec = base_spec({{"variant", "lora"}, {"rank", 4}});
  spec["data"]["new"].erase("train");
  spec["sequence"] = {
      {{"name", "T1"},
       {"train", m_new_train},
       {"eval", {{"kind", "lm"}, {"path", m_new_eval}}},
       {"steps", 2}},
      {{"name", "T2"}, {"train", m_orig_train}, {"eval", {{"kind", "lm"}, {"path", m_orig_eval}}}},
      {{"name", "T3"},
       {"train", m_new_train},
       {"eval", {{"kind", "mc"}, {"path", m_mc3}}},
       {"steps", 1}}};
  spec["train"]["steps"] = 3;
  spec["train"]["lr"] = 5e-2;
  // An evaluation after every step: each task's end coincides with one, whose scores the
  // matrix row shares (computed once for those weights), and the final evaluation shares the
  // last row's.
  spec["eval"]["interval"] = 1;
  const std::string db = db_path("sequence");
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto tm = store.task_matrix(oc.run_id);
  QCOMPARE(tm.cells.size(), size_t(9));
  QCOMPARE(tm.values.size(), size_t(3));
  std::vector<std::vector<double>> r(3, std::vector<double>(3));
  for (int i = 0; i < 3; ++i) {
    QCOMPARE(tm.values[i].size(), size_t(3));
    for (int j = 0; j < 3; ++j) {
      QVERIFY(std::isfinite(tm.values[i][j]));
      r[i][j] = tm.values[i][j];
    }
  }
  // The last row is the final evaluation of every task (LM: −loss; MC accuracy).
  const int64_t last = 2 + 3 + 1;
  auto fin = metrics_at(store, oc.run_id, last);
  QCOMPARE(r[2][0], -fin.at("eval/T1/loss"));
  QCOMPARE(r[2][1], -fin.at("eval/T2/loss"));
  QCOMPARE(r[2][2], fin.at("eval/T3/acc"));
  // Rows differ: training later tasks changed the earlier tasks' scores.
  QVERIFY(r[1][0] != r[0][0] && r[2][0] != r[0][0] && r[2][1] != r[1][1]);
  // Every row equals the evaluation at its task's last step (steps 2 and 5), never a score
  // of other weights: the evaluations one step earlier differ.
  for (const auto& [row, step] : {std::pair<int, int64_t>{0, 2}, {1, 5}}) {
    auto at = metrics_at(store, oc.run_id, step);
    auto before = metrics_at(store, oc.run_id, step - 1);
    QCOMPARE(r[row][0], -at.at("eval/T1/loss"));
    QCOMPARE(r[row][1], -at.at("eval/T2/loss"));
    QCOMPARE(r[row][2], at.at("eval/T3/acc"));
    QVERIFY(at.at("eval/T1/loss") != before.at("eval/T1/loss"));
    QVERIFY(at.at("eval/T2/loss") != before.at("eval/T2/loss"));
  }
  // OP and BWT (DESIGN.md) by hand from the stored matrix.
  const double op = (r[2][0] + r[2][1] + r[2][2]) / 3.0;
  const double bwt = ((r[2][0] - r[0][0]) + (r[2][1] - r[1][1])) / 2.0;
  QVERIFY(std::abs(fin.at("eval/op") - op) < 1e-12);
  QVERIFY(std::abs(fin.at("eval/bwt") - bwt) < 1e-12);
  QVERIFY(bwt != 0.0);
  // Tasks train in order, with the schedule restarting for each: warm-up 1 → the first
  // step of every task has the full learning rate.
  auto lr = store.metric_series(oc.run_id, {{"train/lr"}, std::nullopt})["train/lr"];
  QCOMPARE(lr.steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  QCOMPARE(lr.values[0], 5e-2);
  QCOMPARE(lr.values[2], 5e-2);
  QCOMPARE(lr.values[5], 5e-2);
}

void TestRunner::cliProbeAndRunnerProbeAgreeExactly_data() {
  QTest::addColumn<QString>("method");
  QTest::addColumn<QString>("fisher_mode");
  QTest::newRow("fisher, per sequence") << "fisher"
                                        << "sequence";
  QTest::newRow("fisher, per batch") << "fisher"
                                     << "batch";
  QTest::newRow("taylor") << "taylor"
                          << "sequence";
  QTest::newRow("masking") << "masking"
                           << "sequence";
  QTest::newRow("update-magnitude") << "update-magnitude"
                                    << "sequence";
}

void TestRunner::cliProbeAndRunnerProbeAgreeExactly() {
  // One probe dispatcher (importance/probe.h): `growbench-cli probe` and the runner's probe
  // step (a plan's layer policy) on the same model, data and options record the same probe,
  // bit for bit, and the CLI prints the same values. Each data file is one JSONL document,
  // so that the CLI's probe set (documents shuffled by the seed) and the runner's (a data
  // source) hold the same tokens.
  QFETCH(QString, method);
  QFETCH(QString, fisher_mode);
  const std::string general = m_dir + "/probe_general.jsonl";
  const std::string domain = m_dir + "/probe_domain.jsonl";
  write_text(general, Json{{"text", salad(kEnglish, 220, 31)}}.dump() + "\n");
  write_text(domain, Json{{"text", salad(kGerman, 220, 32)}}.dump() + "\n");
  const bool fine_tunes = method == "update-magnitude";
  const Json policy = fine_tunes
                          ? Json{{"policy", "update-magnitude"}, {"k", 1}}
                          : Json{{"policy", "least-important"}, {"k", 1}, {"method", str(method)}};
  Json spec = base_spec({{"variant", "depth"}, {"style", "adept"}, {"layers", policy}});
  spec["data"]["original"]["probe"] = {{"path", general}, {"format", "jsonl"}};
  spec["data"]["new"]["train"] = {{"path", domain}, {"format", "jsonl"}};
  spec["train"]["steps"] = 1;
  spec["probe"] = {{"tokens", 4096}, {"seq_len", 32}, {"batch_size", 2},
                   {"steps", 3},     {"lr", 0.001},   {"fisher_mode", str(fisher_mode)}};
  const std::string runner_db = db_path(fmt::format("probe-runner-{}", m_counter++));
  auto oc = run_one(spec, runner_db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());

  const std::string cli_db = db_path(fmt::format("probe-cli-{}", m_counter++));
  QStringList args = {"probe",  qs(m_model), "--data",   qs(general),     "--method", method,
                      "--json", "--db",      qs(cli_db), "--seq-len",     "32",       "--batch",
                      "2",      "--tokens",  "4096",     "--seed",        "0",        "--steps",
                      "3",      "--lr",      "0.001",    "--fisher-mode", fisher_mode};
  if (fine_tunes) args << "--domain-data" << qs(domain);
  QProcess cli;
  cli.setProgram(GB_CLI_PATH);
  cli.setArguments(args);
  cli.start();
  QVERIFY(cli.waitForFinished(300000));
  const QByteArray err = cli.readAllStandardError();
  QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, err.constData());
  const Json printed = Json::parse(cli.readAllStandardOutput().toStdString());

  Store rs = Store::open(runner_db), cs = Store::open(cli_db);
  // The runner also records the probes of ADEPT's stage 2 (unit learning rates, on the grown
  // model, with the step they were taken at); the layer-selection probe is the one without.
  std::vector<std::decay_t<decltype(rs.list_probes())>::value_type> rp;
  for (const auto& pr : rs.list_probes())
    if (!Json::parse(pr.params).contains("adept_step")) rp.push_back(pr);
  const auto cp = cs.list_probes();
  QCOMPARE(rp.size(), size_t(1));
  QCOMPARE(cp.size(), size_t(1));
  QCOMPARE(rp[0].run_id, std::optional<int64_t>(oc.run_id));
  QCOMPARE(qs(rp[0].method), method);
  QCOMPARE(qs(cp[0].method), method);
  // The same parameters (the name of the fine-tuning data aside; both record it)...
  Json rparams = Json::parse(rp[0].params), cparams = Json::parse(cp[0].params);
  if (fine_tunes) {
    QVERIFY(rparams.contains("trained_on") && cparams.contains("trained_on"));
    rparams.erase("trained_on");
    cparams.erase("trained_on");
  }
  QCOMPARE(qs(rparams.dump()), qs(cparams.dump()));
  if (method == "fisher") {
    QCOMPARE(qs(rparams.at("fisher_mode").get<std::string>()), fisher_mode);
  }
  // ...the same probe data (the fine-tuning data for update-magnitude)...
  auto dataset = [](Store& st, const gb::store::ProbeInfo& info) {
    for (const auto& d : st.list_datasets()) {
      if (info.dataset_id && d.id == *info.dataset_id) return d;
    }
    return gb::store::DatasetInfo{};
  };
  const auto rd = dataset(rs, rp[0]), cd = dataset(cs, cp[0]);
  QVERIFY(!rd.hash.empty());
  QCOMPARE(qs(rd.hash), qs(cd.hash));
  QCOMPARE(rd.tokens, cd.tokens);
  // ...and bit-identical values, as recorded and as the CLI prints them (JSON numbers are
  // written shortest round-trip, so equal text means equal doubles).
  const auto rr = gb::importance::load_probe(rs, rp[0].id);
  const auto cr = gb::importance::load_probe(cs, cp[0].id);
  QVERIFY(!rr.layers.empty());
  QCOMPARE(rr.layers.size(), cr.layers.size());
  for (size_t l = 0; l < rr.layers.size(); ++l) {
    QVERIFY2(std::memcmp(&rr.layers[l], &cr.layers[l], sizeof(double)) == 0,
             qPrintable(QString("layer %1: %2 vs %3")
                            .arg(l)
                            .arg(rr.layers[l], 0, 'g', 17)
                            .arg(cr.layers[l], 0, 'g', 17)));
  }
  const Json rj = gb::importance::probe_json(rr), cj = gb::importance::probe_json(cr);
  QCOMPARE(qs(rj.dump()), qs(cj.dump()));
  for (const char* k : {"method", "layers", "units", "base_loss", "layers_mean_rank", "details"}) {
    QVERIFY2(printed.value(k, Json()) == rj.value(k, Json()), k);
  }
}

void TestRunner::tokenisedCorporaGoToTheRunnersCacheDir() {
  // RunnerOptions::cache_dir (growbench-cli run --cache) holds presets and tokenised
  // corpora (runner.h, docs): nothing goes to the default cache.
  const std::string cache = m_dir + "/own-cache";
  auto count_files = [](const std::string& dir) {
    int n = 0;
    if (!fs::exists(dir)) return 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
    return n;
  };
  const std::string default_cache = m_cache + "/default";
  fs::remove_all(default_cache);
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["steps"] = 1;
  ex::RunnerOptions o = options(db_path("cache"));
  o.cache_dir = cache;
  auto oc = run_one(spec, o.db_path, o);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  QVERIFY2(count_files(cache) > 0, "nothing in the runner's cache dir");
  QCOMPARE(count_files(default_cache), 0);
}

void TestRunner::cliSignalCancelsCleanlyKeepingACheckpoint_data() {
  QTest::addColumn<int>("signal");
  QTest::newRow("SIGINT") << int(SIGINT);
  QTest::newRow("SIGTERM") << int(SIGTERM);
}

void TestRunner::cliSignalCancelsCleanlyKeepingACheckpoint() {
  QFETCH(int, signal);
  Json spec = base_spec({{"variant", "lora"}, {"rank", 2}});
  spec["train"]["steps"] = 100000;
  spec["eval"]["interval"] = 1000;
  const std::string spec_path = m_dir + "/signal.json";
  const std::string db = db_path("signal");
  write_text(spec_path, spec.dump());
  QProcess p;
  p.setProgram(GB_CLI_PATH);
  p.setArguments({"run", qs(spec_path), "--db", qs(db), "--cache", qs(m_cache)});
  p.setStandardErrorFile(qs(m_dir + "/signal.err"));
  p.start();
  QVERIFY(p.waitForStarted());
  // Wait for training progress on stdout, then signal.
  QElapsedTimer t;
  t.start();
  std::string out;
  while (t.elapsed() < 60000 && !contains(out, "\"stage\":\"train\"")) {
    p.waitForReadyRead(200);
    out += p.readAllStandardOutput().toStdString();
  }
  QVERIFY2(contains(out, "\"stage\":\"train\""), out.c_str());
  ::kill(static_cast<pid_t>(p.processId()), signal);
  QVERIFY(p.waitForFinished(60000));
  out += p.readAllStandardOutput().toStdString();
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);
  QCOMPARE(p.exitCode(), 130);
  QVERIFY2(contains(out, "\"status\":\"cancelled\""), out.c_str());
  Store store = Store::open(db);
  auto runs = store.list_runs();
  QVERIFY(!runs.empty());
  const auto& run = runs.front().id > runs.back().id ? runs.front() : runs.back();
  QCOMPARE(run.status, RunStatus::Cancelled);
  auto ck = store.latest_checkpoint(run.id);
  QVERIFY(ck.has_value());
  QVERIFY(ck->step > 0);
  QVERIFY(fs::exists(fs::path(ck->path) / "optimizer.safetensors"));
}

void TestRunner::sigkilledWorkerLeavesConsistentStoreAndResumes() {
  // The real worker (growbench-cli run) killed with SIGKILL at random moments: the store
  // passes PRAGMA integrity_check, the run is marked interrupted on the next open, and a run
  // with a checkpoint resumes to the same metrics as an uninterrupted run.
  Json spec = base_spec({{"variant", "lora"}, {"rank", 4}, {"targets", {"q", "v", "down"}}});
  spec["train"]["steps"] = 96;
  spec["eval"]["interval"] = 16;
  spec["checkpoint"] = {{"interval", 4}};
  const std::string spec_path = m_dir + "/kill.json";
  const std::string db = db_path("kill");
  write_text(spec_path, spec.dump());

  auto start_worker = [&](QProcess& p) {
    p.setProgram(GB_CLI_PATH);
    p.setArguments({"run", qs(spec_path), "--db", qs(db), "--cache", qs(m_cache)});
    p.setStandardErrorFile(qs(m_dir + "/kill.err"));
    p.start();
    return p.waitForStarted();
  };
  auto newest_run = [&](Store& store) {
    int64_t id = 0;
    for (const auto& r : store.list_runs()) id = std::max(id, r.id);
    return id;
  };
  // Reads the worker's progress lines until `until` says stop (true), the worker ends (false)
  // or two minutes pass (false).
  auto read_until = [&](QProcess& p, const std::function<bool(const QByteArray&)>& until) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000) {
      while (p.canReadLine()) {
        if (until(p.readLine())) return true;
      }
      if (p.state() == QProcess::NotRunning) return false;
      p.waitForReadyRead(5);
    }
    return false;
  };

  // The uninterrupted reference, through the same worker. Its timeline (first progress
  // line; the run's first training step; exit) sets the ranges of the random kill delays.
  QElapsedTimer timer;
  qint64 first_line_ms = -1, started_ms = -1, train_ms = -1, full_ms = 0;
  int checkpoints = 0, preparation_lines = 0;  // lines between run_started and checkpoint 1
  {
    QProcess p;
    timer.start();
    QVERIFY(start_worker(p));
    read_until(p, [&](const QByteArray& line) {
      if (first_line_ms < 0) first_line_ms = timer.elapsed();
      if (started_ms < 0 && line.contains("\"event\":\"run_started\"")) {
        started_ms = timer.elapsed();
      }
      if (train_ms < 0 && line.contains("\"stage\":\"train\"")) train_ms = timer.elapsed();
      if (line.contains("\"event\":\"checkpoint\"")) ++checkpoints;
      if (started_ms >= 0 && checkpoints == 0) ++preparation_lines;
      return false;
    });
    QCOMPARE(p.state(), QProcess::NotRunning);
    full_ms = timer.elapsed();
    QCOMPARE(p.exitCode(), 0);
  }
  QVERIFY(first_line_ms > 0 && started_ms >= first_line_ms && train_ms >= started_ms);
  QVERIFY2(checkpoints >= 20, qPrintable(QString::number(checkpoints)));
  QVERIFY(preparation_lines >= 1);
  int64_t reference = 0;
  std::map<std::pair<std::string, int64_t>, double> ref_metrics;
  {
    Store store = Store::open(db);
    reference = newest_run(store);
    QCOMPARE(store.get_run(reference).status, RunStatus::Finished);
    ref_metrics = learning_metrics(store, reference);
  }
  qInfo(
      "reference run: first line after %lld ms, run started after %lld ms, training after %lld "
      "ms, exit after %lld ms, %d checkpoints, %d lines in its preparation",
      static_cast<long long>(first_line_ms), static_cast<long long>(started_ms),
      static_cast<long long>(train_ms), static_cast<long long>(full_ms), checkpoints,
      preparation_lines);

  // Where each kill lands is aimed by the worker's own progress lines, not by the clock alone
  // (the machine's load changes while the test runs, and fixed delays then land mostly before
  // the run exists): one kill in six at a random moment of the start-up (before the run may
  // exist), one in its preparation (probes, growth, first evaluation: before its first
  // checkpoint) just after a random one of its progress lines there, the others a random
  // fraction of a checkpoint interval after a random number of its checkpoint lines.
  std::mt19937 rng(20240607);
  std::uniform_int_distribution<int> mode(0, 5);
  std::uniform_int_distribution<int> after_checkpoints(1, checkpoints);
  std::uniform_int_distribution<qint64> startup_delay(0, started_ms);
  std::uniform_int_distribution<int> preparation_line(1, preparation_lines);
  const qint64 interval_ms = std::max<qint64>(1, (full_ms - train_ms) / checkpoints);
  std::uniform_int_distribution<qint64> interval_delay(0, interval_ms);
  // Kills that land before the worker created its run or after it finished do not count:
  // go on until 20 kills hit a live run (at most 100 attempts).
  const int kills = 20;
  int resumed = 0, before_checkpoint = 0, finished_first = 0, before_run = 0, mid_run = 0;
  int64_t known = reference;
  for (int i = 0; mid_run < kills && i < 5 * kills; ++i) {
    QProcess p;
    QVERIFY(start_worker(p));
    QString aim;
    const int m = mode(rng);
    if (m == 0) {
      const qint64 ms = startup_delay(rng);
      aim = QString("%1 ms after the start").arg(ms);
      QThread::msleep(static_cast<unsigned long>(ms));
    } else {
      // Mode 1: the n-th line after run_started (a line of the preparation, or checkpoint 1
      // where this worker printed fewer); otherwise the n-th checkpoint line.
      const int wait_for = m == 1 ? preparation_line(rng) : after_checkpoints(rng);
      int seen = 0;
      bool started = false;
      const bool reached = read_until(p, [&](const QByteArray& line) {
        const bool checkpoint = line.contains("\"event\":\"checkpoint\"");
        if (m == 1) {
          if (started) ++seen;
          started |= line.contains("\"event\":\"run_started\"");
          return seen == wait_for || (seen > 0 && checkpoint);
        }
        if (checkpoint) ++seen;
        return seen == wait_for;
      });
      const qint64 ms = m == 1 ? 0 : interval_delay(rng);
      aim = m == 1 ? QString("after line %1 of the run's preparation").arg(wait_for)
                   : QString("%1 ms after checkpoint line %2").arg(ms).arg(wait_for);
      if (reached) QThread::msleep(static_cast<unsigned long>(ms));
    }
    const bool was_running = p.state() == QProcess::Running;
    if (was_running) ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    if (p.state() != QProcess::NotRunning) QVERIFY(p.waitForFinished(60000));

    Store store =
        Store::open(db, gb::store::OpenMode::ReadWrite, {5000, gb::store::IntegrityCheck::Full});
    QCOMPARE(store.integrity_check(), (std::vector<std::string>{"ok"}));
    const int64_t run = newest_run(store);
    if (run == known) {  // killed before the run was created
      ++before_run;
      continue;
    }
    known = run;
    auto info = store.get_run(run);
    if (!was_running || info.status == RunStatus::Finished) {
      QCOMPARE(info.status, RunStatus::Finished);
      ++finished_first;
      continue;
    }
    ++mid_run;
    QVERIFY2(info.status == RunStatus::Running || info.status == RunStatus::Queued,
             gb::store::to_string(info.status));
    const bool was_marked_running = info.status == RunStatus::Running;
    auto marked = store.mark_interrupted_runs();
    if (was_marked_running) {
      QCOMPARE(marked, std::vector<int64_t>{run});
      QCOMPARE(store.get_run(run).status, RunStatus::Interrupted);
    }
    // Without a checkpoint the resume starts the run from the beginning (issue 20: every
    // interrupted run can be started again); either way it ends equal to the reference.
    auto ck = store.latest_checkpoint(run);
    if (!ck) ++before_checkpoint;
    {
      // Resumed by the worker (same process environment as the uninterrupted run).
      QProcess r;
      r.setProgram(GB_CLI_PATH);
      r.setArguments({"run", "--resume", QString::number(run), "--db", qs(db), "--cache",
                      qs(m_cache), "--quiet"});
      r.setStandardOutputFile(QProcess::nullDevice());
      r.setStandardErrorFile(qs(m_dir + "/resume.err"));
      r.start();
      QVERIFY(r.waitForFinished(120000));
      QCOMPARE(r.exitCode(), 0);
    }
    QCOMPARE(store.get_run(run).status, RunStatus::Finished);
    const std::string d = diff_metrics(ref_metrics, learning_metrics(store, run));
    const long long from = ck ? static_cast<long long>(ck->step) : -1;
    QVERIFY2(
        d.empty(),
        qPrintable(QString("kill %1 %2 (checkpoint %3): %4").arg(i).arg(aim).arg(from).arg(qs(d))));
    if (ck) ++resumed;
    qInfo("kill %2d %s: resumed from step %lld", i, qPrintable(aim), from);
  }
  qInfo(
      "%d kills in a live run: %d resumed, %d before the first checkpoint (started again); %d more "
      "attempts: %d before the run existed, %d after it finished",
      mid_run, resumed, before_checkpoint, before_run + finished_first, before_run, finished_first);
  QCOMPARE(mid_run, kills);
  QVERIFY2(resumed >= kills / 2, "too few kills landed after the first checkpoint");
}

// acc_norm as lm-evaluation-harness computes it: argmax of the log-likelihood divided by the
// length in characters (code points) of the choice text, without the target delimiter. The
// choices differ in bytes per character, so that a byte- or token-normalised score would not
// be the same quantity.
void TestRunner::accNormIsTheHarnessDefinition() {
  QCOMPARE(gb::eval::utf8_length("Grüße"), int64_t(5));  // 7 bytes
  QCOMPARE(gb::eval::utf8_length("日本"), int64_t(2));   // 6 bytes
  QCOMPARE(gb::eval::utf8_length(""), int64_t(0));
  QCOMPARE(gb::eval::argmax({1.0, 3.0, 3.0, 2.0}), 1);  // the first on ties

  auto tokenizer = gb::tok::Tokenizer::from_file(m_model + "/tokenizer.json");
  auto encoder = gb::data::encoder_for(tokenizer);
  std::vector<gb::data::McItem> items;
  items.push_back({"Wie grüßt man?", {"Grüße", "Hallo zusammen", "日本"}, 0, "t:1"});
  items.push_back({"Which one:", {"ö", "oo", "日本語です"}, 2, "t:2"});
  items.push_back({"Pick", {"a", "bb", "ccc", "ü"}, 3, "t:3"});
  auto mc = gb::eval::tokenize_mc(items, encoder);
  QCOMPARE(mc[0].choice_chars, (std::vector<int64_t>{5, 14, 2}));
  QCOMPARE(mc[1].choice_chars, (std::vector<int64_t>{1, 2, 5}));
  QCOMPARE(mc[2].choice_chars, (std::vector<int64_t>{1, 2, 3, 1}));
  // The continuation scored is the delimiter and the choice.
  QVERIFY(mc[0].choices[0] == encoder.encode(" Grüße", false));

  gb::LoadedModel m = grow::load_model(m_model);
  const c10::Device cpu(torch::kCPU);
  int hits = 0, hits_norm = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    // By hand: the summed log-probabilities of each continuation's tokens.
    std::vector<double> lls, by_chars;
    for (size_t c = 0; c < items[i].choices.size(); ++c) {
      std::vector<int64_t> ids(mc[i].context.begin(), mc[i].context.end());
      ids.insert(ids.end(), mc[i].choices[c].begin(), mc[i].choices[c].end());
      torch::NoGradGuard ng;
      auto logp = torch::log_softmax(
          m.model->forward(torch::tensor(ids, torch::kLong).unsqueeze(0)).squeeze(0), -1);
      double ll = 0;
      const size_t n = mc[i].choices[c].size();
      for (size_t t = 0; t < n; ++t) {
        const size_t pos = ids.size() - n + t;
        ll += logp[static_cast<int64_t>(pos - 1)][ids[pos]].item<double>();
      }
      lls.push_back(ll);
      const QString text = QString::fromStdString(items[i].choices[c]);
      by_chars.push_back(ll / static_cast<double>(text.toUcs4().size()));
    }
    const auto scored = gb::eval::mc_loglikelihoods(*m.model, mc[i], cpu, 0);
    QCOMPARE(scored.size(), lls.size());
    for (size_t c = 0; c < lls.size(); ++c) {
      QVERIFY2(
          std::abs(scored[c] - lls[c]) <= 1e-5 * std::max(1.0, std::abs(lls[c])),
          qPrintable(
              QString("item %1 choice %2: %3 vs %4").arg(i).arg(c).arg(scored[c]).arg(lls[c])));
    }
    hits += gb::eval::argmax(lls) == items[i].answer;
    hits_norm += gb::eval::argmax(by_chars) == items[i].answer;
  }
  const auto r = gb::eval::mc_eval(*m.model, mc, cpu, 0);
  QCOMPARE(r.n, int64_t(3));
  QCOMPARE(r.acc, hits / 3.0);
  QCOMPARE(r.acc_norm, hits_norm / 3.0);

  // QA items of different lengths are scored in one right-padded batch: the same answer loss
  // (up to the summation order) and the same argmax decisions as one item at a time.
  std::vector<gb::data::QaItem> qa(3);
  qa[0].question = "Where was Anna born?";
  qa[0].answer = "Graz";
  qa[1].question = "What did she study at the university?";
  qa[1].answer = "Physik";
  qa[2].question = "Wer?";
  qa[2].answer = "日本語です und mehr";
  const auto qt = gb::eval::tokenize_qa_items(qa, encoder);
  const auto together = gb::eval::qa_eval(*m.model, qt, cpu, true);
  double loss = 0, first = 0, exact = 0;
  int64_t tokens = 0;
  for (const auto& q : qt) {
    const auto one = gb::eval::qa_eval(*m.model, {q}, cpu, true);
    const auto n = static_cast<int64_t>(q.answer.size());
    loss += one.answer_loss * static_cast<double>(n);
    tokens += n;
    first += one.first_token_acc;
    exact += one.exact_match;
  }
  QCOMPARE(together.n, int64_t(3));
  QVERIFY2(std::abs(together.answer_loss - loss / static_cast<double>(tokens)) <=
               1e-5 * std::max(1.0, together.answer_loss),
           qPrintable(QString("%1 vs %2").arg(together.answer_loss).arg(loss / tokens)));
  QCOMPARE(together.first_token_acc, first / 3.0);
  QCOMPARE(together.exact_match, exact / 3.0);
}

// The replay fraction is a plan option as well as the train default: one experiment compares
// p per plan. A plan without the key uses train.replay; p = 0 is valid for every variant,
// and neutral residues without replay record a warning (their local loss never applies).
void TestRunner::replayIsAPlanOption() {
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["replay"] = 0.5;
  spec["plans"] =
      Json::array({Json{{"variant", "full"}}, Json{{"variant", "full"}, {"replay", 0.5}},
                   Json{{"variant", "full"}, {"replay", 0}},
                   Json{{"variant", "neutral-residues"}, {"replay", 0}, {"inner", 8}},
                   Json{{"variant", "neutral-residues"}, {"inner", 8}}});
  const std::string db = db_path(fmt::format("replay-{}", m_counter++));
  auto outcomes = ex::run_experiment(ex::parse_spec(spec, "", "spec"), options(db));
  QCOMPARE(outcomes.size(), size_t(5));
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto m = [&](size_t i) { return learning_metrics(store, outcomes[i].run_id); };
  // The train default and the same value in the plan: the same run, bit for bit.
  const std::string same = diff_metrics(m(0), m(1));
  QVERIFY2(same.empty(), same.c_str());
  // p = 0 in the plan overrides the default: another batch stream.
  QVERIFY(!diff_metrics(m(0), m(2)).empty());
  // The run's stored spec holds the plan's replay.
  const Json stored = Json::parse(store.get_run(outcomes[2].run_id).spec);
  QCOMPARE(stored.at("plans").at(0).at("replay").get<double>(), 0.0);
  auto warned = [&](size_t i) {
    for (const auto& e : store.events(outcomes[i].run_id)) {
      if (e.level == gb::store::EventLevel::Warning &&
          contains(e.message, "local loss never applies")) {
        return true;
      }
    }
    return false;
  };
  QVERIFY(warned(3));
  QVERIFY(!warned(4));
  // The ℓ1 term is recorded only where original-domain batches exist.
  const auto l1 = gb::metrics::train_term_key("local_l1");
  bool l1_without = false, l1_with = false;
  for (const auto& [k, v] : m(3)) l1_without |= k.first == l1 && v != 0;
  for (const auto& [k, v] : m(4)) l1_with |= k.first == l1 && v != 0;
  QVERIFY(!l1_without);
  QVERIFY(l1_with);

  // Bad values name the key; a plan's p > 0 needs replay data.
  QVERIFY(contains(error_of([] {
                     grow::parse_plan({{"variant", "lora"}, {"replay", 1.0}});
                   }),
                   "'replay' must be in [0, 1)"));
  QVERIFY(contains(error_of([] {
                     grow::parse_plan({{"variant", "lora"}, {"replay", "a lot"}});
                   }),
                   "'replay' must be a number"));
  Json no_data = base_spec({{"variant", "full"}, {"replay", 0.1}});
  no_data["data"]["original"].erase("replay");
  QVERIFY(contains(error_of([&] { ex::parse_spec(no_data, "", "spec"); }),
                   "spec.plans[0].replay: 0.1 needs data.original.replay"));
  Json ok = base_spec({{"variant", "neutral-residues"}, {"replay", 0}, {"inner", 8}});
  ok["data"]["original"].erase("replay");
  ex::parse_spec(ok, "", "spec");  // p = 0 needs no replay data
}

// A bf16 checkpoint: by default (frozen_dtype "checkpoint") a LoRA run keeps the frozen
// matrices in bf16 and says so in an event; with "float32" they are float32 copies of the
// same values. The two runs compute the same function of the same weights (the forward
// products are the same calls on the same values; the input gradients through the frozen
// matrices are formed by another call), so their metrics agree within float32 rounding; full
// fine-tuning (nothing frozen) is the same run bit for bit under either setting.
void TestRunner::frozenBaseStaysInTheCheckpointsDtype() {
  const std::string bf16 = m_dir + "/llama-bf16";
  fs::create_directories(bf16);
  for (const char* f : {"config.json", "tokenizer.json"}) {
    fs::copy_file(m_model + "/" + f, bf16 + "/" + f, fs::copy_options::overwrite_existing);
  }
  {
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (const auto& [name, t] : gb::st::read_all(m_model + "/model.safetensors")) {
      tensors.emplace_back(name, t.to(torch::kBFloat16));
    }
    gb::st::write_tensors(bf16 + "/model.safetensors", tensors);
  }
  auto run = [&](const Json& plan, const std::string& frozen) {
    Json spec = base_spec(plan);
    spec["model"] = bf16;
    if (!frozen.empty()) spec["frozen_dtype"] = frozen;
    const std::string db = db_path(fmt::format("frozen-{}", m_counter++));
    auto oc = run_one(spec, db);
    if (oc.status != "finished") throw std::runtime_error(oc.error);
    Store store = Store::open(db);
    std::string said;
    for (const auto& e : store.events(oc.run_id)) {
      if (contains(e.message, "frozen base kept in")) said = e.message;
    }
    return std::make_pair(learning_metrics(store, oc.run_id), said);
  };
  const Json lora = {{"variant", "lora"}, {"rank", 2}, {"targets", {"q", "v", "down"}}};
  const auto [narrow, said] = run(lora, "");
  const auto [wide, said_wide] = run(lora, "float32");
  QVERIFY2(contains(said, "frozen base kept in bfloat16") && contains(said, "matrices"),
           said.c_str());
  QVERIFY2(said_wide.empty(), said_wide.c_str());
  QCOMPARE(narrow.size(), wide.size());
  int compared = 0;
  for (const auto& [k, v] : wide) {
    const auto it = narrow.find(k);
    QVERIFY2(it != narrow.end(), k.first.c_str());
    QVERIFY2(std::isfinite(it->second), k.first.c_str());
    const double bound = 1e-4 * std::max(1.0, std::fabs(v));
    QVERIFY2(std::fabs(it->second - v) <= bound,
             qPrintable(QString("%1@%2: %3 vs %4")
                            .arg(QString::fromStdString(k.first))
                            .arg(k.second)
                            .arg(it->second, 0, 'g', 10)
                            .arg(v, 0, 'g', 10)));
    ++compared;
  }
  QVERIFY(compared > 10);
  const auto [full_default, said_full] = run({{"variant", "full"}}, "");
  const auto [full_wide, said_full_wide] = run({{"variant", "full"}}, "float32");
  QVERIFY(said_full.empty() && said_full_wide.empty());
  const std::string same = diff_metrics(full_default, full_wide);
  QVERIFY2(same.empty(), same.c_str());
}

// replay_mode "rows" (a plan key, or train.replay_mode): with p = 0.5 and 2 rows every batch
// holds one original-domain row, so neutral residues' ℓ1 term is recorded at every step,
// where whole replayed batches ("batches", the default) give it only at some. The default
// and an explicit "batches" are the same run, bit for bit; the mode is a run parameter only
// where it is not the default.
void TestRunner::replayPerRowPutsOriginalRowsInEveryBatch() {
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["replay"] = 0.5;
  const Json nr = {{"variant", "neutral-residues"}, {"inner", 8}};
  Json batches = nr, rows = nr;
  batches["replay_mode"] = "batches";
  rows["replay_mode"] = "rows";
  spec["plans"] = Json::array({nr, batches, rows});
  const std::string db = db_path(fmt::format("replay-rows-{}", m_counter++));
  auto outcomes = ex::run_experiment(ex::parse_spec(spec, "", "spec"), options(db));
  QCOMPARE(outcomes.size(), size_t(3));
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto m = [&](size_t i) { return learning_metrics(store, outcomes[i].run_id); };
  const std::string same = diff_metrics(m(0), m(1));
  QVERIFY2(same.empty(), same.c_str());
  QVERIFY(!diff_metrics(m(0), m(2)).empty());
  const auto l1 = gb::metrics::train_term_key("local_l1");
  auto l1_steps = [&](size_t i) {
    std::vector<int64_t> steps;
    for (const auto& [k, v] : m(i)) {
      if (k.first == l1) steps.push_back(k.second);
    }
    return steps;
  };
  QCOMPARE(l1_steps(2), (std::vector<int64_t>{1, 2, 3, 4}));
  QVERIFY(l1_steps(0).size() < 4);
  auto mode_param = [&](size_t i) {
    const auto params = store.run_params(outcomes[i].run_id);
    auto it = params.find("train.replay_mode");
    return it == params.end() ? std::string() : it->second.get<std::string>();
  };
  QCOMPARE(qs(mode_param(0)), QString());
  QCOMPARE(qs(mode_param(1)), QString());
  QCOMPARE(qs(mode_param(2)), QString("rows"));

  // The train key, and bad values naming the key.
  Json train_rows = base_spec(nr);
  train_rows["train"]["replay_mode"] = "rows";
  QCOMPARE(qs(ex::parse_spec(train_rows, "", "spec").train.replay_mode), QString("rows"));
  train_rows["train"]["replay_mode"] = "tokens";
  QVERIFY(contains(error_of([&] { ex::parse_spec(train_rows, "", "spec"); }),
                   "spec.train.replay_mode: must be batches or rows, found 'tokens'"));
  QVERIFY(contains(error_of([] {
                     grow::parse_plan({{"variant", "lora"}, {"replay_mode", "tokens"}});
                   }),
                   "'replay_mode' must be \"batches\" or \"rows\""));
}

void TestRunner::scaleRecordsOriginalStreamDriftAndFrozenHeadAccuracy_data() {
  QTest::addColumn<QString>("mode");
  QTest::newRow("preserve") << "preserve";
  QTest::newRow("adapt") << "adapt";
}

// SCALE's guarantee as the paper states it: the original stream W·X of a Preserve model is
// the base model's (eval/drift/orig_stream = 0 at every evaluation) while its logits move
// (the head's new term trains), and Task 0 scored from the frozen logits W_out·X alone keeps
// the base model's accuracy (eval/<task>/acc_frozen_head, and test/... at the start and the
// end). Adapt trains W12, so its original stream moves. Models that are not upscaled record
// neither metric.
void TestRunner::scaleRecordsOriginalStreamDriftAndFrozenHeadAccuracy() {
  QFETCH(QString, mode);
  const Json task = {{"name", "t0"}, {"kind", "mc"}, {"path", m_mc1}, {"test", {{"path", m_mc2}}}};
  Json spec = base_spec({{"variant", "scale"}, {"mode", str(mode)}, {"d_up", 32}, {"p_up", 32}});
  spec["plans"].push_back({{"variant", "lora"}, {"rank", 2}});
  spec["data"]["tasks"] = Json::array({task});
  spec["train"]["lr"] = 1e-2;
  const std::string db = db_path(fmt::format("scale-stream-{}", m_counter++));
  auto outcomes = ex::run_experiment(ex::parse_spec(spec, "", "spec"), options(db));
  QCOMPARE(outcomes.size(), size_t(2));
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto series = store.metric_series(outcomes[0].run_id);
  const std::string drift = gb::metrics::kDriftOrigStream;
  const std::string acc = gb::metrics::task_key("t0", gb::metrics::kAcc);
  const std::string frozen = gb::metrics::task_key("t0", gb::metrics::kAccFrozenHead);
  const std::string test_acc = gb::metrics::test_task_key("t0", gb::metrics::kAcc);
  const std::string test_frozen = gb::metrics::test_task_key("t0", gb::metrics::kAccFrozenHead);
  QCOMPARE(series[drift].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series[frozen].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series[test_frozen].steps, (std::vector<int64_t>{0, 4}));
  QCOMPARE(series[drift].values.front(), 0.0);  // the grown model at step 0 is the base
  const auto& orig_loss = series[gb::metrics::kEvalOrigLoss].values;
  QVERIFY2(orig_loss.back() != orig_loss.front(), "the logits moved");
  if (mode == "preserve") {
    for (double v : series[drift].values) QCOMPARE(v, 0.0);
    for (double v : series[frozen].values) QCOMPARE(v, series[acc].values.front());
    for (double v : series[test_frozen].values) QCOMPARE(v, series[test_acc].values.front());
  } else {
    QVERIFY2(series[drift].values.back() > 1e-6,
             qPrintable(QString("drift %1").arg(series[drift].values.back())));
  }
  // Not upscaled: neither metric.
  auto lora = store.metric_series(outcomes[1].run_id);
  QVERIFY(lora.count(gb::metrics::kDriftCosine));
  QVERIFY(!lora.count(drift));
  QVERIFY(!lora.count(frozen));
}

// ADEPT's stage 2 is part of the ADEPT plan (on by default), never of a LLaMA-Pro plan in the
// same experiment; the ablations are plans of their own; the top-level "adept" section of
// earlier specs only gives defaults to ADEPT plans (and to in-place ones, ADEPT without
// stage 1). The rates are first assigned after t_update steps, so the LLaMA-Pro plan with
// stage 2 names its own t_update (with the default 500 it would assign none in 4 steps;
// under the earlier schedule it assigned at step 0).
void TestRunner::adeptStageTwoBelongsToThePlan() {
  Json spec = base_spec({{"variant", "full"}});
  spec["adept"] = {{"t_update", 2}};  // earlier specs: a default for ADEPT plans only
  spec["checkpoint"] = {{"interval", 4}};
  spec["plans"] = Json::array(
      {Json{{"variant", "depth"}, {"style", "adept"}, {"layers", {0}}},
       Json{{"variant", "depth"}, {"style", "llama-pro"}, {"count", 1}},
       Json{{"variant", "depth"}, {"style", "adept"}, {"layers", {0}}, {"unit_lr", false}},
       Json{{"variant", "depth"},
            {"style", "llama-pro"},
            {"count", 1},
            {"unit_lr", true},
            {"t_update", 2}},
       Json{{"variant", "depth"}, {"style", "in-place"}, {"layers", {0}}}});
  const auto parsed = ex::parse_spec(spec, "", "spec");
  QCOMPARE(parsed.plans[0].get<grow::DepthParams>().t_update, int64_t(2));
  QCOMPARE(parsed.plans[1].get<grow::DepthParams>().unit_lr, false);
  QCOMPARE(parsed.plans[1].get<grow::DepthParams>().t_update, int64_t(500));  // not ADEPT
  QCOMPARE(qs(parsed.plans[2].label()), QString("depth/adept no-unit-lr layers=0"));
  QCOMPARE(qs(parsed.plans[3].label()), QString("depth/llama-pro P=1 +unit-lr"));
  QCOMPARE(parsed.plans[4].get<grow::DepthParams>().t_update, int64_t(2));
  QCOMPARE(parsed.plans[4].get<grow::DepthParams>().unit_lr, true);
  const std::string db = db_path(fmt::format("adept-plans-{}", m_counter++));
  auto outcomes = ex::run_experiment(parsed, options(db));
  QCOMPARE(outcomes.size(), size_t(5));
  Store store = Store::open(db);
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  auto scales = [&](size_t i) {
    auto ck = store.latest_checkpoint(outcomes[i].run_id);
    if (!ck) return std::map<std::string, double>{{"no checkpoint", 0}};
    auto meta = gb::json::parse_file(ck->path + "/trainer.json");
    return meta.at("extra").at("lr_scales").get<std::map<std::string, double>>();
  };
  // ADEPT: one multiplier per unit of the new block, not all equal.
  const auto adept = scales(0);
  QCOMPARE(adept.size(), kLlamaUnits.size());
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [u, v] : adept) {
    QVERIFY2(u.rfind("layers.1.", 0) == 0, u.c_str());  // the copy of layer 0 is layer 1
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  QCOMPARE(lo, 0.0);  // the most important unit: 2·(1 − 1)
  QCOMPARE(hi, 2.0);  // the least important unit: 2·(1 − 0)
  // LLaMA-Pro beside it keeps one learning rate; ADEPT without stage 2 too.
  QVERIFY(scales(1).empty());
  QVERIFY(scales(2).empty());
  // LLaMA-Pro placement with stage 2.
  QCOMPARE(scales(3).size(), kLlamaUnits.size());
  // ADEPT without stage 1 as the paper states it: the rates on layer 0 itself.
  const auto in_place = scales(4);
  QCOMPARE(in_place.size(), kLlamaUnits.size());
  for (const auto& [u, v] : in_place) QVERIFY2(u.rfind("layers.0.", 0) == 0, u.c_str());
}

// EWC is a regulariser of any plan over that plan's trainable parameters, recorded as
// train/ewc; in a task sequence the Fisher is re-estimated after each task (per-task: one
// more anchor per finished task; online: folded into one Fisher).
void TestRunner::ewcCombinesWithAnyPlanPerTask() {
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["steps"] = 4;
  spec["data"]["new"].erase("train");
  const Json mc = {{"kind", "mc"}, {"path", m_mc1}};
  spec["sequence"] = {{{"name", "T1"}, {"train", m_new_train}, {"eval", mc}, {"steps", 2}},
                      {{"name", "T2"}, {"train", m_orig_train}, {"eval", mc}, {"steps", 2}},
                      {{"name", "T3"}, {"train", m_new_train}, {"eval", mc}, {"steps", 2}}};
  spec["checkpoint"] = {{"interval", 1}};
  spec["plans"] = Json::array({Json{{"variant", "lora"}, {"rank", 2}, {"ewc", {{"lambda", 100}}}},
                               Json{{"variant", "freeze"},
                                    {"bottom", 1},
                                    {"ewc", {{"lambda", 100}, {"mode", "online"}, {"gamma", 0.5}}}},
                               Json{{"variant", "lora"}, {"rank", 2}}});
  const auto parsed = ex::parse_spec(spec, "", "spec");
  QCOMPARE(qs(parsed.plans[0].label()), QString("lora r=2 +ewc lambda=100"));
  const std::string db = db_path(fmt::format("ewc-{}", m_counter++));
  auto outcomes = ex::run_experiment(parsed, options(db));
  QCOMPARE(outcomes.size(), size_t(3));
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  const std::string ewc_key = gb::metrics::train_term_key("ewc");
  auto series = [&](size_t i) {
    std::map<int64_t, double> v;
    for (const auto& r : store.metric_rows(outcomes[i].run_id)) {
      if (r.key == ewc_key) v[r.step] = r.value;
    }
    return v;
  };
  auto messages = [&](size_t i) {
    std::vector<std::string> m;
    for (const auto& e : store.events(outcomes[i].run_id)) {
      if (contains(e.message, "EWC:")) m.push_back(e.message);
    }
    return m;
  };
  // Per-task: the LoRA parameters are penalised (train/ewc recorded and positive once they
  // moved), two more anchors after tasks 1 and 2.
  const auto lora = series(0);
  QCOMPARE(lora.size(), size_t(6));
  QVERIFY(lora.rbegin()->second > 0);
  const auto m0 = messages(0);
  QCOMPARE(m0.size(), size_t(2));
  QVERIFY2(contains(m0[0], "task 'T1' anchored") && contains(m0[0], "(2 anchored tasks)"),
           m0[0].c_str());
  QVERIFY2(contains(m0[1], "task 'T2' anchored") && contains(m0[1], "(3 anchored tasks)"),
           m0[1].c_str());
  // The checkpoints after task 1 hold the anchors of the finished tasks: 2, then 3.
  auto tasks_in = [&](int64_t run, int64_t step) {
    for (const auto& ck : store.checkpoints(run)) {
      if (ck.step != step) continue;
      const std::string f = ck.path + "/ewc.safetensors";
      if (!fs::exists(f)) return int64_t(1);
      return gb::st::read_all(f).at("tasks_seen").item<int64_t>();
    }
    return int64_t(-1);
  };
  QCOMPARE(tasks_in(outcomes[0].run_id, 1), int64_t(1));
  QCOMPARE(tasks_in(outcomes[0].run_id, 3), int64_t(2));
  QCOMPARE(tasks_in(outcomes[0].run_id, 5), int64_t(3));
  {
    auto st =
        gb::st::read_all(store.latest_checkpoint(outcomes[0].run_id)->path + "/ewc.safetensors");
    int anchors = 0;
    for (const auto& [k, v] : st)
      anchors += k.rfind("/anchor/") != std::string::npos && k.find("lora") != std::string::npos;
    QVERIFY(anchors > 0);
    // Only trainable (LoRA) parameters are anchored.
    for (const auto& [k, v] : st) {
      QVERIFY2(k == "tasks_seen" || k.find("lora") != std::string::npos, k.c_str());
    }
  }
  // Online: one anchor whose Fisher folds the tasks in.
  const auto m1 = messages(1);
  QCOMPARE(m1.size(), size_t(2));
  QVERIFY2(contains(m1[1], "online Fisher") && contains(m1[1], "3 tasks seen"), m1[1].c_str());
  {
    auto st =
        gb::st::read_all(store.latest_checkpoint(outcomes[1].run_id)->path + "/ewc.safetensors");
    for (const auto& [k, v] : st)
      QVERIFY2(k == "tasks_seen" || k.rfind("task0/", 0) == 0, k.c_str());
  }
  QVERIFY(!series(1).empty());
  // Without "ewc": no penalty, no anchors.
  QVERIFY(series(2).empty());
  QVERIFY(messages(2).empty());

  // The contract's errors name the key.
  QVERIFY(contains(
      error_of([] {
        grow::parse_plan({{"variant", "lora"}, {"ewc", {{"lambda", 1}, {"mode", "sometimes"}}}});
      }),
      "plan.ewc: 'mode' must be per-task or online"));
  QVERIFY(
      contains(error_of([] {
                 grow::parse_plan({{"variant", "lora"}, {"ewc", {{"lambda", 1}, {"gamma", 0.5}}}});
               }),
               "'gamma' applies to mode \"online\" only"));
  QVERIFY(contains(error_of([] {
                     grow::parse_plan({{"variant", "lora"}, {"ewc", {{"mode", "online"}}}});
                   }),
                   "missing 'lambda'"));
  QVERIFY(contains(error_of([] {
                     grow::parse_plan({{"variant", "ewc"}, {"ewc", {{"lambda", 1}}}});
                   }),
                   "give 'ewc' to another variant"));
  // Round trip.
  const auto p = grow::parse_plan(
      {{"variant", "grow"}, {"ewc", {{"lambda", 2}, {"mode", "online"}, {"gamma", 0.9}}}});
  QCOMPARE(qs(grow::to_json(grow::parse_plan(grow::to_json(p))).dump()),
           qs(grow::to_json(p).dump()));
}

// ---------------------------------------------------------------------------------------
// Seeds, sweeps, groups and the budget comparison (experiment/expand.h, compare.h)

void TestRunner::seedsAndSweepsExpandDeterministically() {
  Json spec = base_spec({{"variant", "full"}});
  spec["plans"] = Json::array({Json{{"variant", "full"}, {"name", "FT"}},
                               Json{{"variant", "lora"}, {"name", "LoRA"}},
                               Json{{"variant", "lora"},
                                    {"name", "LoRA own"},
                                    {"sweep", {{"rank", {2, 8}}}},
                                    {"seeds", {7}}}});
  spec["seeds"] = {0, 1};
  spec["sweep"] = {{"train.lr", {1e-4, 1e-3}}, {"rank", {4, 16}}};
  const auto parsed = ex::parse_spec(spec, "", "spec");
  const auto runs = ex::expand_runs(parsed);
  // FT: 2 lr × 2 seeds (rank does not apply); LoRA: 2 lr × 2 rank × 2 seeds; LoRA own: its
  // own sweep (rank 2, 8) and seed 7 only.
  QCOMPARE(runs.size(), size_t(4 + 8 + 2));
  QCOMPARE(runs[0].plan_index, size_t(0));
  QCOMPARE(runs[0].swept.dump(), Json({{"train.lr", 1e-4}}).dump());
  QCOMPARE(runs[0].seed, uint64_t(0));
  QCOMPARE(runs[1].seed, uint64_t(1));
  QCOMPARE(runs[2].swept.dump(), Json({{"train.lr", 1e-3}}).dump());
  // Keys in sorted order (rank before train.lr), values as given, then seeds.
  QCOMPARE(runs[4].swept.dump(), Json({{"rank", 4}, {"train.lr", 1e-4}}).dump());
  QCOMPARE(runs[6].swept.dump(), Json({{"rank", 4}, {"train.lr", 1e-3}}).dump());
  QCOMPARE(runs[8].swept.dump(), Json({{"rank", 16}, {"train.lr", 1e-4}}).dump());
  QCOMPARE(runs[12].swept.dump(), Json({{"rank", 2}}).dump());
  QCOMPARE(runs[12].seed, uint64_t(7));
  QCOMPARE(qs(runs[5].name), QString("t: LoRA [rank=4, train.lr=0.0001] seed=1"));
  // Each run's spec is resolved: one plan, the values written in, its run seed, no sweep;
  // expanding it again gives exactly that run.
  for (const auto& r : runs) {
    QVERIFY(!r.spec.contains("sweep") && !r.spec.contains("seeds"));
    QCOMPARE(r.spec["plans"].size(), size_t(1));
    const auto reparsed = ex::parse_spec(r.spec, "", "run spec");
    const auto again = ex::expand_runs(reparsed);
    QCOMPARE(again.size(), size_t(1));
    QCOMPARE(again[0].spec.dump(), r.spec.dump());
    QCOMPARE(again[0].params, r.params);
    // The typed spec the runner runs is the one its text parses to (parsed once, in
    // expand_runs): same text, seeds, plan and train section.
    QCOMPARE(r.typed.raw.dump(), r.spec.dump());
    QCOMPARE(r.typed.run_seed, reparsed.run_seed);
    QCOMPARE(r.typed.seed, reparsed.seed);
    QCOMPARE(r.typed.plans.size(), size_t(1));
    QCOMPARE(gb::grow::to_json(r.typed.plans[0]).dump(),
             gb::grow::to_json(reparsed.plans[0]).dump());
    QCOMPARE(r.typed.train.lr, reparsed.train.lr);
    QCOMPARE(r.typed.train.steps, reparsed.train.steps);
  }
  QCOMPARE(runs[5].spec["train"]["lr"].get<double>(), 1e-4);
  QCOMPARE(runs[5].spec["plans"][0]["rank"].get<int>(), 4);
  QCOMPARE(runs[5].params.at("train.lr").get<double>(), 1e-4);
  QCOMPARE(runs[5].params.at("plan.rank").get<int>(), 4);
  QCOMPARE(runs[5].params.at("seed").get<int>(), 1);
  QCOMPARE(runs[5].params.at("plan").get<std::string>(), std::string("LoRA"));
  // The base seed stays: data splits and base model are shared; the run seed differs.
  QCOMPARE(runs[5].spec["seed"].get<int>(), 0);
  QCOMPARE(runs[5].spec["run_seed"].get<int>(), 1);
  // Deterministic.
  const auto twice = ex::expand_runs(parsed);
  for (size_t i = 0; i < runs.size(); ++i) QCOMPARE(twice[i].spec.dump(), runs[i].spec.dump());

  // Random mode: N samples per plan, log-uniform within the range, the same draws again.
  Json rnd = base_spec({{"variant", "full"}});
  rnd["sweep"] = {{"train.lr", {{"log_uniform", {1e-5, 1e-3}}}}, {"train.warmup", {0, 2}}};
  rnd["sweep_mode"] = "random";
  rnd["samples"] = 5;
  const auto r1 = ex::expand_runs(ex::parse_spec(rnd, "", "spec"));
  const auto r2 = ex::expand_runs(ex::parse_spec(rnd, "", "spec"));
  QCOMPARE(r1.size(), size_t(5));
  std::set<double> lrs;
  for (size_t i = 0; i < r1.size(); ++i) {
    const double lr = r1[i].swept["train.lr"].get<double>();
    QVERIFY(lr >= 1e-5 && lr <= 1e-3);
    lrs.insert(lr);
    QCOMPARE(r1[i].swept.dump(), r2[i].swept.dump());
  }
  QCOMPARE(lrs.size(), size_t(5));
}

void TestRunner::sweepErrorsNameTheKey_data() {
  QTest::addColumn<QString>("patch");
  QTest::addColumn<QString>("message");
  QTest::newRow("seq_len") << R"({"sweep":{"train.seq_len":[16,32]}})"
                           << "'train.seq_len' cannot be swept";
  QTest::newRow("range in a grid") << R"({"sweep":{"train.lr":{"log_uniform":[1e-5,1e-3]}}})"
                                   << "ranges need \"sweep_mode\": \"random\"";
  QTest::newRow("random without samples") << R"({"sweep":{"train.lr":[1]},"sweep_mode":"random"})"
                                          << "needs \"samples\": N";
  QTest::newRow("empty values") << R"({"sweep":{"train.lr":[]}})"
                                << "at least one value";
  QTest::newRow("seed swept") << R"({"sweep":{"seed":[1,2]}})"
                              << "give \"seeds\"";
  QTest::newRow("duplicate seeds") << R"({"seeds":[1,1]})"
                                   << "1 appears twice";
  QTest::newRow("bad point") << R"({"sweep":{"train.lr":[-1]}})"
                             << "the sweep point {\"train.lr\":-1} gives an invalid run";
  QTest::newRow("bad mode") << R"({"sweep_mode":"grids"})"
                            << "must be grid or random";
  // Task names key eval/<task>/...: reserved and duplicate names are refused.
  QTest::newRow("task named orig")
      << R"({"data":{"tasks":[{"name":"orig","kind":"lm","source":"x.txt"}]}})"
      << "'orig' is reserved";
  QTest::newRow("task named bwt")
      << R"({"data":{"tasks":[{"name":"bwt","kind":"lm","source":"x.txt"}]}})"
      << "'bwt' is reserved";
  QTest::newRow("two tasks, one name")
      << R"({"data":{"tasks":[{"name":"a","kind":"lm","source":"x.txt"},{"name":"a","kind":"lm","source":"y.txt"}]}})"
      << "two tasks are named 'a'";
}

void TestRunner::sweepErrorsNameTheKey() {
  QFETCH(QString, patch);
  QFETCH(QString, message);
  Json spec = base_spec({{"variant", "full"}});
  spec.merge_patch(Json::parse(patch.toStdString()));
  const std::string msg =
      gb::test::error_of([&] { ex::expand_runs(ex::parse_spec(spec, "", "spec")); });
  QVERIFY2(msg.find(message.toStdString()) != std::string::npos, msg.c_str());
}

void TestRunner::sweptRunsAreOneGroupWithTheirParameters() {
  Json spec = base_spec({{"variant", "lora"}, {"rank", 2}});
  spec["seeds"] = {0, 1};
  spec["sweep"] = {{"train.lr", {1e-3, 3e-3}}};
  spec["train"]["steps"] = 2;
  const std::string db = db_path(fmt::format("sweep-{}", m_counter++));
  const auto outcomes = ex::run_experiment(ex::parse_spec(spec, "", "spec"), options(db));
  QCOMPARE(outcomes.size(), size_t(4));
  Store store = Store::open(db);
  std::set<std::string> groups, hashes;
  std::map<std::pair<double, int64_t>, int64_t> by_config;
  for (const auto& oc : outcomes) {
    QVERIFY2(oc.status == "finished", oc.error.c_str());
    const auto run = store.get_run(oc.run_id);
    groups.insert(run.experiment);
    hashes.insert(run.spec_hash);
    const auto params = store.run_params(oc.run_id);
    QCOMPARE(params.at("seed").get<int64_t>(), *run.seed);
    by_config[{params.at("train.lr").get<double>(), *run.seed}] = oc.run_id;
    QCOMPARE(params.at("plan.rank").get<int>(), 2);
  }
  QCOMPARE(groups.size(), size_t(1));
  QCOMPARE(hashes.size(), size_t(1));
  QCOMPARE(hashes.begin()->size(), size_t(16));
  QCOMPARE(by_config.size(), size_t(4));
  // The seed changes data order and the new parameters; the base model does not move.
  auto series = [&](double lr, int64_t seed) {
    return store.metric_series(by_config.at({lr, seed}));
  };
  QCOMPARE(series(1e-3, 0)["eval/orig/loss"].values.front(),
           series(1e-3, 1)["eval/orig/loss"].values.front());
  QVERIFY(series(1e-3, 0)["train/loss"].values != series(1e-3, 1)["train/loss"].values);
  QVERIFY(series(1e-3, 0)["train/lr"].values.back() != series(3e-3, 0)["train/lr"].values.back());
}

namespace {

// A hand-made group: for each (method, lr, seed) a finished run with the given final
// new-domain perplexity and original perplexity going from 10 to orig_end.
struct FakeRun {
  const char* method;
  double lr;
  int seed;
  double new_ppl;
  double orig_end;
  double test_new = NAN;
  double test_orig_end = NAN;
};

void add_fake_runs(Store& store, const std::string& group, const std::vector<FakeRun>& runs,
                   std::vector<int64_t>* ids = nullptr) {
  auto w = store.metrics_writer();
  for (const auto& f : runs) {
    gb::store::NewRun nr;
    nr.name = fmt::format("{} lr={} seed={}", f.method, f.lr, f.seed);
    nr.experiment = group;
    nr.seed = f.seed;
    nr.params = {{"plan", f.method}, {"train.lr", f.lr}, {"seed", f.seed}};
    const int64_t id = store.create_run(nr);
    if (ids) ids->push_back(id);
    w.add(id, 0, "eval/orig/ppl", 10.0);
    w.add(id, 0, "eval/new/ppl", 50.0);
    w.add(id, 100, "eval/orig/ppl", f.orig_end);
    w.add(id, 100, "eval/new/ppl", f.new_ppl);
    if (std::isfinite(f.test_new)) {
      w.add(id, 0, "test/orig/ppl", 10.0);
      w.add(id, 100, "test/orig/ppl", f.test_orig_end);
      w.add(id, 100, "test/new/ppl", f.test_new);
    }
    w.flush();
    store.set_status(id, gb::store::RunStatus::Running);
    store.set_status(id, gb::store::RunStatus::Finished);
  }
}

}  // namespace

void TestRunner::budgetSelectionOnAHandMadeStore() {
  const std::string db = db_path(fmt::format("budget-{}", m_counter++));
  Store store = Store::open(db);
  // FT: lr 1e-3 learns best (20) but forgets 30 %; lr 1e-4 learns 30 and forgets 4 % / 6 %
  // (mean 5 %). Grow: lr 1e-3 learns 25 forgetting 1 % / 3 % (mean 2 %). LoRA never within 5 %.
  add_fake_runs(store, "g",
                {{"FT", 1e-3, 0, 20, 13.0, 21, 13.5},
                 {"FT", 1e-3, 1, 20, 13.0, 23, 13.5},
                 {"FT", 1e-4, 0, 29, 10.4, 31, 10.5},
                 {"FT", 1e-4, 1, 31, 10.6, 33, 10.7},
                 {"Grow", 1e-3, 0, 24, 10.1, 26, 10.2},
                 {"Grow", 1e-3, 1, 26, 10.3, 28, 10.4},
                 {"Grow", 1e-4, 0, 40, 10.0, 41, 10.0},
                 {"LoRA", 1e-3, 0, 22, 11.0, 22, 11.0}});
  // A run that never finished is left out, not counted as perfect.
  gb::store::NewRun queued;
  queued.name = "queued";
  queued.experiment = "g";
  queued.params = {{"plan", "FT"}, {"train.lr", 1e-2}, {"seed", 0}};
  const int64_t queued_id = store.create_run(queued);

  ex::CompareOptions o;
  o.group = "g";
  o.budget = 0.05;
  auto r = ex::compare_group(store, o);
  QCOMPARE(qs(r.report_split), QString("test"));
  QCOMPARE(r.skipped, std::vector<int64_t>{queued_id});
  QCOMPARE(r.methods.size(), size_t(3));
  // Sorted: methods within the budget by learning (Grow 25 before FT 30), then LoRA.
  QCOMPARE(qs(r.methods[0].method), QString("Grow"));
  QCOMPARE(r.methods[0].params["train.lr"].get<double>(), 1e-3);
  QCOMPARE(r.methods[0].runs.size(), size_t(2));
  QVERIFY(std::fabs(r.methods[0].selection_learning.mean - 25.0) < 1e-12);
  // Reported on test: new ppl 26, 28 → 27 ± √2; forgetting 2 %, 4 % → 3 % ± 1.414 %.
  QVERIFY(std::fabs(r.methods[0].learning.mean - 27.0) < 1e-12);
  QVERIFY(std::fabs(r.methods[0].learning.std - std::sqrt(2.0)) < 1e-12);
  QVERIFY(std::fabs(r.methods[0].forgetting.mean - 0.03) < 1e-12);
  QCOMPARE(qs(r.methods[1].method), QString("FT"));
  QCOMPARE(r.methods[1].params["train.lr"].get<double>(), 1e-4);              // 1e-3 forgets 30 %
  QVERIFY(std::fabs(r.methods[1].selection_forgetting.mean - 0.05) < 1e-12);  // exactly at B
  QCOMPARE(qs(r.methods[2].method), QString("LoRA"));
  QVERIFY(!r.methods[2].meets_budget);
  QVERIFY(std::fabs(r.methods[2].best_forgetting - 0.10) < 1e-12);
  // The curve: FT at 1 % has nothing, at 5 % learns 30, at 20 % still 30 (1e-3 forgets 30 %).
  QVERIFY(!r.methods[1].curve[0]);
  QVERIFY(std::fabs(*r.methods[1].curve[2] - 30.0) < 1e-12);
  QVERIFY(std::fabs(*r.methods[1].curve[4] - 30.0) < 1e-12);
  // A wider budget lets FT's 1e-3 in.
  o.budget = 0.30;
  r = ex::compare_group(store, o);
  QCOMPARE(qs(r.methods[0].method), QString("FT"));
  QCOMPARE(r.methods[0].params["train.lr"].get<double>(), 1e-3);
  const Json j = r.to_json(o);
  QCOMPARE(j["plans"][0]["method"].get<std::string>(), std::string("FT"));
  QVERIFY(j["plans"][0]["meets_budget"].get<bool>());
  QVERIFY(j["plans"][0].contains("learning") && j["plans"][0]["learning"].contains("std"));
}

void TestRunner::cliRunsAndCompareFollowTheContract() {
  const std::string db = db_path(fmt::format("cli-runs-{}", m_counter++));
  std::vector<int64_t> ids;
  {
    Store store = Store::open(db);
    add_fake_runs(
        store, "grp",
        {{"FT", 1e-4, 0, 29, 10.4}, {"FT", 1e-4, 1, 31, 10.6}, {"LoRA", 1e-3, 0, 22, 11.0}}, &ids);
    store.add_event(ids[0], gb::store::EventLevel::Info, "hello from the test");
  }
  auto cli = [&](QStringList args) {
    QProcess p;
    p.start(QStringLiteral(GB_CLI_PATH), args);
    p.closeWriteChannel();  // a question on stdin gets no answer
    p.waitForFinished(120000);
    return std::make_pair(p.exitCode(), p.readAllStandardOutput().toStdString());
  };
  const QString qdb = qs(db);
  // runs list --json
  auto [code, out] = cli({"runs", "list", "--db", qdb, "--json"});
  QCOMPARE(code, 0);
  Json list = Json::parse(out);
  QCOMPARE(list.size(), size_t(3));
  for (const char* k : {"id", "name", "group", "status", "seed"}) QVERIFY2(list[0].contains(k), k);
  QCOMPARE(list[0]["group"].get<std::string>(), std::string("grp"));
  QCOMPARE(list[0]["status"].get<std::string>(), std::string("finished"));
  std::tie(code, out) = cli({"runs", "list", "--db", qdb, "--json", "--group", "nope"});
  QCOMPARE(Json::parse(out).size(), size_t(0));
  // runs show --json
  std::tie(code, out) = cli({"runs", "show", QString::number(ids[0]), "--db", qdb, "--json"});
  QCOMPARE(code, 0);
  Json show = Json::parse(out);
  for (const char* k : {"spec", "params", "events"}) QVERIFY2(show.contains(k), k);
  QCOMPARE(show["params"]["train.lr"].get<double>(), 1e-4);
  bool event = false;
  for (const auto& e : show["events"]) event |= e["message"] == "hello from the test";
  QVERIFY(event);
  // runs export csv: header, one row per metric value, parameter columns.
  const std::string csv = m_dir + "/export.csv";
  std::tie(code, out) =
      cli({"runs", "export", "grp", "--format", "csv", "--out", qs(csv), "--db", qdb});
  QCOMPARE(code, 0);
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  QVERIFY2(header.rfind("run,step,key,value", 0) == 0, header.c_str());
  QVERIFY(header.find("train.lr") != std::string::npos);
  int rows = 0;
  for (std::string line; std::getline(f, line);) ++rows;
  QCOMPARE(rows, 3 * 4);
  // compare --json
  std::tie(code, out) =
      cli({"compare", "grp", "--by", "plan", "--budget", "forgetting=5%", "--json", "--db", qdb});
  QCOMPARE(code, 0);
  Json cmp = Json::parse(out);
  QCOMPARE(cmp["plans"].size(), size_t(2));
  QCOMPARE(cmp["plans"][0]["method"].get<std::string>(), std::string("FT"));
  QCOMPARE(cmp["plans"][0]["runs"].size(), size_t(2));
  QVERIFY(std::fabs(cmp["plans"][0]["learning"]["mean"].get<double>() - 30.0) < 1e-12);
  QCOMPARE(cmp["plans"][1]["meets_budget"].get<bool>(), false);
  // runs delete: without --yes it asks (no answer: nothing deleted, exit 1); with --yes the
  // run goes with its metrics and its checkpoint folders, the other runs stay.
  const fs::path ckpt = fs::path(m_dir) / fmt::format("cli-runs-ckpt-{}", m_counter++);
  fs::create_directories(ckpt / "step-10");
  std::ofstream(ckpt / "step-10" / "model.safetensors") << "weights";
  Store::open(db).add_checkpoint(ids[2], 10, (ckpt / "step-10").string(), 7, "");
  std::tie(code, out) = cli({"runs", "delete", QString::number(ids[2]), "--db", qdb});
  QCOMPARE(code, 1);
  QVERIFY(Store::open(db).find_run(ids[2]));
  QVERIFY(fs::exists(ckpt / "step-10" / "model.safetensors"));
  std::tie(code, out) = cli({"runs", "delete", QString::number(ids[2]), "--yes", "--db", qdb});
  QCOMPARE(code, 0);
  QVERIFY(!Store::open(db).find_run(ids[2]));
  QVERIFY(!fs::exists(ckpt / "step-10"));
  QVERIFY(Store::open(db).find_run(ids[0]) && Store::open(db).find_run(ids[1]));
  // run --dry-run --json lists the runs of a spec and starts nothing.
  Json spec = base_spec({{"variant", "full"}});
  spec["seeds"] = {0, 1, 2};
  spec["sweep"] = {{"train.lr", {1e-4, 3e-4}}};
  const std::string spec_path = m_dir + "/dry.json";
  std::ofstream(spec_path) << spec.dump();
  const std::string dry_db = db_path("dry-run-never-created");
  std::tie(code, out) =
      cli({"run", qs(spec_path), "--dry-run", "--json", "--pilot", "--db", qs(dry_db)});
  QCOMPARE(code, 0);
  Json dry = Json::parse(out);
  QCOMPARE(dry.size(), size_t(6));
  for (const char* k : {"name", "plan", "seed", "train.lr"}) QVERIFY2(dry[5].contains(k), k);
  QCOMPARE(dry[5]["seed"].get<int>(), 2);
  QCOMPARE(dry[5]["train.lr"].get<double>(), 3e-4);
  // The timing pilot's estimate: positive, and the same for runs that differ only in rate
  // and seed (one pilot per plan).
  const double est = dry[0]["estimated_s"].get<double>();
  QVERIFY2(est > 0, dry.dump().c_str());
  for (const auto& r : dry) QCOMPARE(r["estimated_s"].get<double>(), est);
  QVERIFY(!fs::exists(dry_db));
  // The estimate from a pilot's timings (fixed numbers here: the pilot's own are wall times):
  // setup + ends + steps x step time (per the pilot's tokens per step) + interval evaluations
  // x evaluation time.
  {
    ex::ExperimentSpec s = ex::parse_spec(spec, m_dir, "estimate");
    ex::PlanTiming t;
    t.setup_s = 1, t.ends_s = 2, t.step_s = 0.5, t.eval_s = 3;
    t.tokens_per_step = s.train.batch_size * s.train.seq_len * s.train.accumulation;
    s.train.steps = 100, s.eval.interval = 10;
    QCOMPARE(ex::interval_evaluations(s), int64_t(9));
    QCOMPARE(ex::estimate_seconds(t, s), 1 + 2 + 100 * 0.5 + 9 * 3.0);
    s.train.steps = 200;  // twice the steps: steps and interval evaluations scale, setup not
    QCOMPARE(ex::estimate_seconds(t, s), 1 + 2 + 200 * 0.5 + 19 * 3.0);
    s.train.batch_size *= 2;  // twice the tokens per step: twice the step time
    QCOMPARE(ex::estimate_seconds(t, s), 1 + 2 + 200 * 1.0 + 19 * 3.0);
  }
  // With --jobs N the runs go, in order, to the first worker free.
  {
    ex::PilotResult p;
    p.prepare_s = 1;
    p.run_seconds = {5, 3, 4, 2};
    QCOMPARE(p.total_s(), 15.0);
    QCOMPARE(p.wall_s(1), 15.0);
    QCOMPARE(p.wall_s(2), 1 + 7.0);  // 5 then 2 | 3 then 4
    QCOMPARE(p.wall_s(4), 1 + 5.0);
    QCOMPARE(p.wall_s(8), 1 + 5.0);
  }
  // Without --pilot (or with the earlier --no-pilot) the runs come without time estimates,
  // with their memory estimates; with it the text form states the total.
  std::ofstream(spec_path) << spec.dump();
  for (const QStringList& flag : {QStringList{"--no-pilot"}, QStringList{}}) {
    std::tie(code, out) =
        cli(QStringList{"run", qs(spec_path), "--dry-run", "--json", "--db", qs(dry_db)} + flag);
    QCOMPARE(code, 0);
    QVERIFY(!Json::parse(out)[0].contains("estimated_s"));
    QVERIFY(Json::parse(out)[0]["memory"]["peak_bytes"].get<int64_t>() > 0);
  }
  std::tie(code, out) =
      cli({"run", qs(spec_path), "--dry-run", "--pilot", "--jobs", "2", "--db", qs(dry_db)});
  QCOMPARE(code, 0);
  QVERIFY2(out.find("estimated: ") != std::string::npos, out.c_str());
  QVERIFY2(out.find("with --jobs 2: ") != std::string::npos, out.c_str());
  QVERIFY(!fs::exists(dry_db));
}

void TestRunner::forgettingGuardStopsOrRollsBack_data() {
  QTest::addColumn<QString>("action");
  QTest::addColumn<double>("budget");
  QTest::newRow("stop") << "stop" << 1e-6;
  QTest::newRow("rollback") << "rollback" << 1e-6;
  QTest::newRow("within a wide budget") << "stop" << 1e6;
}

void TestRunner::forgettingGuardStopsOrRollsBack() {
  QFETCH(QString, action);
  QFETCH(double, budget);
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["lr"] = 1e-2;  // forgets quickly
  spec["guard"] = {{"metric", "eval/orig/ppl"}, {"max_increase", budget}, {"action", str(action)}};
  const std::string db = db_path(fmt::format("guard-{}", m_counter++));
  auto oc = run_one(spec, db);
  Store store = Store::open(db);
  auto series = store.metric_series(oc.run_id);
  std::string guard_event;
  for (const auto& e : store.events(oc.run_id)) {
    if (e.message.find("guard") != std::string::npos) guard_event = e.message;
  }
  if (budget > 1) {
    QCOMPARE(qs(oc.status), QString("finished"));
    QVERIFY(guard_event.empty());
    QCOMPARE(series["train/loss"].steps.back(), int64_t(4));
    return;
  }
  QVERIFY2(!guard_event.empty(), "no guard event");
  // The first interval evaluation (step 2) exceeds the budget: training ends there.
  QCOMPARE(series["train/loss"].steps.back(), int64_t(2));
  const auto& orig = series["eval/orig/ppl"];
  if (action == "stop") {
    QCOMPARE(qs(oc.status), QString("stopped"));
    QCOMPARE(store.get_run(oc.run_id).status, RunStatus::Stopped);
    QVERIFY(guard_event.find("run stopped") != std::string::npos);
    QVERIFY(orig.values.back() > orig.values.front());
    QVERIFY(store.latest_checkpoint(oc.run_id).has_value());
  } else {
    QCOMPARE(qs(oc.status), QString("finished"));
    QVERIFY2(guard_event.find("rolled back to the weights of step 0") != std::string::npos,
             guard_event.c_str());
    // The final evaluation is of the restored weights: the step-0 model exactly.
    QCOMPARE(orig.steps.back(), int64_t(2));
    QCOMPARE(orig.values.back(), orig.values.front());
    QCOMPARE(store.latest_checkpoint(oc.run_id)->step, int64_t(2));
  }
}

// Rollback restores the weights of the last evaluation within the budget, not always the
// base: a budget between the step-2 and the later increases rolls back to step 2.
void TestRunner::forgettingGuardRollsBackToTheLastEvaluationWithinBudget() {
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["lr"] = 1e-2;
  spec["train"]["steps"] = 6;
  spec["eval"]["interval"] = 2;
  // Without a guard: the increases of eval/orig/ppl at steps 2, 4, 6.
  const std::string free_db = db_path(fmt::format("guard-free-{}", m_counter++));
  auto free = run_one(spec, free_db);
  QVERIFY2(free.status == "finished", free.error.c_str());
  const auto ppl = Store::open(free_db).metric_series(free.run_id)["eval/orig/ppl"];
  QCOMPARE(ppl.steps, (std::vector<int64_t>{0, 2, 4, 6}));
  const double base = ppl.values[0];
  const double at2 = ppl.values[1] / base - 1,
               later = std::max(ppl.values[2], ppl.values[3]) / base - 1;
  if (!(at2 > 0 && later > at2 * 1.01)) {
    QSKIP("the free run's forgetting does not grow after step 2 on this machine");
  }
  // The first evaluation beyond the budget and the last one within it before that.
  const double budget = (at2 + later) / 2;
  size_t over = 1;
  while (ppl.values[over] / base - 1 <= budget) ++over;
  const int64_t back_to = ppl.steps[over - 1];
  QVERIFY(back_to > 0);
  spec["guard"] = {{"metric", "eval/orig/ppl"}, {"max_increase", budget}, {"action", "rollback"}};
  const std::string db = db_path(fmt::format("guard-mid-{}", m_counter++));
  auto oc = run_one(spec, db);
  QCOMPARE(qs(oc.status), QString("finished"));
  Store store = Store::open(db);
  std::string guard_event;
  for (const auto& e : store.events(oc.run_id)) {
    if (e.message.find("guard") != std::string::npos) guard_event = e.message;
  }
  QVERIFY2(guard_event.find(fmt::format("rolled back to the weights of step {},", back_to)) !=
               std::string::npos,
           guard_event.c_str());
  // Training ended at the first evaluation beyond the budget; the final evaluation is of the
  // restored weights: the same figure as at that step, exactly (the same weights through the
  // same arithmetic), equal to the free run's.
  const auto series = store.metric_series(oc.run_id);
  QCOMPARE(series.at("train/loss").steps.back(), ppl.steps[over]);
  const auto& orig = series.at("eval/orig/ppl");
  QCOMPARE(orig.values.back(), ppl.values[over - 1]);
  QCOMPARE(orig.steps.back(), ppl.steps[over]);
}

void TestRunner::testSetsAreEvaluatedAtTheStartAndTheEndOnly() {
  Json spec = base_spec({{"variant", "full"}});
  spec["data"]["original"]["test"] = m_orig_eval;
  spec["data"]["new"]["test"] = m_new_eval;
  const std::string db = db_path(fmt::format("test-split-{}", m_counter++));
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto series = store.metric_series(oc.run_id);
  QCOMPARE(series["eval/orig/ppl"].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series["test/orig/ppl"].steps, (std::vector<int64_t>{0, 4}));
  QCOMPARE(series["test/new/loss"].steps, (std::vector<int64_t>{0, 4}));
  // Same text as the eval set here, so the same figures.
  QCOMPARE(series["test/orig/ppl"].values.back(), series["eval/orig/ppl"].values.back());
  QVERIFY(gb::metrics::lower_is_better("test/new/ppl"));
}

// eval.test "every": the test sets at every evaluation (fronts.h needs a test value at the
// point chosen on the validation sets), and nothing else about the run changes.
void TestRunner::testSetsAtEveryEvaluationLeaveTheRunUnchanged() {
  Json spec = base_spec({{"variant", "full"}});
  spec["data"]["original"]["test"] = m_orig_eval;
  spec["data"]["new"]["test"] = m_new_eval;
  const std::string db_ends = db_path(fmt::format("test-ends-{}", m_counter++));
  auto ends = run_one(spec, db_ends);
  QVERIFY2(ends.status == "finished", ends.error.c_str());
  spec["eval"]["test"] = "every";
  const std::string db = db_path(fmt::format("test-every-{}", m_counter++));
  auto oc = run_one(spec, db);
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(db);
  auto series = store.metric_series(oc.run_id);
  QCOMPARE(series["test/orig/ppl"].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series["test/new/loss"].steps, (std::vector<int64_t>{0, 2, 4}));
  QCOMPARE(series["test/orig/ppl"].values, series["eval/orig/ppl"].values);
  // The training itself is the same bit for bit.
  Store se = Store::open(db_ends);
  auto base = se.metric_series(ends.run_id);
  QCOMPARE(series["train/loss"].values, base["train/loss"].values);
  QCOMPARE(series["eval/new/loss"].values, base["eval/new/loss"].values);
  spec["eval"]["test"] = "often";
  QVERIFY(error_of([&] { ex::parse_spec(spec); }).find("spec.eval.test") != std::string::npos);
}

// Divergence is not only a NaN loss: a loss that stays above diverge_factor × its first value
// for 3 consecutive logged steps ends the run "diverged" with the step named.
void TestRunner::finiteButRunawayLossIsDivergence() {
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["lr"] = 0.3;
  spec["train"]["steps"] = 12;
  spec["train"]["schedule"] = "constant";
  spec["train"]["warmup"] = 0;
  spec["train"]["diverge_factor"] = 1.05;
  const std::string db = db_path(fmt::format("runaway-{}", m_counter++));
  auto oc = run_one(spec, db);
  Store store = Store::open(db);
  auto loss = store.metric_series(oc.run_id)["train/loss"];
  QVERIFY(!loss.values.empty());
  for (double v : loss.values) QVERIFY(std::isfinite(v));  // finite all along
  QCOMPARE(qs(oc.status), QString("diverged"));
  QVERIFY2(oc.error.find("stayed above 1.05 × its first value") != std::string::npos &&
               oc.error.find("LM loss") != std::string::npos,
           oc.error.c_str());
  QCOMPARE(store.get_run(oc.run_id).status, RunStatus::Diverged);
  // Off (0): the same run goes on.
  spec["train"]["diverge_factor"] = 0;
  spec["train"]["steps"] = 4;
  auto off = run_one(spec, db_path(fmt::format("runaway-off-{}", m_counter++)));
  QVERIFY2(off.status == "finished", off.error.c_str());
}

void TestRunner::sequenceLongerThanTheModelIsRefused() {
  const auto cfg = gb::load_config(m_model + "/config.json");
  Json spec = base_spec({{"variant", "full"}});
  spec["train"]["seq_len"] = cfg.max_positions + 1;
  const std::string msg =
      error_of([&] { run_one(spec, db_path(fmt::format("long-{}", m_counter++))); });
  QVERIFY2(msg.find(fmt::format("train.seq_len {} exceeds the model's {} positions",
                                cfg.max_positions + 1, cfg.max_positions)) != std::string::npos,
           msg.c_str());
}

void TestRunner::threadsAreBoundedByTheMachine() {
  Json spec = base_spec({{"variant", "lora"}, {"rank", 2}});
  spec["threads"] = 100000;
  spec["train"]["steps"] = 1;
  auto oc = run_one(spec, db_path(fmt::format("threads-{}", m_counter++)));
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  QVERIFY(torch::get_num_threads() <=
          static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  torch::set_num_threads(1);
  spec["threads"] = 0;
  QVERIFY(error_of([&] { ex::parse_spec(spec, "", "spec"); }).find("threads") != std::string::npos);
}

// A relative --db (and so a relative workspace) must not store relative checkpoint paths: a
// resume from another directory would not find them.
void TestRunner::relativeStorePathsGiveAbsoluteCheckpoints() {
  const QString before = QDir::currentPath();
  const std::string cwd = m_dir + "/cwd-" + std::to_string(m_counter++);
  fs::create_directories(cwd);
  QVERIFY(QDir::setCurrent(qs(cwd)));
  Json spec = base_spec({{"variant", "lora"}, {"rank", 2}});
  spec["train"]["steps"] = 1;
  ex::RunOutcome oc;
  const std::string err = error_of([&] { oc = run_one(spec, "relative.db"); });
  QVERIFY(QDir::setCurrent(before));
  QVERIFY2(err == "NO ERROR", err.c_str());
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(cwd + "/relative.db");
  const auto ck = store.latest_checkpoint(oc.run_id);
  QVERIFY(ck.has_value());
  QVERIFY2(fs::path(ck->path).is_absolute(), ck->path.c_str());
  QVERIFY(fs::exists(fs::path(ck->path) / "trainable.safetensors"));
}

QTEST_GUILESS_MAIN(TestRunner)
#include "tst_runner.moc"
