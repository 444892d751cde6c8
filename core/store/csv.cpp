#include "store/csv.h"

#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "util/files.h"

namespace gb::store {

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_record(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
  return out;
}

std::string csv_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{}", value);
}

std::string iso_time(double unix_seconds) {
  if (!std::isfinite(unix_seconds)) return "";
  double whole = std::floor(unix_seconds);
  auto t = static_cast<std::time_t>(whole);
  int ms = static_cast<int>(std::lround((unix_seconds - whole) * 1000.0));
  if (ms == 1000) {
    ++t;
    ms = 0;
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  const int year = tm.tm_year + 1900, month = tm.tm_mon + 1;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", year, month, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

namespace {

std::string opt_time(const std::optional<double>& t) {
  return t ? iso_time(*t) : "";
}

}  // namespace

void write_runs_csv(Store& store, std::ostream& out, const RunFilter& filter,
                    const std::vector<std::string>& metric_keys) {
  std::vector<RunInfo> runs = store.list_runs(filter);
  std::vector<int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.id);
  std::vector<LatestMetric> latest =
      runs.empty() ? std::vector<LatestMetric>{} : store.latest_metrics(ids, metric_keys);
  std::vector<std::string> keys = metric_keys;
  if (keys.empty()) {
    std::set<std::string> all;
    for (const auto& m : latest) all.insert(m.key);
    keys.assign(all.begin(), all.end());
  }
  std::map<std::pair<int64_t, std::string>, double> value;
  for (const auto& m : latest) value[{m.run_id, m.key}] = m.value;

  std::vector<std::string> header = {"id",     "name",    "status",  "variant",  "experiment",
                                     "tags",   "created", "started", "finished", "duration_s",
                                     "device", "seed",    "notes",   "error"};
  header.insert(header.end(), keys.begin(), keys.end());
  out << csv_record(header);
  for (const auto& r : runs) {
    std::string tags;
    for (const auto& t : r.tags) tags += (tags.empty() ? "" : ";") + t;
    std::string duration;
    if (r.started && r.finished) duration = csv_number(*r.finished - *r.started);
    std::vector<std::string> row = {std::to_string(r.id),
                                    r.name,
                                    to_string(r.status),
                                    r.variant,
                                    r.experiment,
                                    tags,
                                    iso_time(r.created),
                                    opt_time(r.started),
                                    opt_time(r.finished),
                                    duration,
                                    r.device,
                                    r.seed ? std::to_string(*r.seed) : "",
                                    r.notes,
                                    r.error};
    for (const auto& k : keys) {
      auto it = value.find({r.id, k});
      row.push_back(it == value.end() ? "" : csv_number(it->second));
    }
    out << csv_record(row);
  }
}

void write_metrics_csv(Store& store, std::ostream& out, int64_t run_id, const MetricQuery& query,
                       MetricsCsvLayout layout) {
  if (layout == MetricsCsvLayout::Long) {
    out << csv_record({"run_id", "step", "key", "value"});
    for (const auto& r : store.metric_rows(run_id, query)) {
      out << csv_record(
          {std::to_string(r.run_id), std::to_string(r.step), r.key, csv_number(r.value)});
    }
    return;
  }
  std::map<std::string, Series> series = store.metric_series(run_id, query);
  std::vector<std::string> header = {"step"};
  std::map<int64_t, std::vector<std::string>> rows;  // step -> one cell per key
  size_t column = 0;
  for (const auto& [key, s] : series) {
    header.push_back(key);
    for (size_t i = 0; i < s.steps.size(); ++i) {
      auto& cells = rows[s.steps[i]];
      cells.resize(series.size());
      cells[column] = csv_number(s.values[i]);
    }
    ++column;
  }
  out << csv_record(header);
  for (auto& [step, cells] : rows) {
    cells.resize(series.size());
    cells.insert(cells.begin(), std::to_string(step));
    out << csv_record(cells);
  }
}

void export_runs_csv(Store& store, const std::string& path, const RunFilter& filter,
                     const std::vector<std::string>& metric_keys) {
  std::ostringstream out;
  write_runs_csv(store, out, filter, metric_keys);
  write_file_atomic(path, out.str());
}

void export_metrics_csv(Store& store, const std::string& path, int64_t run_id,
                        const MetricQuery& query, MetricsCsvLayout layout) {
  std::ostringstream out;
  write_metrics_csv(store, out, run_id, query, layout);
  write_file_atomic(path, out.str());
}

}  // namespace gb::store
