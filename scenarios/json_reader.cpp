#include "scenarios/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

constexpr std::string_view kDurationExpected = "a duration such as \"150ms\" or \"1.5s\"";
// Doubles at or beyond 2^53 are not exact integers; refuse to read them as counts.
constexpr double kExactIntegerLimit = 9007199254740992.0;

bool is_identifier(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
  });
}

}  // namespace

std::string JsonReader::too_long(const std::string& found) {
  return "expected a duration of at most " + short_duration(kMaxScenarioDuration) +
         " (about 11 years), found " + found +
         ": simulated time is 64-bit nanoseconds (about 292 years), and longer durations could "
         "overflow it when added to a clock reading; use a shorter duration";
}

std::string short_duration(Duration d) {
  std::string text = format_duration(d);
  auto drop = [&text](std::string_view zero, char after) {
    const std::size_t n = zero.size();
    if (text.size() > n && text.compare(text.size() - n, n, zero) == 0 &&
        text[text.size() - n - 1] == after) {
      text.resize(text.size() - n);
    }
  };
  drop("0s", 'm');
  drop("0m", 'h');
  return text;
}

namespace {

// `kept`, and if more were reported than kept, a last entry saying how many more, then `tail`.
std::vector<JsonError> with_dropped(const std::vector<JsonError>& kept, std::size_t total,
                                    std::string_view tail) {
  std::vector<JsonError> out = kept;
  if (total > kept.size()) {
    out.push_back({"$", "and " + std::to_string(total - kept.size()) + std::string(tail)});
  }
  return out;
}

}  // namespace

void JsonReader::error(const std::string& path, std::string message) {
  ++total_;
  if (errors_.size() < kMaxErrors) errors_.push_back({path, std::move(message)});
}

std::vector<JsonError> JsonReader::errors() const {
  return with_dropped(errors_, total_,
                      " more errors not shown; fix the ones above and validate again");
}

void JsonReader::note(const std::string& path, std::string message) {
  ++total_notes_;
  if (notes_.size() < kMaxErrors) notes_.push_back({path, std::move(message)});
}

std::vector<JsonError> JsonReader::notes() const {
  return with_dropped(notes_, total_notes_, " more notes like the ones above");
}

std::string JsonReader::key_path(const std::string& path, std::string_view key) {
  if (is_identifier(key)) return path + "." + std::string(key);
  return path + "[" + Json(std::string(key)).dump() + "]";
}

std::string JsonReader::index_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string JsonReader::describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number " + value.dump();
    case Json::value_t::string: {
      std::string text = value.dump();
      if (text.size() <= 60) return text;
      std::size_t cut = 56;  // keep whole UTF-8 characters
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      return text.substr(0, cut) + "...\"";
    }
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    default:
      return "an unsupported value";
  }
}

const Json* JsonReader::field(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool JsonReader::object(const Json& value, const std::string& path,
                        const std::vector<std::string>& allowed, std::string_view what) {
  if (!value.is_object()) {
    error(path, "expected an object {...} for " + std::string(what) + ", found " + describe(value));
    return false;
  }
  for (const auto& item : value.items()) {
    if (is_listed(allowed, item.key())) continue;
    error(key_path(path, item.key()), "unknown key \"" + item.key() + "\" in " + std::string(what) +
                                          did_you_mean(item.key(), allowed) +
                                          "; the allowed keys are " + join_words(allowed));
  }
  return true;
}

const Json* JsonReader::required(const Json& object, const std::string& path, std::string_view key,
                                 std::string_view example) {
  const Json* value = field(object, key);
  if (value == nullptr) {
    error(key_path(path, key), "required key \"" + std::string(key) + "\" is missing; add e.g. \"" +
                                   std::string(key) + "\": " + std::string(example));
  }
  return value;
}

void JsonReader::inapplicable(const Json& object, const std::string& path,
                              const std::vector<std::string>& known,
                              const std::vector<std::string>& applicable,
                              std::string_view context) {
  if (!object.is_object()) return;
  for (const auto& item : object.items()) {
    if (!is_listed(known, item.key()) || is_listed(applicable, item.key())) continue;
    error(key_path(path, item.key()), "key \"" + item.key() + "\" does not apply to " +
                                          std::string(context) + ", which takes only " +
                                          join_words(applicable) + "; remove it");
  }
}

bool JsonReader::array(const Json& value, const std::string& path, std::string_view example) {
  if (value.is_array()) return true;
  error(path, "expected an array such as " + std::string(example) + ", found " + describe(value));
  return false;
}

std::optional<std::string> JsonReader::string(const Json& value, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  error(path, "expected a string in double quotes, found " + describe(value));
  return std::nullopt;
}

std::optional<std::int64_t> JsonReader::integer(const Json& value, const std::string& path,
                                                std::int64_t min, std::int64_t max) {
  std::optional<std::int64_t> result;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(max)) result = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    result = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::trunc(d) == d && std::fabs(d) < kExactIntegerLimit) {
      result = static_cast<std::int64_t>(d);
    }
  }
  if (result && *result >= min && *result <= max) return result;
  error(path, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                  ", found " + describe(value));
  return std::nullopt;
}

std::optional<std::uint64_t> JsonReader::unsigned_integer(const Json& value,
                                                          const std::string& path) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::trunc(d) == d && d >= 0.0 && d < kExactIntegerLimit) {
      return static_cast<std::uint64_t>(d);
    }
  }
  error(path, "expected a whole number from 0 to 18446744073709551615, found " + describe(value));
  return std::nullopt;
}

std::optional<double> JsonReader::number(const Json& value, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  error(path, "expected a number, found " + describe(value));
  return std::nullopt;
}

std::optional<bool> JsonReader::boolean(const Json& value, const std::string& path) {
  if (value.is_boolean()) return value.get<bool>();
  error(path, "expected true or false (without quotes), found " + describe(value));
  return std::nullopt;
}

std::optional<double> JsonReader::probability(const Json& value, const std::string& path) {
  if (value.is_number()) {
    const double p = value.get<double>();
    if (p >= 0.0 && p <= 1.0) return p;
  }
  error(path, "expected a probability from 0 to 1 (e.g. 0.01 for 1%), found " + describe(value));
  return std::nullopt;
}

std::optional<Duration> JsonReader::duration(const Json& value, const std::string& path,
                                             DurationSign sign) {
  if (!value.is_string()) {
    error(path, "expected " + std::string(kDurationExpected) + ", found " + describe(value) +
                    "; write durations as quoted strings with a unit");
    return std::nullopt;
  }
  std::string problem;
  const auto d = parse_duration(value.get_ref<const std::string&>(), &problem);
  if (!d) {
    error(path, "expected " + std::string(kDurationExpected) + ", found " + describe(value) + ": " +
                    problem);
    return std::nullopt;
  }
  if (d->ns > kMaxScenarioDuration.ns || d->ns < -kMaxScenarioDuration.ns) {
    error(path, too_long(describe(value)));
    return std::nullopt;
  }
  if (sign == DurationSign::non_negative && d->ns < 0) {
    error(path, "expected a duration of zero or more, found " + describe(value) +
                    "; remove the minus sign");
    return std::nullopt;
  }
  if (sign == DurationSign::positive && d->ns <= 0) {
    error(path,
          "expected a duration greater than zero, found " + describe(value) + "; use e.g. \"1s\"");
    return std::nullopt;
  }
  return d;
}

std::optional<std::vector<std::string>> JsonReader::string_list(const Json& value,
                                                                const std::string& path,
                                                                std::string_view element) {
  if (!array(value, path, "[\"n1\", \"n2\"]")) return std::nullopt;
  if (value.empty()) {
    error(path, "expected at least one of the " + std::string(element) + ", found an empty array");
    return std::nullopt;
  }
  const std::size_t before = total_;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto s = string(value[i], index_path(path, i));
    if (!s) continue;
    if (!seen.insert(*s).second) {
      error(index_path(path, i),
            "\"" + *s + "\" is listed twice; list each of the " + std::string(element) + " once");
    }
    out.push_back(*s);
  }
  if (total_ != before) return std::nullopt;
  return out;
}

}  // namespace hasim
