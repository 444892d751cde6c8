#include "experiment/sources.h"

#include <map>
#include <mutex>

#include "data/biography.h"
#include "data/random.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::experiment {

namespace {

// Biography datasets are generated once per process per option set (they are large).
const data::BiographyDataset& biography(const nlohmann::json& options) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<data::BiographyDataset>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = options.dump();
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  data::BiographyOptions o;
  const std::string ctx = "biography";
  o.seed = static_cast<uint64_t>(json::get_or<int64_t>(options, "seed", 0, ctx));
  o.num_people = json::get_or<int64_t>(options, "num_people", o.num_people, ctx);
  o.bios_per_person = json::get_or<int>(options, "bios_per_person", o.bios_per_person, ctx);
  o.pretrain_fraction =
      json::get_or<double>(options, "pretrain_fraction", o.pretrain_fraction, ctx);
  o.task0_train_fraction =
      json::get_or<double>(options, "task0_train_fraction", o.task0_train_fraction, ctx);
  o.task1_fraction = json::get_or<double>(options, "task1_fraction", o.task1_fraction, ctx);
  auto ds = std::make_unique<data::BiographyDataset>(data::generate_biography_dataset(o));
  log::get("data")->info("generated the biography benchmark: {} people", o.num_people);
  auto& ref = *ds;
  cache.emplace(key, std::move(ds));
  return ref;
}

const std::vector<data::QaItem>& biography_qa(const DataSource& s) {
  const auto& ds = biography(s.biography);
  if (s.part == "task0_train") return ds.task0_train;
  if (s.part == "task0_test") return ds.task0_test;
  if (s.part == "task1") return ds.task1;
  fail("biography part '{}' has no QA items (it is the pretraining text)", s.part);
}

}  // namespace

std::vector<data::Document> source_documents(const DataSource& s, uint64_t seed) {
  std::vector<data::Document> docs;
  switch (s.kind) {
    case DataSource::Kind::Corpus: {
      data::CorpusSpec spec = data::corpus_spec_from_json(s.corpus, "data source");
      docs = data::read_corpus(spec);
      if (docs.empty()) fail("data source {} holds no documents", s.describe());
      if (s.part != "all") {
        data::SplitOptions so;
        so.heldout_fraction = s.heldout;
        so.seed = seed;
        auto split = data::split_documents(std::move(docs), so);
        docs = s.part == "train" ? std::move(split.train) : std::move(split.heldout);
        if (s.part == "validation" || s.part == "test") {
          // The held-out part cut in two disjoint halves (its first half is validation).
          data::SplitOptions half;
          half.heldout_count = static_cast<int64_t>(docs.size() / 2);
          half.seed = data::derive_seed(seed, 0x7e57);
          auto halves = data::split_documents(std::move(docs), half);
          docs = s.part == "validation" ? std::move(halves.heldout) : std::move(halves.train);
        }
        if (docs.empty()) fail("data source {}: the {} part is empty", s.describe(), s.part);
      }
      break;
    }
    case DataSource::Kind::Qa:
      docs = data::qa_documents(data::read_qa_jsonl(s.qa_path));
      break;
    case DataSource::Kind::Biography: {
      const auto& ds = biography(s.biography);
      docs = s.part == "pretrain" ? ds.pretrain : data::qa_documents(biography_qa(s));
      break;
    }
  }
  data::limit_documents(docs, s.max_docs);
  return docs;
}

std::vector<data::QaItem> source_qa_items(const DataSource& s, uint64_t) {
  std::vector<data::QaItem> items;
  if (s.kind == DataSource::Kind::Qa) {
    items = data::read_qa_jsonl(s.qa_path);
  } else if (s.kind == DataSource::Kind::Biography) {
    items = biography_qa(s);
  } else {
    fail("data source {} is not a QA source", s.describe());
  }
  if (s.max_docs >= 0 && static_cast<int64_t>(items.size()) > s.max_docs) {
    items.resize(static_cast<size_t>(s.max_docs));
  }
  return items;
}

bool is_qa_source(const DataSource& s) {
  return s.kind == DataSource::Kind::Qa ||
         (s.kind == DataSource::Kind::Biography && s.part != "pretrain");
}

bool reorders_documents(const DataSource& s) {
  return is_qa_source(s) || s.kind == DataSource::Kind::Biography;
}

std::shared_ptr<data::TokenStream> source_tokens(const DataSource& s,
                                                 const data::TextEncoder& encoder, uint64_t seed,
                                                 const std::string& label,
                                                 const std::string& cache_dir) {
  auto stream = std::make_shared<data::TokenStream>();
  if (is_qa_source(s)) {
    *stream = data::tokenize_qa(source_qa_items(s, seed), encoder, s.mask_prompt);
  } else {
    data::CacheOptions cache;
    cache.label = label;
    cache.dir = cache_dir;
    *stream = data::tokenize_cached(source_documents(s, seed), encoder, cache).stream;
  }
  data::limit_tokens(*stream, s.max_tokens);
  if (stream->size() < 2) fail("data source {} gives fewer than 2 tokens", s.describe());
  return stream;
}

}  // namespace gb::experiment
