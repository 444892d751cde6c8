#pragma once
// What keeps a resumed run honest (no silent data loss, no silently mixed numbers):
//
// - Input fingerprints: the base model's weights, its tokenizer and every data file of the
//   spec, each as its size and a hash (the whole file up to 4 MiB; beyond that its first
//   and last MiB with the size), recorded with the run when it starts; a resume compares
//   them and names what changed.
// - Checkpoint identity: every checkpoint's trainer.json names its store (uuid), its run and
//   the hash of the run's resolved spec (steps, schedule, data: everything that shapes the
//   numbers), and the store records the checkpoint's size and checksum when it is written;
//   a resume verifies both and falls back to the newest valid checkpoint.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/spec.h"
#include "store/types.h"

namespace gb::experiment {

// Size and hash of a file, or of every regular file below a folder (sorted by relative
// path; names, sizes and hashes combined): {"path", "size", "hash"} (+ "files" for a folder).
// A missing path gives {"path", "missing": true}.
nlohmann::json fingerprint_path(const std::string& path);

// The fingerprints of a run's inputs, keyed by what they are ("base model weights",
// "tokenizer", "data.new.train", ...). `base_folder` is the resolved base model folder (a
// preset's cache folder included); `tokenizer_file` its tokenizer.json.
nlohmann::json input_fingerprints(const ExperimentSpec& spec, const std::string& base_folder,
                                  const std::string& tokenizer_file);

// The entry of input_fingerprints that says how training documents are ordered, present when
// a source reorders its documents every epoch (QA items, biographies).
inline constexpr const char* kDataOrderInput = "data order";
inline constexpr const char* kDocumentsReordered = "a new document order every epoch";

// What differs between recorded and current fingerprints, one line per input ("the base
// model weights (/path): 1234 bytes, hash 0123... -> ..."); empty when nothing changed.
// Inputs recorded but no longer part of the spec are not compared; the data order is compared
// even when the run never recorded it (a run started before documents were reordered).
std::vector<std::string> changed_inputs(const nlohmann::json& recorded,
                                        const nlohmann::json& current);

// The hash that identifies a run's resolved spec (its JSON text as stored with the run).
std::string run_spec_hash(const nlohmann::json& spec_raw);

// Total size of the regular files in a checkpoint folder and their checksum (names and
// contents, in name order).
struct FolderDigest {
  int64_t bytes = 0;
  std::string checksum;
};
FolderDigest checkpoint_digest(const std::string& dir);

// Why `checkpoint` cannot resume run `run_id` of the store `store_uuid` whose resolved spec
// hashes to `spec_hash`: missing, size or checksum differ from what the store recorded,
// unreadable trainer.json, or written for another store, run, spec or step. Empty when valid.
// Checkpoints written before these were recorded are checked for what they carry.
std::string checkpoint_problem(const store::CheckpointInfo& checkpoint, int64_t run_id,
                               const std::string& store_uuid, const std::string& spec_hash);

}  // namespace gb::experiment
