#pragma once
// The synthetic biography benchmark (SCALE §5.1, reproducing Zheng et al. 2025, "Spurious
// Forgetting in Continual Learning of Language Models").
//
// People. Each person has a unique full name "First Middle Last" and six attributes: birth
// date ("March 4, 1987"), birth city, university, major, company, and company city, which is
// always the city of the company's headquarters (a fixed table). Attributes are drawn
// uniformly from built-in pools. People are generated in order from one Rng stream, so the
// first n people are the same whatever num_people is (prefix-stable).
//
// Biographies. bios_per_person texts per person (Zheng et al.'s "multi5_permute_fullname"):
// one sentence per attribute, each naming the person in full, from a per-attribute template
// pool (8 templates each, drawn without replacement across a person's biographies), with the
// sentence order shuffled per biography.
//
// QA. One question per (person, attribute), from 4 question templates per attribute (chosen
// per person and attribute); the answer is the attribute value. Prompt format: tasks.h
// (question + "\nAnswer:", continuation " " + answer).
//
// Split, with N = num_people (paper: N = 200 000, fractions 0.5 / 0.5 / 0.1):
//   pretrain     biographies of people [0, P),      P  = round(N * pretrain_fraction)
//   task0_train  QA of people [0, P0),              P0 = round(P * task0_train_fraction)
//   task0_test   QA of people [P0, P): seen in pretraining, never in QA fine-tuning; Task 0
//                accuracy (knowledge extraction) and its retention are measured here
//   task1        QA of people [P, P + N1),          N1 = min(round(N * task1_fraction), N - P)
//                never seen in pretraining; Task 1 trains and evaluates on these items
// Everything is a function of the seed and the options.

#include <cstdint>
#include <string>
#include <vector>

#include "data/corpus.h"
#include "data/tasks.h"

namespace gb::data {

enum class Attribute { BirthDate, BirthCity, University, Major, Company, CompanyCity };
constexpr int kNumAttributes = 6;

// All six attributes in canonical order.
const std::vector<Attribute>& all_attributes();
// "birth_date", "birth_city", "university", "major", "company", "company_city".
const char* attribute_key(Attribute attribute);
// Parses attribute_key(); throws listing the valid keys.
Attribute attribute_from_key(const std::string& key);

struct Person {
  std::string first_name;
  std::string middle_name;
  std::string last_name;
  std::string birth_date;
  std::string birth_city;
  std::string university;
  std::string major;
  std::string company;
  std::string company_city;

  std::string full_name() const;
  const std::string& value(Attribute attribute) const;
};

struct BiographyOptions {
  uint64_t seed = 0;
  int64_t num_people = 200000;
  int bios_per_person = 5;
  double pretrain_fraction = 0.5;
  double task0_train_fraction = 0.5;
  double task1_fraction = 0.1;
};

struct BiographySplit {
  int64_t pretrain_people = 0;  // P: people [0, P) have biographies
  int64_t task0_train_end = 0;  // P0: task0_train = QA of [0, P0), task0_test = [P0, P)
  int64_t task1_begin = 0;      // = P
  int64_t task1_end = 0;        // P + N1
};

struct BiographyDataset {
  BiographyOptions options;
  BiographySplit split;
  std::vector<Person> people;      // num_people
  std::vector<Document> pretrain;  // bios_per_person per pretrain person, person-major order
  std::vector<QaItem> task0_train;
  std::vector<QaItem> task0_test;
  std::vector<QaItem> task1;
};

// The split boundaries for the options; throws on invalid sizes or fractions.
BiographySplit biography_split(const BiographyOptions& options);
// People [0, num_people) for the seed (prefix-stable); throws if names would run out.
std::vector<Person> generate_people(uint64_t seed, int64_t num_people);
// Biography `index` (0-based) of person `person_index`; depends only on (seed, person_index,
// index) and the person. Templates repeat only after all 8 of an attribute were used.
std::string biography_text(const Person& person, uint64_t seed, int64_t person_index, int index);
// Biographies of people [begin, end) as documents (source "bio/<person>/<index>").
std::vector<Document> biographies(const std::vector<Person>& people, uint64_t seed, int64_t begin,
                                  int64_t end, int bios_per_person);
// The QA item for (person, attribute): id "<person index>/<attribute key>".
QaItem qa_item(const Person& person, uint64_t seed, int64_t person_index, Attribute attribute);
// QA items of people [begin, end), six per person in attribute order.
std::vector<QaItem> qa_items(const std::vector<Person>& people, uint64_t seed, int64_t begin,
                             int64_t end);
// The whole benchmark.
BiographyDataset generate_biography_dataset(const BiographyOptions& options);

// Writes people.jsonl (all attributes, "index"), pretrain.jsonl ({"text"}), task0_train.jsonl,
// task0_test.jsonl, task1.jsonl (QA: question, answer, person, attribute, id) and
// options.json into `dir` (created if needed), each file atomically.
void write_biography_dataset(const BiographyDataset& dataset, const std::string& dir);
void write_people_jsonl(const std::string& path, const std::vector<Person>& people);

// Sizes of the built-in pools (for tests and documentation).
struct BiographyPools {
  size_t first_names, middle_names, last_names, cities, universities, majors, companies;
  size_t bio_templates_per_attribute, question_templates_per_attribute;
};
BiographyPools biography_pools();

}  // namespace gb::data
