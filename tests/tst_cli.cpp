// growbench-cli text commands, run as the real program (QProcess) on the Llama reference
// fixture with a byte-level BPE tokenizer trained for it: generate (greedy against argmax of
// full forward passes without a cache, sampling by seed, top-p, EOS and context stops) and
// score (against the forward command's losses on the same windows), and their errors.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/hf_io.h"
#include "model/tokenizer.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace fs = std::filesystem;

namespace {

struct CliResult {
  int code = -1;
  QByteArray out, err;
};

CliResult run_cli(const QStringList& args) {
  QProcess p;
  p.setProgram(QStringLiteral(GB_CLI_PATH));
  p.setArguments(args);
  p.start();
  CliResult r;
  if (!p.waitForFinished(300000)) {
    r.err = "growbench-cli did not finish: " + p.errorString().toUtf8();
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// English-like sentences from a fixed word list and a fixed LCG: the tokenizer's corpus and
// the texts to score.
std::string sentences(int count, uint32_t seed) {
  static const char* const kWords[] = {
      "the",   "model",  "learns", "new",    "facts",   "without", "forgetting", "old",
      "ones",  "a",      "small",  "layer",  "grows",   "wider",   "and",        "deeper",
      "while", "its",    "units",  "keep",   "what",    "they",    "know",       "about",
      "words", "cities", "people", "rivers", "quickly", "slowly",  "German",     "English"};
  const int n = static_cast<int>(sizeof(kWords) / sizeof(kWords[0]));
  std::string out;
  uint32_t x = seed;
  for (int s = 0; s < count; ++s) {
    x = x * 1664525u + 1013904223u;
    const int len = 4 + static_cast<int>((x >> 24) % 8);
    for (int w = 0; w < len; ++w) {
      x = x * 1664525u + 1013904223u;
      std::string word = kWords[(x >> 16) % n];
      if (w == 0) word[0] = static_cast<char>(std::toupper(word[0]));
      out += (w ? " " : "") + word;
    }
    out += (s % 5 == 4) ? ".\n" : ". ";
  }
  return out;
}

std::vector<int64_t> ids_of(const nlohmann::json& j) {
  std::vector<int64_t> v;
  for (const auto& x : j) v.push_back(x.get<int64_t>());
  return v;
}

// Made-up words from syllables: enough distinct pairs for the tokenizer to reach 512 ids.
std::string syllable_words(int count) {
  static const char* const kSyllables[] = {"ka", "lo", "mi", "ne", "su", "ta", "ri", "po",
                                           "be", "da", "ge", "hu", "jo", "ve", "wi", "zo",
                                           "st", "ch", "ng", "er", "an", "th", "ou", "ie"};
  std::string out;
  uint32_t x = 99;
  for (int w = 0; w < count; ++w) {
    x = x * 1664525u + 1013904223u;
    const int len = 1 + static_cast<int>((x >> 28) % 4);
    for (int k = 0; k < len; ++k) {
      x = x * 1664525u + 1013904223u;
      out += kSyllables[(x >> 16) % 24];
    }
    out += (w % 12 == 11) ? "\n" : " ";
  }
  return out;
}

// Id lists as text, so that a failed comparison shows both lists.
QString str(const std::vector<int64_t>& ids) {
  QStringList parts;
  for (int64_t id : ids) parts << QString::number(id);
  return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
}
QString str(const nlohmann::json& ids) {
  return str(ids_of(ids));
}

void copy_folder(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
  }
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();

  void helpDocumentsOptions();
  void greedyEqualsArgmaxOfFullForwardPasses_data();
  void greedyEqualsArgmaxOfFullForwardPasses();
  void greedyStopsAtConfigEos();
  void plainOutputIsTheJsonCompletion();
  void samplingIsDeterministicBySeed();
  void samplingDiffersAcrossSeeds();
  void tinyTopPKeepsOnlyTheMostProbableToken();
  void scoreEqualsForwardLossOnTheSameWindows_data();
  void scoreEqualsForwardLossOnTheSameWindows();
  void errorsAreClear_data();
  void errorsAreClear();

 private:
  // Greedy continuation by full forward passes without a cache (the reference), with the
  // CLI's stop rules: an id of `stops`, max_new tokens, or the model's context filled.
  std::vector<int64_t> reference_greedy(const std::string& prompt, int64_t max_new,
                                        const std::set<int64_t>& stops);
  nlohmann::json generate_json(const QStringList& extra, const std::string& model = {});
  std::string write_text(const std::string& name, const std::string& text);

  QTemporaryDir m_tmp;
  std::string m_model;   // the fixture with tokenizer.json, eos = <|endoftext|>
  std::string m_no_tok;  // the fixture without tokenizer.json
  gb::LoadedModel m_loaded;
  gb::tok::Tokenizer m_tok;
  int64_t m_eos = -1;
};

void TestCli::initTestCase() {
  torch::set_num_threads(1);
  gb::log::set_level(spdlog::level::warn);
  QVERIFY(m_tmp.isValid());
  const fs::path root = m_tmp.path().toStdString();
  const fs::path fixture = fs::path(GB_SHARED_DIR) / "fixtures/hf-reference/llama";
  m_no_tok = (root / "llama-no-tokenizer").string();
  copy_folder(fixture, m_no_tok);
  m_model = (root / "llama").string();
  copy_folder(fixture, m_model);
  const std::string tok_json = gb::tok::train_byte_level_bpe(
      {sentences(400, 1), syllable_words(4000)}, 512, {"<|endoftext|>"});
  gb::write_file_atomic((fs::path(m_model) / "tokenizer.json").string(), tok_json);
  m_tok = gb::tok::Tokenizer::from_file(m_model);
  QCOMPARE(m_tok.vocab_size(), int64_t{512});
  QVERIFY(m_tok.eos_id().has_value());
  m_eos = *m_tok.eos_id();
  // The fixture's eos_token_id (2) is a byte symbol of this tokenizer; make it the real EOS
  // so that greedy runs are long.
  const std::string cfg_path = (fs::path(m_model) / "config.json").string();
  auto cfg = gb::json::parse_file(cfg_path);
  cfg["eos_token_id"] = m_eos;
  gb::write_file_atomic(cfg_path, cfg.dump(2));
  m_loaded = gb::load_hf_model(m_model);
  QCOMPARE(m_loaded.config.vocab_size, int64_t{512});
}

std::vector<int64_t> TestCli::reference_greedy(const std::string& prompt, int64_t max_new,
                                               const std::set<int64_t>& stops) {
  torch::NoGradGuard no_grad;
  auto ids32 = m_tok.encode(prompt, true);
  std::vector<int64_t> seq(ids32.begin(), ids32.end());
  std::vector<int64_t> out;
  const int64_t context = m_loaded.config.max_positions;
  while (static_cast<int64_t>(out.size()) < max_new) {
    auto logits = m_loaded.model->forward(torch::tensor(seq, torch::kLong).unsqueeze(0));
    const int64_t id = logits[0][-1].argmax().item<int64_t>();
    out.push_back(id);
    seq.push_back(id);
    if (stops.count(id) || static_cast<int64_t>(seq.size()) >= context) break;
  }
  return out;
}

nlohmann::json TestCli::generate_json(const QStringList& extra, const std::string& model) {
  QStringList args = {QStringLiteral("generate"), q(model.empty() ? m_model : model),
                      QStringLiteral("--json")};
  args << extra;
  CliResult r = run_cli(args);
  if (r.code != 0) {
    qWarning("growbench-cli generate failed (%d): %s", r.code, r.err.constData());
    return nullptr;
  }
  return nlohmann::json::parse(r.out.toStdString());
}

std::string TestCli::write_text(const std::string& name, const std::string& text) {
  const std::string path = (fs::path(m_tmp.path().toStdString()) / name).string();
  gb::write_file_atomic(path, text);
  return path;
}

void TestCli::helpDocumentsOptions() {
  CliResult g = run_cli({QStringLiteral("generate"), QStringLiteral("--help")});
  QCOMPARE(g.code, 0);
  const char* const kGenerateOptions[] = {"--prompt STR", "--max-new N", "--temperature T",
                                          "--top-p P",    "--seed S",    "--json",
                                          "tokens_per_s"};
  for (const char* opt : kGenerateOptions) {
    QVERIFY2(g.out.contains(opt), opt);
  }
  CliResult s = run_cli({QStringLiteral("score"), QStringLiteral("--help")});
  QCOMPARE(s.code, 0);
  for (const char* opt : {"--file TEXT", "--seq-len N", "--json", "\"ppl\""}) {
    QVERIFY2(s.out.contains(opt), opt);
  }
  CliResult top = run_cli({QStringLiteral("--help")});
  QVERIFY(top.out.contains("generate MODEL --prompt STR [--max-new N]"));
  QVERIFY(top.out.contains("score MODEL --file TEXT"));
}

void TestCli::greedyEqualsArgmaxOfFullForwardPasses_data() {
  QTest::addColumn<QString>("prompt");
  QTest::addColumn<int>("maxNew");
  QTest::addColumn<QString>("stop");
  QTest::newRow("one word") << QStringLiteral("The") << 12 << QStringLiteral("max_new");
  QTest::newRow("sentence") << QStringLiteral("The model learns new facts without") << 40
                            << QStringLiteral("max_new");
  // The fixture has 128 positions: a prompt of 100 to 120 tokens stops when the sequence
  // fills them.
  std::string words = sentences(30, 7), prompt;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == ' ' && m_tok.encode(words.substr(0, i), true).size() >= 100) {
      prompt = words.substr(0, i);
      break;
    }
  }
  QVERIFY(m_tok.encode(prompt, true).size() <= 120);
  QTest::newRow("context full") << q(prompt) << 60 << QStringLiteral("context");
}

void TestCli::greedyEqualsArgmaxOfFullForwardPasses() {
  QFETCH(QString, prompt);
  QFETCH(int, maxNew);
  QFETCH(QString, stop);
  const auto expected = reference_greedy(prompt.toStdString(), maxNew, {m_eos});
  auto j = generate_json(
      {QStringLiteral("--prompt"), prompt, QStringLiteral("--max-new"), QString::number(maxNew)});
  QVERIFY(j.is_object());
  QCOMPARE(str(j["tokens"]), str(expected));
  QCOMPARE(q(j["stop"].get<std::string>()), stop);
  const auto n_prompt = static_cast<int64_t>(m_tok.encode(prompt.toStdString(), true).size());
  QCOMPARE(j["prompt_tokens"].get<int64_t>(), n_prompt);
  if (stop == QStringLiteral("context")) {
    QVERIFY(static_cast<int64_t>(expected.size()) < maxNew);
    QCOMPARE(n_prompt + static_cast<int64_t>(expected.size()), m_loaded.config.max_positions);
  }
  QCOMPARE(q(j["prompt"].get<std::string>()), prompt);
  std::vector<int32_t> all = m_tok.encode(prompt.toStdString(), true);
  for (int64_t id : expected) all.push_back(static_cast<int32_t>(id));
  const std::string full = m_tok.decode(all, true);
  QCOMPARE(q(j["completion"].get<std::string>()),
           q(full.substr(m_tok.decode(m_tok.encode(prompt.toStdString(), true), true).size())));
  QVERIFY(j["tokens_per_s"].get<double>() > 0);
}

void TestCli::greedyStopsAtConfigEos() {
  const std::string prompt = "Old people keep";
  const auto free_run = reference_greedy(prompt, 20, {m_eos});
  QCOMPARE(free_run.size(), size_t{20});
  // Make the first token that is new at index >= 3 the EOS of a copy of the model.
  size_t k = 3;
  while (k < free_run.size() &&
         std::find(free_run.begin(), free_run.begin() + k, free_run[k]) != free_run.begin() + k) {
    ++k;
  }
  QVERIFY(k < free_run.size());
  const fs::path copy = fs::path(m_tmp.path().toStdString()) / "llama-eos";
  copy_folder(m_model, copy);
  auto cfg = gb::json::parse_file((copy / "config.json").string());
  cfg["eos_token_id"] = nlohmann::json::array({free_run[k], 9999});  // a list, as Llama 3.1
  gb::write_file_atomic((copy / "config.json").string(), cfg.dump());
  auto j = generate_json(
      {QStringLiteral("--prompt"), q(prompt), QStringLiteral("--max-new"), QStringLiteral("20")},
      copy.string());
  QVERIFY(j.is_object());
  const std::vector<int64_t> expected(free_run.begin(), free_run.begin() + k + 1);
  QCOMPARE(str(j["tokens"]), str(expected));
  QCOMPARE(q(j["stop"].get<std::string>()), QStringLiteral("eos"));
  // The EOS is not part of the completion text.
  std::vector<int32_t> before(expected.begin(), expected.end() - 1);
  const auto p = m_tok.encode(prompt, true);
  std::vector<int32_t> all = p;
  all.insert(all.end(), before.begin(), before.end());
  QCOMPARE(q(j["completion"].get<std::string>()),
           q(m_tok.decode(all, true).substr(m_tok.decode(p, true).size())));
}

void TestCli::plainOutputIsTheJsonCompletion() {
  const QStringList opts = {QStringLiteral("--prompt"), QStringLiteral("Small layers"),
                            QStringLiteral("--max-new"), QStringLiteral("10")};
  auto j = generate_json(opts);
  QVERIFY(j.is_object());
  CliResult r = run_cli(QStringList{QStringLiteral("generate"), q(m_model)} + opts);
  QCOMPARE(r.code, 0);
  QCOMPARE(r.out, QByteArray::fromStdString(j["completion"].get<std::string>() + "\n"));
}

void TestCli::samplingIsDeterministicBySeed() {
  const QStringList opts = {QStringLiteral("--prompt"),      QStringLiteral("The river"),
                            QStringLiteral("--max-new"),     QStringLiteral("16"),
                            QStringLiteral("--temperature"), QStringLiteral("0.8"),
                            QStringLiteral("--top-p"),       QStringLiteral("0.9"),
                            QStringLiteral("--seed"),        QStringLiteral("5")};
  auto a = generate_json(opts);
  auto b = generate_json(opts);
  QVERIFY(a.is_object() && b.is_object());
  QCOMPARE(str(a["tokens"]), str(b["tokens"]));
  QCOMPARE(q(a["completion"].get<std::string>()), q(b["completion"].get<std::string>()));
  // Sampling, not greedy: it differs from the greedy run of the same prompt.
  QVERIFY(str(a["tokens"]) != str(reference_greedy("The river", 16, {m_eos})));
}

void TestCli::samplingDiffersAcrossSeeds() {
  std::set<std::vector<int64_t>> runs;
  for (int seed : {1, 2, 3}) {
    auto j = generate_json({QStringLiteral("--prompt"), QStringLiteral("The river"),
                            QStringLiteral("--max-new"), QStringLiteral("16"),
                            QStringLiteral("--temperature"), QStringLiteral("1"),
                            QStringLiteral("--seed"), QString::number(seed)});
    QVERIFY(j.is_object());
    QCOMPARE(j["tokens"].size(), size_t{16});
    runs.insert(ids_of(j["tokens"]));
  }
  QCOMPARE(runs.size(), size_t{3});
}

void TestCli::tinyTopPKeepsOnlyTheMostProbableToken() {
  // A nucleus smaller than the top token's probability holds the top token alone: the draw
  // equals greedy decoding whatever the seed and temperature.
  const auto greedy = reference_greedy("Cities and rivers", 16, {m_eos});
  for (int seed : {1, 2}) {
    auto j = generate_json({QStringLiteral("--prompt"), QStringLiteral("Cities and rivers"),
                            QStringLiteral("--max-new"), QStringLiteral("16"),
                            QStringLiteral("--temperature"), QStringLiteral("1.5"),
                            QStringLiteral("--top-p"), QStringLiteral("0.000001"),
                            QStringLiteral("--seed"), QString::number(seed)});
    QVERIFY(j.is_object());
    QCOMPARE(str(j["tokens"]), str(greedy));
  }
}

void TestCli::scoreEqualsForwardLossOnTheSameWindows_data() {
  QTest::addColumn<int>("sentenceCount");
  QTest::addColumn<int>("seqLen");  // 0: the model's max positions (128)
  QTest::addColumn<int>("batch");
  QTest::addColumn<int>("windows");  // expected count; -1: more than one
  QTest::newRow("one window") << 4 << 0 << 1 << 1;
  QTest::newRow("max positions, several windows") << 60 << 0 << 1 << -1;
  QTest::newRow("seq-len 16") << 8 << 16 << 1 << -1;
  QTest::newRow("seq-len 16, batch 3") << 8 << 16 << 3 << -1;
}

void TestCli::scoreEqualsForwardLossOnTheSameWindows() {
  QFETCH(int, sentenceCount);
  QFETCH(int, seqLen);
  QFETCH(int, batch);
  QFETCH(int, windows);
  const std::string text = sentences(sentenceCount, 11);
  const std::string file = write_text("score.txt", text);
  QStringList args = {QStringLiteral("score"),  q(m_model),
                      QStringLiteral("--file"), q(file),
                      QStringLiteral("--json"), QStringLiteral("--batch"),
                      QString::number(batch)};
  if (seqLen > 0) args << QStringLiteral("--seq-len") << QString::number(seqLen);
  CliResult r = run_cli(args);
  QVERIFY2(r.code == 0, r.err.constData());
  auto j = nlohmann::json::parse(r.out.toStdString());

  // The same windows through the forward command: each starts at the last token of the
  // previous one; the loss is the token-weighted mean of the per-window losses.
  const auto ids = m_tok.encode(text, true);
  const int64_t n = static_cast<int64_t>(ids.size());
  const int64_t len = seqLen > 0 ? seqLen : m_loaded.config.max_positions;
  nlohmann::json input = {{"input_ids", nlohmann::json::array()}};
  std::vector<int64_t> targets;
  for (int64_t s = 0; s + 1 < n; s += len - 1) {
    const int64_t e = std::min(n, s + len);
    input["input_ids"].push_back(std::vector<int32_t>(ids.begin() + s, ids.begin() + e));
    targets.push_back(e - s - 1);
  }
  if (windows > 0) {
    QCOMPARE(static_cast<int>(targets.size()), windows);
  } else {
    QVERIFY(targets.size() > 1);
  }
  const std::string in_path = write_text("score-ids.json", input.dump());
  const std::string out_path = (fs::path(m_tmp.path().toStdString()) / "score-out.json").string();
  CliResult f = run_cli({QStringLiteral("forward"), q(m_model), QStringLiteral("--input"),
                         q(in_path), QStringLiteral("--output"), q(out_path)});
  QVERIFY2(f.code == 0, f.err.constData());
  auto fwd = gb::json::parse_file(out_path);
  double sum = 0;
  int64_t count = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    sum += fwd["loss"][i].get<double>() * static_cast<double>(targets[i]);
    count += targets[i];
  }
  QCOMPARE(j["tokens"].get<int64_t>(), n);
  QCOMPARE(j["predicted"].get<int64_t>(), n - 1);
  QCOMPARE(count, n - 1);
  QCOMPARE(j["windows"].get<int64_t>(), static_cast<int64_t>(targets.size()));
  const double loss = j["loss"].get<double>(), expected = sum / static_cast<double>(count);
  QVERIFY2(std::abs(loss - expected) < 1e-5,
           qPrintable(QStringLiteral("score %1, forward %2").arg(loss).arg(expected)));
  QVERIFY(std::abs(j["ppl"].get<double>() - std::exp(loss)) < 1e-9 * std::exp(loss));
  // A random-weight model is close to uniform over its 512 ids.
  QVERIFY(loss > std::log(512.0) - 1.0 && loss < std::log(512.0) + 1.0);

  // The plain form prints the same figures.
  args.removeAll(QStringLiteral("--json"));
  CliResult plain = run_cli(args);
  QCOMPARE(plain.code, 0);
  QVERIFY2(plain.out.startsWith(QStringLiteral("loss %1").arg(loss, 0, 'f', 6).toUtf8()),
           plain.out.constData());
}

void TestCli::errorsAreClear_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<int>("code");
  QTest::addColumn<QString>("message");
  const QString model = q(m_model), no_tok = q(m_no_tok);
  const QString empty = q(write_text("empty.txt", ""));
  const QString one_token = q(write_text("one-token.txt", "a"));
  const QString missing = q((fs::path(m_tmp.path().toStdString()) / "missing.txt").string());
  const QString text = q(write_text("text.txt", sentences(3, 2)));
  const QString gen = QStringLiteral("generate"), score = QStringLiteral("score");
  const QString prompt = QStringLiteral("--prompt"), file = QStringLiteral("--file");
  QTest::newRow("generate: no tokenizer.json")
      << QStringList{gen, no_tok, prompt, QStringLiteral("Hi")} << 1
      << QStringLiteral("has no tokenizer.json");
  QTest::newRow("score: no tokenizer.json")
      << QStringList{score, no_tok, file, text} << 1 << QStringLiteral("has no tokenizer.json");
  QTest::newRow("score: empty file")
      << QStringList{score, model, file, empty} << 1 << QStringLiteral("the file is empty");
  QTest::newRow("score: missing file")
      << QStringList{score, model, file, missing} << 1 << QStringLiteral("no such file");
  QTest::newRow("score: one token")
      << QStringList{score, model, file, one_token} << 1 << QStringLiteral("at least two");
  QTest::newRow("score: no --file")
      << QStringList{score, model} << 2 << QStringLiteral("missing required option --file");
  QTest::newRow("score: seq-len beyond positions")
      << QStringList{score, model, file, text, QStringLiteral("--seq-len"), QStringLiteral("1000")}
      << 2 << QStringLiteral("exceeds the model's 128 positions");
  QTest::newRow("generate: no --prompt")
      << QStringList{gen, model} << 2 << QStringLiteral("missing required option --prompt");
  QTest::newRow("generate: negative temperature") << QStringList{gen,
                                                                 model,
                                                                 prompt,
                                                                 QStringLiteral("Hi"),
                                                                 QStringLiteral("--temperature"),
                                                                 QStringLiteral("-1")}
                                                  << 2 << QStringLiteral("--temperature must be");
  QTest::newRow("generate: top-p 0") << QStringList{gen,
                                                    model,
                                                    prompt,
                                                    QStringLiteral("Hi"),
                                                    QStringLiteral("--top-p"),
                                                    QStringLiteral("0")}
                                     << 2 << QStringLiteral("--top-p must be in (0, 1]");
  QTest::newRow("generate: max-new 0") << QStringList{gen,
                                                      model,
                                                      prompt,
                                                      QStringLiteral("Hi"),
                                                      QStringLiteral("--max-new"),
                                                      QStringLiteral("0")}
                                       << 2 << QStringLiteral("--max-new must be at least 1");
  QTest::newRow("generate: empty prompt") << QStringList{gen, model, prompt, QString()} << 1
                                          << QStringLiteral("the prompt encodes to no tokens");
  QTest::newRow("generate: prompt longer than the context")
      << QStringList{gen, model, prompt, q(sentences(40, 3))} << 1
      << QStringLiteral("but the model has 128 positions");
}

void TestCli::errorsAreClear() {
  QFETCH(QStringList, args);
  QFETCH(int, code);
  QFETCH(QString, message);
  CliResult r = run_cli(args);
  QVERIFY2(r.code == code, r.err.constData());
  QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
