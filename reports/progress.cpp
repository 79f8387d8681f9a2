#include "reports/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "sim/assert.hpp"
#include "sim/int128.hpp"
#include "sim/time.hpp"

namespace hasim {
namespace {
constexpr std::uint64_t kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
// Often enough that a CI or Job log shows life, rarely enough that an hour's run logs
// about 700 lines.
constexpr auto kLineInterval = std::chrono::seconds(5);

// Whole seconds as "8m18s" (rounded, so a log line does not show nanoseconds).
std::string whole_seconds(double seconds) {
  const auto s = static_cast<std::int64_t>(std::max(0.0, seconds) + 0.5);
  return format_duration(Duration{s * 1'000'000'000});
}

std::string one_decimal(double value) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 1);
  HASIM_ASSERT(r.ec == std::errc{});
  return std::string(buffer, r.ptr);
}
}  // namespace

ProgressStyle progress_style(bool quiet) {
  if (quiet) return ProgressStyle::off;
  return isatty(STDERR_FILENO) == 1 ? ProgressStyle::bar : ProgressStyle::lines;
}

ProgressBar::ProgressBar(std::uint64_t total, std::string unit, ProgressStyle style, std::FILE* out,
                         std::string label, ProgressClock clock)
    : total_(total),
      unit_(std::move(unit)),
      style_(out == nullptr ? ProgressStyle::off : style),
      out_(out),
      label_(std::move(label)),
      clock_(std::move(clock)),
      start_(now()),
      last_draw_(start_) {}

ProgressBar::ProgressBar(std::uint64_t total, std::string unit, bool enabled, std::FILE* out)
    : ProgressBar(total, std::move(unit), enabled ? ProgressStyle::bar : ProgressStyle::off, out,
                  "") {}

ProgressBar::~ProgressBar() { finish(); }

std::chrono::steady_clock::time_point ProgressBar::now() const {
  return clock_ ? clock_() : std::chrono::steady_clock::now();
}

std::string ProgressBar::render(std::uint64_t done, std::uint64_t total, const std::string& unit,
                                double per_second) {
  const std::uint64_t shown = std::min(done, total);
  // Filled cells in integers (128-bit so huge totals cannot overflow); an empty run is full.
  const auto filled =
      total == 0 ? kBarWidth
                 : static_cast<std::uint64_t>(static_cast<UInt128>(shown) * kBarWidth / total);
  std::string line = "[";
  line.append(filled, '#');
  line.append(kBarWidth - filled, ' ');
  line += "] " + std::to_string(done) + "/" + std::to_string(total) + " " + unit;
  if (per_second > 0) {
    line += "  " + std::to_string(static_cast<std::uint64_t>(per_second + 0.5)) + "/s";
  }
  return line;
}

std::string ProgressBar::render_line(const std::string& label, std::uint64_t done,
                                     std::uint64_t total, const std::string& unit, double elapsed,
                                     bool final) {
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string line = (label.empty() ? "" : label + ": ") + std::to_string(done) + "/" +
                     std::to_string(total) + " " + unit;
  if (final) {
    line += " in " + whole_seconds(elapsed);
  } else if (total > 0) {
    line += " (" +
            one_decimal(100.0 * static_cast<double>(std::min(done, total)) /
                        static_cast<double>(total)) +
            "%)";
  }
  line += ", " + std::to_string(static_cast<std::uint64_t>(rate + 0.5)) + "/s";
  if (!final && rate > 0 && done < total) {
    line += ", ETA " + whole_seconds(static_cast<double>(total - done) / rate);
  }
  return line;
}

void ProgressBar::draw(std::uint64_t done) {
  const auto t = now();
  const double elapsed = std::chrono::duration<double>(t - start_).count();
  const double per_second = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string line = render(done, total_, unit_, per_second);
  const std::size_t width = line.size();
  // A shorter line than the last one (the rate lost a digit) must blank the leftover tail.
  if (width < last_width_) line.append(last_width_ - width, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  last_width_ = width;
  last_draw_ = t;
  last_done_ = done;
  drawn_ = true;
}

void ProgressBar::print_line(std::uint64_t done, bool final) {
  const auto t = now();
  const double elapsed = std::chrono::duration<double>(t - start_).count();
  std::fprintf(out_, "%s\n", render_line(label_, done, total_, unit_, elapsed, final).c_str());
  std::fflush(out_);
  last_draw_ = t;
  last_done_ = done;
  drawn_ = true;
}

void ProgressBar::update(std::uint64_t done) {
  if (style_ == ProgressStyle::off || finished_) return;
  latest_ = done;
  if (style_ == ProgressStyle::lines) {
    // The final line says "done"; an update at the total waits for finish().
    if (done < total_ && now() - last_draw_ >= kLineInterval) print_line(done, false);
    return;
  }
  const bool complete = done >= total_ && (!drawn_ || last_done_ != done);
  if (!complete && drawn_ && now() - last_draw_ < kRedrawInterval) return;
  draw(done);
}

void ProgressBar::finish() {
  if (style_ == ProgressStyle::off || finished_) return;
  finished_ = true;
  if (style_ == ProgressStyle::lines) {
    print_line(latest_, true);
    return;
  }
  if (!drawn_ || latest_ != last_done_) draw(latest_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace hasim
