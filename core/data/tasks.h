#pragma once
// Evaluation and fine-tuning tasks from JSONL files: multiple choice and question answering,
// with the exact prompt formats the evaluators use.
//
// Multiple choice, one object per line:
//   {"context": "...", "choices": ["...", "..."], "answer": 1}
// Accepted aliases (the first present key wins):
//   context  "context", "ctx", "question", "query", "question_stem", "prompt"
//   choices  "choices", "endings", "options": an array of strings, or an object
//            {"text": [...], "label": [...]} (ARC / OpenBookQA)
//   answer   "answer", "label", "gold", "answerKey", "answer_idx": a 0-based integer, a
//            string of digits ("2", HellaSwag), or a choice label ("B"; with no label list,
//            "A".."Z" map to 0..25)
// Scoring text: context + mc_continuation(context, choice), see below.
//
// Question answering, one object per line:
//   {"question": "...", "answer": "...", "id": "...", "person": "...", "attribute": "..."}
// "id", "person" and "attribute" are optional (id may be an integer); "q"/"a" are accepted
// aliases of question/answer, and an "answers" array uses its first element.
// Prompt format (biography benchmark, after Zheng et al. 2025):
//   prompt       = question + "\nAnswer:"        e.g. "Where was Ada Lee Moss born?\nAnswer:"
//   continuation = " " + answer                  e.g. " Lisbon"
// The evaluator tokenises the prompt with special tokens and the continuation without, and
// hard first-token accuracy checks the first continuation token; fine-tuning text is
// prompt + continuation (see qa_documents).

#include <cstdint>
#include <string>
#include <vector>

#include "data/corpus.h"

namespace gb::data {

struct McItem {
  std::string context;
  std::vector<std::string> choices;
  int answer = 0;      // index into choices
  std::string source;  // "path:line"
};

struct QaItem {
  std::string id;  // optional; biography items: "<person index>/<attribute>"
  std::string question;
  std::string answer;
  std::string person;     // optional; biography items: the full name
  std::string attribute;  // optional; biography items: attribute_key()
  std::string source;     // "path:line" when read from a file
};

// Reads multiple-choice JSONL; errors name the file, line and key (bad answer index, fewer
// than two choices, non-string choice, ...).
std::vector<McItem> read_mc_jsonl(const std::string& path);
// Writes the canonical form {"context", "choices", "answer"} atomically.
void write_mc_jsonl(const std::string& path, const std::vector<McItem>& items);
// The text scored after the context: the choice, preceded by one space unless the context
// ends in whitespace or the choice starts with whitespace (lm-evaluation-harness style).
std::string mc_continuation(const std::string& context, const std::string& choice);

// Reads QA JSONL; errors name the file, line and key.
std::vector<QaItem> read_qa_jsonl(const std::string& path);
// Writes {"question", "answer", "person", "attribute", "id"} (empty optional fields omitted).
void write_qa_jsonl(const std::string& path, const std::vector<QaItem>& items);

// question + "\nAnswer:"
std::string qa_prompt(const std::string& question);
// " " + answer
std::string qa_continuation(const std::string& answer);
// Fine-tuning documents: qa_prompt(question) + qa_continuation(answer), source = id.
std::vector<Document> qa_documents(const std::vector<QaItem>& items);

}  // namespace gb::data
