// growbench-cli schema: every key an experiment spec may hold, from its one declaration
// (core/experiment/spec_schema.cpp), as a listing, as JSON or as the key tables of
// docs/experiments.md.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "common.h"
#include "experiment/spec_schema.h"
#include "util/schema.h"

namespace gb::cli {
namespace {

struct SchemaOptions {
  bool json = false;
  bool markdown = false;
};

void declare_schema(CLI::App& app, SchemaOptions& o) {
  auto* json =
      add_flag(app, "--json", o.json,
               "print {\"keys\": [{\"path\", \"type\", \"default\", \"help\", and\n"
               "where they apply \"min\", \"max\" (\"min_exclusive\"/\"max_exclusive\":\n"
               "true when the bound itself is excluded), \"choices\", \"unit\", \"when\",\n"
               "\"default_text\" (the default in words), \"forms\" (the forms of its\n"
               "object it belongs to: a source's corpus, qa or biography form, a\n"
               "model's path or preset form), \"variant\" (a plan key of that variant\n"
               "only)}, ...]}");
  auto* markdown = add_flag(app, "--markdown", o.markdown,
                            "print the key tables of docs/experiments.md, one per section");
  json->excludes(markdown);
}

void write_schema_text(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

int run_schema(const SchemaOptions& o) {
  const auto entries = schema::flatten(experiment::spec_schema());
  if (o.json) {
    nlohmann::json keys = nlohmann::json::array();
    for (const auto& e : entries) keys.push_back(schema::entry_json(e));
    print_json(nlohmann::json{{"keys", keys}});
    return 0;
  }
  if (o.markdown) {
    std::string out;
    for (const auto& section : schema::sections(entries)) {
      out += fmt::format("<!-- keys:{} -->\n", section.empty() ? "top" : section);
      out += schema::markdown_table(entries, section);
      out += "\n";
    }
    write_schema_text(out);
    return 0;
  }
  size_t wp = 4, wt = 4, wd = 7;
  for (const auto& e : entries) {
    wp = std::max(wp, e.path.size());
    wd = std::max(wd, schema::default_text(e.key).size());
  }
  for (const auto& e : entries) wt = std::max(wt, schema::display_type(e.key).size());
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "path", wp, "type", wt, "default", wd, "help");
  for (const auto& e : entries) {
    std::string help = e.key.help;
    if (!e.variant.empty()) help = "[variant " + e.variant + "] " + help;
    const std::string allowed = schema::allowed_text(e.key);
    if (!allowed.empty()) help += " (" + allowed + ")";
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", e.path, wp, schema::display_type(e.key), wt,
                       schema::default_text(e.key), wd, help);
  }
  write_schema_text(out);
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "schema", "schema [--json | --markdown]",
    "Lists every key an experiment spec may hold, from the spec's one declaration: its path\n"
    "(\"train.lr\", \"data.tasks[].kind\"; the keys of a data source, a task and a growth\n"
    "plan once, as SOURCE.<key>, TASK.<key> and PLAN.<key>, a variant's own plan keys with\n"
    "that variant), type, default, range or choices and help. An unknown key in a spec is an\n"
    "error naming its full path and the nearest known key.",
    &declare_schema, &run_schema);

}  // namespace gb::cli
