#pragma once
// Progress reporting and cooperative cancellation for long operations (probes, loading,
// training). A Progress is cheap to copy; an empty one reports nothing and never cancels.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "util/error.h"

namespace gb {

class CancelToken {
 public:
  CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() { m_flag->store(true); }
  bool cancelled() const { return m_flag->load(); }
  void throw_if_cancelled() const {
    if (cancelled()) throw CancelledError();
  }

 private:
  std::shared_ptr<std::atomic<bool>> m_flag;
};

struct ProgressUpdate {
  std::string stage;    // e.g. "probe/masking"
  double fraction = 0;  // 0..1
  double eta_s = -1;    // seconds left, -1 when unknown
  std::string message;
};

class Progress {
 public:
  using Callback = std::function<void(const ProgressUpdate&)>;
  Progress() = default;
  Progress(Callback callback, CancelToken token = CancelToken())
      : m_callback(std::move(callback)), m_token(std::move(token)) {}

  // Starts timing a stage; later report() calls estimate the ETA from the elapsed time.
  void begin(const std::string& stage) {
    m_stage = stage;
    m_start = std::chrono::steady_clock::now();
    report(0.0);
  }
  void report(double fraction, const std::string& message = {}) const {
    m_token.throw_if_cancelled();
    if (!m_callback) return;
    ProgressUpdate u;
    u.stage = m_stage;
    u.fraction = fraction;
    u.message = message;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    if (fraction > 0) u.eta_s = elapsed * (1.0 - fraction) / fraction;
    m_callback(u);
  }
  const CancelToken& token() const { return m_token; }
  void check_cancel() const { m_token.throw_if_cancelled(); }

 private:
  Callback m_callback;
  CancelToken m_token;
  std::string m_stage;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

}  // namespace gb
