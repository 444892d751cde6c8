#include "human_events.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "experiment/estimate.h"
#include "util/metrics.h"

namespace gb::cli {

EventsMode events_mode(const std::string& flag, std::FILE* stream) {
  if (flag == "json") return EventsMode::Json;
  if (flag == "human") return EventsMode::Human;
  return ::isatty(::fileno(stream)) ? EventsMode::Human : EventsMode::Json;
}

std::string human_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto n = static_cast<long long>(std::llround(s));
  if (n < 60) return fmt::format("{} s", n);
  if (n < 3600) return fmt::format("{} min {:02} s", n / 60, n % 60);
  return fmt::format("{} h {:02} min", n / 3600, (n % 3600) / 60);
}

int64_t resident_bytes() {
  std::ifstream in("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  if (!(in >> pages >> resident)) return -1;
  return resident * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

namespace {

int terminal_width(std::FILE* out) {
  struct winsize w {};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 100;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "nan";
  return fmt::format("{:.4g}", v);
}

}  // namespace

HumanEvents::HumanEvents(std::FILE* out, bool tty) : m_out(out), m_tty(tty) {}

HumanEvents::~HumanEvents() {
  clear();
}

void HumanEvents::clear() {
  if (!m_shown) return;
  std::fputs("\r\033[K", m_out);
  std::fflush(m_out);
  m_shown = false;
}

void HumanEvents::line(const std::string& text) {
  clear();
  std::fprintf(m_out, "%s\n", text.c_str());
  std::fflush(m_out);
}

void HumanEvents::show(const std::string& text, bool force) {
  const auto now = std::chrono::steady_clock::now();
  const auto every = m_tty ? std::chrono::milliseconds(200) : std::chrono::milliseconds(10000);
  if (!force && m_last.time_since_epoch().count() != 0 && now - m_last < every) return;
  m_last = now;
  if (!m_tty) {
    std::fprintf(m_out, "%s\n", text.c_str());
    std::fflush(m_out);
    return;
  }
  // Never wider than the terminal: a wrapped line cannot be rewritten with \r. Cut at a
  // character (UTF-8), not a byte.
  const size_t width = static_cast<size_t>(terminal_width(m_out) - 1);
  size_t chars = 0, cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars++ == width) {
      cut = i;
      break;
    }
  }
  const std::string shown = text.substr(0, cut);
  std::fprintf(m_out, "\r%s\033[K", shown.c_str());
  std::fflush(m_out);
  m_shown = true;
}

void HumanEvents::progress(const events::Progress& p) {
  std::string text = m_prefix.empty() ? std::string() : m_prefix + " · ";
  text += p.stage;
  // A task sequence's phases by name ("new" is the one phase of other specs).
  if (p.phase && *p.phase != "new") text += " [" + *p.phase + "]";
  if (p.step && p.total) {
    text += fmt::format(" {}/{}", *p.step, *p.total);
  } else if (p.fraction) {
    text += fmt::format(" {:.0f} %", 100.0 * *p.fraction);
  }
  if (p.loss) text += " · loss " + number(*p.loss);
  if (p.tokens_per_s) text += fmt::format(" · {:.0f} tokens/s", *p.tokens_per_s);
  if (p.eta_s) text += " · ETA " + human_duration(*p.eta_s);
  if (const int64_t rss = resident_bytes(); rss > 0) {
    text += " · memory " + experiment::format_bytes(rss);
  }
  if (p.message && !p.message->empty()) text += " · " + *p.message;
  // The last step, and the first update of each stage, are always shown.
  const bool last = p.step && p.total && *p.step == *p.total;
  const bool new_stage = p.stage != m_progress_stage;
  m_progress_stage = p.stage;
  show(text, last || new_stage);
}

void HumanEvents::operator()(const events::Event& ev) {
  namespace mk = metrics;
  if (const auto* p = std::get_if<events::Progress>(&ev)) {
    progress(*p);
  } else if (const auto* s = std::get_if<events::Stage>(&ev)) {
    m_stage = s->stage;
    std::string text = m_prefix.empty() ? std::string() : m_prefix + " · ";
    text += s->stage + (s->preset ? " " + *s->preset : std::string()) + " ...";
    show(text, true);
  } else if (const auto* r = std::get_if<events::RunStarted>(&ev)) {
    m_prefix = fmt::format("run {}", r->run);
    if (r->index && r->runs) m_prefix += fmt::format(" ({}/{})", *r->index + 1, *r->runs);
    m_run = m_prefix + " " + r->label;
    line(m_run + (r->resumed_from ? fmt::format(": resumed from step {}", *r->resumed_from)
                                  : std::string(": started")));
  } else if (const auto* f = std::get_if<events::RunFinished>(&ev)) {
    std::string text =
        fmt::format("{}: {} in {}", m_run.empty() ? fmt::format("run {}", f->run) : m_run,
                    f->status, human_duration(f->seconds));
    const std::pair<const char*, const char*> shown[] = {{mk::kEvalOrigPpl, "original ppl"},
                                                         {mk::kEvalNewPpl, "new ppl"}};
    for (const auto& [key, label] : shown) {
      if (auto it = f->final_metrics.find(key); it != f->final_metrics.end()) {
        text += fmt::format(" · {} {}", label, number(it->second));
      }
    }
    if (!f->error.empty()) text += ": " + f->error;
    line(text);
    m_run.clear();
    m_prefix.clear();
  } else if (const auto* d = std::get_if<events::Done>(&ev)) {
    std::map<std::string, int> count;
    for (const auto& r : d->runs) ++count[r.status];
    std::string text =
        fmt::format("done: {} run{}", d->runs.size(), d->runs.size() == 1 ? "" : "s");
    std::string sep = " (";
    for (const auto& [status, n] : count) {
      text += fmt::format("{}{} {}", sep, n, status);
      sep = ", ";
    }
    if (!count.empty()) text += ")";
    text += " · store " + d->db;
    line(text);
  }
  // eval, grown and checkpoint events: in the store (`growbench-cli runs show`).
}

TerminalProgress::TerminalProgress(bool enabled) {
  if (enabled) m_events = std::make_shared<HumanEvents>(stderr, true);
}

TerminalProgress TerminalProgress::on_terminal() {
  return TerminalProgress(::isatty(::fileno(stderr)) != 0);
}

void TerminalProgress::stage(const std::string& text) {
  if (m_events) (*m_events)(events::Event{events::Stage(text)});
}

Progress TerminalProgress::progress() const {
  if (!m_events) return Progress();
  return Progress([events = m_events](const ProgressUpdate& u) {
    events::Progress p;
    p.stage = u.stage;
    p.fraction = u.fraction;
    if (u.eta_s >= 0) p.eta_s = u.eta_s;
    if (!u.message.empty()) p.message = u.message;
    (*events)(events::Event{p});
  });
}

void TerminalProgress::clear() {
  if (m_events) m_events->clear();
}

}  // namespace gb::cli
