#include "reports/progress.hpp"

#include <unistd.h>

#include <algorithm>

#include "sim/int128.hpp"

namespace hasim {
namespace {
constexpr std::uint64_t kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(std::uint64_t total, std::string unit)
    : ProgressBar(total, std::move(unit), isatty(STDERR_FILENO) == 1, stderr) {}

ProgressBar::ProgressBar(std::uint64_t total, std::string unit, bool enabled, std::FILE* out)
    : total_(total),
      unit_(std::move(unit)),
      enabled_(enabled && out != nullptr),
      out_(out),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

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

void ProgressBar::draw(std::uint64_t done) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double per_second = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string line = render(done, total_, unit_, per_second);
  const std::size_t width = line.size();
  // A shorter line than the last one (the rate lost a digit) must blank the leftover tail.
  if (width < last_width_) line.append(last_width_ - width, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  last_width_ = width;
  last_draw_ = now;
  last_done_ = done;
  drawn_ = true;
}

void ProgressBar::update(std::uint64_t done) {
  if (!enabled_ || finished_) return;
  latest_ = done;
  const bool complete = done >= total_ && (!drawn_ || last_done_ != done);
  if (!complete && drawn_ && std::chrono::steady_clock::now() - last_draw_ < kRedrawInterval) {
    return;
  }
  draw(done);
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  if (!drawn_ || latest_ != last_done_) draw(latest_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace hasim
