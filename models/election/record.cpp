#include "models/election/record.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "sim/assert.hpp"

namespace hasim::election {
namespace {

// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

constexpr std::int64_t kEpochUnixSeconds = 1'767'225'600;  // 2026-01-01T00:00:00Z

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

// Writes `value` as `width` decimal digits at `at` (zero-padded; higher digits dropped).
void put_digits(char* at, std::int64_t value, int width) {
  for (int k = width - 1; k >= 0; --k, value /= 10) at[k] = static_cast<char>('0' + value % 10);
}

constexpr std::size_t kRfc3339Length = 20;  // "YYYY-MM-DDTHH:MM:SSZ"

// Writes "YYYY-MM-DDTHH:MM:SSZ" at `text` (no temporary string: electors marshal a record on
// every Get, and a Monte Carlo trial does tens of thousands of Gets).

void write_rfc3339_seconds(char* text, LocalTime wall) {
  const std::int64_t unix_seconds = kEpochUnixSeconds + floor_div(wall.ns, 1'000'000'000);
  const std::int64_t days = floor_div(unix_seconds, 86400);
  const std::int64_t in_day = unix_seconds - days * 86400;
  // The date part, remembered per thread (a pure function of `days`): a run's records fall on
  // a day or two, so the civil calendar is worked out once for them.
  thread_local std::int64_t memo_days = std::numeric_limits<std::int64_t>::min();
  thread_local char memo_date[11];  // "YYYY-MM-DDT"
  if (days != memo_days) {
    std::int64_t y = 0;
    unsigned m = 0, d = 0;
    civil_from_days(days, y, m, d);
    std::memcpy(memo_date, "0000-00-00T", sizeof memo_date);
    put_digits(memo_date, y, 4);
    put_digits(memo_date + 5, m, 2);
    put_digits(memo_date + 8, d, 2);
    memo_days = days;
  }
  std::memcpy(text, memo_date, sizeof memo_date);
  std::memcpy(text + sizeof memo_date, "00:00:00Z", kRfc3339Length - sizeof memo_date);
  put_digits(text + 11, in_day / 3600, 2);
  put_digits(text + 14, in_day / 60 % 60, 2);
  put_digits(text + 17, in_day % 60, 2);
}

void append_rfc3339_seconds(std::string& out, LocalTime wall) {
  char text[kRfc3339Length];
  write_rfc3339_seconds(text, wall);
  out.append(text, kRfc3339Length);
}

// Writes the JSON text of a record into a buffer sized for it (marshal): no growth checks and
// no out-of-line appends, one allocation for the result. Electors marshal every record they
// read, and a Monte Carlo trial reads hundreds.
class JsonWriter {
 public:
  explicit JsonWriter(char* at) : at_(at) {}
  char* end() const { return at_; }
  void literal(std::string_view text) {
    std::memcpy(at_, text.data(), text.size());
    at_ += text.size();
  }
  // Go's encoding/json for the characters identities use: '"' and '\\' escaped.
  void string(std::string_view text) {
    *at_++ = '"';
    if (std::memchr(text.data(), '"', text.size()) == nullptr &&
        std::memchr(text.data(), '\\', text.size()) == nullptr) {
      literal(text);
    } else {
      for (char c : text) {
        if (c == '"' || c == '\\') *at_++ = '\\';
        *at_++ = c;
      }
    }
    *at_++ = '"';
  }
  void integer(int value) {
    const auto [end, error] = std::to_chars(at_, at_ + 12, value);  // int: at most 11 chars
    HASIM_ASSERT(error == std::errc{});
    at_ = end;
  }
  void time(const std::optional<LocalTime>& time) {
    if (!time.has_value()) return literal("null");  // metav1.Time's zero value
    *at_++ = '"';                                   // the text needs no escaping
    write_rfc3339_seconds(at_, *time);
    at_ += kRfc3339Length;
    *at_++ = '"';
  }

 private:
  char* at_;
};

std::optional<LocalTime> parse_time(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  const std::string text = value.get<std::string>();
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &s) != 6) {
    throw std::invalid_argument("bad time");
  }
  // days_from_civil (Hinnant), the inverse of civil_from_days.
  const std::int64_t yy = mo <= 2 ? y - 1 : y;
  const std::int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  const auto yoe = static_cast<unsigned>(yy - era * 400);
  const unsigned doy = static_cast<unsigned>((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = era * 146097 + static_cast<std::int64_t>(doe) - 719468;
  const std::int64_t unix_seconds = days * 86400 + h * 3600 + mi * 60 + s;
  // A time a LocalTime cannot hold (int64 ns around the epoch, about 292 years either way) is
  // an unreadable record here: Go's metav1.Time would hold it, no simulated clock reaches it.
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(unix_seconds - kEpochUnixSeconds, std::int64_t{1'000'000'000}, &ns)) {
    throw std::out_of_range("time out of range");
  }
  return LocalTime{ns};
}

}  // namespace

std::string format_rfc3339_seconds(LocalTime wall) {
  std::string out;
  append_rfc3339_seconds(out, wall);
  return out;
}

bool marshal_equal(const LeaderElectionRecord& a, const LeaderElectionRecord& b) {
  // Each field's text is a one-to-one function of it: strings escaped, ints in decimal, a time
  // as null or as RFC 3339 whole seconds (four-digit years: LocalTime spans 1734-2318).
  const auto same_text = [](const std::optional<LocalTime>& x, const std::optional<LocalTime>& y) {
    if (!x.has_value() || !y.has_value()) return x.has_value() == y.has_value();
    return floor_div(x->ns, 1'000'000'000) == floor_div(y->ns, 1'000'000'000);
  };
  return a.holderIdentity == b.holderIdentity && a.leaseDurationSeconds == b.leaseDurationSeconds &&
         same_text(a.acquireTime, b.acquireTime) && same_text(a.renewTime, b.renewTime) &&
         a.leaderTransitions == b.leaderTransitions && a.strategy == b.strategy &&
         a.preferredHolder == b.preferredHolder;
}

std::string marshal(const LeaderElectionRecord& r) {
  using namespace std::string_view_literals;  // literals with their length: no strlen
  // The names and punctuation take 123 bytes, two ints and two times at most 68; each string
  // at most doubles when escaped, plus its quotes.
  const std::size_t bound =
      200 + 2 * (r.holderIdentity.size() + r.strategy.size() + r.preferredHolder.size());
  constexpr std::size_t kStack = 512;
  char stack[kStack];
  std::string heap;
  if (bound > kStack) heap.resize(bound);  // long identities: rare
  char* const begin = bound > kStack ? heap.data() : stack;
  JsonWriter out(begin);
  out.literal("{\"holderIdentity\":"sv);
  out.string(r.holderIdentity);
  out.literal(",\"leaseDurationSeconds\":"sv);
  out.integer(r.leaseDurationSeconds);
  out.literal(",\"acquireTime\":"sv);
  out.time(r.acquireTime);
  out.literal(",\"renewTime\":"sv);
  out.time(r.renewTime);
  out.literal(",\"leaderTransitions\":"sv);
  out.integer(r.leaderTransitions);
  out.literal(",\"strategy\":"sv);
  out.string(r.strategy);
  out.literal(",\"preferredHolder\":"sv);
  out.string(r.preferredHolder);
  out.literal("}"sv);
  const auto length = static_cast<std::size_t>(out.end() - begin);
  HASIM_ASSERT(length <= bound);
  if (bound > kStack) {
    heap.resize(length);
    return heap;
  }
  return std::string(stack, length);
}

std::optional<LeaderElectionRecord> unmarshal(std::string_view text) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (!doc.is_object()) return std::nullopt;
    LeaderElectionRecord r;
    r.holderIdentity = doc.value("holderIdentity", std::string());
    r.leaseDurationSeconds = doc.value("leaseDurationSeconds", 0);
    if (doc.contains("acquireTime")) r.acquireTime = parse_time(doc["acquireTime"]);
    if (doc.contains("renewTime")) r.renewTime = parse_time(doc["renewTime"]);
    r.leaderTransitions = doc.value("leaderTransitions", 0);
    r.strategy = doc.value("strategy", std::string());
    r.preferredHolder = doc.value("preferredHolder", std::string());
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

api::LeaseSpec to_lease_spec(const LeaderElectionRecord& r) {
  api::LeaseSpec spec;
  spec.holderIdentity = r.holderIdentity;
  spec.leaseDurationSeconds = static_cast<std::int32_t>(r.leaseDurationSeconds);
  spec.acquireTime = r.acquireTime;
  spec.renewTime = r.renewTime;
  spec.leaseTransitions = static_cast<std::int32_t>(r.leaderTransitions);
  if (!r.strategy.empty()) spec.strategy = r.strategy;
  if (!r.preferredHolder.empty()) spec.preferredHolder = r.preferredHolder;
  return spec;
}

LeaderElectionRecord from_lease_spec(const api::LeaseSpec& spec) {
  LeaderElectionRecord r;
  r.holderIdentity = spec.holderIdentity.value_or("");
  r.leaseDurationSeconds = spec.leaseDurationSeconds.value_or(0);
  r.acquireTime = spec.acquireTime;
  r.renewTime = spec.renewTime;
  r.leaderTransitions = spec.leaseTransitions.value_or(0);
  r.strategy = spec.strategy.value_or("");
  r.preferredHolder = spec.preferredHolder.value_or("");
  return r;
}

}  // namespace hasim::election
