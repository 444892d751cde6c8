#pragma once
// Text corpora as lists of documents: readers for plain text files and folders, JSONL with a
// text field, and Debian `fortunes` files; document-level splits and limits.
//
// Every reader returns documents in a deterministic order (files sorted byte-wise by path,
// entries in file order). Text is normalised the same way everywhere: a UTF-8 byte order mark
// is dropped, CRLF becomes LF, invalid UTF-8 bytes become U+FFFD (with a warning naming the
// file and line), and each document loses its leading blank lines and trailing whitespace.
// Documents with fewer than `min_chars` non-whitespace bytes are dropped.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/json.h"

namespace gb::data {

// One unit of text. Splits, limits and shuffles never cut a document.
struct Document {
  std::string text;
  std::string source;  // "path" (whole file) or "path:line" (first line of the document)
};

enum class CorpusFormat {
  Auto,      // decided by detect_format()
  Text,      // plain text file or folder of text files
  Jsonl,     // JSONL file (or folder of *.jsonl files) with a string field per line
  Fortunes,  // Debian fortune file or folder: entries separated by lines holding only "%"
};

// How a plain text file is cut into documents.
enum class TextUnit {
  File,       // the whole file is one document
  Paragraph,  // blocks separated by blank (whitespace-only) lines
  Line,       // every non-blank line
};

// Where a corpus comes from and how to read it. Also the "corpus" object of experiment specs:
// {"path": ..., "format": "auto|text|jsonl|fortunes", "field": "text",
//  "unit": "file|paragraph|line", "recursive": true, "strip_overstrike": true, "min_chars": 1}
struct CorpusSpec {
  std::string path;
  CorpusFormat format = CorpusFormat::Auto;
  std::string field = "text";      // JSONL: the field holding the text
  TextUnit unit = TextUnit::File;  // Text: document granularity
  bool recursive = true;           // Text/JSONL folders: descend into sub-folders
  bool strip_overstrike = true;    // Fortunes: "x\b" overstrike pairs removed ("_\bA" -> "A")
  size_t min_chars = 1;            // drop documents with fewer non-whitespace bytes
};

const char* format_name(CorpusFormat format);
const char* unit_name(TextUnit unit);
// Parses a spec object; unknown keys and bad values throw naming `context` and the key.
CorpusSpec corpus_spec_from_json(const json::Json& j, const std::string& context);
json::Json corpus_spec_to_json(const CorpusSpec& spec);

// The format Auto resolves to: *.jsonl / *.json files and folders holding *.jsonl files are
// Jsonl; a file with a "<name>.dat" companion, or a folder holding *.dat files, is Fortunes;
// anything else is Text. Throws if `path` does not exist.
CorpusFormat detect_format(const std::string& path);

// Reads a corpus as the spec says; throws naming the path when nothing usable is found.
std::vector<Document> read_corpus(const CorpusSpec& spec);

// One text file cut by `unit`. A binary file (NUL byte in its first 8 KiB) is an error.
std::vector<Document> read_text_file(const std::string& path, TextUnit unit = TextUnit::File,
                                     size_t min_chars = 1);
// The text files under `dir` (see list_text_files), each read with read_text_file.
std::vector<Document> read_text_folder(const std::string& dir, TextUnit unit = TextUnit::File,
                                       bool recursive = true, size_t min_chars = 1);
// Regular files under `dir`, sorted by path: skips hidden entries, *.dat index files, binary
// files, symlinked folders, and symlinks to files already listed (fortune *.u8 links).
std::vector<std::string> list_text_files(const std::string& dir, bool recursive = true);

// A JSONL file: one JSON object per non-blank line, `field` a string. Errors name the file and
// the line ("a.jsonl:7: missing field 'text' (keys: body, id)").
std::vector<Document> read_jsonl(const std::string& path, const std::string& field = "text",
                                 size_t min_chars = 1);

// A Debian fortune file: entries separated by lines holding only "%"; empty entries skipped.
std::vector<Document> read_fortune_file(const std::string& path, bool strip_overstrike = true,
                                        size_t min_chars = 1);
// A fortune file, or every fortune file directly in a folder (never recursive, so
// /usr/share/games/fortunes is English only and .../fortunes/de is a separate corpus).
// Skips symlinks (*.u8 duplicates), *.dat index files, hidden and binary files.
std::vector<Document> read_fortunes(const std::string& path, bool strip_overstrike = true,
                                    size_t min_chars = 1);

// Writes documents as JSONL lines {"text": ...} (atomically); read back with read_jsonl.
void write_documents_jsonl(const std::string& path, const std::vector<Document>& docs);

// Shuffles documents deterministically (Fisher-Yates with gb::data::Rng(seed)).
void shuffle_documents(std::vector<Document>& docs, uint64_t seed);
// Keeps the first `max_count` documents (all when max_count < 0).
void limit_documents(std::vector<Document>& docs, int64_t max_count);

// Held-out split at the document level. heldout_count >= 0 takes precedence over
// heldout_fraction (in [0, 1], rounded to the nearest count).
struct SplitOptions {
  double heldout_fraction = 0.0;
  int64_t heldout_count = -1;
  uint64_t seed = 0;
};

struct DocumentSplit {
  std::vector<Document> train;
  std::vector<Document> heldout;
};

// The held-out set is the first k documents of permutation(n, seed); train is the rest. Both
// keep their documents in that permuted order, so a split is also a shuffle.
DocumentSplit split_documents(std::vector<Document> docs, const SplitOptions& options);
// The same split as index lists into the input (for splitting parallel arrays).
struct IndexSplit {
  std::vector<uint64_t> train;
  std::vector<uint64_t> heldout;
};
IndexSplit split_indices(uint64_t n, const SplitOptions& options);

}  // namespace gb::data
