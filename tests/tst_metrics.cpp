// Tests of the metric registry (core/util/metrics.h) and the typed progress events
// (core/util/events.h): every key documented, patterned lookups, directions, the exact key
// strings (the store contract), event round trips and the exact JSON wire format, and a scan
// of the sources for metric-key literals outside the registry.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "util/error.h"
#include "util/events.h"
#include "util/metrics.h"

namespace fs = std::filesystem;
namespace m = gb::metrics;
namespace ev = gb::events;
using Json = nlohmann::json;

namespace {

// The registry itself.
const std::set<std::string> kRegistryFiles = {"core/util/metrics.h", "core/util/metrics.cpp"};

bool same_number(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

bool same_metrics(const std::map<std::string, double>& a, const std::map<std::string, double>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || !same_number(v, it->second)) return false;
  }
  return true;
}

// Serialises, dumps to a line, parses the line back (what the GUI does with `--json`).
template <typename T>
T round_trip(const T& e) {
  const std::string line = ev::to_json(e).dump();
  ev::Event back = ev::parse(Json::parse(line));
  const T* p = std::get_if<T>(&back);
  if (!p) throw std::runtime_error("parsed as another event: " + line);
  return *p;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gb::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT

 private slots:
  void everyEntryDocumented();
  void keyStringsAreTheStoreContract();
  void fixedLookups();
  void patternedLookups();
  void directions();
  void axisTitles();
  void eventsRoundTrip();
  void eventsWireFormat();
  void eventsParseErrors();
  void noMetricKeyLiteralsOutsideRegistry();
};

void TestMetrics::everyEntryDocumented() {
  const std::set<std::string> units = {"",         "nats/token", "tokens/s", "MB",
                                       "fraction", "parameters", "s"};
  std::set<std::string> seen;
  QVERIFY(m::all().size() >= 20);
  for (const auto& info : m::all()) {
    QVERIFY2(!info.key.empty(), "empty key");
    QVERIFY2(seen.insert(info.key).second, info.key.c_str());
    QVERIFY2(!info.meaning.empty(), info.key.c_str());
    QVERIFY2(!info.label.empty(), info.key.c_str());
    QVERIFY2(units.count(info.unit), (info.key + ": unit " + info.unit).c_str());
    QVERIFY(info.direction == m::Direction::Lower || info.direction == m::Direction::Higher ||
            info.direction == m::Direction::None);
    // Every entry resolves to itself (patterns through an example key).
    std::string example = info.key;
    if (auto pos = example.find("<task>"); pos != std::string::npos) example.replace(pos, 6, "t");
    if (auto pos = example.find("<term>"); pos != std::string::npos) example.replace(pos, 6, "x");
    QCOMPARE(m::find(example), &info);
  }
}

void TestMetrics::keyStringsAreTheStoreContract() {
  // The stored metrics.key values other tools read: these strings must never change.
  QCOMPARE(std::string(m::kTrainLoss), std::string("train/loss"));
  QCOMPARE(std::string(m::kTrainLmLoss), std::string("train/lm_loss"));
  QCOMPARE(std::string(m::kTrainGradNorm), std::string("train/grad_norm"));
  QCOMPARE(std::string(m::kTrainLr), std::string("train/lr"));
  QCOMPARE(std::string(m::kEvalOrigLoss), std::string("eval/orig/loss"));
  QCOMPARE(std::string(m::kEvalOrigPpl), std::string("eval/orig/ppl"));
  QCOMPARE(std::string(m::kEvalNewLoss), std::string("eval/new/loss"));
  QCOMPARE(std::string(m::kEvalNewPpl), std::string("eval/new/ppl"));
  QCOMPARE(std::string(m::kDriftCosine), std::string("eval/drift/cosine"));
  QCOMPARE(std::string(m::kDriftOrigStream), std::string("eval/drift/orig_stream"));
  QCOMPARE(std::string(m::kEvalOp), std::string("eval/op"));
  QCOMPARE(std::string(m::kEvalBwt), std::string("eval/bwt"));
  QCOMPARE(std::string(m::kTokensPerS), std::string("perf/tokens_per_s"));
  QCOMPARE(std::string(m::kPeakMemoryMb), std::string("perf/peak_memory_mb"));
  QCOMPARE(std::string(m::kTotalParams), std::string("perf/total_params"));
  QCOMPARE(std::string(m::kTrainableParams), std::string("perf/trainable_params"));
  QCOMPARE(std::string(m::kAddedParams), std::string("perf/added_params"));
  QCOMPARE(m::task_key("bio", m::kAcc), std::string("eval/bio/acc"));
  QCOMPARE(m::task_key("arc", m::kAccNorm), std::string("eval/arc/acc_norm"));
  QCOMPARE(m::task_key("bio", m::kEm), std::string("eval/bio/em"));
  QCOMPARE(m::task_key("bio", m::kAnswerLoss), std::string("eval/bio/answer_loss"));
  QCOMPARE(m::task_key("wiki", m::kLoss), std::string("eval/wiki/loss"));
  QCOMPARE(m::task_key("wiki", m::kPpl), std::string("eval/wiki/ppl"));
  QCOMPARE(m::task_key("task0", m::kAccFrozenHead), std::string("eval/task0/acc_frozen_head"));
  QCOMPARE(m::test_task_key("task0", m::kAccFrozenHead),
           std::string("test/task0/acc_frozen_head"));
  QCOMPARE(m::train_term_key("ewc"), std::string("train/ewc"));
  QCOMPARE(m::adept_lr_scale_key("layers.3.q"), std::string("adept/lr_scale/layers.3.q"));
}

void TestMetrics::fixedLookups() {
  for (const char* k : {m::kTrainLoss, m::kEvalOrigPpl, m::kDriftCosine, m::kEvalBwt,
                        m::kTokensPerS, m::kAddedParams}) {
    const m::MetricInfo* info = m::find(k);
    QVERIFY2(info, k);
    QCOMPARE(info->key, std::string(k));
  }
  QVERIFY(!m::find(""));
  QVERIFY(!m::find("loss"));
  QVERIFY(!m::find("perf/unknown"));
  QVERIFY(!m::find("eval/unknown"));
  QVERIFY(!m::find("eval/bio/unknown_suffix"));
  QVERIFY(!m::find("train/"));
  QVERIFY(m::is_eval(m::kEvalOp) && !m::is_eval(m::kTrainLoss));
  QVERIFY(m::is_train(m::kTrainLr) && m::is_perf(m::kPeakMemoryMb));
}

void TestMetrics::patternedLookups() {
  const m::MetricInfo* acc = m::find("eval/bio/acc");
  QVERIFY(acc);
  QCOMPARE(acc->key, std::string("eval/<task>/acc"));
  QCOMPARE(acc->direction, m::Direction::Higher);
  QCOMPARE(acc->unit, std::string("fraction"));
  QCOMPARE(m::find("eval/other/acc"), acc);

  const m::MetricInfo* ppl = m::find(m::task_key("wiki", m::kPpl));
  QVERIFY(ppl);
  QCOMPARE(ppl->key, std::string("eval/<task>/ppl"));
  QCOMPARE(ppl->direction, m::Direction::Lower);

  const m::MetricInfo* term = m::find(m::train_term_key("balance"));
  QVERIFY(term);
  QCOMPARE(term->key, std::string("train/<term>"));
  QCOMPARE(term->direction, m::Direction::Lower);

  auto tk = m::split_task_key("eval/bio/answer_loss");
  QVERIFY(tk);
  QCOMPARE(tk->task, std::string("bio"));
  QCOMPARE(tk->suffix, std::string("answer_loss"));
  // The fixed eval keys are not task keys.
  QVERIFY(!m::split_task_key(m::kEvalOrigPpl));
  QVERIFY(!m::split_task_key(m::kEvalNewLoss));
  QVERIFY(!m::split_task_key(m::kEvalOp));
  QVERIFY(!m::split_task_key("eval//acc"));
  QVERIFY(!m::split_task_key("train/x/acc"));
  // ADEPT stage 2's multipliers, one key per unit.
  const m::MetricInfo* scale = m::find(m::adept_lr_scale_key("layers.3.post_attn_norm"));
  QVERIFY(scale);
  QCOMPARE(scale->key, std::string("adept/lr_scale/<unit>"));
  QCOMPARE(scale->direction, m::Direction::None);
  QVERIFY(!m::find("adept/lr_scale/"));
  QVERIFY(!m::find("adept/other"));
  QVERIFY(m::is_adept(m::adept_lr_scale_key("layers.0.q")) && !m::is_adept(m::kTrainLr));
  // The fixed keys keep their own entries.
  QCOMPARE(m::find(m::kEvalOrigPpl)->key, std::string(m::kEvalOrigPpl));
  QCOMPARE(m::find(m::kTrainLmLoss)->key, std::string(m::kTrainLmLoss));
}

void TestMetrics::directions() {
  for (const char* k : {m::kTrainLoss, m::kTrainLmLoss, m::kEvalOrigLoss, m::kEvalOrigPpl,
                        m::kEvalNewLoss, m::kEvalNewPpl, m::kPeakMemoryMb, m::kDriftOrigStream}) {
    QVERIFY2(m::lower_is_better(k), k);
    QVERIFY2(!m::higher_is_better(k), k);
  }
  for (const char* k : {m::kDriftCosine, m::kEvalOp, m::kEvalBwt, m::kTokensPerS}) {
    QVERIFY2(m::higher_is_better(k), k);
    QVERIFY2(!m::lower_is_better(k), k);
  }
  for (const char* k :
       {m::kTrainLr, m::kTrainGradNorm, m::kTotalParams, m::kTrainableParams, m::kAddedParams}) {
    QCOMPARE(m::direction(k), m::Direction::None);
  }
  QVERIFY(m::higher_is_better("eval/bio/acc"));
  QVERIFY(m::higher_is_better("eval/arc/acc_norm"));
  QVERIFY(m::higher_is_better("eval/bio/em"));
  QVERIFY(m::higher_is_better(m::task_key("task0", m::kAccFrozenHead)));
  QVERIFY(m::higher_is_better(m::test_task_key("task0", m::kAccFrozenHead)));
  QVERIFY(m::lower_is_better("eval/bio/answer_loss"));
  QVERIFY(m::lower_is_better("eval/wiki/loss"));
  QVERIFY(m::lower_is_better("eval/wiki/ppl"));
  QVERIFY(m::lower_is_better("train/ewc"));
  QCOMPARE(m::direction("no/such/key"), m::Direction::None);
  QCOMPARE(std::string(m::to_string(m::Direction::Lower)), std::string("lower"));
  QCOMPARE(std::string(m::to_string(m::Direction::Higher)), std::string("higher"));
}

void TestMetrics::axisTitles() {
  QCOMPARE(m::axis_title(m::kEvalOrigPpl), std::string("original perplexity"));
  QCOMPARE(m::axis_title(m::kTokensPerS), std::string("throughput (tokens/s)"));
  QCOMPARE(m::axis_title("eval/bio/acc"), std::string("bio accuracy (fraction)"));
  QCOMPARE(m::axis_title("train/ewc"), std::string("ewc loss term (nats/token)"));
  QCOMPARE(m::axis_title("custom/key"), std::string("custom/key"));
  QCOMPARE(m::axis_title(m::adept_lr_scale_key("layers.3.q")),
           std::string("layers.3.q learning-rate multiplier"));
  QCOMPARE(m::unit(m::kPeakMemoryMb), std::string("MB"));
  QCOMPARE(m::unit("custom/key"), std::string());
}

void TestMetrics::eventsRoundTrip() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    ev::Progress e;
    e.run = 7;
    e.stage = "train";
    e.phase = "adapt";
    e.step = 40;
    e.total = 100;
    e.loss = 2.5;
    e.lm_loss = nan;
    e.lr = 3e-4;
    e.tokens_per_s = 1234.5;
    e.eta_s = 12;
    e.elapsed_s = 8.25;
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.stage, e.stage);
    QCOMPARE(b.phase, e.phase);
    QCOMPARE(b.step, e.step);
    QCOMPARE(b.total, e.total);
    QCOMPARE(b.loss, e.loss);
    QVERIFY(b.lm_loss && std::isnan(*b.lm_loss));
    QCOMPARE(b.lr, e.lr);
    QCOMPARE(b.tokens_per_s, e.tokens_per_s);
    QCOMPARE(b.eta_s, e.eta_s);
    QCOMPARE(b.elapsed_s, e.elapsed_s);
    QVERIFY(!b.fraction && !b.message);
  }
  {
    ev::Progress e;
    e.stage = "data";
    e.fraction = 0.5;
    e.eta_s = -1;
    e.message = "tokenising";
    auto b = round_trip(e);
    QVERIFY(!b.run && !b.step && !b.total && !b.loss && !b.phase);
    QCOMPARE(b.fraction, e.fraction);
    QCOMPARE(b.message, e.message);
  }
  {
    ev::Stage e{"probe/masking", 3, std::nullopt, true};
    auto b = round_trip(e);
    QCOMPARE(b.stage, e.stage);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.domain, e.domain);
    QVERIFY(!b.preset);
  }
  {
    ev::Eval e{4, 50, {{m::kEvalOrigPpl, 12.5}, {m::task_key("bio", m::kAcc), 0.25}}};
    e.metrics[m::kDriftCosine] = nan;
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.step, e.step);
    QVERIFY(same_metrics(b.metrics, e.metrics));
  }
  {
    ev::Grown e{2, Json{{"label", "lora"}, {"added", 1000}}};
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.growth, e.growth);
  }
  {
    ev::Checkpoint e{2, 60, "/tmp/x/step-60"};
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.step, e.step);
    QCOMPARE(b.path, e.path);
  }
  {
    ev::RunStarted e{5, "grow/g-freeze", 1, 6, std::nullopt};
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.label, e.label);
    QCOMPARE(b.index, e.index);
    QCOMPARE(b.runs, e.runs);
    QVERIFY(!b.resumed_from);
    ev::RunStarted r{5, "lora", std::nullopt, std::nullopt, 40};
    auto rb = round_trip(r);
    QCOMPARE(rb.resumed_from, r.resumed_from);
    QVERIFY(!rb.index && !rb.runs);
  }
  {
    ev::RunFinished e{5, "diverged", "loss is NaN", 12.75, {{m::kTrainLoss, nan}}};
    auto b = round_trip(e);
    QCOMPARE(b.run, e.run);
    QCOMPARE(b.status, e.status);
    QCOMPARE(b.error, e.error);
    QCOMPARE(b.seconds, e.seconds);
    QVERIFY(same_metrics(b.final_metrics, e.final_metrics));
  }
  {
    ev::Done e{"/tmp/g.db", 3, {{1, "full", "finished", ""}, {2, "lora", "failed", "boom"}}};
    auto b = round_trip(e);
    QCOMPARE(b.db, e.db);
    QCOMPARE(b.exit_code, e.exit_code);
    QCOMPARE(b.runs.size(), e.runs.size());
    QCOMPARE(b.runs[1].label, std::string("lora"));
    QCOMPARE(b.runs[1].error, std::string("boom"));
  }
  {
    Json raw = {{"event", "something_new"}, {"run", 9}, {"x", 1}};
    ev::Event e = ev::parse(raw);
    auto* u = std::get_if<ev::Unknown>(&e);
    QVERIFY(u);
    QCOMPARE(u->event, std::string("something_new"));
    QCOMPARE(ev::to_json(e), raw);
    QCOMPARE(ev::run_of(e), std::optional<int64_t>(9));
    QVERIFY(std::holds_alternative<ev::Unknown>(ev::parse(Json{{"probe_id", 3}})));
  }
  QCOMPARE(ev::name(ev::Event{ev::Checkpoint{}}), std::string("checkpoint"));
  QCOMPARE(ev::run_of(ev::Event{ev::Eval{11, 0, {}}}), std::optional<int64_t>(11));
  QVERIFY(!ev::run_of(ev::Event{ev::Stage{"data"}}));
}

void TestMetrics::eventsWireFormat() {
  // The lines the runner wrote before the typed events, byte for byte.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  size_t i = 1;
  {
    Json metrics = Json::object();
    metrics["eval/orig/ppl"] = 12.5;
    metrics["eval/drift/cosine"] = nan;
    Json legacy = {{"event", "eval"}, {"run", 3}, {"step", 20}, {"metrics", metrics}};
    ev::Eval e{3, 20, {{m::kEvalOrigPpl, 12.5}, {m::kDriftCosine, nan}}};
    QCOMPARE(ev::to_json(e).dump(), legacy.dump());
  }
  {
    Json legacy = {{"event", "progress"},  {"run", 3},       {"stage", "train"},
                   {"phase", "main"},      {"step", 4},      {"total", 10},
                   {"loss", 2.0},          {"lm_loss", 1.5}, {"lr", 1e-3},
                   {"tokens_per_s", 99.5}, {"eta_s", 3.0},   {"elapsed_s", 1.25}};
    ev::Progress e;
    e.run = 3;
    e.stage = "train";
    e.phase = "main";
    e.step = 4;
    e.total = 10;
    e.loss = 2.0;
    e.lm_loss = 1.5;
    e.lr = 1e-3;
    e.tokens_per_s = 99.5;
    e.eta_s = 3.0;
    e.elapsed_s = 1.25;
    QCOMPARE(ev::to_json(e).dump(), legacy.dump());
  }
  {
    Json legacy = {{"event", "progress"},
                   {"stage", "data"},
                   {"fraction", 0.5},
                   {"eta_s", -1.0},
                   {"message", ""}};
    ev::Progress e;
    e.stage = "data";
    e.fraction = 0.5;
    e.eta_s = -1.0;
    e.message = "";
    QCOMPARE(ev::to_json(e).dump(), legacy.dump());
  }
  {
    Json legacy = {{"event", "stage"}, {"stage", "preset"}, {"preset", "tiny"}};
    ev::Stage e{"preset"};
    e.preset = "tiny";
    QCOMPARE(ev::to_json(e).dump(), legacy.dump());
    QCOMPARE(ev::to_json(ev::Stage{"data"}).dump(),
             Json({{"event", "stage"}, {"stage", "data"}}).dump());
    Json probe = {{"event", "stage"}, {"stage", "probe/masking"}, {"run", 2}, {"domain", false}};
    QCOMPARE(ev::to_json(ev::Stage{"probe/masking", 2, std::nullopt, false}).dump(), probe.dump());
  }
  {
    Json legacy = {{"event", "checkpoint"}, {"run", 1}, {"step", 5}, {"path", "/p"}};
    QCOMPARE(ev::to_json(ev::Checkpoint{1, 5, "/p"}).dump(), legacy.dump());
  }
  {
    Json growth = {{"label", "full"}};
    Json legacy = {{"event", "grown"}, {"run", 1}, {"growth", growth}};
    QCOMPARE(ev::to_json(ev::Grown{1, growth}).dump(), legacy.dump());
  }
  {
    Json legacy = {
        {"event", "run_started"}, {"run", 8}, {"label", "lora"}, {"index", i}, {"runs", i + 1}};
    QCOMPARE(ev::to_json(ev::RunStarted{8, "lora", 1, 2, std::nullopt}).dump(), legacy.dump());
    Json resumed = {{"event", "run_started"}, {"run", 8}, {"label", "lora"}, {"resumed_from", 40}};
    QCOMPARE(ev::to_json(ev::RunStarted{8, "lora", std::nullopt, std::nullopt, 40}).dump(),
             resumed.dump());
  }
  {
    std::map<std::string, double> final_metrics = {{"train/loss", 1.25}};
    Json legacy = {{"event", "run_finished"}, {"run", 8},
                   {"status", "finished"},    {"error", ""},
                   {"seconds", 2.5},          {"final", final_metrics}};
    QCOMPARE(ev::to_json(ev::RunFinished{8, "finished", "", 2.5, final_metrics}).dump(),
             legacy.dump());
  }
}

void TestMetrics::eventsParseErrors() {
  auto e1 = error_of([] { ev::parse(Json{{"event", "checkpoint"}, {"run", 1}, {"step", 2}}); });
  QVERIFY2(e1.find("checkpoint") != std::string::npos && e1.find("path") != std::string::npos,
           e1.c_str());
  auto e2 = error_of([] { ev::parse(Json{{"event", "stage"}, {"stage", 3}}); });
  QVERIFY2(e2.find("stage") != std::string::npos && e2.find("string") != std::string::npos,
           e2.c_str());
  auto e3 = error_of([] {
    ev::parse(Json{{"event", "eval"}, {"run", 1}, {"step", 2}, {"metrics", {{"k", "x"}}}});
  });
  QVERIFY2(e3.find("metrics") != std::string::npos, e3.c_str());
  QVERIFY(!error_of([] { ev::parse(Json::array()); }).empty());
}

void TestMetrics::noMetricKeyLiteralsOutsideRegistry() {
  const fs::path root = GB_SOURCE_DIR;
  const std::vector<std::string> needles = {"\"eval/", "\"train/", "\"perf/"};
  QStringList offenders;
  size_t scanned = 0;
  for (const char* dir : {"core", "app", "widgets"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".in") continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (kRegistryFiles.count(rel)) continue;
      ++scanned;
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 8, "#include") == 0) continue;
        for (const auto& n : needles) {
          if (line.find(n) != std::string::npos) {
            offenders << QString::fromStdString(rel + ":" + std::to_string(number) + ": " + line);
            break;
          }
        }
      }
    }
  }
  QVERIFY(scanned > 50);
  QVERIFY2(offenders.isEmpty(),
           qPrintable(QStringLiteral("metric-key literals outside core/util/metrics.*:\n") +
                      offenders.join(QLatin1Char('\n'))));
}

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
