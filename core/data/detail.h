#pragma once
// Internal helpers shared by the core/data sources; not part of the public API.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "util/json.h"

namespace gb::data::detail {

// Creates the parent folder of `path` (and its parents) if missing; throws naming it.
void ensure_parent_dir(const std::string& path);
// Creates `dir` (and its parents) if missing; throws naming it.
void ensure_dir(const std::string& dir);

// Calls fn(line, line_number) for each line of `text` (1-based; "\r\n" and "\n" endings,
// the ending not included). A final line without a newline is visited too.
void for_each_line(std::string_view text, const std::function<void(std::string_view, size_t)>& fn);

// Replaces invalid UTF-8 sequences by U+FFFD; returns the number replaced and, when any, the
// 1-based line of the first one in *first_bad_line.
size_t sanitize_utf8(std::string& text, size_t* first_bad_line);

// One JSON value as a single line (no trailing newline); invalid UTF-8 becomes U+FFFD.
std::string dump_line(const json::Json& j);

// Reads a JSONL file and calls fn(object, "path:line") for every non-blank line. Errors
// (unreadable file, malformed JSON, a line that is not an object) name the file and line.
void for_each_jsonl_object(const std::string& path,
                           const std::function<void(const json::Json&, const std::string&)>& fn);

}  // namespace gb::data::detail
