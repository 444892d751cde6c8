// The adapter from gb::tok::Tokenizer to TextEncoder, in its own translation unit so that
// code using only the data layer's readers and packing links without the tokenizer.
#include "data/tokenized.h"
#include "model/tokenizer.h"

namespace gb::data {

TextEncoder encoder_for(const tok::Tokenizer& tokenizer) {
  TextEncoder e;
  const tok::Tokenizer* t = &tokenizer;
  e.encode = [t](std::string_view text, bool add_special_tokens) {
    return t->encode(text, add_special_tokens);
  };
  e.eos_id = tokenizer.eos_id();
  e.identity = tokenizer.json_text();
  return e;
}

}  // namespace gb::data
