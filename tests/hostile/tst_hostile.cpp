// Hostile inputs (issue 20): each row is one case that used to lose data or print a wrong
// number without saying so. A row builds its malformed input by hand (a model folder, a
// spec, a store, a signal, a full disk), drives the real growbench-cli (QProcess), and
// checks the exit status, the words the message must hold, and what must (not) have
// happened to the files and the store. Rows are named "<case>/<what>" after the numbered
// cases of the issue; cases 18-24 are about the test suite itself and are covered where
// they apply (tst_grow, tst_runner, tst_cuda, tst_model, tst_importance, tst_gui,
// scripts/test.sh, scripts/package-check.sh).
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <limits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <torch/torch.h>

#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "test_models.h"
#include "util/files.h"

namespace fs = std::filesystem;
using namespace Qt::StringLiterals;
using Json = nlohmann::json;
using gb::store::RunStatus;
using gb::store::Store;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string salad(const std::vector<std::string>& vocab, int words, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < words; ++i) {
    out += vocab[rng() % vocab.size()];
    out += (i % 9 == 8) ? ".\n" : " ";
  }
  return out;
}

const std::vector<std::string> kEnglish = {"the",   "house", "river", "small", "light",
                                           "under", "water", "green", "stone", "bread",
                                           "city",  "road",  "of",    "and",   "a"};
const std::vector<std::string> kGerman = {"das", "Haus", "der",    "Fluss", "klein",
                                          "und", "ist",  "Wasser", "Stein", "Brot",
                                          "Weg", "mit",  "nicht",  "auch",  "sehr"};

struct Outcome {
  int code = -1;
  std::string out, err;
  QString problem;  // what a row's own checks found wrong (empty: fine)
};

// Runs `program args` (or `bash -c script` with the arguments as $1...), waiting at most
// `timeout_ms`.
Outcome run_program(const QString& program, const QStringList& args, int timeout_ms = 240000) {
  QProcess p;
  p.setProgram(program);
  p.setArguments(args);
  p.start();
  Outcome o;
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished();
    o.problem = program + u" did not finish"_s;
    return o;
  }
  o.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 128 + SIGKILL;
  o.out = p.readAllStandardOutput().toStdString();
  o.err = p.readAllStandardError().toStdString();
  return o;
}

Outcome cli(const QStringList& args) {
  return run_program(QStringLiteral(GB_CLI_PATH), args);
}

// growbench-cli with a file-size limit of `kb` KB and SIGXFSZ ignored: every write beyond it
// fails with EFBIG, as on a full disk.
Outcome cli_on_full_disk(int kb, const QStringList& args) {
  QStringList a = {u"-c"_s, u"trap '' XFSZ; ulimit -f %1; exec \"$0\" \"$@\""_s.arg(kb),
                   QStringLiteral(GB_CLI_PATH)};
  return run_program(u"/bin/bash"_s, a + args);
}

// growbench-cli with its address space limited to `mb` MB: an allocation beyond it fails as
// on a machine without the memory (libtorch's own buffers need about 1.5 GB here).
Outcome cli_with_memory_limit(int mb, const QStringList& args) {
  QStringList a = {u"-c"_s, u"ulimit -v %1; exec \"$0\" \"$@\""_s.arg(mb * 1024),
                   QStringLiteral(GB_CLI_PATH)};
  return run_program(u"/bin/bash"_s, a + args);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Raw SQL on a store (hand-made states: a run interrupted after a checkpoint).
void sql(const std::string& db, const std::string& statement) {
  sqlite3* c = nullptr;
  if (sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(c);
    throw std::runtime_error("cannot open " + db);
  }
  sqlite3_busy_timeout(c, 5000);
  char* err = nullptr;
  const int rc = sqlite3_exec(c, statement.c_str(), nullptr, nullptr, &err);
  const std::string message = err ? err : "";
  sqlite3_free(err);
  sqlite3_close_v2(c);
  if (rc != SQLITE_OK) throw std::runtime_error("SQL failed: " + message + " in: " + statement);
}

void copy_folder(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    fs::copy(e.path(), to / e.path().filename(),
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
}

}  // namespace

class TestHostile : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void hostileInputs_data();
  void hostileInputs();

 private:
  using Procedure = std::function<Outcome(const std::string& dir)>;
  void add(const char* name, int code, const QStringList& words, Procedure p);

  // A fresh copy of the base model (llama fixture + tokenizer) in `dir`.
  std::string model_copy(const std::string& dir, const std::string& name = "model") const;
  // A small spec (one LoRA run, 4 steps of 32 tokens) on `model` with the shared corpora.
  Json spec(const std::string& model, const std::string& data_dir) const;
  // Data files of the spec, copied into `dir` (rows that change them get their own copy).
  void copy_data(const std::string& dir) const;
  std::string write_spec(const std::string& dir, const Json& j) const;
  // Runs the spec (steps 6, a checkpoint every 2) to the end, then makes the store say the
  // worker died after step 4: run interrupted, the final checkpoint forgotten. Returns the
  // run id; `db` is <dir>/s.db.
  // The data files go to `data_dir` (default: `dir`).
  // `tweak` changes the spec before it runs.
  int64_t interrupted_run(const std::string& dir, const std::string& model, Outcome& o,
                          std::string data_dir = {},
                          const std::function<void(Json&)>& tweak = {}) const;

  QTemporaryDir m_tmp;
  std::string m_dir, m_model, m_cache;
  std::map<QString, Procedure> m_cases;
  int m_rows = 0;
};

void TestHostile::initTestCase() {
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  m_dir = m_tmp.path().toStdString();
  m_cache = m_dir + "/cache";
  qputenv("GROWBENCH_CACHE_DIR", QByteArray::fromStdString(m_cache));
  qputenv("OMP_NUM_THREADS", "1");
  qputenv("GB_THREADS", "1");
  const std::string en = salad(kEnglish, 1200, 1), de = salad(kGerman, 1200, 2);
  fs::create_directories(m_dir + "/data");
  write_text(m_dir + "/data/orig_eval.txt", salad(kEnglish, 300, 3));
  write_text(m_dir + "/data/orig_train.txt", en);
  write_text(m_dir + "/data/new_train.txt", de);
  write_text(m_dir + "/data/new_eval.txt", salad(kGerman, 300, 4));
  m_model = m_dir + "/base";
  fs::create_directories(m_model);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(gb::test::fixture_dir("llama") + "/" + f, m_model + "/" + f);
  }
  write_text(m_model + "/tokenizer.json",
             gb::tok::train_byte_level_bpe({en, de}, 512, {"<|endoftext|>"}));
}

std::string TestHostile::model_copy(const std::string& dir, const std::string& name) const {
  const std::string m = dir + "/" + name;
  copy_folder(m_model, m);
  return m;
}

void TestHostile::copy_data(const std::string& dir) const {
  copy_folder(m_dir + "/data", dir + "/data");
}

Json TestHostile::spec(const std::string& model, const std::string& data_dir) const {
  return Json{{"version", 1},
              {"name", "hostile"},
              {"seed", 0},
              {"threads", 1},
              {"model", model},
              {"data",
               {{"original", {{"eval", data_dir + "/orig_eval.txt"}}},
                {"new", {{"train", data_dir + "/new_train.txt"}}}}},
              {"plans", Json::array({{{"variant", "lora"}, {"rank", 2}}})},
              {"train", {{"steps", 4}, {"seq_len", 32}, {"batch_size", 2}, {"lr", 1e-3}}},
              {"eval", {{"interval", 2}, {"tokens", 64}, {"batch_size", 2}, {"drift", false}}},
              {"probe", {{"tokens", 64}, {"seq_len", 32}, {"batch_size", 2}}}};
}

std::string TestHostile::write_spec(const std::string& dir, const Json& j) const {
  const std::string p = dir + "/spec.json";
  write_text(p, j.dump(2));
  return p;
}

int64_t TestHostile::interrupted_run(const std::string& dir, const std::string& model, Outcome& o,
                                     std::string data_dir,
                                     const std::function<void(Json&)>& tweak) const {
  if (data_dir.empty()) data_dir = dir;
  copy_data(data_dir);
  Json j = spec(model, data_dir + "/data");
  j["train"]["steps"] = 6;
  j["checkpoint"] = {{"interval", 2}};
  if (tweak) tweak(j);
  const std::string db = dir + "/s.db";
  o = cli({u"run"_s, qs(write_spec(dir, j)), u"--db"_s, qs(db), u"--quiet"_s});
  if (o.code != 0) return 0;
  sql(db,
      "UPDATE runs SET status = 'interrupted', finished = NULL; "
      "DELETE FROM checkpoints WHERE step = 6;");
  return 1;
}

void TestHostile::add(const char* name, int code, const QStringList& words, Procedure p) {
  m_cases[QString::fromLatin1(name)] = std::move(p);
  QTest::newRow(name) << QString::fromLatin1(name) << code << words;
  ++m_rows;
}

void TestHostile::hostileInputs_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<int>("code");           // expected exit status
  QTest::addColumn<QStringList>("words");  // the message (stdout + stderr) holds each
  const QString G = u"grow"_s, E = u"export"_s;
  const QString plan = uR"({"variant":"grow","mode":"freeze","k":2,"layers":"all"})"_s;

  // ---- 1: an output folder over the input model ----------------------------------------
  add("1/grow-out-is-the-input", 2, {u"would overwrite the input model"_s, u"--force"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        const std::string before = read_text(m + "/model.safetensors");
        Outcome o = cli({G, qs(m), u"--plan"_s, plan, u"--out"_s, qs(m)});
        if (!contains(o.err, fs::canonical(m).string())) o.problem = "the path is not named";
        if (read_text(m + "/model.safetensors") != before) o.problem = "the model changed";
        return o;
      });
  add("1/grow-out-is-a-symlink-to-the-input", 2, {u"would overwrite the input model"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        fs::create_directory_symlink(m, d + "/link");
        return cli({G, qs(m), u"--plan"_s, plan, u"--out"_s, qs(d + "/link")});
      });
  add("1/export-out-inside-the-input", 2, {u"lies inside the input model"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        return cli({E, qs(m), u"--out"_s, qs(m + "/sub")});
      });
  add("1/export-out-containing-the-input-even-forced", 2, {u"a folder containing it"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        return cli({E, qs(m), u"--out"_s, qs(d), u"--force"_s});
      });
  add("1/grow-force-replaces-the-folder-as-a-whole", 0, {u"wrote a plain"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        write_text(m + "/NOTES.md", "kept");
        Outcome o = cli({G, qs(m), u"--plan"_s, plan, u"--out"_s, qs(m), u"--force"_s});
        const Json cfg = Json::parse(read_text(m + "/config.json"));
        const Json base = Json::parse(read_text(m_model + "/config.json"));
        if (cfg["intermediate_size"] != 2 * base["intermediate_size"].get<int64_t>())
          o.problem = "the grown config is not in place";
        if (read_text(m + "/NOTES.md") != "kept") o.problem = "a file of the folder was lost";
        Outcome f = cli({u"inspect"_s, qs(m)});
        if (f.code != 0) o.problem = qs("the replaced folder does not load: " + f.err);
        return o;
      });

  // ---- 2: multi-file exports are staged ------------------------------------------------
  add("2/export-killed-by-a-full-disk-keeps-the-old-folder", 0, {u"left behind"_s, u".tmp-"_s},
      [=](const std::string& d) {
        const std::string out = d + "/out";
        Outcome first = cli({E, qs(m_model), u"--out"_s, qs(out)});
        if (first.code != 0) return first;
        const std::string cfg = read_text(out + "/config.json");
        const std::string weights = read_text(out + "/model.safetensors");
        // Another model (the GPT-2 fixture) exported over it, on a disk that fills up.
        Outcome full =
            cli_on_full_disk(16, {E, qs(gb::test::fixture_dir("gpt2")), u"--out"_s, qs(out)});
        QString problem;
        if (full.code == 0) problem = "the export on a full disk succeeded";
        if (read_text(out + "/config.json") != cfg ||
            read_text(out + "/model.safetensors") != weights) {
          problem = "the old folder was changed by the failed export";
        }
        // A leftover of a killed writer (a pid that does not exist) is removed, with a warning.
        fs::create_directories(out + ".tmp-999999999");
        Outcome o = cli({E, qs(m_model), u"--out"_s, qs(out)});
        if (!problem.isEmpty()) o.problem = problem;  // the full-disk checks above still count
        if (fs::exists(out + ".tmp-999999999")) o.problem = "the leftover is still there";
        for (const auto& e : fs::directory_iterator(d)) {
          if (contains(e.path().filename().string(), ".tmp-")) o.problem = "a leftover remains";
        }
        return o;
      });

  // ---- 3: two stores, one workspace -------------------------------------------------------
  add("3/two-stores-one-workspace-never-share-a-checkpoint", 0, {u"written by another run store"_s},
      [=](const std::string& d) {
        copy_data(d);
        Json j = spec(m_model, d + "/data");
        j["checkpoint"] = {{"interval", 2}};
        const std::string s = write_spec(d, j), ws = d + "/shared";
        for (const char* db : {"a.db", "b.db"}) {
          Outcome o = cli({u"run"_s, qs(s), u"--db"_s, qs(d + "/" + db), u"--workspace"_s, qs(ws),
                           u"--quiet"_s});
          if (o.code != 0) return o;
        }
        Store a = Store::open(d + "/a.db"), b = Store::open(d + "/b.db");
        const auto ca = a.checkpoints(1), cb = b.checkpoints(1);
        Outcome o;
        if (ca.empty() || cb.empty() || ca.front().path == cb.front().path) {
          o.problem = "the two stores wrote the same checkpoint folder";
          return o;
        }
        // Store a's run points at b's checkpoint (as before the fix), with no checksum to
        // catch it: the resume must notice the checkpoint is not its own.
        sql(d + "/a.db",
            "UPDATE runs SET status = 'interrupted'; DELETE FROM checkpoints "
            "WHERE step > 2; UPDATE checkpoints SET checksum = '', bytes = 0, "
            "path = '" +
                cb.front().path + "' WHERE step = 2;");
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/a.db"), u"--workspace"_s,
                    qs(ws), u"--quiet"_s});
      });

  // ---- 4: reserved and duplicate task names -----------------------------------------------
  for (const char* reserved : {"orig", "new", "drift", "op", "bwt"}) {
    const std::string name = std::string("4/task-named-") + reserved;
    add(name.c_str(), 1, {u"is reserved"_s, QString::fromLatin1(reserved)},
        [=](const std::string& d) {
          Json j = spec(m_model, m_dir + "/data");
          j["data"]["tasks"] = {
              {{"name", reserved}, {"kind", "lm"}, {"source", m_dir + "/data/orig_eval.txt"}}};
          return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
        });
  }
  add("4/two-tasks-with-one-name", 1, {u"two tasks are named 'a'"_s}, [=](const std::string& d) {
    Json j = spec(m_model, m_dir + "/data");
    const Json t = {{"name", "a"}, {"kind", "lm"}, {"source", m_dir + "/data/orig_eval.txt"}};
    j["data"]["tasks"] = {t, t};
    return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
  });

  // ---- 5: resume checks its inputs ----------------------------------------------------------
  add("5/resume-with-changed-training-data", 1,
      {u"inputs changed"_s, u"data.new.train"_s, u"--force-resume"_s}, [=](const std::string& d) {
        Outcome o;
        if (!interrupted_run(d, m_model, o)) return o;
        write_text(d + "/data/new_train.txt", salad(kGerman, 1200, 99));
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db")});
      });
  add("5/resume-with-changed-base-weights", 1, {u"base model weights"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        Outcome o;
        if (!interrupted_run(d, m, o)) return o;
        auto t = gb::st::read_all(m + "/model.safetensors");
        std::vector<std::pair<std::string, torch::Tensor>> list(t.begin(), t.end());
        list.front().second = list.front().second.clone() * 1.01;
        gb::st::write_tensors(m + "/model.safetensors", list, {{"format", "pt"}});
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db")});
      });
  add("5/force-resume-continues-with-a-warning", 0, {u"\"status\":\"finished\""_s},
      [=](const std::string& d) {
        Outcome o;
        if (!interrupted_run(d, m_model, o)) return o;
        write_text(d + "/data/new_train.txt", salad(kGerman, 1200, 98));
        o = cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db"), u"--force-resume"_s});
        Store s = Store::open(d + "/s.db");
        bool warned = false;
        for (const auto& e : s.events(1)) warned |= contains(e.message, "--force-resume");
        if (!warned) o.problem = "no warning event names the changed input";
        return o;
      });

  // A QA/biography run started before documents were reordered every epoch recorded no data
  // order with its inputs: resuming it would change its data order mid-run.
  add("5/resume-of-a-run-that-kept-one-document-order", 1,
      {u"inputs changed"_s, u"data order"_s, u"reordered each epoch"_s, u"--force-resume"_s},
      [=](const std::string& d) {
        Outcome o;
        const auto bio = [](Json& j) {
          j["data"]["new"]["train"] = {{"biography", {{"num_people", 40}}}, {"part", "pretrain"}};
        };
        if (!interrupted_run(d, m_model, o, {}, bio)) return o;
        sql(d + "/s.db", "UPDATE runs SET inputs = json_remove(inputs, '$.\"data order\"');");
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db")});
      });

  // ---- 6: a moved workspace ---------------------------------------------------------------
  add("6/relative-db-moved-workspace-resumes", 0, {u"\"status\":\"finished\""_s},
      [=](const std::string& d) {
        Outcome o;
        const std::string w = d + "/w";
        fs::create_directories(w);
        if (!interrupted_run(w, m_model, o, d)) return o;
        fs::rename(w, d + "/moved");  // the store and its checkpoints move together
        const QString before = QDir::currentPath();
        QDir::setCurrent(qs(d));
        o = cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, u"moved/s.db"_s});
        QDir::setCurrent(before);
        if (!contains(o.out, "\"resumed_from\":4")) o.problem = "not resumed from step 4";
        return o;
      });

  // ---- 7: a damaged latest checkpoint -------------------------------------------------------
  add("7/truncated-latest-checkpoint-falls-back", 0,
      {u"checkpoint of step 4"_s, u"truncated"_s, u"newest valid checkpoint, step 2"_s},
      [=](const std::string& d) {
        Outcome o;
        if (!interrupted_run(d, m_model, o)) return o;
        Store s = Store::open(d + "/s.db");
        const auto ck = s.latest_checkpoint(1);
        const std::string f = ck->path + "/optimizer.safetensors";
        fs::resize_file(f, fs::file_size(f) / 2);
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db")});
      });
  add("7/flipped-byte-in-latest-checkpoint-falls-back", 0, {u"damaged"_s},
      [=](const std::string& d) {
        Outcome o;
        if (!interrupted_run(d, m_model, o)) return o;
        Store s = Store::open(d + "/s.db");
        const std::string f = s.latest_checkpoint(1)->path + "/trainable.safetensors";
        std::string bytes = read_text(f);
        bytes[bytes.size() - 3] ^= 0x40;
        write_text(f, bytes);
        return cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/s.db")});
      });

  // ---- 8: runs queued when the disk filled ----------------------------------------------
  add("8/runs-of-a-full-disk-start-again", 0, {u"\"status\":\"finished\""_s},
      [=](const std::string& d) {
        copy_data(d);
        Json j = spec(m_model, d + "/data");
        // Full fine-tuning first: its checkpoint (weights and optimizer state, about 2 MB)
        // does not fit under the 1 MB limit; the store, the caches and LoRA's do.
        j["plans"] = Json::array({{{"variant", "full"}}, {{"variant", "lora"}, {"rank", 2}}});
        const std::string db = d + "/s.db";
        Outcome full = cli_on_full_disk(1024, {u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(db),
                                               u"--cache"_s, qs(d + "/cache"), u"--quiet"_s});
        Outcome o;
        if (full.code == 0) {
          o.problem = "the run on a full disk succeeded (the limit is too high)";
          return o;
        }
        Store s = Store::open(db);
        s.mark_interrupted_runs();
        const auto runs = s.list_runs();
        if (runs.empty()) {
          o.problem = qs("the full disk left no runs: " + full.err);
          return o;
        }
        for (const auto& r : runs) {
          if (r.status == RunStatus::Finished) continue;
          o = cli({u"run"_s, u"--resume"_s, QString::number(r.id), u"--db"_s, qs(db), u"--cache"_s,
                   qs(d + "/cache")});
          if (o.code != 0) return o;
        }
        for (const auto& r : s.list_runs()) {
          if (r.status != RunStatus::Finished) o.problem = "a run did not finish";
        }
        return o;
      });

  // ---- 9: --resume of a store that does not exist -------------------------------------------
  add("9/resume-with-a-missing-store", 1, {u"there is no run store"_s}, [=](const std::string& d) {
    Outcome o = cli({u"run"_s, u"--resume"_s, u"1"_s, u"--db"_s, qs(d + "/none.db")});
    if (fs::exists(d + "/none.db")) o.problem = "an empty store was created";
    return o;
  });

  // ---- 10: a worker killed hard ---------------------------------------------------------------
  add("10/sigkilled-worker-end-time-and-orphans", 0, {u"\"status\":\"finished\""_s},
      [=](const std::string& d) {
        copy_data(d);
        Json j = spec(m_model, d + "/data");
        j["train"]["steps"] = 100000;
        j["eval"]["interval"] = 100000;
        j["plans"].push_back({{"variant", "full"}});  // a queued sibling
        const std::string db = d + "/s.db";
        QProcess p;
        p.setProgram(QStringLiteral(GB_CLI_PATH));
        p.setArguments({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(db)});
        p.start();
        Outcome o;
        std::string out;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 120000 && !contains(out, "\"stage\":\"train\"")) {
          p.waitForReadyRead(200);
          out += p.readAllStandardOutput().toStdString();
        }
        QThread::msleep(1500);  // some training steps (metrics committed)
        const double killed_at =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished();
        QThread::msleep(3000);  // detected later than it happened
        Store s = Store::open(db);
        s.mark_interrupted_runs();
        const auto r1 = s.get_run(1), r2 = s.get_run(2);
        if (r1.status != RunStatus::Interrupted || !r1.finished || *r1.finished > killed_at + 0.5) {
          o.problem = "the killed run's end time is the moment of detection, not its last step";
        }
        if (r2.status != RunStatus::Interrupted || !contains(r2.error, "orphaned")) {
          o.problem = qs("the queued sibling is not marked orphaned: " + r2.error);
        }
        // Started from the beginning by --resume (it has no checkpoint), with 4 steps.
        sql(db, "UPDATE runs SET spec = json_set(spec, '$.train.steps', 4) WHERE id = 2");
        Outcome r = cli({u"run"_s, u"--resume"_s, u"2"_s, u"--db"_s, qs(db)});
        if (!o.problem.isEmpty()) r.problem = o.problem;
        return r;
      });
  add("10/second-signal-exits-at-once-store-consistent", 130, {u"second signal"_s},
      [=](const std::string& d) {
        copy_data(d);
        Json j = spec(m_model, d + "/data");
        j["train"]["steps"] = 100000;
        j["eval"]["interval"] = 100000;
        const std::string db = d + "/s.db";
        QProcess p;
        p.setProgram(QStringLiteral(GB_CLI_PATH));
        p.setArguments({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(db)});
        p.start();
        std::string out;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 120000 && !contains(out, "\"stage\":\"train\"")) {
          p.waitForReadyRead(200);
          out += p.readAllStandardOutput().toStdString();
        }
        // Two different signals back to back: both are delivered (two pending SIGTERMs would
        // merge into one), the second while the first's clean stop is under way.
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        Outcome o;
        if (!p.waitForFinished(5000)) o.problem = "the second signal did not end the worker";
        p.waitForFinished();
        o.code = p.exitCode();
        o.err = p.readAllStandardError().toStdString();
        Store s = Store::open(db, gb::store::OpenMode::ReadWrite,
                              {5000, gb::store::IntegrityCheck::Full});
        if (s.integrity_check() != std::vector<std::string>{"ok"}) o.problem = "store damaged";
        return o;
      });

  // ---- 11: non-finite weights and logits ------------------------------------------------------
  auto nan_model = [=](const std::string& d) {
    const std::string m = model_copy(d);
    auto t = gb::st::read_all(m + "/model.safetensors");
    torch::Tensor w = t.at("model.layers.0.mlp.up_proj.weight").clone();
    w[0][0] = std::numeric_limits<float>::quiet_NaN();
    t["model.layers.0.mlp.up_proj.weight"] = w;
    std::vector<std::pair<std::string, torch::Tensor>> list(t.begin(), t.end());
    gb::st::write_tensors(m + "/model.safetensors", list, {{"format", "pt"}});
    write_text(d + "/ids.json", R"({"input_ids": [[1, 2, 3, 4]]})");
    return m;
  };
  add("11/nan-weight-refused-on-load", 1, {u"model.layers.0.mlp.up_proj.weight"_s, u"non-finite"_s},
      [=](const std::string& d) {
        const std::string m = nan_model(d);
        return cli({u"forward"_s, qs(m), u"--input"_s, qs(d + "/ids.json"), u"--output"_s,
                    qs(d + "/out.json")});
      });
  add("11/no-check-still-refuses-nan-logits", 1,
      {u"forward of input_ids[0]"_s, u"logits"_s, u"non-finite"_s}, [=](const std::string& d) {
        const std::string m = nan_model(d);
        Outcome o = cli({u"forward"_s, qs(m), u"--no-check"_s, u"--input"_s, qs(d + "/ids.json"),
                         u"--output"_s, qs(d + "/out.json")});
        if (fs::exists(d + "/out.json")) o.problem = "null logits were written";
        return o;
      });
  add("11/generate-with-nan-logits-names-the-step", 1, {u"generation step 0"_s},
      [=](const std::string& d) {
        const std::string m = nan_model(d);
        return cli({u"generate"_s, qs(m), u"--no-check"_s, u"--prompt"_s, u"the house"_s});
      });

  add("11/eval-with-nan-logits-reports-no-accuracy", 1, {u"item 1"_s, u"not finite"_s},
      [=](const std::string& d) {
        const std::string m = nan_model(d);
        write_text(d + "/task.jsonl",
                   R"({"context": "the house", "choices": [" is red", " is blue"], "answer": 0})"
                   "\n");
        Outcome o = cli({u"eval"_s, qs(m), u"--no-check"_s, u"--tasks"_s, qs(d + "/task.jsonl"),
                         u"--json"_s, qs(d + "/out.json")});
        if (fs::exists(d + "/out.json")) o.problem = "an accuracy was written";
        return o;
      });
  add("11/probe-with-nan-logits-reports-no-importance", 1, {u"NaN or Inf"_s, u"probe set"_s},
      [=](const std::string& d) {
        const std::string m = nan_model(d);
        return cli({u"probe"_s, qs(m), u"--no-check"_s, u"--method"_s, u"masking"_s, u"--data"_s,
                    qs(m_dir + "/data/orig_eval.txt"), u"--seq-len"_s, u"32"_s});
      });

  // ---- 12: divergence -------------------------------------------------------------------------
  add("12/learning-rate-10-diverges", 3, {u"\"status\":\"diverged\""_s}, [=](const std::string& d) {
    Json j = spec(m_model, m_dir + "/data");
    j["plans"] = Json::array({{{"variant", "full"}}});
    j["train"]["lr"] = 10.0;
    j["train"]["steps"] = 12;
    j["train"]["warmup"] = 0;
    j["train"]["schedule"] = "constant";
    return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
  });

  // ---- 13: sequences beyond the model's positions ----------------------------------------------
  const int64_t positions = gb::json::parse_file(gb::test::fixture_dir("llama") + "/config.json")
                                .value("max_position_embeddings", int64_t(0));
  add("13/probe-seq-len-beyond-positions", 1, {u"exceed the model's"_s}, [=](const std::string& d) {
    return cli({u"probe"_s, qs(m_model), u"--method"_s, u"masking"_s, u"--data"_s,
                qs(m_dir + "/data/orig_eval.txt"), u"--seq-len"_s, QString::number(positions + 1)});
  });
  add("13/forward-beyond-positions", 1, {u"input_ids[0]"_s, u"exceed the model's"_s},
      [=](const std::string& d) {
        Json ids = Json::array();
        for (int64_t i = 0; i < positions + 1; ++i) ids.push_back(3 + i % 100);
        write_text(d + "/ids.json", Json{{"input_ids", {ids}}}.dump());
        return cli({u"forward"_s, qs(m_model), u"--input"_s, qs(d + "/ids.json"), u"--output"_s,
                    qs(d + "/out.json")});
      });
  add("13/run-seq-len-beyond-positions", 1, {u"exceeds the model's"_s}, [=](const std::string& d) {
    Json j = spec(m_model, m_dir + "/data");
    j["train"]["seq_len"] = positions + 1;
    return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
  });

  add("13/run-probe-seq-len-beyond-positions", 1, {u"probe.seq_len"_s, u"exceeds the model's"_s},
      [=](const std::string& d) {
        Json j = spec(m_model, m_dir + "/data");
        j["probe"] = {{"method", "masking"}, {"seq_len", positions + 1}};
        return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
      });

  // ---- 14: a tied model with a stored head that differs ---------------------------------------
  add("14/tied-embeddings-with-a-different-stored-head-warns", 0,
      {u"tie_word_embeddings"_s, u"differs from the embedding"_s}, [=](const std::string& d) {
        const std::string m = model_copy(d);
        Json cfg = Json::parse(read_text(m + "/config.json"));
        cfg["tie_word_embeddings"] = true;
        write_text(m + "/config.json", cfg.dump(2));
        return cli({u"inspect"_s, qs(m)});
      });

  // ---- 15: duplicate LoRA targets ---------------------------------------------------------------
  add("15/duplicate-lora-targets", 1, {u"'targets' names 'q' twice"_s}, [=](const std::string& d) {
    return cli({G, qs(m_model), u"--plan"_s,
                uR"({"variant":"lora","rank":2,"targets":["q","q"]})"_s, u"--out"_s,
                qs(d + "/out")});
  });

  // ---- 16: threads ---------------------------------------------------------------------------
  add("16/threads-zero-refused", 1, {u"threads"_s}, [=](const std::string& d) {
    Json j = spec(m_model, m_dir + "/data");
    j["threads"] = 0;
    return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db")});
  });
  add("16/threads-100000-clamped-with-a-warning", 0, {u"cores of this machine"_s},
      [=](const std::string& d) {
        Json j = spec(m_model, m_dir + "/data");
        j["threads"] = 100000;
        j["train"]["steps"] = 1;
        return cli({u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db"), u"--quiet"_s});
      });

  // ---- 17: allocation failures ------------------------------------------------------------------
  add("17/oversized-config-out-of-memory-names-the-buffer", 1,
      {u"out of memory while allocating the weights config.json describes"_s, u"requested"_s,
       u"reduce"_s},
      [=](const std::string& d) {
        const std::string m = model_copy(d);
        Json cfg = Json::parse(read_text(m + "/config.json"));
        cfg["vocab_size"] = 4000000000LL;  // a 4e9 x d embedding: more than any machine here
        write_text(m + "/config.json", cfg.dump(2));
        return cli({u"inspect"_s, qs(m)});
      });
  // A large corpus (about 400 000 words) in one batch: its logits alone need more than the
  // limit, and the message names the batch and the keys that shrink it.
  auto large_corpus = [](const std::string& d) {
    const std::string f = d + "/large.txt";
    write_text(f, salad(kEnglish, 400000, 7));
    return f;
  };
  // An evaluation batch of 62 500 rows x 32 tokens (4 GB of float32 logits) under a 2 000 MB
  // address-space limit. It used to run out of memory (the case checked that the message
  // named the batch and eval.batch_size); now a batch is scored a few rows at a time, never
  // more than 256 MiB of logits at once (eval::lm_eval_rows), and the run finishes.
  add("17/evaluation-of-a-huge-batch-runs-in-row-chunks", 0,
      {u"\"status\":\"finished\""_s, u"\"exit_code\":0"_s}, [=](const std::string& d) {
        Json j = spec(m_model, m_dir + "/data");
        j["data"]["original"]["eval"] = large_corpus(d);
        j["train"]["steps"] = 1;
        j["eval"] = {
            {"interval", 1}, {"tokens", 2000000}, {"batch_size", 100000}, {"drift", false}};
        return cli_with_memory_limit(
            2000, {u"run"_s, qs(write_spec(d, j)), u"--db"_s, qs(d + "/s.db"), u"--quiet"_s});
      });
  add("17/probe-out-of-memory-names-the-probe", 1,
      {u"out of memory while allocating a taylor probe"_s, u"requested"_s, u"--batch"_s},
      [=](const std::string& d) {
        return cli_with_memory_limit(
            2000, {u"probe"_s, qs(m_model), u"--data"_s, qs(large_corpus(d)), u"--method"_s,
                   u"taylor"_s, u"--seq-len"_s, u"32"_s, u"--batch"_s, u"100000"_s});
      });
}

void TestHostile::hostileInputs() {
  QFETCH(QString, name);
  QFETCH(int, code);
  QFETCH(QStringList, words);
  std::string leaf = name.toStdString();
  std::replace(leaf.begin(), leaf.end(), '/', '_');
  const std::string dir = m_dir + "/case-" + leaf;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Outcome o = m_cases.at(name)(dir);
  const std::string all = o.out + "\n" + o.err;
  QVERIFY2(o.problem.isEmpty(), qPrintable(o.problem + u"\n"_s + qs(all)));
  QVERIFY2(o.code == code, qPrintable(u"exit status %1, expected %2\n"_s.arg(o.code).arg(code) +
                                      qs(all.substr(0, 4000))));
  for (const QString& w : words) {
    QVERIFY2(contains(all, w.toStdString()),
             qPrintable(u"the output lacks \"%1\":\n"_s.arg(w) + qs(all.substr(0, 4000))));
  }
}

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
