// models/raft/quorum: majority and joint quorums (etcd-io/raft quorum/), the upstream quorum
// transcripts, and committed_index against the naive computation.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "models/raft/quorum.hpp"
#include "raft_conformance_files.hpp"

using namespace hasim::raft;

TEST_CASE("MajorityConfig prints its members in hex, in order", "[raft]") {
  CHECK(MajorityConfig{}.to_string() == "()");
  CHECK(MajorityConfig{255, 1, 10}.to_string() == "(1 a ff)");
  CHECK(MajorityConfig{3, 1, 2}.slice() == std::vector<PeerId>{1, 2, 3});
  CHECK(JointConfig(MajorityConfig{1, 2}, MajorityConfig{}).to_string() == "(1 2)");
  CHECK(JointConfig(MajorityConfig{1, 2}, MajorityConfig{3}).to_string() == "(1 2)&&(3)");
  CHECK(JointConfig(MajorityConfig{1, 2}, MajorityConfig{2, 3}).ids() == std::set<PeerId>{1, 2, 3});
}

TEST_CASE("MajorityConfig::describe draws upstream's table", "[raft]") {
  const MajorityConfig c{1, 2, 3};
  CHECK(c.describe(MapAckIndexer({{1, 101}, {2, 102}, {3, 103}})) ==
        "       idx\n>      101    (id=1)\nx>     102    (id=2)\nxx>    103    (id=3)\n");
  CHECK(c.describe(MapAckIndexer({{1, 100}, {2, 102}, {3, 102}})) ==
        "       idx\n>      100    (id=1)\nx>     102    (id=2)\nx>     102    (id=3)\n");
  CHECK(c.describe(MapAckIndexer({{1, 101}, {3, 103}})) ==
        "       idx\nx>     101    (id=1)\n?        0    (id=2)\nxx>    103    (id=3)\n");
  CHECK(MajorityConfig{}.describe(MapAckIndexer()) == "<empty majority quorum>");
}

TEST_CASE("committed_index and vote_result follow the majority", "[raft]") {
  const MajorityConfig c{1, 2, 3};
  CHECK(c.committed_index(MapAckIndexer({{1, 5}, {2, 7}, {3, 9}})) == 7);
  CHECK(c.committed_index(MapAckIndexer({{1, 5}})) == 0);
  CHECK(MajorityConfig{}.committed_index(MapAckIndexer()) == kInfiniteIndex);
  CHECK(index_to_string(kInfiniteIndex) == "∞");
  const JointConfig j(MajorityConfig{1, 2, 3}, MajorityConfig{4, 5});
  CHECK(j.committed_index(MapAckIndexer({{1, 9}, {2, 9}, {4, 3}, {5, 4}})) == 3);
  CHECK(c.vote_result({{1, true}, {2, true}}) == VoteResult::VoteWon);
  CHECK(c.vote_result({{1, true}}) == VoteResult::VotePending);
  CHECK(c.vote_result({{1, false}, {2, false}}) == VoteResult::VoteLost);
  CHECK(MajorityConfig{}.vote_result({}) == VoteResult::VoteWon);
  CHECK(j.vote_result({{1, true}, {2, true}}) == VoteResult::VotePending);
  CHECK(j.vote_result({{1, true}, {2, true}, {4, false}, {5, false}}) == VoteResult::VoteLost);
  CHECK(name(VoteResult::VotePending) == "VotePending");
}

TEST_CASE("committed_index agrees with the naive computation", "[raft]") {
  rc::prop("MajorityConfig::committed_index == naive_committed_index", [] {
    // Like upstream's quick test: up to 9 members drawn from a small ID space, indexes small
    // enough to collide, and some members without an acknowledged index.
    const auto members = *rc::gen::container<std::set<PeerId>>(rc::gen::inRange<PeerId>(1, 20));
    MajorityConfig c(members);
    RC_PRE(c.size() <= 9);
    MapAckIndexer l;
    for (const PeerId id : c) {
      if (*rc::gen::inRange(0, 4) > 0) l.map()[id] = *rc::gen::inRange<Index>(0, 10);
    }
    // Acknowledgements from non-members must not count.
    l.map()[99] = *rc::gen::inRange<Index>(0, 10);
    RC_ASSERT(c.committed_index(l) == naive_committed_index(c, l));
  });
}

TEST_CASE("the upstream quorum transcripts pass", "[raft]") {
  hasim::test::check_transcripts_pass("quorum/testdata", "quorum", 4);
}
