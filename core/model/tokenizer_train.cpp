// A byte-level BPE trainer (GPT-2 pre-tokenization), producing a tokenizer.json.
//
// Words are counted once; pair counts are kept in a hash map and updated incrementally for the
// words a merge touches (their old pairs are subtracted, their new pairs added). The best
// pair comes from a lazy max-heap ordered by (count desc, left token, right token): an entry
// whose count is out of date is pushed again with the current count when it surfaces.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/tokenizer.h"
#include "model/tokenizer_components.h"
#include "util/error.h"

namespace gb::tok {
namespace {

uint64_t pair_key(uint32_t a, uint32_t b) {
  return (static_cast<uint64_t>(a) << 32) | b;
}

struct Word {
  std::vector<uint32_t> symbols;
  int64_t count = 0;
};

}  // namespace

std::string train_byte_level_bpe(const std::vector<std::string>& texts, int vocab_size,
                                 const std::vector<std::string>& special_tokens) {
  std::vector<std::string> specials;
  for (const std::string& s : special_tokens) {
    if (s.empty()) fail("train_byte_level_bpe: empty special token");
    if (!is_valid_utf8(s)) fail("train_byte_level_bpe: special token is not valid UTF-8");
    if (std::find(specials.begin(), specials.end(), s) == specials.end()) specials.push_back(s);
  }
  const int minimum = 256 + static_cast<int>(specials.size());
  if (vocab_size < minimum)
    fail(
        "train_byte_level_bpe: vocab_size {} is too small; it must hold the 256 byte symbols "
        "and {} special tokens (at least {})",
        vocab_size, specials.size(), minimum);

  // Vocabulary: special tokens, then the byte alphabet in code point order, then merges.
  const ByteLevelTable& table = byte_level_table();
  std::vector<std::string> id_to_token;
  std::unordered_map<std::string, uint32_t> token_to_id;
  auto add_token = [&](const std::string& t) {
    auto it = token_to_id.find(t);
    if (it != token_to_id.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(id_to_token.size());
    id_to_token.push_back(t);
    token_to_id.emplace(t, id);
    return id;
  };
  for (const std::string& s : specials) add_token(s);
  std::vector<std::pair<uint32_t, int>> alphabet;  // code point, byte
  for (int b = 0; b < 256; ++b) {
    size_t i = 0;
    alphabet.emplace_back(utf8_next(table.byte_to_utf8[b].data(), i), b);
  }
  std::sort(alphabet.begin(), alphabet.end());
  uint32_t byte_id[256];
  for (const auto& [cp, b] : alphabet) byte_id[b] = add_token(table.byte_to_utf8[b]);

  // Count the pre-tokenized words (GPT-2 regex, as the ByteLevel pre-tokenizer splits).
  Regex regex(kGpt2Pattern, "train_byte_level_bpe");
  std::unordered_map<std::string, int64_t> counts;
  for (const std::string& raw : texts) {
    std::string fixed;
    std::string_view text = raw;
    if (!is_valid_utf8(text)) {
      fixed = sanitize_utf8(text);
      text = fixed;
    }
    size_t prev = 0;
    auto count = [&](size_t b, size_t e) {
      if (e > b) ++counts[std::string(text.substr(b, e - b))];
    };
    regex.for_each_match(text.data(), text.size(), [&](size_t b, size_t e) {
      count(prev, b);
      count(b, e);
      prev = e;
    });
    count(prev, text.size());
  }
  std::vector<std::pair<std::string, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());  // deterministic word order
  std::vector<Word> words;
  words.reserve(sorted.size());
  for (const auto& [w, c] : sorted) {
    Word word;
    word.count = c;
    for (unsigned char b : w) word.symbols.push_back(byte_id[b]);
    words.push_back(std::move(word));
  }

  std::unordered_map<uint64_t, int64_t> pair_counts;
  std::unordered_map<uint64_t, std::vector<uint32_t>> where;
  auto account = [&](uint32_t w, int64_t sign, bool index) {
    const Word& word = words[w];
    for (size_t i = 0; i + 1 < word.symbols.size(); ++i) {
      uint64_t k = pair_key(word.symbols[i], word.symbols[i + 1]);
      pair_counts[k] += sign * word.count;
      if (index) where[k].push_back(w);
    }
  };
  for (uint32_t w = 0; w < words.size(); ++w) account(w, +1, true);

  struct Entry {
    int64_t count;
    uint32_t a, b;
  };
  auto worse = [&](const Entry& x, const Entry& y) {  // true when x ranks below y
    if (x.count != y.count) return x.count < y.count;
    const std::string& xa = id_to_token[x.a];
    const std::string& ya = id_to_token[y.a];
    if (xa != ya) return xa > ya;
    return id_to_token[x.b] > id_to_token[y.b];
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  {
    std::vector<std::pair<uint64_t, int64_t>> initial(pair_counts.begin(), pair_counts.end());
    std::sort(initial.begin(), initial.end());
    for (const auto& [k, c] : initial)
      if (c > 0)
        heap.push(Entry{c, static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k & 0xFFFFFFFF)});
  }

  nlohmann::ordered_json merges = nlohmann::ordered_json::array();
  std::vector<uint32_t> stamp(words.size(), 0);
  uint32_t round = 0;
  while (static_cast<int>(id_to_token.size()) < vocab_size && !heap.empty()) {
    Entry top = heap.top();
    heap.pop();
    uint64_t key = pair_key(top.a, top.b);
    auto pc = pair_counts.find(key);
    int64_t current = pc == pair_counts.end() ? 0 : pc->second;
    if (current <= 0) continue;
    if (current != top.count) {
      heap.push(Entry{current, top.a, top.b});
      continue;
    }
    std::string merged = id_to_token[top.a] + id_to_token[top.b];
    uint32_t new_id = add_token(merged);
    merges.push_back({id_to_token[top.a], id_to_token[top.b]});

    ++round;
    std::vector<uint32_t> touched = std::move(where[key]);
    where.erase(key);
    std::vector<uint64_t> changed;
    for (uint32_t w : touched) {
      if (stamp[w] == round) continue;
      stamp[w] = round;
      Word& word = words[w];
      bool present = false;
      for (size_t i = 0; i + 1 < word.symbols.size() && !present; ++i)
        present = word.symbols[i] == top.a && word.symbols[i + 1] == top.b;
      if (!present) continue;
      account(w, -1, false);
      std::vector<uint32_t> out;
      out.reserve(word.symbols.size());
      for (size_t i = 0; i < word.symbols.size(); ++i) {
        if (i + 1 < word.symbols.size() && word.symbols[i] == top.a &&
            word.symbols[i + 1] == top.b) {
          out.push_back(new_id);
          ++i;
        } else {
          out.push_back(word.symbols[i]);
        }
      }
      word.symbols.swap(out);
      for (size_t i = 0; i + 1 < word.symbols.size(); ++i) {
        uint64_t k = pair_key(word.symbols[i], word.symbols[i + 1]);
        pair_counts[k] += word.count;
        if (word.symbols[i] == new_id || word.symbols[i + 1] == new_id) {
          where[k].push_back(w);
          changed.push_back(k);
        }
      }
    }
    pair_counts.erase(key);
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (uint64_t k : changed) {
      int64_t c = pair_counts[k];
      if (c > 0)
        heap.push(Entry{c, static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k & 0xFFFFFFFF)});
    }
  }

  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (size_t i = 0; i < id_to_token.size(); ++i) vocab[id_to_token[i]] = i;
  nlohmann::ordered_json added = nlohmann::ordered_json::array();
  for (const std::string& s : specials)
    added.push_back({{"id", token_to_id[s]},
                     {"content", s},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  nlohmann::ordered_json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = added;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "ByteLevel"},
                        {"add_prefix_space", false},
                        {"trim_offsets", true},
                        {"use_regex", true}};
  j["post_processor"] = {{"type", "ByteLevel"},
                         {"add_prefix_space", true},
                         {"trim_offsets", false},
                         {"use_regex", true}};
  j["decoder"] = {{"type", "ByteLevel"},
                  {"add_prefix_space", true},
                  {"trim_offsets", true},
                  {"use_regex", true}};
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr},
                {"end_of_word_suffix", nullptr},
                {"fuse_unk", false},
                {"byte_fallback", false},
                {"ignore_merges", false},
                {"vocab", vocab},
                {"merges", merges}};
  return j.dump(1);
}

}  // namespace gb::tok
