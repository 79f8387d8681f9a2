#pragma once
// How study reports print their figures in Markdown and HTML tables: a probability with its
// Wilson interval, a median with its distribution-free interval, a tail, a mean count.
#include <cstdint>
#include <string>
#include <vector>

#include "reports/stats.hpp"

namespace hasim::report_text {

double fraction(std::uint64_t k, std::uint64_t n);  // 0 with no trials
// "12/100 (12.0% [7.0%, 19.8%])"
std::string probability(std::uint64_t k, std::uint64_t n);
// "31.002 s [30.950 s, 31.100 s]": the median and its 95% interval; "-" without samples.
std::string median(const std::vector<Duration>& samples);
// "40.100 s / 55.000 s": p90 / max; "-" without samples.
std::string tail(const std::vector<Duration>& samples);
// "2.41 [2.10, 2.72], p90 4"
std::string count(const std::vector<std::int64_t>& samples);
std::vector<Duration> sorted(std::vector<Duration> samples);

}  // namespace hasim::report_text
