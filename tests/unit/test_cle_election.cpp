// Coordinated Leader Election's pure decisions (election.go, v1beta1): candidate ranking for
// OldestEmulationVersion, strategy resolution, expiry. Reference:
// shared/reference/coordinated-leader-election.md §4.3, §4.4, §5, §9.1-9.3 (upstream
// election_test.go vectors), §9.8 D1-D7 (derived from the code, not from upstream tests) and
// §12 (the Priority field of KEP PR #5357).
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <memory>
#include <string>
#include <vector>

#include "models/election/coordinated_election.hpp"
#include "models/election/semver.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::literals;

namespace {

// A wall-clock reading far from zero, so "now - 1h" stays positive and distinct from the zero
// timestamp of a candidate whose creationTimestamp was never set.
constexpr LocalTime kNow = LocalTime{} + 960_h;
const std::string kOev(kOldestEmulationVersion);

std::shared_ptr<api::Object> make_candidate(std::string name, std::string emulation,
                                            std::string binary, LocalTime created = {},
                                            std::string strategy = kOev,
                                            std::optional<std::int32_t> priority = std::nullopt) {
  auto object = std::make_shared<api::Object>();
  object->key = {api::Kind::lease_candidate, "default", std::move(name)};
  object->creationTimestamp = created;
  object->candidate.leaseName = "kube-scheduler";
  object->candidate.emulationVersion = std::move(emulation);
  object->candidate.binaryVersion = std::move(binary);
  object->candidate.strategy = std::move(strategy);
  object->candidate.priority = priority;
  return object;
}

api::ObjectPtr candidate(std::string name, std::string emulation, std::string binary,
                         LocalTime created = {}) {
  return make_candidate(std::move(name), std::move(emulation), std::move(binary), created);
}

// pickBestStrategy's inputs: only the binary version and the strategy matter.
api::ObjectPtr with_strategy(std::string name, std::string binary, std::string strategy) {
  return make_candidate(std::move(name), binary, binary, {}, std::move(strategy));
}

api::ObjectPtr prioritised(std::string name, std::string emulation,
                           std::optional<std::int32_t> priority, LocalTime created = kNow) {
  return make_candidate(std::move(name), emulation, emulation, created, kOev, priority);
}

std::string name_of(const api::ObjectPtr& object) {
  return object == nullptr ? "<nil>" : object->key.name;
}

std::string strategy_or_error(const std::vector<api::ObjectPtr>& candidates) {
  const auto result = pick_best_strategy(candidates);
  if (const auto* error = std::get_if<StrategyError>(&result)) return "error: " + error->message;
  return std::get<std::string>(result);
}

SemVer semver(std::string_view text) {
  const std::optional<SemVer> parsed = parse_semver(text);
  REQUIRE(parsed.has_value());
  return *parsed;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// §9.1 compare(lhs, rhs) [upstream TestCompare]

TEST_CASE("compare_candidates: upstream TestCompare vectors", "[cle]") {
  struct Case {
    const char* name;
    api::ObjectPtr lhs;
    api::ObjectPtr rhs;
    int expected;
  };
  // Upstream's first case creates lhs one nanosecond after rhs; our creationTimestamp is a
  // nanosecond LocalTime, so the difference survives as it does in Go's metav1.Time.
  const std::vector<Case> cases = {
      {"identical versions, lhs created 1ns later", candidate("a", "1.20.0", "1.21.0", kNow + 1_ns),
       candidate("b", "1.20.0", "1.21.0", kNow), 1},
      {"no lhs versions", candidate("a", "", ""), candidate("b", "1.20.0", "1.21.0"), -1},
      {"no rhs versions", candidate("a", "1.20.0", "1.21.0"), candidate("b", "", ""), 1},
      {"invalid lhs versions", candidate("a", "xyz", "xyz"), candidate("b", "1.20.0", "1.21.0"),
       -1},
      {"invalid rhs versions", candidate("a", "1.20.0", "1.21.0"), candidate("b", "xyz", "xyz"), 1},
      {"lower lhs emulation version", candidate("a", "1.19.0", "1.20.0"),
       candidate("b", "1.20.0", "1.20.0"), -1},
      {"higher lhs emulation version", candidate("a", "1.20.0", "1.20.0"),
       candidate("b", "1.19.0", "1.20.0"), 1},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(compare_candidates(*c.lhs, *c.rhs) == c.expected);
  }
}

TEST_CASE("compare_candidates: binary version, then creation time, never the name", "[cle]") {
  // Equal emulation versions: the lower binary version wins, whatever the timestamps.
  CHECK(compare_candidates(*candidate("a", "1.20.0", "1.20.0", kNow),
                           *candidate("b", "1.20.0", "1.21.0", kNow - 1_h)) == -1);
  CHECK(compare_candidates(*candidate("a", "1.20.0", "1.21.0", kNow - 1_h),
                           *candidate("b", "1.20.0", "1.20.0", kNow)) == 1);
  // Emulation version dominates the binary version.
  CHECK(compare_candidates(*candidate("a", "1.19.0", "1.22.0"),
                           *candidate("b", "1.20.0", "1.20.0")) == -1);
  // Versions equal after ParseTolerant ("1.20" and "v1.20.0") go on to the timestamp.
  CHECK(compare_candidates(*candidate("a", "1.20", "v1.21.0", kNow - 1_s),
                           *candidate("b", "1.20.0", "1.21.0", kNow)) == -1);
  // A pre-release ranks below its release: the older (better) leader.
  CHECK(compare_candidates(*candidate("a", "1.20.0-rc.1", "1.20.0-rc.1"),
                           *candidate("b", "1.20.0", "1.20.0")) == -1);
  // Full tie: lhs is favoured in both orders, so the answer depends on the argument order and
  // the name ("a" < "b") plays no part.
  const api::ObjectPtr a = candidate("a", "1.20.0", "1.20.0", kNow);
  const api::ObjectPtr b = candidate("b", "1.20.0", "1.20.0", kNow);
  CHECK(compare_candidates(*a, *b) == -1);
  CHECK(compare_candidates(*b, *a) == -1);
  // Earlier creation wins.
  CHECK(compare_candidates(*candidate("z", "1.20.0", "1.20.0", kNow - 1_ns), *a) == -1);
  CHECK(compare_candidates(*a, *candidate("z", "1.20.0", "1.20.0", kNow - 1_ns)) == 1);
}

// ---------------------------------------------------------------------------------------------
// §9.2 pickBestLeaderOldestEmulationVersion [upstream TestPickBestLeaderOldestEmulationVersion]

TEST_CASE("pick_best_leader_oldest_emulation_version: upstream vectors", "[cle]") {
  struct Case {
    const char* name;
    std::vector<api::ObjectPtr> candidates;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"no candidates", {}, "<nil>"},
      {"single candidate", {candidate("candidate1", "0.1.0", "0.1.0", kNow)}, "candidate1"},
      {"lower emulation version wins",
       {candidate("candidate1", "0.1.0", "0.1.0", kNow - 1_h),
        candidate("candidate2", "0.2.0", "0.2.0", kNow)},
       "candidate1"},
      {"equal emulation version, lower binary version wins",
       {candidate("candidate1", "0.1.0", "0.1.0", kNow - 1_h),
        candidate("candidate2", "0.1.0", "0.2.0", kNow)},
       "candidate1"},
      {"equal versions, older creation wins",
       {candidate("candidate1", "0.1.0", "0.1.0", kNow - 1_h),
        candidate("candidate2", "0.1.0", "0.1.0", kNow)},
       "candidate1"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(name_of(pick_best_leader_oldest_emulation_version(c.candidates)) == c.expected);
  }
}

TEST_CASE("pick_best_leader_oldest_emulation_version: pre-filter and order", "[cle]") {
  // compare alone would rank the unparseable candidate as 0.0.0, the best; the picker drops it
  // before ranking.
  const api::ObjectPtr garbage = candidate("garbage", "xyz", "1.20.0", kNow - 1_h);
  const api::ObjectPtr no_binary = candidate("no-binary", "1.19.0", "", kNow - 1_h);
  const api::ObjectPtr valid = candidate("valid", "1.20.0", "1.20.0", kNow);
  CHECK(compare_candidates(*garbage, *valid) == -1);
  CHECK(name_of(pick_best_leader_oldest_emulation_version({garbage, no_binary, valid})) == "valid");
  CHECK(name_of(pick_best_leader_oldest_emulation_version({valid, garbage})) == "valid");
  CHECK(pick_best_leader_oldest_emulation_version({garbage, no_binary}) == nullptr);

  // Identical versions and timestamps: the first in list order stays (no name tie-break).
  const api::ObjectPtr x = candidate("x", "1.20.0", "1.20.0", kNow);
  const api::ObjectPtr y = candidate("y", "1.20.0", "1.20.0", kNow);
  CHECK(pick_best_leader_oldest_emulation_version({x, y}) == x);
  CHECK(pick_best_leader_oldest_emulation_version({y, x}) == y);

  // The best may come anywhere in the list.
  const api::ObjectPtr oldest = candidate("oldest", "1.19.0", "1.20.0", kNow + 1_h);
  CHECK(pick_best_leader_oldest_emulation_version({x, y, oldest}) == oldest);
  CHECK(pick_best_leader_oldest_emulation_version({oldest, x, y}) == oldest);
}

// ---------------------------------------------------------------------------------------------
// §9.3 validity and getters [upstream TestValidLeaseCandidateForOldestEmulationVersion,
// TestGetEmulationVersion, TestGetBinaryVersion]. Upstream's TestShouldReelect is not ported:
// shouldReelect was removed from election.go, so there is nothing here to test against.

TEST_CASE("valid_for_oldest_emulation_version: upstream vectors", "[cle]") {
  CHECK(valid_for_oldest_emulation_version(*candidate("c", "0.1.0", "0.1.0")));
  CHECK_FALSE(valid_for_oldest_emulation_version(*candidate("c", "invalid", "0.1.0")));
  CHECK_FALSE(valid_for_oldest_emulation_version(*candidate("c", "0.1.0", "invalid")));
  // ParseTolerant, not Parse: what API validation would refuse still counts as valid here.
  CHECK(valid_for_oldest_emulation_version(*candidate("c", "v0.1", " 0.1.0 ")));
  CHECK_FALSE(valid_for_oldest_emulation_version(*candidate("c", "", "0.1.0")));
}

TEST_CASE("emulation/binary_version_or_zero: upstream getter vectors", "[cle]") {
  CHECK(emulation_version_or_zero(*candidate("c", "0.1.0", "0.3.0")) == semver("0.1.0"));
  CHECK(binary_version_or_zero(*candidate("c", "0.1.0", "0.3.0")) == semver("0.3.0"));
  CHECK(emulation_version_or_zero(*candidate("c", "xyz", "")) == SemVer{});
  CHECK(binary_version_or_zero(*candidate("c", "xyz", "")) == SemVer{});
  CHECK(binary_version_or_zero(*candidate("c", "", "1.31")) == semver("1.31.0"));
}

// ---------------------------------------------------------------------------------------------
// §9.8 D1-D7 pickBestStrategy (v1beta1). Derived from the code, not from upstream tests.

TEST_CASE("pick_best_strategy: derived vectors D1-D7", "[cle]") {
  const std::string third_party = "x.io/y";
  const auto a = [&](std::string binary, std::string strategy) {
    return with_strategy("A", std::move(binary), std::move(strategy));
  };
  const auto b = [&](std::string binary, std::string strategy) {
    return with_strategy("B", std::move(binary), std::move(strategy));
  };
  const auto c = [&](std::string binary, std::string strategy) {
    return with_strategy("C", std::move(binary), std::move(strategy));
  };

  // D1: a single candidate decides.
  CHECK(strategy_or_error({a("1.20.0", kOev)}) == kOev);
  // D2, D3: the highest binary version's strategy wins, in either order.
  CHECK(strategy_or_error({a("1.20.0", kOev), b("1.21.0", third_party)}) == third_party);
  CHECK(strategy_or_error({a("1.21.0", third_party), b("1.20.0", kOev)}) == third_party);
  // D4: equal binary versions naming different strategies is a user error.
  CHECK(strategy_or_error({a("1.20.0", kOev), b("1.20.0", third_party)}) ==
        "error: candidates A, B have the same binary version 1.20.0 but different strategies "
        "OldestEmulationVersion, x.io/y");
  // D5, D6: order dependence. C (1.21.0) would settle it, but in order A, B, C the walk fails
  // at B first; with C first, A and B are simply lower and ignored.
  CHECK(strategy_or_error({a("1.20.0", "S1"), b("1.20.0", "S2"), c("1.21.0", "S1")}) ==
        "error: candidates A, B have the same binary version 1.20.0 but different strategies "
        "S1, S2");
  CHECK(strategy_or_error({c("1.21.0", "S1"), a("1.20.0", "S1"), b("1.20.0", "S2")}) == "S1");
  // D7
  CHECK(strategy_or_error({}) == "error: no candidates");
}

TEST_CASE("pick_best_strategy: no pre-filter, unparseable binary versions are 0.0.0", "[cle]") {
  // Unlike the OEV picker, nothing is filtered: "garbage" takes part as 0.0.0 and conflicts
  // with an explicit 0.0.0, but loses to any real version.
  CHECK(
      strategy_or_error({with_strategy("A", "garbage", "S1"), with_strategy("B", "0.0.0", "S2")}) ==
      "error: candidates A, B have the same binary version 0.0.0 but different strategies "
      "S1, S2");
  CHECK(strategy_or_error(
            {with_strategy("A", "garbage", "S1"), with_strategy("B", "1.0.0", "S2")}) == "S2");
  // The same strategy at the same version is no conflict, and the seed's name is replaced
  // only by a strictly higher version: the error names the candidate that set the version.
  CHECK(strategy_or_error({with_strategy("A", "1.20.0", "S1"), with_strategy("B", "1.20.0", "S1"),
                           with_strategy("C", "1.20", "S2")}) ==
        "error: candidates A, C have the same binary version 1.20.0 but different strategies "
        "S1, S2");
  CHECK(strategy_or_error({with_strategy("A", "1.20.0", "S1"), with_strategy("B", "1.21.0", "S2"),
                           with_strategy("C", "1.21.0", "S1")}) ==
        "error: candidates B, C have the same binary version 1.21.0 but different strategies "
        "S2, S1");
  // A pre-release is below its release.
  CHECK(strategy_or_error(
            {with_strategy("A", "1.21.0", "S1"), with_strategy("B", "1.21.0-rc.1", "S2")}) == "S1");
}

// ---------------------------------------------------------------------------------------------
// Expiry: strict Before on both sides, so the boundary instant itself is not expired.

TEST_CASE("is_lease_candidate_expired: nil renewTime and the 30 min boundary", "[cle]") {
  auto object = make_candidate("c", "1.0.0", "1.0.0");
  CHECK(is_lease_candidate_expired(*object, kNow));  // never renewed

  object->candidate.renewTime = kNow - kLeaseCandidateValidDuration;
  CHECK_FALSE(is_lease_candidate_expired(*object, kNow));
  CHECK(is_lease_candidate_expired(*object, kNow + 1_ns));

  object->candidate.renewTime = kNow;
  CHECK_FALSE(is_lease_candidate_expired(*object, kNow));
  CHECK_FALSE(is_lease_candidate_expired(*object, kNow - 1_h));  // renewed "in the future"
  CHECK_FALSE(is_lease_candidate_expired(*object, kNow + 30_min));
  CHECK(is_lease_candidate_expired(*object, kNow + 30_min + 1_ns));
  // pingTime plays no part.
  object->candidate.renewTime.reset();
  object->candidate.pingTime = kNow;
  CHECK(is_lease_candidate_expired(*object, kNow));
}

TEST_CASE("is_lease_expired: nil fields and the leaseDurationSeconds boundary", "[cle]") {
  api::LeaseSpec lease;
  CHECK(is_lease_expired(lease, kNow));  // neither renewTime nor leaseDurationSeconds

  lease.leaseDurationSeconds = 15;
  CHECK(is_lease_expired(lease, kNow));  // renewTime nil
  lease.renewTime = kNow;
  lease.leaseDurationSeconds.reset();
  CHECK(is_lease_expired(lease, kNow));  // leaseDurationSeconds nil

  lease.leaseDurationSeconds = 15;
  lease.renewTime = kNow - 15_s;
  CHECK_FALSE(is_lease_expired(lease, kNow));
  CHECK(is_lease_expired(lease, kNow + 1_ns));
  lease.renewTime = kNow - 15_s - 1_ns;
  CHECK(is_lease_expired(lease, kNow));

  // LDS 0: live only at renewTime itself.
  lease.leaseDurationSeconds = 0;
  lease.renewTime = kNow;
  CHECK_FALSE(is_lease_expired(lease, kNow));
  CHECK(is_lease_expired(lease, kNow + 1_ns));

  // The holder and strategy do not matter.
  lease.leaseDurationSeconds = 5;
  lease.holderIdentity = "c";
  lease.strategy = kOev;
  CHECK_FALSE(is_lease_expired(lease, kNow + 5_s));
  CHECK(is_lease_expired(lease, kNow + 5_s + 1_ns));
}

// ---------------------------------------------------------------------------------------------
// Priority mode (KEP PR #5357, not implemented upstream).

TEST_CASE("pick_best_leader_with_priority", "[cle]") {
  SECTION("the highest priority wins even with a newer version") {
    const std::vector<api::ObjectPtr> candidates = {prioritised("old", "1.29.0", std::nullopt),
                                                    prioritised("new", "1.30.0", 100),
                                                    prioritised("older", "1.28.0", 50)};
    CHECK(name_of(pick_best_leader_with_priority(candidates)) == "new");
  }
  SECTION("ties at the highest priority go to OldestEmulationVersion") {
    const std::vector<api::ObjectPtr> candidates = {
        prioritised("p100-new", "1.30.0", 100), prioritised("p100-old", "1.29.0", 100),
        prioritised("p50-oldest", "1.28.0", 50), prioritised("none-oldest", "1.27.0", {})};
    CHECK(name_of(pick_best_leader_with_priority(candidates)) == "p100-old");
    // and within equal versions, the earlier creation
    const std::vector<api::ObjectPtr> same_versions = {
        prioritised("later", "1.30.0", 7, kNow), prioritised("earlier", "1.30.0", 7, kNow - 1_s)};
    CHECK(name_of(pick_best_leader_with_priority(same_versions)) == "earlier");
  }
  SECTION("no priorities: plain OldestEmulationVersion") {
    const std::vector<api::ObjectPtr> candidates = {
        prioritised("b", "1.30.0", std::nullopt), prioritised("a", "1.29.0", std::nullopt),
        candidate("garbage", "xyz", "xyz"), prioritised("c", "1.29.0", std::nullopt, kNow + 1_s)};
    CHECK(pick_best_leader_with_priority(candidates) ==
          pick_best_leader_oldest_emulation_version(candidates));
    CHECK(name_of(pick_best_leader_with_priority(candidates)) == "a");
    CHECK(pick_best_leader_with_priority({}) == nullptr);
  }
  SECTION("a priority of zero or below counts as unset") {
    const std::vector<api::ObjectPtr> candidates = {prioritised("zero", "1.30.0", 0),
                                                    prioritised("negative", "1.31.0", -5),
                                                    prioritised("unset", "1.29.0", std::nullopt)};
    CHECK(name_of(pick_best_leader_with_priority(candidates)) == "unset");
    std::vector<api::ObjectPtr> with_one = candidates;
    with_one.push_back(prioritised("one", "1.32.0", 1));
    CHECK(name_of(pick_best_leader_with_priority(with_one)) == "one");
  }
  SECTION("a prioritised candidate with unparseable versions is skipped") {
    // Our reading (the KEP is silent): the ranking strategy cannot rank it, so the highest
    // priority is taken among the candidates OldestEmulationVersion accepts.
    const std::vector<api::ObjectPtr> candidates = {
        make_candidate("garbage", "xyz", "xyz", kNow, kOev, 1000), prioritised("p5", "1.30.0", 5),
        prioritised("unset", "1.28.0", std::nullopt)};
    CHECK(name_of(pick_best_leader_with_priority(candidates)) == "p5");
    CHECK(pick_best_leader_with_priority({candidates[0]}) == nullptr);
  }
}

// ---------------------------------------------------------------------------------------------
// Properties.

namespace {

// Versions as they may reach the controller: strict, tolerant-only, pre-release, build
// metadata, and unparseable (which compare reads as 0.0.0).
const std::vector<std::string> kVersionPool = {
    "1.19.0",       "1.20.0", "1.20", "v1.20.0", "1.21.0-rc.1", "1.21.0-alpha", "1.21.0",
    "1.21.0+build", "0.0.0",  "xyz",  "",        "01.20.0",     "1.2-rc"};

rc::Gen<api::ObjectPtr> gen_candidate(std::string name) {
  return rc::gen::exec([name] {
    const std::string emulation = *rc::gen::elementOf(kVersionPool);
    const std::string binary = *rc::gen::elementOf(kVersionPool);
    // A few whole seconds, so creation ties (metav1.Time has 1 s resolution) are common.
    const LocalTime created = kNow + seconds(*rc::gen::inRange<std::int64_t>(0, 4));
    std::optional<std::int32_t> priority;
    if (*rc::gen::inRange(0, 3) == 0) priority = *rc::gen::inRange<std::int32_t>(-1, 4);
    return api::ObjectPtr(make_candidate(name, emulation, binary, created, kOev, priority));
  });
}

std::vector<api::ObjectPtr> gen_candidates() {
  const int count = *rc::gen::inRange(0, 9);
  std::vector<api::ObjectPtr> candidates;
  for (int i = 0; i < count; ++i) {
    candidates.push_back(*gen_candidate("c" + std::to_string(i)));
  }
  return candidates;
}

}  // namespace

TEST_CASE("compare_candidates is antisymmetric when creation timestamps differ", "[cle]") {
  rc::prop("compare(a, b) == -compare(b, a), and the result is -1 or 1", [] {
    const api::ObjectPtr a = *gen_candidate("a");
    api::ObjectPtr b = *gen_candidate("b");
    if (b->creationTimestamp == a->creationTimestamp) {
      auto shifted = std::make_shared<api::Object>(*b);
      shifted->creationTimestamp = a->creationTimestamp + 1_ns;
      b = shifted;
    }
    const int ab = compare_candidates(*a, *b);
    RC_ASSERT(ab * ab == 1);
    RC_ASSERT(compare_candidates(*b, *a) == -ab);
  });
}

TEST_CASE("the OEV picker's choice is never beaten by a valid candidate", "[cle]") {
  rc::prop("no valid candidate compares better than the electee", [] {
    const std::vector<api::ObjectPtr> candidates = gen_candidates();
    const api::ObjectPtr electee = pick_best_leader_oldest_emulation_version(candidates);
    bool any_valid = false;
    for (const api::ObjectPtr& c : candidates) {
      if (!valid_for_oldest_emulation_version(*c)) continue;
      any_valid = true;
      RC_ASSERT(electee != nullptr);
      // compare never answers 0; -1 means "the electee is at least as good as c".
      RC_ASSERT(compare_candidates(*electee, *c) == -1);
    }
    RC_ASSERT(any_valid == (electee != nullptr));
    if (electee != nullptr) {
      RC_ASSERT(valid_for_oldest_emulation_version(*electee));
      RC_ASSERT(std::find(candidates.begin(), candidates.end(), electee) != candidates.end());
    }
  });
  rc::prop("with priorities, the electee has the highest priority and is not beaten within it", [] {
    const std::vector<api::ObjectPtr> candidates = gen_candidates();
    const api::ObjectPtr electee = pick_best_leader_with_priority(candidates);
    const auto priority = [](const api::ObjectPtr& c) {
      return std::max(c->candidate.priority.value_or(0), 0);
    };
    std::int32_t highest = 0;
    bool any_valid = false;
    for (const api::ObjectPtr& c : candidates) {
      if (!valid_for_oldest_emulation_version(*c)) continue;
      any_valid = true;
      highest = std::max(highest, priority(c));
    }
    RC_ASSERT(any_valid == (electee != nullptr));
    if (electee == nullptr) return;
    RC_ASSERT(valid_for_oldest_emulation_version(*electee));
    RC_ASSERT(priority(electee) == highest);
    for (const api::ObjectPtr& c : candidates) {
      if (!valid_for_oldest_emulation_version(*c) || priority(c) != highest) continue;
      RC_ASSERT(compare_candidates(*electee, *c) == -1);
    }
  });
}

TEST_CASE("ranking stays right past the version memo's capacity", "[cle]") {
  // More distinct version strings than the per-thread memo keeps (64), in one pick and across
  // calls: the memo is dropped only between rankings, never under one.
  std::vector<api::ObjectPtr> candidates;
  for (int minor = 200; minor > 100; --minor) {
    const std::string version = "1." + std::to_string(minor) + ".0";
    candidates.push_back(make_candidate("c" + std::to_string(minor), version, version, kNow));
  }
  CHECK(name_of(pick_best_leader_oldest_emulation_version(candidates)) == "c101");
  CHECK(name_of(pick_best_leader_with_priority(candidates)) == "c101");
  CHECK(std::get<std::string>(pick_best_strategy(candidates)) == kOev);
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    CHECK(compare_candidates(*candidates[i - 1], *candidates[i]) == 1);
    CHECK(compare_candidates(*candidates[i], *candidates[i - 1]) == -1);
  }
  CHECK(emulation_version_or_zero(*candidates.back()) == semver("1.101.0"));
}
