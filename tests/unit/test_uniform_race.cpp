// The uniform-race model behind KEP-4355's "about a 25% chance": exact values, the closed
// form, and the rollback certainty.
#include <catch2/catch.hpp>

#include "reports/uniform_race.hpp"

using namespace hasim;

TEST_CASE("the uniform race gives the KEP's 25% for a 3-node upgrade", "[upgrade-report]") {
  const UniformRaceResult r = uniform_race(3, UpgradeDirection::upgrade);
  CHECK(r.one_lease == Fraction{1, 4});
  // Only "the 2nd node upgraded has the lease" (and it goes to the upgraded first node).
  REQUIRE(r.by_step.size() == 3);
  CHECK(r.by_step[0] == Fraction{0, 1});
  CHECK(r.by_step[1] == Fraction{1, 4});
  CHECK(r.by_step[2] == Fraction{0, 1});
  CHECK(r.two_leases == Fraction{7, 16});
  CHECK(r.one_lease.str() == "1/4");
  CHECK(r.one_lease.value() == 0.25);
}

TEST_CASE("the uniform race for 5 nodes is 131/256", "[upgrade-report]") {
  const UniformRaceResult r = uniform_race(5, UpgradeDirection::upgrade);
  CHECK(r.one_lease == Fraction{131, 256});
  REQUIRE(r.by_step.size() == 5);
  CHECK(r.by_step[1] == Fraction{1, 16});
  CHECK(r.by_step[2] == Fraction{5, 32});
  CHECK(r.by_step[3] == Fraction{75, 256});
  CHECK(r.by_step[4] == Fraction{0, 1});
  CHECK(r.two_leases == Fraction{49911, 65536});
}

TEST_CASE("the Markov chain agrees with the closed form for every size", "[upgrade-report]") {
  for (int n = kUniformRaceMinNodes; n <= kUniformRaceMaxNodes; ++n) {
    INFO("nodes " << n);
    CHECK(uniform_race(n, UpgradeDirection::upgrade).one_lease ==
          uniform_race_upgrade_closed_form(n));
  }
  CHECK(uniform_race(2, UpgradeDirection::upgrade).one_lease == Fraction{0, 1});
  CHECK(uniform_race(4, UpgradeDirection::upgrade).one_lease == Fraction{11, 27});
  // 1 - 10^8 / 9^9: the largest size, still exact.
  CHECK(uniform_race(10, UpgradeDirection::upgrade).one_lease == Fraction{287420489, 387420489});
}

TEST_CASE("a rollback under the uniform race always violates", "[upgrade-report]") {
  for (int n = kUniformRaceMinNodes; n <= kUniformRaceMaxNodes; ++n) {
    const UniformRaceResult r = uniform_race(n, UpgradeDirection::rollback);
    CHECK(r.one_lease == Fraction{1, 1});
    // Always when the first node comes back with the older kube-apiserver.
    CHECK(r.by_step[0] == Fraction{1, 1});
    CHECK(r.two_leases == Fraction{1, 1});
  }
}

TEST_CASE("any of independent leases", "[upgrade-report]") {
  CHECK(any_of_independent({1, 2}, 1) == Fraction{1, 2});
  CHECK(any_of_independent({1, 2}, 3) == Fraction{7, 8});
  CHECK(any_of_independent({0, 1}, 2) == Fraction{0, 1});
  CHECK(Fraction{0, 1}.str() == "0");
  CHECK(Fraction{1, 1}.str() == "1");
}
