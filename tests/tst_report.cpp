// Reproductions (issue: each paper's headline claim): cloze tasks built from a corpus, the
// claims and their verdicts on a hand-made store, the report's HTML and JSON through the real
// growbench-cli, the smoke version of a spec, and the shipped paper specs (they parse, their
// sweeps expand, their claims name plans that exist).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "data/cloze.h"
#include "data/tasks.h"
#include "experiment/claims.h"
#include "experiment/expand.h"
#include "experiment/smoke.h"
#include "experiment/sources.h"
#include "experiment/spec.h"
#include "grow/plan.h"
#include "store/store.h"
#include "test_util.h"
#include "util/files.h"
#include "util/json.h"
#include "util/svg.h"

using Json = nlohmann::json;
using gb::store::Store;
namespace ex = gb::experiment;
namespace fs = std::filesystem;

namespace {

// Empty when `svg` is one well-formed XML document whose root is <svg> (what a figure file
// written from it must be); else the parser's complaint.
std::string svg_document_error(const std::string& svg) {
  QXmlStreamReader r(QByteArray::fromStdString(svg));
  int roots = 0, depth = 0;
  while (!r.atEnd()) {
    r.readNext();
    if (r.isStartElement()) {
      if (depth == 0) {
        ++roots;
        if (r.name() != QLatin1String("svg")) return "the root is not <svg>";
      }
      ++depth;
    } else if (r.isEndElement()) {
      --depth;
    }
  }
  if (r.hasError()) return r.errorString().toStdString();
  return roots == 1 ? "" : fmt::format("{} root elements", roots);
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::vector<gb::data::Document> docs(std::initializer_list<const char*> texts) {
  std::vector<gb::data::Document> d;
  int i = 0;
  for (const char* t : texts) d.push_back({t, fmt::format("doc:{}", i++)});
  return d;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) w.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) w.push_back(cur);
  return w;
}

std::pair<int, QByteArray> run_cli(const QStringList& args) {
  QProcess p;
  p.start(GB_CLI_PATH, args);
  p.waitForFinished(600000);
  return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
}

// A run with metrics at step 0 and step 100 for `key` (start → end).
int64_t add_run(Store& store, const std::string& group, const std::string& plan, int seed,
                const std::map<std::string, std::pair<double, double>>& values,
                gb::store::RunStatus status = gb::store::RunStatus::Finished) {
  gb::store::NewRun nr;
  nr.name = fmt::format("{} seed={}", plan, seed);
  nr.experiment = group;
  nr.seed = seed;
  nr.spec = Json{{"name", "hand-made"}}.dump();
  nr.params = {{"plan", plan}, {"train.lr", 1e-3}, {"seed", seed}};
  const int64_t id = store.create_run(nr);
  auto w = store.metrics_writer();
  for (const auto& [k, v] : values) {
    w.add(id, 0, k, v.first);
    w.add(id, 100, k, v.second);
  }
  w.flush();
  if (status != gb::store::RunStatus::Queued) {
    store.set_status(id, gb::store::RunStatus::Running);
    store.set_status(id, status);
  }
  return id;
}

}  // namespace

class TestReport : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();

  void clozeItemsFollowTheirPassage();
  void shuffledDistractorsArePermutationsOfTheTruth();
  void clozeIsDeterministicBySeed();
  void clozeRefusesACorpusTooSmall();
  void clozeTaskInASpecAndItsTestVersion();
  void validationAndTestHalvesAreDisjoint();
  void makeTaskWritesTheEvaluatorsFormat();

  void claimVerdicts_data();
  void claimVerdicts();
  void evidenceIsRecomputableFromTheStore();
  void unfinishedRunsAndSweepsAreNotCompared();
  void reportSectionErrorsNameTheKey_data();
  void reportSectionErrorsNameTheKey();
  void reportCommandWritesHtmlAndJson();

  void smokeSpecIsSmallAndKeepsTheStructure();
  void paperSpecsParseAndTheirClaimsNamePlans_data();
  void paperSpecsParseAndTheirClaimsNamePlans();
  void svgEscapesText();
  void svgGridIsOneDocument();
  void paperSmokeRunsGiveACompleteReport_data();
  void paperSmokeRunsGiveACompleteReport();

 private:
  QTemporaryDir m_tmp;
  std::string m_dir;
};

void TestReport::initTestCase() {
  QVERIFY(m_tmp.isValid());
  m_dir = m_tmp.path().toStdString();
}

void TestReport::clozeItemsFollowTheirPassage() {
  auto d =
      docs({"the quick brown fox jumps over the lazy dog every single morning",
            "a stitch in time saves nine when the wind blows from the north",
            "all that glitters is not gold said the old man to the young girl",
            "early to bed and early to rise makes a man healthy wealthy and wise", "too short"});
  gb::data::ClozeOptions o;
  o.items = 10;
  o.choices = 3;
  o.seed = 5;
  o.max_continuation_words = 4;
  auto items = gb::data::make_cloze_task(d, o);
  QCOMPARE(items.size(), size_t(4));  // "too short" is not usable
  std::set<std::string> contexts;
  for (const auto& it : items) {
    QCOMPARE(it.choices.size(), size_t(3));
    QVERIFY(it.answer >= 0 && it.answer < 3);
    const std::string truth = it.choices[static_cast<size_t>(it.answer)];
    // The context and the true continuation are consecutive words of one document.
    bool found = false;
    for (const auto& doc : d) {
      if (doc.text.find(it.context + " " + truth) != std::string::npos) found = true;
    }
    QVERIFY2(found, (it.context + " | " + truth).c_str());
    // Every choice has the true continuation's number of words, and they differ.
    std::set<std::string> distinct(it.choices.begin(), it.choices.end());
    QCOMPARE(distinct.size(), size_t(3));
    for (const auto& c : it.choices) QCOMPARE(words(c).size(), words(truth).size());
    QVERIFY(words(truth).size() <= 4);
    contexts.insert(it.context);
  }
  QCOMPARE(contexts.size(), size_t(4));
}

void TestReport::shuffledDistractorsArePermutationsOfTheTruth() {
  std::vector<gb::data::Document> d;
  for (int i = 0; i < 20; ++i) {
    d.push_back(
        {fmt::format("the {} cat sat on the warm mat near the old red door of house {}", i, i * 3),
         std::to_string(i)});
  }
  // A passage whose continuation has too few distinct word orders gives no item.
  d.push_back({"alpha beta gamma delta epsilon same same same same same", "repetitive"});
  gb::data::ClozeOptions o;
  o.items = 100;
  o.distractors = "shuffled";
  o.max_continuation_words = 5;
  auto items = gb::data::make_cloze_task(d, o);
  QCOMPARE(items.size(), size_t(20));
  for (const auto& it : items) {
    QVERIFY(it.source != "repetitive");
    auto truth = words(it.choices[static_cast<size_t>(it.answer)]);
    std::sort(truth.begin(), truth.end());
    std::set<std::string> distinct(it.choices.begin(), it.choices.end());
    QCOMPARE(distinct.size(), it.choices.size());
    for (const auto& c : it.choices) {
      auto w = words(c);
      std::sort(w.begin(), w.end());
      QVERIFY(w == truth);
    }
  }
  const std::string e = gb::test::error_of([&] {
    gb::data::cloze_options_from_json(Json{{"distractors", "random"}}, "t.cloze");
  });
  QVERIFY2(e.find("passages or shuffled") != std::string::npos, e.c_str());
}

void TestReport::clozeIsDeterministicBySeed() {
  std::vector<gb::data::Document> d;
  for (int i = 0; i < 60; ++i) {
    d.push_back({fmt::format("document {} has words alpha{} beta{} gamma{} delta{} epsilon{} "
                             "zeta{} eta{} theta{}",
                             i, i, i * 3, i * 7, i + 11, i * 13, i + 5, i * 2, i + 9),
                 std::to_string(i)});
  }
  gb::data::ClozeOptions o;
  o.items = 30;
  auto a = gb::data::make_cloze_task(d, o);
  auto b = gb::data::make_cloze_task(d, o);
  QCOMPARE(a.size(), size_t(30));
  for (size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(qs(a[i].context), qs(b[i].context));
    QCOMPARE(a[i].answer, b[i].answer);
    QVERIFY(a[i].choices == b[i].choices);
  }
  o.seed = 1;
  auto c = gb::data::make_cloze_task(d, o);
  int same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i].context == c[i].context ? 1 : 0;
  QVERIFY(same < 10);
  // The answer positions are spread over the choices.
  std::set<int> answers;
  for (const auto& it : a) answers.insert(it.answer);
  QCOMPARE(answers.size(), size_t(3));
}

void TestReport::clozeRefusesACorpusTooSmall() {
  auto d = docs({"one two three four five six seven eight", "tiny", "also tiny"});
  gb::data::ClozeOptions o;
  const std::string e = gb::test::error_of([&] { gb::data::make_cloze_task(d, o); });
  QVERIFY2(e.find("1 usable documents") != std::string::npos, e.c_str());
  QVERIFY2(e.find("3 choices") != std::string::npos, e.c_str());
  const std::string e2 = gb::test::error_of([&] {
    gb::data::cloze_options_from_json(Json{{"choices", 1}}, "task x.cloze");
  });
  QVERIFY2(e2.find("task x.cloze.choices") != std::string::npos, e2.c_str());
  const std::string e3 = gb::test::error_of([&] {
    gb::data::cloze_options_from_json(Json{{"itmes", 3}}, "task x.cloze");
  });
  QVERIFY2(e3.find("itmes") != std::string::npos, e3.c_str());
}

namespace {

std::string write_corpus(const std::string& dir, int n) {
  fs::create_directories(dir);
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += fmt::format(
        "fortune number {} says that word{} and word{} lead to word{} after "
        "word{} in the end\n%\n",
        i, i, i * 7 + 1, i * 3 + 2, i + 40);
  }
  const std::string path = dir + "/sayings";
  gb::write_file_atomic(path, text);
  gb::write_file_atomic(path + ".dat", "");
  return path;
}

}  // namespace

void TestReport::clozeTaskInASpecAndItsTestVersion() {
  const std::string corpus = write_corpus(m_dir + "/corpus-spec", 80);
  Json spec = {{"version", 1},
               {"name", "t"},
               {"model", "/nonexistent"},
               {"data",
                {{"new", {{"train", corpus}}},
                 {"tasks",
                  {{{"name", "c"},
                    {"kind", "mc"},
                    {"cloze",
                     {{"source", {{"path", corpus}, {"part", "validation"}, {"heldout", 0.5}}},
                      {"items", 7}}},
                    {"test",
                     {{"cloze",
                       {{"source", {{"path", corpus}, {"part", "test"}, {"heldout", 0.5}}},
                        {"items", 9}}}}}}}}}}};
  auto s = ex::parse_spec(spec);
  QCOMPARE(s.tasks.size(), size_t(1));
  QVERIFY(s.tasks[0].is_cloze());
  QVERIFY(s.tasks[0].test);
  QVERIFY(s.tasks[0].test->is_cloze());
  QCOMPARE(s.tasks[0].cloze["items"].get<int64_t>(), int64_t(7));
  QCOMPARE(s.tasks[0].test->cloze["items"].get<int64_t>(), int64_t(9));
  // The stored form parses to the same task (resume and sweeps re-read it).
  auto again = ex::parse_spec(s.raw);
  QCOMPARE(qs(again.tasks[0].to_json().dump()), qs(s.tasks[0].to_json().dump()));
  // Errors name the key.
  Json bad = spec;
  bad["data"]["tasks"][0]["path"] = "x.jsonl";
  std::string e = gb::test::error_of([&] { ex::parse_spec(bad); });
  QVERIFY2(e.find("either 'path'") != std::string::npos, e.c_str());
  bad = spec;
  bad["data"]["tasks"][0]["kind"] = "lm";
  e = gb::test::error_of([&] { ex::parse_spec(bad); });
  QVERIFY2(e.find("'cloze' builds multiple-choice tasks") != std::string::npos, e.c_str());
  bad = spec;
  bad["data"]["tasks"][0]["test"]["bogus"] = 1;
  e = gb::test::error_of([&] { ex::parse_spec(bad); });
  QVERIFY2(e.find("tasks[0].test") != std::string::npos && e.find("bogus") != std::string::npos,
           e.c_str());
}

void TestReport::validationAndTestHalvesAreDisjoint() {
  const std::string corpus = write_corpus(m_dir + "/corpus-halves", 101);
  auto part = [&](const char* p) {
    auto src = ex::parse_source(Json{{"path", corpus}, {"part", p}, {"heldout", 0.4}}, "", "s");
    std::set<std::string> out;
    for (const auto& d : ex::source_documents(src, 3)) out.insert(d.text);
    return out;
  };
  const auto train = part("train"), held = part("heldout"), val = part("validation"),
             test = part("test");
  QCOMPARE(held.size(), size_t(40));
  QCOMPARE(val.size() + test.size(), held.size());
  QCOMPARE(val.size(), size_t(20));
  for (const auto& t : val) {
    QVERIFY(!test.count(t));
    QVERIFY(!train.count(t));
    QVERIFY(held.count(t));
  }
  for (const auto& t : test) QVERIFY(!train.count(t) && held.count(t));
  const std::string e = gb::test::error_of([&] {
    ex::parse_source(Json{{"path", corpus}, {"part", "valid"}}, "", "s");
  });
  QVERIFY2(e.find("validation or test") != std::string::npos, e.c_str());
}

void TestReport::makeTaskWritesTheEvaluatorsFormat() {
  const std::string corpus = write_corpus(m_dir + "/corpus-cli", 50);
  const std::string out = m_dir + "/task.jsonl";
  auto [code, text] = run_cli({"make-task", qs(corpus), "--out", qs(out), "--items", "12",
                               "--choices", "4", "--seed", "3", "--json"});
  QVERIFY2(code == 0, text.constData());
  auto j = Json::parse(text.toStdString().substr(0, text.indexOf('\n')));
  QCOMPARE(j["items"].get<int>(), 12);
  auto items = gb::data::read_mc_jsonl(out);
  QCOMPARE(items.size(), size_t(12));
  for (const auto& it : items) QCOMPARE(it.choices.size(), size_t(4));
  // The same seed gives the same file; the library function gives the same items.
  const std::string out2 = m_dir + "/task2.jsonl";
  std::tie(code, text) = run_cli({"make-task", qs(corpus), "--out", qs(out2), "--items", "12",
                                  "--choices", "4", "--seed", "3"});
  QCOMPARE(code, 0);
  QCOMPARE(gb::read_file(out), gb::read_file(out2));
  // Usage and data errors.
  std::tie(code, text) = run_cli({"make-task", qs(corpus), "--out", qs(out2), "--choices", "1"});
  QCOMPARE(code, 2);
  std::tie(code, text) = run_cli({"make-task", qs(m_dir + "/nothing-here"), "--out", qs(out2)});
  QCOMPARE(code, 1);
}

void TestReport::claimVerdicts_data() {
  QTest::addColumn<QString>("condition");
  QTest::addColumn<QString>("verdict");
  // A: acc 0.80 → {0.70, 0.72, 0.74} (change −0.10, −0.08, −0.06); B: 0.80 → {0.79, 0.80,
  // 0.81} (change −0.01, 0, +0.01); C: one run only.
  QTest::newRow("less holds beyond the spread")
      << R"({"kind":"less","metric":"eval/x/acc","a":"A","b":"B"})"
      << "holds";
  QTest::newRow("greater does not hold beyond the spread")
      << R"({"kind":"greater","metric":"eval/x/acc","a":"A","b":"B"})"
      << "does not hold";
  QTest::newRow("change below zero holds")
      << R"({"kind":"less","metric":"eval/x/acc","of":"change","a":"A","value":0})"
      << "holds";
  QTest::newRow("within the spread is inconclusive")
      << R"({"kind":"less","metric":"eval/x/acc","of":"change","a":"B","value":0})"
      << "inconclusive";
  QTest::newRow("near holds within the tolerance")
      << R"({"kind":"near","metric":"eval/x/acc","of":"change","a":"B","value":0,"tolerance":0.02})"
      << "holds";
  QTest::newRow("near fails beyond tolerance and spread")
      << R"({"kind":"near","metric":"eval/x/acc","of":"change","a":"A","value":0,"tolerance":0.02})"
      << "does not hold";
  QTest::newRow("near inconclusive between")
      << R"({"kind":"near","metric":"eval/x/acc","of":"change","a":"A","value":0,"tolerance":0.065})"
      << "inconclusive";
  QTest::newRow("one run cannot tell the spread")
      << R"({"kind":"less","metric":"eval/x/acc","a":"C","b":"B"})"
      << "inconclusive";
  QTest::newRow("unknown plan is inconclusive")
      << R"({"kind":"less","metric":"eval/x/acc","a":"Nope","b":"B"})"
      << "inconclusive";
}

void TestReport::claimVerdicts() {
  QFETCH(QString, condition);
  QFETCH(QString, verdict);
  const std::string db = fmt::format("{}/claims-{}.db", m_dir, QTest::currentDataTag());
  Store store = Store::open(db);
  for (int s = 0; s < 3; ++s) {
    add_run(store, "g", "A", s, {{"eval/x/acc", {0.80, 0.70 + 0.02 * s}}});
    add_run(store, "g", "B", s, {{"eval/x/acc", {0.80, 0.79 + 0.01 * s}}});
  }
  add_run(store, "g", "C", 0, {{"eval/x/acc", {0.80, 0.50}}});
  Json rj = {{"claims",
              {{{"id", "c"},
                {"text", "t"},
                {"all", Json::array({Json::parse(condition.toStdString())})}}}}};
  auto spec = ex::parse_report_spec(rj, "report");
  auto methods = ex::group_methods(store, "g");
  auto r = ex::evaluate_claim(store, methods, spec.claims[0]);
  QVERIFY2(qs(r.verdict) == verdict, r.rule.c_str());
}

void TestReport::evidenceIsRecomputableFromTheStore() {
  Store store = Store::open(m_dir + "/evidence.db");
  std::vector<int64_t> a, b;
  for (int s = 0; s < 3; ++s) {
    a.push_back(add_run(store, "g", "A", s, {{"test/orig/ppl", {10, 12.0 + s}}}));
    b.push_back(add_run(store, "g", "B", s, {{"test/orig/ppl", {10, 10.2 + 0.1 * s}}}));
  }
  Json rj = {{"claims",
              {{{"id", "forgets-less"},
                {"text", "B forgets less"},
                {"all",
                 {{{"kind", "less"},
                   {"metric", "test/orig/ppl"},
                   {"of", "relative_change"},
                   {"a", "B"},
                   {"b", "A"}}}}}}}};
  auto spec = ex::parse_report_spec(rj, "report");
  auto r = ex::evaluate_claim(store, ex::group_methods(store, "g"), spec.claims[0]);
  QCOMPARE(qs(r.verdict), QString("holds"));
  auto j = r.to_json();
  QCOMPARE(j["evidence"].size(), size_t(4));  // start and final of B and of A
  for (const auto& e : j["evidence"]) {
    // Recompute the mean and std from the metrics table of the listed runs.
    std::vector<double> v;
    for (const auto& id : e["run_ids"]) {
      auto rows = store.metric_rows(id.get<int64_t>(), {{e["metric"].get<std::string>()}, {}});
      QVERIFY(!rows.empty());
      v.push_back(e["step"] == "final" ? rows.back().value : rows.front().value);
      if (e["step"] != "final") QCOMPARE(rows.front().step, e["step"].get<int64_t>());
    }
    double mean = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    double sq = 0;
    for (double x : v) sq += (x - mean) * (x - mean);
    QVERIFY(std::fabs(mean - e["mean"].get<double>()) < 1e-12);
    QVERIFY(std::fabs(std::sqrt(sq / (v.size() - 1)) - e["std"].get<double>()) < 1e-12);
  }
  QVERIFY(r.rule.find("relative change of test/orig/ppl") != std::string::npos);
}

void TestReport::unfinishedRunsAndSweepsAreNotCompared() {
  Store store = Store::open(m_dir + "/unfinished.db");
  for (int s = 0; s < 2; ++s) {
    add_run(store, "g", "A", s, {{"eval/x/acc", {0.5, 0.4}}});
    add_run(store, "g", "B", s, {{"eval/x/acc", {0.5, 0.6}}});
  }
  // An interrupted run with only its step-0 value is not counted as perfect.
  const int64_t partial = add_run(store, "g", "A", 9, {}, gb::store::RunStatus::Interrupted);
  auto methods = ex::group_methods(store, "g");
  QCOMPARE(methods.size(), size_t(2));
  QCOMPARE(methods[0].runs.size(), size_t(2));
  QCOMPARE(methods[0].unfinished, std::vector<int64_t>{partial});
  // Two learning rates of one plan (a sweep group): no verdict over mixed configurations.
  gb::store::NewRun nr;
  nr.name = "B other lr";
  nr.experiment = "g";
  nr.seed = 0;
  nr.params = {{"plan", "B"}, {"train.lr", 3e-3}, {"seed", 0}};
  const int64_t id = store.create_run(nr);
  store.set_status(id, gb::store::RunStatus::Running);
  store.set_status(id, gb::store::RunStatus::Finished);
  Json rj = {{"claims",
              {{{"id", "c"},
                {"text", "t"},
                {"all", {{{"kind", "less"}, {"metric", "eval/x/acc"}, {"a", "A"}, {"b", "B"}}}}}}}};
  auto r = ex::evaluate_claim(store, ex::group_methods(store, "g"),
                              ex::parse_report_spec(rj, "r").claims[0]);
  QCOMPARE(qs(r.verdict), QString("inconclusive"));
  QVERIFY2(r.rule.find("several configurations") != std::string::npos, r.rule.c_str());
}

void TestReport::reportSectionErrorsNameTheKey_data() {
  QTest::addColumn<QString>("section");
  QTest::addColumn<QString>("words");
  QTest::newRow("unknown key") << R"({"claimz": []})"
                               << "claimz";
  QTest::newRow("unknown metric") << R"({"columns": ["eval/bogus"]})"
                                  << "unknown metric 'eval/bogus'";
  QTest::newRow("bad kind")
      << R"({"claims":[{"id":"a","text":"t","all":[{"kind":"lower","metric":"eval/op","a":"x","value":0}]}]})"
      << "must be less, greater or near";
  QTest::newRow("neither b nor value")
      << R"({"claims":[{"id":"a","text":"t","all":[{"kind":"less","metric":"eval/op","a":"x"}]}]})"
      << "give either 'b'";
  QTest::newRow("near without tolerance")
      << R"({"claims":[{"id":"a","text":"t","all":[{"kind":"near","metric":"eval/op","a":"x","value":0}]}]})"
      << "tolerance";
  QTest::newRow("duplicate id")
      << R"({"claims":[{"id":"a","text":"t","all":[{"kind":"less","metric":"eval/op","a":"x","value":0}]},{"id":"a","text":"t","all":[{"kind":"less","metric":"eval/op","a":"x","value":0}]}]})"
      << "appears twice";
  QTest::newRow("unknown figure") << R"({"figures":[{"kind":"pie"}]})"
                                  << "unknown figure 'pie'";
}

void TestReport::reportSectionErrorsNameTheKey() {
  QFETCH(QString, section);
  QFETCH(QString, words);
  const std::string e = gb::test::error_of(
      [&] { ex::parse_report_spec(Json::parse(section.toStdString()), "spec.report"); });
  QVERIFY2(e.find(words.toStdString()) != std::string::npos, e.c_str());
  QVERIFY2(e.find("spec.report") != std::string::npos, e.c_str());
}

void TestReport::reportCommandWritesHtmlAndJson() {
  const std::string db = m_dir + "/report-cli.db";
  {
    Store store = Store::open(db);
    Json spec = {
        {"name", "hand"},
        {"report",
         {{"paper", "p.txt"},
          {"claim", "A learns <more> & forgets less"},
          {"columns", {"eval/x/acc"}},
          {"claims",
           {{{"id", "a-better"},
             {"text", "A beats B"},
             {"all", {{{"kind", "greater"}, {"metric", "eval/x/acc"}, {"a", "A"}, {"b", "B"}}}}}}},
          {"figures",
           {{{"kind", "curves"}, {"metric", "eval/x/acc"}},
            {{"kind", "bars"}, {"metric", "eval/x/acc"}},
            {{"kind", "tradeoff"}, {"x", "eval/x/acc"}, {"y", "eval/x/acc"}},
            {{"kind", "probe-layers"}, {"method", "masking"}}}}}}};
    for (int s = 0; s < 3; ++s) {
      for (const char* plan : {"A", "B"}) {
        gb::store::NewRun nr;
        nr.name = fmt::format("{} {}", plan, s);
        nr.experiment = "grp";
        nr.seed = s;
        nr.spec = spec.dump();
        nr.params = {{"plan", plan}, {"seed", s}};
        const int64_t id = store.create_run(nr);
        auto w = store.metrics_writer();
        w.add(id, 0, "eval/x/acc", 0.5);
        w.add(id, 100, "eval/x/acc", plan[0] == 'A' ? 0.8 + 0.01 * s : 0.6 + 0.01 * s);
        w.flush();
        store.set_status(id, gb::store::RunStatus::Running);
        store.set_status(id, gb::store::RunStatus::Finished);
      }
    }
  }
  const std::string html = m_dir + "/r.html", js = m_dir + "/r.json";
  auto [code, text] =
      run_cli({"report", "grp", "--db", qs(db), "--out", qs(html), "--json", qs(js)});
  QVERIFY2(code == 0, text.constData());
  QVERIFY(text.contains("holds"));
  auto j = gb::json::parse_file(js);
  QCOMPARE(qs(j["experiment"].get<std::string>()), QString("hand"));
  QCOMPARE(j["claims"].size(), size_t(1));
  const auto& c = j["claims"][0];
  for (const char* k : {"id", "text", "verdict", "evidence", "rule"}) QVERIFY(c.contains(k));
  QCOMPARE(qs(c["verdict"].get<std::string>()), QString("holds"));
  QCOMPARE(c["evidence"].size(), size_t(2));
  for (const auto& e : c["evidence"]) {
    for (const char* k : {"run_ids", "metric", "step", "mean", "std"}) QVERIFY(e.contains(k));
  }
  QCOMPARE(j["figures"].size(), size_t(4));
  const std::string page = gb::read_file(html);
  QVERIFY(page.rfind("<!DOCTYPE html>", 0) == 0);
  QVERIFY(page.find("<svg") != std::string::npos);
  QVERIFY(page.find("A learns &lt;more&gt; &amp; forgets less") != std::string::npos);
  QVERIFY(page.find("http://") == std::string::npos ||
          page.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  QVERIFY(page.find("<script") == std::string::npos);
  QVERIFY(page.find("no &#39;masking&#39; probe was recorded") != std::string::npos);
  // A group that does not exist is a usage error; a store that does not exist an error.
  std::tie(code, text) = run_cli({"report", "nope", "--db", qs(db), "--out", qs(html)});
  QCOMPARE(code, 2);
  std::tie(code, text) =
      run_cli({"report", "grp", "--db", qs(m_dir + "/missing.db"), "--out", qs(html)});
  QCOMPARE(code, 1);
}

void TestReport::smokeSpecIsSmallAndKeepsTheStructure() {
  const std::string path = std::string(GB_SOURCE_DIR) + "/resources/experiments/papers/grow.json";
  const Json full = gb::json::parse_file(path);
  const Json s = ex::smoke_spec(full);
  QCOMPARE(qs(s["name"].get<std::string>()), QString("grow-smoke"));
  QCOMPARE(s["seeds"].size(), size_t(1));
  QVERIFY(s["train"]["steps"].get<int>() <= 6);
  QVERIFY(s["train"]["batch_size"].get<int>() <= 2);
  QVERIFY(s["train"]["seq_len"].get<int>() <= 64);
  QVERIFY(s["eval"]["tokens"].get<int>() <= 512);
  for (const auto& st : s["model"]["stages"]) {
    QVERIFY(st["steps"].get<int>() <= 10);
    QVERIFY(st["batch_size"].get<int>() <= 4);
    QVERIFY(st["seq_len"].get<int>() <= 64);
  }
  for (const auto& t : s["data"]["tasks"]) QVERIFY(t["cloze"]["items"].get<int>() <= 12);
  QCOMPARE(s["plans"].size(), full["plans"].size());
  QCOMPARE(s["report"].dump(), full["report"].dump());
  for (const auto& p : s["plans"]) {
    QVERIFY(!p.contains("sweep"));
    if (p.contains("train")) QVERIFY(!p["train"].contains("steps"));
  }
  auto spec = ex::load_spec_for(path, true);
  const auto runs = ex::expand_runs(spec);
  QCOMPARE(runs.size(), full["plans"].size());
  // Each run's resolved spec keeps the top-level train and eval sections.
  for (const auto& r : runs) {
    QCOMPARE(r.spec["train"]["steps"].get<int>(), 6);
    QCOMPARE(r.spec["eval"]["interval"].get<int>(), 3);
    QCOMPARE(ex::parse_spec(r.spec).train.steps, int64_t(6));
  }
  // A claim read at a step of the run (SCALE's "step": 50 of 300) is read at the smoke run's
  // first evaluation after step 0 (3 of 6), where the smoke run has a value.
  const Json scale = ex::smoke_spec(gb::json::parse_file(
      std::string(GB_SOURCE_DIR) + "/resources/experiments/papers/scale.json"));
  int stepped = 0;
  for (const auto& c : scale["report"]["claims"]) {
    for (const auto& cond : c["all"]) {
      if (!cond.contains("step")) continue;
      QCOMPARE(cond["step"].get<int>(), 3);
      ++stepped;
    }
  }
  QVERIFY(stepped > 0);
}

void TestReport::paperSpecsParseAndTheirClaimsNamePlans_data() {
  QTest::addColumn<QString>("name");
  for (const char* n : {"grow", "scale", "neutral-residues", "adept", "mh-moe"}) {
    QTest::newRow(n) << n;
  }
}

void TestReport::paperSpecsParseAndTheirClaimsNamePlans() {
  QFETCH(QString, name);
  const std::string path =
      std::string(GB_SOURCE_DIR) + "/resources/experiments/papers/" + name.toStdString() + ".json";
  auto spec = ex::load_spec(path);
  auto runs = ex::expand_runs(spec);
  QVERIFY(!runs.empty());
  std::set<std::string> labels;
  for (const auto& r : runs) labels.insert(r.params.at("plan").get<std::string>());
  const Json j = gb::json::parse_file(path);
  QVERIFY(j["seeds"].size() >= 3);
  auto rs = ex::parse_report_spec(j["report"], "report");
  QVERIFY(!rs.claims.empty());
  QVERIFY(!rs.paper.empty());
  QVERIFY(fs::exists(std::string(GB_SHARED_DIR) + "/papers/" + rs.paper));
  for (const auto& c : rs.claims) {
    for (const auto* list : {&c.all, &c.matched}) {
      for (const auto& cond : *list) {
        QVERIFY2(labels.count(cond.a), cond.a.c_str());
        if (!cond.b.empty()) QVERIFY2(labels.count(cond.b), cond.b.c_str());
      }
    }
  }
  if (!rs.protocol.defined) return;
  // Both views: every plan has runs at the paper's protocol (its grid holds the protocol's
  // rate), and the matched view has a front to read (some plan over several rates).
  auto selected = [&](const std::string& plan, const std::map<std::string, Json>& params) {
    for (const auto& [key, by_plan] : rs.protocol.runs) {
      auto w = by_plan.count(plan) ? by_plan.at(plan) : by_plan.count("*") ? by_plan.at("*") : Json();
      if (w.is_null()) continue;
      auto h = params.find(key);
      if (h == params.end() || std::fabs(h->second.get<double>() - w.get<double>()) > 1e-12) {
        return false;
      }
    }
    return true;
  };
  std::map<std::string, int> protocol_runs, rates;
  std::map<std::string, std::set<double>> lrs;
  for (const auto& r : runs) {
    const std::string plan = r.params.at("plan").get<std::string>();
    if (selected(plan, r.params)) ++protocol_runs[plan];
    lrs[plan].insert(r.params.at("train.lr").get<double>());
  }
  for (const auto& l : labels) {
    QVERIFY2(protocol_runs[l] == static_cast<int>(j["seeds"].size()), l.c_str());
  }
  QVERIFY(rs.matched.defined);
  for (const auto& c : rs.claims) {
    for (const auto& cond : c.matched) QVERIFY2(lrs[cond.a].size() >= 2, cond.a.c_str());
  }
}

void TestReport::svgEscapesText() {
  QCOMPARE(qs(gb::svg::escape("a<b & \"c\"")), QString("a&lt;b &amp; &quot;c&quot;"));
  gb::svg::Axes a;
  a.title = "<x>";
  const std::string s = gb::svg::line_chart({{"s&1", {0, 1}, {1, NAN}, {}, {}}}, a);
  QVERIFY(s.find("&lt;x&gt;") != std::string::npos);
  QVERIFY(s.find("s&amp;1") != std::string::npos);
  QVERIFY(s.find("nan") == std::string::npos);
}

void TestReport::svgGridIsOneDocument() {
  gb::svg::Axes a;
  a.width = 300;
  a.height = 200;
  gb::svg::Heatmap h;
  h.rows = {"r"};
  h.cols = {"c"};
  h.values = {{0.5}};
  std::vector<std::string> panels;
  for (int i = 0; i < 3; ++i) {
    a.title = "panel " + std::to_string(i);
    panels.push_back(gb::svg::heatmap(h, a));
  }
  // Three documents side by side are not one document; the grid is.
  QVERIFY(!svg_document_error(panels[0] + panels[1]).empty());
  const std::string g = gb::svg::grid(panels, 2);
  QVERIFY2(svg_document_error(g).empty(), svg_document_error(g).c_str());
  for (int i = 0; i < 3; ++i) QVERIFY(g.find("panel " + std::to_string(i)) != std::string::npos);
  // Two columns, two rows, each panel at its own place.
  const int w = std::stoi(panels[0].substr(panels[0].find("width=\"") + 7));
  const int hh = std::stoi(panels[0].substr(panels[0].find("height=\"") + 8));
  QVERIFY(g.find(fmt::format("width=\"{}\" height=\"{}\"", 2 * w, 2 * hh)) != std::string::npos);
  QVERIFY(g.find(fmt::format("<svg x=\"{}\" y=\"0\"", w)) != std::string::npos);
  QVERIFY(g.find(fmt::format("<svg x=\"0\" y=\"{}\"", hh)) != std::string::npos);
  QCOMPARE(qs(gb::svg::grid({panels[0]}, 2)), qs(panels[0]));
}

void TestReport::paperSmokeRunsGiveACompleteReport_data() {
  QTest::addColumn<QString>("name");
  for (const char* n : {"grow", "scale", "neutral-residues", "adept", "mh-moe"}) {
    QTest::newRow(n) << n;
  }
}

// The pipeline of each paper experiment, end to end on its smoke version (a few steps, one
// seed): every run finishes, the report names every claim of the spec with a verdict, the
// evidence has the contract's fields, and every figure the spec asks for is drawn.
void TestReport::paperSmokeRunsGiveACompleteReport() {
  QFETCH(QString, name);
  const QString spec =
      QString::fromStdString(std::string(GB_SOURCE_DIR) + "/resources/experiments/papers/") + name +
      ".json";
  const QString db = QString::fromStdString(m_dir + "/papers-smoke.db");
  auto [code, text] = run_cli({"run", spec, "--smoke", "--db", db, "--quiet"});
  QVERIFY2(code == 0, text.right(3000).constData());
  const QString html = QString::fromStdString(m_dir) + "/" + name + ".html";
  const QString js = QString::fromStdString(m_dir) + "/" + name + ".json";
  std::tie(code, text) =
      run_cli({"report", spec, "--smoke", "--db", db, "--out", html, "--json", js});
  QVERIFY2(code == 0, text.right(3000).constData());
  const Json full = gb::json::parse_file(spec.toStdString());
  const Json j = gb::json::parse_file(js.toStdString());
  QCOMPARE(qs(j["experiment"].get<std::string>()), name + "-smoke");
  QCOMPARE(j["claims"].size(), full["report"]["claims"].size());
  for (size_t i = 0; i < j["claims"].size(); ++i) {
    const auto& c = j["claims"][i];
    QCOMPARE(c["id"], full["report"]["claims"][i]["id"]);
    const std::string v = c["verdict"].get<std::string>();
    QVERIFY(v == "holds" || v == "does not hold" || v == "inconclusive");
    QVERIFY(!c["rule"].get<std::string>().empty());
    QVERIFY2(!c["evidence"].empty(), c.dump().c_str());
    for (const auto& e : c["evidence"]) {
      QVERIFY(!e["run_ids"].empty());
      // A condition at a named step reads the smoke run's evaluation at that fraction.
      QVERIFY2(e["step"] == "final" || e["step"] == "matched" ||
                   (e["step"].is_number_integer() && e["step"].get<int>() <= 6),
               e.dump().c_str());
      QVERIFY2(e["mean"].is_number(), e.dump().c_str());
    }
  }
  QCOMPARE(j["figures"].size(), full["report"]["figures"].size());
  for (const auto& f : j["figures"]) {
    const std::string note = f.value("note", std::string());
    QVERIFY2(note.find("could not be drawn") == std::string::npos, f.dump().c_str());
    QVERIFY2(!f["svg"].get<std::string>().empty(), (f["kind"].dump() + " " + note).c_str());
    // Each figure is one SVG document (docs/reproductions/ writes it to a file as it is).
    const std::string bad = svg_document_error(f["svg"].get<std::string>());
    QVERIFY2(bad.empty(), (f["kind"].dump() + ": " + bad).c_str());
  }
  for (const auto& m : j["methods"]) QVERIFY2(m["unfinished"].empty(), m.dump().c_str());
}

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
