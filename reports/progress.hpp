#pragma once
// Progress of long work (report trials, `hasim check` runs, merged shards) on stderr, in one
// of three styles:
//   bar    on a terminal, one line redrawn in place about 10 times a second:
//            [############                  ] 512/1000 trials  1234/s
//   lines  when stderr is not a terminal (CI logs, Kubernetes Job logs), a plain line at
//          most every 5 s and one when the work is done, so a log shows life without
//          filling up:
//            upgrade-skew: 5120/120000 trials (4.3%), 231/s, ETA 8m18s
//            upgrade-skew: 120000/120000 trials in 8m40s, 231/s
//   off    --quiet.
// The rate and ETA come from a wall clock (std::chrono::steady_clock unless a test injects
// one), allowed in reports/ because it feeds only this display, never a result.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace hasim {

enum class ProgressStyle { off, bar, lines };

// off if `quiet`, bar if stderr is a terminal, lines otherwise.
ProgressStyle progress_style(bool quiet);

using ProgressClock = std::function<std::chrono::steady_clock::time_point()>;

class ProgressBar {
 public:
  // Progress of `total` `unit`s (e.g. "trials") on `out`; `label` starts each plain line.
  // An empty clock means std::chrono::steady_clock::now.
  ProgressBar(std::uint64_t total, std::string unit, ProgressStyle style, std::FILE* out,
              std::string label, ProgressClock clock = {});
  // A bar on `out` if `enabled`, else nothing (for tests and callers that decide).
  ProgressBar(std::uint64_t total, std::string unit, bool enabled, std::FILE* out);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  // Ends the output if finish() was not called (e.g. when a trial threw).
  ~ProgressBar();

  // `done` of total finished. A bar redraws at most about 10 times a second (reaching the
  // total always draws); plain lines come at most every 5 s. Fits TrialProgress.
  void update(std::uint64_t done);
  // Draws the latest count and ends the bar's line, or prints the final plain line; once.
  void finish();
  bool enabled() const { return style_ != ProgressStyle::off; }

  // The bar's text for `done` at `per_second`, without "\r" or padding.
  static std::string render(std::uint64_t done, std::uint64_t total, const std::string& unit,
                            double per_second);
  // A plain line: "LABEL: done/total unit (P%), R/s, ETA T" while running, or
  // "LABEL: done/total unit in T, R/s" when `final`.
  static std::string render_line(const std::string& label, std::uint64_t done, std::uint64_t total,
                                 const std::string& unit, double elapsed, bool final);

 private:
  std::chrono::steady_clock::time_point now() const;
  void draw(std::uint64_t done);
  void print_line(std::uint64_t done, bool final);

  std::uint64_t total_;
  std::string unit_;
  ProgressStyle style_;
  std::FILE* out_;
  std::string label_;
  ProgressClock clock_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  std::uint64_t latest_ = 0;     // the last count given to update(), drawn or not
  std::uint64_t last_done_ = 0;  // the count on screen
  std::size_t last_width_ = 0;   // characters of the previous bar, to blank any leftovers
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace hasim
