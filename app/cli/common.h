#pragma once
// Helpers shared by growbench-cli commands.

#include <string>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "model/hf_io.h"
#include "util/progress.h"

namespace gb::cli {

// Loads MODEL (positional argument `index`) honouring --device and --dtype.
LoadedModel load_model_arg(const Args& args, size_t index = 0);
LoadOptions load_options(const Args& args);
// The tokenizer.json of the model folder MODEL (positional `index`), for commands that turn
// text into ids. Checked before the weights load: throws naming the folder and what to copy
// there when it has none. A path that is not a model folder is left to load_model_arg.
std::string model_tokenizer_arg(const Args& args, const std::string& command, size_t index = 0);
// Prints JSON to stdout (one line) or pretty with indentation. Invalid UTF-8 in strings
// (decoded model output) is written as U+FFFD.
void print_json(const nlohmann::json& j, bool pretty = false);
// SIGINT and SIGTERM cancel `token` (an atomic store: async-signal-safe) for the rest of
// the process; the command then stops cleanly (status cancelled, checkpoint kept).
void cancel_on_signals(CancelToken& token);

}  // namespace gb::cli
