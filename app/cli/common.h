#pragma once
// Helpers shared by growbench-cli commands.

#include <string>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "model/hf_io.h"

namespace gb::cli {

// Loads MODEL (positional argument `index`) honouring --device and --dtype.
LoadedModel load_model_arg(const Args& args, size_t index = 0);
LoadOptions load_options(const Args& args);
// Prints JSON to stdout (one line) or pretty with indentation.
void print_json(const nlohmann::json& j, bool pretty = false);

}  // namespace gb::cli
