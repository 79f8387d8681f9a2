// models/raft/inflights, progress, tracker: the in-flight window, a follower's Progress and
// the ProgressTracker (etcd-io/raft tracker/), with cases after upstream's unit tests.
#include <catch2/catch.hpp>

#include "models/raft/tracker.hpp"

using namespace hasim::raft;

namespace {

using State = ProgressStateType;

Progress progress(State state, Index match, Index next) {
  Progress pr;
  pr.state = state;
  pr.match = match;
  pr.next = next;
  pr.inflights = Inflights(256, 0);
  return pr;
}

}  // namespace

TEST_CASE("Inflights grows by doubling up to its size", "[raft]") {
  Inflights in(10, 0);
  CHECK(in.capacity() == 0);
  const std::vector<std::size_t> capacities{1, 2, 4, 4, 8, 8, 8, 8, 10, 10};
  for (std::size_t i = 0; i < capacities.size(); ++i) {
    REQUIRE_FALSE(in.full());
    in.add(i, 100 + i);
    CHECK(in.capacity() == capacities[i]);
  }
  CHECK(in.full());
  CHECK(in.count() == 10);
  CHECK(in.bytes() == 1045);
}

TEST_CASE("Inflights wraps around its ring and frees in index order", "[raft]") {
  Inflights in(10, 0);
  for (Index i = 0; i < 10; ++i) in.add(i, 100 + i);
  in.free_le(4);  // window 5..9, starting mid-buffer
  CHECK(in.count() == 5);
  CHECK(in.bytes() == 105 + 106 + 107 + 108 + 109);
  for (Index i = 10; i < 15; ++i) in.add(i, 100 + i);  // slots 0..4: wrapped
  CHECK(in.full());
  CHECK(in.capacity() == 10);
  in.free_le(3);  // below the window: nothing
  CHECK(in.count() == 10);
  in.free_le(12);
  CHECK(in.count() == 2);
  CHECK(in.bytes() == 113 + 114);
  in.free_le(14);
  CHECK(in.count() == 0);
  CHECK(in.bytes() == 0);
  // Emptied, the window restarts at slot 0 and does not need more room.
  in.add(20, 1);
  CHECK(in.capacity() == 10);
}

TEST_CASE("Inflights is full at its count or (soft) byte limit", "[raft]") {
  struct Case {
    int size;
    std::uint64_t maxBytes;
    int fullAt;
    Index freeLE;
    int againAt;
  };
  // Upstream's TestInflightsFull table (bytes of message i: 100 + i).
  const std::vector<Case> cases{{0, 0, 0, 0, 0},      {1, 0, 1, 1, 2},    {1, 10, 1, 1, 2},
                                {15, 0, 15, 6, 22},   {8, 400, 4, 2, 7},  {8, 406, 4, 3, 8},
                                {15, 408, 5, 1, 6}};
  for (const Case& c : cases) {
    INFO("size " << c.size << " maxBytes " << c.maxBytes);
    Inflights in(c.size, c.maxBytes);
    const auto add_until_full = [&in](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        REQUIRE_FALSE(in.full());
        in.add(static_cast<Index>(i), static_cast<std::uint64_t>(100 + i));
      }
      REQUIRE(in.full());
    };
    add_until_full(0, c.fullAt);
    in.free_le(c.freeLE);
    add_until_full(c.fullAt, c.againAt);
  }
}

TEST_CASE("Inflights reset forgets messages and bytes", "[raft]") {
  Inflights in(10, 1000);
  Index index = 0;
  for (int epoch = 0; epoch < 100; ++epoch) {
    in.reset();
    for (int i = 0; i < 5; ++i) {
      REQUIRE_FALSE(in.full());
      in.add(++index, 16);
    }
    in.free_le(index - 2);
    REQUIRE_FALSE(in.full());
    REQUIRE(in.count() == 2);
  }
  in.free_le(index);
  CHECK(in.count() == 0);
  const Inflights copy = in.clone();
  CHECK(copy.count() == 0);
}

TEST_CASE("Progress prints as upstream's String()", "[raft]") {
  Progress pr;
  pr.match = 1;
  pr.next = 2;
  pr.state = State::StateSnapshot;
  pr.pendingSnapshot = 123;
  pr.recentActive = false;
  pr.msgAppFlowPaused = true;
  pr.isLearner = true;
  pr.inflights = Inflights(1, 0);
  pr.inflights.add(123, 1);
  CHECK(pr.to_string() ==
        "StateSnapshot match=1 next=2 learner paused pendingSnap=123 inactive inflight=1[full]");
  ProgressMap m;
  m[2] = progress(State::StateReplicate, 4, 5);
  m[2].recentActive = true;
  m[1] = progress(State::StateProbe, 0, 1);
  CHECK(m.to_string() == "1: StateProbe match=0 next=1 inactive\n2: StateReplicate match=4 next=5\n");
}

TEST_CASE("Progress is paused in StateSnapshot, else when its flow is", "[raft]") {
  for (const State state : {State::StateProbe, State::StateReplicate, State::StateSnapshot}) {
    for (const bool paused : {false, true}) {
      Progress pr = progress(state, 0, 1);
      pr.msgAppFlowPaused = paused;
      CHECK(pr.is_paused() == (paused || state == State::StateSnapshot));
    }
  }
  Progress pr = progress(State::StateProbe, 0, 2);
  pr.msgAppFlowPaused = true;
  pr.maybe_decr_to(1, 1);
  CHECK_FALSE(pr.msgAppFlowPaused);
  pr.msgAppFlowPaused = true;
  pr.maybe_update(2);
  CHECK_FALSE(pr.msgAppFlowPaused);
}

TEST_CASE("Progress state transitions set next as upstream's do", "[raft]") {
  Progress replicate = progress(State::StateReplicate, 1, 5);
  replicate.become_probe();
  CHECK((replicate.state == State::StateProbe && replicate.next == 2));
  Progress finished = progress(State::StateSnapshot, 1, 5);
  finished.pendingSnapshot = 10;
  finished.become_probe();
  CHECK((finished.next == 11 && finished.pendingSnapshot == 0));
  Progress failed = progress(State::StateSnapshot, 1, 5);
  failed.become_probe();
  CHECK(failed.next == 2);
  Progress probe = progress(State::StateProbe, 1, 5);
  probe.become_replicate();
  CHECK((probe.state == State::StateReplicate && probe.next == 2));
  probe.become_snapshot(10);
  CHECK((probe.state == State::StateSnapshot && probe.pendingSnapshot == 10 && probe.next == 11));
  CHECK(probe.match == 1);
}

TEST_CASE("Progress::sent_entries and the commit index sent", "[raft]") {
  Progress pr = progress(State::StateReplicate, 5, 6);
  pr.inflights = Inflights(2, 0);
  pr.sent_entries(3, 30);
  CHECK((pr.next == 9 && pr.inflights.count() == 1 && !pr.msgAppFlowPaused));
  pr.sent_entries(1, 10);
  CHECK((pr.next == 10 && pr.msgAppFlowPaused));  // the window filled
  CHECK(pr.can_bump_commit(7));
  pr.sent_commit(9);
  CHECK_FALSE(pr.can_bump_commit(10));  // already sent what reaches next-1
  Progress probe = progress(State::StateProbe, 5, 6);
  probe.sent_entries(0, 0);
  CHECK_FALSE(probe.msgAppFlowPaused);
  probe.sent_entries(2, 20);
  CHECK((probe.msgAppFlowPaused && probe.next == 6));
}

TEST_CASE("Progress::maybe_update and maybe_decr_to", "[raft]") {
  struct Update {
    Index update, wantMatch, wantNext;
    bool ok;
  };
  for (const Update& u : std::vector<Update>{{2, 3, 5, false}, {3, 3, 5, false}, {4, 4, 5, true}, {5, 5, 6, true}}) {
    Progress pr = progress(State::StateProbe, 3, 5);
    CHECK(pr.maybe_update(u.update) == u.ok);
    CHECK((pr.match == u.wantMatch && pr.next == u.wantNext));
  }
  struct Decr {
    State state;
    Index match, next, rejected, last;
    bool ok;
    Index wantNext;
  };
  const std::vector<Decr> cases{
      {State::StateReplicate, 5, 10, 5, 5, false, 10}, {State::StateReplicate, 5, 10, 4, 4, false, 10},
      {State::StateReplicate, 5, 10, 9, 9, true, 6},   {State::StateProbe, 0, 0, 0, 0, false, 0},
      {State::StateProbe, 0, 10, 5, 5, false, 10},     {State::StateProbe, 0, 10, 9, 9, true, 9},
      {State::StateProbe, 0, 2, 1, 1, true, 1},        {State::StateProbe, 0, 1, 0, 0, true, 1},
      {State::StateProbe, 0, 10, 9, 2, true, 3},       {State::StateProbe, 0, 10, 9, 0, true, 1}};
  for (const Decr& d : cases) {
    Progress pr = progress(d.state, d.match, d.next);
    CHECK(pr.maybe_decr_to(d.rejected, d.last) == d.ok);
    CHECK((pr.match == d.match && pr.next == d.wantNext));
  }
}

TEST_CASE("ProgressTracker: committed index, quorum, votes and ConfState", "[raft]") {
  ProgressTracker trk(10, 0);
  trk.config.voters[0] = MajorityConfig{1, 2, 3};
  trk.config.learners = {4};
  for (const PeerId id : {1, 2, 3, 4}) trk.progress[id] = progress(State::StateReplicate, id * 10, id * 10 + 1);
  trk.progress[4].isLearner = true;
  CHECK(trk.committed() == 20);
  CHECK_FALSE(trk.is_singleton());
  CHECK(trk.voter_nodes() == std::vector<PeerId>{1, 2, 3});
  CHECK(trk.learner_nodes() == std::vector<PeerId>{4});
  CHECK_FALSE(trk.quorum_active());
  trk.progress[1].recentActive = trk.progress[2].recentActive = true;
  CHECK(trk.quorum_active());
  trk.record_vote(1, true);
  trk.record_vote(1, false);  // the first vote counts
  trk.record_vote(2, false);
  trk.record_vote(4, true);   // a learner's vote is not counted
  const TallyResult tally = trk.tally_votes();
  CHECK((tally.granted == 1 && tally.rejected == 1 && tally.result == VoteResult::VotePending));
  trk.reset_votes();
  CHECK(trk.votes.empty());
  std::vector<PeerId> visited;
  trk.visit([&visited](PeerId id, Progress&) { visited.push_back(id); });
  CHECK(visited == std::vector<PeerId>{1, 2, 3, 4});
  trk.config.voters[1] = MajorityConfig{1};
  trk.config.autoLeave = true;
  const ConfState cs = trk.conf_state();
  CHECK((cs.voters == std::vector<PeerId>{1, 2, 3} && cs.votersOutgoing == std::vector<PeerId>{1}));
  CHECK((cs.learners == std::vector<PeerId>{4} && cs.autoLeave));
  CHECK(trk.config.to_string() == "voters=(1 2 3)&&(1) learners=(4) autoleave");
  CHECK_FALSE(trk.config.clone().autoLeave);  // as upstream's Clone
}
