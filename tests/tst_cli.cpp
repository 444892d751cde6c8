// growbench-cli text commands, run as the real program (QProcess) on the Llama reference
// fixture with a byte-level BPE tokenizer trained for it: generate (greedy against argmax of
// full forward passes without a cache, sampling by seed, top-p, EOS and context stops) and
// score (against the forward command's losses on the same windows), and their errors. The
// declared command line (CLI11): usage errors of every kind exit 2 naming the option, every
// command's --help lists its options, `variants --json` follows its contract, and
// `growbench --help` / `--version` work without a display.
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

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

CliResult run_program(const QString& program, const QStringList& args,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  QProcess p;
  p.setProgram(program);
  p.setArguments(args);
  p.setProcessEnvironment(env);
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

CliResult run_cli(const QStringList& args) {
  return run_program(QStringLiteral(GB_CLI_PATH), args);
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
  void usageErrorsExit2_data();
  void usageErrorsExit2();
  void everyCommandHasHelp();
  void variantsJsonFollowsTheContract();
  void variantsTableAndMarkdown();
  void guiHelpAndVersionWithoutDisplay();
  void logLevelOptionAndEnvironment_data();
  void logLevelOptionAndEnvironment();
  void versionBeforeAndAfterACommand();
  void runProgressForPeopleOnATerminal();
  void probeGrowEvalProgressOnATerminal();

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
  QTest::newRow("generate: negative temperature")
      << QStringList{gen,
                     model,
                     prompt,
                     QStringLiteral("Hi"),
                     QStringLiteral("--temperature"),
                     QStringLiteral("-1")}
      << 2 << QStringLiteral("--temperature: must be at least 0");
  QTest::newRow("generate: top-p 0") << QStringList{gen,
                                                    model,
                                                    prompt,
                                                    QStringLiteral("Hi"),
                                                    QStringLiteral("--top-p"),
                                                    QStringLiteral("0")}
                                     << 2 << QStringLiteral("--top-p: must be in (0, 1]");
  QTest::newRow("generate: max-new 0") << QStringList{gen,
                                                      model,
                                                      prompt,
                                                      QStringLiteral("Hi"),
                                                      QStringLiteral("--max-new"),
                                                      QStringLiteral("0")}
                                       << 2 << QStringLiteral("--max-new: must be at least 1");
  QTest::newRow("generate: empty prompt") << QStringList{gen, model, prompt, QString()} << 1
                                          << QStringLiteral("the prompt encodes to no tokens");
  QTest::newRow("generate: prompt longer than the context")
      << QStringList{gen, model, prompt, q(sentences(40, 3))} << 1
      << QStringLiteral("but the model has 128 positions");
  // No silent data loss: an output folder over the input model is refused, naming both.
  const QString plan = QStringLiteral(R"({"variant":"lora","rank":2})");
  QTest::newRow("grow: --out is the model")
      << QStringList{"grow", model, "--plan", plan, "--out", model} << 2
      << QStringLiteral("would overwrite the input model");
  QTest::newRow("grow: --out inside the model")
      << QStringList{"grow", model, "--plan", plan, "--out", model + "/sub"} << 2
      << QStringLiteral("lies inside the input model");
  QTest::newRow("export: --out containing the model, even with --force")
      << QStringList{"export", model, "--out", model + "/..", "--force"} << 2
      << QStringLiteral("a folder containing it");
  QTest::newRow("grow: --out with a trailing slash and dot")
      << QStringList{"grow", model, "--plan", plan, "--out", model + "/./"} << 2
      << QStringLiteral("would overwrite the input model");
  QTest::newRow("export: --out is the model") << QStringList{"export", model, "--out", model} << 2
                                              << QStringLiteral("would overwrite the input model");
  QTest::newRow("grow: duplicate LoRA targets")
      << QStringList{"grow",   model,
                     "--plan", QStringLiteral(R"({"variant":"lora","targets":["q","q"]})"),
                     "--out",  model + "-dup"}
      << 1 << QStringLiteral("'targets' names 'q' twice");
  QTest::newRow("run --resume: no store")
      << QStringList{"run", "--resume", "3", "--db", model + "/no-such.db"} << 1
      << QStringLiteral("there is no run store at");
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

// Usage errors found by the declared command line: exit status 2, nothing on stdout, and
// stderr names the option and shows the command's usage line. Nothing runs (the model
// paths need not exist).
void TestCli::usageErrorsExit2_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("option");
  const QString model = q(m_model);
  auto row = [](const char* name, const QStringList& args, const char* option) {
    QTest::newRow(name) << args << QString::fromLatin1(option);
  };
  row("run: unknown option", {"run", "spec.json", "--seqlen", "64"}, "unknown option --seqlen");
  row("run: unknown option before SPEC", {"run", "--seqlen", "64", "spec.json"}, "--seqlen");
  row("generate: --json=1", {"generate", model, "--prompt", "Hi", "--json=1"}, "--json");
  row("inspect: --json=true", {"inspect", model, "--json=true"}, "--json");
  row("quickstart: --bogus --spec X", {"quickstart", "--bogus", "--spec", "X"},
      "unknown option --bogus");
  row("grow: missing value at the end", {"grow", model, "--plan"}, "--plan needs a value");
  row("grow: missing MODEL", {"grow", "--plan", "{}", "--out", "x"}, "missing argument MODEL");
  row("generate: wrong type", {"generate", model, "--prompt", "Hi", "--max-new", "abc"},
      "--max-new: expects an integer, got 'abc'");
  row("generate: out of range", {"generate", model, "--prompt", "Hi", "--max-new", "-1"},
      "--max-new: must be at least 1, got -1");
  row("generate: number out of range", {"generate", model, "--prompt", "Hi", "--top-p", "1.5"},
      "--top-p: must be in (0, 1], got 1.5");
  row("score: --batch 0", {"score", model, "--file", "x.txt", "--batch", "0"}, "--batch");
  row("grow: bad choice", {"grow", model, "--plan", "{}", "--out", "x", "--format", "zip"},
      "--format: must be one of auto, hf, growbench, got 'zip'");
  row("probe: bad method", {"probe", model, "--data", "x", "--method", "bogus"}, "--method");
  row("probe: --lr 0", {"probe", model, "--data", "x", "--method", "masking", "--lr", "0"},
      "--lr: must be greater than 0");
  row("inspect: bad device", {"inspect", model, "--device", "gpu"}, "--device");
  row("inspect: bad dtype", {"inspect", model, "--dtype", "int8"}, "--dtype");
  row("run: --resume 0", {"run", "--resume", "0"}, "--resume");
  row("run: no SPEC", {"run", "--db", "x.db"}, "SPEC.json");
  row("run: --nproc-per-node 0", {"run", "x.json", "--nproc-per-node", "0"}, "--nproc-per-node");
  row("run: bad --dist-backend", {"run", "x.json", "--dist-backend", "mpi"}, "--dist-backend");
  row("run: --dist-timeout 0", {"run", "x.json", "--dist-timeout", "0"}, "--dist-timeout");
  row("run: --force-resume without --resume", {"run", "spec.json", "--force-resume"},
      "--force-resume");
  row("run: --jobs 0", {"run", "x.json", "--jobs", "0"}, "--jobs");
  row("run: --jobs with --resume", {"run", "--resume", "3", "--jobs", "2"}, "--jobs");
  row("run: --jobs with --nproc-per-node",
      {"run", "x.json", "--jobs", "2", "--nproc-per-node", "2"},
      "--jobs and --nproc-per-node do not mix");
  row("run: --pool-parent without --resume", {"run", "x.json", "--pool-parent", "12"},
      "--pool-parent applies to --resume only");
  row("run: bad --events", {"run", "x.json", "--events", "xml"}, "--events");
  row("run: --pilot without --dry-run", {"run", "x.json", "--pilot"},
      "--pilot applies to --dry-run only");
  row("tokenize: --text and --file", {"tokenize", "--tokenizer", "t", "--text", "a", "--file", "f"},
      "--text");
  row("forward: extra positional", {"forward", model, "extra", "--input", "i", "--output", "o"},
      "unexpected argument 'extra'");
  row("variants: unknown id", {"variants", "--markdown", "nope"}, "--markdown");
  row("grow: --plan and --peft", {"grow", model, "--plan", "{}", "--peft", "d", "--out", "x"},
      "give --plan or --peft, not both");
  row("grow: neither --plan nor --peft", {"grow", model, "--out", "x"}, "--plan");
  row("export: MODEL and --run", {"export", model, "--run", "1", "--out", "x"},
      "give MODEL or --run ID, not both");
  row("export: bad format", {"export", model, "--out", "x", "--format", "gguf"}, "--format");
  row("eval: no --tasks", {"eval", model}, "--tasks");
  row("eval: neither MODEL nor --run", {"eval", "--tasks", "t.jsonl"}, "MODEL");
  row("inspect: bad --log-level", {"inspect", model, "--log-level", "loud"}, "--log-level");
}

void TestCli::usageErrorsExit2() {
  QFETCH(QStringList, args);
  QFETCH(QString, option);
  CliResult r = run_cli(args);
  const QString err = QString::fromUtf8(r.err);
  QVERIFY2(r.code == 2, qPrintable(QStringLiteral("exit %1: %2").arg(r.code).arg(err)));
  QVERIFY2(err.startsWith(QStringLiteral("growbench-cli %1: ").arg(args[0])), qPrintable(err));
  QVERIFY2(err.contains(option), qPrintable(err));
  QVERIFY2(err.contains(QStringLiteral("\nUsage: growbench-cli %1").arg(args[0])), qPrintable(err));
  QVERIFY2(r.out.isEmpty(), r.out.constData());
}

// Every command's --help (and -h) exits 0 and lists every option it takes, and every option
// of its usage line; `growbench-cli --help` lists every command.
void TestCli::everyCommandHasHelp() {
  // The options callers (widgets/, tests, scripts) and users rely on, per command.
  const std::map<QString, QStringList> expected = {
      {"eval",
       {"--tasks", "--json", "--run", "--db", "--limit", "--device", "--dtype", "--log-level",
        "--version", "--no-check"}},
      {"export",
       {"--out", "--dtype", "--device", "--run", "--db", "--format", "--force", "--no-check"}},
      {"forward", {"--input", "--output", "--all-positions", "--device", "--dtype", "--no-check"}},
      {"generate",
       {"--prompt", "--max-new", "--temperature", "--top-p", "--seed", "--json", "--device",
        "--dtype"}},
      {"grow",
       {"--plan", "--peft", "--out", "--json", "--seed", "--format", "--device", "--dtype",
        "--force"}},
      {"inspect", {"--json", "--device", "--dtype"}},
      {"probe",
       {"--data",          "--domain-data", "--method",         "--json",        "--db",
        "--out",           "--tokens",      "--examples",       "--seq-len",     "--batch",
        "--seed",          "--format",      "--field",          "--tokenizer",   "--fisher-mode",
        "--steps",         "--lr",          "--snapshot-every", "--checkpoints", "--reference",
        "--checkpointing", "--progress",    "--device",         "--dtype"}},
      {"quickstart", {"--db", "--spec", "--cache", "--progress"}},
      {"run",
       {"--db", "--resume", "--force-resume", "--workspace", "--cache", "--tag", "--log", "--quiet",
        "--smoke", "--jobs", "--nproc-per-node", "--dist-backend", "--dist-timeout",
        "--dist-bucket-mb", "--events", "--dry-run", "--pilot", "--force-memory"}},
      {"score", {"--file", "--seq-len", "--batch", "--json", "--device", "--dtype"}},
      {"schema", {"--json", "--markdown"}},
      {"tokenize", {"--tokenizer", "--text", "--file", "--no-special"}},
      {"variants", {"--json", "--markdown"}},
  };
  CliResult top = run_cli({QStringLiteral("--help")});
  QCOMPARE(top.code, 0);
  const QString listing = QString::fromUtf8(top.out);
  const int from = listing.indexOf(QStringLiteral("Commands:\n"));
  QVERIFY(from >= 0);
  QStringList names;
  for (const QString& line : listing.mid(from + 10).split(QLatin1Char('\n'))) {
    if (!line.startsWith(QStringLiteral("  "))) break;
    // A usage line continued (compare's): indented further, no command name.
    if (line.startsWith(QStringLiteral("   "))) continue;
    names << line.trimmed().section(QLatin1Char(' '), 0, 0);
  }
  for (const auto& [name, options] : expected) QVERIFY2(names.contains(name), qPrintable(name));
  const QRegularExpression optionWord(QStringLiteral("--[a-z][a-z-]*"));
  for (const QString& name : names) {
    for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
      CliResult h = run_cli({name, flag});
      const QString help = QString::fromUtf8(h.out);
      QVERIFY2(h.code == 0, qPrintable(name + u' ' + flag + ": " + QString::fromUtf8(h.err)));
      QVERIFY2(help.startsWith(QStringLiteral("Usage: growbench-cli ") + name), qPrintable(help));
      QVERIFY2(help.contains(QStringLiteral("\n  -h, --help")), qPrintable(help));
      QStringList wanted = expected.count(name) ? expected.at(name) : QStringList();
      // Every option of the usage line is declared.
      const QString usage = help.section(QLatin1Char('\n'), 0, 0);
      for (auto it = optionWord.globalMatch(usage); it.hasNext();) wanted << it.next().captured();
      for (const QString& opt : wanted) {
        const QRegularExpression row(QStringLiteral("\n  ") + QRegularExpression::escape(opt) +
                                     QStringLiteral("[ \n]"));
        QVERIFY2(help.contains(row), qPrintable(name + ": " + opt + " not listed\n" + help));
      }
    }
  }
  // Declared facts are shown: defaults, ranges, choices.
  CliResult g = run_cli({QStringLiteral("generate"), QStringLiteral("--help")});
  QVERIFY2(g.out.contains("default: 32; at least 1"), g.out.constData());
  CliResult gr = run_cli({QStringLiteral("grow"), QStringLiteral("--help")});
  QVERIFY2(gr.out.contains("one of auto, hf, growbench"), gr.out.constData());
}

// `variants --json`: one JSON array; every element has id, name, paper, exportable_hf
// (bool) and params; every parameter has name, type, default and help, and min/max or
// choices where its type is int, number or choice.
void TestCli::variantsJsonFollowsTheContract() {
  CliResult r = run_cli({QStringLiteral("variants"), QStringLiteral("--json")});
  QVERIFY2(r.code == 0, r.err.constData());
  nlohmann::json a;
  try {
    a = nlohmann::json::parse(r.out.toStdString());
  } catch (const std::exception& e) {
    QFAIL(qPrintable(QStringLiteral("not JSON: %1\n%2").arg(e.what(), QString::fromUtf8(r.out))));
  }
  QVERIFY(a.is_array());
  std::set<std::string> ids;
  for (const auto& v : a) {
    const QString where = q(v.dump().substr(0, 200));
    QVERIFY2(v.is_object(), qPrintable(where));
    for (const char* key : {"id", "name", "paper"}) {
      QVERIFY2(v.contains(key) && v[key].is_string(), qPrintable(where + u' ' + key));
    }
    QVERIFY2(!v["id"].get<std::string>().empty(), qPrintable(where));
    QVERIFY2(v.contains("exportable_hf") && v["exportable_hf"].is_boolean(), qPrintable(where));
    QVERIFY2(v.contains("params") && v["params"].is_array(), qPrintable(where));
    QVERIFY2(ids.insert(v["id"].get<std::string>()).second, qPrintable(where));
    for (const auto& p : v["params"]) {
      const QString pw = q(v["id"].get<std::string>() + ": " + p.dump());
      QVERIFY2(p.is_object(), qPrintable(pw));
      for (const char* key : {"name", "type", "help"}) {
        QVERIFY2(p.contains(key) && p[key].is_string(), qPrintable(pw + u' ' + key));
      }
      QVERIFY2(p.contains("default"), qPrintable(pw));
      const std::string type = p["type"].get<std::string>();
      if (type == "int" || type == "number") {
        QVERIFY2(p.contains("min") || p.contains("max"), qPrintable(pw));
        for (const char* key : {"min", "max"}) {
          QVERIFY2(!p.contains(key) || p[key].is_number(), qPrintable(pw));
        }
      } else if (type == "choice") {
        QVERIFY2(p.contains("choices") && p["choices"].is_array() && !p["choices"].empty(),
                 qPrintable(pw));
        QVERIFY2(p["default"].is_null() || std::find(p["choices"].begin(), p["choices"].end(),
                                                     p["default"]) != p["choices"].end(),
                 qPrintable(pw));
      }
    }
  }
  for (const char* id : {"full", "freeze", "lora", "grow", "scale", "depth", "neutral-residues",
                         "adapters", "ewc", "loramoe", "mh-moe"}) {
    QVERIFY2(ids.count(id), id);
  }
}

void TestCli::variantsTableAndMarkdown() {
  CliResult r = run_cli({QStringLiteral("variants")});
  QVERIFY2(r.code == 0, r.err.constData());
  for (const char* id : {"full", "lora", "grow", "mh-moe"}) {
    QVERIFY2(
        r.out.contains(QByteArray("\n") + id + ": ") || r.out.startsWith(QByteArray(id) + ": "),
        id);
  }
  QVERIFY(r.out.contains("exportable: "));
  CliResult md =
      run_cli({QStringLiteral("variants"), QStringLiteral("--markdown"), QStringLiteral("lora")});
  QVERIFY2(md.code == 0, md.err.constData());
  QVERIFY2(md.out.startsWith("| key | type | default |"), md.out.constData());
  QVERIFY(md.out.contains("| `rank` |"));
}

// growbench --help and --version print and exit 0 with no display and no platform plugin
// chosen (no QApplication is created for them).
void TestCli::guiHelpAndVersionWithoutDisplay() {
#ifndef GB_GUI_PATH
  QSKIP("the GUI is not built");
#else
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
    env.remove(QString::fromLatin1(var));
  }
  const QString gui = QStringLiteral(GB_GUI_PATH);
  CliResult help = run_program(gui, {QStringLiteral("--help")}, env);
  QVERIFY2(help.code == 0, help.err.constData());
  for (const char* text :
       {"Usage:", "--workspace", "--model", "--tour", "--version", "--log-level"}) {
    QVERIFY2(help.out.contains(text), help.out.constData());
  }
  CliResult version = run_program(gui, {QStringLiteral("--version")}, env);
  QVERIFY2(version.code == 0, version.err.constData());
  QCOMPARE(version.out.trimmed(), QByteArray("growbench " GB_VERSION));
  // An unknown option is still an error (exit 1), also without a display.
  CliResult bad = run_program(gui, {QStringLiteral("--bogus"), QStringLiteral("--help")}, env);
  QCOMPARE(bad.code, 1);
  QVERIFY2(bad.err.contains("bogus"), bad.err.constData());
#endif
}

// The LoRA operator logs its shape at debug level: shown with --log-level debug or
// GROWBENCH_LOG=debug, and the option wins over the environment.
void TestCli::logLevelOptionAndEnvironment_data() {
  QTest::addColumn<QString>("env");
  QTest::addColumn<QStringList>("extra");
  QTest::addColumn<bool>("shown");
  QTest::newRow("default: info") << QString() << QStringList() << false;
  QTest::newRow("--log-level debug") << QString() << QStringList{"--log-level", "debug"} << true;
  QTest::newRow("GROWBENCH_LOG=debug") << "debug" << QStringList() << true;
  QTest::newRow("option wins over the environment")
      << "debug" << QStringList{"--log-level", "info"} << false;
}

void TestCli::logLevelOptionAndEnvironment() {
  QFETCH(QString, env);
  QFETCH(QStringList, extra);
  QFETCH(bool, shown);
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  e.remove(QStringLiteral("GROWBENCH_LOG"));
  if (!env.isEmpty()) e.insert(QStringLiteral("GROWBENCH_LOG"), env);
  static int n = 0;
  const QString out = m_tmp.path() + QStringLiteral("/log-level-") + QString::number(++n);
  QStringList args = {QStringLiteral("grow"),   q(m_model),
                      QStringLiteral("--plan"), QStringLiteral(R"({"variant":"lora","rank":2})"),
                      QStringLiteral("--out"),  out};
  args << extra;
  CliResult r = run_program(QStringLiteral(GB_CLI_PATH), args, e);
  QVERIFY2(r.code == 0, r.err.constData());
  QCOMPARE(r.err.contains("lora: r = 2"), shown);
  // An unknown level, from either source, is a usage error naming it.
  e.insert(QStringLiteral("GROWBENCH_LOG"), QStringLiteral("loud"));
  CliResult bad =
      run_program(QStringLiteral(GB_CLI_PATH), {QStringLiteral("inspect"), q(m_model)}, e);
  QCOMPARE(bad.code, 2);
  QVERIFY2(bad.err.contains("GROWBENCH_LOG: unknown log level 'loud'"), bad.err.constData());
}

void TestCli::versionBeforeAndAfterACommand() {
  CliResult top = run_cli({QStringLiteral("--version")});
  QCOMPARE(top.code, 0);
  QVERIFY(top.out.startsWith("growbench-cli " GB_VERSION " (LibTorch "));
  for (const char* cmd : {"inspect", "run", "eval", "export", "runs"}) {
    CliResult r = run_cli({QString::fromLatin1(cmd), QStringLiteral("--version")});
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(r.out, top.out);
  }
  // --log-level before the command reaches it.
  CliResult lv = run_cli({QStringLiteral("--log-level"), QStringLiteral("bogus"),
                          QStringLiteral("inspect"), q(m_model)});
  QCOMPARE(lv.code, 2);
  QVERIFY2(lv.err.contains("--log-level"), lv.err.constData());
}

namespace {

// Runs `program args` with its stdout and stderr on a pseudo-terminal (what a person sees);
// returns the exit code and everything written to the terminal.
std::pair<int, std::string> run_on_terminal(const std::string& program,
                                            const std::vector<std::string>& args) {
  int master = -1;
  struct winsize size {};
  size.ws_col = 120;
  size.ws_row = 40;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  if (pid < 0) return {-1, "forkpty failed"};
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed the terminal
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The event names and keys of JSON event lines (values vary: timings, paths).
std::vector<std::string> event_shapes(const QByteArray& out) {
  std::vector<std::string> shapes;
  for (const QByteArray& line : out.split('\n')) {
    if (line.isEmpty()) continue;
    const auto j = nlohmann::json::parse(line.toStdString());
    std::string shape = j.value("event", "?") + ":";
    for (auto it = j.begin(); it != j.end(); ++it) shape += " " + it.key();
    shapes.push_back(shape);
  }
  return shapes;
}

}  // namespace

// `run` on a terminal prints a progress line rewritten in place (\r) and a line per
// finished run instead of JSON; through a pipe it prints the JSON events as before, and
// --events json prints exactly those (the GUI passes it).
void TestCli::runProgressForPeopleOnATerminal() {
  const std::string text = sentences(300, 7);
  const std::string train = write_text("progress-train.txt", text);
  const std::string eval = write_text("progress-eval.txt", sentences(60, 8));
  const nlohmann::json spec = {
      {"version", 1},
      {"name", "progress"},
      {"threads", 1},
      {"model", m_model},
      {"data", {{"original", {{"eval", eval}}}, {"new", {{"train", train}, {"eval", eval}}}}},
      {"plans", nlohmann::json::array({{{"variant", "lora"}, {"rank", 2}}})},
      {"train", {{"steps", 4}, {"seq_len", 16}, {"batch_size", 2}}},
      {"eval", {{"interval", 2}, {"tokens", 64}, {"batch_size", 2}, {"drift", false}}}};
  const std::string spec_path = write_text("progress.json", spec.dump());
  const std::string root = m_tmp.path().toStdString();
  auto [code, tty] = run_on_terminal(
      GB_CLI_PATH, {"run", spec_path, "--db", root + "/progress-tty.db", "--log-level", "warn"});
  QVERIFY2(code == 0, tty.c_str());
  QVERIFY2(tty.find("{\"event\"") == std::string::npos, tty.c_str());
  for (const char* s : {"\r", "train 4/4", "tokens/s", "ETA", "memory", ": started",
                        ": finished in", "done: 1 run (1 finished)"}) {
    QVERIFY2(tty.find(s) != std::string::npos, (s + std::string(" not in:\n") + tty).c_str());
  }
  // Through a pipe (the default) and with --events json: the same JSON event lines.
  CliResult piped = run_cli(
      {QStringLiteral("run"), q(spec_path), QStringLiteral("--db"), q(root + "/progress-pipe.db")});
  QVERIFY2(piped.code == 0, piped.err.constData());
  CliResult json =
      run_cli({QStringLiteral("run"), q(spec_path), QStringLiteral("--db"),
               q(root + "/progress-json.db"), QStringLiteral("--events"), QStringLiteral("json")});
  QVERIFY2(json.code == 0, json.err.constData());
  const std::vector<std::string> a = event_shapes(piped.out), b = event_shapes(json.out);
  QVERIFY(a.size() > 5);
  QCOMPARE(b, a);
  QVERIFY2(piped.out.contains("\"event\":\"progress\""), piped.out.constData());
  QVERIFY(piped.out.endsWith("}\n"));
  // --events human through a pipe: lines of their own, no JSON.
  CliResult human = run_cli({QStringLiteral("run"), q(spec_path), QStringLiteral("--db"),
                             q(root + "/progress-human.db"), QStringLiteral("--events"),
                             QStringLiteral("human")});
  QVERIFY2(human.code == 0, human.err.constData());
  QVERIFY2(!human.out.contains("{\"event\""), human.out.constData());
  QVERIFY2(human.out.contains("done: 1 run (1 finished)"), human.out.constData());
}

// probe, grow and eval on a terminal show their stages and progress on one line rewritten in
// place; through a pipe their stderr has no progress at all (as before), and probe's
// --progress keeps its lines (the GUI reads them).
void TestCli::probeGrowEvalProgressOnATerminal() {
  const std::string root = m_tmp.path().toStdString();
  const std::string data = write_text("tty-probe.txt", sentences(80, 11));
  nlohmann::json item = {
      {"context", "The cat sat on the"}, {"choices", {" mat", " sky"}}, {"answer", 0}};
  const std::string task = write_text("tty-task.jsonl", item.dump() + "\n" + item.dump() + "\n");
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::vector<const char*> shown;  // on the terminal
    const char* result;              // the command's own output, after the line is cleared
  };
  const std::vector<Case> cases = {
      {"probe",
       {"probe", m_model, "--data", data, "--method", "masking", "--seq-len", "16", "--tokens",
        "256", "--log-level", "warn"},
       {"loading ", "reading the probe data", "probe/masking", "memory"},
       "method: masking"},
      {"grow",
       {"grow", m_model, "--plan", R"({"variant":"lora","rank":2})", "--out", root + "/tty-grown",
        "--log-level", "warn"},
       {"loading ", "applying ", "writing "},
       "max |logit diff|"},
      {"eval",
       {"eval", m_model, "--tasks", task, "--log-level", "warn"},
       {"loading ", "eval/tty-task", " %", "memory"},
       "|tty-task"}};
  for (const Case& c : cases) {
    auto [code, tty] = run_on_terminal(GB_CLI_PATH, c.args);
    QVERIFY2(code == 0, (std::string(c.name) + ":\n" + tty).c_str());
    QVERIFY2(tty.find('\r') != std::string::npos, tty.c_str());
    for (const char* s : c.shown) {
      QVERIFY2(tty.find(s) != std::string::npos,
               (std::string(c.name) + ": '" + s + "' not in:\n" + tty).c_str());
    }
    // The line is cleared (\r and erase to the end) before the result.
    const size_t result = tty.find(c.result);
    QVERIFY2(result != std::string::npos, tty.c_str());
    QVERIFY2(tty.rfind("\r\033[K", result) != std::string::npos, tty.c_str());
    // Through a pipe: no progress on stderr.
    QStringList args;
    for (const auto& a : c.args) args << q(a == root + "/tty-grown" ? a + "-pipe" : a);
    CliResult piped = run_cli(args);
    QVERIFY2(piped.code == 0, piped.err.constData());
    QVERIFY2(!piped.err.contains('\r') && !piped.err.contains("loading "), piped.err.constData());
    QVERIFY2(piped.out.contains(c.result), piped.out.constData());
  }
  // probe --progress: its lines on stderr, through a pipe too.
  CliResult lines =
      run_cli({QStringLiteral("probe"), q(m_model), QStringLiteral("--data"), q(data),
               QStringLiteral("--method"), QStringLiteral("masking"), QStringLiteral("--seq-len"),
               QStringLiteral("16"), QStringLiteral("--tokens"), QStringLiteral("256"),
               QStringLiteral("--progress")});
  QVERIFY2(lines.code == 0, lines.err.constData());
  QVERIFY2(lines.err.contains("[probe/masking]"), lines.err.constData());
  QVERIFY2(!lines.err.contains('\r'), lines.err.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
