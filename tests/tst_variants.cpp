// The variant registry: every variant is one module whose schema drives plan parsing, its
// errors, the listings and the parameter tables of docs/plans.md.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "grow/plan.h"
#include "grow/variant.h"
#include "model/config.h"
#include "model/units.h"
#include "test_util.h"

using gb::test::error_of;
using Json = nlohmann::json;
namespace grow = gb::grow;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::set<std::string> kExpected = {"full",  "freeze",           "lora",     "grow", "scale",
                                         "depth", "neutral-residues", "adapters", "ewc",  "loramoe",
                                         "mh-moe"};

// A valid value for a parameter other than its default (to check that every key reaches
// the typed struct and comes back out).
Json other_value(const grow::ParamSpec& s) {
  using T = grow::ParamSpec::Type;
  switch (s.type) {
    case T::Int: {
      int64_t v = s.default_value.get<int64_t>() + 1;
      if (s.max && v > *s.max) v = static_cast<int64_t>(*s.max) - 1;
      if (s.min && v < *s.min) v = static_cast<int64_t>(*s.min);
      return v;
    }
    case T::Number: {
      double v = s.default_value.get<double>() + 0.25;
      if (s.max && v > *s.max) v = *s.max - 0.25;
      return v;
    }
    case T::Bool:
      return !s.default_value.get<bool>();
    case T::Choice:
      for (const auto& c : s.choices) {
        if (c != s.default_value.get<std::string>()) return c;
      }
      return s.default_value;
    case T::StringList:
      return Json::array({s.choices.back()});
    case T::Layers:
      return Json::array({0, 1});
    case T::Plan:
      return Json{{"variant", "lora"}, {"rank", 4}};
  }
  return s.default_value;
}

}  // namespace

class TestVariants : public QObject {
  Q_OBJECT

 private slots:
  void registryHasEveryVariantOnce();
  void everySchemaIsComplete();
  void everyKeyRoundTrips();
  void defaultsComeFromTheSchema();
  void errorsNameKeyAllowedValuesAndVariant_data();
  void errorsNameKeyAllowedValuesAndVariant();
  void plansOfEarlierVersionsStillParse_data();
  void plansOfEarlierVersionsStillParse();
  void listingFollowsTheContract();
  void planDocsTablesMatchTheSchema();
  void runnerAndSpecNameNoVariant();
  void unitRegistryMatchesFamilies();
  void estimatesCountRoutedExperts();
  void matchedActivatedParameters();
};

void TestVariants::registryHasEveryVariantOnce() {
  std::set<std::string> ids;
  for (const grow::VariantModule* m : grow::variants()) {
    QVERIFY2(ids.insert(m->id).second, m->id.c_str());
    QVERIFY(grow::find_variant(m->id) == m);
  }
  for (const auto& id : kExpected) QVERIFY2(ids.count(id), id.c_str());
  QCOMPARE(grow::variant_names().size(), ids.size());
  QVERIFY(grow::find_variant("nope") == nullptr);
  const std::string err = error_of([] { grow::variant_module("nope"); });
  QVERIFY2(err.find("unknown variant 'nope' (known: full, freeze, lora") != std::string::npos,
           err.c_str());
}

void TestVariants::everySchemaIsComplete() {
  using T = grow::ParamSpec::Type;
  for (const grow::VariantModule* m : grow::variants()) {
    const std::string id = m->id;
    QVERIFY2(!m->name.empty() && !m->paper.empty() && !m->description.empty(), id.c_str());
    QVERIFY2(!m->export_note.empty(), id.c_str());
    QVERIFY2(m->make && m->apply && m->estimate, id.c_str());
    std::set<std::string> names;
    int layer_params = 0;
    for (const auto& s : m->params) {
      const std::string where = id + "." + s.name;
      QVERIFY2(names.insert(s.name).second, where.c_str());
      QVERIFY2(s.name != "variant" && s.name != "name", where.c_str());
      QVERIFY2(!s.help.empty() && !s.label.empty(), where.c_str());
      QVERIFY2(s.read && s.write, where.c_str());
      if (s.type == T::Int || s.type == T::Number) {
        QVERIFY2(s.default_value.is_number(), where.c_str());
        QVERIFY2(s.min.has_value() || s.hidden, where.c_str());
        if (s.min && s.max) QVERIFY2(*s.min <= *s.max, where.c_str());
      }
      if (s.type == T::Choice) {
        QVERIFY2(!s.choices.empty(), where.c_str());
        const std::string d = s.default_value.get<std::string>();
        QVERIFY2(std::find(s.choices.begin(), s.choices.end(), d) != s.choices.end(),
                 where.c_str());
        QVERIFY2(s.choice_labels.empty() || s.choice_labels.size() == s.choices.size(),
                 where.c_str());
      }
      if (s.type == T::Layers) {
        ++layer_params;
        QVERIFY2(static_cast<bool>(s.layers), where.c_str());
      }
      if (!s.when_key.empty()) {
        const grow::ParamSpec* dep = m->find(s.when_key);
        QVERIFY2(dep && dep->type == T::Choice, where.c_str());
        for (const auto& v : s.when_values) {
          QVERIFY2(std::find(dep->choices.begin(), dep->choices.end(), v) != dep->choices.end(),
                   where.c_str());
        }
      }
    }
    QVERIFY2(layer_params <= 1, id.c_str());
  }
}

void TestVariants::everyKeyRoundTrips() {
  // Each key set to a non-default value reaches the typed struct: to_json gives it back and
  // parsing that gives the same JSON again.
  for (const grow::VariantModule* m : grow::variants()) {
    for (const auto& s : m->params) {
      if (s.hidden || s.type == grow::ParamSpec::Type::Layers) continue;
      Json plan = {{"variant", m->id}};
      // Keys some variants require where they apply.
      if (m->id == "scale") plan["d_up"] = 64;
      if (m->id == "depth") plan["count"] = 1;
      if (s.when_key.size()) plan[s.when_key] = s.when_values.front();
      plan[s.name] = other_value(s);
      if (m->id == "depth" && plan.value("style", "") == "adept") {
        plan.erase("count");
        plan["layers"] = {0};
      }
      if (m->id == "mh-moe" && s.name == "top_k") plan["top_k"] = 2;
      const std::string where = plan.dump();
      grow::GrowthPlan p;
      try {
        p = grow::parse_plan(plan);
      } catch (const gb::Error& e) {
        QFAIL((where + ": " + e.what()).c_str());
      }
      Json back = grow::to_json(p);
      QVERIFY2(back.at(s.name) == plan[s.name], (where + " → " + back.dump()).c_str());
      QCOMPARE(QString::fromStdString(grow::to_json(grow::parse_plan(back)).dump()),
               QString::fromStdString(back.dump()));
    }
  }
}

void TestVariants::defaultsComeFromTheSchema() {
  auto p = grow::parse_plan({{"variant", "mh-moe"}});
  QCOMPARE(p.get<grow::MoeParams>().heads, int64_t(4));
  QCOMPARE(p.get<grow::MoeParams>().top_k, int64_t(1));
  auto q = grow::parse_plan({{"variant", "loramoe"}});
  QCOMPARE(q.get<grow::MoeParams>().heads, int64_t(1));
  QCOMPARE(q.get<grow::MoeParams>().top_k, int64_t(1));  // the paper's top-1
  // LoRA's alpha defaults to 2 · rank.
  auto l = grow::parse_plan({{"variant", "lora"}, {"rank", 4}});
  QCOMPARE(l.get<grow::LoraParams>().alpha, 8.0);
  auto a = grow::parse_plan({{"variant", "adapters"}});
  QCOMPARE(QString::fromStdString(a.get<grow::AdapterParams>().gate), QString("none"));
  auto s = grow::parse_plan({{"variant", "scale"}, {"d_up", 64}, {"init", "random,svd"}});
  QCOMPARE(QString::fromStdString(s.get<grow::ScaleParams>().init_w21), QString("random"));
  QCOMPARE(QString::fromStdString(s.get<grow::ScaleParams>().init_w22), QString("svd"));
  // Labels are the variant's own.
  QCOMPARE(
      QString::fromStdString(
          grow::parse_plan(
              {{"variant", "depth"}, {"style", "in-place"}, {"layers", {1}}, {"unit_lr", false}})
              .label()),
      QString("depth/in-place no-unit-lr layers=1"));
  QCOMPARE(
      QString::fromStdString(grow::parse_plan({{"variant", "grow"}, {"layers", {0, 3}}}).label()),
      QString("grow/freeze k=2 layers=0,3"));
  // ADEPT's stage 2 as its code runs it: on for ADEPT and in place (ADEPT without stage 1),
  // off for LLaMA-Pro; taylor-code importance, one min-max over all units.
  for (const char* style : {"adept", "in-place", "llama-pro"}) {
    Json j = {{"variant", "depth"}, {"style", style}};
    if (std::string(style) == "llama-pro") {
      j["count"] = 1;
    } else {
      j["layers"] = {0};
    }
    const auto d = grow::parse_plan(j).get<grow::DepthParams>();
    QCOMPARE(d.unit_lr, std::string(style) != "llama-pro");
    QCOMPARE(QString::fromStdString(d.unit_importance), QString("taylor-code"));
    QCOMPARE(QString::fromStdString(d.unit_norm), QString("all"));
    QCOMPARE(d.t_update, int64_t(500));
  }
}

void TestVariants::errorsNameKeyAllowedValuesAndVariant_data() {
  QTest::addColumn<QString>("plan");
  QTest::addColumn<QStringList>("expected");
  auto row = [](const char* name, const char* plan, QStringList expected) {
    QTest::newRow(name) << QString(plan) << expected;
  };
  row("unknown key", R"({"variant":"lora","rnak":4})",
      {"unknown key 'rnak'", "variant 'lora'",
       "allowed: variant, name, replay, replay_mode, ewc, rank, budget, alpha, targets, "
       "layers"});
  row("below minimum", R"({"variant":"grow","k":1})",
      {"'k' must be at least 2, found 1", "variant 'grow'; allowed: [2, 64]"});
  row("above maximum", R"({"variant":"scale","d_up":64,"tau":1.5})",
      {"'tau' must be at most 1, found 1.5", "variant 'scale'; allowed: [-1, 1]"});
  row("wrong type", R"({"variant":"lora","rank":"eight"})",
      {"'rank' (variant 'lora') must be an integer, found a string"});
  row("fraction for an integer", R"({"variant":"lora","rank":2.5})",
      {"'rank' (variant 'lora') must be an integer, found 2.5"});
  row("bad choice", R"({"variant":"scale","d_up":64,"mode":"keep"})",
      {"'mode' must be one of preserve, adapt, route, found 'keep'", "variant 'scale'"});
  row("bad list item", R"({"variant":"lora","targets":["q","qkv"]})",
      {"unknown LoRA target 'qkv'", "allowed: q, k, v, o, gate, up, down"});
  row("key that does not apply", R"({"variant":"scale","d_up":64,"tau":0.7})",
      {"'tau' applies to route only", "variant 'scale'", "'mode' is 'preserve'"});
  row("required key", R"({"variant":"scale"})", {"'d_up' must be at least 1, found 0"});
  row("bad unit_norm", R"({"variant":"depth","style":"adept","layers":[0],"unit_norm":"per-kind"})",
      {"'unit_norm' must be one of all, kind, found 'per-kind'", "variant 'depth'"});
  row("in place without layers", R"({"variant":"depth","style":"in-place"})",
      {"the in-place style needs 'layers'"});
  row("count in place", R"({"variant":"depth","style":"in-place","layers":[0],"count":2})",
      {"'count' applies to llama-pro only", "'style' is 'in-place'"});
  row("lora rank and budget", R"({"variant":"lora","rank":4,"budget":0.2})",
      {"give 'rank' or 'budget', not both"});
  row("unknown variant", R"({"variant":"lorra"})",
      {"unknown variant 'lorra' (known: full, freeze, lora, grow, scale, depth"});
  row("not an object", R"([1])", {"expected an object"});
}

void TestVariants::errorsNameKeyAllowedValuesAndVariant() {
  QFETCH(QString, plan);
  QFETCH(QStringList, expected);
  const std::string err =
      error_of([&] { grow::parse_plan(Json::parse(plan.toStdString()), "plan"); });
  for (const QString& e : expected) {
    QVERIFY2(err.find(e.toStdString()) != std::string::npos, err.c_str());
  }
}

void TestVariants::plansOfEarlierVersionsStillParse_data() {
  // Plans as the earlier hand-written to_json stored them in run specs and checkpoints:
  // every key listed, including ones that do not apply in the plan's mode.
  QTest::addColumn<QString>("plan");
  QTest::newRow("scale preserve")
      << R"({"variant":"scale","mode":"preserve","d_up":64,"p_up":128,"l_fp":0,"attention_only":false,"tau":0.5,"init":"svd,zero"})";
  QTest::newRow("depth llama-pro") << R"({"variant":"depth","style":"llama-pro","count":2})";
  QTest::newRow("depth adept") << R"({"variant":"depth","style":"adept","layers":[1,3]})";
  QTest::newRow("adapters") << R"({"variant":"adapters","layers":"all","budget":0.2})";
  QTest::newRow("neutral residues")
      << R"({"variant":"neutral-residues","gate":"elu","alpha":100.0,"layers":[0,1],"budget":0.2,"inner":32})";
  QTest::newRow("loramoe")
      << R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4,"balance":0.0,"layers":"all"})";
  QTest::newRow("loramoe heads 1") << R"({"variant":"loramoe","heads":1})";
  QTest::newRow("mh-moe")
      << R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4,"alpha":8.0,"balance":0.0,"layers":"all"})";
  QTest::newRow("lora")
      << R"({"variant":"lora","rank":8,"alpha":16.0,"targets":["q","v"],"layers":{"policy":"least-important","k":2}})";
  QTest::newRow("freeze") << R"({"variant":"freeze","bottom":2,"freeze_embedding":true})";
  QTest::newRow("ewc") << R"({"variant":"ewc","lambda":1.0})";
  QTest::newRow("named") << R"({"variant":"full","name":"FFT"})";
}

void TestVariants::plansOfEarlierVersionsStillParse() {
  QFETCH(QString, plan);
  const Json j = Json::parse(plan.toStdString());
  grow::GrowthPlan p;
  const std::string err = error_of([&] { p = grow::parse_plan(j); });
  QVERIFY2(err == "NO ERROR", err.c_str());
  // Every key given comes back with its value (keys that do not apply hold the default).
  const Json back = grow::to_json(p);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (back.contains(it.key())) QCOMPARE(back[it.key()], it.value());
  }
}

void TestVariants::listingFollowsTheContract() {
  for (const grow::VariantModule* m : grow::variants()) {
    const Json j = m->to_json();
    QVERIFY(j.at("id").is_string() && j.at("name").is_string() && j.at("paper").is_string());
    QVERIFY(j.at("exportable_hf").is_boolean());
    QVERIFY(j.at("params").is_array());
    for (const auto& p : j.at("params")) {
      QVERIFY2(
          p.contains("name") && p.contains("type") && p.contains("default") && p.contains("help"),
          p.dump().c_str());
      const std::string type = p.at("type").get<std::string>();
      if (type == "int" || type == "number") QVERIFY2(p.contains("min"), p.dump().c_str());
      if (type == "choice") QVERIFY2(p.contains("choices"), p.dump().c_str());
    }
  }
  QVERIFY(grow::find_variant("lora")->exportable_hf);
  QVERIFY(!grow::find_variant("scale")->exportable_hf);
}

void TestVariants::runnerAndSpecNameNoVariant() {
  // What a variant needs or does while a run trains is declared in its module
  // (grow/run_hooks.h): the experiment runner and the spec parser name no variant, neither
  // by its Variant:: constant nor by its id as a string literal.
  for (const char* file : {"core/experiment/runner.cpp", "core/experiment/run_executor.cpp",
                           "core/experiment/run_prepare.cpp", "core/experiment/spec.cpp"}) {
    const std::string text = read_text(std::string(GB_SOURCE_DIR) + "/" + file);
    QVERIFY2(text.size() > 1000, file);
    QVERIFY2(text.find("Variant::") == std::string::npos, file);
    for (const grow::VariantModule* m : grow::variants()) {
      QVERIFY2(text.find("\"" + m->id + "\"") == std::string::npos,
               (std::string(file) + " names the variant '" + m->id + "'").c_str());
    }
  }
}

void TestVariants::planDocsTablesMatchTheSchema() {
  // docs/plans.md embeds each variant's table between <!-- params:ID ... --> and
  // <!-- /params:ID -->. GB_UPDATE_DOCS=1 rewrites them from the schema.
  const std::string path = std::string(GB_SOURCE_DIR) + "/docs/plans.md";
  std::string doc = read_text(path);
  QVERIFY(!doc.empty());
  const bool update = qEnvironmentVariableIsSet("GB_UPDATE_DOCS");
  for (const grow::VariantModule* m : grow::variants()) {
    const std::string open = "<!-- params:" + m->id + " ";
    const std::string close = "<!-- /params:" + m->id + " -->";
    const size_t a = doc.find(open);
    QVERIFY2(a != std::string::npos, ("docs/plans.md lacks " + open).c_str());
    const size_t body = doc.find("-->", a) + 4;
    const size_t b = doc.find(close, body);
    QVERIFY2(b != std::string::npos, close.c_str());
    const std::string want = grow::params_markdown(*m);
    if (update) {
      doc.replace(body, b - body, want);
    } else {
      QVERIFY2(doc.substr(body, b - body) == want,
               ("docs/plans.md: the table of '" + m->id +
                "' differs from the schema; run GB_UPDATE_DOCS=1 build/tests/tst_variants")
                   .c_str());
    }
  }
  if (update) {
    std::ofstream out(path, std::ios::binary);
    out << doc;
  }
}

void TestVariants::unitRegistryMatchesFamilies() {
  gb::ModelConfig llama;
  llama.gated_mlp = true;
  gb::ModelConfig gpt2;
  gpt2.gated_mlp = false;
  gb::ModelConfig gemma3;
  gemma3.qk_norm = true;
  gemma3.sandwich_norms = true;
  auto names = [](const gb::ModelConfig& c) {
    QStringList l;
    for (const auto& n : gb::units::names_of(c)) l << QString::fromStdString(n);
    return l.join(u' ');
  };
  QCOMPARE(names(llama), QString("q k v o gate up down input_norm post_attn_norm"));
  QCOMPARE(names(gpt2), QString("q k v o up down input_norm post_attn_norm"));
  QCOMPARE(names(gemma3),
           QString("q k v o q_norm k_norm gate up down input_norm post_attn_norm pre_ffn_norm "
                   "post_ffn_norm"));
  QCOMPARE(QString::fromStdString(gb::units::path("up")), QString("mlp.up_proj"));
  QCOMPARE(QString(gb::units::of_path("mlp.up_proj.grown_weight")->name), QString("up"));
  QVERIFY(gb::units::of_path("adapter.up_proj.weight") == nullptr);
  // LoRA's targets are the registry's linear units.
  const auto* targets = grow::find_variant("lora")->find("targets");
  QVERIFY(targets->choices == gb::units::linear_names());
  QVERIFY(error_of([] { gb::units::path("qkv"); }).find("unknown unit 'qkv'") != std::string::npos);
}

// A Llama-shaped config for closed-form estimates: L = 4, d = 64, p = 128, 4 heads of 16.
gb::ModelConfig small_config() {
  gb::ModelConfig c;
  c.num_layers = 4;
  c.hidden_size = 64;
  c.intermediate_size = 128;
  c.num_heads = 4;
  c.num_kv_heads = 4;
  c.head_dim = 16;
  c.vocab_size = 100;
  return c;
}

void TestVariants::estimatesCountRoutedExperts() {
  const gb::ModelConfig c = small_config();
  QVERIFY(c.gated_mlp);
  Json j = {{"variant", "loramoe"}, {"experts", 4}, {"top_k", 1}, {"rank", 2}};
  auto p = grow::parse_plan(j);
  auto e = grow::find_variant("loramoe")->estimate(*p.params.get(), c);
  // Beside each linear (the default): gate and up 64 → 128 (router 4·64 + 4 experts of
  // 2·64 + 128·2), down 128 → 64 (router 4·128 + 4 experts of 2·128 + 64·2), 4 layers.
  QCOMPARE(e.trainable, int64_t(4 * (2 * (4 * 64 + 4 * 384) + (4 * 128 + 4 * 384))));
  QCOMPARE(e.activated, int64_t(4 * (2 * (4 * 64 + 1 * 384) + (4 * 128 + 1 * 384))));
  // Beside the whole MLP: router 4·64 + 4 experts of 2·64 + 64·2 per layer.
  j["placement"] = "beside-mlp";
  p = grow::parse_plan(j);
  e = grow::find_variant("loramoe")->estimate(*p.params.get(), c);
  QCOMPARE(e.trainable, int64_t(4 * (4 * 64 + 4 * (2 * 64 + 64 * 2))));
  QCOMPARE(e.activated, int64_t(4 * (4 * 64 + 1 * (2 * 64 + 64 * 2))));
}

// §5.3 of mh-moe-multi-head-routing.txt at a matched budget: MH-MoE with M = 8 heads, top-1
// of 4 private experts, against LoRAMoE with K = 26, top-5. match_active_params_of picks the
// MH-MoE rank whose activated parameters come closest to the reference's.
void TestVariants::matchedActivatedParameters() {
  const gb::ModelConfig c = small_config();
  const Json ref = {{"variant", "loramoe"}, {"experts", 26}, {"top_k", 5}, {"rank", 4}};
  auto p = grow::parse_plan({{"variant", "mh-moe"},
                             {"heads", 8},
                             {"experts", 4},
                             {"top_k", 1},
                             {"match_active_params_of", ref}});
  const auto& m = *grow::find_variant("mh-moe");
  QVERIFY(m.resolve);
  m.resolve(*p.params.get(), c, "plan");
  const auto& q = p.get<grow::MoeParams>();
  QVERIFY(q.match_active_params_of.is_null());
  const auto target =
      grow::find_variant("loramoe")->estimate(*grow::parse_plan(ref).params.get(), c).activated;
  auto activated = [&](int64_t r) {
    auto x = q;
    x.rank = r;
    return m.estimate(x, c).activated;
  };
  // The chosen rank is the best one: no other rank is closer.
  const int64_t gap = std::llabs(activated(q.rank) - target);
  for (int64_t r = 1; r <= 64; ++r) QVERIFY(gap <= std::llabs(activated(r) - target));
  // By hand, banks beside gate and up (64 → 128) and down (128 → 64) of 4 layers:
  // LoRAMoE activates 4 · (2·(26·64 + 5·(4·64 + 128·4)) + (26·128 + 5·(4·128 + 64·4)))
  //   = 4 · (2·5504 + 7168) = 72704 per token;
  // MH-MoE 4 · (2·8·(4·8 + r·(8 + 128)) + 8·(4·16 + r·(16 + 64))) = 4096 + 11264·r
  //   → r = 6 (71680; r = 7: 82944).
  QCOMPARE(target, int64_t(72704));
  QCOMPARE(q.rank, int64_t(6));
  QVERIFY(error_of([&] {
            grow::parse_plan({{"variant", "mh-moe"}, {"rank", 6}, {"match_active_params_of", ref}});
          }).find("give 'rank' or 'match_active_params_of', not both") != std::string::npos);
  QVERIFY(error_of([&] {
            grow::parse_plan(
                {{"variant", "loramoe"}, {"match_active_params_of", {{"variant", "lorra"}}}});
          }).find("unknown variant 'lorra'") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestVariants)
#include "tst_variants.moc"
