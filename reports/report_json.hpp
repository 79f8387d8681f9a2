#pragma once
// The JSON shapes every study report uses for its figures: every sample (durations in
// integer nanoseconds), a duration summary with the median's interval, a count summary with
// the mean's interval, and a probability's Wilson interval.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "reports/stats.hpp"

namespace hasim::report_json {

nlohmann::ordered_json samples(const std::vector<Duration>& samples);
nlohmann::ordered_json durations(const std::vector<Duration>& samples);
nlohmann::ordered_json counts(const std::vector<std::int64_t>& samples);
nlohmann::ordered_json probability_interval(std::uint64_t successes, std::uint64_t trials);

}  // namespace hasim::report_json
