#pragma once
// Reads a parsed JSON document field by field, collecting errors instead of throwing. Every
// error names the JSON path ("$.faults[2].at"), what was found there and what is expected, so
// a user can fix a whole file in one pass. The loader (scenarios/loader.cpp) is built on it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

using Json = nlohmann::json;

struct JsonError {
  std::string path;
  std::string message;
};

enum class DurationSign { any, non_negative, positive };

// The longest duration a scenario may give anywhere, either sign (about 11 years): far beyond
// any useful run, and small enough that a clock reading plus a few such durations (a lease
// renewed at the latest reading, a timer, a fault's "at" plus "for") fits 64-bit nanoseconds.
inline constexpr Duration kMaxScenarioDuration = hours(100'000);

// Allowed keys of one kind of object, named as in scenarios/schema.json ("network",
// "fault:crash", "distribution:lognormal") so a test can check the two agree.
struct KeySet {
  std::string name;
  std::vector<std::string> keys;
};

// The distribution object forms: "distribution" (every key) and "distribution:<dist>".
const std::vector<KeySet>& distribution_key_sets();

// format_duration without Go's trailing zero units: "10m", "1h", "1m30s", "150ms".
std::string short_duration(Duration d);

class JsonReader {
 public:
  // More errors than this are counted but not kept: past it they are mostly echoes.
  static constexpr std::size_t kMaxErrors = 50;

  void error(const std::string& path, std::string message);
  // The collected errors; if some were dropped, a last entry says how many.
  std::vector<JsonError> errors() const;
  bool failed() const { return total_ > 0; }
  // Errors so far, dropped ones included: compare before and after reading a part.
  std::size_t error_count() const { return total_; }
  // Something that reads but that the file should change (an old name read as today's),
  // shown to the user beside the result; it never fails the load. Kept up to kMaxErrors.
  void note(const std::string& path, std::string message);
  // The collected notes; if some were dropped, a last entry says how many.
  std::vector<JsonError> notes() const;

  static std::string key_path(const std::string& path, std::string_view key);
  static std::string index_path(const std::string& path, std::size_t index);
  // What a value is, for "found ..." clauses: `number 5`, `"5x"`, `an object`, `null`.
  static std::string describe(const Json& value);
  // The message for a duration beyond kMaxScenarioDuration; `found` describes it.
  static std::string too_long(const std::string& found);
  // The member `key` of object `object`, or nullptr.
  static const Json* field(const Json& object, std::string_view key);

  // False (and an error) unless `value` is an object; reports each key not in `allowed`
  // with a did-you-mean. `what` names the object in messages ("a node", "the network").
  bool object(const Json& value, const std::string& path, const std::vector<std::string>& allowed,
              std::string_view what);
  // The member `key`, or nullptr and an error saying it is required (with an example value).
  const Json* required(const Json& object, const std::string& path, std::string_view key,
                       std::string_view example);
  // Reports each key of `object` that is in `known` (unknown ones were reported by object())
  // but not in `applicable` to `context` ("a crash fault"): keys that make no sense in this
  // variant of the object.
  void inapplicable(const Json& object, const std::string& path,
                    const std::vector<std::string>& known,
                    const std::vector<std::string>& applicable, std::string_view context);

  bool array(const Json& value, const std::string& path, std::string_view example);
  std::optional<std::string> string(const Json& value, const std::string& path);
  std::optional<std::int64_t> integer(const Json& value, const std::string& path, std::int64_t min,
                                      std::int64_t max);
  std::optional<std::uint64_t> unsigned_integer(const Json& value, const std::string& path);
  std::optional<double> number(const Json& value, const std::string& path);
  std::optional<bool> boolean(const Json& value, const std::string& path);
  std::optional<double> probability(const Json& value, const std::string& path);
  std::optional<Duration> duration(const Json& value, const std::string& path, DurationSign sign);
  // "1ms", "30s..90s", or {"dist": ..., ...}; every duration in it non-negative.
  std::optional<DurationDistribution> distribution(const Json& value, const std::string& path);
  // A non-empty array of distinct strings; `element` names them ("node names").
  std::optional<std::vector<std::string>> string_list(const Json& value, const std::string& path,
                                                      std::string_view element);

 private:
  std::optional<DurationDistribution> distribution_object(const Json& value,
                                                          const std::string& path);
  std::vector<JsonError> errors_;
  std::size_t total_ = 0;
  std::vector<JsonError> notes_;
  std::size_t total_notes_ = 0;
};

}  // namespace hasim
