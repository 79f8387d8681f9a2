#include "reports/report_json.hpp"

#include <algorithm>

namespace hasim::report_json {

using Json = nlohmann::ordered_json;

Json samples(const std::vector<Duration>& samples) {
  std::vector<std::int64_t> ns;
  ns.reserve(samples.size());
  for (Duration d : samples) ns.push_back(d.ns);
  return ns;
}

Json durations(const std::vector<Duration>& samples) {
  const DurationSummary s = summarize_durations(samples);
  Json j = {{"count", s.count},  {"minNs", s.min.ns}, {"meanNs", s.mean.ns}, {"p50Ns", s.p50.ns},
            {"p90Ns", s.p90.ns}, {"p99Ns", s.p99.ns}, {"maxNs", s.max.ns}};
  if (!samples.empty()) {
    std::vector<Duration> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const DurationInterval ci = median_interval(sorted);
    j["p50Interval95Ns"] = {ci.low.ns, ci.high.ns};
  }
  return j;
}

Json counts(const std::vector<std::int64_t>& samples) {
  const CountSummary s = summarize_counts(samples);
  return {{"mean", s.mean},    {"meanInterval95", {s.mean_low, s.mean_high}},
          {"p50", s.p50},      {"p90", s.p90},
          {"max", s.max},      {"total", s.total},
          {"samples", samples}};
}

Json probability_interval(std::uint64_t successes, std::uint64_t trials) {
  const Interval ci = wilson_interval(successes, trials);
  return {ci.low, ci.high};
}

}  // namespace hasim::report_json
