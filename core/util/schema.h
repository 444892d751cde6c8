#pragma once
// A declared tree of JSON keys: what a document (an experiment spec) may hold, each key once,
// with its type, default, range or choices, unit, one-line help and when it applies. The
// checks of unknown keys (with the full path and the nearest known key), the listings of
// `growbench-cli schema` and the key tables of the docs come from one declaration
// (experiment/spec_schema.h declares the experiment spec). Grown from grow::ParamSpec, the
// schema of a variant's parameters, which a declaration can splice in (Key::dynamic).
//
// No LibTorch, no Qt.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace gb::schema {

using Json = nlohmann::json;

enum class Type {
  Int,
  Number,
  Bool,
  String,
  Choice,  // a string among `choices`
  List,    // an array: of `item` scalars, of objects with `keys`, or of the named type `ref`
  Object,  // an object with `keys`
  Map,     // an object whose keys are free (config.json overrides, sweep keys → values)
  Any,     // any JSON; its inner keys are checked where it is read (the report section)
  Ref,     // an object of the named type `ref` (Schema::types)
};
const char* type_name(Type type);

struct Key {
  std::string name;
  Type type = Type::String;
  // The value when the key is absent; null: none (optional, required or derived: then
  // `default_text` says which, e.g. "required", "= seed").
  Json default_value;
  std::string default_text;
  std::optional<double> min, max;    // Int and Number: bounds
  bool min_open = false;             // min itself excluded ("(0, 10]")
  bool max_open = false;             // max itself excluded ("[0, 1)")
  std::vector<std::string> choices;  // Choice: the values; List of strings: allowed items
  std::string unit;
  std::string help;  // one line
  // Forms (the GUI's experiment editor): a short title ("Learning rate"; empty: the name),
  // display texts of the choices, and how a value is typed where the type alone does not say
  // ("path": a file or folder, "folder": a model folder, "text": several lines, "layers": a
  // layer selection). The GUI translates label, help and choice labels (context
  // "SpecSchema"; the strings reach the translators through widgets/spec_schema_strings.h,
  // generated from the schema).
  std::string label;
  std::vector<std::string> choice_labels;
  std::string input;
  // When the key applies, in words ("kind mc", "sweep_mode random"); shown in listings.
  std::string when;
  // The forms of the enclosing object this key belongs to (empty: every form); see form_of.
  std::vector<std::string> forms;
  std::string item;        // List of scalars: the item type ("int", "number", "string")
  std::string ref;         // Ref, or List of refs: the named type
  bool or_list = false;    // Ref: a list of the named type is accepted too
  bool or_string = false;  // Object/Ref: a string (a path) is accepted too
  std::vector<Key> keys;   // Object, List of objects, and named types
  // Object and named types: which form an object is in ("qa", "biography", "corpus"); keys
  // with `forms` apply to those forms only.
  std::function<std::string(const Json& object)> form_of;
  // Named types: keys that depend on the object's values (a plan's variant parameters).
  // nullopt: the object cannot be checked here (an unknown variant: its parser says so).
  std::function<std::optional<std::vector<Key>>(const Json& object)> dynamic;
  // Listings: every form's dynamic keys (a variant id → its parameters).
  std::function<std::vector<std::pair<std::string, std::vector<Key>>>()> dynamic_listing;
  // Listings and docs: the key's display type when it is not the plain one ("SOURCE",
  // "string | object").
  std::string type_text;

  bool in_form(const std::string& form) const;
};

struct Schema {
  std::string root = "spec";  // the name of the document in paths and messages
  std::vector<Key> keys;
  std::map<std::string, Key> types;  // named object types (SOURCE, TASK, PLAN)

  // The key at a dotted path ("train.lr", "data.tasks[].kind", "SOURCE.part"); the first
  // declaration when a name has several forms. nullptr if none.
  const Key* find(const std::string& path) const;
  const Key* type(const std::string& name) const;
};

// One row of a flat listing: every key with its path ("train.lr", "data.tasks[].kind";
// named types under their name: "SOURCE.path", "PLAN.rank").
struct Entry {
  std::string path;
  std::string section;  // "" (a top-level key), the top-level key or the named type it is in
  Key key;
  std::string variant;  // rows of Key::dynamic_listing: the form they belong to (a variant)
};
std::vector<Entry> flatten(const Schema& schema);

// The schema's key listing ({"keys": [{"path", "type", "default", "min", "max", "choices",
// "unit", "help", "when", "variant"}, ...]}).
Json entry_json(const Entry& entry);
// A markdown table of the rows of one section (| key | type | default | allowed | meaning |),
// paths relative to the section; the rows of dynamic keys are left out.
std::string markdown_table(const std::vector<Entry>& entries, const std::string& section);
// The sections of a listing, in order: "" (the top level), then each top-level object or
// list, then each named type.
std::vector<std::string> sections(const std::vector<Entry>& entries);
std::string default_text(const Key& key);
std::string display_type(const Key& key);  // "int", "list of SOURCE", "string | object"
std::string allowed_text(const Key& key);

// A key the declaration does not know (a typo): growbench-cli exits with status 2 for it,
// as for a usage error (other invalid values: 1).
class UnknownKeyError : public Error {
 public:
  explicit UnknownKeyError(const std::string& message) : Error(message) {}
};

// Checks that every key of `value` (recursively) is declared; throws naming the full path
// ("spec.train.lrr: unknown key 'lrr' (did you mean 'lr'? ...)", an UnknownKeyError). Values
// of the wrong type
// are left to the parsers (they name what they expected).
void check_keys(const Json& value, const Schema& schema, const std::string& context);
// The same for an object of one declared key (or named type) at `context`.
void check_keys(const Json& value, const Key& node, const Schema& schema,
                const std::string& context);

// Restricted Damerau-Levenshtein distance (a transposition counts 1).
size_t edit_distance(const std::string& a, const std::string& b);
// The known name nearest `name` when it is close enough to be a typo; "" otherwise.
std::string nearest(const std::string& name, const std::vector<std::string>& known);
// The message of an unknown key: "<context>.<key>: unknown key '<key>' (did you mean 'x'?
// allowed: a, b)".
std::string unknown_key_message(const std::string& context, const std::string& key,
                                const std::vector<std::string>& known);

}  // namespace gb::schema
