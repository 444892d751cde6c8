// ADEPT stage 2 as ADEPT's public training code runs it (core/grow/adept_stage2.h,
// RunExecutor::update_unit_lrs): the multipliers s_U = 2·(max − I_U)/(max − min) over the
// stage-2 units ("all") or per kind, assigned after every t_update steps and never at step
// 0, recorded as adept/lr_scale/<unit> beside the probe they came from; the most important
// unit of a constructed model gets the smallest rate; and the in-place plan (ADEPT without
// stage 1: unit rates on chosen original layers, nothing added) through the runner and
// growbench-cli grow. Runs use the shipped tiny-llama preset (trained on English fortunes).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "test_util.h"
#include "data/tokenized.h"
#include "grow/adept_stage2.h"
#include "experiment/runner.h"
#include "experiment/sources.h"
#include "experiment/spec.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "grow/plan.h"
#include "importance/probe_set.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "test_models.h"
#include "util/error.h"
#include "util/json.h"
#include "util/metrics.h"

namespace fs = std::filesystem;
namespace ex = gb::experiment;
namespace grow = gb::grow;
namespace imp = gb::importance;
namespace mk = gb::metrics;
using Json = nlohmann::json;
using gb::store::Store;

namespace {

const std::string kPreset =
    std::string(GB_SOURCE_DIR) + "/resources/presets/tiny-llama-cdf103caaf14b846";

// The units of a Llama layer, in the order of DecoderLayerImpl::units().
const std::vector<std::string> kUnits = {
    "q", "k", "v", "o", "gate", "up", "down", "input_norm", "post_attn_norm"};

bool is_norm(const std::string& unit) {
  return unit.size() > 5 && unit.compare(unit.size() - 5, 5, "_norm") == 0;
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Simple sentences from word lists: the preset's English, or German for the new domain.
std::string sentences(bool german, int n, uint32_t seed) {
  const std::vector<std::string> en_subj = {"The old man", "A young woman", "My friend",
                                            "The teacher", "Every child",   "Our neighbour",
                                            "The doctor",  "His mother"};
  const std::vector<std::string> en_verb = {"walked to",  "looked at",      "talked about",
                                            "thought of", "came back from", "wrote about",
                                            "sat near",   "waited for"};
  const std::vector<std::string> en_obj = {"the house",  "the river",       "the city",
                                           "the market", "a small garden",  "the long road",
                                           "the window", "the quiet street"};
  const std::vector<std::string> en_tail = {"in the morning",  "after dinner",  "last night",
                                            "before the rain", "with a smile",  "every day",
                                            "for a long time", "without a word"};
  const std::vector<std::string> de_subj = {"Der alte Mann", "Eine junge Frau", "Mein Freund",
                                            "Der Lehrer",    "Jedes Kind",      "Unser Nachbar"};
  const std::vector<std::string> de_verb = {"ging zu",   "sah auf", "sprach über",
                                            "dachte an", "kam von", "wartete auf"};
  const std::vector<std::string> de_obj = {"dem Haus",  "den Fluss",          "die Stadt",
                                           "den Markt", "den kleinen Garten", "das Fenster"};
  const std::vector<std::string> de_tail = {"am Morgen",     "nach dem Essen", "gestern Abend",
                                            "vor dem Regen", "jeden Tag",      "ohne ein Wort"};
  std::mt19937 rng(seed);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  std::string out;
  for (int i = 0; i < n; ++i) {
    out +=
        german
            ? pick(de_subj) + " " + pick(de_verb) + " " + pick(de_obj) + " " + pick(de_tail) + "."
            : pick(en_subj) + " " + pick(en_verb) + " " + pick(en_obj) + " " + pick(en_tail) + ".";
    out += (i % 5 == 4) ? "\n\n" : " ";
  }
  return out;
}

// Mean next-token loss of `model` on a probe set (no gradients).
double probe_loss(gb::CausalLMImpl& model, const imp::ProbeSet& set) {
  torch::NoGradGuard ng;
  double nll = 0;
  for (const auto& b : set.batches)
    nll += imp::summed_nll(model.forward(b.ids), b.targets).item<double>();
  return nll / static_cast<double>(set.scored_tokens);
}

std::map<std::string, double> lr_scales_of(const gb::store::CheckpointInfo& ck) {
  auto meta = gb::json::parse_file(ck.path + "/trainer.json");
  return meta.at("extra").at("lr_scales").get<std::map<std::string, double>>();
}

// The multipliers recorded at `step`: adept/lr_scale/<unit> → value.
std::map<std::string, double> recorded_scales(Store& store, int64_t run, int64_t step) {
  std::map<std::string, double> out;
  for (const auto& [key, s] : store.metric_series(run)) {
    if (!mk::is_adept(key)) continue;
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (s.steps[i] == step) out[key] = s.values[i];
    }
  }
  return out;
}

// The stage-2 probes a run recorded, by the step they were taken at ("adept_step").
std::map<int64_t, gb::store::ProbeInfo> stage2_probes(Store& store, int64_t run) {
  std::map<int64_t, gb::store::ProbeInfo> out;
  for (const auto& p : store.list_probes()) {
    const Json params = Json::parse(p.params);
    if (p.run_id == run && params.contains("adept_step")) {
      out[params["adept_step"].get<int64_t>()] = p;
    }
  }
  return out;
}

}  // namespace

class TestAdept : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void multipliersFollowTheCodesFormula_data();
  void multipliersFollowTheCodesFormula();
  void ratesAreFirstAssignedAfterTUpdateStepsNeverAtStepZero();
  void mostImportantUnitGetsTheSmallestRate_data();
  void mostImportantUnitGetsTheSmallestRate();
  void inPlacePlanAddsNothingAndTrainsOnlyTheChosenLayer();

 private:
  Json spec_for(const std::string& model, const Json& plans, int64_t steps, double lr) const;
  std::vector<ex::RunOutcome> run(const Json& spec, const std::string& name);
  imp::ProbeSet general_probe_set() const;

  QTemporaryDir m_tmp;
  std::string m_dir, m_orig_eval, m_new_train, m_new_eval;
  int m_counter = 0;
};

void TestAdept::initTestCase() {
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  QVERIFY2(fs::exists(kPreset + "/model.safetensors"), kPreset.c_str());
  m_dir = m_tmp.path().toStdString();
  qputenv("GROWBENCH_CACHE_DIR", QByteArray::fromStdString(m_dir + "/cache"));
  qputenv("OMP_NUM_THREADS", "1");
  m_orig_eval = m_dir + "/orig_eval.txt";
  m_new_train = m_dir + "/new_train.txt";
  m_new_eval = m_dir + "/new_eval.txt";
  write_text(m_orig_eval, sentences(false, 120, 1));
  write_text(m_new_train, sentences(true, 600, 2));
  write_text(m_new_eval, sentences(true, 80, 3));
}

Json TestAdept::spec_for(const std::string& model, const Json& plans, int64_t steps,
                         double lr) const {
  return Json{{"version", 1},
              {"name", "adept"},
              {"seed", 0},
              {"threads", 1},
              {"model", model},
              {"data",
               {{"original", {{"eval", m_orig_eval}}},
                {"new", {{"train", m_new_train}, {"eval", m_new_eval}}}}},
              {"plans", plans},
              {"train",
               {{"steps", steps},
                {"seq_len", 32},
                {"batch_size", 2},
                {"lr", lr},
                {"schedule", "constant"},
                {"warmup", 0},
                {"weight_decay", 0.0}}},
              {"eval", {{"interval", 1000}, {"tokens", 128}, {"batch_size", 2}, {"drift", false}}},
              {"probe", {{"tokens", 256}, {"seq_len", 32}, {"batch_size", 2}}},
              {"checkpoint", {{"interval", 1}}}};
}

std::vector<ex::RunOutcome> TestAdept::run(const Json& spec, const std::string& name) {
  ex::RunnerOptions o;
  o.db_path = m_dir + "/" + name + "-" + std::to_string(m_counter++) + ".db";
  o.cache_dir = m_dir + "/cache";
  return ex::run_experiment(ex::parse_spec(spec, "", "spec"), o);
}

// The general probe set as the runner builds it (original.eval, the spec's probe options).
imp::ProbeSet TestAdept::general_probe_set() const {
  auto tokenizer = gb::tok::Tokenizer::from_file(kPreset + "/tokenizer.json");
  auto encoder = gb::data::encoder_for(tokenizer);
  auto stream = ex::source_tokens(ex::parse_source(Json(m_orig_eval), "", "t"), encoder, 0, "t");
  imp::ProbeSetOptions po;
  po.seq_len = 32;
  po.batch_size = 2;
  po.max_tokens = 256;
  return imp::pack_stream(*stream, po);
}

// ---------------------------------------------------------------------------------------

void TestAdept::multipliersFollowTheCodesFormula_data() {
  QTest::addColumn<QString>("norm");
  QTest::addColumn<bool>("constant");
  QTest::newRow("all") << "all" << false;
  QTest::newRow("kind") << "kind" << false;
  QTest::newRow("all, one value") << "all" << true;
  QTest::newRow("kind, one value") << "kind" << true;
}

void TestAdept::multipliersFollowTheCodesFormula() {
  // A hand-made probe of 3 layers; stage 2 covers layers 1 and 2 (layer 0 is an original
  // layer with larger values that must not enter the min-max). Norm importances are ~1000×
  // the matrices', as under taylor-code, or every unit has one value; layer 2 lacks 'gate'
  // (kMissing).
  QFETCH(QString, norm);
  QFETCH(bool, constant);
  imp::ProbeResult probe;
  probe.method = imp::methods::kTaylorCode;
  probe.unit_names = kUnits;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int l = 0; l < 3; ++l) {
    std::vector<double> row;
    for (const auto& name : kUnits) {
      double v = constant ? 1e-4 : (is_norm(name) ? 1e-3 : 1e-6) * u(rng);
      if (l == 0) v = 1.0;
      row.push_back(v);
    }
    probe.units.push_back(row);
  }
  probe.units[2][4] = imp::kMissing;
  const auto rates =
      gb::grow::unit_rates(probe, {1, 2}, gb::grow::parse_unit_norm(norm.toStdString()));
  QCOMPARE(rates.size(), size_t(2 * kUnits.size() - 1));

  // Independently: the classes, their min and max, s = 2·(max − I)/(max − min).
  const bool by_kind = norm == "kind";
  std::map<int, std::pair<double, double>> range;  // class → (min, max)
  auto cls = [&](const std::string& unit) { return by_kind && is_norm(unit) ? 1 : 0; };
  for (int l = 1; l < 3; ++l) {
    for (size_t c = 0; c < kUnits.size(); ++c) {
      const double v = probe.units[l][c];
      if (std::isnan(v)) continue;
      auto it = range.emplace(cls(kUnits[c]), std::make_pair(v, v)).first;
      it->second.first = std::min(it->second.first, v);
      it->second.second = std::max(it->second.second, v);
    }
  }
  std::map<int, std::pair<double, double>> span;  // class → (smallest, largest multiplier)
  size_t i = 0;
  for (int l = 1; l < 3; ++l) {
    for (size_t c = 0; c < kUnits.size(); ++c) {
      if (std::isnan(probe.units[l][c])) continue;
      const auto& r = rates.at(i++);
      QCOMPARE(qs(r.group), qs("layers." + std::to_string(l) + "." + kUnits[c]));
      QCOMPARE(r.norm, is_norm(kUnits[c]));
      QCOMPARE(r.importance, probe.units[l][c]);
      const auto [lo, hi] = range.at(cls(kUnits[c]));
      const double want = hi > lo ? 2.0 * (hi - probe.units[l][c]) / (hi - lo) : 1.0;
      QVERIFY2(r.scale == want, qPrintable(QString("%1: %2, expected %3")
                                               .arg(qs(r.group))
                                               .arg(r.scale, 0, 'g', 17)
                                               .arg(want, 0, 'g', 17)));
      auto it = span.emplace(cls(kUnits[c]), std::make_pair(r.scale, r.scale)).first;
      it->second.first = std::min(it->second.first, r.scale);
      it->second.second = std::max(it->second.second, r.scale);
    }
  }
  QCOMPARE(span.size(), size_t(by_kind ? 2 : 1));
  for (const auto& [c, s] : span) {
    if (constant) {
      QCOMPARE(s.first, 1.0);  // max = min: every unit at the base rate
      QCOMPARE(s.second, 1.0);
    } else {
      QCOMPARE(s.first, 0.0);  // each class spans [0, 2]
      QCOMPARE(s.second, 2.0);
    }
  }
  if (!by_kind && !constant) {
    // One min-max over norms and matrices: every matrix lands next to 2.
    for (const auto& r : rates) {
      if (!r.norm) QVERIFY2(r.scale > 1.99, qPrintable(qs(r.group)));
    }
  }
  // Errors name what is wrong.
  QVERIFY(gb::test::error_of([&] {
            gb::grow::unit_rates(probe, {3}, gb::grow::UnitNorm::All);
          }).find("layer 3 is outside") != std::string::npos);
  QVERIFY(gb::test::error_of([] { gb::grow::parse_unit_norm("each"); }).find("found 'each'") !=
          std::string::npos);
}

void TestAdept::ratesAreFirstAssignedAfterTUpdateStepsNeverAtStepZero() {
  // t_update = 3, 7 steps: the rates are assigned before the steps that follow 3 and 6
  // optimizer steps (ADEPT's code: global_step % eval_steps == 0 at a step's end). Steps
  // 0..2 train at the base rate; nothing is probed or recorded at step 0.
  const Json plan = {{"variant", "depth"}, {"style", "adept"}, {"layers", {3}}, {"t_update", 3}};
  auto outcomes = run(spec_for(kPreset, Json::array({plan}), 7, 1e-3), "schedule");
  QCOMPARE(outcomes.size(), size_t(1));
  const auto& oc = outcomes.front();
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(m_dir + "/schedule-0.db");

  // The multipliers are recorded at steps 3 and 6 only, one per unit of the new layer 4.
  std::set<int64_t> steps;
  for (const auto& [key, s] : store.metric_series(oc.run_id)) {
    if (!mk::is_adept(key)) continue;
    QVERIFY2(key.rfind(mk::adept_lr_scale_key("layers.4."), 0) == 0, key.c_str());
    steps.insert(s.steps.begin(), s.steps.end());
  }
  QCOMPARE(steps, (std::set<int64_t>{3, 6}));
  const auto at3 = recorded_scales(store, oc.run_id, 3), at6 = recorded_scales(store, oc.run_id, 6);
  QCOMPARE(at3.size(), kUnits.size());
  QCOMPARE(at6.size(), kUnits.size());
  // The probes they came from, one per assignment.
  const auto probes = stage2_probes(store, oc.run_id);
  QCOMPARE(probes.size(), size_t(2));
  QVERIFY(probes.count(3) && probes.count(6));
  QCOMPARE(qs(probes.at(3).method), QString("taylor-code"));  // the ADEPT default

  // The optimizer groups' multipliers (checkpoint k holds those of step k − 1): 1 for
  // steps 0..2 (none set), the step-3 assignment for steps 3..5, the step-6 one for step 6.
  auto cks = store.checkpoints(oc.run_id);
  QCOMPARE(cks.size(), size_t(7));
  for (int64_t k = 1; k <= 7; ++k) {
    const auto got = lr_scales_of(cks.at(k - 1));
    const auto& want = k <= 3 ? std::map<std::string, double>{} : (k <= 6 ? at3 : at6);
    QCOMPARE(got.size(), want.size());
    for (const auto& [group, scale] : got) {
      QCOMPARE(scale, want.at(mk::adept_lr_scale_key(group)));
    }
  }
  QVERIFY(at3 != at6);  // recomputed: the copy trained in between
}

void TestAdept::mostImportantUnitGetsTheSmallestRate_data() {
  QTest::addColumn<QString>("norm");
  QTest::newRow("all") << "all";
  QTest::newRow("kind") << "kind";
}

void TestAdept::mostImportantUnitGetsTheSmallestRate() {
  // The model: the preset grown by ADEPT after layer 0 (the copy is layer 1), with layer 0's
  // MLP moved into the copy: the copy's down projection takes layer 0's, layer 0's becomes
  // zero. The copy's MLP input is then exactly layer 0's (its attention still adds zero), so
  // the model is the preset bit for bit; then the copy's down projection is halved. In the
  // copy only the MLP matters: masking (zeroing) gate, up, down or the post-attention norm
  // removes what is left of layer 0's MLP (the same increase for each: they act in series;
  // no single unit can matter alone), masking q, k, v, o or the input norm changes nothing.
  // Stage 2 on the copy (an in-place plan on layer 1, one step at lr 1e-9, then the first
  // assignment) must give the smallest multiplier, 0, to one of the units whose masking
  // hurts most, 2 (to 1e-2) to those whose masking changes nothing, and every multiplier
  // must be 2·(max − I)/(max − min) of the importances recorded with it. The halved MLP is
  // under-scaled: growing it lowers the loss, so the signed θ·∂L/∂θ of its units is
  // negative, and "unit_importance": "taylor" fails this test (q gets the smallest rate).
  QFETCH(QString, norm);
  gb::LoadedModel m = grow::load_model(kPreset);
  const gb::ModelConfig base_config = m.config;
  auto set = general_probe_set();
  torch::Tensor base_logits;
  {
    torch::NoGradGuard ng;
    base_logits = m.model->forward(set.batches.front().ids);
  }
  auto growth = grow::apply_plan(
      *m.model, grow::parse_plan({{"variant", "depth"}, {"style", "adept"}, {"layers", {0}}}));
  QCOMPARE(growth.new_layers, (std::vector<int64_t>{1}));
  {
    torch::NoGradGuard ng;
    auto orig_down = m.model->layer(0)->mlp->down_proj->dense_weight();
    auto copy_down = m.model->layer(1)->mlp->down_proj->dense_weight();
    copy_down.copy_(orig_down);
    orig_down.zero_();
    QVERIFY(torch::equal(m.model->forward(set.batches.front().ids), base_logits));
    // Then half of it: removing the MLP still hurts most, and growing it would help.
    copy_down.mul_(0.5);
  }
  const double loss = probe_loss(*m.model, set);
  std::map<std::string, double> increase;
  for (const auto& unit : m.model->layer(1)->units()) {
    std::vector<torch::Tensor> saved;
    torch::NoGradGuard ng;
    for (auto& p : unit.module->parameters(true)) {
      saved.push_back(p.detach().clone());
      p.zero_();
    }
    increase[unit.name] = probe_loss(*m.model, set) - loss;
    size_t i = 0;
    for (auto& p : unit.module->parameters(true)) p.copy_(saved[i++]);
  }
  QCOMPARE(increase.size(), kUnits.size());
  double top = 0;
  for (const auto& [u, inc] : increase) top = std::max(top, inc);
  QVERIFY2(top > 0.05, qPrintable(QString("layer 0's MLP is worth only %1 nats").arg(top)));
  std::set<std::string> most, none;
  for (const auto& [u, inc] : increase) {
    if (inc >= top * (1 - 1e-9)) most.insert(u);
    if (inc == 0) none.insert(u);
  }
  QCOMPARE(most, (std::set<std::string>{"gate", "up", "down", "post_attn_norm"}));
  QCOMPARE(none, (std::set<std::string>{"q", "k", "v", "o", "input_norm"}));
  const std::string folder = m_dir + "/mlp-in-copy-" + norm.toStdString();
  grow::save_model(*m.model, base_config, &growth.plan, folder, kPreset,
                   grow::SaveFormat::HuggingFace);

  const Json plan = {{"variant", "depth"},
                     {"style", "in-place"},
                     {"layers", {1}},
                     {"t_update", 1},
                     {"unit_norm", norm.toStdString()}};
  auto outcomes = run(spec_for(folder, Json::array({plan}), 2, 1e-9), "constructed");
  const auto& oc = outcomes.front();
  QVERIFY2(oc.status == "finished", oc.error.c_str());
  Store store = Store::open(m_dir + "/constructed-" + std::to_string(m_counter - 1) + ".db");
  const auto scales = recorded_scales(store, oc.run_id, 1);
  QCOMPARE(scales.size(), kUnits.size());
  const auto probes = stage2_probes(store, oc.run_id);
  QCOMPARE(probes.size(), size_t(1));
  QVERIFY(probes.count(1));
  QCOMPARE(qs(probes.at(1).method), QString("taylor-code"));  // the default
  const auto matrix = store.importance(probes.at(1).id);
  std::map<std::string, double> imp_of;
  for (size_t c = 0; c < matrix.units.size(); ++c) {
    imp_of[matrix.units[c]] = matrix.unit_values.at(1).at(c);
  }
  // The multipliers from the recorded importances, computed here.
  const bool by_kind = norm == "kind";
  for (const auto& [unit, value] : imp_of) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [u2, v2] : imp_of) {
      if (by_kind && is_norm(u2) != is_norm(unit)) continue;
      lo = std::min(lo, v2);
      hi = std::max(hi, v2);
    }
    const double want = hi > lo ? 2.0 * (hi - value) / (hi - lo) : 1.0;
    const double got = scales.at(mk::adept_lr_scale_key("layers.1." + unit));
    QVERIFY2(std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want)),
             qPrintable(QString("%1: %2, expected %3").arg(qs(unit)).arg(got).arg(want)));
  }
  // The smallest multiplier (in each class) goes to a unit whose masking hurts most; the
  // units whose masking changes nothing train fastest.
  for (int cls = 0; cls < (by_kind ? 2 : 1); ++cls) {
    std::string argmin;
    double smallest = INFINITY, largest = -INFINITY;
    for (const auto& unit : kUnits) {
      if (by_kind && is_norm(unit) != (cls == 1)) continue;
      const double s = scales.at(mk::adept_lr_scale_key("layers.1." + unit));
      if (s < smallest) {
        smallest = s;
        argmin = unit;
      }
      largest = std::max(largest, s);
    }
    QCOMPARE(smallest, 0.0);
    QCOMPARE(largest, 2.0);
    QVERIFY2(most.count(argmin), qPrintable(qs(argmin) + " got the smallest rate"));
  }
  for (const auto& unit : none) {
    const double s = scales.at(mk::adept_lr_scale_key("layers.1." + unit));
    QVERIFY2(s > 1.99, qPrintable(QString("%1: %2").arg(qs(unit)).arg(s)));
  }
}

void TestAdept::inPlacePlanAddsNothingAndTrainsOnlyTheChosenLayer() {
  // ADEPT without stage 1 as the paper states it: stage 2 on the k least important original
  // layers (the same layer policy as ADEPT), no new parameters, everything else frozen.
  const Json policy = {{"policy", "least-important"}, {"k", 1}, {"score", "masking"}};
  const Json adept = {
      {"variant", "depth"}, {"style", "adept"}, {"layers", policy}, {"t_update", 2}};
  const Json in_place = {
      {"variant", "depth"}, {"style", "in-place"}, {"layers", policy}, {"t_update", 2}};
  auto outcomes = run(spec_for(kPreset, Json::array({adept, in_place}), 4, 1e-3), "in-place");
  QCOMPARE(outcomes.size(), size_t(2));
  for (const auto& oc : outcomes) QVERIFY2(oc.status == "finished", oc.error.c_str());
  QCOMPARE(qs(outcomes[1].label), QString("depth/in-place layers=least-important"));
  // The layer ADEPT copied (its copy follows it) is the one that trains in place.
  const auto& ag = outcomes[0].growth;
  const auto& ig = outcomes[1].growth;
  QCOMPARE(ag["new_layers"].size(), size_t(1));
  const int64_t chosen = ag["new_layers"][0].get<int64_t>() - 1;
  QCOMPARE(ig["unit_lr_layers"], Json::array({chosen}));
  QCOMPARE(ig["new_layers"], Json::array());
  QCOMPARE(ig["added_params"].get<int64_t>(), int64_t(0));
  QCOMPARE(ig["total_params"], ig["base_params"]);
  QCOMPARE(ig["trainable_params"], ag["added_params"]);  // one layer's parameters

  Store store = Store::open(m_dir + "/in-place-" + std::to_string(m_counter - 1) + ".db");
  const int64_t run = outcomes[1].run_id;
  auto series = store.metric_series(run);
  QCOMPARE(series.at(mk::kAddedParams).values.front(), 0.0);
  // Step 0 is the base model: the same original-domain loss as ADEPT's identity copies.
  QCOMPARE(series.at(mk::kEvalOrigLoss).steps.front(), int64_t(0));
  QCOMPARE(series.at(mk::kEvalOrigLoss).values.front(),
           store.metric_series(outcomes[0].run_id).at(mk::kEvalOrigLoss).values.front());
  // Only the chosen layer trains: the final checkpoint holds its tensors and no others,
  // and they moved.
  const auto ck = store.latest_checkpoint(run);
  QVERIFY(ck.has_value());
  auto trained = gb::st::read_all(ck->path + "/trainable.safetensors");
  gb::LoadedModel base = gb::load_hf_model(kPreset);
  std::map<std::string, torch::Tensor> base_params;
  for (const auto& item : base.model->named_parameters(true))
    base_params[item.key()] = item.value();
  const std::string prefix = "model.layers." + std::to_string(chosen) + ".";
  int64_t numel = 0;
  for (const auto& [name, value] : trained) {
    QVERIFY2(name.rfind(prefix, 0) == 0, name.c_str());
    QVERIFY2(!torch::equal(value, base_params.at(name)), name.c_str());
    numel += value.numel();
  }
  QCOMPARE(numel, ig["trainable_params"].get<int64_t>());
  // Stage 2 normalised over the chosen layer's units: assigned at step 2.
  const auto scales = recorded_scales(store, run, 2);
  QCOMPARE(scales.size(), kUnits.size());
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [key, s] : scales) {
    QVERIFY2(key.rfind(mk::adept_lr_scale_key("layers." + std::to_string(chosen) + "."), 0) == 0,
             key.c_str());
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  QCOMPARE(lo, 0.0);
  QCOMPARE(hi, 2.0);

  // growbench-cli grow with the plan JSON: nothing added, the model's function unchanged.
  QProcess cli;
  const QString out = QString::fromStdString(m_dir + "/in-place-grown");
  cli.setProgram(QStringLiteral(GB_CLI_PATH));
  cli.setArguments(
      {QStringLiteral("grow"), QString::fromStdString(kPreset), QStringLiteral("--plan"),
       QString::fromStdString(
           Json{{"variant", "depth"}, {"style", "in-place"}, {"layers", {chosen}}}.dump()),
       QStringLiteral("--out"), out, QStringLiteral("--json")});
  cli.start();
  QVERIFY(cli.waitForFinished(300000));
  QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
  const Json g = Json::parse(cli.readAllStandardOutput().toStdString());
  QCOMPARE(g["added_params"].get<int64_t>(), int64_t(0));
  QCOMPARE(g["trainable_params"], ig["trainable_params"]);
  QCOMPARE(g["max_abs_logit_diff"].get<double>(), 0.0);
  QCOMPARE(g["function_preserving"].get<bool>(), true);
  QCOMPARE(g["unit_lr_layers"], Json::array({chosen}));
  QCOMPARE(qs(g["format"].get<std::string>()), QString("huggingface"));
}

QTEST_APPLESS_MAIN(TestAdept)
#include "tst_adept.moc"
