// growbench-cli probe: importance probes of a model's layers and units (masking, Taylor,
// Fisher), weight-update magnitude and the effective rank of ΔW after a preliminary
// fine-tuning run, printed as a table or JSON and optionally recorded in the run store.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <torch/torch.h>

#include "common.h"
#include "data/tokenized.h"
#include "importance/effective_rank.h"
#include "importance/masking.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/selection.h"
#include "importance/unit_importance.h"
#include "importance/update_magnitude.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gb::cli {
namespace {

namespace fs = std::filesystem;
namespace imp = gb::importance;
using Json = nlohmann::json;

struct ProbeData {
  imp::ProbeSet set;
  std::string path;
  std::string kind;
};

int64_t positive(const Args& args, const char* name, int64_t fallback, int64_t min = 1) {
  const int64_t v = args.get_int(name, fallback);
  if (v < min) throw UsageError(fmt::format("--{} must be at least {}, got {}", name, min, v));
  return v;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

ProbeData load_data(const std::string& path, const data::TextEncoder& encoder,
                    const imp::ProbeSetOptions& options) {
  ProbeData d;
  d.path = fs::absolute(path).lexically_normal().string();
  imp::ProbeFormat f =
      options.format == imp::ProbeFormat::Auto ? imp::detect_probe_format(path) : options.format;
  d.kind = imp::format_name(f);
  imp::ProbeSetOptions o = options;
  o.format = f;
  d.set = imp::load_probe_set(path, encoder, o);
  return d;
}

Progress make_progress(bool enabled) {
  if (!enabled) return Progress();
  return Progress([](const ProgressUpdate& u) {
    if (u.eta_s >= 0) {
      std::fprintf(stderr, "[%s] %5.1f%%  ETA %.0f s  %s\n", u.stage.c_str(), 100 * u.fraction,
                   u.eta_s, u.message.c_str());
    } else {
      std::fprintf(stderr, "[%s] %5.1f%%  %s\n", u.stage.c_str(), 100 * u.fraction,
                   u.message.c_str());
    }
  });
}

std::string cell(double v) {
  return std::isnan(v) ? "-" : fmt::format("{:.6g}", v);
}

void print_text(const imp::ProbeResult& r, const std::string& title) {
  std::string out = title + "\n";
  if (!std::isnan(r.base_loss)) out += fmt::format("base loss: {:.6f}\n", r.base_loss);
  if (!r.stage_names.empty()) {
    out += fmt::format("{:<7}", "layer");
    for (const auto& s : r.stage_names) out += fmt::format(" {:>12}", s);
    out += "\n";
    for (size_t l = 0; l < r.stages.size(); ++l) {
      out += fmt::format("{:<7}", l);
      for (double v : r.stages[l]) out += fmt::format(" {:>12}", cell(v));
      out += "\n";
    }
  } else if (!r.unit_names.empty()) {
    out += fmt::format("{:<7} {:>12} {:>9}", "layer", "total", "mean-rank");
    for (const auto& u : r.unit_names) out += fmt::format(" {:>12}", u);
    out += "\n";
    for (size_t l = 0; l < r.layers.size(); ++l) {
      out += fmt::format("{:<7} {:>12} {:>9}", l, cell(r.layers[l]),
                         l < r.layer_mean_rank.size() ? cell(r.layer_mean_rank[l]) : "-");
      for (double v : r.units[l]) out += fmt::format(" {:>12}", cell(v));
      out += "\n";
    }
  } else {
    out += fmt::format("{:<7} {:>12}\n", "layer", "value");
    for (size_t l = 0; l < r.layers.size(); ++l) {
      out += fmt::format("{:<7} {:>12}\n", l, cell(r.layers[l]));
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

int run_probe(const Args& args) {
  const std::string method = args.required("method");
  bool known = false;
  for (const auto& m : imp::method_names()) known |= m == method;
  if (!known) {
    throw UsageError(
        "--method must be masking, taylor, taylor-abs, fisher, update-magnitude or "
        "effective-rank, got '" +
        method + "'");
  }
  const std::string data_path = args.required("data");
  const bool as_json = args.flag("json");
  const bool show_progress = args.flag("progress");

  imp::ProbeSetOptions po;
  po.format = imp::parse_probe_format(args.get("format", "auto"));
  po.field = args.get("field", "text");
  po.seq_len = positive(args, "seq-len", 128);
  po.batch_size = positive(args, "batch", 8);
  po.max_tokens = args.get_int("tokens", -1);
  po.max_examples = args.get_int("examples", -1);
  po.seed = static_cast<uint64_t>(args.get_int("seed", 0));

  LoadedModel m = load_model_arg(args);
  CausalLMImpl& model = *m.model;
  model.eval();
  std::string tokenizer_path = args.get("tokenizer", m.tokenizer_file);
  if (tokenizer_path.empty()) {
    fail(
        "probe: MODEL '{}' has no tokenizer.json; pass --tokenizer FILE (a tokenizer.json or a "
        "folder holding one)",
        m.folder);
  }
  auto tokenizer = tok::Tokenizer::from_file(tokenizer_path);
  auto encoder = data::encoder_for(tokenizer);
  if (tokenizer.vocab_size() > model.config.vocab_size) {
    log::get("importance")
        ->warn("the tokenizer has {} tokens but the model's vocabulary {}; ids beyond it fail",
               tokenizer.vocab_size(), model.config.vocab_size);
  }

  ProbeData general = load_data(data_path, encoder, po);
  std::optional<ProbeData> domain;
  if (args.has("domain-data")) domain = load_data(args.get("domain-data"), encoder, po);

  Json params = {{"seq_len", po.seq_len},
                 {"batch", po.batch_size},
                 {"tokens", po.max_tokens},
                 {"examples", po.max_examples},
                 {"seed", po.seed},
                 {"format", general.kind},
                 {"layout", imp::layout_name(general.set.layout)}};
  Progress progress = make_progress(show_progress);
  const auto start = std::chrono::steady_clock::now();

  imp::ProbeResult result;
  std::optional<imp::ProbeResult> domain_result;
  const ProbeData* recorded_data = &general;
  if (method == imp::methods::kMasking) {
    result = imp::to_probe_result(
        imp::masking_importance(model, general.set, imp::MaskingMode::Cached, progress));
    if (domain) {
      domain_result = imp::to_probe_result(
          imp::masking_importance(model, domain->set, imp::MaskingMode::Cached, progress));
    }
  } else if (imp::is_unit_method(method)) {
    imp::UnitOptions uo;
    uo.fisher = method == imp::methods::kFisher;
    uo.fisher_mode = imp::parse_fisher_mode(args.get("fisher-mode", "sequence"));
    if (uo.fisher) params["fisher_mode"] = imp::fisher_mode_name(uo.fisher_mode);
    result = imp::unit_importance(model, general.set, uo, progress).result(method);
    if (domain) {
      domain_result = imp::unit_importance(model, domain->set, uo, progress).result(method);
    }
  } else if (method == imp::methods::kEffectiveRank && args.has("checkpoints")) {
    auto ref = imp::parse_delta_reference(args.get("reference", "previous"));
    params["reference"] = imp::delta_reference_name(ref);
    params["checkpoints"] = split_list(args.get("checkpoints"));
    result = imp::effective_rank_of_checkpoints(model, split_list(args.get("checkpoints")), ref,
                                                progress)
                 .result();
  } else {
    // Preliminary fine-tuning on the new-domain data (Grow §4.2): --domain-data when given.
    const ProbeData& train = domain ? *domain : general;
    recorded_data = &train;
    imp::UpdateMagnitudeOptions uo;
    uo.steps = positive(args, "steps", 50);
    uo.lr = args.get_double("lr", 1e-4);
    uo.seed = po.seed;
    if (method == imp::methods::kEffectiveRank) {
      uo.snapshot_every = positive(args, "snapshot-every", std::max<int64_t>(1, uo.steps / 5));
    }
    params["steps"] = uo.steps;
    params["lr"] = uo.lr;
    params["trained_on"] = train.path;
    auto um = imp::update_magnitude(model, train.set, uo, progress);
    if (method == imp::methods::kUpdateMagnitude) {
      result = um.result();
    } else {
      auto ref = imp::parse_delta_reference(args.get("reference", "previous"));
      params["reference"] = imp::delta_reference_name(ref);
      params["snapshot_every"] = uo.snapshot_every;
      std::vector<std::vector<torch::Tensor>> stages(um.up_snapshots.begin() + 1,
                                                     um.up_snapshots.end());
      std::vector<std::string> names;
      for (size_t s = 1; s < um.snapshot_steps.size(); ++s) {
        names.push_back("step " + std::to_string(um.snapshot_steps[s]));
      }
      auto er = imp::effective_rank_stages(um.up_snapshots.front(), stages, names, ref);
      er.stage_steps.assign(um.snapshot_steps.begin() + 1, um.snapshot_steps.end());
      result = er.result();
      result.details["losses"] = um.losses;
    }
  }
  const double duration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Json out = imp::probe_json(result);
  out["probe_set"] = recorded_data->set.summary();
  out["duration_s"] = duration;
  if (domain_result) {
    Json d = imp::probe_json(*domain_result);
    out["domain"] = {
        {"layers", d["layers"]}, {"units", d["units"]}, {"probe_set", domain->set.summary()}};
    if (d.contains("base_loss")) out["domain"]["base_loss"] = d["base_loss"];
    out["calibrated"] = imp::calibrated_scores(result.layers, domain_result->layers);
  }

  if (args.has("db")) {
    auto st = store::Store::open(args.get("db"));
    auto record = [&](const imp::ProbeResult& r, const ProbeData& d) {
      imp::ProbeRecord rec;
      rec.model_key = fs::absolute(m.folder).lexically_normal().string();
      rec.model_family = family_name(m.config.family);
      rec.model_config = m.config.raw.dump();
      rec.model_params = count_parameters(model);
      rec.dataset_name = fs::path(d.path).filename().string();
      rec.dataset_path = d.path;
      rec.dataset_kind = d.kind;
      rec.dataset_hash = hex64(d.set.fingerprint());
      rec.dataset_tokens = d.set.scored_tokens;
      rec.probe_set = d.set.description;
      rec.params = params;
      rec.duration_s = duration;
      return imp::record_probe(st, r, rec);
    };
    out["probe_id"] = record(result, *recorded_data);
    if (domain_result) out["domain"]["probe_id"] = record(*domain_result, *domain);
    log::get("importance")
        ->info("recorded probe {} in {}", out["probe_id"].get<int64_t>(), args.get("db"));
  }
  if (args.has("out")) imp::write_probe_json(args.get("out"), result, out);

  if (as_json) {
    print_json(out);
    return 0;
  }
  print_text(result,
             fmt::format("method: {}  data: {}  ({} scored tokens, {} layout, {:.2f} s)", method,
                         recorded_data->set.description, recorded_data->set.scored_tokens,
                         imp::layout_name(recorded_data->set.layout), duration));
  if (domain_result) {
    print_text(*domain_result, fmt::format("domain: {}", domain->set.description));
    std::string line = "calibrated (domain rank - general rank; rank 1 = most important):";
    for (double v : out["calibrated"].get<std::vector<double>>()) line += " " + cell(v);
    std::puts(line.c_str());
  }
  if (out.contains("probe_id")) {
    std::printf("recorded as probe %lld in %s\n",
                static_cast<long long>(out["probe_id"].get<int64_t>()), args.get("db").c_str());
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "probe",
    "probe MODEL --data FILE --method M [--domain-data FILE] [--json] [--db DB] [--tokens N] "
    "[--examples N] [--seq-len T] [--batch B] [--steps N] [--seed S] [...]",
    "Importance probes of MODEL's layers and units on a probe set.\n\n"
    "Methods (--method):\n"
    "  masking           loss increase when each layer is bypassed (ADEPT §2.2); one cached\n"
    "                    pass per batch restarts from each layer's input\n"
    "  taylor            per unit: mean over its parameters of theta * dL/dtheta (ADEPT eq. 4-5,\n"
    "                    signed); per layer: the sum over its unit parameters (App. E eq. 11)\n"
    "  taylor-abs        the same with |theta * dL/dtheta|\n"
    "  fisher            per unit: sum of the diagonal empirical Fisher over its parameters\n"
    "  update-magnitude  ||W_T - W_0||_F per layer after a preliminary full fine-tuning run\n"
    "                    (Grow §4.2; AdamW, --steps, --lr) on --domain-data (else --data)\n"
    "  effective-rank    exp(entropy of normalised singular values) of the up projection's\n"
    "                    update per layer and stage (Grow §4.4): the preliminary run's\n"
    "                    snapshots, or --checkpoints relative to MODEL\n\n"
    "The loss is the mean next-token cross-entropy over the probe set's scored tokens. Text\n"
    "and JSONL data are packed into full rows of --seq-len tokens (no padding); multiple-\n"
    "choice JSONL ({\"context\", \"choices\", \"answer\"}) scores only the correct answer's\n"
    "tokens after the context, one item per row, rows bucketed by length.\n\n"
    "Output: the layer vector and, for unit methods, the layers x units matrix (columns q, k,\n"
    "v, o, gate, up, down, norms; 'total' = cumulation, 'mean-rank' = rank aggregation).\n"
    "With --domain-data the probe also runs on the domain set and prints the calibrated score\n"
    "domain rank - general rank (rank 1 = most important; negative = domain-critical).\n\n"
    "  --data FILE         the general (original-domain) probe set: text file or folder,\n"
    "                      JSONL with a text field, or multiple-choice JSONL\n"
    "  --domain-data FILE  a domain probe set (calibrated importance; the fine-tuning data\n"
    "                      of update-magnitude and effective-rank)\n"
    "  --method M          see above (required)\n"
    "  --json              print one JSON object: {\"method\", \"layers\": [per layer],\n"
    "                      \"units\": {\"names\": [...], \"values\": [[per layer, per unit]]},\n"
    "                      \"base_loss\", \"layers_mean_rank\" (unit methods), \"stages\":\n"
    "                      {\"names\", \"steps\", \"values\": [[per layer, per stage]]}\n"
    "                      (effective-rank; \"layers\" = the last stage), \"probe_set\",\n"
    "                      \"duration_s\", \"details\", and with --domain-data \"domain\" and\n"
    "                      \"calibrated\"}\n"
    "  --db DB             record the probe in the run store DB (created if missing)\n"
    "  --out FILE          also write the JSON object to FILE\n"
    "  --tokens N          token budget of the probe set (default: all)\n"
    "  --examples N        documents (text: paragraphs) or items to use (default: all)\n"
    "  --seq-len T         tokens per row (default 128)\n"
    "  --batch B           rows per batch (default 8)\n"
    "  --seed S            selection order of documents/items and the preliminary run's\n"
    "                      batch order (default 0)\n"
    "  --format F          auto (default), text, jsonl or mc\n"
    "  --field NAME        JSONL text field (default text)\n"
    "  --tokenizer FILE    tokenizer.json to use (default: MODEL's)\n"
    "  --fisher-mode M     sequence (default: per-row gradients, the empirical Fisher EWC\n"
    "                      uses) or batch (squared per-batch gradients; cheaper)\n"
    "  --steps N           preliminary fine-tuning steps (default 50)\n"
    "  --lr LR             preliminary fine-tuning learning rate (default 1e-4)\n"
    "  --snapshot-every N  effective-rank stage length in steps (default steps/5)\n"
    "  --checkpoints A,B   effective-rank of checkpoint folders (in training order) instead\n"
    "                      of a preliminary run\n"
    "  --reference R       effective-rank delta: previous (default, W_t - W_(t-1) as Grow\n"
    "                      §4.4) or base (W_t - W_0)\n"
    "  --progress          progress lines (fraction done, ETA) on stderr\n"
    "  --device D          cpu (default), cuda, cuda:N\n"
    "  --dtype T           float32 (default), bfloat16, float16",
    {"json", "progress"}, &run_probe);

}  // namespace gb::cli
