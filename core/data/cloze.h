#pragma once
// Cloze multiple-choice tasks built from any corpus: "choose the true continuation of a
// passage among C continuations, the others taken from elsewhere in the same corpus". They
// measure original-domain and new-domain accuracy on held-out text (grow-dont-overwrite.txt
// Fig. 2 reports accuracies; GrowBench builds the tasks from Debian's fortunes).
//
// One item per usable document, in the order of permutation(documents, seed):
//   - the document's whitespace is folded (runs of spaces, tabs and newlines become one
//     space) and it is cut into words at those spaces;
//   - a document needs at least min_context_words + min_continuation_words words; the
//     context is the first half of its words (at least min_context_words, at most
//     max_context_words counted back from the cut), the true continuation the next
//     words, at most max_continuation_words;
//   - distractors "passages" (default): each distractor is the continuation of another
//     document, cut to the same number of words as the true continuation (so no choice is
//     told apart by its length in words), taken from the pool of all usable documents by a
//     generator seeded by `seed`;
//     distractors "shuffled": each distractor is a random permutation of the true
//     continuation's own words (same words, same length: only word order and its fit to the
//     context tell them apart, a minimal-pair test of the language that a small model can
//     pass well above chance);
//     a distractor equal to the true continuation or to another choice is drawn again;
//   - the true continuation's position among the choices is drawn uniformly.
// The result depends only on the documents, the options and the seed.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "data/tasks.h"

namespace gb::data {

struct ClozeOptions {
  int64_t items = 200;  // at most this many items (fewer when the corpus has fewer usable)
  int choices = 3;      // the true continuation and choices - 1 distractors
  uint64_t seed = 0;
  int min_context_words = 4;
  int max_context_words = 40;
  int min_continuation_words = 3;
  int max_continuation_words = 12;
  std::string distractors = "passages";  // "passages" or "shuffled"
};

// Parses {"items", "choices", "seed", "min_context_words", ...}; unknown keys are errors
// naming `context`.
ClozeOptions cloze_options_from_json(const nlohmann::json& j, const std::string& context);
nlohmann::json to_json(const ClozeOptions& options);

// Builds the task; throws when fewer than `choices` documents are usable (no distractors).
std::vector<McItem> make_cloze_task(const std::vector<Document>& documents,
                                    const ClozeOptions& options);

}  // namespace gb::data
