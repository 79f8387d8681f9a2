// marshal writes into a buffer sized from the record (record.cpp): the largest integers,
// far times and identities long enough to leave the stack buffer come out whole.
#include <catch2/catch.hpp>

#include <climits>

#include "models/election/record.hpp"

using namespace hasim;
using namespace hasim::election;

TEST_CASE("marshal at its size bounds", "[election]") {
  LeaderElectionRecord record;
  record.leaseDurationSeconds = INT_MIN;
  record.leaderTransitions = INT_MAX;
  record.acquireTime = LocalTime{INT64_MAX};
  record.renewTime = LocalTime{INT64_MIN};
  const std::string small = marshal(record);
  CHECK(small.find("\"leaseDurationSeconds\":-2147483648,") != std::string::npos);
  CHECK(small.find("\"leaderTransitions\":2147483647,") != std::string::npos);
  // Whole seconds, rounded down: INT64_MIN's second lies below what a LocalTime holds, so the
  // text reads back as no record (not as a wrapped time); one second later reads back.
  CHECK_FALSE(unmarshal(small).has_value());
  record.renewTime = LocalTime{INT64_MIN + 1'000'000'000};
  const std::string readable = marshal(record);
  REQUIRE(unmarshal(readable).has_value());
  CHECK(unmarshal(readable)->leaderTransitions == INT_MAX);

  for (const std::size_t length : {0u, 100u, 156u, 157u, 400u, 5000u}) {
    LeaderElectionRecord big;
    big.holderIdentity = std::string(length, '"');  // each escaped: twice as long
    big.strategy = std::string(length, 'x');
    big.preferredHolder = std::string(length, '\\');
    const std::string text = marshal(big);
    CHECK(text.size() == 139 + 2 * length + length + 2 * length);
    REQUIRE(unmarshal(text).has_value());
    CHECK(*unmarshal(text) == big);
  }
}
