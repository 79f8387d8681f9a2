// The leader-election record's JSON (marshal): the bytes electors compare as
// observedRawRecord, so they must be exactly encoding/json's for the record.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "models/election/identity.hpp"
#include "models/election/record.hpp"
#include "sim/rng.hpp"

using namespace hasim;
using namespace hasim::election;

namespace {

// encoding/json's string encoding for the characters identities use, one character at a time.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

TEST_CASE("marshal: the exact JSON of a record", "[election]") {
  CHECK(marshal(LeaderElectionRecord{}) ==
        "{\"holderIdentity\":\"\",\"leaseDurationSeconds\":0,\"acquireTime\":null,"
        "\"renewTime\":null,\"leaderTransitions\":0,\"strategy\":\"\",\"preferredHolder\":\"\"}");
  LeaderElectionRecord record;
  record.holderIdentity = "a\"b\\c\"";
  record.leaseDurationSeconds = 15;
  record.acquireTime = LocalTime{} + seconds(1);
  record.renewTime = LocalTime{} - nanoseconds(1);  // rounds down, into 2025
  record.leaderTransitions = -3;
  record.strategy = "OldestEmulationVersion";
  record.preferredHolder = "\\";
  CHECK(marshal(record) ==
        "{\"holderIdentity\":\"a\\\"b\\\\c\\\"\",\"leaseDurationSeconds\":15,"
        "\"acquireTime\":\"2026-01-01T00:00:01Z\",\"renewTime\":\"2025-12-31T23:59:59Z\","
        "\"leaderTransitions\":-3,\"strategy\":\"OldestEmulationVersion\","
        "\"preferredHolder\":\"\\\\\"}");
}

TEST_CASE("marshal escapes every string as encoding/json does", "[election]") {
  rc::prop("strings of quotes, backslashes and letters", [] {
    const auto gen_text =
        rc::gen::container<std::string>(rc::gen::elementOf(std::string("ab\"\\-_.")));
    LeaderElectionRecord record;
    record.holderIdentity = *gen_text;
    record.strategy = *gen_text;
    record.preferredHolder = *gen_text;
    const std::string expected =
        "{\"holderIdentity\":" + quoted(record.holderIdentity) +
        ",\"leaseDurationSeconds\":0,\"acquireTime\":null,\"renewTime\":null,"
        "\"leaderTransitions\":0,\"strategy\":" +
        quoted(record.strategy) + ",\"preferredHolder\":" + quoted(record.preferredHolder) + "}";
    RC_ASSERT(marshal(record) == expected);
    RC_ASSERT(unmarshal(marshal(record)) == record);
  });
}

TEST_CASE("marshal_equal answers whether two records marshal to the same text", "[election]") {
  rc::prop("records that differ in a field or fall in the same second", [] {
    const auto gen_text = rc::gen::elementOf(std::vector<std::string>{"", "a", "b", "a\"b"});
    // Times near one another and near a day's end, before and after 2026-01-01 (LocalTime 0),
    // so whole seconds often coincide; nullopt is Go's zero time.
    const auto gen_time = []() -> std::optional<LocalTime> {
      if (*rc::gen::inRange(0, 4) == 0) return std::nullopt;
      const auto day = *rc::gen::inRange<std::int64_t>(-2, 3);
      const auto ns = *rc::gen::inRange<std::int64_t>(0, 2'000'000'000);
      return LocalTime{day * 86'400'000'000'000 + ns - 1'000'000'000};
    };
    const auto gen_record = [&] {
      LeaderElectionRecord r;
      r.holderIdentity = *gen_text;
      r.leaseDurationSeconds = *rc::gen::inRange(14, 16);
      r.acquireTime = gen_time();
      r.renewTime = gen_time();
      r.leaderTransitions = *rc::gen::inRange(-1, 2);
      r.strategy = *gen_text;
      r.preferredHolder = *gen_text;
      return r;
    };
    const LeaderElectionRecord a = gen_record();
    LeaderElectionRecord b = a;
    if (*rc::gen::arbitrary<bool>()) {
      b = gen_record();
    } else if (b.renewTime.has_value()) {  // another instant of the same whole second
      const std::int64_t into = ((b.renewTime->ns % 1'000'000'000) + 1'000'000'000) % 1'000'000'000;
      b.renewTime = LocalTime{b.renewTime->ns - into + *rc::gen::inRange(0, 1'000'000'000)};
    }
    RC_ASSERT(marshal_equal(a, b) == (marshal(a) == marshal(b)));
    RC_TAG(marshal_equal(a, b));
  });
}

TEST_CASE("RFC 3339 seconds, alternating between days", "[election]") {
  // The date part is remembered between calls: switching days back and forth must not leak.
  const LocalTime midnight{};  // 2026-01-01T00:00:00Z
  for (int round = 0; round < 2; ++round) {
    CHECK(format_rfc3339_seconds(midnight + seconds(86399)) == "2026-01-01T23:59:59Z");
    CHECK(format_rfc3339_seconds(midnight + seconds(86400)) == "2026-01-02T00:00:00Z");
    CHECK(format_rfc3339_seconds(midnight - nanoseconds(1)) == "2025-12-31T23:59:59Z");
    CHECK(format_rfc3339_seconds(midnight + seconds(59 * 86400 + 3723)) == "2026-03-01T01:02:03Z");
  }
}

// The identity's UUID is written digit by digit; printf's formats, which it replaced (stop 43),
// are the reference: same draws, same text.
TEST_CASE("lock_identity: <hostname>_<uuid>, as printf formats the draws", "[election]") {
  rc::prop("lock_identity matches snprintf", [](std::uint64_t seed) {
    const std::string hostname =
        *rc::gen::element<std::string>("cp-1", "", "node-with-a-long-name");
    Rng drawn(seed);
    Rng reference(seed);
    const std::string identity = lock_identity(hostname, drawn);
    const std::uint64_t a = reference.next_u64();
    const std::uint64_t b = reference.next_u64();
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                  static_cast<unsigned>((b >> 48) & 0x3fff) | 0x8000,
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    RC_ASSERT(identity == hostname + "_" + uuid);
  });
}
