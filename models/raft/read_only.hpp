#pragma once
// readOnly (etcd-io/raft read_only.go): the leader's queue of ReadIndex requests under
// ReadOnlySafe. Each request waits until a quorum has answered a heartbeat sent after it;
// heartbeats carry a counter (the position of the newest request), so one acknowledged
// heartbeat confirms every request queued before it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/raft/config.hpp"
#include "models/raft/quorum.hpp"
#include "models/raft/raftpb.hpp"

namespace hasim::raft {

struct ReadIndexRequest {
  Message req;
  Index index = 0;  // the leader's commit index when the request arrived
};

class ReadOnly final : public AckedIndexer {
 public:
  explicit ReadOnly(ReadOnlyOption opt = ReadOnlyOption::ReadOnlySafe) : option(opt) {}

  void add_request(Index commitIndex, Message req);
  void recv_ack(PeerId from, const std::string& ctx);
  std::optional<Index> acked_index(PeerId voterID) const override;
  // The requests a quorum has confirmed since the last call, oldest first.
  std::vector<ReadIndexRequest> maybe_advance(const JointConfig& c);
  // The heartbeat context: the position of the newest request (8 bytes, little endian), or
  // empty when nothing waits.
  std::string heartbeat_ctx() const;

  ReadOnlyOption option;
  std::map<PeerId, std::uint64_t> acks;
  std::vector<ReadIndexRequest> unconfirmedReads;
  std::uint64_t confirmedReads = 0;
};

}  // namespace hasim::raft
