#pragma once
// A raft cluster driven by a schedule of steps, for properties: RawNodes over MemoryStorage,
// an in-memory network that can deliver in any order, drop, duplicate and partition, and
// crashes that keep only what reached the disk. Every observation goes to the Figure 3
// checker (properties/raft/safety_checker.hpp).
//
// Storage is two layers, as a real member has: the MemoryStorage raft reads (the page
// cache) and the disk (what survives a crash). With `ackBeforeFsync` off, a Ready is
// written to both before its messages go out (etcd's order: WAL fsync, then send). With it
// on, the messages go out at once and the disk catches up only at a `sync` step: the bug a
// storage that acknowledges before fsync has.
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "models/raft/rawnode.hpp"
#include "models/raft/storage.hpp"
#include "properties/raft/safety_checker.hpp"

namespace hasim::testing {

enum class RaftStepKind : std::uint8_t {
  tick, deliver, drop, duplicate, crash, restart, partition, heal, propose, sync, compact
};

struct RaftStep {
  RaftStepKind kind = RaftStepKind::tick;
  std::uint32_t a = 0;  // a member, or a position in the in-flight list
  std::uint32_t b = 0;  // a partition mask
};

struct RaftClusterOptions {
  int members = 3;
  // Small, so that a schedule of a few hundred steps sees several elections.
  int electionTick = 4;
  bool preVote = true;
  bool checkQuorum = true;
  bool ackBeforeFsync = false;
  std::uint64_t seed = 1;
};

// RapidCheck prints a counterexample's steps with this.
void showValue(const RaftStep& step, std::ostream& os);

class RaftClusterRig {
 public:
  explicit RaftClusterRig(RaftClusterOptions options);
  ~RaftClusterRig();

  void run(const RaftStep& step);
  const raft_safety::SafetyChecker& checker() const { return checker_; }
  std::size_t in_flight() const { return network_.size(); }
  int leaders() const;
  // Coverage of a schedule: leaders elected and entries applied, across all members.
  std::uint64_t elections() const { return elections_; }
  std::uint64_t applies() const { return applies_; }

 private:
  struct Disk {
    raft::HardState hardState;
    raft::Snapshot snapshot;
    std::vector<raft::Entry> entries;  // after the snapshot
  };
  struct Pending {                     // written to the page cache, not yet to the disk
    std::optional<raft::HardState> hardState;
    std::optional<raft::Snapshot> snapshot;
    std::vector<raft::Entry> entries;
  };
  struct Member {
    raft::PeerId id = 0;
    std::unique_ptr<raft::MemoryStorage> storage;
    std::unique_ptr<raft::RawNode> node;
    Disk disk;
    std::vector<Pending> unsynced;
    std::uint64_t restarts = 0;
    bool leads = false;  // as of the last Ready's soft state
  };

  void start(Member& m);
  void process_ready(Member& m);
  void persist(Member& m, const raft::Ready& rd);
  void write_disk(Disk& disk, const Pending& p) const;
  void sync(Member& m);
  void deliver(std::size_t position, bool keep);
  void compact(Member& m);
  void settle();

  RaftClusterOptions options_;
  std::vector<Member> members_;
  std::vector<raft::Message> network_;
  std::uint32_t partition_ = 0;  // members in the mask cannot talk to those outside
  std::uint64_t proposals_ = 0;
  std::uint64_t elections_ = 0;
  std::uint64_t applies_ = 0;
  raft_safety::SafetyChecker checker_;
};

}  // namespace hasim::testing
