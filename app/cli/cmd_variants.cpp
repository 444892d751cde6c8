// growbench-cli variants: the registry of growth variants (core/grow/variant.h) with their
// parameter schemas, as a table, as JSON or as the markdown table of docs/plans.md.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "grow/variant.h"
#include "util/json.h"

namespace gb::cli {
namespace {

struct VariantsOptions {
  bool json = false;
  std::string markdown;
};

std::vector<std::string> variant_ids() {
  std::vector<std::string> ids;
  for (const grow::VariantModule* m : grow::variants()) ids.push_back(m->id);
  return ids;
}

void declare_variants(CLI::App& app, VariantsOptions& o) {
  auto* json = add_flag(app, "--json", o.json,
                        "print one JSON array, an element per variant: {\"id\", \"name\",\n"
                        "\"paper\", \"description\", \"exportable_hf\", \"export\", \"params\":\n"
                        "[{\"name\", \"type\", \"default\", \"help\", \"label\", and where they\n"
                        "apply \"min\", \"max\", \"choices\", \"choice_labels\", \"unit\",\n"
                        "\"applies_when\"}]}");
  auto* markdown = add_option(app, "--markdown", o.markdown, "ID",
                              "print the markdown table of variant ID's parameters (as in\n"
                              "docs/plans.md)")
                       ->check(one_of(variant_ids()));
  json->excludes(markdown);
}

// A JSON value as plan text: strings unquoted.
std::string value_text(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string allowed_text(const grow::ParamSpec& p) {
  if (!p.choices.empty()) {
    std::string s;
    for (const auto& c : p.choices) s += (s.empty() ? "" : "|") + c;
    return s;
  }
  if (p.min || p.max) {
    return (p.min ? json::number_text(*p.min) : "") + ".." +
           (p.max ? json::number_text(*p.max) : "");
  }
  if (p.type == grow::ParamSpec::Type::Layers) return "all|[i,...]|{policy}";
  if (p.type == grow::ParamSpec::Type::Plan) return "{plan}";
  return "";
}

void print_table() {
  std::string out;
  for (const grow::VariantModule* m : grow::variants()) {
    out += fmt::format("{}: {}\n", m->id, m->name);
    if (!m->paper.empty()) out += fmt::format("  paper:      {}\n", m->paper);
    out += fmt::format("  exportable: {}{}\n", m->exportable_hf ? "yes" : "no",
                       m->export_note.empty() ? "" : " (" + m->export_note + ")");
    std::vector<const grow::ParamSpec*> shown;
    for (const auto& p : m->params) {
      if (!p.hidden) shown.push_back(&p);
    }
    if (shown.empty()) {
      out += "  parameters: none\n\n";
      continue;
    }
    size_t wn = 4, wt = 4, wd = 7, wa = 7;
    for (const auto* p : shown) {
      wn = std::max(wn, p->name.size());
      wt = std::max(wt, std::string(grow::type_name(p->type)).size());
      wd = std::max(wd, value_text(p->default_value).size());
      wa = std::max(wa, allowed_text(*p).size());
    }
    out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", "name", wn, "type", wt, "default",
                       wd, "allowed", wa, "help");
    for (const auto* p : shown) {
      std::string help = p->help;
      if (!p->unit.empty()) help += " [" + p->unit + "]";
      if (!p->when_key.empty()) {
        std::string vals;
        for (const auto& v : p->when_values) vals += (vals.empty() ? "" : "|") + v;
        help += " (only when " + p->when_key + " is " + vals + ")";
      }
      out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", p->name, wn,
                         grow::type_name(p->type), wt, value_text(p->default_value), wd,
                         allowed_text(*p), wa, help);
    }
    out += "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

int run_variants(const VariantsOptions& o) {
  if (!o.markdown.empty()) {
    const std::string md = grow::params_markdown(grow::variant_module(o.markdown));
    std::fwrite(md.data(), 1, md.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  if (o.json) {
    nlohmann::json a = nlohmann::json::array();
    for (const grow::VariantModule* m : grow::variants()) a.push_back(m->to_json());
    print_json(a);
    return 0;
  }
  print_table();
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "variants", "variants [--json] [--markdown ID]",
    "Lists the growth variants a plan can name ({\"variant\": ID, ...}; growbench-cli grow,\n"
    "experiment specs): each variant's id, name, the paper and section it follows, whether\n"
    "the grown model exports to a plain Hugging Face folder, and its parameters (the plan\n"
    "keys) with type, default, allowed range or choices and help.",
    &declare_variants, &run_variants);

}  // namespace gb::cli
