// Every key of an experiment spec, declared once (spec_schema.h). To add a key: declare it
// here, give it its field in spec.h and read it in parse_spec (spec.cpp), and extend
// tests/tst_schema.cpp's defaults table when it is a scalar with a default
// (docs/architecture.md, "Add a spec key").
#include "experiment/spec_schema.h"

#include <fmt/format.h>

#include "experiment/suggest.h"
#include "grow/plan.h"
#include "grow/plan_schema.h"
#include "grow/variant.h"
#include "importance/result.h"
#include "util/error.h"
#include "util/metrics.h"

namespace gb::experiment {

namespace spec_decl {

using schema::Key;
using schema::Type;
using Json = nlohmann::json;

// A fluent declaration of one key.
struct K {
  Key k;
  K(Key key) : k(std::move(key)) {}  // NOLINT
  K(std::string name, Type type, Json def, std::string help) {
    k.name = std::move(name);
    k.type = type;
    k.default_value = std::move(def);
    k.help = std::move(help);
  }
  K& min(double v, bool open = false) {
    k.min = v;
    k.min_open = open;
    return *this;
  }
  K& max(double v, bool open = false) {
    k.max = v;
    k.max_open = open;
    return *this;
  }
  K& range(double lo, double hi, bool lo_open = false) { return min(lo, lo_open).max(hi); }
  K& choices(std::vector<std::string> c) {
    k.choices = std::move(c);
    return *this;
  }
  K& unit(std::string u) {
    k.unit = std::move(u);
    return *this;
  }
  K& when(std::string w) {
    k.when = std::move(w);
    return *this;
  }
  K& forms(std::vector<std::string> f) {
    k.forms = std::move(f);
    return *this;
  }
  K& shown(std::string text) {  // the default as listings show it
    k.default_text = std::move(text);
    return *this;
  }
  K& item(std::string t) {
    k.item = std::move(t);
    return *this;
  }
  K& ref(std::string t) {
    k.ref = std::move(t);
    return *this;
  }
  K& or_list() {
    k.or_list = true;
    return *this;
  }
  K& or_string() {
    k.or_string = true;
    return *this;
  }
  K& type_text(std::string t) {
    k.type_text = std::move(t);
    return *this;
  }
  K& label(std::string text) {
    k.label = std::move(text);
    return *this;
  }
  K& input(std::string how) {
    k.input = std::move(how);
    return *this;
  }
  K& choice_labels(std::vector<std::string> labels) {
    k.choice_labels = std::move(labels);
    return *this;
  }
  K& keys(std::vector<Key> c) {
    k.keys = std::move(c);
    return *this;
  }
  operator Key() const { return k; }  // NOLINT: the declarations read as lists
};

K integer(std::string name, Json def, std::string help) {
  return K(std::move(name), Type::Int, std::move(def), std::move(help));
}
K number(std::string name, Json def, std::string help) {
  return K(std::move(name), Type::Number, std::move(def), std::move(help));
}
K boolean(std::string name, bool def, std::string help) {
  return K(std::move(name), Type::Bool, def, std::move(help));
}
K text(std::string name, Json def, std::string help) {
  return K(std::move(name), Type::String, std::move(def), std::move(help));
}
K choice(std::string name, Json def, std::vector<std::string> choices, std::string help) {
  return K(std::move(name), Type::Choice, std::move(def), std::move(help))
      .choices(std::move(choices));
}
K object(std::string name, std::string help, std::vector<Key> keys) {
  return K(std::move(name), Type::Object, nullptr, std::move(help)).keys(std::move(keys));
}
K objects(std::string name, std::string help, std::vector<Key> keys) {  // a list of objects
  return K(std::move(name), Type::List, nullptr, std::move(help)).keys(std::move(keys));
}
K source(std::string name, std::string help) {
  return K(std::move(name), Type::Ref, nullptr, std::move(help)).ref("SOURCE").or_string();
}

// ---------------------------------------------------------------------------------------
// Named types

Key source_type() {
  const std::vector<std::string> corpus = {"corpus"}, qa = {"qa"}, bio = {"biography"};
  Key t = object(
      "SOURCE", "a data source: a path string, a text corpus, a QA file or a biography part",
      {
          text("path", nullptr, "a text file or folder (text corpus)")
              .label("File or folder")
              .input("path")
              .shown("required")
              .forms(corpus),
          choice("format", "auto", {"auto", "text", "jsonl", "fortunes"}, "how the corpus is read")
              .label("Format")
              .forms(corpus),
          text("field", "text", "JSONL: the field holding the text")
              .label("JSONL field")
              .forms(corpus),
          choice("unit", "file", {"file", "paragraph", "line"}, "text files: what one document is")
              .label("Document unit")
              .forms(corpus),
          boolean("recursive", true, "folders: descend into sub-folders")
              .label("Recursive")
              .forms(corpus),
          boolean("strip_overstrike", true, "fortunes: remove \"x\\b\" overstrike pairs")
              .label("Strip overstrike")
              .forms(corpus),
          integer("min_chars", 1, "drop documents with fewer non-blank bytes")
              .label("Minimum characters")
              .min(0)
              .forms(corpus),
          choice("part", "all", {"all", "train", "heldout", "validation", "test"},
                 "a document-level split seeded by the spec's seed; validation and "
                 "test are the two halves of the held-out part")
              .label("Part")
              .forms(corpus),
          number("heldout", nullptr, "the held-out fraction of the documents")
              .label("Held-out fraction")
              .range(0, 1)
              .shown("0.1 (0 with part all)")
              .forms(corpus),
          text("qa", nullptr, "a QA JSONL file ({\"question\", \"answer\"} lines)")
              .label("QA file")
              .input("path")
              .shown("required")
              .forms(qa),
          boolean("mask_prompt", true, "QA: the loss on the answer only")
              .label("Loss on the answer only")
              .forms(qa),
          object(
              "biography", "the biography benchmark's options (SCALE §5.1, data/biography.h)",
              {
                  integer("seed", 0, "the generator's seed").label("Generator seed").min(0),
                  integer("num_people", 200000, "people generated").label("People").min(1),
                  integer("bios_per_person", 5, "biographies per person")
                      .label("Biographies per person")
                      .min(1),
                  number("pretrain_fraction", 0.5, "people with biographies in pretraining")
                      .label("Pretrain fraction")
                      .range(0, 1),
                  number("task0_train_fraction", 0.5, "of those, people whose QA trains task 0")
                      .label("Task 0 train fraction")
                      .range(0, 1),
                  number("task1_fraction", 0.1, "new people for task 1, a fraction of num_people")
                      .label("Task 1 fraction")
                      .range(0, 1),
              })
              .label("Biography options")
              .forms(bio),
          choice("part", nullptr, {"pretrain", "task0_train", "task0_test", "task1"},
                 "the part of the benchmark")
              .label("Part")
              .shown("required")
              .forms(bio),
          integer("max_docs", -1, "at most this many documents (-1: all)").label("Max documents"),
          integer("max_tokens", -1, "at most this many tokens (-1: all)")
              .label("Max tokens")
              .forms({"corpus", "biography"}),
      });
  t.form_of = [](const Json& j) -> std::string {
    if (j.contains("qa")) return "qa";
    if (j.contains("biography")) return "biography";
    return "corpus";
  };
  return t;
}

Key cloze_key() {
  return object(
             "cloze", "a multiple-choice task built at run time from a corpus (data/cloze.h)",
             {
                 source("source", "the corpus to cut passages from")
                     .label("Corpus")
                     .shown("required"),
                 integer("items", 200, "at most this many items").label("Items").min(1),
                 integer("choices", 3, "the true continuation and choices − 1 distractors")
                     .label("Choices")
                     .range(2, 26),
                 integer("seed", 0, "the items' seed").label("Seed").min(0),
                 integer("min_context_words", 4, "words of context, at least")
                     .label("Min context words")
                     .min(1),
                 integer("max_context_words", 40, "words of context, at most")
                     .label("Max context words")
                     .min(1),
                 integer("min_continuation_words", 3, "words of each continuation, at least")
                     .label("Min continuation words")
                     .min(1),
                 integer("max_continuation_words", 12, "words of each continuation, at most")
                     .label("Max continuation words")
                     .min(1),
                 choice("distractors", "passages", {"passages", "shuffled"},
                        "distractors from other passages or the true continuation's words shuffled")
                     .label("Distractors"),
             })
      .label("Cloze items");
}

Key task_type() {
  return object(
      "TASK", "an evaluation task",
      {
          text("name", nullptr,
               "names its metrics eval/<name>/...; not orig, new, drift, op or bwt")
              .label("Task name")
              .shown("required"),
          choice("kind", nullptr, {"lm", "mc", "qa"},
                 "lm: loss and perplexity; mc: multiple choice; qa: answer accuracy")
              .label("Kind")
              .choice_labels(
                  {"language modelling (lm)", "multiple choice (mc)", "question answering (qa)"})
              .shown("required"),
          source("source", "the task's data (lm: any text source; qa: a QA or biography source)")
              .label("Source")
              .when("for kinds lm and qa"),
          text("path", nullptr, "mc: a JSONL file of items; lm and qa: the source's path")
              .label("File")
              .input("path"),
          K(cloze_key()).when("for kind mc"),
          integer("max_items", -1, "items evaluated (-1: eval.max_items)").label("Max items"),
          object("test",
                 "the held-out test version (the same kind), evaluated at step 0 and the end "
                 "as test/<name>/...",
                 {
                     source("source", "as the task's source").label("Test source"),
                     text("path", nullptr, "as the task's path").label("Test file").input("path"),
                     K(cloze_key()).when("for kind mc"),
                     integer("max_items", nullptr, "items evaluated")
                         .label("Test max items")
                         .shown("the task's"),
                 })
              .label("Held-out test"),
      });
}

// The expansion keys a plan may carry (experiment/expand.h), besides the shared plan keys.
std::vector<Key> plan_expansion_keys() {
  return {
      K("seeds", Type::List, nullptr, "this plan's seeds (replace the top-level seeds)")
          .label("Seeds")
          .item("int")
          .shown("the spec's"),
      K("sweep", Type::Map, nullptr,
        "this plan's sweep: train.* keys and its parameters → values (replaces the top-level "
        "sweep)")
          .label("Sweep"),
      choice("sweep_mode", "grid", {"grid", "random"}, "grid, or random draws of `samples` points")
          .label("Sweep mode"),
      integer("samples", nullptr, "random points drawn for this plan")
          .label("Samples")
          .min(1)
          .when("with sweep_mode random"),
      K("train", Type::Map, nullptr,
        "fixed train overrides for this plan (the train keys a sweep may set; a sweep point "
        "of the same key wins)")
          .label("Train overrides"),
      text("comment", nullptr, "a note kept with the plan").label("Comment"),
  };
}

Key plan_type() {
  Key t = object("PLAN", "a growth plan (docs/plans.md)", grow::plan_common_keys());
  for (auto& k : plan_expansion_keys()) t.keys.push_back(std::move(k));
  t.dynamic = [](const Json& j) -> std::optional<std::vector<Key>> {
    auto v = j.find("variant");
    if (v == j.end() || !v->is_string()) return std::nullopt;
    const grow::VariantModule* m = grow::find_variant(v->get<std::string>());
    if (!m) return std::nullopt;
    std::vector<Key> keys;
    for (const auto& p : m->params) keys.push_back(grow::to_schema_key(p));
    return keys;
  };
  t.dynamic_listing = [] {
    std::vector<std::pair<std::string, std::vector<Key>>> out;
    for (const grow::VariantModule* m : grow::variants()) {
      std::vector<Key> keys;
      for (const auto& p : m->params) {
        if (!p.hidden) keys.push_back(grow::to_schema_key(p));
      }
      out.emplace_back(m->id, std::move(keys));
    }
    return out;
  };
  return t;
}

// ---------------------------------------------------------------------------------------
// Sections

Key model_key() {
  Key m =
      object(
          "model",
          "a Hugging Face or GrowBench folder (a path string or {\"path\": ...}), or a preset",
          {
              text("path", nullptr, "the model folder")
                  .label("Folder")
                  .input("folder")
                  .forms({"path"}),
              choice("preset", nullptr, {"tiny-llama"}, "a built-in model trained from scratch")
                  .label("Preset")
                  .forms({"preset"}),
              K("config", Type::Map, nullptr, "config.json overrides of the preset's architecture")
                  .label("Config overrides")
                  .forms({"preset"}),
              object("tokenizer", "the byte-level BPE tokenizer trained for the preset",
                     {
                         K("data", Type::Ref, nullptr, "the tokenizer's text: one source or a list")
                             .label("Tokenizer text")
                             .ref("SOURCE")
                             .or_list()
                             .or_string()
                             .shown("the first stage's data"),
                         integer("vocab_size", 4096, "the vocabulary size")
                             .label("Vocabulary size")
                             .min(300),
                     })
                  .label("Tokenizer")
                  .forms({"preset"}),
              objects("stages", "the preset's training stages, in order (at least one)",
                      {
                          text("name", "pretrain", "the stage's name").label("Stage name"),
                          source("data", "the stage's training data")
                              .label("Training data")
                              .shown("required"),
                          integer("steps", 100, "optimizer steps").label("Steps").min(1),
                          number("lr", 1e-3, "peak learning rate (AdamW, cosine)")
                              .label("Learning rate")
                              .range(0, 10, true),
                          integer("seq_len", 128, "tokens per sequence")
                              .label("Sequence length")
                              .min(2),
                          integer("batch_size", 16, "rows per batch").label("Batch size").min(1),
                          integer("warmup", 0, "linear warm-up steps").label("Warm-up").min(0),
                      })
                  .label("Pretraining stages")
                  .forms({"preset"}),
          })
          .label("Model");
  m.or_string = true;
  m.type_text = "string | object";
  m.default_text = "required";
  m.form_of = [](const Json& j) -> std::string { return j.contains("preset") ? "preset" : "path"; };
  return m;
}

Key data_key() {
  return K(object(
               "data", "original-domain and new-domain data, evaluation tasks",
               {
                   object("original", "the original domain (forgetting)",
                          {
                              source("eval", "forgetting: eval/orig/loss, ppl and drift/cosine")
                                  .label("Evaluation"),
                              source("replay",
                                     "original-domain text mixed into training (train.replay)")
                                  .label("Replay"),
                              source("probe", "the general probe set for importance")
                                  .label("Probe set")
                                  .shown("original.eval"),
                              source("test", "held-out test set, evaluated at step 0 and the end")
                                  .label("Held-out test"),
                          })
                       .label("Original domain (forgetting)"),
                   object("new", "the new domain (learning)",
                          {
                              source("train", "the new-domain training data")
                                  .label("Training")
                                  .shown("required without sequence"),
                              source("eval", "learning: eval/new/loss and ppl").label("Evaluation"),
                              source("test", "held-out test set, evaluated at step 0 and the end")
                                  .label("Held-out test"),
                          })
                       .label("New domain (learning)"),
                   K("tasks", Type::List, nullptr, "evaluation tasks, scored at every evaluation")
                       .label("Evaluation tasks")
                       .ref("TASK"),
               })
               .label("Data"))
      .shown("required");
}

Key train_key() {
  return object(
             "train", "optimisation",
             {
                 integer("steps", 100,
                         "optimizer steps (per task in a sequence unless the task sets `steps`)")
                     .label("Steps")
                     .min(1),
                 integer(
                     "seq_len", 128,
                     "tokens per sequence (packed, no padding; QA items and biographies reordered "
                     "every epoch)")
                     .label("Sequence length")
                     .min(2),
                 integer("batch_size", 8, "rows per micro-batch").label("Batch size").min(1),
                 integer("batch_tokens", nullptr,
                         "instead of batch_size: tokens per micro-batch (a multiple of `seq_len`)")
                     .label("Batch tokens")
                     .min(1),
                 integer("accumulation", 1, "micro-batches per step").label("Accumulation").min(1),
                 number("lr", 3e-4, "peak learning rate").label("Learning rate").range(0, 10, true),
                 choice("schedule", "cosine", {"constant", "linear", "cosine"},
                        "learning-rate schedule (decay to `min_lr_ratio`·lr)")
                     .label("Schedule"),
                 integer("warmup", 0, "linear warm-up steps").label("Warm-up").min(0),
                 number("min_lr_ratio", 0.1, "final learning rate as a fraction of `lr`")
                     .label("Final LR ratio")
                     .range(0, 1),
                 number("weight_decay", 0.0,
                        "AdamW decoupled decay (not on vectors: biases, norms, gates)")
                     .label("Weight decay")
                     .range(0, 10),
                 number("clip", 1.0, "global gradient-norm clipping (0: off)")
                     .label("Gradient clipping")
                     .range(0, 1e9),
                 number("beta1", 0.9, "AdamW β1").label("β₁").range(0, 1),
                 number("beta2", 0.95, "AdamW β2").label("β₂").range(0, 1),
                 number("eps", 1e-8, "AdamW ε").label("ε").range(0, 1, true),
                 number("replay", 0.0,
                        "fraction p of batches drawn from `data.original.replay` (the default of "
                        "every plan)")
                     .label("Replay fraction")
                     .range(0, 1),
                 choice(
                     "replay_mode", "batches", {"batches", "rows"},
                     "how replay mixes (the default of every plan; a plan's own `\"replay_mode\"` "
                     "overrides it): `batches`, whole original-domain batches with probability p; "
                     "`rows`, every batch holds ⌊p·B⌋ or ⌈p·B⌉ original-domain rows, the fraction "
                     "carried over from batch to batch so that the first k batches hold "
                     "⌊k·p·B + ½⌋ (long-run fraction exactly p; docs/plans.md, Common keys). A run "
                     "parameter `train.replay_mode` only where it is `rows`")
                     .label("Replay mode"),
                 integer(
                     "row_shards", 1,
                     "blocks of rows each micro-batch is split into (at most `batch_size`): each "
                     "block's forward and backward pass runs apart, on the CPU on as many cores at "
                     "once as OpenBLAS would use (one BLAS thread each), and their gradients are "
                     "summed in block order; results equal 1 block's up to float32 rounding and do "
                     "not depend on the number of cores. Memory: each block holds its share of the "
                     "activations, and its gradient is a separate copy of the trainable tensors' "
                     "size until the blocks are summed. 2 on a 2-core machine trains about 1.2× "
                     "faster than 1 (docs/performance.md)")
                     .label("Row shards")
                     .min(1),
                 number("diverge_factor", 10.0,
                        "the run ends `diverged` when its next-token loss stays above this × its "
                        "first "
                        "logged value for 3 consecutive steps (0: off); a non-finite loss or "
                        "evaluation metric always does")
                     .label("Divergence factor")
                     .range(0, 1e9),
                 K("ce_chunk", Type::Any, "auto",
                   "chunked cross-entropy for large vocabularies: the loss is computed from the "
                   "final hidden states N tokens at a time, each chunk's gradient formed from its "
                   "logits at once (the backward pass only scales it), so no more than one chunk "
                   "of the (tokens × vocabulary) logits and their gradient exists at once and the "
                   "logits are computed once a step (core/train/chunked_ce.h). `\"auto\"` chunks "
                   "only "
                   "where "
                   "one micro-batch's (one row block's) float32 logits would exceed 256 MiB, in "
                   "chunks "
                   "of at most 64 MiB of logits (Qwen3's 151 936-wide vocabulary at 4 × 256 "
                   "tokens: "
                   "110 tokens a chunk); below that (the tiny presets, every quickstart and paper "
                   "run) "
                   "it is the plain path, bit for bit. `0` never chunks; a number of tokens always "
                   "chunks (the loss then equals the plain one up to float32 rounding). Needs a "
                   "plain "
                   "or tied LM head: with SCALE Route's two-pass head `\"auto\"` stays plain and a "
                   "number is refused")
                     .label("Cross-entropy chunk")
                     .type_text("\"auto\" | int"),
                 boolean(
                     "checkpointing", false,
                     "activation checkpointing per decoder layer: each layer runs without keeping "
                     "its intermediate tensors, keeps only its input, and runs again in the "
                     "backward pass (about one more forward pass of compute; memory: every layer's "
                     "input plus one layer's activations instead of all of them). The loss and "
                     "gradients are those of a run without it, bit for bit (the layers draw no "
                     "random numbers). Plans whose layers add an auxiliary loss during the forward "
                     "pass (neutral residues' local losses, LoRAMoE's load balance) are refused "
                     "with an error naming the term. The GUI's experiment editor shows this key "
                     "and "
                     "`ce_chunk` on its Training page")
                     .label("Activation checkpointing"),
             })
      .label("Optimisation");
}

Key eval_key() {
  return object(
             "eval", "evaluation",
             {
                 integer("interval", 50,
                         "steps between evaluations (step 0 and the last step always)")
                     .label("Interval")
                     .min(1),
                 integer("tokens", 16384, "token budget of each LM evaluation set")
                     .label("Tokens")
                     .min(2),
                 integer("batch_size", 8, "rows per evaluation batch").label("Batch size").min(1),
                 boolean("drift", true, "representation drift on `data.original.eval`")
                     .label("Representation drift"),
                 integer("max_items", 200, "items per MC/QA task").label("Max items"),
                 boolean("exact_match", true, "greedy exact match for QA tasks")
                     .label("Exact match"),
                 choice(
                     "test", "ends", {"ends", "every"},
                     "when the held-out test sets (`data.*.test`, tasks' `test`) are evaluated: "
                     "`\"ends\"` at step 0 and the end, `\"every\"` at every evaluation (needed by "
                     "`compare --at` and the trade-off fronts, which choose a rate and a step on "
                     "the validation sets and report the test value of that same run and step)")
                     .label("Test sets"),
             })
      .label("Evaluation");
}

Key probe_key() {
  return object(
             "probe",
             "how the importance probes run (layer policies, ADEPT's and EWC's Fisher); the same "
             "options as `growbench-cli probe`",
             {
                 choice("method", "masking", importance::method_names(),
                        "the default probe method (a policy or adept.method names its own)")
                     .label("Method"),
                 integer("tokens", 8192, "tokens of the probe set").label("Tokens").min(2),
                 integer("batch_size", 4, "rows per probe batch").label("Batch size").min(1),
                 integer("seq_len", 128, "tokens per probe sequence")
                     .label("Sequence length")
                     .min(2),
                 choice("masking_mode", "cached", {"cached", "naive"},
                        "masking: reuse the prefix before the masked layer, or run it whole")
                     .label("Masking mode"),
                 choice("fisher_mode", "sequence", {"sequence", "batch"},
                        "Fisher: squared gradients per sequence or per batch")
                     .label("Fisher mode"),
                 integer("steps", 50, "update-magnitude and effective-rank: training steps")
                     .label("Fine-tuning steps")
                     .min(1),
                 number("lr", 1e-4, "update-magnitude and effective-rank: learning rate")
                     .label("Fine-tuning LR")
                     .min(0, true),
                 integer("snapshot_every", 0,
                         "effective-rank: steps between snapshots (0: steps / 5)")
                     .label("Snapshot every")
                     .min(0),
                 choice("reference", "previous", {"previous", "base"},
                        "effective-rank: ΔW against the previous snapshot or the base weights")
                     .label("Reference"),
                 boolean("checkpointing", false,
                         "the gradient probes (taylor, taylor-abs, taylor-code, fisher): "
                         "activation checkpointing per decoder layer, as train.checkpointing "
                         "(the same numbers, about one more forward pass, the activations of "
                         "one layer at a time)")
                     .label("Activation checkpointing"),
             })
      .label("Importance probes");
}

Key adept_key() {
  std::vector<std::string> unit_methods;
  for (const auto& m : importance::method_names()) {
    if (importance::is_unit_method(m)) unit_methods.push_back(m);
  }
  return object("adept", "defaults for ADEPT plans' stage 2 (earlier specs; the plan's keys win)",
                {
                    boolean("unit_lr", false, "unit-wise learning rates (the plans' unit_lr)")
                        .label("Unit-wise learning rates"),
                    integer("t_update", 500, "steps between unit-rate assignments")
                        .label("T_update")
                        .min(1),
                    choice("method", "taylor-code", unit_methods,
                           "unit importance (the plans' unit_importance)")
                        .label("Unit importance"),
                })
      .label("ADEPT defaults");
}

Key guard_key() {
  return object(
             "guard", "a forgetting guard per run",
             {
                 text("metric", metrics::kEvalOrigPpl,
                      "the evaluation metric compared with its step-0 value")
                     .label("Metric"),
                 number("max_increase", 0.05, "the largest relative change in the bad direction")
                     .label("Budget")
                     .range(0, 1e9),
                 choice("action", "stop", {"stop", "rollback"},
                        "stop the run, or roll back to the last evaluation within the budget and "
                        "finish from there")
                     .label("Action"),
             })
      .label("Forgetting guard");
}

Key report_key() {
  auto any = [](std::string name, std::string type, std::string help) {
    return K(std::move(name), Type::Any, nullptr, std::move(help)).type_text(std::move(type));
  };
  return object(
      "report",
      "what the runs are meant to show, for `growbench-cli report` (its inner keys are "
      "checked by the report's parser; see Reports and smoke runs)",
      {
          text("paper", nullptr, "the paper file"),
          text("section", nullptr, "the paper's section or figure"),
          text("claim", nullptr, "the claim in one sentence"),
          text("setting", nullptr, "how this experiment tests it"),
          any("columns", "list", "metric references shown per plan"),
          any("claims", "list", "claims with their conditions ({id, text, all, matched, at})"),
          any("figures", "list", "figures ({kind, metric | x, y, title, ...})"),
          any("protocol", "object", "the protocol runs of each plan"),
          any("matched", "object", "matched learning: the metrics and the level"),
      });
}

Key suggest_key() {
  return object(
      "suggest",
      "a search over growth plans for `growbench-cli suggest --spec` (docs/suggest.md); `run` "
      "ignores it",
      {
          object(
              "budget", "the search's budgets",
              {
                  K("forgetting", Type::Number, 0.05, "the largest relative rise of eval/orig/ppl")
                      .type_text("number | string")
                      .shown("5%"),
                  K("params", Type::Number, 0.1,
                    "the largest added parameters, a fraction of the base model")
                      .type_text("number | string")
                      .shown("10%"),
              }),
          K("time", Type::Number, 1800.0, "wall-clock budget of the search")
              .type_text("number | string")
              .unit("s, or \"30m\", \"1.5h\""),
          K("rates", Type::List, Json::array({3e-4, 1e-3, 3e-3}),
            "learning rates every candidate tries")
              .item("number"),
          K("variants", Type::List, Json::array(), "the variants proposed (empty: every one)")
              .item("string")
              .choices(grow::variant_names()),
          K("policies", Type::List,
            Json::array({"all", "least-important", "update-magnitude", "uniform"}),
            "the layer policies proposed")
              .item("string")
              .choices(suggest_policy_choices()),
          integer("eta", 2, "successive halving: keep 1/eta at each rung").min(2),
          integer("steps", 0, "steps of the longest rung before rounding (0: train.steps)").min(0),
          integer("min_rung_steps", 4, "the first rung's steps, at least").min(1),
          integer("max_candidates", 0, "candidates at most (0: as many as the time affords)")
              .min(0),
          text("comment", nullptr, "a note kept with the section"),
      });
}

schema::Schema build() {
  schema::Schema s;
  s.root = "spec";
  s.keys = {
      integer("version", 1, "spec format version").label("Spec version").range(1, 1),
      text("name", "experiment", "prefix of the run names").label("Name"),
      text("description", nullptr, "what the experiment is for (text kept with the spec)")
          .label("Description")
          .input("text"),
      text("comment", nullptr, "a note kept with the spec").label("Comment"),
      integer("seed", 0,
              "base model (presets), data splits, probe sets; also the run seed unless `seeds` "
              "is given")
          .label("Seed")
          .min(0),
      integer("run_seed", nullptr,
              "the run seed: data order and new parameters' initial values (each expanded "
              "run's spec holds it; give `seeds` instead)")
          .label("Run seed")
          .min(0)
          .shown("seed"),
      K("seeds", Type::List, nullptr,
        "one run per seed: the run seed sets data order and new parameters' initial values")
          .label("Seeds")
          .item("int")
          .shown("[seed]"),
      K("sweep", Type::Map, nullptr,
        "a grid (or random search) over `train.*` keys and plan parameters → values (see "
        "Seeds, sweeps and groups)")
          .label("Sweep"),
      choice("sweep_mode", "grid", {"grid", "random"}, "`random` with `samples: N` draws N points")
          .label("Sweep mode"),
      integer("samples", nullptr, "random points drawn per plan")
          .label("Samples")
          .min(1)
          .when("with sweep_mode random"),
      text("device", "cpu", "`cpu`, `cuda` or `cuda:N`").label("Device"),
      choice("dtype", "float32", {"float32", "bfloat16", "float16"}, "weights' dtype")
          .label("Data type"),
      choice("frozen_dtype", "checkpoint", {"checkpoint", "float32", "bfloat16", "float16"},
             "the frozen weight matrices' dtype while training (linear units, embeddings, a "
             "plain head) where it is narrower than `dtype`: `checkpoint` keeps the "
             "checkpoint's own (a bf16 checkpoint's frozen base stays bf16: half the memory), "
             "`float32` converts them like every other weight; trainable and new parameters, "
             "gradients and optimizer state keep `dtype`")
          .label("Frozen weights' dtype"),
      integer("threads", 1, "LibTorch intra-op threads (1 is fastest with OpenBLAS on 2 cores)")
          .label("Threads")
          .min(1),
      model_key(),
      data_key(),
      objects("sequence", "a task sequence instead of `data.new.train` (see Task sequences)",
              {
                  text("name", nullptr, "the task's name").label("Name").shown("required"),
                  source("train", "the task's training data").label("Training").shown("required"),
                  K("eval", Type::Ref, nullptr, "the task's evaluation (its name: the step's)")
                      .label("Evaluation")
                      .ref("TASK")
                      .shown("required"),
                  integer("steps", 0, "optimizer steps of this task (0: train.steps)")
                      .label("Steps")
                      .min(0),
              })
          .label("Task sequence"),
      K("plans", Type::List, nullptr, "growth plans, one run each (or `plan`: one)")
          .label("Plans")
          .ref("PLAN")
          .shown("[{\"variant\": \"full\"}]"),
      K("plan", Type::Ref, nullptr, "one growth plan (instead of `plans`)")
          .label("Plan")
          .ref("PLAN"),
      train_key(),
      eval_key(),
      probe_key(),
      adept_key(),
      object("checkpoint", "checkpoints",
             {integer("interval", 0, "a checkpoint every N steps (0: at the end and on cancel)")
                  .label("Interval")
                  .min(0)})
          .label("Checkpoints"),
      guard_key(),
      report_key(),
      suggest_key(),
  };
  s.types.emplace("SOURCE", source_type());
  s.types.emplace("TASK", task_type());
  s.types.emplace("PLAN", plan_type());
  return s;
}

}  // namespace spec_decl

const schema::Schema& spec_schema() {
  static const schema::Schema s = spec_decl::build();
  return s;
}

const schema::Key& spec_key(const std::string& path) {
  const schema::Key* k = spec_schema().find(path);
  if (!k) fail("spec schema: no key '{}' is declared", path);
  return *k;
}

}  // namespace gb::experiment
