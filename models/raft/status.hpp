#pragma once
// Status and BasicStatus (etcd-io/raft status.go): a copy of a member's view, for the
// application and the transcripts' `status` command.
#include <string>

#include "models/raft/raftpb.hpp"
#include "models/raft/ready.hpp"
#include "models/raft/tracker.hpp"

namespace hasim::raft {

struct BasicStatus {
  PeerId id = None;
  HardState hardState;
  SoftState softState;
  Index applied = 0;
  PeerId leadTransferee = None;
};

struct Status {
  BasicStatus basic;
  TrackerConfig config;
  ProgressMap progress;  // only on the leader

  // Status.MarshalJSON / String: upstream's JSON text (IDs in hex).
  std::string to_string() const;
};

}  // namespace hasim::raft
