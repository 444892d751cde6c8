// The experiment spec's one declaration (core/experiment/spec_schema.cpp, util/schema.h):
// every shipped spec holds only declared keys; every declared key is documented (the key
// tables of docs/experiments.md are generated from it and compared here); its defaults equal
// the spec structs' and what parse_spec fills in; an unknown key anywhere names its full path
// and the nearest known key, and growbench-cli exits 2 for it.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "data/biography.h"
#include "data/cloze.h"
#include "data/corpus.h"
#include "experiment/spec.h"
#include "experiment/spec_schema.h"
#include "experiment/suggest.h"
#include "grow/plan_schema.h"
#include "grow/variant.h"
#include "importance/probe_options.h"
#include "test_util.h"
#include "util/json.h"
#include "util/schema.h"

using Json = nlohmann::json;
namespace fs = std::filesystem;
namespace ex = gb::experiment;
using gb::test::error_of;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::vector<std::string> shipped_specs() {
  std::vector<std::string> out;
  const fs::path root = fs::path(GB_SOURCE_DIR) / "resources/experiments";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The scalar settings of a spec by their schema paths.
Json values_of(const ex::ExperimentSpec& s) {
  Json v;
  v["version"] = s.version;
  v["name"] = s.name;
  v["seed"] = s.seed;
  v["device"] = s.device;
  v["dtype"] = s.dtype;
  v["frozen_dtype"] = s.frozen_dtype;
  v["threads"] = s.threads;
  const ex::TrainSpec& t = s.train;
  v["train.steps"] = t.steps;
  v["train.seq_len"] = t.seq_len;
  v["train.batch_size"] = t.batch_size;
  v["train.accumulation"] = t.accumulation;
  v["train.lr"] = t.lr;
  v["train.schedule"] = t.schedule;
  v["train.warmup"] = t.warmup;
  v["train.min_lr_ratio"] = t.min_lr_ratio;
  v["train.weight_decay"] = t.weight_decay;
  v["train.clip"] = t.clip;
  v["train.beta1"] = t.beta1;
  v["train.beta2"] = t.beta2;
  v["train.eps"] = t.eps;
  v["train.replay"] = t.replay;
  v["train.replay_mode"] = t.replay_mode;
  v["train.diverge_factor"] = t.diverge_factor;
  v["train.row_shards"] = t.row_shards;
  v["train.ce_chunk"] = t.ce_chunk < 0 ? Json("auto") : Json(t.ce_chunk);
  v["train.checkpointing"] = t.checkpointing;
  const ex::EvalSpec& e = s.eval;
  v["eval.interval"] = e.interval;
  v["eval.tokens"] = e.tokens;
  v["eval.batch_size"] = e.batch_size;
  v["eval.drift"] = e.drift;
  v["eval.max_items"] = e.max_items;
  v["eval.exact_match"] = e.exact_match;
  v["eval.test"] = e.test;
  const Json probe = gb::importance::to_json(s.probe.options);
  for (const char* k : {"method", "masking_mode", "fisher_mode", "steps", "lr", "snapshot_every",
                        "reference", "checkpointing"}) {
    v[std::string("probe.") + k] = probe.at(k);
  }
  v["probe.tokens"] = s.probe.tokens;
  v["probe.batch_size"] = s.probe.batch_size;
  v["probe.seq_len"] = s.probe.seq_len;
  v["adept.unit_lr"] = s.adept.unit_lr;
  v["adept.t_update"] = s.adept.t_update;
  v["adept.method"] = s.adept.method;
  v["checkpoint.interval"] = s.checkpoint_interval;
  v["guard.metric"] = s.guard.metric;
  v["guard.max_increase"] = s.guard.max_increase;
  v["guard.action"] = s.guard.action;
  return v;
}

// The other defaults the declaration states, from the structs that hold them.
Json other_defaults() {
  Json v;
  const gb::data::CorpusSpec corpus;
  const Json cj = gb::data::corpus_spec_to_json(corpus);
  for (const char* k : {"format", "field", "unit", "recursive", "strip_overstrike", "min_chars"}) {
    v[std::string("SOURCE.") + k] = cj.at(k);
  }
  const ex::DataSource src;
  v["SOURCE.part"] = src.part;
  v["SOURCE.max_docs"] = src.max_docs;
  v["SOURCE.max_tokens"] = src.max_tokens;
  v["SOURCE.mask_prompt"] = src.mask_prompt;
  const gb::data::BiographyOptions bio;
  v["SOURCE.biography.seed"] = bio.seed;
  v["SOURCE.biography.num_people"] = bio.num_people;
  v["SOURCE.biography.bios_per_person"] = bio.bios_per_person;
  v["SOURCE.biography.pretrain_fraction"] = bio.pretrain_fraction;
  v["SOURCE.biography.task0_train_fraction"] = bio.task0_train_fraction;
  v["SOURCE.biography.task1_fraction"] = bio.task1_fraction;
  const Json cloze = gb::data::to_json(gb::data::ClozeOptions{});
  for (auto it = cloze.begin(); it != cloze.end(); ++it) {
    v["TASK.cloze." + it.key()] = *it;
    v["TASK.test.cloze." + it.key()] = *it;
  }
  v["TASK.max_items"] = ex::TaskSpec{}.max_items;
  v["sequence[].steps"] = ex::SequenceStep{}.steps;
  v["model.tokenizer.vocab_size"] = ex::PresetSpec{}.vocab_size;
  const ex::SuggestOptions so;
  v["suggest.budget.forgetting"] = so.forgetting_budget;
  v["suggest.budget.params"] = so.params_budget;
  v["suggest.time"] = so.time_s;
  v["suggest.rates"] = so.rates;
  v["suggest.variants"] = so.variants;
  v["suggest.policies"] = so.policies;
  v["suggest.eta"] = so.eta;
  v["suggest.steps"] = so.steps;
  v["suggest.min_rung_steps"] = so.min_rung_steps;
  v["suggest.max_candidates"] = so.max_candidates;
  const gb::grow::EwcOptions ewc;
  v["PLAN.ewc.mode"] = ewc.mode;
  v["PLAN.ewc.gamma"] = ewc.gamma;
  return v;
}

bool same_value(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

}  // namespace

class TestSchema : public QObject {
  Q_OBJECT
 private slots:
  void shippedSpecsHoldOnlyDeclaredKeys();
  void everyKeyIsDocumentedAndTheTablesAreGenerated();
  void theFormsStringsReachTheTranslators();
  void defaultsEqualTheSpecStructsAndTheParser();
  void unknownKeysNameTheFullPathAndTheNearestKey_data();
  void unknownKeysNameTheFullPathAndTheNearestKey();
  void nearestKey();
  void theParsersOfOtherLayersReadTheDeclaredKeys();
  void cliListsEveryKeyAndExitsTwoOnAnUnknownOne();
};

void TestSchema::shippedSpecsHoldOnlyDeclaredKeys() {
  const auto specs = shipped_specs();
  QVERIFY(specs.size() >= 10);
  const auto& schema = ex::spec_schema();
  for (const auto& path : specs) {
    const Json j = gb::json::parse_file(path);
    QVERIFY2(j.is_object(), path.c_str());
    const std::string err = error_of([&] { gb::schema::check_keys(j, schema, "spec"); });
    QVERIFY2(err == "NO ERROR", (path + ": " + err).c_str());
    // And the parser reads it (the same check, then the values).
    const std::string perr = error_of([&] { ex::load_spec(path); });
    QVERIFY2(perr == "NO ERROR", (path + ": " + perr).c_str());
  }
  // The shipped preset's resolved model section is a declared model.
  for (const auto& e : fs::directory_iterator(fs::path(GB_SOURCE_DIR) / "resources/presets")) {
    const fs::path f = e.path() / "preset.json";
    if (!fs::exists(f)) continue;
    const Json p = gb::json::parse_file(f.string());
    const std::string err = error_of(
        [&] { gb::schema::check_keys(p.at("preset"), ex::spec_key("model"), schema, "model"); });
    QVERIFY2(err == "NO ERROR", (f.string() + ": " + err).c_str());
  }
}

void TestSchema::everyKeyIsDocumentedAndTheTablesAreGenerated() {
  // docs/experiments.md embeds each section's table between <!-- keys:SECTION --> and
  // <!-- /keys:SECTION --> (SECTION "top" for the top level). GB_UPDATE_DOCS=1 rewrites them
  // from the schema. A PLAN's variant keys are documented in docs/plans.md (tst_variants).
  const std::string path = std::string(GB_SOURCE_DIR) + "/docs/experiments.md";
  std::string doc = read_text(path);
  QVERIFY(!doc.empty());
  const bool update = qEnvironmentVariableIsSet("GB_UPDATE_DOCS");
  const auto entries = gb::schema::flatten(ex::spec_schema());
  for (const auto& section : gb::schema::sections(entries)) {
    const std::string name = section.empty() ? "top" : section;
    const std::string open = "<!-- keys:" + name + " -->\n";
    const std::string close = "<!-- /keys:" + name + " -->";
    const size_t a = doc.find(open);
    QVERIFY2(a != std::string::npos, ("docs/experiments.md lacks " + open).c_str());
    const size_t body = a + open.size();
    const size_t b = doc.find(close, body);
    QVERIFY2(b != std::string::npos, close.c_str());
    const std::string want = gb::schema::markdown_table(entries, section);
    if (update) {
      doc.replace(body, b - body, want);
    } else {
      QVERIFY2(doc.substr(body, b - body) == want,
               ("docs/experiments.md: the table of '" + name +
                "' differs from the schema; run GB_UPDATE_DOCS=1 build/tests/tst_schema")
                   .c_str());
    }
  }
  if (update) {
    std::ofstream out(path, std::ios::binary);
    out << doc;
  }
  // Every key has its row: in its section's table, by its path relative to the section.
  for (const auto& e : entries) {
    if (!e.variant.empty()) continue;
    QVERIFY2(!e.key.help.empty(), (e.path + ": no help").c_str());
    std::string rel = e.path;
    for (const std::string& prefix : {e.section + "[].", e.section + "."}) {
      if (!e.section.empty() && rel.rfind(prefix, 0) == 0) {
        rel = rel.substr(prefix.size());
        break;
      }
    }
    QVERIFY2(doc.find("| `" + rel + "` |") != std::string::npos,
             ("docs/experiments.md does not document " + e.path).c_str());
  }
  // Variant keys: each variant's table in docs/plans.md names them.
  const std::string plans = read_text(std::string(GB_SOURCE_DIR) + "/docs/plans.md");
  for (const auto& e : entries) {
    if (e.variant.empty()) continue;
    QVERIFY2(plans.find("| `" + e.key.name + "` |") != std::string::npos,
             ("docs/plans.md does not document " + e.path).c_str());
  }
}

// The experiment editor's pages are generated from the declaration: every key it shows has a
// label, and the labels, help and choice labels reach the translators through
// widgets/spec_schema_strings.h (read by lupdate, never compiled), which is generated here:
// GB_UPDATE_DOCS=1 rewrites it. The variants' parameters are marked where they are declared.
void TestSchema::theFormsStringsReachTheTranslators() {
  std::vector<std::string> strings;
  std::set<std::string> seen;
  auto add = [&](const std::string& s) {
    if (!s.empty() && seen.insert(s).second) strings.push_back(s);
  };
  for (const auto& e : gb::schema::flatten(ex::spec_schema())) {
    if (!e.variant.empty()) continue;
    // The report and suggest sections have pages of their own elsewhere (or none).
    const bool shown = e.section != "report" && e.section != "suggest" && e.path != "report" &&
                       e.path != "suggest";
    if (!shown) continue;
    QVERIFY2(!e.key.label.empty(), (e.path + ": no label for the experiment editor").c_str());
    add(e.key.label);
    add(e.key.help);
    for (const auto& l : e.key.choice_labels) add(l);
    if (!e.key.choice_labels.empty()) {
      QVERIFY2(e.key.choice_labels.size() == e.key.choices.size(), e.path.c_str());
    }
  }
  QVERIFY(strings.size() > 100);
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '\\' || c == '"') q += '\\';
      q += c;
    }
    return q + "\"";
  };
  std::string want =
      "// Generated from the experiment spec's declaration (core/experiment/spec_schema.cpp,\n"
      "// grow/plan_parse.cpp's common plan keys) by tests/tst_schema.cpp: GB_UPDATE_DOCS=1\n"
      "// build/tests/tst_schema rewrites it. Not compiled: lupdate reads it, so that the labels,\n"
      "// help and choice labels the experiment editor shows (translated in the context\n"
      "// \"SpecSchema\", widgets/specfields.h) reach translations/*.ts.\n"
      "#pragma once\n\n"
      "#ifndef QT_TRANSLATE_NOOP\n"
      "#define QT_TRANSLATE_NOOP(context, text) text\n"
      "#endif\n\n"
      "namespace gb::gui::spec_schema_strings {\n\n"
      "// One generated line per string.\n"
      "// clang-format off\n"
      "inline const char* const kStrings[] = {\n";
  for (const auto& s : strings)
    want += "    QT_TRANSLATE_NOOP(\"SpecSchema\", " + quoted(s) + "),\n";
  want += "};\n// clang-format on\n\n}  // namespace gb::gui::spec_schema_strings\n";
  const std::string path = std::string(GB_SOURCE_DIR) + "/widgets/spec_schema_strings.h";
  if (qEnvironmentVariableIsSet("GB_UPDATE_DOCS")) {
    std::ofstream out(path, std::ios::binary);
    out << want;
  }
  QVERIFY2(read_text(path) == want,
           "widgets/spec_schema_strings.h differs from the schema; run GB_UPDATE_DOCS=1 "
           "build/tests/tst_schema, then lupdate and translate (translations/CMakeLists.txt)");
}

void TestSchema::defaultsEqualTheSpecStructsAndTheParser() {
  // The defaults of spec.h's structs, of parse_spec (a minimal spec filled in) and of the
  // declaration agree for every scalar key the declaration gives a default.
  const Json from_structs = values_of(ex::ExperimentSpec{});
  const Json minimal = {
      {"model", "model"}, {"data", {{"new", {{"train", "train.txt"}}}}}, {"guard", Json::object()}};
  const Json from_parser = values_of(ex::parse_spec(minimal, "/tmp", "spec"));
  const Json others = other_defaults();
  // A preset's stage as parse_spec fills it in.
  const auto preset =
      ex::parse_spec({{"model", {{"preset", "tiny-llama"}, {"stages", {{{"data", "a.txt"}}}}}},
                      {"data", {{"new", {{"train", "train.txt"}}}}}},
                     "/tmp", "spec");
  const Json stage = preset.raw.at("model").at("stages").at(0);
  int checked = 0;
  for (const auto& e : gb::schema::flatten(ex::spec_schema())) {
    if (!e.variant.empty() || e.key.default_value.is_null()) continue;
    const Json& want = e.key.default_value;
    const std::string& p = e.path;
    if (p.rfind("model.stages[].", 0) == 0) {
      const std::string k = p.substr(15);
      QVERIFY2(same_value(stage.at(k), want), (p + ": parser " + stage.at(k).dump()).c_str());
      ++checked;
      continue;
    }
    if (from_parser.contains(p)) {
      QVERIFY2(same_value(from_parser[p], want),
               (p + ": parse_spec fills in " + from_parser[p].dump() + ", the schema says " +
                want.dump())
                   .c_str());
      // guard.metric: no guard unless the section is given (then eval/orig/ppl).
      if (p != "guard.metric") {
        QVERIFY2(same_value(from_structs[p], want), (p + ": spec.h says " + from_structs[p].dump() +
                                                     ", the schema says " + want.dump())
                                                        .c_str());
      }
      ++checked;
      continue;
    }
    if (others.contains(p)) {
      QVERIFY2(same_value(others[p], want),
               (p + ": the struct says " + others[p].dump() + ", the schema says " + want.dump())
                   .c_str());
      ++checked;
      continue;
    }
    // Defaults that live in the expansion (experiment/expand.cpp) and the plan parser.
    static const std::set<std::string> elsewhere = {"sweep_mode", "PLAN.sweep_mode"};
    QVERIFY2(elsewhere.count(p), (p + ": a default no struct is checked against").c_str());
  }
  QVERIFY(checked > 80);
}

void TestSchema::unknownKeysNameTheFullPathAndTheNearestKey_data() {
  QTest::addColumn<QString>("patch");
  QTest::addColumn<QStringList>("expected");
  auto row = [](const char* name, const char* patch, QStringList expected) {
    QTest::newRow(name) << QString(patch) << expected;
  };
  row("train.lrr", R"({"train": {"lrr": 1}})",
      {"spec.train.lrr: unknown key 'lrr'", "did you mean 'lr'?", "spec.train allows: steps"});
  row("top level", R"({"trian": {}})", {"spec.trian: unknown key 'trian'", "'train'"});
  row("a task's kind", R"({"data": {"tasks": [{"name": "t", "knd": "lm", "path": "x"}]}})",
      {"spec.data.tasks[0].knd: unknown key 'knd'", "did you mean 'kind'?"});
  row("a task's test", R"({"data": {"tasks": [{"name": "t", "kind": "lm", "path": "x",
      "test": {"pth": "y"}}]}})",
      {"spec.data.tasks[0].test.pth", "did you mean 'path'?"});
  row("a cloze option", R"({"data": {"tasks": [{"name": "t", "kind": "mc",
      "cloze": {"source": "x", "itmes": 3}}]}})",
      {"spec.data.tasks[0].cloze.itmes", "did you mean 'items'?"});
  row("a source", R"({"data": {"new": {"train": {"path": "x", "prat": "train"}}}})",
      {"spec.data.new.train.prat", "did you mean 'part'?"});
  row("a QA source", R"({"data": {"new": {"eval": {"qa": "x", "mask_promt": true}}}})",
      {"spec.data.new.eval.mask_promt", "did you mean 'mask_prompt'?"});
  row("a biography option", R"({"data": {"new": {"eval": {"biography": {"num_peple": 3},
      "part": "task1"}}}})",
      {"spec.data.new.eval.biography.num_peple", "did you mean 'num_people'?"});
  row("a preset stage", R"({"model": {"preset": "tiny-llama",
      "stages": [{"data": "a.txt", "setps": 3}]}})",
      {"spec.model.stages[0].setps", "did you mean 'steps'?"});
  row("a sequence task", R"({"data": {"new": {"train": null}}, "sequence": [{"name": "T1",
      "train": "a.txt", "eval": {"kind": "lm", "path": "b.txt", "max_itmes": 3}}]})",
      {"spec.sequence[0].eval.max_itmes", "did you mean 'max_items'?"});
  row("a plan's variant key", R"({"plans": [{"variant": "lora", "rnak": 4}]})",
      {"spec.plans[0].rnak", "did you mean 'rank'?"});
  row("a plan's ewc", R"({"plans": [{"variant": "full", "ewc": {"lamda": 1}}]})",
      {"spec.plans[0].ewc.lamda", "did you mean 'lambda'?"});
  row("the suggest section", R"({"suggest": {"budget": {"forgeting": 0.1}}})",
      {"spec.suggest.budget.forgeting", "did you mean 'forgetting'?"});
  row("the guard", R"({"guard": {"acton": "stop"}})",
      {"spec.guard.acton", "did you mean 'action'?"});
  row("far from every key", R"({"eval": {"zzzzzzzz": 1}})",
      {"spec.eval.zzzzzzzz: unknown key 'zzzzzzzz' (spec.eval allows: interval"});
}

void TestSchema::unknownKeysNameTheFullPathAndTheNearestKey() {
  QFETCH(QString, patch);
  QFETCH(QStringList, expected);
  Json spec = {{"model", "model"}, {"data", {{"new", {{"train", "train.txt"}}}}}};
  QCOMPARE(qs(error_of([&] { ex::parse_spec(spec, "/tmp", "spec"); })), QString("NO ERROR"));
  spec.merge_patch(Json::parse(patch.toStdString()));
  bool unknown_key_error = false;
  std::string err = "NO ERROR";
  try {
    ex::parse_spec(spec, "/tmp", "spec");
  } catch (const gb::schema::UnknownKeyError& e) {
    unknown_key_error = true;
    err = e.what();
  } catch (const std::exception& e) {
    err = e.what();
  }
  QVERIFY2(unknown_key_error, err.c_str());
  for (const auto& part : expected) {
    QVERIFY2(err.find(part.toStdString()) != std::string::npos,
             qPrintable(QString("'%1' not in: %2").arg(part, qs(err))));
  }
}

void TestSchema::nearestKey() {
  using gb::schema::nearest;
  QCOMPARE(qs(nearest("lrr", {"steps", "lr", "warmup"})), QString("lr"));
  QCOMPARE(qs(nearest("knd", {"name", "kind", "source"})), QString("kind"));
  QCOMPARE(qs(nearest("trian", {"train", "eval"})), QString("train"));  // a transposition
  QCOMPARE(qs(nearest("xyzzy", {"train", "eval"})), QString());
  QCOMPARE(gb::schema::edit_distance("abc", "acb"), size_t{1});
  QCOMPARE(gb::schema::edit_distance("", "abc"), size_t{3});
  // parse_plan (growbench-cli grow --plan) suggests too.
  const std::string err = error_of([] {
    gb::grow::parse_plan(Json{{"variant", "lora"}, {"rnak", 4}}, "plan");
  });
  QVERIFY2(err.find("did you mean 'rank'?") != std::string::npos, err.c_str());
  // The shared plan keys are one declaration: parse_plan knows them.
  for (const auto& k : gb::grow::plan_common_keys()) {
    if (k.name == "variant" || k.name == "from_peft" || k.name == "ewc") continue;
    Json plan = {{"variant", "full"}};
    plan[k.name] = k.name == "name" ? Json("x") : k.name == "replay" ? Json(0.1) : Json("rows");
    QCOMPARE(qs(error_of([&] { gb::grow::parse_plan(plan, "plan"); })), QString("NO ERROR"));
  }
}

// Parsers below the experiment layer keep their own key lists for their other callers (a
// corpus for `tokenize`, cloze options for `make-task`, probe options for `probe`): they
// must agree with the spec's declaration, key for key.
void TestSchema::theParsersOfOtherLayersReadTheDeclaredKeys() {
  const auto& schema = ex::spec_schema();
  auto names = [](const gb::schema::Key& node, const std::string& form,
                  const std::set<std::string>& except) {
    std::set<std::string> out;
    for (const auto& k : node.keys) {
      if (k.in_form(form) && !except.count(k.name)) out.insert(k.name);
    }
    return out;
  };
  auto keys_of = [](const Json& j) {
    std::set<std::string> out;
    for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
    return out;
  };
  // A corpus: data::corpus_spec_from_json reads the source's corpus keys but the split.
  const std::set<std::string> corpus =
      names(*schema.type("SOURCE"), "corpus", {"part", "heldout", "max_docs", "max_tokens"});
  QVERIFY(corpus == keys_of(gb::data::corpus_spec_to_json(gb::data::CorpusSpec{})));
  // Cloze options: data::cloze_options_from_json reads the cloze keys but the source.
  const std::set<std::string> cloze = names(ex::spec_key("TASK.cloze"), "", {"source"});
  QVERIFY(cloze == keys_of(gb::data::to_json(gb::data::ClozeOptions{})));
  // Probe options: the spec's probe section is ProbeOptions' keys (its seed is the spec's,
  // checkpoints are growbench-cli probe's) and the probe set's size.
  std::set<std::string> probe(gb::importance::probe_option_keys().begin(),
                              gb::importance::probe_option_keys().end());
  probe.erase("seed");
  probe.erase("checkpoints");
  for (const char* k : {"tokens", "batch_size", "seq_len"}) probe.insert(k);
  QVERIFY(probe == names(ex::spec_key("probe"), "", {}));
  // The suggest section parses every declared key.
  Json section = Json::object();
  for (const auto& k : ex::spec_key("suggest").keys) {
    if (!k.default_value.is_null()) section[k.name] = k.default_value;
  }
  section["budget"] = {{"forgetting", 0.05}, {"params", 0.1}};
  section["comment"] = "c";
  QCOMPARE(qs(error_of([&] { ex::parse_suggest_section(section, "suggest"); })),
           QString("NO ERROR"));
}

void TestSchema::cliListsEveryKeyAndExitsTwoOnAnUnknownOne() {
  auto cli = [](const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(GB_CLI_PATH), args);
    p.waitForFinished(120000);
    return std::make_tuple(p.exitCode(), p.readAllStandardOutput().toStdString(),
                           p.readAllStandardError().toStdString());
  };
  auto [code, out, err] = cli({"schema", "--json"});
  QVERIFY2(code == 0, err.c_str());
  const Json listing = Json::parse(out);
  QVERIFY(listing.contains("keys") && listing["keys"].is_array());
  std::set<std::string> paths;
  for (const auto& k : listing["keys"]) {
    for (const char* f : {"path", "type", "help"}) {
      QVERIFY2(k.contains(f) && k[f].is_string(), k.dump().c_str());
    }
    QVERIFY2(k.contains("default"), k.dump().c_str());
    paths.insert(k["path"].get<std::string>());
  }
  for (const char* p : {"train.lr", "eval.interval", "data.tasks", "TASK.kind", "SOURCE.path",
                        "PLAN.variant", "PLAN.ewc.lambda", "PLAN.rank", "suggest.budget.params",
                        "model.stages[].lr", "sequence[].eval", "probe.fisher_mode"}) {
    QVERIFY2(paths.count(p), p);
  }
  for (const auto& k : listing["keys"]) {
    if (k["path"] == "train.lr") {
      QCOMPARE(k["default"].get<double>(), 3e-4);
      QCOMPARE(k["min"].get<double>(), 0.0);
      QVERIFY(k["min_exclusive"].get<bool>());
      QCOMPARE(k["max"].get<double>(), 10.0);
    }
    if (k["path"] == "train.schedule") {
      QCOMPARE(k["choices"], Json({"constant", "linear", "cosine"}));
    }
  }
  auto [mcode, md, merr] = cli({"schema", "--markdown"});
  QVERIFY2(mcode == 0, merr.c_str());
  QVERIFY(md.find("<!-- keys:train -->\n| key | type | default | allowed | meaning |") !=
          std::string::npos);

  // A spec with an unknown key: exit status 2, the full path and the suggestion.
  QTemporaryDir tmp;
  const std::string spec_path = tmp.path().toStdString() + "/bad.json";
  Json spec =
      gb::json::parse_file(std::string(GB_SOURCE_DIR) + "/resources/experiments/quickstart.json");
  spec["train"]["lrr"] = 1e-3;
  std::ofstream(spec_path) << spec.dump(2);
  auto [rcode, rout, rerr] = cli({"run", qs(spec_path), "--dry-run"});
  QVERIFY2(rcode == 2, (std::to_string(rcode) + ": " + rerr).c_str());
  QVERIFY2(
      rerr.find("bad.json.train.lrr: unknown key 'lrr' (did you mean 'lr'?") != std::string::npos,
      rerr.c_str());
  // A bad value is still an error of status 1.
  spec["train"].erase("lrr");
  spec["train"]["lr"] = -1;
  std::ofstream(spec_path) << spec.dump(2);
  auto [vcode, vout, verr] = cli({"run", qs(spec_path), "--dry-run"});
  QVERIFY2(vcode == 1, (std::to_string(vcode) + ": " + verr).c_str());
}

QTEST_GUILESS_MAIN(TestSchema)
#include "tst_schema.moc"
