#include "reports/study_flags.hpp"

#include "models/election/leader_elector.hpp"

namespace hasim {

std::string flag_or(const std::map<std::string, std::string>& flags, const std::string& flag,
                    const std::string& fallback) {
  const auto it = flags.find(flag);
  return it == flags.end() ? fallback : it->second;
}

std::optional<Duration> positive_duration_flag(const std::string& flag, const std::string& text,
                                               std::string* error) {
  std::string problem;
  const auto d = parse_duration(text, &problem);
  if (!d) {
    *error = flag + " \"" + text + "\": " + problem;
    return std::nullopt;
  }
  if (d->ns <= 0) {
    *error = flag + " must be positive, e.g. \"15s\"";
    return std::nullopt;
  }
  return d;
}

std::optional<DurationDistribution> distribution_flag(const std::string& flag,
                                                      const std::string& text, std::string* error) {
  std::string problem;
  auto d = parse_duration_distribution(text, &problem);
  if (!d) {
    *error = flag + " \"" + text + "\": " + problem + "; give a duration or a range, e.g. " + flag +
             " 30s..90s";
  }
  return d;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  // Bounded: each pass consumes at least one character (the comma) or ends.
  while (true) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::optional<std::string> election_timing_problem(Duration lease_duration, Duration renew_deadline,
                                                   Duration retry_period, const std::string& name) {
  // Field by field: the config grows fields (CLE) that this check does not care about.
  election::LeaderElectionConfig config;
  config.leaseDuration = lease_duration;
  config.renewDeadline = renew_deadline;
  config.retryPeriod = retry_period;
  config.name = name;
  const auto problem = election::validate(config, "identity");
  if (!problem) return std::nullopt;
  return *problem +
         " (client-go requires leaseDuration > renewDeadline > 1.2 x retryPeriod > 0); adjust "
         "--lease-duration, --renew-deadline or --retry-period";
}

std::vector<StudyFlag> election_timing_flags() {
  return {{std::string(kLeaseDurationFlag), "leaseDuration of the elections (default 15s)"},
          {std::string(kRenewDeadlineFlag), "renewDeadline (default 10s)"},
          {std::string(kRetryPeriodFlag), "retryPeriod (default 2s)"}};
}

bool read_election_timing(const std::map<std::string, std::string>& flags, Duration& lease_duration,
                          Duration& renew_deadline, Duration& retry_period, std::string* error) {
  const auto read = [&](std::string_view flag, const char* fallback) {
    const std::string name(flag);
    return positive_duration_flag(name, flag_or(flags, name, fallback), error);
  };
  const auto ld = read(kLeaseDurationFlag, "15s");
  if (!ld) return false;
  const auto rd = read(kRenewDeadlineFlag, "10s");
  if (!rd) return false;
  const auto rp = read(kRetryPeriodFlag, "2s");
  if (!rp) return false;
  lease_duration = *ld;
  renew_deadline = *rd;
  retry_period = *rp;
  return true;
}

}  // namespace hasim
