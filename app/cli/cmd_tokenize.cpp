// growbench-cli tokenize: token ids of text lines, as Hugging Face tokenizers encodes them.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "model/tokenizer.h"
#include "util/files.h"

namespace gb::cli {
namespace {

// Lines split at '\n' (a '\r' before it stays in the line); a final '\n' ends the last line
// rather than starting an empty one.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      if (start < text.size() || lines.empty()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
    if (start == text.size()) break;
  }
  return lines;
}

struct TokenizeOptions {
  std::string tokenizer;
  std::optional<std::string> text, file;
  bool no_special = false;
};

void declare_tokenize(CLI::App& app, TokenizeOptions& o) {
  add_option(app, "--tokenizer", o.tokenizer, "PATH",
             "a tokenizer.json, or a folder holding one (a Hugging Face model\n"
             "folder); a tokenizer_config.json beside it names bos/eos/pad")
      ->required();
  auto* text = add_option(app, "--text", o.text, "STR",
                          "the input; each line (split at \\n) is encoded separately");
  auto* file = add_option(app, "--file", o.file, "FILE",
                          "read the input from FILE ('-' for stdin); each line is one input;\n"
                          "a trailing newline at the end does not make an extra empty input,\n"
                          "an empty file has no input; a \\r before \\n stays part of its line");
  text->excludes(file);
  add_flag(app, "--no-special", o.no_special,
           "do not add the post-processor's special tokens (encode(text,\n"
           "add_special_tokens=False))");
}

int run_tokenize(const TokenizeOptions& o) {
  const std::string& path = o.tokenizer;
  if (!o.text && !o.file) throw UsageError("give one of --text STR and --file FILE");
  std::vector<std::string> inputs;
  if (o.text) {
    inputs = split_lines(*o.text);
  } else {
    const std::string& file = *o.file;
    std::string text;
    if (file == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      text = read_file(file);
    }
    if (!text.empty()) inputs = split_lines(text);
  }
  const bool add_special = !o.no_special;
  gb::tok::Tokenizer tok = gb::tok::Tokenizer::from_file(path);
  std::string out;
  for (const std::string& line : inputs) {
    std::vector<int32_t> ids = tok.encode(line, add_special);
    out.push_back('[');
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out.push_back(',');
      out += std::to_string(ids[i]);
    }
    out += "]\n";
    if (out.size() > (1 << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "tokenize", "tokenize --tokenizer PATH (--text STR | --file FILE) [--no-special]",
    "Encodes text with a Hugging Face tokenizer.json and prints the token ids: one JSON\n"
    "array per input line on stdout, e.g. [9707,1879,0]. The ids are those of Hugging Face\n"
    "tokenizers' encode(text) (BPE, byte-level or SentencePiece style with byte fallback;\n"
    "WordLevel; WordPiece), including the special tokens its post-processor adds (Gemma's\n"
    "<bos>, BERT's [CLS] ... [SEP]) unless --no-special is given. Special-token strings in the\n"
    "text (\"<|im_end|>\") are encoded as those tokens.",
    &declare_tokenize, &run_tokenize,
    "Input that is not valid UTF-8 is read with each invalid sequence replaced by U+FFFD.\n"
    "Exit status: 0 success, 1 error (unreadable or malformed tokenizer, the message names\n"
    "the file and the JSON path), 2 usage.");

}  // namespace gb::cli
