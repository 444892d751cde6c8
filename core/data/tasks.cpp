#include "data/tasks.h"

#include <cctype>
#include <functional>

#include "data/detail.h"
#include "util/error.h"
#include "util/files.h"

namespace gb::data {

namespace {

// The first of `keys` present (and not null) in j, or nullptr.
const json::Json* find_alias(const json::Json& j, std::initializer_list<const char*> keys,
                             const char** found_key) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it != j.end() && !it->is_null()) {
      *found_key = k;
      return &*it;
    }
  }
  return nullptr;
}

std::string alias_list(std::initializer_list<const char*> keys) {
  std::string s;
  for (const char* k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Streams rows [0, n) produced by row(i) into a JSONL file, atomically.
void write_lines(const std::string& path, size_t n, const std::function<json::Json(size_t)>& row) {
  detail::ensure_parent_dir(path);
  AtomicFileWriter w(path);
  std::string buf;
  for (size_t i = 0; i < n; ++i) {
    buf += detail::dump_line(row(i));
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      w.write(buf.data(), buf.size());
      buf.clear();
    }
  }
  w.write(buf.data(), buf.size());
  w.commit();
}

}  // namespace

std::vector<McItem> read_mc_jsonl(const std::string& path) {
  static const auto kContext = {"context", "ctx", "question", "query", "question_stem", "prompt"};
  static const auto kChoices = {"choices", "endings", "options"};
  static const auto kAnswer = {"answer", "label", "gold", "answerKey", "answer_idx"};
  std::vector<McItem> items;
  detail::for_each_jsonl_object(path, [&](const json::Json& j, const std::string& where) {
    McItem item;
    item.source = where;
    const char* key = nullptr;
    const json::Json* ctx = find_alias(j, kContext, &key);
    if (!ctx) fail("{}: no context field (expected one of: {})", where, alias_list(kContext));
    if (!ctx->is_string()) {
      fail("{}: '{}' must be a string, found {}", where, key, json::type_name(*ctx));
    }
    item.context = ctx->get<std::string>();

    const json::Json* ch = find_alias(j, kChoices, &key);
    if (!ch) fail("{}: no choices field (expected one of: {})", where, alias_list(kChoices));
    const char* choices_key = key;
    std::vector<std::string> labels;
    const json::Json* texts = ch;
    if (ch->is_object()) {
      auto t = ch->find("text");
      if (t == ch->end()) fail("{}: '{}' is an object without a 'text' array", where, key);
      texts = &*t;
      auto l = ch->find("label");
      if (l != ch->end()) {
        if (!l->is_array()) fail("{}: '{}.label' must be an array", where, key);
        for (const auto& v : *l) {
          if (!v.is_string()) fail("{}: '{}.label' must hold strings", where, key);
          labels.push_back(v.get<std::string>());
        }
      }
    }
    if (!texts->is_array()) {
      fail("{}: '{}' must be an array of strings, found {}", where, choices_key,
           json::type_name(*texts));
    }
    for (size_t i = 0; i < texts->size(); ++i) {
      const auto& v = (*texts)[i];
      if (!v.is_string()) {
        fail("{}: '{}'[{}] must be a string, found {}", where, choices_key, i, json::type_name(v));
      }
      item.choices.push_back(v.get<std::string>());
    }
    if (item.choices.size() < 2) {
      fail("{}: '{}' needs at least two choices, found {}", where, choices_key,
           item.choices.size());
    }
    if (!labels.empty() && labels.size() != item.choices.size()) {
      fail("{}: '{}' has {} labels for {} choices", where, choices_key, labels.size(),
           item.choices.size());
    }

    const json::Json* ans = find_alias(j, kAnswer, &key);
    if (!ans) fail("{}: no answer field (expected one of: {})", where, alias_list(kAnswer));
    int64_t index = -1;
    if (ans->is_number_integer() || ans->is_number_unsigned()) {
      index = ans->get<int64_t>();
    } else if (ans->is_string()) {
      const std::string s = ans->get<std::string>();
      bool matched = false;
      for (size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] == s) {
          index = static_cast<int64_t>(i);
          matched = true;
        }
      }
      if (!matched && labels.empty() && all_digits(s) && s.size() < 9) {
        index = std::stoll(s);
      } else if (!matched && labels.empty() && s.size() == 1 && s[0] >= 'A' && s[0] <= 'Z') {
        index = s[0] - 'A';
      } else if (!matched) {
        fail("{}: '{}' is \"{}\", which is not a choice label{}", where, key, s,
             labels.empty() ? " (expected an index, digits or A-Z)" : "");
      }
    } else {
      fail("{}: '{}' must be an integer index or a label, found {}", where, key,
           json::type_name(*ans));
    }
    if (index < 0 || index >= static_cast<int64_t>(item.choices.size())) {
      fail("{}: '{}' is {}, out of range for {} choices (0-based)", where, key, index,
           item.choices.size());
    }
    item.answer = static_cast<int>(index);
    items.push_back(std::move(item));
  });
  return items;
}

void write_mc_jsonl(const std::string& path, const std::vector<McItem>& items) {
  write_lines(path, items.size(), [&](size_t i) {
    const McItem& it = items[i];
    return json::Json{{"context", it.context}, {"choices", it.choices}, {"answer", it.answer}};
  });
}

std::string mc_continuation(const std::string& context, const std::string& choice) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  if ((!context.empty() && space(context.back())) || (!choice.empty() && space(choice[0]))) {
    return choice;
  }
  return " " + choice;
}

std::vector<QaItem> read_qa_jsonl(const std::string& path) {
  static const auto kQuestion = {"question", "q"};
  static const auto kAnswer = {"answer", "a", "answers"};
  std::vector<QaItem> items;
  detail::for_each_jsonl_object(path, [&](const json::Json& j, const std::string& where) {
    QaItem item;
    item.source = where;
    const char* key = nullptr;
    const json::Json* q = find_alias(j, kQuestion, &key);
    if (!q) fail("{}: no question field (expected one of: {})", where, alias_list(kQuestion));
    if (!q->is_string()) {
      fail("{}: '{}' must be a string, found {}", where, key, json::type_name(*q));
    }
    item.question = q->get<std::string>();
    const json::Json* a = find_alias(j, kAnswer, &key);
    if (!a) fail("{}: no answer field (expected one of: {})", where, alias_list(kAnswer));
    if (a->is_array()) {
      if (a->empty() || !(*a)[0].is_string()) {
        fail("{}: '{}' must be a non-empty array of strings", where, key);
      }
      item.answer = (*a)[0].get<std::string>();
    } else if (a->is_string()) {
      item.answer = a->get<std::string>();
    } else {
      fail("{}: '{}' must be a string, found {}", where, key, json::type_name(*a));
    }
    if (item.answer.empty()) fail("{}: '{}' is empty", where, key);
    for (const char* opt : {"person", "attribute"}) {
      auto it = j.find(opt);
      if (it == j.end() || it->is_null()) continue;
      if (!it->is_string()) {
        fail("{}: '{}' must be a string, found {}", where, opt, json::type_name(*it));
      }
      (std::string(opt) == "person" ? item.person : item.attribute) = it->get<std::string>();
    }
    auto id = j.find("id");
    if (id != j.end() && !id->is_null()) {
      if (id->is_string()) {
        item.id = id->get<std::string>();
      } else if (id->is_number_integer() || id->is_number_unsigned()) {
        item.id = std::to_string(id->get<int64_t>());
      } else {
        fail("{}: 'id' must be a string or an integer, found {}", where, json::type_name(*id));
      }
    }
    items.push_back(std::move(item));
  });
  return items;
}

void write_qa_jsonl(const std::string& path, const std::vector<QaItem>& items) {
  write_lines(path, items.size(), [&](size_t i) {
    const QaItem& it = items[i];
    json::Json row{{"question", it.question}, {"answer", it.answer}};
    if (!it.person.empty()) row["person"] = it.person;
    if (!it.attribute.empty()) row["attribute"] = it.attribute;
    if (!it.id.empty()) row["id"] = it.id;
    return row;
  });
}

std::string qa_prompt(const std::string& question) {
  return question + "\nAnswer:";
}

std::string qa_continuation(const std::string& answer) {
  return " " + answer;
}

std::vector<Document> qa_documents(const std::vector<QaItem>& items) {
  std::vector<Document> docs;
  docs.reserve(items.size());
  for (const auto& it : items) {
    docs.push_back(Document{qa_prompt(it.question) + qa_continuation(it.answer),
                            it.id.empty() ? it.source : it.id});
  }
  return docs;
}

}  // namespace gb::data
