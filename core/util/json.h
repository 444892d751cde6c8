#pragma once
// Helpers for validated JSON input (specs, plans, configs): every error names the key and
// the context ("plan", "config.json", ...), the expected type and what was found.

#include <initializer_list>
#include <optional>
#include <set>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace gb::json {

using Json = nlohmann::json;

std::string type_name(const Json& j);

// A number as messages show it: a whole number without a decimal point, any other in its
// shortest form that reads back exactly ({fmt}'s "{}").
std::string number_text(double v);
// Parses text; a syntax error names the source and the byte offset.
Json parse(const std::string& text, const std::string& source);
Json parse_file(const std::string& path);

// Throws naming the first key of `j` not in `allowed`.
void check_keys(const Json& j, std::initializer_list<const char*> allowed,
                const std::string& context);
void check_keys(const Json& j, const std::set<std::string>& allowed, const std::string& context);

// Required key of type T: bool, int, int64_t, double, std::string, Json,
// std::vector<int64_t>, std::vector<std::string>.
template <typename T>
T get(const Json& j, const char* key, const std::string& context);
template <>
bool get<bool>(const Json&, const char*, const std::string&);
template <>
int get<int>(const Json&, const char*, const std::string&);
template <>
int64_t get<int64_t>(const Json&, const char*, const std::string&);
template <>
double get<double>(const Json&, const char*, const std::string&);
template <>
std::string get<std::string>(const Json&, const char*, const std::string&);
template <>
Json get<Json>(const Json&, const char*, const std::string&);
template <>
std::vector<int64_t> get<std::vector<int64_t>>(const Json&, const char*, const std::string&);
template <>
std::vector<std::string> get<std::vector<std::string>>(const Json&, const char*,
                                                       const std::string&);

template <typename T>
T get_or(const Json& j, const char* key, const T& fallback, const std::string& context) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return get<T>(j, key, context);
}

template <typename T>
std::optional<T> get_opt(const Json& j, const char* key, const std::string& context) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return get<T>(j, key, context);
}

}  // namespace gb::json
