#pragma once
// The raft wire and storage types, as etcd-io/raft's raftpb/raft.proto declares them
// (Entry, Message, HardState, ConfState, Snapshot, ConfChange, ConfChangeV2). Plain values:
// no pointers, no presence bits but Entry's two (see there); a missing Go pointer is the
// value's zero (an empty Snapshot is "no snapshot", as pb.IsEmptySnap says). Names follow
// upstream so that a reader of raft.go finds the same words here.
//
// Why no generated protobuf: hasim never puts these on a real wire. The only encoding that
// matters is the byte size (entsSize/limitSize and the uncommitted-size limit count
// proto.Size of an Entry; a conf change entry's Data is the marshalled ConfChange), which
// raftpb.cpp computes and produces exactly.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/boxed.hpp"

namespace hasim::raft {

using Term = std::uint64_t;
using Index = std::uint64_t;
using PeerId = std::uint64_t;  // a raft member's ID (Config.ID); 0 means None
inline constexpr PeerId None = 0;

enum class EntryType : std::uint8_t { EntryNormal = 0, EntryConfChange = 1, EntryConfChangeV2 = 2 };

enum class MessageType : std::uint8_t {
  MsgHup = 0,
  MsgBeat = 1,
  MsgProp = 2,
  MsgApp = 3,
  MsgAppResp = 4,
  MsgVote = 5,
  MsgVoteResp = 6,
  MsgSnap = 7,
  MsgHeartbeat = 8,
  MsgHeartbeatResp = 9,
  MsgUnreachable = 10,
  MsgSnapStatus = 11,
  MsgCheckQuorum = 12,
  MsgTransferLeader = 13,
  MsgTimeoutNow = 14,
  MsgReadIndex = 15,
  MsgReadIndexResp = 16,
  MsgPreVote = 17,
  MsgPreVoteResp = 18,
  MsgStorageAppend = 19,
  MsgStorageAppendResp = 20,
  MsgStorageApply = 21,
  MsgStorageApplyResp = 22,
  MsgForgetLeader = 23,
};
inline constexpr int kMessageTypeCount = 24;

enum class ConfChangeTransition : std::uint8_t {
  ConfChangeTransitionAuto = 0,
  ConfChangeTransitionJointImplicit = 1,
  ConfChangeTransitionJointExplicit = 2,
};

enum class ConfChangeType : std::uint8_t {
  ConfChangeAddNode = 0,
  ConfChangeRemoveNode = 1,
  ConfChangeUpdateNode = 2,
  ConfChangeAddLearnerNode = 3,
};

// Upstream's enum String() names ("MsgApp", "EntryNormal", "ConfChangeAddNode", ...).
std::string_view name(EntryType type);
std::string_view name(MessageType type);
std::string_view name(ConfChangeTransition transition);
std::string_view name(ConfChangeType type);

struct Entry {
  Term term = 0;
  Index index = 0;
  EntryType type = EntryType::EntryNormal;
  std::string data;
  // proto2 presence, for the byte size only (entry_size in raftpb_util.hpp). Upstream's Entry
  // has pointer fields, and proto.Size counts a field that was set even to its zero value.
  // Term and Index are always counted (everything that puts an entry in a log sets both);
  // Type and Data count when non-zero, or when set to zero on purpose:
  //  - typeSet: Type assigned although EntryNormal, as raft.go:1341 does when it refuses a
  //    conf change (`&pb.Entry{Type: pb.EntryNormal.Enum()}`): 2 bytes more than `{}`;
  //  - dataSet: Data is a non-nil but empty []byte (`[]byte("")`, or proto.Marshal of an
  //    empty message, which returns a non-nil empty slice): 2 bytes more than nil Data.
  bool typeSet = false;
  bool dataSet = false;
  // Value equality, as the Get* accessors read the entry: presence is left out, so entries
  // that read the same compare equal even when their encoded sizes differ.
  bool operator==(const Entry& other) const {
    return term == other.term && index == other.index && type == other.type && data == other.data;
  }
};

struct ConfState {
  std::vector<PeerId> voters;
  std::vector<PeerId> learners;
  std::vector<PeerId> votersOutgoing;
  std::vector<PeerId> learnersNext;
  bool autoLeave = false;
  bool operator==(const ConfState&) const = default;
};

struct SnapshotMetadata {
  ConfState confState;
  Index index = 0;
  Term term = 0;
  bool operator==(const SnapshotMetadata&) const = default;
};

struct Snapshot {
  std::string data;
  SnapshotMetadata metadata;
  bool operator==(const Snapshot&) const = default;
};

// pb.IsEmptySnap: a snapshot at index 0 is no snapshot.
inline bool is_empty_snap(const Snapshot& snapshot) { return snapshot.metadata.index == 0; }

struct HardState {
  Term term = 0;
  PeerId vote = None;
  Index commit = 0;
  bool operator==(const HardState&) const = default;
};

// pb.IsEmptyHardState.
inline bool is_empty_hard_state(const HardState& state) { return state == HardState{}; }

struct Message {
  MessageType type = MessageType::MsgHup;
  PeerId to = None;
  PeerId from = None;
  Term term = 0;
  Term logTerm = 0;
  Index index = 0;
  std::vector<Entry> entries;
  Index commit = 0;
  PeerId vote = None;  // MsgStorageAppend: the HardState's vote
  Boxed<Snapshot> snapshot;  // a pointer upstream too (models/raft/boxed.hpp says why)
  bool reject = false;
  Index rejectHint = 0;
  LazyString context;  // behind a pointer (models/raft/boxed.hpp says why)
  LazyVector<Message> responses;  // local storage messages: what to deliver when done
  bool operator==(const Message&) const = default;
};

struct ConfChangeSingle {
  ConfChangeType type = ConfChangeType::ConfChangeAddNode;
  PeerId nodeId = None;
  bool operator==(const ConfChangeSingle&) const = default;
};

struct ConfChangeV2 {
  ConfChangeTransition transition = ConfChangeTransition::ConfChangeTransitionAuto;
  std::vector<ConfChangeSingle> changes;
  std::string context;
  bool operator==(const ConfChangeV2&) const = default;

  // EnterJoint: whether the change uses joint consensus (more than one change, or an
  // explicit/implicit transition), and if so whether it leaves the joint state on its own.
  std::optional<bool> enter_joint() const;  // nullopt: not joint; else autoLeave
  // LeaveJoint: the empty V2 change, which leaves a joint configuration.
  bool leave_joint() const;
};

struct ConfChange {
  ConfChangeType type = ConfChangeType::ConfChangeAddNode;
  PeerId nodeId = None;
  std::string context;
  std::uint64_t id = 0;
  bool operator==(const ConfChange&) const = default;

  ConfChangeV2 as_v2() const;
};

}  // namespace hasim::raft
