#pragma once
// Reading a study's own flags (StudyArgs::flags): durations, duration ranges and
// comma-separated lists, each failure a sentence naming the flag and the fix. Shared by the
// studies so each says only which flags it has and what they mean.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/study.hpp"
#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

// The value given for `flag`, or `fallback`.
std::string flag_or(const std::map<std::string, std::string>& flags, const std::string& flag,
                    const std::string& fallback);

// A positive duration such as "15s"; nullopt with a message in `error` otherwise.
std::optional<Duration> positive_duration_flag(const std::string& flag, const std::string& text,
                                               std::string* error);
// A duration or a range such as "30s..90s".
std::optional<DurationDistribution> distribution_flag(const std::string& flag,
                                                      const std::string& text, std::string* error);
// "a,b,c" -> {"a", "b", "c"}; empty items are kept (the caller rejects them).
std::vector<std::string> split_list(const std::string& text);

// Reads a comma-separated list of names, each one of `allowed` (by its to_string).
template <typename Enum, std::size_t N>
std::optional<std::vector<Enum>> names_flag(const std::string& flag, const std::string& text,
                                            const Enum (&allowed)[N], std::string* error) {
  std::string choices;
  for (Enum e : allowed) choices += (choices.empty() ? "" : ",") + std::string(to_string(e));
  std::vector<Enum> values;
  for (const std::string& item : split_list(text)) {
    const auto it = std::find_if(std::begin(allowed), std::end(allowed),
                                 [&](Enum e) { return to_string(e) == item; });
    if (it == std::end(allowed)) {
      *error = flag + " \"" + text + "\": unknown value \"" + item +
               "\"; give a comma-separated list of " + choices + ", e.g. " + flag + " " + choices;
      return std::nullopt;
    }
    values.push_back(*it);
  }
  return values;
}

// client-go's rule for leaseDuration, renewDeadline and retryPeriod (leader_elector's
// validate), as a sentence naming the flags to adjust; nullopt when they are fine.
std::optional<std::string> election_timing_problem(Duration lease_duration, Duration renew_deadline,
                                                   Duration retry_period, const std::string& name);

inline constexpr std::string_view kLeaseDurationFlag = "--lease-duration";
inline constexpr std::string_view kRenewDeadlineFlag = "--renew-deadline";
inline constexpr std::string_view kRetryPeriodFlag = "--retry-period";
// The three flags' help, for a study's StudyInfo::flags.
std::vector<StudyFlag> election_timing_flags();
// Reads --lease-duration, --renew-deadline and --retry-period (each positive; client-go's
// defaults 15s, 10s, 2s when not given) into the three durations. False with a message in
// `error` otherwise; the durations are then unchanged.
bool read_election_timing(const std::map<std::string, std::string>& flags, Duration& lease_duration,
                          Duration& renew_deadline, Duration& retry_period, std::string* error);

}  // namespace hasim
