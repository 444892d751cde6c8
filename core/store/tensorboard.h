#pragma once
// TensorBoard event files, written without a protobuf library.
//
// An event file ("events.out.tfevents.<seconds>.<host>") is a TFRecord stream: each record is
//   uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes,
//   `length` bytes of data, uint32 masked CRC-32C of the data,
// where mask(c) = ((c >> 15) | (c << 17)) + 0xa282ead8 (32-bit arithmetic). Each record's
// data is a serialised tensorflow.Event (tensorflow/core/util/event.proto):
//   double wall_time = 1;  int64 step = 2;
//   oneof what { string file_version = 3; ...; Summary summary = 5; ... }
// with Summary (tensorflow/core/framework/summary.proto):
//   repeated Value value = 1;   Value { string tag = 1; float simple_value = 2; ... }
// The first record is an event with file_version "brain.Event:2"; then one event per scalar.
// No LibTorch, no Qt.

#include <cstdint>
#include <string>
#include <vector>

namespace gb::tb {

// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), and TFRecord's mask of it.
uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

// Protocol-buffer encodings of the two messages used.
std::string encode_file_version_event(double wall_time, const std::string& version);
// An Event carrying a Summary with one Value {tag, simple_value}.
std::string encode_scalar_event(double wall_time, int64_t step, const std::string& tag,
                                float value);
// One TFRecord: length, masked CRC of the length, data, masked CRC of the data.
std::string tfrecord(const std::string& data);

struct Scalar {
  int64_t step = 0;
  std::string tag;
  double value = 0;      // written as float32, as TensorBoard's simple_value holds it
  double wall_time = 0;  // seconds since the epoch
};

// The file name TensorBoard looks for: "events.out.tfevents.<seconds>.<host>".
std::string event_file_name(double wall_time, const std::string& host);

// Writes an event file (atomically) holding the file-version event (at `start_time`) and
// one scalar event per entry, in the given order. Returns the number of bytes written.
uint64_t write_event_file(const std::string& path, double start_time,
                          const std::vector<Scalar>& scalars);

}  // namespace gb::tb
