// TensorBoard event files (store/tensorboard.h): TFRecord framing with masked CRC-32C and a
// hand-written protocol-buffer encoding of tensorflow.Event and tensorflow.Summary.
#include "store/tensorboard.h"

#include <array>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "util/files.h"

namespace gb::tb {

namespace {

const std::array<uint32_t, 256>& crc_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// Protocol-buffer wire format: a key is (field number << 3) | wire type.
enum Wire : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_key(std::string& out, uint32_t field, Wire wire) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | wire);
}
void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_double(std::string& out, uint32_t field, double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  put_key(out, field, kFixed64);
  put_le(out, bits, 8);
}
void put_float(std::string& out, uint32_t field, float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  put_key(out, field, kFixed32);
  put_le(out, bits, 4);
}
void put_bytes(std::string& out, uint32_t field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}
// int64 fields are varints of the two's-complement value (10 bytes when negative).
void put_int64(std::string& out, uint32_t field, int64_t v) {
  put_key(out, field, kVarint);
  put_varint(out, static_cast<uint64_t>(v));
}

// Field numbers (event.proto, summary.proto).
constexpr uint32_t kEventWallTime = 1, kEventStep = 2, kEventFileVersion = 3, kEventSummary = 5;
constexpr uint32_t kSummaryValue = 1;
constexpr uint32_t kValueTag = 1, kValueSimpleValue = 2;

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto& t = crc_table();
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < size; ++i) c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t c = crc32c(data, size);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::string encode_file_version_event(double wall_time, const std::string& version) {
  std::string e;
  put_double(e, kEventWallTime, wall_time);
  put_bytes(e, kEventFileVersion, version);
  return e;
}

std::string encode_scalar_event(double wall_time, int64_t step, const std::string& tag,
                                float value) {
  std::string v;
  put_bytes(v, kValueTag, tag);
  put_float(v, kValueSimpleValue, value);
  std::string summary;
  put_bytes(summary, kSummaryValue, v);
  std::string e;
  put_double(e, kEventWallTime, wall_time);
  put_int64(e, kEventStep, step);
  put_bytes(e, kEventSummary, summary);
  return e;
}

std::string tfrecord(const std::string& data) {
  std::string r;
  r.reserve(data.size() + 16);
  std::string len;
  put_le(len, data.size(), 8);
  r += len;
  put_le(r, masked_crc32c(len.data(), len.size()), 4);
  r += data;
  put_le(r, masked_crc32c(data.data(), data.size()), 4);
  return r;
}

std::string event_file_name(double wall_time, const std::string& host) {
  return fmt::format("events.out.tfevents.{}.{}",
                     static_cast<int64_t>(std::floor(std::max(0.0, wall_time))),
                     host.empty() ? std::string("localhost") : host);
}

uint64_t write_event_file(const std::string& path, double start_time,
                          const std::vector<Scalar>& scalars) {
  std::string bytes = tfrecord(encode_file_version_event(start_time, "brain.Event:2"));
  for (const Scalar& s : scalars) {
    bytes += tfrecord(encode_scalar_event(s.wall_time, s.step, s.tag, static_cast<float>(s.value)));
  }
  write_file_atomic(path, bytes);
  return bytes.size();
}

}  // namespace gb::tb
