#pragma once

#include <csignal>
// Helpers shared by growbench-cli commands.

#include <string>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "cli.h"
#include "model/hf_io.h"
#include "util/progress.h"

namespace gb::cli {

// MODEL (a positional argument) and how it loads.
struct ModelArg {
  std::string path;
  std::string device = "cpu";
  std::string dtype = "float32";
  bool no_check = false;  // --no-check: skip the finite check of the weights on load
};

// Declares MODEL (required, the next positional) and --device D, --dtype T.
void declare_model(CLI::App& app, ModelArg& model,
                   const std::string& dtype_help = "dtype of the weights in memory");
// Refuses (a usage error, exit 2) an output folder that is the input folder, lies inside
// it, or contains it (symlinks resolved): writing there would overwrite the model being
// read. Both paths are named in the message. With `force` (--force) the same folder and a
// folder inside it are allowed: the model is read completely first and the output is
// written as a staged folder (util/files.h StagedFolder) that replaces the old one in one
// step, so no file that is still being read is ever written over. A folder containing the
// input stays refused (replacing it would replace the input model with it).
void refuse_output_over_input(const std::string& input, const std::string& output,
                              bool force = false);
// Declares --force for commands that write a model folder (grow, export).
void declare_force(CLI::App& app, bool& force);

// Declares --device D and --dtype T alone.
void declare_device_dtype(CLI::App& app, ModelArg& model, const std::string& dtype_help);

// Loads MODEL honouring --device and --dtype.
LoadedModel load_model_arg(const ModelArg& model);
LoadOptions load_options(const ModelArg& model);
// The tokenizer.json of the model folder MODEL, for commands that turn text into ids.
// Checked before the weights load: throws naming the folder and what to copy there when it
// has none. A path that is not a model folder is left to load_model_arg (returns "").
std::string model_tokenizer_arg(const ModelArg& model, const std::string& command);
// Fails (exit 1) naming `what` (the command's step: "forward", "generation step 3") when
// `logits` hold NaN or Inf: a model that produces them gives no meaningful output.
void check_finite_logits(const torch::Tensor& logits, const std::string& what);
// Refuses (exit 1) `length` tokens beyond the positions `config` declares
// (max_position_embeddings, n_positions): learned position tables end there and RoPE
// models were not trained beyond it. Warns instead where the config declares no limit.
// `what` names the length ("--seq-len 4096", "input_ids[2]").
void check_sequence_length(const ModelConfig& config, int64_t length, const std::string& what);
// Prints JSON to stdout (one line) or pretty with indentation. Invalid UTF-8 in strings
// (decoded model output) is written as U+FFFD.
void print_json(const nlohmann::json& j, bool pretty = false);
// SIGINT and SIGTERM cancel `token` (an atomic store: async-signal-safe) for the rest of
// the process; the command then stops cleanly (status cancelled, checkpoint kept). A second
// signal exits at once with status 130 (the store stays consistent; the run is marked
// interrupted on the next start and resumes from its last checkpoint). kPoolCancelSignal
// (what `run --jobs` sends its workers) only ever cancels. Unblocks the three signals.
constexpr int kPoolCancelSignal = SIGUSR1;
void cancel_on_signals(CancelToken& token);

}  // namespace gb::cli
