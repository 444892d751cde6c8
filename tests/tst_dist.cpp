// Data-parallel runs on LibTorch's c10d (core/dist), through the real growbench-cli: the world
// read from torchrun's and srun's environment variables, row sharding and gradient buckets,
// two processes equal to one in every recorded metric and in the final trainable weights
// (full fine-tuning, LoRA, Grow, neutral residues, EWC), a rank killed or hung mid-run ending
// the run failed with the rank named and resuming with one and with two processes to the
// uninterrupted result, torchrun and plain environment-variable launches, and the errors for
// mismatched specs, a port in use and an unreachable master. Without Gloo in the build the
// process tests skip, and --nproc-per-node says that distributed runs are unavailable.
// Also the other multi-process mode, `run --jobs N` (a spec's runs side by side in worker
// processes, no Gloo needed): equal to one run after another, and no run left running or
// queued when it is cancelled, a worker is killed or the pool itself is killed.
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "dist/grad_sync.h"
#include "dist/group.h"
#include "dist/shard.h"
#include "dist/world.h"
#include "experiment/runner.h"
#include "model/tensor_io.h"
#include "model/tokenizer.h"
#include "store/store.h"
#include "test_models.h"
#include "test_util.h"
#include "util/json.h"

namespace fs = std::filesystem;
using Json = nlohmann::json;
using gb::store::ImportanceMatrix;
using gb::store::RunStatus;
using gb::store::Store;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string salad(const std::vector<std::string>& vocab, int words, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < words; ++i) {
    out += vocab[rng() % vocab.size()];
    out += (i % 9 == 8) ? ".\n" : " ";
  }
  return out + ".\n";
}

const std::vector<std::string> kEnglish = {"the",   "house", "river", "small",  "light",
                                           "under", "water", "green", "before", "market",
                                           "of",    "and",   "a",     "is",     "was"};
const std::vector<std::string> kGerman = {"das",    "Haus",  "der",  "Fluss", "klein",
                                          "Wasser", "und",   "ist",  "Markt", "Fenster",
                                          "mit",    "Stein", "Brot", "Abend", "offen"};

struct Result {
  int code = -1;
  std::string out, err;
};

Result finish(QProcess& p, int ms = 600000) {
  Result r;
  if (!p.waitForFinished(ms)) {
    p.kill();
    p.waitForFinished(5000);
    r.err = "TIMED OUT\n";
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out += p.readAllStandardOutput().toStdString();
  r.err += p.readAllStandardError().toStdString();
  return r;
}

// The environment of a worker started by hand, without any launcher's variables.
QProcessEnvironment clean_env() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* k : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                        "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_USE_AGENT_STORE",
                        "GROWBENCH_DIST_LAUNCHED", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}) {
    env.remove(k);
  }
  return env;
}

Result run_cli(const QStringList& args, const QProcessEnvironment& env = clean_env(),
               const QString& program = QStringLiteral(GB_CLI_PATH)) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(program, args);
  if (!p.waitForStarted()) return {-2, "", "could not start " + program.toStdString()};
  return finish(p);
}

// The environment of rank `rank` of a two-process world started by hand: environment
// variables only, rank 0 hosting the rendezvous store on 127.0.0.1:`port`.
QProcessEnvironment rank_env(int rank, int port) {
  QProcessEnvironment env = clean_env();
  env.insert("RANK", QString::number(rank));
  env.insert("WORLD_SIZE", "2");
  env.insert("MASTER_ADDR", "127.0.0.1");
  env.insert("MASTER_PORT", QString::number(port));
  return env;
}

// growbench-cli `args` started as that rank; null when it did not start.
std::unique_ptr<QProcess> start_rank(int rank, int port, const QStringList& args) {
  auto p = std::make_unique<QProcess>();
  p->setProcessEnvironment(rank_env(rank, port));
  p->start(QStringLiteral(GB_CLI_PATH), args);
  if (!p->waitForStarted()) return nullptr;
  return p;
}

// A free TCP port on 127.0.0.1 (bound and released), or a held socket on one.
int bound_socket(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ::listen(fd, 1);
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}
int free_port() {
  int port = 0;
  ::close(bound_socket(&port));
  return port;
}

// Every non-perf metric of a run: (key, step) → value.
std::map<std::pair<std::string, int64_t>, double> learning_metrics(Store& store, int64_t run) {
  std::map<std::pair<std::string, int64_t>, double> out;
  for (const auto& r : store.metric_rows(run)) {
    if (r.key.rfind("perf/", 0) == 0) continue;
    out[{r.key, r.step}] = r.value;
  }
  return out;
}

// Empty when equal to 1e-5 relative to each value's scale; else the first differences.
std::string compare_metrics(const std::map<std::pair<std::string, int64_t>, double>& a,
                            const std::map<std::pair<std::string, int64_t>, double>& b) {
  std::string d;
  if (a.size() != b.size())
    d += "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + "; ";
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) {
      d += k.first + "@" + std::to_string(k.second) + " missing; ";
      continue;
    }
    const double tol = 1e-5 * std::max({std::fabs(v), std::fabs(it->second), 1e-6});
    if (!(std::fabs(v - it->second) <= tol)) {
      d += fmt::format("{}@{}: {} vs {}; ", k.first, k.second, v, it->second);
    }
    if (d.size() > 600) break;
  }
  return d;
}

int64_t newest_run(Store& store) {
  int64_t id = 0;
  for (const auto& r : store.list_runs()) id = std::max(id, r.id);
  return id;
}

// The final trainable tensors of a run (its latest checkpoint).
std::map<std::string, torch::Tensor> final_weights(Store& store, int64_t run) {
  auto ck = store.latest_checkpoint(run);
  if (!ck) return {};
  return gb::st::read_all((fs::path(ck->path) / "trainable.safetensors").string());
}

// Empty when every tensor matches to 1e-4 of its own norm: ||a - b|| <= 1e-4 ||a|| (the
// sums of the two paths run in different orders; AdamW turns rounding noise in gradients
// near zero into update differences of up to lr * noise / eps in single elements, so an
// element-wise bound would test eps, not the distribution). For a tensor that starts at zero
// (an adapter's down projection) the norm is the run's whole update: on one 2-core machine
// neutral residues with replay per row ended 2.1e-5 apart (7.4e-7 at 0.035) while another
// CPU's GEMM blocking had kept them within 1e-5, so 1e-5 was a bound on the CPU, not on the
// distribution (a rank's rows dropped or counted twice changes the gradients by a share of
// the batch, far above rounding).
std::string compare_weights(const std::map<std::string, torch::Tensor>& a,
                            const std::map<std::string, torch::Tensor>& b) {
  if (a.empty()) return "no weights";
  if (a.size() != b.size()) return "different tensor sets";
  for (const auto& [name, t] : a) {
    auto it = b.find(name);
    if (it == b.end()) return name + " missing";
    if (t.sizes() != it->second.sizes()) return name + " shape";
    const auto x = t.to(torch::kDouble), y = it->second.to(torch::kDouble);
    const double norm = std::max(x.norm().item<double>(), 1e-12);
    const double diff = (x - y).norm().item<double>();
    if (!(diff <= 1e-4 * norm)) {
      return fmt::format("{}: |a - b| = {} at |a| = {} (max element difference {})", name, diff,
                         norm, (x - y).abs().max().item<double>());
    }
  }
  return {};
}

// Empty when the probes were the same methods in the same order with every value within
// 1e-5 of the probe's largest magnitude (sharded sums run in a different order).
std::string compare_probes(const std::vector<std::pair<std::string, ImportanceMatrix>>& a,
                           const std::vector<std::pair<std::string, ImportanceMatrix>>& b) {
  if (a.size() != b.size()) return fmt::format("{} probes vs {}", a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first) return "probe " + std::to_string(i) + ": method differs";
    // Layer values (sums over a layer) and unit values (means over a unit's parameters) are
    // of different scales: each is compared to 1e-5 of its own largest magnitude.
    auto flat = [](const ImportanceMatrix& m) {
      std::vector<double> v;
      for (const auto& row : m.unit_values) v.insert(v.end(), row.begin(), row.end());
      return v;
    };
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> parts = {
        {a[i].second.layer_values, b[i].second.layer_values},
        {flat(a[i].second), flat(b[i].second)}};
    for (size_t part = 0; part < parts.size(); ++part) {
      const auto& [x, y] = parts[part];
      if (x.size() != y.size()) return "probe " + std::to_string(i) + ": shape differs";
      double scale = 1e-12;
      for (double v : x) {
        if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
      }
      for (size_t j = 0; j < x.size(); ++j) {
        if (std::isnan(x[j]) && std::isnan(y[j])) continue;
        if (!(std::fabs(x[j] - y[j]) <= 1e-5 * scale)) {
          return fmt::format("probe {} ({}), {} value {}: {} vs {} (scale {})", i, a[i].first,
                             part == 0 ? "layer" : "unit", j, x[j], y[j], scale);
        }
      }
    }
  }
  return {};
}

}  // namespace

class TestDist : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void worldFromEnvironment_data();
  void worldFromEnvironment();
  void slurmFirstHost_data();
  void slurmFirstHost();
  void slurmTasksPerNode_data();
  void slurmTasksPerNode();
  void cudaDeviceOfALocalRank_data();
  void cudaDeviceOfALocalRank();
  void cudaDeviceOfTheRunsDevice();
  void resumeReadsTheRunsDeviceFromTheStore();
  void rowShardsCoverTheBatchDisjointly_data();
  void rowShardsCoverTheBatchDisjointly();
  void bucketsAreConsecutiveAndBounded();
  void withoutGlooNprocSaysUnavailable();
  void twoProcessesEqualOneProcess_data();
  void twoProcessesEqualOneProcess();
  void killedRankFailsTheRunNamingItAndResumes_data();
  void killedRankFailsTheRunNamingItAndResumes();
  void hungRankFailsTheRunWithinTheTimeout();
  void rankZeroHungWhilePreparingEndsTheWaitOfTheOthers();
  void rankZeroKilledUnderAnExternalLauncherLeavesNoRunRunning();
  void externalLaunchEqualsOneProcess_data();
  void externalLaunchEqualsOneProcess();
  void mismatchedSpecsAreRefusedNamingTheRanks();
  void portInUseAndUnreachableMasterGiveClearErrors();
  void jobsRunSideBySideEqualToOneAfterAnother();
  void jobsStoppedLeaveNoRunRunningOrQueued_data();
  void jobsStoppedLeaveNoRunRunningOrQueued();

 private:
  Json spec(const Json& plan) const;
  std::string write_spec(const std::string& name, const Json& s) const;
  // A single-process reference run of `s` (cached by name): metrics and final weights.
  struct Reference {
    std::map<std::pair<std::string, int64_t>, double> metrics;
    std::map<std::string, torch::Tensor> weights;
    std::vector<std::pair<std::string, ImportanceMatrix>> probes;  // method, values; oldest first
  };
  const Reference& reference(const std::string& name, const Json& s);
  Reference collect(const std::string& db, int64_t run = 0) const;
  QStringList common(const std::string& db) const {
    return {"--db", qs(db), "--cache", qs(m_cache), "--quiet"};
  }

  QTemporaryDir m_tmp;
  std::string m_dir, m_model, m_cache, m_orig_train, m_orig_eval, m_new_train, m_new_eval;
  std::map<std::string, Reference> m_refs;
};

void TestDist::initTestCase() {
  gb::test::quiet_logs();
  QVERIFY(m_tmp.isValid());
  m_dir = m_tmp.path().toStdString();
  m_cache = m_dir + "/cache";
  qputenv("GROWBENCH_CACHE_DIR", QByteArray::fromStdString(m_cache + "/default"));
  qputenv("OMP_NUM_THREADS", "1");
  m_orig_train = m_dir + "/orig_train.txt";
  m_orig_eval = m_dir + "/orig_eval.txt";
  m_new_train = m_dir + "/new_train.txt";
  m_new_eval = m_dir + "/new_eval.txt";
  const std::string orig = salad(kEnglish, 1200, 1), neu = salad(kGerman, 1200, 2);
  write_text(m_orig_train, orig);
  write_text(m_orig_eval, salad(kEnglish, 300, 3));
  write_text(m_new_train, neu);
  write_text(m_new_eval, salad(kGerman, 300, 4));
  m_model = m_dir + "/llama";
  fs::create_directories(m_model);
  for (const char* f : {"config.json", "model.safetensors"}) {
    fs::copy_file(gb::test::fixture_dir("llama") + "/" + f, m_model + "/" + f);
  }
  write_text(m_model + "/tokenizer.json",
             gb::tok::train_byte_level_bpe({orig, neu}, 512, {"<|endoftext|>"}));
}

Json TestDist::spec(const Json& plan) const {
  // Tiny on purpose: 2 loaded cores. Batches of 4 rows (2 per rank), 2 micro-batches per
  // step, gradient clipping on (it acts on the all-reduced gradient), evaluation sets of 3
  // batches (dealt out unevenly), drift and a test set.
  return Json{
      {"version", 1},
      {"name", "dist"},
      {"seed", 3},
      {"threads", 1},
      {"model", m_model},
      {"data",
       {{"original", {{"eval", m_orig_eval}, {"replay", m_orig_train}, {"test", m_orig_eval}}},
        {"new", {{"train", m_new_train}, {"eval", m_new_eval}}}}},
      {"plans", Json::array({plan})},
      {"train",
       {{"steps", 6},
        {"seq_len", 16},
        {"batch_size", 4},
        {"accumulation", 2},
        {"lr", 2e-3},
        {"clip", 0.5},
        // AdamW divides by sqrt(v) + eps: rounding noise in a gradient near zero moves an
        // element by up to lr * noise / eps. 1e-6 keeps that below the comparison bound
        // without changing what is compared.
        {"eps", 1e-6},
        {"schedule", "cosine"},
        {"warmup", 1}}},
      {"eval", {{"interval", 2}, {"tokens", 160}, {"batch_size", 4}, {"drift", true}}},
      {"checkpoint", {{"interval", 2}}},
      // Probe sets of 3 batches: dealt out unevenly over 2 ranks.
      {"probe", {{"tokens", 96}, {"seq_len", 16}, {"batch_size", 2}}}};
}

std::string TestDist::write_spec(const std::string& name, const Json& s) const {
  const std::string path = m_dir + "/" + name + ".json";
  write_text(path, s.dump(2));
  return path;
}

TestDist::Reference TestDist::collect(const std::string& db, int64_t run) const {
  Store store = Store::open(db);
  if (run == 0) run = newest_run(store);
  std::vector<std::pair<std::string, ImportanceMatrix>> probes;
  for (const auto& p : store.list_probes()) probes.emplace_back(p.method, store.importance(p.id));
  std::reverse(probes.begin(), probes.end());
  return {learning_metrics(store, run), final_weights(store, run), std::move(probes)};
}

const TestDist::Reference& TestDist::reference(const std::string& name, const Json& s) {
  auto it = m_refs.find(name);
  if (it != m_refs.end()) return it->second;
  const std::string db = m_dir + "/ref-" + name + ".db";
  Result r = run_cli(QStringList{"run", qs(write_spec("ref-" + name, s))} + common(db));
  if (r.code != 0) qWarning("reference run failed: %s", r.err.c_str());
  return m_refs[name] = collect(db);
}

// ---- the world and the helpers ----------------------------------------------------------

void TestDist::worldFromEnvironment_data() {
  QTest::addColumn<QString>("env");  // K=V;K=V
  QTest::addColumn<QString>(
      "expected");  // rank/world/local:local world/addr:port/agent/launcher or error
  QTest::newRow("none") << ""
                        << "0/1/0:1/127.0.0.1:29500/0/single";
  QTest::newRow("torchrun agent store")
      << "RANK=1;WORLD_SIZE=4;LOCAL_RANK=1;LOCAL_WORLD_SIZE=2;MASTER_ADDR=n1;MASTER_PORT=29400;"
         "TORCHELASTIC_USE_AGENT_STORE=True;TORCHELASTIC_RESTART_COUNT=2"
      << "1/4/1:2/n1:29400/1/torchrun /worker/attempt_2";
  QTest::newRow("plain variables") << "RANK=0;WORLD_SIZE=2;MASTER_ADDR=10.0.0.5;MASTER_PORT=1234"
                                   << "0/2/0:2/10.0.0.5:1234/0/env";
  QTest::newRow("local launcher") << "RANK=1;WORLD_SIZE=2;MASTER_ADDR=127.0.0.1;MASTER_PORT=5555;"
                                     "TORCHELASTIC_USE_AGENT_STORE=True;GROWBENCH_DIST_LAUNCHED=1"
                                  << "1/2/1:2/127.0.0.1:5555/1/launcher /worker/attempt_0";
  QTest::newRow("srun") << "SLURM_PROCID=3;SLURM_STEP_NUM_TASKS=8;SLURM_LOCALID=1;"
                           "SLURM_JOB_NODELIST=gpu[07-08];SLURM_JOB_ID=123456"
                        << "3/8/1:8/gpu07:29956/0/slurm";
  QTest::newRow("srun, 2 nodes of 4 tasks (compressed tasks per node)")
      << "SLURM_PROCID=5;SLURM_STEP_NUM_TASKS=8;SLURM_LOCALID=1;SLURM_NODEID=1;"
         "SLURM_STEP_TASKS_PER_NODE=4(x2);SLURM_JOB_NODELIST=gpu[07-08];SLURM_JOB_ID=7"
      << "5/8/1:4/gpu07:29507/0/slurm";
  QTest::newRow("srun, uneven nodes 2,1, on the second")
      << "SLURM_PROCID=2;SLURM_STEP_NUM_TASKS=3;SLURM_LOCALID=0;SLURM_NODEID=1;"
         "SLURM_STEP_TASKS_PER_NODE=2,1;SLURM_JOB_NODELIST=n[1-2];SLURM_JOB_ID=9"
      << "2/3/0:1/n1:29509/0/slurm";
  QTest::newRow("srun with MASTER_ADDR")
      << "SLURM_PROCID=0;SLURM_STEP_NUM_TASKS=2;MASTER_ADDR=head;MASTER_PORT=40000"
      << "0/2/0:2/head:40000/0/slurm";
  QTest::newRow("sbatch script itself is one process")
      << "SLURM_PROCID=0;SLURM_NTASKS=8;SLURM_JOB_NODELIST=gpu[07-08]"
      << "0/1/0:1/127.0.0.1:29500/0/single";
  QTest::newRow("RANK without WORLD_SIZE") << "RANK=0"
                                           << "error: RANK and WORLD_SIZE";
  QTest::newRow("RANK too large") << "RANK=2;WORLD_SIZE=2;MASTER_ADDR=a;MASTER_PORT=1"
                                  << "error: RANK=2 is not below WORLD_SIZE=2";
  QTest::newRow("no master") << "RANK=0;WORLD_SIZE=2;MASTER_PORT=1"
                             << "error: MASTER_ADDR is not set";
  QTest::newRow("bad port") << "RANK=0;WORLD_SIZE=2;MASTER_ADDR=a;MASTER_PORT=70000"
                            << "error: MASTER_PORT='70000' is not an integer in [1, 65535]";
}

void TestDist::worldFromEnvironment() {
  QFETCH(QString, env);
  QFETCH(QString, expected);
  std::map<std::string, std::string> vars;
  for (const QString& kv : env.split(';', Qt::SkipEmptyParts)) {
    const auto parts = kv.split('=');
    vars[parts[0].toStdString()] = parts[1].toStdString();
  }
  auto lookup = [&](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  std::string got;
  try {
    const auto w = gb::dist::detect_world(lookup);
    got = fmt::format("{}/{}/{}:{}/{}:{}/{}/{}", w.rank, w.world_size, w.local_rank,
                      w.local_world_size, w.master_addr, w.master_port, w.agent_store ? 1 : 0,
                      w.launcher);
    if (!w.store_prefix.empty()) got += " " + w.store_prefix;
  } catch (const gb::Error& e) {
    got = std::string("error: ") + e.what();
  }
  if (expected.startsWith("error: ")) {
    QVERIFY2(contains(got, expected.mid(7).toStdString()), got.c_str());
  } else {
    QCOMPARE(qs(got), expected);
  }
}

void TestDist::slurmFirstHost_data() {
  QTest::addColumn<QString>("list");
  QTest::addColumn<QString>("first");
  QTest::newRow("one") << "node1"
                       << "node1";
  QTest::newRow("list") << "a1,b2"
                        << "a1";
  QTest::newRow("range") << "gpu[03-05,9]"
                         << "gpu03";
  QTest::newRow("range with suffix") << "n[12-13]-ib,x"
                                     << "n12-ib";
}

void TestDist::slurmFirstHost() {
  QFETCH(QString, list);
  QFETCH(QString, first);
  QCOMPARE(qs(gb::dist::first_slurm_host(list.toStdString())), first);
}

void TestDist::slurmTasksPerNode_data() {
  QTest::addColumn<QString>("list");
  QTest::addColumn<int>("node");
  QTest::addColumn<int>("tasks");  // -1: an error
  QTest::newRow("one node") << "4" << 0 << 4;
  QTest::newRow("4(x2), node 1") << "4(x2)" << 1 << 4;
  QTest::newRow("2,1, node 1") << "2,1" << 1 << 1;
  QTest::newRow("3(x2),1, node 2") << "3(x2),1" << 2 << 1;
  QTest::newRow("3(x2),1, node 1") << "3(x2),1" << 1 << 3;
  QTest::newRow("node beyond the list") << "4(x2)" << 2 << -1;
  QTest::newRow("malformed") << "4(2)" << 0 << -1;
  QTest::newRow("not a number") << "x" << 0 << -1;
  QTest::newRow("zero tasks") << "0" << 0 << -1;
  QTest::newRow("trailing comma") << "4," << 1 << -1;
  QTest::newRow("sign") << "+4" << 0 << -1;
  QTest::newRow("huge repeat") << "1,1(x9223372036854775807)" << 5 << -1;
}

void TestDist::slurmTasksPerNode() {
  QFETCH(QString, list);
  QFETCH(int, node);
  QFETCH(int, tasks);
  if (tasks >= 0) {
    QCOMPARE(gb::dist::slurm_tasks_on_node(list.toStdString(), node), int64_t(tasks));
    return;
  }
  try {
    gb::dist::slurm_tasks_on_node(list.toStdString(), node);
    QFAIL("no error");
  } catch (const gb::Error& e) {
    QVERIFY2(QString(e.what()).contains("SLURM_STEP_TASKS_PER_NODE"), e.what());
  }
}

void TestDist::cudaDeviceOfALocalRank_data() {
  QTest::addColumn<int>("local_rank");
  QTest::addColumn<int>("local_world");
  QTest::addColumn<int>("visible");
  QTest::addColumn<int>("device");  // -1: an error
  QTest::newRow("torchrun, 4 of 4 devices") << 3 << 4 << 4 << 3;
  QTest::newRow("2 processes, 8 devices") << 1 << 2 << 8 << 1;
  QTest::newRow("srun --gpus-per-task=1") << 3 << 4 << 1 << 0;
  QTest::newRow("one process, one device") << 0 << 1 << 1 << 0;
  QTest::newRow("4 processes share 2 devices") << 1 << 4 << 2 << -1;
  QTest::newRow("no device") << 0 << 1 << 0 << -1;
}

void TestDist::cudaDeviceOfALocalRank() {
  QFETCH(int, local_rank);
  QFETCH(int, local_world);
  QFETCH(int, visible);
  QFETCH(int, device);
  if (device >= 0) {
    QCOMPARE(gb::dist::cuda_device_index(local_rank, local_world, visible), int64_t(device));
    return;
  }
  try {
    gb::dist::cuda_device_index(local_rank, local_world, visible);
    QFAIL("no error");
  } catch (const gb::Error& e) {
    QVERIFY2(QString(e.what()).contains("CUDA device"), e.what());
  }
}

// The spec's index wins; "cuda" alone falls back to the local rank's device.
void TestDist::cudaDeviceOfTheRunsDevice() {
  gb::dist::WorldInfo w;
  w.local_rank = 1;
  w.local_world_size = 2;
  QCOMPARE(gb::dist::rank_cuda_device("cuda:3", w, 8), int64_t(3));
  QCOMPARE(gb::dist::rank_cuda_device("cuda", w, 2), int64_t(1));
  QCOMPARE(gb::dist::rank_cuda_device("cuda", w, 1), int64_t(0));
  QVERIFY_EXCEPTION_THROWN(gb::dist::rank_cuda_device("cuda:x", w, 2), gb::Error);
  QVERIFY_EXCEPTION_THROWN(gb::dist::rank_cuda_device("cuda", w, 0), gb::Error);
}

// --resume takes no spec: the backend (nccl for a CUDA run) follows the stored run's device.
void TestDist::resumeReadsTheRunsDeviceFromTheStore() {
  const std::string db = m_dir + "/device.db";
  int64_t cuda_run = 0, default_run = 0;
  {
    Store store = Store::open(db);
    gb::store::NewRun a;
    a.name = "on cuda";
    a.spec = R"({"version":1,"device":"cuda:1"})";
    cuda_run = store.create_run(a);
    gb::store::NewRun b;
    b.name = "default device";
    b.spec = R"({"version":1})";
    default_run = store.create_run(b);
  }
  QCOMPARE(qs(gb::experiment::stored_run_device(db, cuda_run)), QString("cuda:1"));
  QCOMPARE(qs(gb::experiment::stored_run_device(db, default_run)), QString("cpu"));
  QCOMPARE(qs(gb::experiment::stored_run_device(db, 999)), QString());
  QCOMPARE(qs(gb::experiment::stored_run_device(m_dir + "/no-such.db", 1)), QString());
  QVERIFY(!fs::exists(m_dir + "/no-such.db"));
}

void TestDist::rowShardsCoverTheBatchDisjointly_data() {
  QTest::addColumn<int>("rows");
  QTest::addColumn<int>("world");
  QTest::newRow("even") << 8 << 2;
  QTest::newRow("uneven") << 7 << 3;
  QTest::newRow("one row each") << 4 << 4;
}

void TestDist::rowShardsCoverTheBatchDisjointly() {
  QFETCH(int, rows);
  QFETCH(int, world);
  gb::data::Batch b;
  b.rows = rows;
  b.seq_len = 3;
  for (int i = 0; i < rows * 4; ++i) b.tokens.push_back(i);
  for (int i = 0; i < rows * 4; ++i) b.loss_mask.push_back(i % 3 != 0);
  std::vector<int32_t> joined;
  std::vector<uint8_t> mask;
  int64_t targets = 0;
  for (int r = 0; r < world; ++r) {
    auto s = gb::dist::shard_rows(rows, world, r);
    QVERIFY(s.count >= rows / world && s.count <= rows / world + 1);
    auto part = gb::dist::slice_rows(b, s);
    QCOMPARE(part.rows, s.count);
    joined.insert(joined.end(), part.tokens.begin(), part.tokens.end());
    mask.insert(mask.end(), part.loss_mask.begin(), part.loss_mask.end());
    targets += gb::dist::batch_targets(part);
  }
  QVERIFY(joined == b.tokens);
  QVERIFY(mask == b.loss_mask);
  QCOMPARE(targets, gb::dist::batch_targets(b));
  QVERIFY(contains(gb::test::error_of([&] { gb::dist::shard_rows(world - 1, world, 0); }),
                   "train.batch_size >= the number of processes"));
}

void TestDist::bucketsAreConsecutiveAndBounded() {
  const std::vector<int64_t> bytes = {10, 20, 5, 100, 1, 1, 30};
  const auto b = gb::dist::plan_buckets(bytes, 32);
  // [10 20] [5] [100] [1 1 30]: consecutive, each at most 32 bytes unless one tensor is larger.
  const std::vector<std::vector<size_t>> expected = {{0, 1}, {2}, {3}, {4, 5, 6}};
  QVERIFY(b == expected);
  QCOMPARE(gb::dist::plan_buckets(bytes, 1 << 20).size(), size_t(1));
}

void TestDist::withoutGlooNprocSaysUnavailable() {
  if (gb::dist::available()) {
    QVERIFY(gb::dist::unavailable_reason().empty());
    QSKIP("this build has Gloo: the unavailable path is built with -DGB_WITH_GLOO=OFF");
  }
  const std::string db = m_dir + "/nogloo.db";
  Result r = run_cli(QStringList{"run", qs(write_spec("nogloo", spec({{"variant", "full"}}))),
                                 "--nproc-per-node", "2"} +
                     common(db));
  QCOMPARE(r.code, 1);
  QVERIFY2(contains(r.err, "distributed runs are unavailable"), r.err.c_str());
  QVERIFY2(contains(r.err, "libgloo-dev"), r.err.c_str());
}

// ---- runs ------------------------------------------------------------------------------

#define REQUIRE_GLOO() \
  if (!gb::dist::available()) QSKIP(qPrintable(qs(gb::dist::unavailable_reason())))

void TestDist::twoProcessesEqualOneProcess_data() {
  QTest::addColumn<QString>("plan");
  QTest::newRow("full") << R"({"variant":"full"})";
  QTest::newRow("lora") << R"({"variant":"lora","rank":4,"targets":["q","v","up"]})";
  QTest::newRow("grow g-freeze") << R"({"variant":"grow","mode":"freeze","k":2})";
  QTest::newRow("neutral residues") << R"({"variant":"neutral-residues","gate":"sigmoid",)"
                                       R"("inner":16,"replay":0.5})";
  QTest::newRow("ewc (a model-level loss term)") << R"({"variant":"ewc","lambda":50.0})";
  // Sharded probes: masking picks the layers, taylor-code sets the unit learning rates after
  // steps 2 and 4 (its per-batch |gradient| sums reduced too), the Fisher anchors EWC (each
  // rank runs its batches, the sums are reduced).
  QTest::newRow("adept (sharded masking and unit probes)")
      << R"({"variant":"depth","style":"adept","layers":{"policy":"least-important","k":1,)"
         R"("score":"masking"},"unit_lr":true,"t_update":2,"unit_importance":"taylor-code"})";
  // The preliminary fine-tuning of the update-magnitude probe: every step's batch split by
  // rows over the ranks, the gradients summed before each step.
  QTest::newRow("grow by update magnitude (sharded preliminary fine-tuning)")
      << R"({"variant":"grow","mode":"freeze","k":2,)"
         R"("layers":{"policy":"update-magnitude","k":1}})";
  QTest::newRow("lora + ewc (sharded Fisher)")
      << R"({"variant":"lora","rank":4,"ewc":{"lambda":50.0}})";
  // train.row_shards 2 on top: each rank's 2 rows of a batch in 2 blocks of 1 row, computed
  // on threads (the reference: one process, 2 blocks of 2 rows).
  QTest::newRow("neutral residues, 2 row shards")
      << R"({"variant":"neutral-residues","gate":"sigmoid","inner":16,"replay":0.5})";
  // Replay mixed per row: the original rows come first, so rank 0 holds them all and rank 1
  // none; each rank weighs its ℓ1 mean by its share of the original rows.
  QTest::newRow("neutral residues, replay per row")
      << R"({"variant":"neutral-residues","gate":"sigmoid","inner":16,"replay":0.5,)"
         R"("replay_mode":"rows"})";
}

void TestDist::twoProcessesEqualOneProcess() {
  REQUIRE_GLOO();
  QFETCH(QString, plan);
  Json s = spec(Json::parse(plan.toStdString()));
  if (std::string(QTest::currentDataTag()).find("row shards") != std::string::npos) {
    s["train"]["row_shards"] = 2;
  }
  const Reference& ref = reference(QTest::currentDataTag(), s);
  QVERIFY(ref.metrics.size() > 20);
  const std::string db = m_dir + "/two-" + std::string(QTest::currentDataTag()) + ".db";
  Result r = run_cli(QStringList{"run", qs(write_spec("two", s)), "--nproc-per-node", "2",
                                 "--dist-bucket-mb", "0.01"} +
                     common(db));
  QVERIFY2(r.code == 0, r.err.c_str());
  Store store = Store::open(db);
  const int64_t run = newest_run(store);
  QCOMPARE(store.get_run(run).status, RunStatus::Finished);
  const auto params = store.run_params(run);
  QCOMPARE(params.at("dist.world_size").get<int>(), 2);
  QCOMPARE(qs(params.at("dist.backend").get<std::string>()), QString("gloo"));
  QCOMPARE(qs(params.at("dist.launcher").get<std::string>()), QString("launcher"));
  // Only rank 0 wrote: one run, one set of checkpoints.
  QCOMPARE(store.list_runs().size(), size_t(1));
  const Reference two = collect(db, run);
  const std::string dm = compare_metrics(ref.metrics, two.metrics);
  QVERIFY2(dm.empty(), dm.c_str());
  const std::string dw = compare_weights(ref.weights, two.weights);
  QVERIFY2(dw.empty(), dw.c_str());
  const std::string dp = compare_probes(ref.probes, two.probes);
  QVERIFY2(dp.empty(), dp.c_str());
  // The masking and unit probes ran sharded: of the 3 batches of the probe set, rank 0 ran
  // two and rank 1 one (every recorded probe of this spec is one of them).
  if (QString(QTest::currentDataTag()).startsWith("adept")) {
    // masking, then taylor-code at steps 2 and 4 (never at step 0: ADEPT's code's schedule;
    // this was 4 probes, with one at step 0, under the earlier schedule)
    QCOMPARE(two.probes.size(), size_t(3));
  }
  // EWC's Fisher ran sharded too (it is not a recorded probe: its event says so).
  if (QString(QTest::currentDataTag()).contains("ewc")) {
    bool sharded = false;
    for (const auto& e : store.events(run)) {
      sharded = sharded || contains(e.message, "sharded over 2 processes (batches per rank: 2, 1)");
    }
    QVERIFY2(sharded, "no event of a sharded Fisher");
  }
  for (const auto& p : store.list_probes()) {
    const Json details = Json::parse(p.params)["result"].value("details", Json::object());
    if (p.method == "update-magnitude") {
      // Each of the preliminary run's steps split its batch by rows: of a 2-row batch one
      // row each, of the probe set's 1-row batch the row to rank 1 (rows [r/2, (r+1)/2)).
      const int64_t steps = details.value("steps", int64_t{0});
      const Json rows = details.value("rows_by_rank", Json());
      QVERIFY2(rows.is_array() && rows.size() == 2, details.dump().c_str());
      const int64_t r0 = rows[0].get<int64_t>(), r1 = rows[1].get<int64_t>();
      QVERIFY2(steps > 0 && r1 == steps && r0 > 0 && r0 < steps,
               (rows.dump() + " after " + std::to_string(steps) + " steps").c_str());
      continue;
    }
    QVERIFY2(details.value("batches_by_rank", Json()) == Json::array({2, 1}),
             (p.method + ": " + details.dump()).c_str());
  }
  if (QString(QTest::currentDataTag()).startsWith("grow by")) {
    QCOMPARE(two.probes.size(), size_t(1));
    QCOMPARE(qs(two.probes.front().first), QString("update-magnitude"));
  }
  // The trained weights moved: the comparison is not between two untouched models.
  Store ref_store = Store::open(m_dir + "/ref-" + std::string(QTest::currentDataTag()) + ".db");
  QVERIFY(ref.metrics.count({"train/grad_norm", 1}));
  QVERIFY(ref.metrics.at({"train/grad_norm", 1}) > 0);
}

void TestDist::killedRankFailsTheRunNamingItAndResumes_data() {
  QTest::addColumn<int>("resume_nproc");
  QTest::newRow("resumed by one process") << 1;
  QTest::newRow("resumed by two processes") << 2;
}

void TestDist::killedRankFailsTheRunNamingItAndResumes() {
  REQUIRE_GLOO();
  QFETCH(int, resume_nproc);
  const Json s = spec({{"variant", "lora"}, {"rank", 4}});
  const Reference& ref = reference("kill lora", s);
  const std::string db = m_dir + "/kill-" + std::to_string(resume_nproc) + ".db";
  const QString path = qs(write_spec("kill", s));
  // Rank 1 dies (SIGKILL) at step 3; the checkpoint of step 2 exists.
  Result r = run_cli(QStringList{"run", path, "--nproc-per-node", "2", "--dist-timeout", "60",
                                 "--dist-fault", "1:3:kill"} +
                     common(db));
  QCOMPARE(r.code, 3);
  int64_t run = 0;
  {
    Store store = Store::open(db);
    run = newest_run(store);
    const auto info = store.get_run(run);
    QCOMPARE(info.status, RunStatus::Failed);
    const std::string want = "rank 1 on " + gb::dist::host_name();
    QVERIFY2(contains(info.error, want), info.error.c_str());
    QVERIFY2(contains(info.error, "killed by signal 9"), info.error.c_str());
    bool event = false;
    for (const auto& e : store.events(run)) event |= contains(e.message, want);
    QVERIFY(event);
    QVERIFY(store.integrity_check().empty() ||
            store.integrity_check() == std::vector<std::string>{"ok"});
    auto ck = store.latest_checkpoint(run);
    QVERIFY(ck.has_value());
    QCOMPARE(ck->step, int64_t(2));
  }
  QStringList resume = {"run", "--resume", QString::number(run)};
  if (resume_nproc > 1) resume << "--nproc-per-node" << QString::number(resume_nproc);
  r = run_cli(resume + common(db));
  QVERIFY2(r.code == 0, r.err.c_str());
  Store store = Store::open(db);
  QCOMPARE(store.get_run(run).status, RunStatus::Finished);
  QCOMPARE(store.run_params(run).at("dist.world_size").get<int>(), resume_nproc);
  const Reference got = collect(db, run);
  const std::string dm = compare_metrics(ref.metrics, got.metrics);
  QVERIFY2(dm.empty(), dm.c_str());
  const std::string dw = compare_weights(ref.weights, got.weights);
  QVERIFY2(dw.empty(), dw.c_str());
}

void TestDist::hungRankFailsTheRunWithinTheTimeout() {
  REQUIRE_GLOO();
  const Json s = spec({{"variant", "lora"}, {"rank", 4}});
  const std::string db = m_dir + "/hang.db";
  // Rank 1 stops (SIGSTOP) at step 3: rank 0's collective ends at the 5 s timeout, and the
  // launcher ends the stopped worker after rank 0 has recorded the failure.
  Result r = run_cli(QStringList{"run", qs(write_spec("hang", s)), "--nproc-per-node", "2",
                                 "--dist-timeout", "5", "--dist-fault", "1:3:hang"} +
                     common(db));
  QCOMPARE(r.code, 3);
  Store store = Store::open(db);
  const auto info = store.get_run(newest_run(store));
  QCOMPARE(info.status, RunStatus::Failed);
  QVERIFY2(contains(info.error, "rank 1 on " + gb::dist::host_name() + " stopped responding"),
           info.error.c_str());
  QVERIFY2(contains(info.error, "timeout 5 s"), info.error.c_str());
}

// The other ranks wait up to hours for rank 0 to prepare (it may pretrain a preset), but not
// for a rank 0 that stopped: its heartbeat ends their wait within seconds, with rank 0 named.
void TestDist::rankZeroHungWhilePreparingEndsTheWaitOfTheOthers() {
  REQUIRE_GLOO();
  const Json s = spec({{"variant", "lora"}, {"rank", 4}});
  const std::string db = m_dir + "/prepare-hang.db";
  QProcess p;
  p.setProcessEnvironment(clean_env());
  p.start(QStringLiteral(GB_CLI_PATH),
          QStringList{"run", qs(write_spec("prepare-hang", s)), "--nproc-per-node", "2",
                      "--dist-timeout", "5", "--dist-fault", "0:prepare:hang"} +
              common(db));
  QVERIFY(p.waitForStarted());
  const Result r = finish(p, 180000);
  QVERIFY2(!contains(r.err, "TIMED OUT"), r.err.c_str());
  QVERIFY(r.code != 0);
  const std::string want = "rank 0 on " + gb::dist::host_name() + " stopped responding";
  QVERIFY2(contains(r.err, want), r.err.c_str());
  QVERIFY2(contains(r.err, "waited for 'gb/prepared'"), r.err.c_str());
}

// Under torchrun or srun no launcher of ours watches rank 0: when it dies mid-run, the
// surviving rank on its machine marks its runs interrupted at once (with its diagnosis as an
// event), instead of leaving them `running` until a later worker opens the store; the run
// resumes to the uninterrupted result.
void TestDist::rankZeroKilledUnderAnExternalLauncherLeavesNoRunRunning() {
  REQUIRE_GLOO();
  const Json s = spec({{"variant", "lora"}, {"rank", 4}});
  const Reference& ref = reference("kill lora", s);
  const std::string db = m_dir + "/leader-killed.db";
  const QString path = qs(write_spec("leader-killed", s));
  const int port = free_port();
  std::vector<std::unique_ptr<QProcess>> procs;
  for (int rank = 0; rank < 2; ++rank) {
    procs.push_back(start_rank(
        rank, port,
        QStringList{"run", path, "--dist-timeout", "60", "--dist-fault", "0:3:kill"} + common(db)));
    QVERIFY(procs.back());
  }
  const Result r0 = finish(*procs[0], 180000), r1 = finish(*procs[1], 180000);
  QCOMPARE(r0.code, -1);  // SIGKILL
  QVERIFY2(r1.code != 0 && !contains(r1.err, "TIMED OUT"), r1.err.c_str());
  int64_t run = 0;
  {
    Store store = Store::open(db, gb::store::OpenMode::ReadOnly);
    run = newest_run(store);
    const auto info = store.get_run(run);
    QVERIFY2(info.status == RunStatus::Interrupted,
             (std::string(gb::store::to_string(info.status)) + "\nrank 1:\n" + r1.err).c_str());
    bool event = false;
    for (const auto& e : store.events(run)) event |= contains(e.message, "found rank 0 gone");
    QVERIFY2(event, r1.err.c_str());
    QVERIFY(store.latest_checkpoint(run).has_value());
  }
  const Result r = run_cli(QStringList{"run", "--resume", QString::number(run)} + common(db));
  QVERIFY2(r.code == 0, r.err.c_str());
  const Reference got = collect(db, run);
  const std::string dm = compare_metrics(ref.metrics, got.metrics);
  QVERIFY2(dm.empty(), dm.c_str());
}

void TestDist::externalLaunchEqualsOneProcess_data() {
  QTest::addColumn<QString>("how");
  QTest::newRow("torchrun --no_python") << "torchrun";
  QTest::newRow("environment variables, rank 0 hosts the store") << "env";
}

void TestDist::externalLaunchEqualsOneProcess() {
  REQUIRE_GLOO();
  QFETCH(QString, how);
  const Json s = spec({{"variant", "grow"}, {"mode", "freeze"}, {"k", 2}});
  const Reference& ref = reference("grow g-freeze", s);
  const std::string db = m_dir + "/external-" + how.toStdString() + ".db";
  const QString path = qs(write_spec("external", s));
  const int port = free_port();
  if (how == "torchrun") {
    const QString torchrun = QStandardPaths::findExecutable("torchrun");
    if (torchrun.isEmpty()) QSKIP("torchrun is not on PATH (Debian: python3-torch)");
    // A static rendezvous: torchrun's agent hosts the store; the workers are clients under
    // /worker/attempt_0.
    // --redirects/--tee given explicitly: Debian's torchrun 1.13 under Python 3.11 fails on
    // the default "0" (its Std flag lookup returns None).
    Result r =
        run_cli(QStringList{"--nnodes", "1", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
                            "--master_port", QString::number(port), "--redirects", "2", "--tee",
                            "2", "--no_python", GB_CLI_PATH, "run", path} +
                    common(db),
                clean_env(), torchrun);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
  } else {
    std::vector<std::unique_ptr<QProcess>> procs;
    for (int rank = 0; rank < 2; ++rank) {
      procs.push_back(start_rank(rank, port, QStringList{"run", path} + common(db)));
      QVERIFY(procs.back());
    }
    for (auto& p : procs) {
      Result r = finish(*p);
      QVERIFY2(r.code == 0, r.err.c_str());
    }
  }
  Store store = Store::open(db);
  const int64_t run = newest_run(store);
  QCOMPARE(store.get_run(run).status, RunStatus::Finished);
  QCOMPARE(store.run_params(run).at("dist.world_size").get<int>(), 2);
  QCOMPARE(qs(store.run_params(run).at("dist.launcher").get<std::string>()),
           how == "torchrun" ? QString("torchrun") : QString("env"));
  const Reference got = collect(db, run);
  const std::string dm = compare_metrics(ref.metrics, got.metrics);
  QVERIFY2(dm.empty(), dm.c_str());
  const std::string dw = compare_weights(ref.weights, got.weights);
  QVERIFY2(dw.empty(), dw.c_str());
}

void TestDist::mismatchedSpecsAreRefusedNamingTheRanks() {
  REQUIRE_GLOO();
  Json a = spec({{"variant", "full"}}), b = a;
  b["train"]["lr"] = 1e-3;
  const QString pa = qs(write_spec("mis-a", a)), pb = qs(write_spec("mis-b", b));
  const int port = free_port();
  const std::string db = m_dir + "/mismatch.db";
  std::vector<std::unique_ptr<QProcess>> procs;
  for (int rank = 0; rank < 2; ++rank) {
    procs.push_back(start_rank(
        rank, port, QStringList{"run", rank == 0 ? pa : pb, "--dist-timeout", "30"} + common(db)));
    QVERIFY(procs.back());
  }
  for (auto& p : procs) {
    Result r = finish(*p);
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "the ranks run different experiments: rank 0 on"), r.err.c_str());
    QVERIFY2(contains(r.err, "rank 1 on"), r.err.c_str());
  }
  // Nothing started: no run in the store.
  QVERIFY(!fs::exists(db) || Store::open(db).list_runs().empty());
}

void TestDist::portInUseAndUnreachableMasterGiveClearErrors() {
  REQUIRE_GLOO();
  const QString path = qs(write_spec("ports", spec({{"variant", "full"}})));
  const std::string db = m_dir + "/ports.db";
  {
    int port = 0;
    const int fd = bound_socket(&port);
    Result r =
        run_cli(QStringList{"run", path, "--dist-timeout", "5"} + common(db), rank_env(0, port));
    ::close(fd);
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "the port is in use"), r.err.c_str());
    QVERIFY2(contains(r.err, "MASTER_PORT"), r.err.c_str());
  }
  {
    Result r = run_cli(QStringList{"run", path, "--dist-timeout", "2"} + common(db),
                       rank_env(1, free_port()));
    QCOMPARE(r.code, 1);
    QVERIFY2(contains(r.err, "could not reach the rendezvous store at 127.0.0.1:"), r.err.c_str());
  }
}

// ---- run --jobs: a spec's runs side by side -----------------------------------------------

// Two plans x two seeds in two workers at a time equal the same four runs one after another,
// bit for bit (the same arithmetic in each process), each run in a worker of its own.
void TestDist::jobsRunSideBySideEqualToOneAfterAnother() {
  Json s = spec({{"variant", "full"}});
  s["plans"] = Json::array({Json{{"variant", "full"}}, Json{{"variant", "lora"}, {"rank", 4}}});
  s["seeds"] = Json::array({3, 4});
  const QString path = qs(write_spec("jobs", s));
  const std::string one = m_dir + "/jobs-1.db", two = m_dir + "/jobs-2.db";
  Result a = run_cli(QStringList{"run", path} + common(one));
  QVERIFY2(a.code == 0, a.err.c_str());
  Result b =
      run_cli(QStringList{"run", path, "--jobs", "2", "--db", qs(two), "--cache", qs(m_cache)});
  QVERIFY2(b.code == 0, b.err.c_str());
  // Whole JSON lines only; the workers' own `done` lines give way to one for the spec, last.
  std::vector<Json> lines;
  size_t start = 0;
  for (size_t nl; (nl = b.out.find('\n', start)) != std::string::npos; start = nl + 1) {
    const Json j = Json::parse(b.out.substr(start, nl - start), nullptr, false);
    QVERIFY2(!j.is_discarded(), b.out.substr(start, nl - start).c_str());
    lines.push_back(j);
  }
  QVERIFY(!lines.empty());
  int dones = 0, started = 0;
  for (const auto& j : lines) {
    dones += j.value("event", "") == "done" ? 1 : 0;
    started += j.value("event", "") == "run_started" ? 1 : 0;
  }
  QCOMPARE(dones, 1);
  QCOMPARE(started, 4);
  const Json& done = lines.back();
  QCOMPARE(done.value("event", ""), std::string("done"));
  QCOMPARE(done.value("exit_code", -1), 0);
  QCOMPARE(done["runs"].size(), size_t(4));
  for (const auto& r : done["runs"]) QCOMPARE(r.value("status", ""), std::string("finished"));

  Store sa = Store::open(one), sb = Store::open(two);
  auto ra = sa.list_runs(), rb = sb.list_runs();
  auto by_id = [](const auto& x, const auto& y) { return x.id < y.id; };
  std::sort(ra.begin(), ra.end(), by_id);
  std::sort(rb.begin(), rb.end(), by_id);
  QCOMPARE(ra.size(), size_t(4));
  QCOMPARE(rb.size(), size_t(4));
  std::set<int64_t> pids;
  for (size_t i = 0; i < 4; ++i) {
    QCOMPARE(rb[i].name, ra[i].name);
    QCOMPARE(rb[i].status, RunStatus::Finished);
    QVERIFY(rb[i].worker_pid.has_value());
    pids.insert(*rb[i].worker_pid);
    // A first start in a worker is not a resume: no "started again" warning.
    for (const auto& e : sb.events(rb[i].id)) {
      QVERIFY2(!contains(e.message, "started again"), e.message.c_str());
    }
    const auto ma = learning_metrics(sa, ra[i].id), mb = learning_metrics(sb, rb[i].id);
    QVERIFY(ma.size() > 10);
    QVERIFY2(ma == mb, (ra[i].name + ": " + compare_metrics(ma, mb)).c_str());
    const auto wa = final_weights(sa, ra[i].id), wb = final_weights(sb, rb[i].id);
    QVERIFY(!wa.empty());
    QCOMPARE(wa.size(), wb.size());
    for (const auto& [name, t] : wa) {
      QVERIFY2(wb.count(name) && torch::equal(t, wb.at(name)), (ra[i].name + ": " + name).c_str());
    }
  }
  // Each run in a worker of its own. (Whether two short runs overlap depends on the load;
  // jobsStoppedLeaveNoRunRunningOrQueued waits for two long ones running at once.)
  QCOMPARE(pids.size(), size_t(4));
}

void TestDist::jobsStoppedLeaveNoRunRunningOrQueued_data() {
  QTest::addColumn<QString>("how");
  QTest::newRow("cancelled") << "cancel";
  QTest::newRow("a worker killed") << "worker";
  QTest::newRow("the pool killed") << "pool";
}

// Three long runs, two at a time, stopped while two run: a cancel (SIGTERM) cancels the two
// (each writes a checkpoint) and the one not started, exit 130; a worker killed leaves its
// run interrupted while the pool goes on to the next; the pool killed takes its workers with
// it, and the next open of the store marks every run interrupted (resumable), none running
// or queued.
void TestDist::jobsStoppedLeaveNoRunRunningOrQueued() {
  QFETCH(QString, how);
  Json s = spec({{"variant", "lora"}, {"rank", 4}});
  s["seeds"] = Json::array({3, 4, 5});
  s["train"]["steps"] = 1000000;
  s["eval"]["interval"] = 1000000;
  s["checkpoint"]["interval"] = 20;
  const std::string db = m_dir + "/jobs-" + how.toStdString() + ".db";
  QProcess p;
  p.setProcessEnvironment(clean_env());
  p.start(QStringLiteral(GB_CLI_PATH),
          QStringList{"run", qs(write_spec("jobs-long", s)), "--jobs", "2"} + common(db));
  QVERIFY(p.waitForStarted());
  // Until `n` runs are running (the store as any viewer sees it).
  auto running = [&](size_t n) {
    for (int i = 0; i < 1200; ++i) {
      if (fs::exists(db)) {
        std::vector<gb::store::RunInfo> now;
        for (const auto& r : Store::open(db).list_runs()) {
          if (r.status == RunStatus::Running) now.push_back(r);
        }
        if (now.size() >= n) return now;
      }
      QTest::qWait(100);
    }
    return std::vector<gb::store::RunInfo>{};
  };
  auto first = running(2);
  QVERIFY2(first.size() == 2, p.readAllStandardError().constData());
  std::sort(first.begin(), first.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  // Each worker gets its share of the cores for OpenBLAS (unless the user set it).
  {
    std::ifstream in("/proc/" + std::to_string(*first[0].worker_pid) + "/environ",
                     std::ios::binary);
    const std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const QString given = clean_env().value("OPENBLAS_NUM_THREADS");
    const std::string want =
        "OPENBLAS_NUM_THREADS=" +
        (given.isEmpty() ? std::to_string(std::max(1u, std::thread::hardware_concurrency() / 2))
                         : given.toStdString());
    QVERIFY2(contains(env, std::string(1, '\0') + want + std::string(1, '\0')) ||
                 env.rfind(want + std::string(1, '\0'), 0) == 0,
             want.c_str());
  }
  // Until `pred` holds for the store (at most 120 s).
  auto wait_for = [&](const std::function<bool(Store&)>& pred) {
    for (int i = 0; i < 1200; ++i) {
      Store store = Store::open(db);
      if (pred(store)) return true;
      QTest::qWait(100);
    }
    return false;
  };
  // Both have trained (a checkpoint every 20 steps): a cancel then has something to keep.
  QVERIFY(wait_for([&](Store& st) {
    return st.latest_checkpoint(first[0].id).has_value() &&
           st.latest_checkpoint(first[1].id).has_value();
  }));
  int64_t killed = 0;
  if (how == "worker") {
    killed = first[0].id;
    ::kill(static_cast<pid_t>(*first[0].worker_pid), SIGKILL);
    // The pool starts the third run in the freed place.
    QVERIFY(wait_for([&](Store& st) {
      for (const auto& x : st.list_runs()) {
        if (x.id != first[0].id && x.id != first[1].id) return x.status == RunStatus::Running;
      }
      return false;
    }));
  }
  Result r;
  if (how == "pool") {
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    r = finish(p, 60000);
    QCOMPARE(r.code, -1);
    // Its workers die with it; the next open of the store marks their runs.
    bool settled = false;
    for (int i = 0; i < 300 && !settled; ++i) {
      Store store = Store::open(db);
      store.mark_interrupted_runs();
      settled = true;
      for (const auto& x : store.list_runs()) {
        settled &= x.status != RunStatus::Running && x.status != RunStatus::Queued;
      }
      if (!settled) QTest::qWait(100);
    }
    QVERIFY(settled);
  } else {
    p.terminate();  // SIGTERM: a clean cancel
    r = finish(p, 120000);
    QVERIFY2(r.code == 130, r.err.c_str());
  }
  Store store = Store::open(db);
  const auto runs = store.list_runs();
  QCOMPARE(runs.size(), size_t(3));
  for (const auto& x : runs) {
    const std::string what =
        std::to_string(x.id) + " " + gb::store::to_string(x.status) + ": " + x.error;
    if (how == "pool") {
      QVERIFY2(x.status == RunStatus::Interrupted, what.c_str());
      const bool was_running = x.id == first[0].id || x.id == first[1].id;
      QVERIFY2(contains(x.error, was_running ? "ended without finishing" : "orphaned"),
               what.c_str());
    } else if (x.id == killed) {
      QVERIFY2(x.status == RunStatus::Interrupted, what.c_str());
      QVERIFY2(contains(x.error, "ended without finishing"), what.c_str());
    } else {
      QVERIFY2(x.status == RunStatus::Cancelled, what.c_str());
    }
  }
  if (how == "cancel") {
    // The two that ran wrote a checkpoint of their last step when cancelled; the third
    // never started.
    for (const auto& x : first) {
      int64_t last = 0;
      for (const auto& m : store.metric_rows(x.id)) {
        if (m.key == "train/loss") last = std::max(last, m.step);
      }
      const auto ck = store.latest_checkpoint(x.id);
      QVERIFY(ck.has_value());
      QVERIFY2(ck->step == last && last > 0,
               fmt::format("run {}: checkpoint {} at last step {}", x.id, ck->step, last).c_str());
    }
    bool unstarted = false;
    for (const auto& x : runs) unstarted |= contains(x.error, "cancelled before it started");
    QVERIFY(unstarted);
  }
  if (how != "pool") {
    // --quiet: the spec's `done` is the one line.
    const Json done = Json::parse(r.out, nullptr, false);
    QVERIFY2(!done.is_discarded() && done.value("event", "") == "done", r.out.c_str());
    QCOMPARE(done.value("exit_code", -1), 130);
  }
}

QTEST_GUILESS_MAIN(TestDist)
#include "tst_dist.moc"
