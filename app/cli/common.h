#pragma once
// Helpers shared by growbench-cli commands.

#include <string>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "model/hf_io.h"
#include "util/progress.h"

namespace gb::cli {

// MODEL (a positional argument) and how it loads.
struct ModelArg {
  std::string path;
  std::string device = "cpu";
  std::string dtype = "float32";
};

// Declares MODEL (required, the next positional) and --device D, --dtype T.
void declare_model(CLI::App& app, ModelArg& model,
                   const std::string& dtype_help = "dtype of the weights in memory");
// Refuses (a usage error, exit 2) an output folder that is the input folder, lies inside
// it, or contains it (symlinks resolved): writing there would overwrite the model being
// read. Both paths are named in the message.
void refuse_output_over_input(const std::string& input, const std::string& output);

// Declares --device D and --dtype T alone.
void declare_device_dtype(CLI::App& app, ModelArg& model, const std::string& dtype_help);

// Loads MODEL honouring --device and --dtype.
LoadedModel load_model_arg(const ModelArg& model);
LoadOptions load_options(const ModelArg& model);
// The tokenizer.json of the model folder MODEL, for commands that turn text into ids.
// Checked before the weights load: throws naming the folder and what to copy there when it
// has none. A path that is not a model folder is left to load_model_arg (returns "").
std::string model_tokenizer_arg(const ModelArg& model, const std::string& command);
// Prints JSON to stdout (one line) or pretty with indentation. Invalid UTF-8 in strings
// (decoded model output) is written as U+FFFD.
void print_json(const nlohmann::json& j, bool pretty = false);
// SIGINT and SIGTERM cancel `token` (an atomic store: async-signal-safe) for the rest of
// the process; the command then stops cleanly (status cancelled, checkpoint kept).
void cancel_on_signals(CancelToken& token);

}  // namespace gb::cli
