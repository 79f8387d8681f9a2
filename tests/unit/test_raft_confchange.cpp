// models/raft/confchange: simple and joint configuration changes and restore (etcd-io/raft
// confchange/), the upstream confchange transcripts, and restore's round trip.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <numeric>

#include "models/raft/confchange.hpp"
#include "raft_conformance_files.hpp"

using namespace hasim::raft;

namespace {

ConfChangeSingle voter(PeerId id) { return {ConfChangeType::ConfChangeAddNode, id}; }
ConfChangeSingle learner(PeerId id) { return {ConfChangeType::ConfChangeAddLearnerNode, id}; }
ConfChangeSingle removal(PeerId id) { return {ConfChangeType::ConfChangeRemoveNode, id}; }

void install(ProgressTracker& trk, const ChangeResult& result) {
  REQUIRE(result.err == "");
  trk.config = result.cfg;
  trk.progress = result.progress;
}

// Restores cs into an empty tracker and checks that the tracker reports cs back.
bool restores(ConfState cs) {
  ProgressTracker trk(20, 0);
  const ChangeResult result = restore(Changer{trk, 10}, cs);
  if (!result.ok()) return false;
  install(trk, result);
  for (auto* ids : {&cs.voters, &cs.learners, &cs.votersOutgoing, &cs.learnersNext}) {
    std::sort(ids->begin(), ids->end());
  }
  return trk.conf_state() == cs;
}

}  // namespace

TEST_CASE("simple changes add, promote and demote one voter at a time", "[raft]") {
  ProgressTracker trk(10, 0);
  install(trk, Changer{trk, 5}.simple({voter(1)}));
  CHECK(trk.config.to_string() == "voters=(1)");
  CHECK(trk.progress.to_string() == "1: StateProbe match=0 next=5\n");
  install(trk, Changer{trk, 6}.simple({learner(2)}));
  install(trk, Changer{trk, 7}.simple({voter(2)}));  // promote
  CHECK(trk.config.to_string() == "voters=(1 2)");
  CHECK_FALSE(trk.progress.at(2).isLearner);
  CHECK(Changer{trk, 8}.simple({voter(3), voter(4)}).err ==
        "more than one voter changed without entering joint config");
  CHECK(Changer{trk, 8}.simple({removal(1), removal(2)}).err == "removed all voters");
  CHECK(Changer{trk, 8}.leave_joint().err == "can't leave a non-joint config");
  CHECK(Changer{trk, 8}.simple({{ConfChangeType::ConfChangeAddNode, None}}).ok());  // ignored
}

TEST_CASE("a demoted voter waits in learners_next until the joint config is left", "[raft]") {
  ProgressTracker trk(10, 0);
  CHECK(Changer{trk, 1}.enter_joint(false, {voter(1)}).err == "can't make a zero-voter config joint");
  install(trk, Changer{trk, 1}.simple({voter(1)}));
  install(trk, Changer{trk, 2}.enter_joint(true, {voter(2), learner(1)}));
  CHECK(trk.config.to_string() == "voters=(2)&&(1) learners_next=(1) autoleave");
  CHECK(Changer{trk, 3}.enter_joint(false, {}).err == "config is already joint");
  CHECK(Changer{trk, 3}.simple({voter(3)}).err == "can't apply simple config change in joint config");
  install(trk, Changer{trk, 3}.leave_joint());
  CHECK(trk.config.to_string() == "voters=(2) learners=(1)");
  CHECK(trk.progress.to_string() ==
        "1: StateProbe match=0 next=1 learner\n2: StateProbe match=0 next=2\n");
}

TEST_CASE("a refused change leaves the tracker as it was", "[raft]") {
  ProgressTracker trk(10, 0);
  install(trk, Changer{trk, 1}.simple({voter(1)}));
  const TrackerConfig before = trk.config;
  const ChangeResult refused = Changer{trk, 2}.simple({voter(2), voter(3)});
  CHECK_FALSE(refused.ok());
  CHECK((refused.cfg == TrackerConfig{} && refused.progress.empty()));
  CHECK(trk.config == before);
  CHECK(trk.progress.size() == 1);
}

TEST_CASE("restore rebuilds the configuration a ConfState describes", "[raft]") {
  CHECK(restores(ConfState{}));
  CHECK(restores(ConfState{{1, 2, 3}, {}, {}, {}, false}));
  CHECK(restores(ConfState{{1, 2, 3}, {4, 5, 6}, {}, {}, false}));
  CHECK(restores(ConfState{{1, 2, 3}, {5}, {1, 2, 4, 6}, {4}, false}));
  CHECK(restores(ConfState{{3, 1}, {5}, {6, 1}, {6}, true}));
}

TEST_CASE("restore round-trips random valid ConfStates", "[raft]") {
  // Upstream's TestRestore generator: disjoint voters, learners and removed voters; some
  // voters kept in the outgoing half; some removed voters staged as learners.
  rc::prop("conf_state(restore(cs)) == cs", [] {
    const int nVoters = *rc::gen::inRange(1, 6);
    const int nLearners = *rc::gen::inRange(0, 5);
    const int nRemoved = *rc::gen::inRange(0, 3);
    // IDs 1..2N in a random order (random sort keys, ties broken by ID).
    const std::size_t n = static_cast<std::size_t>(2 * (nVoters + nLearners + nRemoved));
    const auto keys = *rc::gen::container<std::vector<std::uint8_t>>(n, rc::gen::arbitrary<std::uint8_t>());
    std::vector<PeerId> perm(n);
    std::iota(perm.begin(), perm.end(), PeerId{1});
    std::stable_sort(perm.begin(), perm.end(),
                     [&keys](PeerId a, PeerId b) { return keys[a - 1] < keys[b - 1]; });
    ConfState cs;
    auto take = [&perm, at = std::size_t{0}](int count) mutable {
      std::vector<PeerId> out(perm.begin() + static_cast<std::ptrdiff_t>(at),
                              perm.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(count)));
      at += static_cast<std::size_t>(count);
      return out;
    };
    cs.voters = take(nVoters);
    cs.learners = take(nLearners);
    const std::vector<PeerId> removed = take(nRemoved);
    const int retained = *rc::gen::inRange(0, nVoters + 1);
    cs.votersOutgoing.assign(cs.voters.begin(), cs.voters.begin() + retained);
    cs.votersOutgoing.insert(cs.votersOutgoing.end(), removed.begin(), removed.end());
    if (nRemoved > 0) {
      const int staged = *rc::gen::inRange(0, nRemoved + 1);
      cs.learnersNext.assign(removed.begin(), removed.begin() + staged);
    }
    cs.autoLeave = !cs.votersOutgoing.empty() && *rc::gen::arbitrary<bool>();
    RC_ASSERT(restores(cs));
  });
}

TEST_CASE("the upstream confchange transcripts pass", "[raft]") {
  hasim::test::check_transcripts_pass("confchange/testdata", "confchange", 9);
}
