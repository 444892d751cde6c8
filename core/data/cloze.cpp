#include "data/cloze.h"

#include <algorithm>
#include <set>

#include "data/random.h"
#include "util/error.h"
#include "util/json.h"

namespace gb::data {

namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

std::string join(const std::vector<std::string>& w, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) {
    if (i > from) s.push_back(' ');
    s += w[i];
  }
  return s;
}

struct Passage {
  std::vector<std::string> words;
  size_t cut = 0;  // first word of the continuation
  std::string source;
};

}  // namespace

ClozeOptions cloze_options_from_json(const nlohmann::json& j, const std::string& context) {
  if (!j.is_object()) fail("{}: must be an object, found {}", context, json::type_name(j));
  json::check_keys(j,
                   {"items", "choices", "seed", "min_context_words", "max_context_words",
                    "min_continuation_words", "max_continuation_words", "distractors"},
                   context);
  ClozeOptions o;
  o.items = json::get_or<int64_t>(j, "items", o.items, context);
  o.choices = json::get_or<int>(j, "choices", o.choices, context);
  o.seed = static_cast<uint64_t>(json::get_or<int64_t>(j, "seed", 0, context));
  o.min_context_words = json::get_or<int>(j, "min_context_words", o.min_context_words, context);
  o.max_context_words = json::get_or<int>(j, "max_context_words", o.max_context_words, context);
  o.min_continuation_words =
      json::get_or<int>(j, "min_continuation_words", o.min_continuation_words, context);
  o.max_continuation_words =
      json::get_or<int>(j, "max_continuation_words", o.max_continuation_words, context);
  o.distractors = json::get_or<std::string>(j, "distractors", o.distractors, context);
  if (o.distractors != "passages" && o.distractors != "shuffled") {
    fail("{}.distractors: must be passages or shuffled, found '{}'", context, o.distractors);
  }
  if (o.items < 1) fail("{}.items: must be at least 1, found {}", context, o.items);
  if (o.choices < 2 || o.choices > 26) {
    fail("{}.choices: must be in [2, 26], found {}", context, o.choices);
  }
  if (o.min_context_words < 1) {
    fail("{}.min_context_words: must be at least 1, found {}", context, o.min_context_words);
  }
  if (o.max_context_words < o.min_context_words) {
    fail("{}.max_context_words: must be at least min_context_words ({}), found {}", context,
         o.min_context_words, o.max_context_words);
  }
  if (o.min_continuation_words < 1) {
    fail("{}.min_continuation_words: must be at least 1, found {}", context,
         o.min_continuation_words);
  }
  if (o.max_continuation_words < o.min_continuation_words) {
    fail("{}.max_continuation_words: must be at least min_continuation_words ({}), found {}",
         context, o.min_continuation_words, o.max_continuation_words);
  }
  return o;
}

nlohmann::json to_json(const ClozeOptions& o) {
  return {{"items", o.items},
          {"choices", o.choices},
          {"seed", o.seed},
          {"min_context_words", o.min_context_words},
          {"max_context_words", o.max_context_words},
          {"min_continuation_words", o.min_continuation_words},
          {"max_continuation_words", o.max_continuation_words},
          {"distractors", o.distractors}};
}

std::vector<McItem> make_cloze_task(const std::vector<Document>& documents, const ClozeOptions& o) {
  // Usable passages in a seeded order.
  std::vector<Passage> pool;
  const auto order = permutation(documents.size(), derive_seed(o.seed, 1));
  const size_t need = static_cast<size_t>(o.min_context_words + o.min_continuation_words);
  for (uint64_t idx : order) {
    const Document& d = documents[idx];
    Passage p;
    p.words = words_of(d.text);
    if (p.words.size() < need) continue;
    size_t cut = p.words.size() / 2;
    cut = std::max(cut, static_cast<size_t>(o.min_context_words));
    cut = std::min(cut, p.words.size() - static_cast<size_t>(o.min_continuation_words));
    p.cut = cut;
    p.source = d.source;
    pool.push_back(std::move(p));
  }
  if (pool.size() < static_cast<size_t>(o.choices)) {
    fail(
        "cloze task: {} usable documents (at least {} words each) of {}, but {} choices need "
        "at least {}",
        pool.size(), need, documents.size(), o.choices, o.choices);
  }
  Rng rng(derive_seed(o.seed, 2));
  std::vector<McItem> items;
  for (size_t i = 0; i < pool.size() && items.size() < static_cast<size_t>(o.items); ++i) {
    const Passage& p = pool[i];
    const size_t ctx_from =
        p.cut > static_cast<size_t>(o.max_context_words) ? p.cut - o.max_context_words : 0;
    const size_t len =
        std::min(p.words.size() - p.cut, static_cast<size_t>(o.max_continuation_words));
    McItem item;
    item.context = join(p.words, ctx_from, p.cut);
    const std::string truth = join(p.words, p.cut, p.cut + len);
    std::vector<std::string> choices{truth};
    std::set<std::string> seen{truth};
    // Distractors: continuations of other passages cut to the same number of words, or
    // permutations of the true continuation's words.
    int attempts = 0;
    bool skip = false;
    while (static_cast<int>(choices.size()) < o.choices) {
      if (++attempts > 1000) {
        // Too few distinct word orders (a short or repetitive continuation): the passage
        // gives no item. With other passages as distractors this means the corpus itself is
        // too repetitive.
        if (o.distractors == "shuffled") {
          skip = true;
          break;
        }
        fail(
            "cloze task: could not find {} distinct continuations of {} words for {} (the "
            "corpus is too repetitive or too short)",
            o.choices, len, p.source);
      }
      std::string c;
      if (o.distractors == "shuffled") {
        std::vector<std::string> w(p.words.begin() + static_cast<std::ptrdiff_t>(p.cut),
                                   p.words.begin() + static_cast<std::ptrdiff_t>(p.cut + len));
        for (size_t k = w.size(); k > 1; --k) {
          std::swap(w[k - 1], w[static_cast<size_t>(rng.uniform(k))]);
        }
        c = join(w, 0, w.size());
      } else {
        const size_t j = static_cast<size_t>(rng.uniform(pool.size()));
        if (j == i) continue;
        const Passage& q = pool[j];
        if (q.words.size() - q.cut < len) continue;
        c = join(q.words, q.cut, q.cut + len);
      }
      if (!seen.insert(c).second) continue;
      choices.push_back(std::move(c));
    }
    if (skip) continue;
    const int answer = static_cast<int>(rng.uniform(choices.size()));
    std::swap(choices[0], choices[static_cast<size_t>(answer)]);
    item.choices = std::move(choices);
    item.answer = answer;
    item.source = p.source;
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace gb::data
