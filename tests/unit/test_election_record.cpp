// The leader-election record's JSON (marshal): the bytes electors compare as
// observedRawRecord, so they must be exactly encoding/json's for the record.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <string>

#include "models/election/record.hpp"

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
