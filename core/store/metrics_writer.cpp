#include <chrono>
#include <set>
#include <vector>

#include "store/store.h"

#include "store/store_internal.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::store {

using Clock = std::chrono::steady_clock;

struct MetricsWriter::Impl {
  std::shared_ptr<detail::StoreState> state;
  MetricsWriterOptions options;
  std::vector<MetricRow> rows;
  Clock::time_point oldest{};  // when the first buffered row was added
};

MetricsWriter::MetricsWriter(Store& store, MetricsWriterOptions options)
    : m_impl(std::make_unique<Impl>()) {
  store.m_state->require_writable("writing metrics");
  m_impl->state = store.m_state;
  m_impl->options = options;
  if (m_impl->options.max_rows == 0) m_impl->options.max_rows = 1;
  m_impl->rows.reserve(m_impl->options.max_rows);
}

MetricsWriter::~MetricsWriter() {
  if (!m_impl || m_impl->rows.empty()) return;
  try {
    flush();
  } catch (const std::exception& e) {
    log::get("store")->error("{} metric rows were lost: {}", m_impl->rows.size(), e.what());
  }
}

MetricsWriter::MetricsWriter(MetricsWriter&&) noexcept = default;

MetricsWriter& MetricsWriter::operator=(MetricsWriter&& other) noexcept {
  if (this != &other) {
    if (m_impl && !m_impl->rows.empty()) {
      try {
        flush();
      } catch (const std::exception& e) {
        log::get("store")->error("{} metric rows were lost: {}", m_impl->rows.size(), e.what());
      }
    }
    m_impl = std::move(other.m_impl);
  }
  return *this;
}

void MetricsWriter::add(int64_t run_id, int64_t step, std::string_view key, double value) {
  if (m_impl->rows.empty()) m_impl->oldest = Clock::now();
  m_impl->rows.push_back({run_id, step, std::string(key), value});
  if (m_impl->rows.size() >= m_impl->options.max_rows) {
    flush();
  } else {
    poll();
  }
}

bool MetricsWriter::poll() {
  if (m_impl->rows.empty() || Clock::now() - m_impl->oldest < m_impl->options.max_delay) {
    return false;
  }
  flush();
  return true;
}

size_t MetricsWriter::pending() const {
  return m_impl ? m_impl->rows.size() : 0;
}

void MetricsWriter::flush() {
  std::vector<MetricRow>& rows = m_impl->rows;
  if (rows.empty()) return;
  const char* what = "writing metrics";
  detail::Connection& db = *m_impl->state->db;
  detail::Transaction tx(db, what);
  // OR REPLACE: a rewritten (run, step, key), e.g. after a resume, keeps the newest value.
  detail::multi_insert(
      db, "INSERT OR REPLACE INTO metrics (run_id, step, key, value) VALUES ", 4, rows.size(),
      [&](detail::Query& q, size_t i) {
        q.bind_all(rows[i].run_id, rows[i].step, rows[i].key, rows[i].value);
      },
      what);
  {
    // The runs' heartbeat: a killed worker's run ends at its last committed metrics.
    std::set<int64_t> runs;
    for (const auto& r : rows) runs.insert(r.run_id);
    const double now = detail::now_s();
    for (int64_t id : runs) {
      detail::Query(db, "UPDATE runs SET heartbeat = ? WHERE id = ?", what).bind_all(now, id).run();
    }
  }
  tx.commit();
  rows.clear();
}

}  // namespace gb::store
