// The distribution getter of JsonReader: "1ms", "30s..90s" or {"dist": ..., ...}.
#include "scenarios/json_reader.hpp"

#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim {

const std::vector<KeySet>& distribution_key_sets() {
  static const std::vector<KeySet> sets{
      {"distribution", {"dist", "value", "min", "max", "mean", "stddev", "median", "p99"}},
      {"distribution:constant", {"dist", "value"}},
      {"distribution:uniform", {"dist", "min", "max"}},
      {"distribution:exponential", {"dist", "mean"}},
      {"distribution:normal", {"dist", "mean", "stddev"}},
      {"distribution:lognormal", {"dist", "median", "p99"}},
  };
  return sets;
}

std::optional<DurationDistribution> JsonReader::distribution(const Json& value,
                                                             const std::string& path) {
  if (value.is_object()) return distribution_object(value, path);
  if (!value.is_string()) {
    error(path,
          "expected a distribution: a duration such as \"1ms\", a range such as "
          "\"30s..90s\" or an object such as {\"dist\": \"exponential\", \"mean\": \"5ms\"}, "
          "found " +
              describe(value));
    return std::nullopt;
  }
  std::string problem;
  const auto dist = parse_duration_distribution(value.get_ref<const std::string&>(), &problem);
  if (!dist) {
    error(path, "expected a duration such as \"1ms\" or a range such as \"30s..90s\", found " +
                    describe(value) + ": " + problem);
    return std::nullopt;
  }
  if (dist->a > kMaxScenarioDuration || dist->b > kMaxScenarioDuration) {
    error(path, too_long(describe(value)));
    return std::nullopt;
  }
  if (dist->a.ns < 0) {
    error(path, "expected durations of zero or more, found " + describe(value) +
                    "; remove the minus sign");
    return std::nullopt;
  }
  return dist;
}

std::optional<DurationDistribution> JsonReader::distribution_object(const Json& value,
                                                                    const std::string& path) {
  const std::vector<KeySet>& sets = distribution_key_sets();
  if (!object(value, path, sets[0].keys, "a distribution")) return std::nullopt;
  const Json* dist_json = required(value, path, "dist", "\"lognormal\"");
  if (dist_json == nullptr) return std::nullopt;
  const auto dist = string(*dist_json, key_path(path, "dist"));
  if (!dist) return std::nullopt;
  const KeySet* set = nullptr;
  std::vector<std::string> names;
  for (std::size_t i = 1; i < sets.size(); ++i) {
    names.push_back(sets[i].name.substr(sets[i].name.find(':') + 1));
    if (names.back() == *dist) set = &sets[i];
  }
  if (set == nullptr) {
    error(key_path(path, "dist"), "unknown distribution \"" + *dist + "\"" +
                                      did_you_mean(*dist, names) + "; use one of " +
                                      join_words(names));
    return std::nullopt;
  }
  const std::size_t before = total_;
  inapplicable(value, path, sets[0].keys, set->keys, "a " + *dist + " distribution");
  // Reads every parameter before giving up, so all their errors are reported at once.
  auto get = [&](std::string_view key, DurationSign sign) -> std::optional<Duration> {
    const Json* v = required(value, path, key, "\"5ms\"");
    return v == nullptr ? std::nullopt : duration(*v, key_path(path, key), sign);
  };
  std::optional<DurationDistribution> result;
  if (*dist == "constant") {
    const auto v = get("value", DurationSign::non_negative);
    if (v) result = DurationDistribution::constant(*v);
  } else if (*dist == "uniform") {
    const auto lo = get("min", DurationSign::non_negative);
    const auto hi = get("max", DurationSign::non_negative);
    if (lo && hi && *lo > *hi) {
      error(key_path(path, "max"), "max " + short_duration(*hi) + " is below min " +
                                       short_duration(*lo) + "; make max at least min");
    } else if (lo && hi) {
      result = DurationDistribution::uniform(*lo, *hi);
    }
  } else if (*dist == "exponential") {
    const auto mean = get("mean", DurationSign::positive);
    if (mean) result = DurationDistribution::exponential(*mean);
  } else if (*dist == "normal") {
    const auto mean = get("mean", DurationSign::non_negative);
    const auto stddev = get("stddev", DurationSign::non_negative);
    if (mean && stddev) result = DurationDistribution::normal(*mean, *stddev);
  } else {
    const auto median = get("median", DurationSign::positive);
    const auto p99 = get("p99", DurationSign::positive);
    if (median && p99 && *p99 < *median) {
      error(key_path(path, "p99"), "p99 " + short_duration(*p99) + " is below median " +
                                       short_duration(*median) +
                                       "; the 99th percentile cannot be below the median, so make "
                                       "p99 at least the median");
    } else if (median && p99) {
      result = DurationDistribution::lognormal(*median, *p99);
    }
  }
  return total_ == before ? result : std::nullopt;
}

}  // namespace hasim
