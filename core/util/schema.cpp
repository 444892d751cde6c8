// The declared key tree (schema.h): lookups, listings, key checks and their messages.
#include "util/schema.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json.h"

namespace gb::schema {
namespace schema_impl {}
using namespace schema_impl;

const char* type_name(Type type) {
  switch (type) {
    case Type::Int:
      return "int";
    case Type::Number:
      return "number";
    case Type::Bool:
      return "bool";
    case Type::String:
      return "string";
    case Type::Choice:
      return "choice";
    case Type::List:
      return "list";
    case Type::Object:
      return "object";
    case Type::Map:
      return "map";
    case Type::Any:
      return "any";
    case Type::Ref:
      return "ref";
  }
  return "?";
}

bool Key::in_form(const std::string& form) const {
  if (forms.empty() || form.empty()) return true;
  return std::find(forms.begin(), forms.end(), form) != forms.end();
}

namespace schema_impl {

const Key* child(const std::vector<Key>& keys, const std::string& name) {
  for (const auto& k : keys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : sep) + e;
  return s;
}

}  // namespace schema_impl

std::string display_type(const Key& k) {
  if (!k.type_text.empty()) return k.type_text;
  if (k.type == Type::Ref) return k.or_list ? k.ref + " | list of " + k.ref : k.ref;
  if (k.type == Type::List) {
    if (!k.ref.empty()) return "list of " + k.ref;
    if (!k.item.empty()) return "list of " + k.item;
    return "list of objects";
  }
  return type_name(k.type);
}

const Key* Schema::type(const std::string& name) const {
  auto it = types.find(name);
  return it == types.end() ? nullptr : &it->second;
}

const Key* Schema::find(const std::string& path) const {
  // The first part names a top-level key or a named type.
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  auto strip = [](std::string s) {
    if (s.size() > 2 && s.compare(s.size() - 2, 2, "[]") == 0) s.resize(s.size() - 2);
    return s;
  };
  const Key* at = nullptr;
  const std::vector<Key>* level = &keys;
  if (const Key* t = type(parts[0])) {
    at = t;
    level = &t->keys;
    parts.erase(parts.begin());
    if (parts.empty()) return at;
  }
  for (const auto& raw : parts) {
    at = child(*level, strip(raw));
    if (!at) return nullptr;
    if (at->type == Type::Ref || (at->type == Type::List && !at->ref.empty())) {
      const Key* t = type(at->ref);
      level = t ? &t->keys : nullptr;
    } else {
      level = &at->keys;
    }
    if (!level) return nullptr;
  }
  return at;
}

// ---------------------------------------------------------------------------------------
// Listings

namespace schema_impl {

void add_rows(std::vector<Entry>& out, const Key& k, const std::string& path,
              const std::string& section) {
  out.push_back(Entry{path, section, k, {}});
  const std::string inner_section = section.empty() ? k.name : section;
  if (k.type == Type::Object) {
    for (const auto& c : k.keys) add_rows(out, c, path + "." + c.name, inner_section);
  } else if (k.type == Type::List && k.ref.empty()) {
    for (const auto& c : k.keys) add_rows(out, c, path + "[]." + c.name, inner_section);
  }
}

std::string number_or_dump(const Json& v) {
  if (v.is_number()) return json::number_text(v.get<double>());
  return v.dump();
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace schema_impl

std::vector<Entry> flatten(const Schema& schema) {
  std::vector<Entry> out;
  for (const auto& k : schema.keys) add_rows(out, k, k.name, "");
  for (const auto& [name, t] : schema.types) {
    for (const auto& c : t.keys) add_rows(out, c, name + "." + c.name, name);
    if (t.dynamic_listing) {
      for (const auto& [form, keys] : t.dynamic_listing()) {
        for (const auto& c : keys) out.push_back(Entry{name + "." + c.name, name, c, form});
      }
    }
  }
  return out;
}

std::string default_text(const Key& k) {
  if (!k.default_text.empty()) return k.default_text;
  if (k.default_value.is_null()) return "";
  return number_or_dump(k.default_value);
}

std::string allowed_text(const Key& k) {
  if (!k.choices.empty()) return join(k.choices, ", ");
  if (k.min || k.max) {
    const std::string lo = k.min ? json::number_text(*k.min) : std::string("−∞");
    const std::string hi = k.max ? json::number_text(*k.max) : std::string("∞");
    if (k.min && !k.max) return fmt::format("{} {}", k.min_open ? ">" : "≥", lo);
    if (!k.min && k.max) return fmt::format("{} {}", k.max_open ? "<" : "≤", hi);
    return fmt::format("{}{}, {}{}", k.min_open ? "(" : "[", lo, hi, k.max_open ? ")" : "]");
  }
  return "";
}

Json entry_json(const Entry& e) {
  const Key& k = e.key;
  Json j = {{"path", e.path}, {"type", display_type(k)}, {"default", k.default_value}};
  if (!k.default_text.empty()) j["default_text"] = k.default_text;
  auto bound = [&](double v) -> Json {
    return k.type == Type::Int ? Json(static_cast<int64_t>(v)) : Json(v);
  };
  if (k.min) j["min"] = bound(*k.min);
  if (k.min && k.min_open) j["min_exclusive"] = true;
  if (k.max) j["max"] = bound(*k.max);
  if (k.max && k.max_open) j["max_exclusive"] = true;
  if (!k.choices.empty()) j["choices"] = k.choices;
  if (!k.unit.empty()) j["unit"] = k.unit;
  j["help"] = k.help;
  if (!k.label.empty()) j["label"] = k.label;
  if (!k.when.empty()) j["when"] = k.when;
  if (!k.forms.empty()) j["forms"] = k.forms;
  if (!e.variant.empty()) j["variant"] = e.variant;
  return j;
}

std::vector<std::string> sections(const std::vector<Entry>& entries) {
  std::vector<std::string> out = {""};
  for (const auto& e : entries) {
    if (std::find(out.begin(), out.end(), e.section) == out.end()) out.push_back(e.section);
  }
  return out;
}

std::string markdown_table(const std::vector<Entry>& entries, const std::string& section) {
  std::string s = "| key | type | default | allowed | meaning |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& e : entries) {
    if (e.section != section || !e.variant.empty()) continue;
    std::string rel = e.path;
    for (const std::string& prefix : {section + "[].", section + "."}) {
      if (!section.empty() && rel.rfind(prefix, 0) == 0) {
        rel = rel.substr(prefix.size());
        break;
      }
    }
    const Key& k = e.key;
    std::string meaning = k.help;
    if (!k.unit.empty()) meaning += " [" + k.unit + "]";
    if (!k.when.empty()) meaning += " (only " + k.when + ")";
    if (!k.forms.empty()) {
      meaning +=
          fmt::format(" ({} {})", k.forms.size() == 1 ? "form" : "forms", join(k.forms, ", "));
    }
    const std::string def = default_text(k);
    const std::string allowed = allowed_text(k);
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", rel, md_escape(display_type(k)),
                     def.empty() ? std::string() : md_escape("`" + def + "`"), md_escape(allowed),
                     md_escape(meaning));
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// Checks

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string nearest(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  size_t best_d = 0;
  for (const auto& k : known) {
    const size_t d = edit_distance(name, k);
    if (best.empty() || d < best_d) {
      best = k;
      best_d = d;
    }
  }
  // A typo: a third of the longer name at most (and at least one edit allowed).
  const size_t limit = std::max<size_t>(1, (std::max(name.size(), best.size()) + 2) / 3);
  return !best.empty() && best_d <= limit ? best : std::string();
}

std::string unknown_key_message(const std::string& context, const std::string& key,
                                const std::vector<std::string>& known) {
  const std::string near = nearest(key, known);
  return fmt::format("{}.{}: unknown key '{}' ({}{} allows: {})", context, key, key,
                     near.empty() ? std::string() : "did you mean '" + near + "'? ", context,
                     join(known, ", "));
}

namespace schema_impl {

void check_value(const Json& v, const Key& key, const Schema& s, const std::string& ctx);

void check_members(const Json& j, const std::vector<Key>& keys, const std::string& form,
                   const std::vector<Key>& extra, const Schema& s, const std::string& ctx) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Key* k = nullptr;
    for (const auto& c : keys) {
      if (c.name == it.key() && c.in_form(form)) {
        k = &c;
        break;
      }
    }
    if (!k) k = child(extra, it.key());
    if (!k) {
      std::vector<std::string> known;
      auto add = [&](const std::string& n) {
        if (std::find(known.begin(), known.end(), n) == known.end()) known.push_back(n);
      };
      for (const auto& c : keys) {
        if (c.in_form(form)) add(c.name);
      }
      for (const auto& c : extra) add(c.name);
      throw UnknownKeyError(unknown_key_message(ctx, it.key(), known));
    }
    check_value(*it, *k, s, ctx + "." + it.key());
  }
}

void check_object(const Json& j, const Key& node, const Schema& s, const std::string& ctx) {
  if (!j.is_object()) return;
  const std::string form = node.form_of ? node.form_of(j) : std::string();
  std::vector<Key> extra;
  if (node.dynamic) {
    auto d = node.dynamic(j);
    if (!d) return;  // the parser names what is wrong (an unknown variant)
    extra = std::move(*d);
  }
  check_members(j, node.keys, form, extra, s, ctx);
}

void check_value(const Json& v, const Key& key, const Schema& s, const std::string& ctx) {
  switch (key.type) {
    case Type::Object:
      check_object(v, key, s, ctx);
      break;
    case Type::Ref: {
      const Key* t = s.type(key.ref);
      if (!t) break;
      if (v.is_array() && key.or_list) {
        for (size_t i = 0; i < v.size(); ++i) {
          check_object(v[i], *t, s, fmt::format("{}[{}]", ctx, i));
        }
      } else {
        check_object(v, *t, s, ctx);
      }
      break;
    }
    case Type::List: {
      if (!v.is_array()) break;
      const Key* t = key.ref.empty() ? nullptr : s.type(key.ref);
      if (!t && key.keys.empty()) break;
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string c = fmt::format("{}[{}]", ctx, i);
        if (t) {
          check_object(v[i], *t, s, c);
        } else {
          check_object(v[i], key, s, c);
        }
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace schema_impl

void check_keys(const Json& value, const Key& node, const Schema& schema,
                const std::string& context) {
  if (value.is_array() && (node.type == Type::List || node.or_list)) {
    check_value(value, node, schema, context);
    return;
  }
  // An object of the node, of its named type, or one element of a list of objects.
  const Key* t = node.ref.empty() ? &node : schema.type(node.ref);
  if (t) check_object(value, *t, schema, context);
}

void check_keys(const Json& value, const Schema& schema, const std::string& context) {
  if (value.is_object()) check_members(value, schema.keys, "", {}, schema, context);
}

}  // namespace gb::schema
