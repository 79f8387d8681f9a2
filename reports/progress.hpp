#pragma once
// A one-line progress bar for long report runs, redrawn in place on stderr:
//   [############                  ] 512/1000 trials  1234/s
// Shown only when stderr is a terminal, so logs, pipes and CI output stay clean (the CLI
// contract: "long work shows progress on stderr when it is a terminal"). The rate is wall
// time from std::chrono::steady_clock, which is allowed in reports/ because it never feeds
// a result, only this display.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace hasim {

class ProgressBar {
 public:
  // Draws on stderr if and only if it is a terminal. `unit` names what is counted.
  explicit ProgressBar(std::uint64_t total, std::string unit = "trials");
  // Draws on `out` if `enabled`, whatever it is (for tests and for callers that decide).
  ProgressBar(std::uint64_t total, std::string unit, bool enabled, std::FILE* out);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  // Ends the line if finish() was not called (e.g. when a trial threw).
  ~ProgressBar();

  // Redraws with `done` of total finished; at most about 10 times a second, except that
  // reaching the total always draws. Fits TrialProgress (reports/trials.hpp).
  void update(std::uint64_t done);
  // Draws the latest count (if a redraw was skipped) and ends the line, once; later calls do
  // nothing.
  void finish();
  bool enabled() const { return enabled_; }

  // The text of the line for `done` at `per_second`, without "\r" or padding.
  static std::string render(std::uint64_t done, std::uint64_t total, const std::string& unit,
                            double per_second);

 private:
  void draw(std::uint64_t done);

  std::uint64_t total_;
  std::string unit_;
  bool enabled_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  std::uint64_t latest_ = 0;     // the last count given to update(), drawn or not
  std::uint64_t last_done_ = 0;  // the count on screen
  std::size_t last_width_ = 0;   // characters of the previous line, to blank any leftovers
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace hasim
