#pragma once
// Turning the spec's data sources into documents, QA items and token streams (through the
// tokenised cache), shared by the runner, the preset builder and the probes.

#include <memory>
#include <string>
#include <vector>

#include "data/corpus.h"
#include "data/tasks.h"
#include "data/tokenized.h"
#include "experiment/spec.h"

namespace gb::experiment {

// The documents of a text source (corpus with its split part and limits; a biography part
// as biographies or QA documents).
std::vector<data::Document> source_documents(const DataSource& source, uint64_t seed);
// QA items of a QA or biography-QA source (for evaluation and QA fine-tuning).
std::vector<data::QaItem> source_qa_items(const DataSource& source, uint64_t seed);
// A source of QA items (a QA JSONL or a biography QA part).
bool is_qa_source(const DataSource& source);
// Sources of many short documents seen for many epochs (QA items, biographies): trained with
// the documents in a new order each epoch (data::BatcherOptions::shuffle_documents), so that a
// model cannot learn the stream's order (an item's answer, a person's attributes, from the
// documents before it) instead of the documents. Text corpora keep their order.
bool reorders_documents(const DataSource& source);
// The token stream of a source: QA sources with the loss on answers (mask_prompt), text
// sources through the on-disk cache under `cache_dir` (empty: data::default_cache_dir());
// max_tokens applied.
std::shared_ptr<data::TokenStream> source_tokens(const DataSource& source,
                                                 const data::TextEncoder& encoder, uint64_t seed,
                                                 const std::string& label,
                                                 const std::string& cache_dir = {});

}  // namespace gb::experiment
