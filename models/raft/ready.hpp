#pragma once
// What a RawNode hands its application (etcd-io/raft node.go: SoftState, Ready; read_only.go:
// ReadState). Optional parts are std::optional where upstream uses a nil pointer, so that
// DescribeReady prints exactly the parts upstream prints.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// raft.go StateType; the name is upstream's ("StateFollower", ...).
enum class StateType : std::uint8_t {
  StateFollower = 0,
  StateCandidate = 1,
  StateLeader = 2,
  StatePreCandidate = 3,
};
std::string_view name(StateType state);

struct SoftState {
  PeerId lead = None;
  StateType raftState = StateType::StateFollower;
  bool operator==(const SoftState&) const = default;
};

// A ReadIndex result: once the application has applied up to `index`, the read with
// `requestCtx` may be served.
struct ReadState {
  Index index = 0;
  std::string requestCtx;
  bool operator==(const ReadState&) const = default;
};

struct Ready {
  std::optional<SoftState> softState;  // set when it changed since the last Ready
  std::optional<HardState> hardState;  // set when it changed (never the empty state)
  std::vector<ReadState> readStates;
  std::vector<Entry> entries;           // to append to stable storage
  std::optional<Snapshot> snapshot;     // to apply to stable storage
  std::vector<Entry> committedEntries;  // to apply to the state machine
  std::vector<Message> messages;
  bool mustSync = false;
};

}  // namespace hasim::raft
