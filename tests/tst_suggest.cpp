// Suggest a plan (core/experiment/suggest.h, growbench-cli suggest): the halving's rungs and
// its choice under seeded noise, the time budget on a fake clock, a toy search on the llama
// fixture with a planted winner and with a budget nobody meets (every number of the JSON
// recomputed from the store), a search killed with SIGKILL and resumed, and usage errors.
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/runner.h"
#include "experiment/suggest.h"
#include "experiment/suggest_report.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "test_models.h"
#include "test_util.h"
#include "util/log.h"
#include "util/metrics.h"

using Json = nlohmann::json;
using gb::store::Store;
namespace ex = gb::experiment;
namespace fs = std::filesystem;
namespace mk = gb::metrics;

namespace {

std::string str(const QString& s) {
  return s.toStdString();
}
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

const std::vector<std::string> kEnglish = {"the", "house", "is",   "small", "and",    "green",
                                           "we",  "walk",  "to",   "town",  "every",  "day",
                                           "dog", "runs",  "fast", "cat",   "sleeps", "tree"};
const std::vector<std::string> kGerman = {"das", "haus",  "ist",   "klein", "und",      "gruen",
                                          "wir", "gehen", "in",    "die",   "stadt",    "jeden",
                                          "tag", "hund",  "rennt", "katze", "schlaeft", "baum"};

// Deterministic word salad in paragraphs (the documents of a text file read by paragraph).
std::string salad(const std::vector<std::string>& vocab, int words, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < words; ++i) {
    out += vocab[rng() % vocab.size()];
    out += (i % 40 == 39) ? "\n\n" : " ";
  }
  return out;
}

std::pair<int, QByteArray> run_cli(const QStringList& args, int timeout_ms = 600000) {
  QProcess p;
  p.start(GB_CLI_PATH, args);
  p.waitForFinished(timeout_ms);
  return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
}

// The JSON a command printed on standard output (its log goes to standard error).
std::pair<int, Json> run_cli_json(const QStringList& args) {
  QProcess p;
  p.start(GB_CLI_PATH, args);
  p.waitForFinished(600000);
  const QByteArray out = p.readAllStandardOutput();
  if (p.exitCode() != 0) {
    qWarning("%s", (out + p.readAllStandardError()).constData());
    return {p.exitCode(), Json()};
  }
  return {0, Json::parse(out.toStdString())};
}

// A point of a run read back from the metrics rows: validation learning and relative
// forgetting, test values (NaN when not evaluated).
struct Back {
  double learning = NAN, forgetting = NAN, test_learning = NAN, test_forgetting = NAN;
};
Back read_back(Store& store, int64_t run, int64_t step) {
  std::map<std::string, std::map<int64_t, double>> v;
  for (const auto& r : store.metric_rows(run)) v[r.key][r.step] = r.value;
  Back b;
  b.learning = v[mk::kEvalNewLoss].at(step);
  b.forgetting = v[mk::kEvalOrigPpl].at(step) / v[mk::kEvalOrigPpl].at(0) - 1;
  if (v[mk::kTestNewLoss].count(step)) b.test_learning = v[mk::kTestNewLoss].at(step);
  if (v[mk::kTestOrigPpl].count(step)) {
    b.test_forgetting = v[mk::kTestOrigPpl].at(step) / v[mk::kTestOrigPpl].at(0) - 1;
  }
  return b;
}

// Fake candidates for the halving: a true quality each, learning curves with seeded noise.
struct FakeSearch {
  std::vector<double> quality;  // lower learns more
  double noise = 0.0;
  uint32_t seed = 0;
  std::map<size_t, int64_t> reached;
  double now = 0;            // the fake clock
  double step_s = 0.5;       // seconds per step (scaled per candidate by `cost`)
  std::vector<double> cost;  // per candidate, default 1
  double eval_s = 0.2;
  const ex::TimeBudget* budget = nullptr;

  double learning(size_t c, int64_t step) const {
    std::mt19937 rng(seed * 7919 + static_cast<uint32_t>(c * 131 + step));
    std::normal_distribution<double> n(0.0, 1.0);
    return quality[c] + 2.0 / std::sqrt(static_cast<double>(step)) + noise * n(rng);
  }
  ex::HalvingHooks hooks(int64_t eval_every, int64_t n_max, int64_t steps, int64_t eta,
                         int64_t min_rung) {
    ex::HalvingHooks h;
    h.clock = [this] { return now; };
    h.advance = [this, eval_every](size_t c, int64_t step) {
      int64_t& at = reached[c];
      const double per = step_s * (cost.empty() ? 1.0 : cost[c]);
      while (at < step) {
        // The driver's deadline: checked at every step (the runner's cancellation point).
        if (budget && budget->out()) return false;
        now += per;
        ++at;
        if (at % eval_every == 0) now += eval_s;
      }
      return true;
    };
    h.score = [this, eval_every](size_t c, int64_t step) {
      std::vector<ex::SearchPoint> pts;
      for (int64_t s = eval_every; s <= step; s += eval_every) {
        ex::SearchPoint p;
        p.run_id = static_cast<int64_t>(c);
        p.step = s;
        p.learning = learning(c, s);
        p.forgetting = 0;
        pts.push_back(p);
      }
      return ex::score_points(pts, step, 0.05);
    };
    h.stop = [](size_t, int64_t) {};
    h.choose_n = [this, n_max, steps, eta, min_rung, eval_every](double) {
      // The driver's estimate: the first candidate's seconds a step and an evaluation (here
      // known exactly), nothing for setup.
      ex::SegmentCost seg;
      seg.step_s = step_s * (cost.empty() ? 1.0 : cost[0]);
      seg.eval_s = eval_s;
      seg.interval = eval_every;
      return budget ? ex::affordable_candidates(n_max, steps, eta, min_rung, seg,
                                                0.95 * budget->left())
                    : n_max;
    };
    return h;
  }
};

}  // namespace

class TestSuggest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void rungs();
  void scores();
  void halvingKeepsBestUnderNoise();
  void timeBudgetOnFakeClock();
  void options();
  void candidates();
  void plantedWinner();
  void noneWithinBudget();
  void resumeAfterKill();
  void usageErrors();

 private:
  Json spec() const;
  ex::RunnerOptions runner(const std::string& db) const;
  QStringList cli_args(const std::string& db) const;
  void check_contract(const Json& j, const std::string& db);

  QTemporaryDir m_tmp;
  std::string m_dir, m_model, m_orig, m_new, m_cache;
};

void TestSuggest::initTestCase() {
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  m_dir = str(m_tmp.path());
  m_cache = m_dir + "/cache";
  qputenv("GROWBENCH_CACHE_DIR", QByteArray::fromStdString(m_cache));
  qputenv("OMP_NUM_THREADS", "1");
  m_orig = m_dir + "/english.txt";
  m_new = m_dir + "/german.txt";
  const std::string orig = salad(kEnglish, 2400, 1), neu = salad(kGerman, 2400, 2);
  write_text(m_orig, orig);
  write_text(m_new, neu);
  m_model = m_dir + "/llama";
  fs::create_directories(m_model);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(gb::test::fixture_dir("llama") + "/" + f, m_model + "/" + f);
  }
  write_text(m_model + "/tokenizer.json",
             gb::tok::train_byte_level_bpe({orig, neu}, 512, {"<|endoftext|>"}));
}

Json TestSuggest::spec() const {
  auto part = [](const std::string& path, const char* p) {
    return Json{{"path", path}, {"unit", "paragraph"}, {"part", p}, {"heldout", 0.3}};
  };
  return Json{{"version", 1},
              {"name", "toy"},
              {"seed", 0},
              {"threads", 1},
              {"model", m_model},
              {"data",
               {{"original",
                 {{"eval", part(m_orig, "validation")},
                  {"test", part(m_orig, "test")},
                  {"probe", part(m_orig, "train")}}},
                {"new",
                 {{"train", part(m_new, "train")},
                  {"eval", part(m_new, "validation")},
                  {"test", part(m_new, "test")}}}}},
              {"train", {{"steps", 16}, {"seq_len", 32}, {"batch_size", 2}, {"warmup", 1}}},
              {"eval", {{"interval", 4}, {"tokens", 128}, {"batch_size", 2}, {"drift", false}}},
              {"probe", {{"tokens", 128}, {"seq_len", 32}, {"batch_size", 2}}}};
}

ex::RunnerOptions TestSuggest::runner(const std::string& db) const {
  ex::RunnerOptions o;
  o.db_path = db;
  o.cache_dir = m_cache;
  return o;
}

void TestSuggest::rungs() {
  // 8 candidates, 64 steps, eta 2: r0 = 8, three halvings.
  auto r = ex::halving_rungs(8, 8, 64, 2, 4);
  QCOMPARE(r.size(), size_t(4));
  const std::vector<std::pair<int64_t, int64_t>> want = {{8, 8}, {16, 4}, {32, 2}, {64, 1}};
  for (size_t i = 0; i < r.size(); ++i) {
    QCOMPARE(r[i].step, want[i].first);
    QCOMPARE(r[i].alive, want[i].second);
  }
  // The first rung may not fall below min_rung_steps: 64 / 8 = 8 < 10, so two halvings.
  r = ex::halving_rungs(8, 8, 64, 2, 10);
  QCOMPARE(r.size(), size_t(3));
  QCOMPARE(r.front().step, int64_t(16));
  QCOMPARE(r.back().step, int64_t(64));
  // 5 of 9 candidates run, eta 3: rungs of 9 (K = 2), alive 5, 2, 1; length 27·2 = 54.
  r = ex::halving_rungs(5, 9, 60, 3, 2);
  QCOMPARE(r.size(), size_t(3));
  QCOMPARE(r[0].step, int64_t(6));
  QCOMPARE(r[0].alive, int64_t(5));
  QCOMPARE(r[1].alive, int64_t(2));
  QCOMPARE(r[2].alive, int64_t(1));
  QCOMPARE(r[2].step, int64_t(54));
  // One candidate: no halving, the full length.
  r = ex::halving_rungs(1, 1, 30, 2, 4);
  QCOMPARE(r.size(), size_t(1));
  QCOMPARE(r[0].step, int64_t(30));
  QVERIFY(gb::test::error_of([] { ex::halving_rungs(2, 2, 10, 1, 1); }).find("eta") !=
          std::string::npos);
}

void TestSuggest::scores() {
  auto pt = [](int64_t run, int64_t step, double l, double f) {
    ex::SearchPoint p;
    p.run_id = run;
    p.step = step;
    p.learning = l;
    p.forgetting = f;
    return p;
  };
  // Within the budget (5 %): the best learning; the step-0 point never counts; beyond `step`
  // neither.
  std::vector<ex::SearchPoint> pts = {pt(1, 0, 9, 0), pt(1, 4, 5, 0.01), pt(1, 8, 4, 0.2),
                                      pt(2, 4, 4.5, 0.04), pt(2, 12, 1, 0)};
  auto s = ex::score_points(pts, 8, 0.05);
  QVERIFY(s.valid && s.within);
  QCOMPARE(s.learning, 4.5);
  QCOMPARE(s.run_id, int64_t(2));
  QCOMPARE(s.step, int64_t(4));
  // None within: the least forgetting.
  s = ex::score_points(pts, 8, 0.001);
  QVERIFY(s.valid && !s.within);
  QCOMPARE(s.forgetting, 0.01);
  // Ordering: within beats not within; invalid last.
  ex::Score a, b, c;
  a.valid = b.valid = true;
  a.within = true;
  a.learning = 5;
  b.within = false;
  b.forgetting = 0;
  QVERIFY(ex::score_better(a, b));
  QVERIFY(!ex::score_better(b, a));
  QVERIFY(ex::score_better(b, c));
  const auto keep = ex::keep_best({b, c, a}, 1);
  QCOMPARE(keep.size(), size_t(1));
  QCOMPARE(keep[0], size_t(2));
}

void TestSuggest::halvingKeepsBestUnderNoise() {
  // 16 candidates, the best 0.15 ahead of the next; noise σ = 0.03 on every evaluation.
  // Over 40 seeds the best survives every halving and is the last one alive; with the same
  // seeds and noise 20 times larger it does not always (the test can tell).
  int kept = 0, kept_noisy = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    for (double noise : {0.03, 0.6}) {
      FakeSearch f;
      std::mt19937 rng(seed);
      std::uniform_real_distribution<double> u(0.3, 1.0);
      for (int i = 0; i < 16; ++i) f.quality.push_back(u(rng));
      const size_t best = seed % 16;
      f.quality[best] = *std::min_element(f.quality.begin(), f.quality.end()) - 0.15;
      f.noise = noise;
      f.seed = seed;
      const auto out = ex::run_halving(16, 64, 2, 4, f.hooks(4, 16, 64, 2, 4));
      QCOMPARE(out.n, int64_t(16));
      QCOMPARE(out.last_rung, int64_t(out.rungs.size()) - 1);
      QCOMPARE(out.finalists.size(), size_t(1));
      // Every other candidate was stopped at a rung before the last.
      int stopped = 0;
      for (const auto& s : out.stopped_at) stopped += s.has_value();
      QCOMPARE(stopped, 15);
      const bool ok = out.finalists[0] == best;
      (noise < 0.1 ? kept : kept_noisy) += ok;
    }
  }
  QCOMPARE(kept, 40);
  QVERIFY2(kept_noisy < 40, "with noise far above the gap the halving should miss sometimes");
}

void TestSuggest::timeBudgetOnFakeClock() {
  // Candidates of unequal cost (up to 3x the first one's), 0.5 s a step: for budgets from
  // far too small to ample, the search ends within 10 % of the budget, and with an ample
  // budget it runs every candidate to the end.
  for (double budget_s : {40.0, 120.0, 300.0, 900.0, 5000.0}) {
    FakeSearch f;
    for (int i = 0; i < 12; ++i) {
      f.quality.push_back(0.1 * i);
      f.cost.push_back(1.0 + 2.0 * ((i * 7) % 12) / 11.0);
    }
    f.seed = 1;
    const ex::TimeBudget budget(budget_s, [&f] { return f.now; });
    f.budget = &budget;
    const auto out = ex::run_halving(12, 64, 2, 4, f.hooks(4, 12, 64, 2, 4));
    QVERIFY2(f.now <= 1.1 * budget_s,
             qPrintable(QString("budget %1 s, spent %2 s").arg(budget_s).arg(f.now)));
    QCOMPARE(budget.elapsed(), f.now);
    if (budget_s >= 5000) {
      QVERIFY(!out.out_of_time);
      QCOMPARE(out.n, int64_t(12));
      QCOMPARE(out.last_rung, int64_t(out.rungs.size()) - 1);
    }
    if (budget_s <= 40) QVERIFY(out.out_of_time || out.n < 12);
  }
  // The time spent before (a resumed search) counts.
  double now = 10;
  const ex::TimeBudget b(
      100, [&now] { return now; }, 95);
  QCOMPARE(b.elapsed(), 95.0);
  now = 16;
  QVERIFY(b.out());
  // affordable_candidates: 4 candidates, 32 steps, eta 2, r0 8: rungs (8, 4), (16, 2),
  // (32, 1). Two runs a candidate, each 1 s of setup, 0.5 s a step, 1 s an evaluation every
  // 4 steps: a segment of d steps costs 2·(1 + d/2 + d/4), 8 steps 14 s, 16 steps 26 s.
  // The others' first rungs 3·14, then 2·14 + 1·26: 96 s in all; 3 candidates: 2·14, then
  // 2·14 + 26 = 82 s.
  ex::SegmentCost seg;
  seg.setup_s = 1;
  seg.step_s = 0.5;
  seg.eval_s = 1;
  seg.interval = 4;
  seg.runs = 2;
  QCOMPARE(seg.seconds(8), 14.0);
  QCOMPARE(ex::affordable_candidates(4, 32, 2, 8, seg, 96), int64_t(4));
  QCOMPARE(ex::affordable_candidates(4, 32, 2, 8, seg, 95.9), int64_t(3));
  QCOMPARE(ex::affordable_candidates(4, 32, 2, 8, seg, 82), int64_t(3));
  QCOMPARE(ex::affordable_candidates(4, 32, 2, 8, seg, 81.9), int64_t(2));
  QCOMPARE(ex::affordable_candidates(4, 32, 2, 8, seg, 1), int64_t(2));
}

void TestSuggest::options() {
  QCOMPARE(ex::parse_duration("30m", "t"), 1800.0);
  QCOMPARE(ex::parse_duration("90s", "t"), 90.0);
  QCOMPARE(ex::parse_duration("1.5h", "t"), 5400.0);
  QCOMPARE(ex::parse_duration("45", "t"), 45.0);
  QVERIFY(gb::test::error_of([] { ex::parse_duration("5x", "--time"); }).find("--time") !=
          std::string::npos);
  QVERIFY(gb::test::error_of([] { ex::parse_duration("-3m", "--time"); }) != "NO ERROR");
  QCOMPARE(ex::parse_fraction_option("forgetting=5%", "forgetting=", "b"), 0.05);
  QCOMPARE(ex::parse_fraction_option("forgetting=0.2", "forgetting=", "b"), 0.2);
  QVERIFY(gb::test::error_of([] {
            ex::parse_fraction_option("forget=5%", "forgetting=", "--budget");
          }).find("--budget: expected forgetting=") != std::string::npos);
  QVERIFY(gb::test::error_of([] {
            ex::parse_fraction_option("forgetting=abc", "forgetting=", "--budget");
          }) != "NO ERROR");
  const auto o = ex::parse_suggest_section(
      Json::parse(R"({"budget": {"forgetting": "2%", "params": 0.5}, "time": "10m",
                      "rates": [0.001], "variants": ["lora"], "eta": 3})"),
      "spec.suggest");
  QCOMPARE(o.forgetting_budget, 0.02);
  QCOMPARE(o.params_budget, 0.5);
  QCOMPARE(o.time_s, 600.0);
  QCOMPARE(o.eta, int64_t(3));
  QVERIFY(gb::test::error_of([] {
            ex::parse_suggest_section(Json::parse(R"({"bugdet": {}})"), "spec.suggest");
          }).find("bugdet") != std::string::npos);
  QVERIFY(gb::test::error_of([] {
            ex::parse_suggest_section(Json::parse(R"({"variants": ["nope"]})"), "s");
          }).find("nope") != std::string::npos);
}

void TestSuggest::candidates() {
  const auto config = gb::load_config(m_model + "/config.json");
  ex::SuggestOptions o;
  o.params_budget = 0.5;
  const auto all = ex::propose_candidates(config, o);
  QVERIFY(all.size() >= 10);
  std::set<std::string> variants, labels;
  for (const auto& c : all) {
    variants.insert(c.plan.at("variant").get<std::string>());
    labels.insert(c.label);
    QVERIFY(c.added <= 0.5 * config.param_count());
    QCOMPARE(qs(c.plan.at("name").get<std::string>()), qs(c.label));
  }
  QCOMPARE(labels.size(), all.size());
  for (const char* v : {"full", "freeze", "lora", "grow", "depth", "adapters"}) {
    QVERIFY2(variants.count(v), v);
  }
  // Round robin: the first candidates are of distinct variants.
  QVERIFY(all[0].plan["variant"] != all[1].plan["variant"]);
  // A smaller parameter budget leaves out what adds more; no budget: only plans adding none.
  o.params_budget = 0;
  for (const auto& c : ex::propose_candidates(config, o)) QCOMPARE(c.added, int64_t(0));
  o.params_budget = 0.5;
  o.variants = {"lora"};
  o.policies = {"all", "uniform"};
  const auto lora = ex::propose_candidates(config, o);
  QVERIFY(!lora.empty());
  for (const auto& c : lora) {
    QCOMPARE(qs(c.plan["variant"].get<std::string>()), QString("lora"));
    const Json& l = c.plan["layers"];
    QVERIFY(l == "all" || l.value("policy", "") == "uniform");
  }
}

// Every number of the JSON read back from the store.
void TestSuggest::check_contract(const Json& j, const std::string& db) {
  Store store = Store::open(db);
  QVERIFY(j.contains("recommendation") && j.contains("candidates") && j.contains("time_s"));
  const Json& rec = j["recommendation"];
  for (const char* k : {"plan", "lr", "validation", "test"}) QVERIFY2(rec.contains(k), k);
  const int64_t run = rec["run"], step = rec["step"];
  const Back b = read_back(store, run, step);
  QCOMPARE(rec["validation"]["learning"].get<double>(), b.learning);
  QCOMPARE(rec["validation"]["forgetting"].get<double>(), b.forgetting);
  QCOMPARE(rec["test"]["learning"].get<double>(), b.test_learning);
  QCOMPARE(rec["test"]["forgetting"].get<double>(), b.test_forgetting);
  QCOMPARE(store.run_params(run).at("train.lr").get<double>(), rec["lr"].get<double>());
  QCOMPARE(rec["plan"], Json::parse(store.get_run(run).spec)["plans"][0]);
  bool found = false;
  for (const auto& c : j["candidates"]) {
    for (const char* k : {"plan", "runs", "stopped_at_step", "front"}) QVERIFY2(c.contains(k), k);
    for (int64_t id : c["runs"]) {
      const auto info = store.get_run(id);
      found = found || id == run;
      if (c["stopped_at_step"].is_null()) {
        QCOMPARE(qs(gb::store::to_string(info.status)), QString("finished"));
      } else {
        QCOMPARE(qs(gb::store::to_string(info.status)), QString("stopped"));
        const int64_t at = c["stopped_at_step"];
        int64_t last = -1;
        for (const auto& r : store.metric_rows(id)) {
          if (r.key == mk::kEvalNewLoss) last = std::max(last, r.step);
        }
        QCOMPARE(last, at == 0 ? int64_t(-1) : at);
      }
    }
    for (const auto& p : c["front"]) {
      const Back pb = read_back(store, p["run"], p["step"]);
      QCOMPARE(p["learning"].get<double>(), pb.learning);
      QCOMPARE(p["forgetting"].get<double>(), pb.forgetting);
    }
  }
  QVERIFY(found);
  QVERIFY(j["time_s"].get<double>() > 0);
}

void TestSuggest::plantedWinner() {
  // Full fine-tuning against Freeze with both layers frozen (only the final norm and the
  // head train): with no limit on forgetting, full fine-tuning learns the new language far
  // faster at any rate of the grid, and is recommended.
  const std::string db = m_dir + "/planted.db";
  ex::SuggestRequest r;
  r.spec = spec();
  r.options.forgetting_budget = 100;  // 10000 %: no limit
  r.options.variants = {"full", "freeze"};
  r.options.rates = {1e-3, 3e-3};
  r.options.min_rung_steps = 8;
  r.options.time_s = 900;
  const Json j = ex::run_suggest(r, runner(db));
  QCOMPARE(j["candidates"].size(), size_t(2));
  QCOMPARE(qs(j["recommendation"]["plan"]["variant"].get<std::string>()), QString("full"));
  QVERIFY(j["recommendation"]["within_budget"].get<bool>());
  QVERIFY(!j["recommendation"].contains("note"));
  // Halving: 2 candidates, one rung of 8 steps, then the winner alone to 16.
  QCOMPARE(j["search"]["rungs"].size(), size_t(2));
  int stopped = 0;
  for (const auto& c : j["candidates"]) {
    if (!c["stopped_at_step"].is_null()) {
      ++stopped;
      QCOMPARE(c["stopped_at_step"].get<int64_t>(), int64_t(8));
      QCOMPARE(qs(c["plan"]["variant"].get<std::string>()), QString("freeze"));
    }
  }
  QCOMPARE(stopped, 1);
  check_contract(j, db);
  // Why it won: the finalists ranked (the recommendation first, at its point); where the
  // time went: every candidate's segments, and the rest, add up to the search's time.
  QCOMPARE(j["finalists"].size(), size_t(1));
  QCOMPARE(j["finalists"][0]["label"], j["recommendation"]["label"]);
  QCOMPARE(j["finalists"][0]["run"], j["recommendation"]["run"]);
  QCOMPARE(j["finalists"][0]["step"], j["recommendation"]["step"]);
  QCOMPARE(j["finalists"][0]["learning"], j["recommendation"]["validation"]["learning"]);
  double seconds = 0;
  for (const auto& c : j["candidates"]) {
    QVERIFY2(c["seconds"].get<double>() > 0, c.dump().c_str());
    seconds += c["seconds"].get<double>();
  }
  QCOMPARE(j["search"]["runs_s"].get<double>(), seconds);
  QVERIFY(seconds <= j["time_s"].get<double>());
  QVERIFY(std::abs(j["search"]["runs_s"].get<double>() + j["search"]["other_s"].get<double>() -
                   j["time_s"].get<double>()) < 1e-6 * j["time_s"].get<double>());
  // The full-length candidate trained 16 steps, the stopped one 8: the first took longer.
  const Json& c0 = j["candidates"][0];
  const Json& c1 = j["candidates"][1];
  const bool c0_stopped = !c0["stopped_at_step"].is_null();
  QVERIFY((c0_stopped ? c1 : c0)["seconds"].get<double>() >
          (c0_stopped ? c0 : c1)["seconds"].get<double>());
  {
    Store store = Store::open(db);
    const std::string html = ex::suggest_report_page(store, j);
    for (const std::string part :
         {std::string("The recommendation"), std::string("Why it won"),
          std::string("Where the time went"), std::string("Trade-off fronts"),
          j["recommendation"]["label"].get<std::string>(), std::string("stopped by the search "
                                                                       "at step 8"),
          std::string("<svg")}) {
      QVERIFY2(html.find(part) != std::string::npos, part.c_str());
    }
    QVERIFY(html.rfind("</html>") != std::string::npos);
  }
  // Running it again continues nothing and gives the same answer.
  const Json again = ex::run_suggest(r, runner(db));
  QCOMPARE(again["recommendation"], j["recommendation"]);
}

void TestSuggest::noneWithinBudget() {
  // A forgetting budget nobody meets (the perplexity of the original language may not rise
  // at all): the recommendation is the point that forgets least among the finalists, said so.
  // The new "domain" is one word repeated: learning it pushes every prediction towards that
  // word, so the original language's perplexity rises whatever the rate.
  const std::string db = m_dir + "/none.db", one = m_dir + "/one-word.txt";
  std::string text;
  for (int i = 0; i < 2000; ++i) text += (i % 40 == 39) ? "zq\n\n" : "zq ";
  write_text(one, text);
  ex::SuggestRequest r;
  r.spec = spec();
  for (const char* part : {"train", "eval", "test"}) r.spec["data"]["new"][part]["path"] = one;
  r.options.forgetting_budget = 0;
  r.options.variants = {"full"};
  r.options.rates = {3e-3};
  r.options.time_s = 900;
  const Json j = ex::run_suggest(r, runner(db));
  const Json& rec = j["recommendation"];
  check_contract(j, db);
  QVERIFY2(rec["validation"]["forgetting"].get<double>() > 0, rec.dump().c_str());
  QVERIFY(!rec["within_budget"].get<bool>());
  QVERIFY(rec["note"].get<std::string>().find("forgets least") != std::string::npos);
  // The least forgetting of every trained point of the run.
  Store store = Store::open(db);
  double least = INFINITY;
  const int64_t run = j["candidates"][0]["runs"][0];
  for (const auto& row : store.metric_rows(run)) {
    if (row.key == mk::kEvalNewLoss && row.step > 0) {
      least = std::min(least, read_back(store, run, row.step).forgetting);
    }
  }
  QCOMPARE(rec["validation"]["forgetting"].get<double>(), least);
}

QStringList TestSuggest::cli_args(const std::string& db) const {
  return {
      "suggest",        qs(m_model), "--new",   qs(m_new),   "--original", qs(m_orig),  "--db",
      qs(db),           "--steps",   "16",      "--variant", "full",       "--variant", "freeze",
      "--variant",      "lora",      "--rates", "0.001",     "--rates",    "0.003",     "--budget",
      "forgetting=50%", "--params",  "max=20%", "--time",    "15m",        "--heldout", "0.3",
      "--json",         "-",         "--cache", qs(m_cache), "--quiet"};
}

void TestSuggest::resumeAfterKill() {
  // The same search uninterrupted and killed (SIGKILL) once a rung's checkpoint exists, then
  // run again with the same command: the same recommendation, the same numbers.
  const std::string whole = m_dir + "/whole.db", killed = m_dir + "/killed.db";
  const std::string report = m_dir + "/whole-report.html";
  const auto [code, a] = run_cli_json(cli_args(whole) << "--report" << qs(report));
  QCOMPARE(code, 0);
  check_contract(a, whole);
  {
    std::ifstream f(report);
    const std::string html((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    QVERIFY2(html.find("Suggest a plan") != std::string::npos, report.c_str());
    QVERIFY(html.find(a["recommendation"]["label"].get<std::string>()) != std::string::npos);
  }

  QProcess p;
  p.start(GB_CLI_PATH, cli_args(killed));
  QVERIFY(p.waitForStarted());
  bool killed_midway = false;
  for (int i = 0; i < 1200 && p.state() == QProcess::Running; ++i) {
    QThread::msleep(100);
    if (!fs::exists(killed)) continue;
    try {
      Store st = Store::open(killed, gb::store::OpenMode::ReadOnly);
      int cancelled = 0;
      for (const auto& r : st.list_runs()) {
        cancelled += r.status == gb::store::RunStatus::Cancelled;
      }
      if (cancelled >= 2) {
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        killed_midway = true;
        break;
      }
    } catch (const std::exception&) {
    }
  }
  p.waitForFinished(60000);
  QVERIFY2(killed_midway, "the search ended before it could be killed");
  const auto [code2, b] = run_cli_json(cli_args(killed));
  QCOMPARE(code2, 0);
  check_contract(b, killed);
  QCOMPARE(b["recommendation"]["plan"], a["recommendation"]["plan"]);
  QCOMPARE(b["recommendation"]["lr"], a["recommendation"]["lr"]);
  QCOMPARE(b["recommendation"]["step"], a["recommendation"]["step"]);
  for (const char* split : {"validation", "test"}) {
    for (const char* k : {"learning", "forgetting"}) {
      const double x = a["recommendation"][split][k], y = b["recommendation"][split][k];
      QVERIFY2(std::abs(x - y) <= 1e-6 * std::max(1.0, std::abs(x)),
               qPrintable(QString("%1 %2: %3 vs %4").arg(split, k).arg(x).arg(y)));
    }
  }
  QCOMPARE(b["candidates"].size(), a["candidates"].size());
  for (size_t i = 0; i < a["candidates"].size(); ++i) {
    QCOMPARE(b["candidates"][i]["stopped_at_step"], a["candidates"][i]["stopped_at_step"]);
  }
}

void TestSuggest::usageErrors() {
  const std::string db = m_dir + "/usage.db";
  auto expect = [&](QStringList args, const char* part) {
    args.prepend("suggest");
    auto [code, out] = run_cli(args, 60000);
    QVERIFY2(code == 2, qPrintable(QString("exit %1: %2").arg(code).arg(QString(out))));
    QVERIFY2(out.contains(part), out.constData());
  };
  const QStringList ok = {qs(m_model), "--new", qs(m_new), "--original",
                          qs(m_orig),  "--db",  qs(db)};
  expect(ok + QStringList{"--bogus"}, "--bogus");
  expect(ok + QStringList{"--budget", "forgetting=abc"}, "--budget");
  expect(ok + QStringList{"--budget", "5%"}, "--budget: expected forgetting=");
  expect(ok + QStringList{"--params", "max=x"}, "--params");
  expect(ok + QStringList{"--time", "soon"}, "--time");
  expect(ok + QStringList{"--variant", "nope"}, "--variant: unknown variant 'nope'");
  expect({qs(m_model), "--new", qs(m_dir + "/missing.txt"), "--original", qs(m_orig)},
         "--new: no such file");
  expect({qs(m_model), "--new", qs(m_new)}, "--original: required");
  expect({qs(m_model), "--original", qs(m_orig)}, "--new: required");
  expect({"--new", qs(m_new), "--original", qs(m_orig)}, "MODEL: required");
  QVERIFY(!fs::exists(db));
}

QTEST_GUILESS_MAIN(TestSuggest)
#include "tst_suggest.moc"
