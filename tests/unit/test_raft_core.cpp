// The raft core's own choices beyond the transcripts: the randomized election timeout's
// range (upstream's [ET, 2·ET) and paper mode's [A, B]), paper mode's timer rule and Config
// validation.
#include <catch2/catch.hpp>

#include <set>

#include "models/raft/raft.hpp"
#include "models/raft/rawnode.hpp"
#include "models/raft/storage.hpp"

using namespace hasim::raft;

namespace {

Config base_config(MemoryStorage& storage) {
  Config c;
  c.id = 1;
  c.electionTick = 10;
  c.heartbeatTick = 1;
  c.storage = &storage;
  c.maxSizePerMsg = 1024;
  c.maxInflightMsgs = 16;
  return c;
}

// Voters {1, 2, 3}, the log at index 2, term 1 (a snapshot).
void three_voters(MemoryStorage& storage) {
  Snapshot snap;
  snap.metadata.index = 2;
  snap.metadata.term = 1;
  snap.metadata.confState.voters = {1, 2, 3};
  REQUIRE(storage.apply_snapshot(snap) == StorageError::Ok);
}

// The timeouts a member draws over many elections it starts alone (each campaign resets).
std::set<int> drawn_timeouts(Config c, int draws) {
  MemoryStorage storage;
  three_voters(storage);
  c.storage = &storage;
  RawNode node(c);
  std::set<int> seen;
  for (int i = 0; i < draws; ++i) {
    seen.insert(node.raft().randomizedElectionTimeout);
    REQUIRE(node.campaign() == RaftError::Ok);  // becomes candidate: reset draws again
    (void)node.ready();
    node.advance(Ready{});
  }
  return seen;
}

}  // namespace

TEST_CASE("raft: the randomized election timeout covers [ET, 2·ET) and nothing else", "[raft]") {
  MemoryStorage unused;
  const std::set<int> seen = drawn_timeouts(base_config(unused), 2000);
  REQUIRE(*seen.begin() == 10);
  REQUIRE(*seen.rbegin() == 19);
  REQUIRE(seen.size() == 10);
}

TEST_CASE("raft: paper mode draws the election timeout from [A, B]", "[raft]") {
  MemoryStorage unused;
  Config c = base_config(unused);
  c.electionTick = 150;
  c.heartbeatTick = 75;
  c.electionTickMax = 155;
  const std::set<int> seen = drawn_timeouts(c, 2000);
  REQUIRE(seen == std::set<int>{150, 151, 152, 153, 154, 155});
  c.electionTickMax = 150;  // the paper's 150-150 line: no randomness at all
  REQUIRE(drawn_timeouts(c, 50) == std::set<int>{150});
}

namespace {

// A follower (id 1 of {1, 2, 3}, log at index 2 term 1) that has ticked `elapsed` times,
// then hears a higher-term vote request it must reject (the candidate's log is behind).
int elapsed_after_rejected_vote(bool keepTimer, int elapsed) {
  MemoryStorage storage;
  three_voters(storage);
  Config c = base_config(storage);
  c.keepElectionTimerOnNewTerm = keepTimer;
  RawNode node(c);
  for (int i = 0; i < elapsed; ++i) node.tick();
  REQUIRE(node.raft().electionElapsed == elapsed);
  const int timeout = node.raft().randomizedElectionTimeout;
  Message m;
  m.type = MessageType::MsgVote;
  m.from = 2;
  m.to = 1;
  m.term = 5;
  m.logTerm = 1;
  m.index = 1;  // behind our index 2: rejected
  REQUIRE(node.step(m) == RaftError::Ok);
  REQUIRE(node.raft().term == 5);  // the new term is adopted either way
  REQUIRE(node.raft().vote == None);
  if (keepTimer) REQUIRE(node.raft().randomizedElectionTimeout == timeout);
  return node.raft().electionElapsed;
}

}  // namespace

TEST_CASE("raft: a rejected vote request restarts the timer upstream, not under the paper's rule",
          "[raft]") {
  // etcd raft: becomeFollower -> reset, so the rejected candidate delays everyone's timeout.
  REQUIRE(elapsed_after_rejected_vote(false, 7) == 0);
  // The Raft paper (Figure 2): only a leader's AppendEntries or a granted vote restarts it.
  REQUIRE(elapsed_after_rejected_vote(true, 7) == 7);
}

TEST_CASE("raft: Config.validate names what is wrong", "[raft]") {
  MemoryStorage storage;
  Config c = base_config(storage);
  REQUIRE(c.validate().empty());
  c.electionTickMax = 5;
  REQUIRE(c.validate() == "election tick max must be 0 or at least election tick");
  c = base_config(storage);
  c.electionTick = 1;
  REQUIRE(c.validate() == "election tick must be greater than heartbeat tick");
  c = base_config(storage);
  c.readOnlyOption = ReadOnlyOption::ReadOnlyLeaseBased;
  REQUIRE(c.validate() == "CheckQuorum must be enabled when ReadOnlyOption is ReadOnlyLeaseBased");
  c = base_config(storage);
  c.id = None;
  REQUIRE(c.validate() == "cannot use none as id");
}
