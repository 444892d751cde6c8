#include "experiment/spec.h"

#include "experiment/expand.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "data/cloze.h"
#include "experiment/claims.h"
#include "experiment/spec_schema.h"
#include "data/corpus.h"
#include "grow/variant.h"
#include "importance/probe_options.h"
#include "util/error.h"
#include "util/json.h"
#include "util/metrics.h"
#include "util/schema.h"

namespace gb::experiment {

using Json = nlohmann::json;
namespace js = gb::json;
namespace fs = std::filesystem;

namespace {

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

int64_t positive(const Json& j, const char* key, int64_t fallback, const std::string& ctx,
                 int64_t minimum = 1) {
  int64_t v = js::get_or<int64_t>(j, key, fallback, ctx);
  if (v < minimum) fail("{}.{}: must be at least {}, found {}", ctx, key, minimum, v);
  return v;
}

double ranged(const Json& j, const char* key, double fallback, const std::string& ctx, double lo,
              double hi, bool open_lo = false) {
  double v = js::get_or<double>(j, key, fallback, ctx);
  if (v < lo || v > hi || (open_lo && v == lo)) {
    fail("{}.{}: must be in {}{}, {}], found {}", ctx, key, open_lo ? "(" : "[", lo, hi, v);
  }
  return v;
}

const Json& object_at(const Json& j, const char* key, const std::string& ctx) {
  static const Json empty = Json::object();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return empty;
  if (!it->is_object()) fail("{}.{}: expected an object, found {}", ctx, key, js::type_name(*it));
  return *it;
}

// The value of a declared key (spec_schema.cpp): its default and bounds come from the
// declaration ("train.steps" → at least 1, 100 when absent).
int64_t int_key(const Json& j, const char* path, const std::string& ctx) {
  const schema::Key& k = spec_key(path);
  const int64_t fallback = k.default_value.get<int64_t>();
  if (!k.min) return js::get_or<int64_t>(j, k.name.c_str(), fallback, ctx);
  return positive(j, k.name.c_str(), fallback, ctx, static_cast<int64_t>(*k.min));
}
double number_key(const Json& j, const char* path, const std::string& ctx) {
  const schema::Key& k = spec_key(path);
  return ranged(j, k.name.c_str(), k.default_value.get<double>(), ctx, *k.min, *k.max, k.min_open);
}
template <typename T>
T value_key(const Json& j, const char* path, const std::string& ctx) {
  const schema::Key& k = spec_key(path);
  return js::get_or<T>(j, k.name.c_str(), k.default_value.get<T>(), ctx);
}
// A declared choice: one of its declared values ("must be constant, linear or cosine").
std::string choice_key(const Json& j, const char* path, const std::string& ctx) {
  const schema::Key& k = spec_key(path);
  const std::string v = value_key<std::string>(j, path, ctx);
  if (std::find(k.choices.begin(), k.choices.end(), v) != k.choices.end()) return v;
  std::string list;
  for (size_t i = 0; i < k.choices.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == k.choices.size() ? " or " : ", ") + k.choices[i];
  }
  fail("{}.{}: must be {}, found '{}'", ctx, k.name, list, v);
}

// Unknown keys of `j`, an object of the declared key (or named type) at `path` of the spec's
// schema (spec_schema.cpp): the one list of the keys.
void check_declared(const Json& j, const char* path, const std::string& ctx) {
  const schema::Schema& s = spec_schema();
  const schema::Key* node = s.type(path);
  schema::check_keys(j, node ? *node : spec_key(path), s, ctx);
}

// The data of a task: "path", "source" or (mc) "cloze", by kind.
void parse_task_data(TaskSpec& t, const Json& j, const std::string& base_dir,
                     const std::string& ctx) {
  if (t.kind == "mc") {
    if (j.contains("source")) {
      fail("{}: a multiple-choice task takes 'path' or 'cloze', not 'source'", ctx);
    }
    if (j.contains("cloze") == j.contains("path")) {
      fail("{}: give either 'path' (a JSONL file) or 'cloze' (built from a corpus)", ctx);
    }
    if (j.contains("path")) {
      t.mc_path = resolve(js::get<std::string>(j, "path", ctx), base_dir);
    } else {
      const Json& c = j["cloze"];
      const std::string cctx = ctx + ".cloze";
      if (!c.is_object()) fail("{}: expected an object, found {}", cctx, js::type_name(c));
      if (!c.contains("source"))
        fail("{}: missing 'source' (the corpus to cut passages from)", cctx);
      t.source = parse_source(c["source"], base_dir, cctx + ".source");
      if (t.source.kind != DataSource::Kind::Corpus) {
        fail("{}.source: a cloze task needs a text corpus", cctx);
      }
      Json options = c;
      options.erase("source");
      t.cloze = data::to_json(data::cloze_options_from_json(options, cctx));
    }
  } else if (t.kind == "qa" || t.kind == "lm") {
    if (j.contains("cloze")) fail("{}: 'cloze' builds multiple-choice tasks (kind mc)", ctx);
    if (j.contains("source")) {
      t.source = parse_source(j["source"], base_dir, ctx + ".source");
    } else if (j.contains("path")) {
      Json src = t.kind == "qa" ? Json{{"qa", j["path"]}} : j["path"];
      t.source = parse_source(src, base_dir, ctx + ".path");
    } else {
      fail("{}: give 'source' (or 'path')", ctx);
    }
    if (t.kind == "qa" && t.source.kind == DataSource::Kind::Corpus) {
      fail("{}: a QA task needs a QA source ({{\"qa\": file}} or a biography part)", ctx);
    }
  } else {
    fail("{}.kind: must be lm, mc or qa, found '{}'", ctx, t.kind);
  }
}

TaskSpec parse_task(const Json& j, const std::string& base_dir, const std::string& ctx) {
  check_declared(j, "TASK", ctx);
  TaskSpec t;
  t.name = js::get<std::string>(j, "name", ctx);
  if (t.name.empty() || t.name.find('/') != std::string::npos) {
    fail("{}.name: must be non-empty and contain no '/', found '{}'", ctx, t.name);
  }
  // eval/<task>/... must not collide with the built-in evaluation keys.
  for (const char* reserved : {"orig", "new", "drift", "op", "bwt"}) {
    if (t.name == reserved) {
      fail("{}.name: '{}' is reserved (eval/{}... is a built-in metric); choose another name", ctx,
           t.name, t.name);
    }
  }
  t.kind = js::get<std::string>(j, "kind", ctx);
  t.max_items = int_key(j, "TASK.max_items", ctx);
  parse_task_data(t, j, base_dir, ctx);
  if (j.contains("test")) {
    const Json& tj = j["test"];
    const std::string tctx = ctx + ".test";
    if (!tj.is_object()) fail("{}: expected an object, found {}", tctx, js::type_name(tj));
    check_declared(tj, "TASK.test", tctx);
    auto test = std::make_shared<TaskSpec>();
    test->name = t.name;
    test->kind = t.kind;
    test->max_items = js::get_or<int64_t>(tj, "max_items", t.max_items, tctx);
    parse_task_data(*test, tj, base_dir, tctx);
    t.test = std::move(test);
  }
  return t;
}

PretrainStage parse_stage(const Json& j, const std::string& base_dir, const std::string& ctx) {
  check_declared(j, "model.stages", ctx);
  PretrainStage s;
  s.name = value_key<std::string>(j, "model.stages.name", ctx);
  s.data = parse_source(js::get<Json>(j, "data", ctx), base_dir, ctx + ".data");
  s.steps = int_key(j, "model.stages.steps", ctx);
  s.lr = number_key(j, "model.stages.lr", ctx);
  s.seq_len = int_key(j, "model.stages.seq_len", ctx);
  s.batch_size = int_key(j, "model.stages.batch_size", ctx);
  s.warmup = int_key(j, "model.stages.warmup", ctx);
  return s;
}

PresetSpec parse_preset(const Json& j, const std::string& base_dir, const std::string& ctx) {
  check_declared(j, "model", ctx);
  PresetSpec p;
  p.preset = js::get<std::string>(j, "preset", ctx);
  if (p.preset != "tiny-llama") {
    fail("{}.preset: unknown preset '{}' (built in: tiny-llama)", ctx, p.preset);
  }
  p.config = j.value("config", Json::object());
  if (!p.config.is_object()) fail("{}.config: expected an object of config.json keys", ctx);
  const Json& tok = object_at(j, "tokenizer", ctx);
  check_declared(tok, "model.tokenizer", ctx + ".tokenizer");
  p.vocab_size = int_key(tok, "model.tokenizer.vocab_size", ctx + ".tokenizer");
  if (!j.contains("stages") || !j["stages"].is_array() || j["stages"].empty()) {
    fail("{}.stages: a preset needs at least one training stage (an array)", ctx);
  }
  for (size_t i = 0; i < j["stages"].size(); ++i) {
    p.stages.push_back(parse_stage(j["stages"][i], base_dir, fmt::format("{}.stages[{}]", ctx, i)));
  }
  // The tokenizer's text: one source or a list (e.g. every language the model will meet).
  Json tok_raw = Json::array();
  if (!tok.contains("data")) {
    p.tokenizer_data.push_back(p.stages.front().data);
  } else if (tok["data"].is_array()) {
    for (size_t i = 0; i < tok["data"].size(); ++i) {
      p.tokenizer_data.push_back(
          parse_source(tok["data"][i], base_dir, fmt::format("{}.tokenizer.data[{}]", ctx, i)));
    }
  } else {
    p.tokenizer_data.push_back(parse_source(tok["data"], base_dir, ctx + ".tokenizer.data"));
  }
  for (const auto& d : p.tokenizer_data) tok_raw.push_back(d.raw);
  // raw: the resolved form (absolute paths), hashed into the build cache key.
  p.raw = {{"preset", p.preset},
           {"config", p.config},
           {"tokenizer", {{"data", tok_raw}, {"vocab_size", p.vocab_size}}}};
  Json stages = Json::array();
  for (const auto& s : p.stages) {
    stages.push_back({{"name", s.name},
                      {"data", s.data.raw},
                      {"steps", s.steps},
                      {"lr", s.lr},
                      {"seq_len", s.seq_len},
                      {"batch_size", s.batch_size},
                      {"warmup", s.warmup}});
  }
  p.raw["stages"] = stages;
  return p;
}

}  // namespace

Json TaskSpec::to_json() const {
  Json tj = {{"name", name}, {"kind", kind}, {"max_items", max_items}};
  if (is_cloze()) {
    Json c = cloze;
    c["source"] = source.raw;
    tj["cloze"] = c;
  } else if (kind == "mc") {
    tj["path"] = mc_path;
  } else {
    tj["source"] = source.raw;
  }
  if (test) {
    Json t = test->to_json();
    t.erase("name");
    t.erase("kind");
    tj["test"] = t;
  }
  return tj;
}

std::string DataSource::describe() const {
  switch (kind) {
    case Kind::Corpus: {
      std::string s = corpus.value("path", std::string("?"));
      if (part != "all") s += fmt::format(" ({} of held-out {})", part, heldout);
      return s;
    }
    case Kind::Qa:
      return "QA " + qa_path;
    case Kind::Biography:
      return "biography " + part;
  }
  return "?";
}

DataSource parse_source(const Json& j, const std::string& base_dir, const std::string& ctx) {
  DataSource s;
  if (j.is_string()) return parse_source(Json{{"path", j}}, base_dir, ctx);
  if (!j.is_object()) fail("{}: expected a path or an object, found {}", ctx, js::type_name(j));
  if (j.contains("qa")) {
    check_declared(j, "SOURCE", ctx);
    s.kind = DataSource::Kind::Qa;
    s.qa_path = resolve(js::get<std::string>(j, "qa", ctx), base_dir);
    s.mask_prompt = value_key<bool>(j, "SOURCE.mask_prompt", ctx);
    s.max_docs = js::get_or<int64_t>(j, "max_docs", -1, ctx);
    s.raw = {{"qa", s.qa_path}, {"mask_prompt", s.mask_prompt}, {"max_docs", s.max_docs}};
    return s;
  }
  if (j.contains("biography")) {
    check_declared(j, "SOURCE", ctx);  // the biography's options too
    s.kind = DataSource::Kind::Biography;
    s.biography = j["biography"];
    if (!s.biography.is_object()) fail("{}.biography: expected an object of options", ctx);
    s.part = js::get<std::string>(j, "part", ctx);
    if (s.part != "pretrain" && s.part != "task0_train" && s.part != "task0_test" &&
        s.part != "task1") {
      fail("{}.part: must be pretrain, task0_train, task0_test or task1, found '{}'", ctx, s.part);
    }
    s.max_docs = js::get_or<int64_t>(j, "max_docs", -1, ctx);
    s.max_tokens = js::get_or<int64_t>(j, "max_tokens", -1, ctx);
    s.raw = {{"biography", s.biography},
             {"part", s.part},
             {"max_docs", s.max_docs},
             {"max_tokens", s.max_tokens}};
    return s;
  }
  check_declared(j, "SOURCE", ctx);
  Json corpus = j;
  for (const char* k : {"part", "heldout", "max_docs", "max_tokens"}) corpus.erase(k);
  if (!corpus.contains("path")) fail("{}: missing 'path' (or 'qa' / 'biography')", ctx);
  corpus["path"] = resolve(js::get<std::string>(corpus, "path", ctx), base_dir);
  data::corpus_spec_from_json(corpus, ctx);  // unknown keys and bad values, named now
  s.kind = DataSource::Kind::Corpus;
  s.corpus = corpus;
  s.part = js::get_or<std::string>(j, "part", "all", ctx);
  if (s.part != "all" && s.part != "train" && s.part != "heldout" && s.part != "validation" &&
      s.part != "test") {
    fail("{}.part: must be all, train, heldout, validation or test, found '{}'", ctx, s.part);
  }
  s.heldout = ranged(j, "heldout", s.part == "all" ? 0.0 : 0.1, ctx, 0.0, 1.0);
  if (s.part != "all" && s.heldout <= 0)
    fail("{}.heldout: must be positive for part '{}'", ctx, s.part);
  s.max_docs = js::get_or<int64_t>(j, "max_docs", -1, ctx);
  s.max_tokens = js::get_or<int64_t>(j, "max_tokens", -1, ctx);
  s.raw = corpus;
  s.raw["part"] = s.part;
  s.raw["heldout"] = s.heldout;
  s.raw["max_docs"] = s.max_docs;
  s.raw["max_tokens"] = s.max_tokens;
  return s;
}

// Defaults a plan takes from other sections of the spec (VariantModule::spec_defaults;
// e.g. the top-level "adept" section of earlier specs).
static Json with_spec_defaults(const Json& spec, const Json& plan) {
  if (!plan.is_object()) return plan;
  const auto v = plan.find("variant");
  if (v == plan.end() || !v->is_string()) return plan;  // parse_plan says what is wrong
  const auto* module = grow::find_variant(v->get<std::string>());
  return module && module->spec_defaults ? module->spec_defaults(spec, plan) : plan;
}

namespace {
// A plan without the keys of the expansion (seeds, sweep, ...): what parse_plan reads.
Json without_expansion(const Json& plan) {
  if (!plan.is_object()) return plan;
  Json p = plan;
  for (const auto& k : expansion_keys()) p.erase(k);
  return p;
}
// A LoRA plan's "from_peft" folder, relative to the spec file's folder.
Json with_resolved_paths(Json plan, const std::string& base_dir) {
  if (plan.is_object() && plan.contains("from_peft") && plan["from_peft"].is_string()) {
    plan["from_peft"] = resolve(plan["from_peft"].get<std::string>(), base_dir);
  }
  return plan;
}
}  // namespace

ExperimentSpec parse_spec(const Json& j, const std::string& base_dir, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected a JSON object, found {}", ctx, js::type_name(j));
  // Every key of the spec, at any depth, against its declaration (plans: the variant's
  // keys): an unknown key names its full path and the nearest known key.
  schema::check_keys(j, spec_schema(), ctx);
  ExperimentSpec s;
  s.version = static_cast<int>(js::get_or<int64_t>(j, "version", kSpecVersion, ctx));
  if (s.version != kSpecVersion) {
    fail("{}.version: this GrowBench reads spec version {}, found {}", ctx, kSpecVersion,
         s.version);
  }
  s.name = value_key<std::string>(j, "name", ctx);
  s.seed = static_cast<uint64_t>(int_key(j, "seed", ctx));
  s.run_seed = static_cast<uint64_t>(positive(j, "run_seed", static_cast<int64_t>(s.seed), ctx, 0));
  s.device = value_key<std::string>(j, "device", ctx);
  s.dtype = choice_key(j, "dtype", ctx);
  s.frozen_dtype = choice_key(j, "frozen_dtype", ctx);
  const bool cuda_n = s.device.rfind("cuda:", 0) == 0 && s.device.size() > 5 &&
                      s.device.find_first_not_of("0123456789", 5) == std::string::npos;
  if (s.device != "cpu" && s.device != "cuda" && !cuda_n) {
    fail("{}.device: must be cpu, cuda or cuda:N, found '{}'", ctx, s.device);
  }
  s.threads = int_key(j, "threads", ctx);

  // Model
  if (!j.contains("model")) fail("{}: missing 'model' (a folder or a preset)", ctx);
  const Json& m = j["model"];
  if (m.is_string()) {
    s.model.path = resolve(m.get<std::string>(), base_dir);
  } else if (m.is_object() && m.contains("preset")) {
    s.model.preset = parse_preset(m, base_dir, ctx + ".model");
  } else if (m.is_object()) {
    check_declared(m, "model", ctx + ".model");
    s.model.path = resolve(js::get<std::string>(m, "path", ctx + ".model"), base_dir);
  } else {
    fail("{}.model: expected a folder path or an object", ctx);
  }

  // Data
  const std::string dctx = ctx + ".data";
  const Json& data = object_at(j, "data", ctx);
  check_declared(data, "data", dctx);
  const Json& orig = object_at(data, "original", dctx);
  check_declared(orig, "data.original", dctx + ".original");
  const Json& nw = object_at(data, "new", dctx);
  check_declared(nw, "data.new", dctx + ".new");
  auto src = [&](const Json& parent, const char* key, const std::string& c) {
    return parent.contains(key) ? parse_source(parent[key], base_dir, c + "." + key) : DataSource{};
  };
  s.original_eval = src(orig, "eval", dctx + ".original");
  s.original_replay = src(orig, "replay", dctx + ".original");
  s.original_probe = src(orig, "probe", dctx + ".original");
  s.new_train = src(nw, "train", dctx + ".new");
  s.new_eval = src(nw, "eval", dctx + ".new");
  s.original_test = src(orig, "test", dctx + ".original");
  s.new_test = src(nw, "test", dctx + ".new");
  if (data.contains("tasks")) {
    if (!data["tasks"].is_array()) fail("{}.tasks: expected an array", dctx);
    for (size_t i = 0; i < data["tasks"].size(); ++i) {
      s.tasks.push_back(
          parse_task(data["tasks"][i], base_dir, fmt::format("{}.tasks[{}]", dctx, i)));
    }
  }
  // Task sequence
  if (j.contains("sequence")) {
    if (!j["sequence"].is_array() || j["sequence"].empty()) {
      fail("{}.sequence: expected a non-empty array of tasks", ctx);
    }
    for (size_t i = 0; i < j["sequence"].size(); ++i) {
      const std::string c = fmt::format("{}.sequence[{}]", ctx, i);
      const Json& e = j["sequence"][i];
      check_declared(e, "sequence", c);
      SequenceStep st;
      st.name = js::get<std::string>(e, "name", c);
      st.train = parse_source(js::get<Json>(e, "train", c), base_dir, c + ".train");
      Json ev = js::get<Json>(e, "eval", c);
      if (ev.is_object() && !ev.contains("name")) ev["name"] = st.name;
      st.eval = parse_task(ev, base_dir, c + ".eval");
      st.steps = int_key(e, "sequence.steps", c);
      s.sequence.push_back(std::move(st));
    }
    if (s.new_train.defined()) {
      fail("{}: give either data.new.train (single adaptation) or sequence (task sequence)", ctx);
    }
  } else if (!s.new_train.defined()) {
    fail("{}.data.new.train: missing (the new-domain training data)", ctx);
  }
  {
    // Task names key the metrics eval/<task>/...: two tasks with one name would mix them.
    std::set<std::string> names;
    for (const auto& t : s.tasks) {
      if (!names.insert(t.name).second)
        fail("{}.data.tasks: two tasks are named '{}'", ctx, t.name);
    }
    for (const auto& st : s.sequence) {
      if (!names.insert(st.eval.name).second) {
        fail("{}.sequence: the task name '{}' is used twice", ctx, st.eval.name);
      }
    }
  }

  // Plans
  if (j.contains("plans") && j.contains("plan")) fail("{}: give 'plans' or 'plan', not both", ctx);
  if (j.contains("plans")) {
    if (!j["plans"].is_array() || j["plans"].empty()) {
      fail("{}.plans: expected a non-empty array of growth plans", ctx);
    }
    for (size_t i = 0; i < j["plans"].size(); ++i) {
      s.plans.push_back(grow::parse_plan(
          with_spec_defaults(j, with_resolved_paths(without_expansion(j["plans"][i]), base_dir)),
          fmt::format("{}.plans[{}]", ctx, i)));
    }
  } else if (j.contains("plan")) {
    s.plans.push_back(grow::parse_plan(
        with_spec_defaults(j, with_resolved_paths(without_expansion(j["plan"]), base_dir)),
        ctx + ".plan"));
  } else {
    // No plan: GrowthPlan's default variant (full fine-tuning).
    s.plans.push_back(
        grow::parse_plan(Json{{"variant", grow::GrowthPlan().variant}}, ctx + ".plan"));
  }

  // Optimisation
  const std::string tctx = ctx + ".train";
  const Json& t = object_at(j, "train", ctx);
  check_declared(t, "train", tctx);
  s.train.steps = int_key(t, "train.steps", tctx);
  s.train.seq_len = int_key(t, "train.seq_len", tctx);
  if (t.contains("batch_tokens") && t.contains("batch_size")) {
    fail("{}: give batch_tokens or batch_size, not both", tctx);
  }
  if (t.contains("batch_tokens")) {
    int64_t bt = positive(t, "batch_tokens", 1024, tctx);
    if (bt % s.train.seq_len != 0) {
      fail("{}.batch_tokens: {} is not a multiple of seq_len {}", tctx, bt, s.train.seq_len);
    }
    s.train.batch_size = bt / s.train.seq_len;
  } else {
    s.train.batch_size = int_key(t, "train.batch_size", tctx);
  }
  s.train.accumulation = int_key(t, "train.accumulation", tctx);
  s.train.lr = number_key(t, "train.lr", tctx);
  s.train.schedule = choice_key(t, "train.schedule", tctx);
  s.train.warmup = int_key(t, "train.warmup", tctx);
  s.train.min_lr_ratio = number_key(t, "train.min_lr_ratio", tctx);
  s.train.weight_decay = number_key(t, "train.weight_decay", tctx);
  s.train.clip = number_key(t, "train.clip", tctx);
  s.train.beta1 = number_key(t, "train.beta1", tctx);
  s.train.beta2 = number_key(t, "train.beta2", tctx);
  s.train.eps = number_key(t, "train.eps", tctx);
  s.train.replay = number_key(t, "train.replay", tctx);
  s.train.replay_mode = choice_key(t, "train.replay_mode", tctx);
  s.train.diverge_factor = number_key(t, "train.diverge_factor", tctx);
  s.train.row_shards = int_key(t, "train.row_shards", tctx);
  if (s.train.row_shards > s.train.batch_size) {
    fail("{}.row_shards: {} blocks of rows need at least as many rows, batch_size is {}", tctx,
         s.train.row_shards, s.train.batch_size);
  }
  if (t.contains("ce_chunk")) {
    const Json& c = t.at("ce_chunk");
    if (c.is_string() && c.get<std::string>() == "auto") {
      s.train.ce_chunk = -1;
    } else if (c.is_number_integer() && c.get<int64_t>() >= 0) {
      s.train.ce_chunk = c.get<int64_t>();
    } else {
      fail("{}.ce_chunk: must be \"auto\", 0 (never chunk) or a number of tokens, found {}", tctx,
           c.dump());
    }
  }
  if (t.contains("checkpointing")) {
    if (!t.at("checkpointing").is_boolean()) {
      fail("{}.checkpointing: must be true or false, found {}", tctx, t.at("checkpointing").dump());
    }
    s.train.checkpointing = t.at("checkpointing").get<bool>();
  }
  if (s.train.replay > 0 && !s.original_replay.defined()) {
    fail("{}.replay: {} needs data.original.replay (original-domain text to mix in)", tctx,
         s.train.replay);
  }
  for (size_t i = 0; i < s.plans.size(); ++i) {
    const auto& p = s.plans[i];
    if (p.replay && *p.replay > 0 && !s.original_replay.defined()) {
      fail("{}.plans[{}].replay: {} needs data.original.replay (original-domain text to mix in)",
           ctx, i, *p.replay);
    }
    // Neutral residues with p = 0 are the paper's ablation: valid, but the local loss never
    // applies (the runner records a warning with the run).
  }

  // Evaluation, probes, ADEPT, checkpoints
  const std::string ectx = ctx + ".eval";
  const Json& e = object_at(j, "eval", ctx);
  check_declared(e, "eval", ectx);
  s.eval.interval = int_key(e, "eval.interval", ectx);
  s.eval.tokens = int_key(e, "eval.tokens", ectx);
  s.eval.batch_size = int_key(e, "eval.batch_size", ectx);
  s.eval.drift = value_key<bool>(e, "eval.drift", ectx);
  s.eval.max_items = int_key(e, "eval.max_items", ectx);
  s.eval.exact_match = value_key<bool>(e, "eval.exact_match", ectx);
  s.eval.test = value_key<std::string>(e, "eval.test", ectx);
  if (s.eval.test != "ends" && s.eval.test != "every") {
    fail(
        "{}.test: must be \"ends\" (the test sets at step 0 and the end) or \"every\" (at "
        "every evaluation), found '{}'",
        ectx, s.eval.test);
  }
  const std::string pctx = ctx + ".probe";
  const Json& p = object_at(j, "probe", ctx);
  check_declared(p, "probe", pctx);
  s.probe.options = importance::probe_options_from_json(p, pctx);
  s.probe.options.seed = s.seed;
  s.probe.tokens = int_key(p, "probe.tokens", pctx);
  s.probe.batch_size = int_key(p, "probe.batch_size", pctx);
  s.probe.seq_len = int_key(p, "probe.seq_len", pctx);
  const Json& a = object_at(j, "adept", ctx);
  check_declared(a, "adept", ctx + ".adept");
  s.adept.unit_lr = value_key<bool>(a, "adept.unit_lr", ctx + ".adept");
  s.adept.t_update = int_key(a, "adept.t_update", ctx + ".adept");
  s.adept.method = value_key<std::string>(a, "adept.method", ctx + ".adept");
  if (!importance::is_unit_method(s.adept.method)) {
    fail(
        "{}.adept.method: must be taylor-code, taylor, taylor-abs or fisher (a unit importance), "
        "found '{}'",
        ctx, s.adept.method);
  }
  const Json& c = object_at(j, "checkpoint", ctx);
  check_declared(c, "checkpoint", ctx + ".checkpoint");
  s.checkpoint_interval = int_key(c, "checkpoint.interval", ctx + ".checkpoint");
  if (j.contains("guard")) {
    const std::string gctx = ctx + ".guard";
    const Json& g = object_at(j, "guard", ctx);
    check_declared(g, "guard", gctx);
    s.guard.metric = value_key<std::string>(g, "guard.metric", gctx);
    if (!metrics::is_eval(s.guard.metric) || !metrics::find(s.guard.metric)) {
      fail("{}.metric: expected an evaluation metric such as eval/orig/ppl, found '{}'", gctx,
           s.guard.metric);
    }
    s.guard.max_increase = number_key(g, "guard.max_increase", gctx);
    s.guard.action = choice_key(g, "guard.action", gctx);
  }
  // The report section (claims, figures) is read by `growbench-cli report`; validated now so
  // that a typo fails before hours of runs.
  if (j.contains("report")) parse_report_spec(j["report"], ctx + ".report");
  if (j.contains("comment") && !j["comment"].is_string()) {
    fail("{}.comment: expected a string", ctx);
  }

  // The resolved spec is what runs store: absolute paths, every plan in canonical form.
  s.raw = j;
  if (!s.model.path.empty()) s.raw["model"] = s.model.path;
  if (s.model.preset) s.raw["model"] = s.model.preset->raw;
  Json data_raw = Json::object();
  auto put = [&](const char* a1, const char* a2, const DataSource& d) {
    if (d.defined()) data_raw[a1][a2] = d.raw;
  };
  put("original", "eval", s.original_eval);
  put("original", "replay", s.original_replay);
  put("original", "probe", s.original_probe);
  put("new", "train", s.new_train);
  put("new", "eval", s.new_eval);
  put("original", "test", s.original_test);
  put("new", "test", s.new_test);
  auto task_json = [](const TaskSpec& tk) { return tk.to_json(); };
  if (data.contains("tasks")) {
    Json tasks = Json::array();
    for (const auto& tk : s.tasks) tasks.push_back(task_json(tk));
    data_raw["tasks"] = tasks;
  }
  s.raw["data"] = data_raw;
  if (s.is_sequence()) {
    Json seq = Json::array();
    for (const auto& st : s.sequence) {
      seq.push_back({{"name", st.name},
                     {"train", st.train.raw},
                     {"eval", task_json(st.eval)},
                     {"steps", st.steps}});
    }
    s.raw["sequence"] = seq;
  }
  s.raw.erase("plan");
  const Json given_plans = j.contains("plans")  ? j["plans"]
                           : j.contains("plan") ? Json::array({j["plan"]})
                                                : Json::array();
  s.raw["plans"] = Json::array();
  for (size_t i = 0; i < s.plans.size(); ++i) {
    Json pj = grow::to_json(s.plans[i]);
    // The plan's own seeds and sweep stay with it (experiment/expand.h reads them).
    for (const auto& k : expansion_keys()) {
      if (i < given_plans.size() && given_plans[i].is_object() && given_plans[i].contains(k)) {
        pj[k] = given_plans[i][k];
      }
    }
    s.raw["plans"].push_back(std::move(pj));
  }
  s.raw["version"] = kSpecVersion;
  return s;
}

ExperimentSpec load_spec(const std::string& path) {
  Json j = js::parse_file(path);
  std::string base = fs::absolute(fs::path(path)).parent_path().string();
  return parse_spec(j, base, path);
}

}  // namespace gb::experiment
