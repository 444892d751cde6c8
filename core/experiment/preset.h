#pragma once
// Built-in base models trained from scratch (the "pretrain" stage): a byte-level BPE
// tokenizer trained on the preset's text, a tiny Llama-shaped architecture, and training
// stages run with the same trainer as every experiment. The result is a plain Hugging Face
// folder, cached by the hash of the preset's resolved JSON and the seed, so every run of an
// experiment starts from the same base. Folders shipped under resources/presets/ (built by
// this code from the committed spec) are used when their key matches.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "experiment/spec.h"
#include "util/events.h"
#include "util/progress.h"

namespace gb::experiment {

// The config.json of the tiny-llama preset for a vocabulary, with `overrides` applied.
nlohmann::json tiny_llama_config(int64_t vocab_size, const nlohmann::json& overrides);

// Cache key of a preset build (hex).
std::string preset_key(const PresetSpec& preset, uint64_t seed);

// Folder of the built preset: a shipped resource or the cache when present, otherwise
// built now (reporting progress through `progress`, one stage per training stage).
std::string ensure_preset(const PresetSpec& preset, uint64_t seed, const std::string& cache_dir,
                          const Progress& progress,
                          const std::function<void(const events::Event&)>& on_event = {});

// Folders searched for shipped presets: $GROWBENCH_RESOURCES/presets, the source tree's
// resources/presets, and <prefix>/share/growbench/presets.
std::vector<std::string> preset_search_dirs();

}  // namespace gb::experiment
