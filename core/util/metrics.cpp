#include "util/metrics.h"

#include <unordered_map>

namespace gb::metrics {
namespace {

constexpr const char* kTaskPlaceholder = "<task>";
constexpr const char* kTermPlaceholder = "<term>";
constexpr const char* kUnitPlaceholder = "<unit>";
constexpr const char* kAdeptLrScalePrefix = "adept/lr_scale/";

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string pattern_key(const char* suffix) {
  return std::string(kEvalPrefix) + kTaskPlaceholder + "/" + suffix;
}

struct Registry {
  std::vector<MetricInfo> entries;  // fixed keys, then patterns
  std::unordered_map<std::string, size_t> fixed;
  std::unordered_map<std::string, size_t> task_suffix;  // suffix → pattern entry
  size_t train_term = 0;
  size_t route_neff = 0, route_usage = 0;
  size_t adept_lr_scale = 0;

  Registry() {
    const auto L = Direction::Lower;
    const auto H = Direction::Higher;
    const auto N = Direction::None;
    auto fix = [&](const char* key, const char* meaning, const char* unit, Direction d,
                   const char* label) {
      fixed[key] = entries.size();
      entries.push_back({key, meaning, unit, d, label});
    };
    fix(kTrainLoss, "training loss: next-token cross-entropy plus the variant's extra terms",
        "nats/token", L, "train loss");
    fix(kTrainLmLoss, "next-token cross-entropy part of the training loss", "nats/token", L,
        "train LM loss");
    fix(kTrainGradNorm, "gradient norm before clipping", "", N, "gradient norm");
    fix(kTrainLr, "base learning rate of the step", "", N, "learning rate");
    fix(kEvalOrigLoss, "cross-entropy on the original-domain eval set (forgetting)", "nats/token",
        L, "original loss");
    fix(kEvalOrigPpl, "perplexity on the original-domain eval set (forgetting)", "", L,
        "original perplexity");
    fix(kEvalNewLoss, "cross-entropy on the new-domain eval set (learning)", "nats/token", L,
        "new loss");
    fix(kEvalNewPpl, "perplexity on the new-domain eval set (learning)", "", L, "new perplexity");
    fix(kDriftCosine,
        "mean cosine of final hidden states on the original eval set to the base model's", "", H,
        "representation drift");
    fix(kDriftOrigStream,
        "SCALE: max |h - h0| / max |h0| of the original part of the final normalised hidden "
        "states on the original eval set, h0 the base model's (0 for SCALE-Preserve)",
        "", L, "original-stream drift");
    fix(kTestOrigLoss, "cross-entropy on the original-domain test set (forgetting, reported)",
        "nats/token", L, "original test loss");
    fix(kTestOrigPpl, "perplexity on the original-domain test set (forgetting, reported)", "", L,
        "original test perplexity");
    fix(kTestNewLoss, "cross-entropy on the new-domain test set (learning, reported)", "nats/token",
        L, "new test loss");
    fix(kTestNewPpl, "perplexity on the new-domain test set (learning, reported)", "", L,
        "new test perplexity");
    fix(kEvalOp, "average performance over the sequential tasks after the last phase", "", H,
        "average performance");
    fix(kEvalBwt, "backward transfer over the sequential tasks (negative: forgetting)", "", H,
        "backward transfer");
    fix(kRouteNeff,
        "effective composition number N_eff of routed experts on original-domain tokens, "
        "mean over banks (mh-moe eq. 9)",
        "", L, "N_eff");
    fix(kTokensPerS, "training throughput", "tokens/s", H, "throughput");
    fix(kPeakMemoryMb, "peak accelerator memory allocated", "MB", L, "peak memory");
    fix(kEvalSeconds, "wall time of the evaluation at this step", "s", L, "evaluation time");
    fix(kTotalParams, "parameters of the grown model", "parameters", N, "total parameters");
    fix(kTrainableParams, "parameters the optimizer updates", "parameters", N,
        "trainable parameters");
    fix(kAddedParams, "parameters growth added to the base model", "parameters", N,
        "added parameters");

    auto task = [&](const char* suffix, const char* meaning, const char* unit, Direction d,
                    const char* label) {
      task_suffix[suffix] = entries.size();
      entries.push_back({pattern_key(suffix), meaning, unit, d, label});
    };
    task(kAcc, "accuracy on a task (multiple choice; first answer token for QA)", "fraction", H,
         "<task> accuracy");
    task(kAccNorm, "length-normalised multiple-choice accuracy on a task", "fraction", H,
         "<task> normalised accuracy");
    task(kEm, "exact-match accuracy of generated answers on a QA task", "fraction", H,
         "<task> exact match");
    task(kAnswerLoss, "cross-entropy over the answer tokens of a QA task", "nats/token", L,
         "<task> answer loss");
    task(kAccFrozenHead,
         "SCALE: accuracy on a task from the frozen logits W_out X alone (the head's new term "
         "masked)",
         "fraction", H, "<task> accuracy (frozen head)");
    task(kLoss, "cross-entropy on a language-modelling task", "nats/token", L, "<task> loss");
    task(kPpl, "perplexity on a language-modelling task", "", L, "<task> perplexity");

    train_term = entries.size();
    entries.push_back({std::string(kTrainPrefix) + kTermPlaceholder,
                       "an extra loss term of the variant (coefficient times value)", "nats/token",
                       L, "<term> loss term"});
    route_neff = entries.size();
    entries.push_back({std::string(kRoutePrefix) + "<bank>/neff",
                       "effective composition number N_eff of one bank of routed experts, "
                       "mass-weighted over its routes (original-domain tokens)",
                       "", L, "<bank> N_eff"});
    route_usage = entries.size();
    entries.push_back({std::string(kRoutePrefix) + "<bank>/usage/<head>/<expert>",
                       "share of a routing head's selections that go to one expert "
                       "(original-domain tokens)",
                       "fraction", N, "<bank> expert usage"});
    adept_lr_scale = entries.size();
    entries.push_back({std::string(kAdeptLrScalePrefix) + kUnitPlaceholder,
                       "ADEPT stage 2: a unit's learning-rate multiplier 2·(max − I)/(max − min) "
                       "from its importance I at an assignment (1 before the first)",
                       "", N, "<unit> learning-rate multiplier"});
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

std::string replace_placeholder(std::string s, std::string_view placeholder,
                                const std::string& with) {
  if (auto pos = s.find(placeholder); pos != std::string::npos) {
    s.replace(pos, placeholder.size(), with);
  }
  return s;
}

}  // namespace

std::string task_key(const std::string& task, const char* suffix) {
  return std::string(kEvalPrefix) + task + "/" + suffix;
}

std::string test_task_key(const std::string& task, const char* suffix) {
  return std::string(kTestPrefix) + task + "/" + suffix;
}

std::string train_term_key(const std::string& term) {
  return std::string(kTrainPrefix) + term;
}

std::string route_neff_key(const std::string& bank) {
  return std::string(kRoutePrefix) + bank + "/neff";
}

std::string route_usage_key(const std::string& bank, int64_t head, int64_t expert) {
  return std::string(kRoutePrefix) + bank + "/usage/" + std::to_string(head) + "/" +
         std::to_string(expert);
}

std::string adept_lr_scale_key(const std::string& unit) {
  return kAdeptLrScalePrefix + unit;
}

std::optional<TaskKey> split_task_key(const std::string& key) {
  const auto& r = registry();
  if (!starts_with(key, kEvalPrefix) || r.fixed.count(key)) return std::nullopt;
  const size_t start = std::string_view(kEvalPrefix).size();
  const size_t slash = key.rfind('/');
  if (slash == std::string::npos || slash <= start) return std::nullopt;
  std::string suffix = key.substr(slash + 1);
  if (!r.task_suffix.count(suffix)) return std::nullopt;
  return TaskKey{key.substr(start, slash - start), std::move(suffix)};
}

const MetricInfo* find(const std::string& key) {
  const auto& r = registry();
  if (auto it = r.fixed.find(key); it != r.fixed.end()) return &r.entries[it->second];
  if (auto tk = split_task_key(key)) return &r.entries[r.task_suffix.at(tk->suffix)];
  if (starts_with(key, kTestPrefix)) {
    // test/<task>/<suffix>: described like eval/<task>/<suffix>.
    if (auto tk = split_task_key(kEvalPrefix + key.substr(std::string_view(kTestPrefix).size()))) {
      return &r.entries[r.task_suffix.at(tk->suffix)];
    }
  }
  if (starts_with(key, kTrainPrefix) && key.size() > std::string_view(kTrainPrefix).size()) {
    return &r.entries[r.train_term];
  }
  if (starts_with(key, kRoutePrefix)) {
    if (key.find("/usage/") != std::string::npos) return &r.entries[r.route_usage];
    if (key.size() > 5 && key.compare(key.size() - 5, 5, "/neff") == 0) {
      return &r.entries[r.route_neff];
    }
  }
  if (starts_with(key, kAdeptLrScalePrefix) &&
      key.size() > std::string_view(kAdeptLrScalePrefix).size()) {
    return &r.entries[r.adept_lr_scale];
  }
  return nullptr;
}

const std::vector<MetricInfo>& all() {
  return registry().entries;
}

Direction direction(const std::string& key) {
  const MetricInfo* info = find(key);
  return info ? info->direction : Direction::None;
}

bool lower_is_better(const std::string& key) {
  return direction(key) == Direction::Lower;
}

bool higher_is_better(const std::string& key) {
  return direction(key) == Direction::Higher;
}

std::string unit(const std::string& key) {
  const MetricInfo* info = find(key);
  return info ? info->unit : std::string();
}

std::string axis_title(const std::string& key) {
  const MetricInfo* info = find(key);
  if (!info) return key;
  std::string title = info->label;
  const std::string as_eval = starts_with(key, kTestPrefix)
                                  ? kEvalPrefix + key.substr(std::string_view(kTestPrefix).size())
                                  : key;
  if (auto tk = split_task_key(as_eval)) {
    title = replace_placeholder(title, kTaskPlaceholder, tk->task);
    if (as_eval != key) title = "test " + title;
  } else if (starts_with(key, kTrainPrefix)) {
    title = replace_placeholder(title, kTermPlaceholder,
                                key.substr(std::string_view(kTrainPrefix).size()));
  } else if (starts_with(key, kRoutePrefix) && key != kRouteNeff) {
    const size_t start = std::string_view(kRoutePrefix).size();
    title = replace_placeholder(title, "<bank>", key.substr(start, key.find('/', start) - start));
  } else if (starts_with(key, kAdeptLrScalePrefix)) {
    title = replace_placeholder(title, kUnitPlaceholder,
                                key.substr(std::string_view(kAdeptLrScalePrefix).size()));
  }
  if (!info->unit.empty()) title += " (" + info->unit + ")";
  return title;
}

bool is_eval(const std::string& key) {
  return starts_with(key, kEvalPrefix);
}
bool is_train(const std::string& key) {
  return starts_with(key, kTrainPrefix);
}
bool is_perf(const std::string& key) {
  return starts_with(key, kPerfPrefix);
}

bool is_route(const std::string& key) {
  return starts_with(key, kRoutePrefix);
}

bool is_adept(const std::string& key) {
  return starts_with(key, kAdeptPrefix);
}

const char* to_string(Direction direction) {
  switch (direction) {
    case Direction::Lower:
      return "lower";
    case Direction::Higher:
      return "higher";
    case Direction::None:
      break;
  }
  return "none";
}

}  // namespace gb::metrics
