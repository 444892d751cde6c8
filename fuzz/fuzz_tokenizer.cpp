// libFuzzer target: the tokenizer.json loader and, for files it accepts, encode and decode
// (core/model/tokenizer.h). The input is the whole tokenizer.json text. gb::Error is the
// expected way to reject a file (or an input a model cannot encode, e.g. WordLevel without an
// unk token); any other exception, a crash, a sanitizer report or a broken invariant is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/tokenizer.h"
#include "util/error.h"

namespace {

[[noreturn]] void broken(const char* what) {
  (void)what;
  __builtin_trap();
}

void exercise(const gb::tok::Tokenizer& tok, const std::string& text) {
  for (bool special : {true, false}) {
    std::vector<int32_t> ids;
    try {
      ids = tok.encode(text, special);
    } catch (const gb::Error&) {
      continue;
    }
    for (int32_t id : ids)
      if (id < 0 || id >= tok.vocab_size()) broken("id outside the vocabulary");
    (void)tok.decode(ids, false);
    (void)tok.decode(ids, true);
  }
  try {
    (void)tok.pre_tokenize(text);
  } catch (const gb::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string json(reinterpret_cast<const char*>(data), size);
  gb::tok::Tokenizer tok;
  try {
    tok = gb::tok::Tokenizer::from_json(json, "fuzz input");
  } catch (const gb::Error&) {
    return 0;
  }
  if (tok.vocab_size() < 0) broken("negative vocab size");
  (void)tok.summary();
  static const char* const kTexts[] = {
      "",
      " ",
      "Hello world! It's 2024, isn't it?",
      "  leading\tand\r\ntrailing  \n\n",
      "Gr\xC3\xB6\xC3\x9F"
      "e \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "e\xCC\x81 \xE2\x96\x81x <s></s><unk><|endoftext|>[CLS]",
      "\xFF\xFE invalid \xC0\xAF utf-8 \xED\xA0\x80",
  };
  for (const char* t : kTexts) exercise(tok, t);
  exercise(tok, json.substr(0, 512));
  // Decoding any id, known or not, must not fail.
  std::vector<int32_t> ids;
  for (int32_t id = -2; id < 300; ++id) ids.push_back(id);
  ids.push_back(static_cast<int32_t>(tok.vocab_size()));
  ids.push_back(INT32_MAX);
  (void)tok.decode(ids, false);
  (void)tok.decode(ids, true);
  for (int32_t id : ids) {
    std::string token = tok.id_to_token(id);
    if (!token.empty() && !tok.token_to_id(token)) broken("id_to_token without token_to_id");
  }
  return 0;
}
