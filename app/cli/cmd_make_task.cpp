// growbench-cli make-task: a cloze multiple-choice task from any corpus (data/cloze.h),
// written as the MC JSONL the evaluator reads.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "common.h"
#include "data/cloze.h"
#include "data/tasks.h"
#include "experiment/sources.h"
#include "experiment/spec.h"

namespace gb::cli {
namespace {

struct MakeTaskOptions {
  std::string corpus, out;
  std::string format = "auto", unit = "paragraph", part = "all", distractors = "passages";
  double heldout = 0.1;
  int64_t split_seed = 0;
  int64_t items = 200, choices = 3, seed = 0;
  int64_t min_context_words = 4, max_context_words = 40;
  int64_t min_continuation_words = 3, max_continuation_words = 12;
  bool json = false;
};

void declare_make_task(CLI::App& app, MakeTaskOptions& o) {
  app.add_option("CORPUS", o.corpus,
                 "a text file or folder, a JSONL file, or a fortune file or folder")
      ->type_name("CORPUS")
      ->required();
  add_option(app, "--out", o.out, "FILE", "the task file to write (JSONL, one item per line)")
      ->required();
  add_option(app, "--format", o.format, "FMT", "how to read CORPUS")
      ->check(one_of({"auto", "text", "jsonl", "fortunes"}));
  add_option(app, "--unit", o.unit, "UNIT", "plain text: one document per file, paragraph or line")
      ->check(one_of({"file", "paragraph", "line"}));
  add_option(app, "--part", o.part, "PART",
             "the documents to cut passages from: all, or a part of the document-level split\n"
             "the experiment specs use (train, heldout, or its halves validation and test)")
      ->check(one_of({"all", "train", "heldout", "validation", "test"}));
  add_option(app, "--heldout", o.heldout, "F", "held-out fraction of the split")
      ->check(number_range(0, 1, true, true));
  add_option(app, "--split-seed", o.split_seed, "N",
             "the split's seed (an experiment spec's top-level seed)")
      ->check(at_least(0));
  add_option(app, "--items", o.items, "N", "at most N items")->check(at_least(1));
  add_option(app, "--choices", o.choices, "N", "choices per item (1 true, N-1 from elsewhere)")
      ->check(int_range(2, 26));
  add_option(app, "--distractors", o.distractors, "KIND",
             "passages: continuations of other documents cut to the same number of words;\n"
             "shuffled: permutations of the true continuation's own words")
      ->check(one_of({"passages", "shuffled"}));
  add_option(app, "--seed", o.seed, "N",
             "the passages' order, the distractors and the answer position")
      ->check(at_least(0));
  add_option(app, "--min-context-words", o.min_context_words, "N", "")->check(at_least(1));
  add_option(app, "--max-context-words", o.max_context_words, "N", "")->check(at_least(1));
  add_option(app, "--min-continuation-words", o.min_continuation_words, "N", "")
      ->check(at_least(1));
  add_option(app, "--max-continuation-words", o.max_continuation_words, "N", "")
      ->check(at_least(1));
  add_flag(app, "--json", o.json, "print a JSON summary (items, file, options) on stdout");
}

int run_make_task(const MakeTaskOptions& o) {
  nlohmann::json src = {{"path", o.corpus}, {"format", o.format}, {"part", o.part}};
  if (o.format == "text" || o.format == "auto") src["unit"] = o.unit;
  if (o.part != "all") src["heldout"] = o.heldout;
  const auto source = experiment::parse_source(src, {}, "make-task");
  nlohmann::json options = {{"items", o.items},
                            {"choices", o.choices},
                            {"seed", o.seed},
                            {"min_context_words", o.min_context_words},
                            {"max_context_words", o.max_context_words},
                            {"min_continuation_words", o.min_continuation_words},
                            {"max_continuation_words", o.max_continuation_words},
                            {"distractors", o.distractors}};
  const auto cloze = data::cloze_options_from_json(options, "make-task");
  const auto docs = experiment::source_documents(source, static_cast<uint64_t>(o.split_seed));
  const auto items = data::make_cloze_task(docs, cloze);
  data::write_mc_jsonl(o.out, items);
  if (o.json) {
    print_json({{"file", o.out},
                {"items", items.size()},
                {"documents", docs.size()},
                {"source", source.raw},
                {"cloze", data::to_json(cloze)}});
  } else {
    fmt::print("{} items of {} choices from {} documents written to {}\n", items.size(), o.choices,
               docs.size(), o.out);
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "make-task",
    "make-task CORPUS --out FILE.jsonl [--part PART] [--items N] [--choices N] [--seed N] "
    "[--json]",
    "Builds a cloze multiple-choice task from a corpus: for each usable document (in a seeded\n"
    "order), the first half of its words is the context and the true continuation the next\n"
    "words (at most --max-continuation-words); the other choices are continuations of other\n"
    "documents of the same corpus cut to the same number of words, and the true one's position\n"
    "is drawn at random. Deterministic by --seed (and --split-seed for --part). Writes the\n"
    "multiple-choice JSONL the evaluator reads ({\"context\", \"choices\", \"answer\"}); an\n"
    "experiment spec can also build the same task at run time (a task's \"cloze\" key).",
    &declare_make_task, &run_make_task,
    "Exit status: 0 success, 1 error (unreadable corpus, too few usable documents), 2 usage.");

}  // namespace gb::cli
