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
#include "human_events.h"
#include "data/tokenized.h"
#include "importance/probe.h"
#include "importance/probe_set.h"
#include "importance/probe_writer.h"
#include "importance/selection.h"
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

struct ProbeCommandOptions {
  ModelArg model;
  std::string data, method, domain_data, db, out, tokenizer;
  std::string format = "auto", field = "text", fisher_mode = "sequence", reference = "previous";
  std::vector<std::string> checkpoints;
  int64_t tokens = -1, examples = -1, seq_len = 128, batch = 8, seed = 0;
  int64_t steps = 50, snapshot_every = 0;  // snapshot_every 0: max(1, steps / 5)
  double lr = 1e-4;
  bool json = false, progress = false, checkpointing = false;
};

void declare_probe(CLI::App& app, ProbeCommandOptions& o) {
  declare_model(app, o.model);
  add_option(app, "--data", o.data, "FILE",
             "the general (original-domain) probe set: text file or folder, JSONL\n"
             "with a text field, or multiple-choice JSONL")
      ->required();
  add_option(app, "--domain-data", o.domain_data, "FILE",
             "a domain probe set (calibrated importance; the fine-tuning data of\n"
             "update-magnitude and effective-rank)");
  add_option(app, "--method", o.method, "M", "the probe (see Methods above)")
      ->required()
      ->check(one_of(imp::method_names()));
  add_flag(app, "--json", o.json,
           "print one JSON object: {\"method\", \"layers\": [per layer], \"units\":\n"
           "{\"names\": [...], \"values\": [[per layer, per unit]]}, \"base_loss\",\n"
           "\"layers_mean_rank\" (unit methods), \"stages\": {\"names\", \"steps\",\n"
           "\"values\": [[per layer, per stage]]} (effective-rank; \"layers\" = the last\n"
           "stage), \"probe_set\", \"duration_s\", \"details\", and with --domain-data\n"
           "\"domain\" and \"calibrated\"}");
  add_option(app, "--db", o.db, "DB", "record the probe in the run store DB (created if missing)");
  add_option(app, "--out", o.out, "FILE", "also write the JSON object to FILE");
  add_option(app, "--tokens", o.tokens, "N", "token budget of the probe set")
      ->default_str("all")
      ->check(at_least(1));
  add_option(app, "--examples", o.examples, "N", "documents (text: paragraphs) or items to use")
      ->default_str("all")
      ->check(at_least(1));
  add_option(app, "--seq-len", o.seq_len, "T", "tokens per row")->check(at_least(1));
  add_option(app, "--batch", o.batch, "B", "rows per batch")->check(at_least(1));
  add_option(app, "--seed", o.seed, "S",
             "selection order of documents/items and the preliminary run's batch\n"
             "order")
      ->check(at_least(0));
  add_option(app, "--format", o.format, "F", "the probe set's format")
      ->check(one_of({"auto", "text", "jsonl", "mc"}, {"multiple-choice"}));
  add_option(app, "--field", o.field, "NAME", "JSONL text field");
  add_option(app, "--tokenizer", o.tokenizer, "FILE", "tokenizer.json to use (default: MODEL's)");
  add_option(app, "--fisher-mode", o.fisher_mode, "M",
             "sequence: per-row gradients, the empirical Fisher EWC uses; batch:\n"
             "squared per-batch gradients (cheaper)")
      ->check(one_of({"sequence", "batch"}, {"per-sequence", "per-batch"}));
  add_option(app, "--steps", o.steps, "N", "preliminary fine-tuning steps")->check(at_least(1));
  add_option(app, "--lr", o.lr, "LR", "preliminary fine-tuning learning rate")
      ->check(positive_number());
  add_option(app, "--snapshot-every", o.snapshot_every, "N", "effective-rank stage length in steps")
      ->default_str("steps / 5")
      ->check(at_least(1));
  add_option(app, "--checkpoints", o.checkpoints, "A,B",
             "effective-rank of checkpoint folders (in training order) instead of a\n"
             "preliminary run")
      ->delimiter(',')
      ->allow_extra_args(false);
  add_option(app, "--reference", o.reference, "R",
             "effective-rank delta: previous (W_t - W_(t-1) as Grow §4.4) or base\n"
             "(W_t - W_0)")
      ->check(one_of({"previous", "base"}));
  add_flag(app, "--checkpointing", o.checkpointing,
           "gradient probes (taylor, taylor-abs, taylor-code, fisher): activation\n"
           "checkpointing per decoder layer (the same numbers, about one more\n"
           "forward pass, the activations of one layer at a time)");
  add_flag(app, "--progress", o.progress, "progress lines (fraction done, ETA) on stderr");
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

int run_probe(const ProbeCommandOptions& args) {
  const std::string& method = args.method;
  const std::string& data_path = args.data;
  const bool as_json = args.json;
  const bool show_progress = args.progress;

  imp::ProbeSetOptions po;
  po.format = imp::parse_probe_format(args.format);
  po.field = args.field;
  po.seq_len = args.seq_len;
  po.batch_size = args.batch;
  po.max_tokens = args.tokens;
  po.max_examples = args.examples;
  po.seed = static_cast<uint64_t>(args.seed);

  // On a terminal (and without --progress, whose lines the GUI reads): one line in place.
  TerminalProgress terminal(!show_progress && TerminalProgress::on_terminal().enabled());
  terminal.stage("loading " + args.model.path);
  LoadedModel m = load_model_arg(args.model);
  CausalLMImpl& model = *m.model;
  model.eval();
  check_sequence_length(m.config, args.seq_len, fmt::format("--seq-len {}", args.seq_len));
  std::string tokenizer_path = args.tokenizer.empty() ? m.tokenizer_file : args.tokenizer;
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

  terminal.stage("reading the probe data " + data_path);
  ProbeData general = load_data(data_path, encoder, po);
  std::optional<ProbeData> domain;
  if (!args.domain_data.empty()) domain = load_data(args.domain_data, encoder, po);

  // The one probe dispatcher (importance/probe.h), shared with the runner and the GUI.
  imp::ProbeOptions options;
  options.method = method;
  options.fisher_mode = imp::parse_fisher_mode(args.fisher_mode);
  options.steps = args.steps;
  options.lr = args.lr;
  options.snapshot_every = args.snapshot_every;
  options.reference = imp::parse_delta_reference(args.reference);
  options.seed = po.seed;
  options.checkpoints = args.checkpoints;
  options.checkpointing = args.checkpointing;
  imp::validate(options, "probe");
  Progress progress = show_progress ? make_progress(true) : terminal.progress();
  const auto start = std::chrono::steady_clock::now();

  // Update-magnitude and effective-rank fine-tune on --domain-data when given (Grow §4.2);
  // masking and the unit methods also run on it (calibrated importance).
  const imp::ProbeSet* train_set = domain ? &domain->set : nullptr;
  imp::ProbeResult result = imp::run_probe(model, general.set, options, progress, train_set);
  // Non-finite logits make the probe's loss NaN or Inf, and every score derived from it
  // meaningless: refuse rather than print them.
  if ((method == imp::methods::kMasking || imp::is_unit_method(method)) &&
      !std::isfinite(result.base_loss)) {
    fail(
        "probe: the model's loss on the probe set is {} (NaN or Inf logits): its weights or "
        "inputs are broken, so no importance is reported",
        result.base_loss);
  }
  const ProbeData* recorded_data = domain && imp::fine_tunes(options) ? &*domain : &general;
  std::optional<imp::ProbeResult> domain_result;
  if (domain && imp::measures_probe_set(method)) {
    domain_result = imp::run_probe(model, domain->set, options, progress);
  }
  const double duration =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  terminal.clear();
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

  if (!args.db.empty()) {
    auto st = store::Store::open(args.db);
    const std::string model_key = fs::absolute(m.folder).lexically_normal().string();
    auto record = [&](const imp::ProbeResult& r, const ProbeData& d) {
      const imp::ProbeDataInfo info{fs::path(d.path).filename().string(), d.path, d.kind};
      return imp::record_probe(
          st, r, imp::probe_record(model_key, m.config, model, d.set, info, po, options, duration));
    };
    out["probe_id"] = record(result, *recorded_data);
    if (domain_result) out["domain"]["probe_id"] = record(*domain_result, *domain);
    log::get("importance")
        ->info("recorded probe {} in {}", out["probe_id"].get<int64_t>(), args.db);
  }
  if (!args.out.empty()) imp::write_probe_json(args.out, result, out);

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
                static_cast<long long>(out["probe_id"].get<int64_t>()), args.db.c_str());
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
    "  taylor-code       per unit: mean over its parameters of |theta| times the mean over\n"
    "                    probe batches of |dL_b/dtheta| (L_b: the batch's mean loss; ADEPT's\n"
    "                    public code). The signed taylor of a matrix is the derivative of\n"
    "                    the loss under scaling it, so q and k (v and o, up and down) come\n"
    "                    out identical there; taylor-abs and taylor-code separate them\n"
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
    "domain rank - general rank (rank 1 = most important; negative = domain-critical).",
    &declare_probe, &run_probe);

}  // namespace gb::cli
