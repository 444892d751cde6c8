#include "util/json.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "util/files.h"

namespace gb::json {

std::string number_text(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

std::string type_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

Json parse(const std::string& text, const std::string& source) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail("{}: malformed JSON at byte {}: {}", source, e.byte, e.what());
  }
}

Json parse_file(const std::string& path) {
  return parse(read_file(path), path);
}

void check_keys(const Json& j, const std::set<std::string>& allowed, const std::string& context) {
  if (!j.is_object()) fail("{}: expected an object, found {}", context, type_name(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!allowed.count(it.key())) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail("{}: unknown key '{}' (allowed: {})", context, it.key(), list);
    }
  }
}

void check_keys(const Json& j, std::initializer_list<const char*> allowed,
                const std::string& context) {
  std::set<std::string> s;
  for (const char* a : allowed) s.insert(a);
  check_keys(j, s, context);
}

namespace {
const Json& require(const Json& j, const char* key, const std::string& context) {
  if (!j.is_object()) fail("{}: expected an object, found {}", context, type_name(j));
  auto it = j.find(key);
  if (it == j.end()) fail("{}: missing required key '{}'", context, key);
  return *it;
}
}  // namespace

template <>
bool get<bool>(const Json& j, const char* key, const std::string& context) {
  const Json& v = require(j, key, context);
  if (!v.is_boolean()) fail("{}: '{}' must be a boolean, found {}", context, key, type_name(v));
  return v.get<bool>();
}

template <>
int64_t get<int64_t>(const Json& j, const char* key, const std::string& context) {
  const Json& v = require(j, key, context);
  if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
      return static_cast<int64_t>(d);
    }
  }
  fail("{}: '{}' must be an integer, found {}", context, key,
       v.is_number() ? v.dump() : type_name(v));
}

template <>
int get<int>(const Json& j, const char* key, const std::string& context) {
  int64_t v = get<int64_t>(j, key, context);
  if (v < INT32_MIN || v > INT32_MAX) fail("{}: '{}' = {} is out of range", context, key, v);
  return static_cast<int>(v);
}

template <>
double get<double>(const Json& j, const char* key, const std::string& context) {
  const Json& v = require(j, key, context);
  if (!v.is_number()) fail("{}: '{}' must be a number, found {}", context, key, type_name(v));
  double d = v.get<double>();
  if (!std::isfinite(d)) fail("{}: '{}' must be finite", context, key);
  return d;
}

template <>
std::string get<std::string>(const Json& j, const char* key, const std::string& context) {
  const Json& v = require(j, key, context);
  if (!v.is_string()) fail("{}: '{}' must be a string, found {}", context, key, type_name(v));
  return v.get<std::string>();
}

template <>
Json get<Json>(const Json& j, const char* key, const std::string& context) {
  return require(j, key, context);
}

template <>
std::vector<int64_t> get<std::vector<int64_t>>(const Json& j, const char* key,
                                               const std::string& context) {
  const Json& v = require(j, key, context);
  if (!v.is_array())
    fail("{}: '{}' must be an array of integers, found {}", context, key, type_name(v));
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer() && !e.is_number_unsigned()) {
      fail("{}: '{}' must be an array of integers, found element {}", context, key, e.dump());
    }
    out.push_back(e.get<int64_t>());
  }
  return out;
}

template <>
std::vector<std::string> get<std::vector<std::string>>(const Json& j, const char* key,
                                                       const std::string& context) {
  const Json& v = require(j, key, context);
  if (!v.is_array())
    fail("{}: '{}' must be an array of strings, found {}", context, key, type_name(v));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string()) {
      fail("{}: '{}' must be an array of strings, found element {}", context, key, e.dump());
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace gb::json
