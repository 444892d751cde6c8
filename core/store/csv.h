#pragma once
// CSV export of the run store for the GUI and the CLI (RFC 4180 quoting, "\n" line ends,
// UTF-8). Numbers are written in the shortest form that reads back exactly; NaN and the
// infinities as nan, inf and -inf; a missing value as an empty field.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace gb::store {

// One field: quoted, with quotes doubled, when it contains a comma, quote, CR or LF or
// starts or ends with a space; otherwise unchanged.
std::string csv_field(std::string_view text);
// Fields joined by commas, ending in "\n".
std::string csv_record(const std::vector<std::string>& fields);
std::string csv_number(double value);
// UTC ISO 8601 with milliseconds ("2024-05-01T12:34:56.789Z").
std::string iso_time(double unix_seconds);

enum class MetricsCsvLayout {
  Long,  // run_id,step,key,value: one row per stored value
  Wide,  // step,<key1>,<key2>,...: one row per step, empty where a key has no value
};

// The runs matching `filter`: id, name, status, variant, experiment, tags (";"-separated),
// created, started, finished, duration_s, device, seed, notes, error, then the latest value
// of each of `metric_keys` (empty: every key any listed run has, sorted).
void write_runs_csv(Store& store, std::ostream& out, const RunFilter& filter = {},
                    const std::vector<std::string>& metric_keys = {});
// The metrics of one run.
void write_metrics_csv(Store& store, std::ostream& out, int64_t run_id,
                       const MetricQuery& query = {},
                       MetricsCsvLayout layout = MetricsCsvLayout::Wide);
// As above, written atomically to `path` (a temporary file renamed into place).
void export_runs_csv(Store& store, const std::string& path, const RunFilter& filter = {},
                     const std::vector<std::string>& metric_keys = {});
void export_metrics_csv(Store& store, const std::string& path, int64_t run_id,
                        const MetricQuery& query = {},
                        MetricsCsvLayout layout = MetricsCsvLayout::Wide);

}  // namespace gb::store
