// safetensors reading and writing (core/model/safetensors.h) and the conversion to and from
// torch tensors (core/model/tensor_io.h): bit-exact round trips, header layout, sharded
// checkpoints, and a specific error for every kind of malformed file or index.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "test_util.h"
#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "util/error.h"
#include "util/files.h"

namespace st = gb::st;

Q_DECLARE_METATYPE(st::DType)
Q_DECLARE_METATYPE(torch::ScalarType)

namespace {

const st::DType kAllDTypes[] = {st::DType::BOOL, st::DType::U8,  st::DType::I8,   st::DType::I16,
                                st::DType::U16,  st::DType::F16, st::DType::BF16, st::DType::I32,
                                st::DType::U32,  st::DType::F32, st::DType::F64,  st::DType::I64,
                                st::DType::U64};

using gb::test::error_of;

// Fails the current test unless `message` contains every word of `expected`.
bool contains_all(const std::string& message, const QStringList& expected, QString* missing) {
  for (const QString& w : expected) {
    if (message.find(w.toStdString()) == std::string::npos) {
      *missing = w;
      return false;
    }
  }
  return true;
}

#define EXPECT_ERROR(message, words)                                                   \
  do {                                                                                 \
    const std::string msg_ = (message);                                                \
    QString missing_;                                                                  \
    QVERIFY2(contains_all(msg_, (words), &missing_),                                   \
             qPrintable(QString("expected '%1' in: %2").arg(missing_, msg_.c_str()))); \
  } while (0)

QByteArray le64(quint64 v) {
  QByteArray b(8, '\0');
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return b;
}

// A crafted file: the 8-byte header length (the header's size unless `n` is given), the
// header text, then `data_bytes` bytes of data.
QByteArray craft(const QByteArray& header, qint64 data_bytes,
                 std::optional<quint64> n = std::nullopt) {
  QByteArray out = le64(n.value_or(static_cast<quint64>(header.size())));
  out += header;
  out += QByteArray(static_cast<int>(data_bytes), '\xAB');
  return out;
}

std::string write_bytes(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) {
    qFatal("cannot write %s", qPrintable(path));
  }
  return path.toStdString();
}

QByteArray read_bytes(const std::string& path) {
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", path.c_str());
  return f.readAll();
}

// Random bytes for a tensor of `dtype`; BOOL bytes are 0 or 1, U64 values below 2^63.
std::vector<uint8_t> random_bytes(st::DType dtype, size_t n, quint32 seed) {
  QRandomGenerator rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng.bounded(256));
  if (dtype == st::DType::BOOL) {
    for (auto& b : out) b &= 1;
  }
  if (dtype == st::DType::U64) {  // below 2^63: larger values do not fit a torch type
    for (size_t i = 7; i < n; i += 8) out[i] &= 0x7F;
  }
  return out;
}

size_t numel_of(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

bool same_bytes(const torch::Tensor& a, const torch::Tensor& b) {
  torch::Tensor x = a.contiguous(), y = b.contiguous();
  return x.scalar_type() == y.scalar_type() && x.sizes() == y.sizes() &&
         std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

torch::Tensor sample(torch::ScalarType dtype, std::vector<int64_t> shape, int64_t seed) {
  torch::manual_seed(seed);
  torch::Tensor t = torch::randn(shape, torch::kDouble) * 100;
  if (dtype == torch::kBool) return t.gt(0);
  if (dtype == torch::kByte) return t.abs().to(dtype);
  return t.to(dtype);
}

// Files in `dir` other than those named.
QStringList stray_files(const QTemporaryDir& dir, const QStringList& expected) {
  QStringList out;
  for (const QString& f : QDir(dir.path()).entryList(QDir::Files)) {
    if (!expected.contains(f)) out << f;
  }
  return out;
}

const char* const kShard1 = "model-00001-of-00002.safetensors";
const char* const kShard2 = "model-00002-of-00002.safetensors";

// Two shards: a (2x3 f32), b (4 bf16) in the first; c (3 i64) in the second; and a third
// file, extra.safetensors, holding a second copy of a plus z.
void write_shards(const QTemporaryDir& dir) {
  auto a = sample(torch::kFloat, {2, 3}, 1), b = sample(torch::kBFloat16, {4}, 2);
  auto c = sample(torch::kLong, {3}, 3), z = sample(torch::kFloat, {1}, 4);
  st::write_tensors(dir.filePath(kShard1).toStdString(), {{"a", a}, {"b", b}}, {{"format", "pt"}});
  st::write_tensors(dir.filePath(kShard2).toStdString(), {{"c", c}});
  st::write_tensors(dir.filePath("extra.safetensors").toStdString(), {{"a", a}, {"z", z}});
}

QByteArray index_json(const QByteArray& weight_map) {
  return "{\"metadata\": {\"total_size\": 60}, \"weight_map\": " + weight_map + "}";
}

const QByteArray kGoodMap = QByteArray("{\"a\": \"") + kShard1 + "\", \"b\": \"" + kShard1 +
                            "\", \"c\": \"" + kShard2 + "\"}";

}  // namespace

class TestSafetensors : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { torch::set_num_threads(1); }

  void dtypeTableIsConsistent_data();
  void dtypeTableIsConsistent();
  void rawRoundTripIsBitExact_data();
  void rawRoundTripIsBitExact();
  void torchRoundTripIsBitExact_data();
  void torchRoundTripIsBitExact();
  void unsignedTypesWidenExactly_data();
  void unsignedTypesWidenExactly();
  void u64BeyondInt64IsRefused();
  void conversionMatchesTorch_data();
  void conversionMatchesTorch();
  void unalignedDataIsCopiedCorrectly_data();
  void unalignedDataIsCopiedCorrectly();
  void largeTensorCopiesExactlyWithThreads();
  void metadataRoundTrips_data();
  void metadataRoundTrips();
  void headerIsPaddedToMultipleOf8_data();
  void headerIsPaddedToMultipleOf8();
  void tensorsAreLaidOutInGivenOrder();
  void unusualButValidFileIsAccepted_data();
  void unusualButValidFileIsAccepted();
  void badFileIsRejected_data();
  void badFileIsRejected();
  void shardedCheckpointReadsBack();
  void badIndexIsRejected_data();
  void badIndexIsRejected();
  void singleFileIsPreferredOverIndex();
  void pickledCheckpointIsRefused_data();
  void pickledCheckpointIsRefused();
  void folderWithoutCheckpointIsRejected_data();
  void folderWithoutCheckpointIsRejected();
  void absentTensorLookupNamesIt();
  void badWriteIsRejectedAndKeepsOldFile_data();
  void badWriteIsRejectedAndKeepsOldFile();
  void cudaLoadMatchesCpu();
};

// ---------------------------------------------------------------------------------------

void TestSafetensors::dtypeTableIsConsistent_data() {
  QTest::addColumn<st::DType>("dtype");
  QTest::addColumn<QString>("name");
  QTest::addColumn<int>("size");
  const std::pair<const char*, int> expected[] = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2},
      {"I32", 4},  {"U32", 4}, {"F32", 4}, {"F64", 8}, {"I64", 8}, {"U64", 8}};
  int i = 0;
  for (st::DType d : kAllDTypes) {
    QTest::newRow(expected[i].first) << d << expected[i].first << expected[i].second;
    ++i;
  }
}

void TestSafetensors::dtypeTableIsConsistent() {
  QFETCH(st::DType, dtype);
  QFETCH(QString, name);
  QFETCH(int, size);
  QCOMPARE(QString(st::dtype_name(dtype)), name);
  QCOMPARE(static_cast<int>(st::dtype_size(dtype)), size);
  QCOMPARE(st::parse_dtype(name.toStdString(), "test"), dtype);
  // The torch type a dtype reads as is at least as wide and, for signed and float types,
  // the same width.
  const auto t = st::torch_dtype(dtype);
  QVERIFY(static_cast<int>(c10::elementSize(t)) >= size);
  if (dtype != st::DType::U16 && dtype != st::DType::U32)
    QCOMPARE(static_cast<int>(c10::elementSize(t)), size);
}

void TestSafetensors::rawRoundTripIsBitExact_data() {
  QTest::addColumn<st::DType>("dtype");
  QTest::addColumn<QVector<qint64>>("shape");
  for (st::DType d : kAllDTypes) {
    QTest::newRow(qPrintable(QString("%1 matrix").arg(st::dtype_name(d))))
        << d << QVector<qint64>{3, 5};
  }
  QTest::newRow("F32 scalar") << st::DType::F32 << QVector<qint64>{};
  QTest::newRow("BF16 empty") << st::DType::BF16 << QVector<qint64>{0, 4};
  QTest::newRow("I8 odd length") << st::DType::I8 << QVector<qint64>{7};
}

// Every dtype written by the torch-free writer reads back with the same dtype, shape and
// bytes; through to_tensor, types of the same width keep their bytes.
void TestSafetensors::rawRoundTripIsBitExact() {
  QFETCH(st::DType, dtype);
  QFETCH(QVector<qint64>, shape);
  QTemporaryDir dir;
  const std::vector<int64_t> dims(shape.begin(), shape.end());
  const size_t nbytes = numel_of(dims) * st::dtype_size(dtype);
  const auto bytes = random_bytes(dtype, nbytes, 7);
  const auto first = random_bytes(st::DType::U8, 8, 8);  // so that "t" does not start at 0
  const std::string path = dir.filePath("t.safetensors").toStdString();
  st::write(path, {{"first", st::DType::U8, {8}, first.data(), first.size()},
                   {"t", dtype, dims, bytes.data(), nbytes}});

  st::File f(path);
  QCOMPARE(f.header().tensors.size(), size_t{2});
  const st::TensorInfo& info = f.at("t");
  QCOMPARE(info.dtype, dtype);
  QCOMPARE(info.shape, dims);
  QCOMPARE(info.begin, uint64_t{8});
  QCOMPARE(info.end - info.begin, uint64_t{nbytes});
  QVERIFY(nbytes == 0 || std::memcmp(f.data(info), bytes.data(), nbytes) == 0);
  QVERIFY(std::memcmp(f.data(f.at("first")), first.data(), first.size()) == 0);

  torch::Tensor t;
  {
    st::File g(path);  // the tensor must own its data: it outlives the map
    t = st::to_tensor(g.at("t"), g.data(g.at("t")));
  }
  QCOMPARE(t.sizes().vec(), dims);
  QCOMPARE(t.scalar_type(), st::torch_dtype(dtype));
  if (c10::elementSize(t.scalar_type()) == st::dtype_size(dtype) && nbytes > 0) {
    QVERIFY(std::memcmp(t.data_ptr(), bytes.data(), nbytes) == 0);
  }
}

void TestSafetensors::torchRoundTripIsBitExact_data() {
  QTest::addColumn<torch::ScalarType>("dtype");
  QTest::addColumn<bool>("transposed");
  QTest::newRow("float32") << torch::kFloat << false;
  QTest::newRow("float16") << torch::kHalf << false;
  QTest::newRow("bfloat16") << torch::kBFloat16 << false;
  QTest::newRow("float64") << torch::kDouble << false;
  QTest::newRow("int8") << torch::kChar << false;
  QTest::newRow("int16") << torch::kShort << false;
  QTest::newRow("int32") << torch::kInt << false;
  QTest::newRow("int64") << torch::kLong << false;
  QTest::newRow("uint8") << torch::kByte << false;
  QTest::newRow("bool") << torch::kBool << false;
  QTest::newRow("float32 non-contiguous") << torch::kFloat << true;
}

void TestSafetensors::torchRoundTripIsBitExact() {
  QFETCH(torch::ScalarType, dtype);
  QFETCH(bool, transposed);
  QTemporaryDir dir;
  torch::Tensor w = sample(dtype, {6, 5}, 11);
  if (transposed) w = w.t();
  torch::Tensor b = sample(torch::kFloat, {4}, 12);
  const std::string path = dir.filePath("t.safetensors").toStdString();
  st::write_tensors(path, {{"w", w}, {"b", b}});

  auto all = st::read_all(path);
  QCOMPARE(all.size(), size_t{2});
  QVERIFY(same_bytes(all.at("w"), w));
  QVERIFY(same_bytes(all.at("b"), b));
  QCOMPARE(st::File(path).at("w").dtype, st::from_torch_dtype(dtype, "test"));
}

void TestSafetensors::unsignedTypesWidenExactly_data() {
  QTest::addColumn<st::DType>("dtype");
  QTest::addColumn<QVector<quint64>>("values");
  QTest::addColumn<torch::ScalarType>("expected");
  QTest::newRow("U8 stays uint8") << st::DType::U8 << QVector<quint64>{0, 200, 255} << torch::kByte;
  QTest::newRow("U16 widens to int32")
      << st::DType::U16 << QVector<quint64>{0, 1, 32767, 32768, 65535} << torch::kInt;
  QTest::newRow("U32 widens to int64")
      << st::DType::U32 << QVector<quint64>{0, 2147483647ULL, 2147483648ULL, 4294967295ULL}
      << torch::kLong;
  QTest::newRow("U64 below 2^63 reads as int64")
      << st::DType::U64 << QVector<quint64>{0, 1, 9223372036854775807ULL} << torch::kLong;
}

void TestSafetensors::unsignedTypesWidenExactly() {
  QFETCH(st::DType, dtype);
  QFETCH(QVector<quint64>, values);
  QFETCH(torch::ScalarType, expected);
  const size_t size = st::dtype_size(dtype);
  std::vector<uint8_t> bytes;
  for (quint64 v : values) {
    for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  QTemporaryDir dir;
  const std::string path = dir.filePath("u.safetensors").toStdString();
  st::write(path, {{"u", dtype, {values.size()}, bytes.data(), bytes.size()}});
  st::File f(path);
  torch::Tensor t = st::to_tensor(f.at("u"), f.data(f.at("u")));
  QCOMPARE(t.scalar_type(), expected);
  torch::Tensor as64 = t.to(torch::kLong);
  for (int i = 0; i < values.size(); ++i) {
    QCOMPARE(static_cast<quint64>(as64[i].item<int64_t>()), values[i]);
  }
}

void TestSafetensors::u64BeyondInt64IsRefused() {
  const uint64_t v = 9223372036854775808ULL;  // 2^63
  QTemporaryDir dir;
  const std::string path = dir.filePath("u.safetensors").toStdString();
  st::write(path, {{"big", st::DType::U64, {1}, &v, 8}});
  st::File f(path);
  EXPECT_ERROR(error_of([&] { st::to_tensor(f.at("big"), f.data(f.at("big"))); }),
               (QStringList{"tensor 'big'", "2^63", "int64"}));
}

void TestSafetensors::conversionMatchesTorch_data() {
  QTest::addColumn<torch::ScalarType>("from");
  QTest::addColumn<torch::ScalarType>("to");
  QTest::newRow("bf16 file to float32") << torch::kBFloat16 << torch::kFloat;
  QTest::newRow("f16 file to float32") << torch::kHalf << torch::kFloat;
  QTest::newRow("f32 file to bfloat16") << torch::kFloat << torch::kBFloat16;
  QTest::newRow("f32 file to float16") << torch::kFloat << torch::kHalf;
  QTest::newRow("f64 file to float32") << torch::kDouble << torch::kFloat;
  QTest::newRow("f32 file to float64") << torch::kFloat << torch::kDouble;
  QTest::newRow("i64 file to float32") << torch::kLong << torch::kFloat;
  QTest::newRow("bool file to float32") << torch::kBool << torch::kFloat;
}

void TestSafetensors::conversionMatchesTorch() {
  QFETCH(torch::ScalarType, from);
  QFETCH(torch::ScalarType, to);
  QTemporaryDir dir;
  torch::Tensor t = sample(from, {33, 17}, 5);
  const std::string path = dir.filePath("c.safetensors").toStdString();
  st::write_tensors(path, {{"t", t}});
  st::File f(path);
  torch::Tensor r = st::to_tensor(f.at("t"), f.data(f.at("t")), to);
  QCOMPARE(r.scalar_type(), to);
  QVERIFY(same_bytes(r, t.to(to)));
}

void TestSafetensors::unalignedDataIsCopiedCorrectly_data() {
  QTest::addColumn<torch::ScalarType>("dtype");
  QTest::addColumn<int>("pad");
  QTest::addColumn<bool>("convert");
  QTest::addColumn<torch::ScalarType>("target");
  QTest::newRow("f32 at byte 1") << torch::kFloat << 1 << false << torch::kFloat;
  QTest::newRow("f32 at byte 3 to bfloat16") << torch::kFloat << 3 << true << torch::kBFloat16;
  QTest::newRow("bf16 at byte 1 to float32") << torch::kBFloat16 << 1 << true << torch::kFloat;
  QTest::newRow("f16 at byte 7 to float32") << torch::kHalf << 7 << true << torch::kFloat;
  QTest::newRow("f64 at byte 4") << torch::kDouble << 4 << false << torch::kDouble;
  QTest::newRow("i64 at byte 5 to float32") << torch::kLong << 5 << true << torch::kFloat;
}

void TestSafetensors::unalignedDataIsCopiedCorrectly() {
  QFETCH(torch::ScalarType, dtype);
  QFETCH(int, pad);
  QFETCH(bool, convert);
  QFETCH(torch::ScalarType, target);
  QTemporaryDir dir;
  torch::Tensor t = sample(dtype, {9, 7}, 21);
  const std::string path = dir.filePath("u.safetensors").toStdString();
  st::write_tensors(path, {{"pad", torch::zeros({pad}, torch::kByte)}, {"t", t}});
  st::File f(path);
  const uint8_t* p = f.data(f.at("t"));
  QVERIFY2(reinterpret_cast<uintptr_t>(p) % c10::elementSize(dtype) != 0,
           "test premise: the tensor's data must be unaligned");
  const c10::optional<torch::ScalarType> to =
      convert ? c10::optional<torch::ScalarType>(target) : c10::nullopt;
  torch::Tensor r = st::to_tensor(f.at("t"), p, to);
  QVERIFY(same_bytes(r, convert ? t.to(target) : t));
}

// Tensors of several MB (huge-page backed results, torch's copy kernel split over several
// threads) come out exact, aligned or not, converted or not.
void TestSafetensors::largeTensorCopiesExactlyWithThreads() {
  const int threads = torch::get_num_threads();
  torch::set_num_threads(4);
  QTemporaryDir dir;
  torch::Tensor big = sample(torch::kFloat, {(9 << 20) / 4 + 13}, 31);
  torch::Tensor half = big.to(torch::kBFloat16);
  const std::string path = dir.filePath("big.safetensors").toStdString();
  st::write_tensors(path, {{"aligned", big},
                           {"pad", torch::zeros({1}, torch::kByte)},
                           {"unaligned", big},
                           {"bf16", half}});
  st::File f(path);
  for (const char* name : {"aligned", "unaligned"}) {
    const st::TensorInfo& info = f.at(name);
    QVERIFY2(same_bytes(st::to_tensor(info, f.data(info)), big), name);
    QVERIFY2(same_bytes(st::to_tensor(info, f.data(info), torch::kBFloat16), half), name);
  }
  QVERIFY(same_bytes(st::to_tensor(f.at("bf16"), f.data(f.at("bf16")), torch::kFloat),
                     half.to(torch::kFloat)));
  torch::set_num_threads(threads);
}

void TestSafetensors::metadataRoundTrips_data() {
  QTest::addColumn<QStringList>("pairs");
  QTest::newRow("no metadata") << QStringList{};
  QTest::newRow("one entry") << QStringList{"format", "pt"};
  QTest::newRow("unicode, quotes, control characters and empty values") << QStringList{
      "ünïcödé €", "😀 value", "quote \" and \\ backslash", "line\nbreak\ttab", "empty", ""};
}

void TestSafetensors::metadataRoundTrips() {
  QFETCH(QStringList, pairs);
  std::map<std::string, std::string> metadata;
  for (int i = 0; i + 1 < pairs.size(); i += 2) {
    metadata[pairs[i].toStdString()] = pairs[i + 1].toStdString();
  }
  QTemporaryDir dir;
  const std::string path = dir.filePath("m.safetensors").toStdString();
  const float x[2] = {1.f, 2.f};
  st::write(path, {{"x", st::DType::F32, {2}, x, sizeof x}}, metadata);
  QVERIFY(st::File(path).header().metadata == metadata);
  QVERIFY(st::Checkpoint(path).metadata() == metadata);
  // `__metadata__` is written only when there is metadata.
  const QByteArray bytes = read_bytes(path);
  const QByteArray header = bytes.mid(8, static_cast<int>(st::File(path).header().header_size));
  QCOMPARE(header.contains("__metadata__"), !metadata.empty());
}

void TestSafetensors::headerIsPaddedToMultipleOf8_data() {
  QTest::addColumn<int>("name_length");
  // Eight consecutive name lengths give eight consecutive header lengths: every padding
  // amount from 0 to 7 occurs.
  for (int n = 1; n <= 8; ++n) QTest::newRow(qPrintable(QString("name of %1 chars").arg(n))) << n;
}

void TestSafetensors::headerIsPaddedToMultipleOf8() {
  QFETCH(int, name_length);
  QTemporaryDir dir;
  const std::string path = dir.filePath("p.safetensors").toStdString();
  const std::string name(static_cast<size_t>(name_length), 'x');
  const double x[1] = {3.25};
  st::write(path, {{name, st::DType::F64, {1}, x, sizeof x}});
  const QByteArray bytes = read_bytes(path);
  quint64 n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  QCOMPARE(n % 8, quint64{0});
  QCOMPARE(static_cast<quint64>(bytes.size()), static_cast<quint64>(8 + n + sizeof x));
  const QByteArray header = bytes.mid(8, static_cast<int>(n));
  const int close = header.lastIndexOf('}');
  QVERIFY(close >= 0);
  const int padding = header.size() - close - 1;
  QVERIFY2(padding < 8, qPrintable(QString("%1 bytes of padding").arg(padding)));
  QCOMPARE(header.mid(close + 1), QByteArray(padding, ' '));
  QVERIFY(std::memcmp(bytes.constData() + 8 + n, x, sizeof x) == 0);
  QCOMPARE(st::File(path).at(name).shape, std::vector<int64_t>{1});
}

void TestSafetensors::tensorsAreLaidOutInGivenOrder() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("o.safetensors").toStdString();
  const uint8_t c[4] = {1, 2, 3, 4}, a[8] = {5}, b[2] = {6, 7};
  st::write(path, {{"c", st::DType::U8, {4}, c, 4},
                   {"a", st::DType::U8, {8}, a, 8},
                   {"b", st::DType::U8, {2}, b, 2}});
  st::File f(path);
  const auto& t = f.header().tensors;  // ordered by offsets
  QCOMPARE(t.size(), size_t{3});
  QCOMPARE(QString::fromStdString(t[0].name + t[1].name + t[2].name), QString("cab"));
  QCOMPARE(f.at("c").begin, uint64_t{0});
  QCOMPARE(f.at("a").begin, uint64_t{4});
  QCOMPARE(f.at("b").begin, uint64_t{12});
  QCOMPARE(f.at("b").end, uint64_t{14});
  QVERIFY(std::memcmp(f.data(f.at("b")), b, 2) == 0);
}

namespace {

QByteArray entry(const char* name, const char* dtype, const char* shape, const char* offsets) {
  return QByteArray("\"") + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": " + shape +
         ", \"data_offsets\": " + offsets + "}";
}

QByteArray object(const QList<QByteArray>& members) {
  return "{" + members.join(", ") + "}";
}

}  // namespace

void TestSafetensors::unusualButValidFileIsAccepted_data() {
  QTest::addColumn<QByteArray>("header");
  QTest::addColumn<int>("data_bytes");
  QTest::addColumn<QStringList>("names");
  QTest::newRow("empty header object") << QByteArray("{}") << 0 << QStringList{};
  QTest::newRow("zero-size tensor")
      << object({entry("e", "F32", "[0, 3]", "[0, 0]")}) << 0 << QStringList{"e"};
  QTest::newRow("scalar tensor") << object({entry("s", "F64", "[]", "[0, 8]")}) << 8
                                 << QStringList{"s"};
  QTest::newRow("null metadata") << object({"\"__metadata__\": null",
                                            entry("s", "F32", "[]", "[0, 4]")})
                                 << 4 << QStringList{"s"};
  QTest::newRow("entries not in offset order")
      << object({entry("b", "U8", "[2]", "[2, 4]"), entry("a", "U8", "[2]", "[0, 2]")}) << 4
      << QStringList{"a", "b"};
  QTest::newRow("zero-size tensor between others")
      << object({entry("a", "U8", "[2]", "[0, 2]"), entry("e", "U8", "[0]", "[2, 2]"),
                 entry("b", "U8", "[2]", "[2, 4]")})
      << 4 << QStringList{"a", "e", "b"};
  QTest::newRow("header padded with whitespace")
      << object({entry("s", "I32", "[1]", "[0, 4]")}) + "  \n\t " << 4 << QStringList{"s"};
}

void TestSafetensors::unusualButValidFileIsAccepted() {
  QFETCH(QByteArray, header);
  QFETCH(int, data_bytes);
  QFETCH(QStringList, names);
  QTemporaryDir dir;
  const std::string path = write_bytes(dir, "ok.safetensors", craft(header, data_bytes));
  const std::string error = error_of([&] {
    st::File f(path);
    QStringList got;
    for (const auto& t : f.header().tensors) got << QString::fromStdString(t.name);
    if (got != names) throw gb::Error("names: " + got.join(",").toStdString());
  });
  QCOMPARE(QString::fromStdString(error), QString("NO ERROR"));
}

void TestSafetensors::badFileIsRejected_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<QStringList>("expected");
  const QByteArray f32x4 = entry("w", "F32", "[4]", "[0, 16]");

  QTest::newRow("empty file") << QByteArray() << QStringList{"0 bytes", "shorter than the 8-byte"};
  QTest::newRow("file shorter than 8 bytes")
      << QByteArray("\x10\0\0", 3) << QStringList{"3 bytes", "shorter than the 8-byte"};
  QTest::newRow("header length past the end of the file")
      << craft("{}", 90, 1000) << QStringList{"header length 1000", "past the end of the file"};
  QTest::newRow("header length absurdly large")
      << craft("{}", 0, 200000000) << QStringList{"200000000", "absurdly large"};
  QTest::newRow("header length near 2^64")
      << craft("{}", 0, ~quint64{1}) << QStringList{"18446744073709551614", "absurdly large"};
  QTest::newRow("empty header") << craft("", 0) << QStringList{"not valid JSON"};
  QTest::newRow("header not valid JSON")
      << craft("{\"w\": {\"dtype\": \"F32\",", 0) << QStringList{"not valid JSON"};
  QTest::newRow("header not valid UTF-8")
      << craft("{\"\xff\xfe\": 1}", 0) << QStringList{"not valid JSON"};
  QTest::newRow("number too large for JSON")
      << craft(object({entry("w", "F32", "[1e999]", "[0, 4]")}), 4)
      << QStringList{"not valid JSON"};
  QTest::newRow("header not an object")
      << craft("[1, 2]", 0) << QStringList{"must be a JSON object", "an array"};
  QTest::newRow("entry not an object")
      << craft("{\"w\": [1]}", 0) << QStringList{"tensor 'w'", "expected an object"};
  QTest::newRow("entry missing dtype")
      << craft("{\"w\": {\"shape\": [4], \"data_offsets\": [0, 16]}}", 16)
      << QStringList{"tensor 'w'", "missing 'dtype'"};
  QTest::newRow("entry missing shape")
      << craft("{\"w\": {\"dtype\": \"F32\", \"data_offsets\": [0, 16]}}", 16)
      << QStringList{"tensor 'w'", "missing 'shape'"};
  QTest::newRow("entry missing data_offsets")
      << craft("{\"w\": {\"dtype\": \"F32\", \"shape\": [4]}}", 16)
      << QStringList{"tensor 'w'", "missing 'data_offsets'"};
  QTest::newRow("entry with an extra key")
      << craft(
             "{\"w\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16], "
             "\"offsets\": [0, 16]}}",
             16)
      << QStringList{"tensor 'w'", "unexpected key 'offsets'"};
  QTest::newRow("dtype not a string")
      << craft("{\"w\": {\"dtype\": 5, \"shape\": [4], \"data_offsets\": [0, 16]}}", 16)
      << QStringList{"tensor 'w'", "'dtype' must be a string", "an integer"};
  QTest::newRow("unknown dtype") << craft(object({entry("w", "F128", "[4]", "[0, 16]")}), 16)
                                 << QStringList{"tensor 'w'", "unknown dtype 'F128'", "BF16"};
  QTest::newRow("F8 dtype unsupported")
      << craft(object({entry("w", "F8_E4M3", "[4]", "[0, 4]")}), 4)
      << QStringList{"tensor 'w'", "dtype 'F8_E4M3' is not supported"};
  QTest::newRow("shape not an array")
      << craft(object({entry("w", "F32", "4", "[0, 16]")}), 16)
      << QStringList{"tensor 'w'", "'shape' must be an array", "an integer"};
  QTest::newRow("shape with a fraction")
      << craft(object({entry("w", "F32", "[2.5]", "[0, 10]")}), 10)
      << QStringList{"tensor 'w'", "dimension 0", "non-negative integer", "a number"};
  QTest::newRow("negative dimension")
      << craft(object({entry("w", "F32", "[2, -3]", "[0, 24]")}), 24)
      << QStringList{"tensor 'w'", "dimension 1", "is negative (-3)"};
  QTest::newRow("data_offsets with one number")
      << craft(object({entry("w", "F32", "[4]", "[16]")}), 16)
      << QStringList{"tensor 'w'", "'data_offsets' must be an array of two", "[16]"};
  QTest::newRow("negative data_offsets")
      << craft(object({entry("w", "F32", "[4]", "[-16, 0]")}), 16)
      << QStringList{"tensor 'w'", "'data_offsets' must be an array of two", "[-16,0]"};
  QTest::newRow("data_offsets end before begin")
      << craft(object({entry("w", "F32", "[1]", "[8, 4]")}), 8)
      << QStringList{"tensor 'w'", "[8, 4]", "end before they begin"};
  QTest::newRow("element count overflows")
      << craft(object({entry("w", "F32", "[4294967296, 4294967296, 16]", "[0, 4]")}), 4)
      << QStringList{"tensor 'w'", "[4294967296, 4294967296, 16]", "overflows"};
  QTest::newRow("byte count overflows")
      << craft(object({entry("w", "F32", "[4611686018427387904]", "[0, 4]")}), 4)
      << QStringList{"tensor 'w'", "of F32 overflows"};
  QTest::newRow("byte span disagrees with shape")
      << craft(object({entry("w", "F32", "[2, 3]", "[0, 20]")}), 20)
      << QStringList{"tensor 'w'", "needs 24 bytes", "[0, 20] span 20 bytes"};
  QTest::newRow("offsets past the data section")
      << craft(object({f32x4}), 8)
      << QStringList{"tensor 'w'", "past the end of the data section", "holds 8 bytes"};
  QTest::newRow("overlapping tensors")
      << craft(object({entry("a", "F32", "[4]", "[0, 16]"), entry("b", "F32", "[4]", "[8, 24]")}),
               24)
      << QStringList{"'a' (bytes [0, 16))", "'b' (bytes [8, 24))", "overlap"};
  QTest::newRow("zero-size tensor inside another")
      << craft(object({entry("a", "F32", "[4]", "[0, 16]"), entry("e", "F32", "[0]", "[4, 4]")}),
               16)
      << QStringList{"'a'", "'e'", "overlap"};
  QTest::newRow("hole between tensors")
      << craft(object({entry("a", "F32", "[2]", "[0, 8]"), entry("b", "F32", "[2]", "[16, 24]")}),
               24)
      << QStringList{"bytes [8, 16)", "before tensor 'b'", "belong to no tensor"};
  QTest::newRow("hole before the first tensor")
      << craft(object({entry("a", "F32", "[2]", "[8, 16]")}), 16)
      << QStringList{"bytes [0, 8)", "before tensor 'a'", "belong to no tensor"};
  QTest::newRow("trailing bytes after the last tensor")
      << craft(object({entry("a", "F32", "[2]", "[0, 8]")}), 12)
      << QStringList{"data section has 12 bytes", "4 trailing bytes"};
  QTest::newRow("data without tensors")
      << craft("{}", 4) << QStringList{"data section has 4 bytes", "4 trailing bytes"};
  QTest::newRow("metadata value not a string")
      << craft(object({"\"__metadata__\": {\"format\": \"pt\", \"step\": 3}", f32x4}), 16)
      << QStringList{"'__metadata__' value of 'step' must be a string", "an integer"};
  QTest::newRow("metadata not an object")
      << craft(object({"\"__metadata__\": [\"pt\"]", f32x4}), 16)
      << QStringList{"'__metadata__' must be an object", "an array"};
  QTest::newRow("duplicate tensor name")
      << craft(object({entry("w", "F32", "[2]", "[0, 8]"), entry("w", "F32", "[2]", "[8, 16]")}),
               16)
      << QStringList{"key 'w' appears twice", "safetensors header"};
  QTest::newRow("duplicate key inside an entry")
      << craft(
             "{\"w\": {\"dtype\": \"F32\", \"dtype\": \"F16\", \"shape\": [4], "
             "\"data_offsets\": [0, 16]}}",
             16)
      << QStringList{"key 'dtype' appears twice in 'w'"};
}

void TestSafetensors::badFileIsRejected() {
  QFETCH(QByteArray, bytes);
  QFETCH(QStringList, expected);
  QTemporaryDir dir;
  const std::string path = write_bytes(dir, "crafted.safetensors", bytes);
  EXPECT_ERROR(error_of([&] { st::File f(path); }), expected + QStringList{"crafted.safetensors"});
  // parse_header on the bytes in memory gives the same verdict, naming the source given.
  EXPECT_ERROR(error_of([&] {
                 st::parse_header(reinterpret_cast<const uint8_t*>(bytes.constData()),
                                  static_cast<size_t>(bytes.size()), "in-memory");
               }),
               expected + QStringList{"in-memory"});
}

void TestSafetensors::shardedCheckpointReadsBack() {
  QTemporaryDir dir;
  write_shards(dir);
  write_bytes(dir, "model.safetensors.index.json", index_json(kGoodMap));
  st::Checkpoint ck(dir.path().toStdString());
  QCOMPARE(ck.names(), (std::vector<std::string>{"a", "b", "c"}));
  QVERIFY(ck.contains("b") && !ck.contains("z"));
  QVERIFY(QString::fromStdString(ck.file_of("a")).endsWith(kShard1));
  QVERIFY(QString::fromStdString(ck.file_of("c")).endsWith(kShard2));
  QCOMPARE(ck.total_bytes(), uint64_t{2 * 3 * 4 + 4 * 2 + 3 * 8});
  QVERIFY((ck.metadata() == std::map<std::string, std::string>{{"format", "pt"}}));

  auto all = st::read_all(dir.path().toStdString());
  QCOMPARE(all.size(), size_t{3});
  QVERIFY(same_bytes(all.at("a"), sample(torch::kFloat, {2, 3}, 1)));
  QVERIFY(same_bytes(all.at("b"), sample(torch::kBFloat16, {4}, 2)));
  QVERIFY(same_bytes(all.at("c"), sample(torch::kLong, {3}, 3)));
  QVERIFY(same_bytes(st::to_tensor(ck, "b", torch::kFloat),
                     sample(torch::kBFloat16, {4}, 2).to(torch::kFloat)));
  auto as_f32 = st::read_all(dir.path().toStdString(), torch::kFloat);
  QCOMPARE(as_f32.at("c").scalar_type(), torch::kFloat);
}

void TestSafetensors::badIndexIsRejected_data() {
  QTest::addColumn<QByteArray>("index");
  QTest::addColumn<QStringList>("expected");
  const QByteArray s1 = QByteArray("\"") + kShard1 + "\"";
  const QByteArray s2 = QByteArray("\"") + kShard2 + "\"";
  QTest::newRow("index points at a missing shard")
      << index_json("{\"a\": " + s1 + ", \"b\": " + s1 +
                    ", \"c\": \"model-00003-of-00003.safetensors\"}")
      << QStringList{"shard 'model-00003-of-00003.safetensors'", "'c'", "does not exist"};
  QTest::newRow("index lists a tensor the shard lacks")
      << index_json("{\"a\": " + s1 + ", \"b\": " + s1 + ", \"c\": " + s2 + ", \"d\": " + s2 + "}")
      << QStringList{"tensor 'd'", kShard2, "does not hold it"};
  QTest::newRow("shard holds a tensor the index omits")
      << index_json("{\"a\": " + s1 + ", \"c\": " + s2 + "}")
      << QStringList{"holds tensor 'b'", "does not list"};
  QTest::newRow("tensor stored in two shards")
      << index_json("{\"a\": " + s1 + ", \"b\": " + s1 + ", \"c\": " + s2 +
                    ", \"z\": \"extra.safetensors\"}")
      << QStringList{"tensor 'a'", "extra.safetensors", "exactly one shard"};
  QTest::newRow("tensor listed twice in the weight_map")
      << index_json("{\"a\": " + s1 + ", \"b\": " + s1 + ", \"c\": " + s2 + ", \"a\": " + s2 + "}")
      << QStringList{"key 'a' appears twice in 'weight_map'"};
  QTest::newRow("no weight_map") << QByteArray("{\"metadata\": {}}")
                                 << QStringList{"no 'weight_map'"};
  QTest::newRow("weight_map not an object")
      << index_json("[]") << QStringList{"'weight_map' must be an object", "an array"};
  QTest::newRow("empty weight_map") << index_json("{}") << QStringList{"lists no tensors"};
  QTest::newRow("shard name not a string")
      << index_json("{\"a\": 1}") << QStringList{"tensor 'a'", "must be a shard file name"};
  QTest::newRow("shard outside the folder")
      << index_json(QByteArray("{\"a\": \"../") + kShard1 + "\"}")
      << QStringList{"tensor 'a'", "not a plain file name"};
  QTest::newRow("index not valid JSON")
      << QByteArray("{\"weight_map\": {") << QStringList{"not valid JSON"};
  QTest::newRow("index not an object")
      << QByteArray("[]") << QStringList{"must be a JSON object", "an array"};
}

void TestSafetensors::badIndexIsRejected() {
  QFETCH(QByteArray, index);
  QFETCH(QStringList, expected);
  QTemporaryDir dir;
  write_shards(dir);
  write_bytes(dir, "model.safetensors.index.json", index);
  EXPECT_ERROR(error_of([&] { st::Checkpoint ck(dir.path().toStdString()); }),
               expected + QStringList{"model.safetensors.index.json"});
}

void TestSafetensors::singleFileIsPreferredOverIndex() {
  QTemporaryDir dir;
  write_shards(dir);
  write_bytes(dir, "model.safetensors.index.json", index_json(kGoodMap));
  st::write_tensors(dir.filePath("model.safetensors").toStdString(), {{"x", torch::ones({2})}});
  st::Checkpoint ck(dir.path().toStdString());
  QCOMPARE(ck.names(), std::vector<std::string>{"x"});
}

void TestSafetensors::pickledCheckpointIsRefused_data() {
  QTest::addColumn<QStringList>("files");
  QTest::addColumn<QString>("open");  // relative path to open; empty: the folder
  QTest::newRow("pytorch_model.bin")
      << QStringList{"pytorch_model.bin", "config.json"} << QString();
  QTest::newRow("sharded .bin with index")
      << QStringList{"pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin",
                     "pytorch_model.bin.index.json"}
      << QString();
  QTest::newRow("model.pt") << QStringList{"model.pt"} << QString();
  QTest::newRow("consolidated .pth") << QStringList{"consolidated.00.pth"} << QString();
  QTest::newRow("pickled file opened directly")
      << QStringList{"pytorch_model.bin"} << QString("pytorch_model.bin");
}

void TestSafetensors::pickledCheckpointIsRefused() {
  QFETCH(QStringList, files);
  QFETCH(QString, open);
  QTemporaryDir dir;
  for (const QString& f : files) write_bytes(dir, f, QByteArray("\x80\x02}q\x00.", 6));
  const std::string target =
      open.isEmpty() ? dir.path().toStdString() : dir.filePath(open).toStdString();
  EXPECT_ERROR(error_of([&] { st::Checkpoint ck(target); }),
               (QStringList{files.first(), "pickled", "arbitrary code", "reads only safetensors",
                            "save_pretrained", "safe_serialization=True"}));
}

void TestSafetensors::folderWithoutCheckpointIsRejected_data() {
  QTest::addColumn<QStringList>("files");
  QTest::addColumn<bool>("exists");
  QTest::addColumn<QStringList>("expected");
  QTest::newRow("empty folder") << QStringList{} << true
                                << QStringList{"no model.safetensors", "nothing"};
  QTest::newRow("only config.json")
      << QStringList{"config.json"} << true << QStringList{"no model.safetensors", "'config.json'"};
  QTest::newRow("other safetensors file only")
      << QStringList{"adapter_model.safetensors"} << true
      << QStringList{"'adapter_model.safetensors'", "pass the path of one .safetensors file"};
  QTest::newRow("missing folder") << QStringList{} << false << QStringList{"does not exist"};
}

void TestSafetensors::folderWithoutCheckpointIsRejected() {
  QFETCH(QStringList, files);
  QFETCH(bool, exists);
  QFETCH(QStringList, expected);
  QTemporaryDir dir;
  for (const QString& f : files) write_bytes(dir, f, "{}");
  const std::string folder =
      exists ? dir.path().toStdString() : dir.filePath("no-such-model").toStdString();
  EXPECT_ERROR(error_of([&] { st::Checkpoint ck(folder); }),
               expected + QStringList{QString::fromStdString(folder)});
}

void TestSafetensors::absentTensorLookupNamesIt() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("model.safetensors").toStdString();
  st::write_tensors(path, {{"present", torch::ones({2})}});
  st::File f(path);
  QVERIFY(f.find("nope") == nullptr);
  EXPECT_ERROR(error_of([&] { f.at("nope"); }),
               (QStringList{"model.safetensors", "no tensor 'nope'", "'present'"}));
  st::Checkpoint ck(dir.path().toStdString());
  const QStringList words{dir.path(), "no tensor 'nope'"};
  EXPECT_ERROR(error_of([&] { ck.info("nope"); }), words);
  EXPECT_ERROR(error_of([&] { ck.data("nope"); }), words);
  EXPECT_ERROR(error_of([&] { ck.file_of("nope"); }), words);
  EXPECT_ERROR(error_of([&] { st::to_tensor(ck, "nope"); }), words);
}

void TestSafetensors::badWriteIsRejectedAndKeepsOldFile_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<QStringList>("expected");
  QTest::newRow("duplicate tensor names")
      << "duplicate" << QStringList{"tensor 'w'", "given twice"};
  QTest::newRow("reserved name __metadata__")
      << "reserved" << QStringList{"'__metadata__' is reserved"};
  QTest::newRow("byte count disagrees with shape")
      << "nbytes" << QStringList{"tensor 'w'", "needs 24 bytes", "but 20 bytes were given"};
  QTest::newRow("negative dimension") << "negative" << QStringList{"negative dimension"};
  QTest::newRow("torch dtype the format cannot hold")
      << "complex" << QStringList{"tensor 'w'", "cannot be stored"};
  QTest::newRow("undefined torch tensor") << "undefined" << QStringList{"tensor 'w'", "undefined"};
}

void TestSafetensors::badWriteIsRejectedAndKeepsOldFile() {
  QFETCH(QString, kind);
  QFETCH(QStringList, expected);
  QTemporaryDir dir;
  const std::string path = dir.filePath("out.safetensors").toStdString();
  st::write_tensors(path, {{"old", torch::ones({3})}});
  const float data[6] = {};
  const std::string error = error_of([&] {
    if (kind == "duplicate") {
      st::write(path, {{"w", st::DType::F32, {1}, data, 4}, {"w", st::DType::F32, {1}, data, 4}});
    } else if (kind == "reserved") {
      st::write(path, {{"__metadata__", st::DType::F32, {1}, data, 4}});
    } else if (kind == "nbytes") {
      st::write(path, {{"w", st::DType::F32, {2, 3}, data, 20}});
    } else if (kind == "negative") {
      st::write(path, {{"w", st::DType::F32, {-1}, data, 0}});
    } else if (kind == "complex") {
      st::write_tensors(path, {{"w", torch::ones({2}, torch::kComplexFloat)}});
    } else if (kind == "undefined") {
      st::write_tensors(path, {{"w", torch::Tensor()}});
    }
  });
  EXPECT_ERROR(error, expected + QStringList{"out.safetensors"});
  st::File f(path);
  QCOMPARE(f.header().tensors.size(), size_t{1});
  QVERIFY(f.find("old") != nullptr);
  QCOMPARE(stray_files(dir, {"out.safetensors"}), QStringList{});
}

void TestSafetensors::cudaLoadMatchesCpu() {
  if (!torch::cuda::is_available()) QSKIP("CUDA is not available");
  QTemporaryDir dir;
  torch::Tensor t = sample(torch::kBFloat16, {64, 33}, 41);
  const std::string path = dir.filePath("g.safetensors").toStdString();
  st::write_tensors(path,
                    {{"aligned", t}, {"pad", torch::zeros({1}, torch::kByte)}, {"unaligned", t}});
  st::File f(path);
  for (const char* name : {"aligned", "unaligned"}) {
    const st::TensorInfo& info = f.at(name);
    torch::Tensor g = st::to_tensor(info, f.data(info), torch::kFloat, torch::kCUDA);
    QVERIFY(g.is_cuda());
    QVERIFY2(same_bytes(g.cpu(), t.to(torch::kFloat)), name);
    torch::Tensor n = st::to_tensor(info, f.data(info), c10::nullopt, torch::kCUDA);
    QVERIFY2(same_bytes(n.cpu(), t), name);
  }
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
