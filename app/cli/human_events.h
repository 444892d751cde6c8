#pragma once
// The runner's events for people (`--events human`, the default on a terminal): one
// progress line (stage, step/total, tokens/s, ETA, the process's memory) rewritten in place
// with \r, and a permanent line per run started and finished and for the whole command.
// `--events json` (the default when stdout is not a terminal: pipes, the GUI's worker,
// scripts) prints events::to_json of every event, one object per line, as before.

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "util/events.h"
#include "util/progress.h"

namespace gb::cli {

enum class EventsMode { Json, Human };

// "json", "human" or "auto" (human when `stream` is a terminal).
EventsMode events_mode(const std::string& flag, std::FILE* stream = stdout);

class HumanEvents {
 public:
  // `tty`: rewrite the progress line in place; otherwise a progress line is a line of its
  // own, at most one every 10 s.
  HumanEvents(std::FILE* out, bool tty);
  ~HumanEvents();
  void operator()(const events::Event& e);
  // A permanent line (the progress line, if any, is cleared first).
  void line(const std::string& text);
  // Clears the progress line.
  void clear();

 private:
  void progress(const events::Progress& p);
  void show(const std::string& text, bool force);

  std::FILE* m_out;
  bool m_tty;
  bool m_shown = false;  // a progress line is on the terminal
  std::string m_prefix;  // "run 12 (2/6)", for the progress line
  std::string m_run;     // "run 12 (2/6) lora r=16", for the lines of the run
  std::string m_stage;
  std::string m_progress_stage;  // the stage of the last progress update
  std::chrono::steady_clock::time_point m_last{};
};

// Progress for people on stderr for the commands that are not runs (probe, grow, eval):
// when enabled (stderr is a terminal), one line rewritten in place with the stage, the share
// done, the ETA and the process's memory, cleared before the command prints its result.
// Disabled, it prints nothing, so pipes, scripts and the GUI read exactly what they read
// before.
class TerminalProgress {
 public:
  explicit TerminalProgress(bool enabled);
  // Enabled when stderr is a terminal.
  static TerminalProgress on_terminal();
  bool enabled() const { return m_events != nullptr; }
  // A stage without a share done ("loading model"): "<text> ..." on the line.
  void stage(const std::string& text);
  // A gb::Progress whose updates (stage, fraction, ETA, message) land on the line; an empty
  // Progress (reports nothing, never cancels) when disabled.
  Progress progress() const;
  // Clears the line (before the command's own output).
  void clear();

 private:
  std::shared_ptr<HumanEvents> m_events;
};

// Formats seconds as "45 s", "3 min 05 s", "2 h 07 min".
std::string human_duration(double seconds);
// The resident memory of this process (VmRSS), bytes; -1 when unknown.
int64_t resident_bytes();

}  // namespace gb::cli
