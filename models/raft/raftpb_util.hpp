#pragma once
// What raftpb does besides declaring its types (etcd-io/raft raftpb/confchange.go,
// raftpb/confstate.go) and the few bits of protobuf encoding that raft's behaviour can see:
// the marshalled bytes of a conf change (an entry's Data, so they count in its size) and the
// encoded size of an Entry (proto.Size, which entsSize/limitSize add up).
//
// Encoding rules (proto2 wire format, fields in field-number order as protobuf-go writes
// them; field numbers from raftpb/raft.proto):
//  - Entry: entry_size counts Term and Index always, Type when non-zero or typeSet, Data
//    when non-empty or dataSet (raftpb.hpp explains why).
//  - ConfChange: id when non-zero; type and node_id always; context when non-empty.
//  - ConfChangeV2: transition always; every change with its type and node_id always;
//    context when non-empty.
//  "Always" follows what every upstream writer of these messages sets: the interaction
//  environment (rafttest/interaction_env_handler_propose_conf_change.go:63-76 sets
//  Transition, and ConfChangesFromString, raftpb/confchange.go:134-150, sets Type and NodeId
//  of each change) and bootstrap (bootstrap.go:55 sets Type and NodeId, leaves Id unset).
//  The one empty V2 change raft itself proposes (auto-leave, raft.go:748) is never
//  marshalled: MarshalConfChange(nil) gives nil Data, see marshal_conf_change.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// raftpb.ConfChangeI: a V1 or V2 change, or nil (monostate), which stands for the empty V2
// change that leaves a joint configuration.
using ConfChangeI = std::variant<std::monostate, ConfChange, ConfChangeV2>;
// ConfChangeI.AsV2: nil gives the empty ConfChangeV2.
ConfChangeV2 as_v2(const ConfChangeI& change);

// ConfChangesFromString: "v1 l2 r3 u4" (voter, learner, remove, update). On a bad token,
// nullopt and, if `err` is given, upstream's error text in it.
std::optional<std::vector<ConfChangeSingle>> conf_changes_from_string(std::string_view s,
                                                                      std::string* err = nullptr);
// ConfChangesToString, the inverse: "v1 l2 r3 u4".
std::string conf_changes_to_string(const std::vector<ConfChangeSingle>& changes);

// ConfState.Equivalent: nullopt when both describe the same configuration (the lists
// compared as sets in sorted order); otherwise the error text.
std::optional<std::string> conf_state_equivalent(const ConfState& a, const ConfState& b);

// proto.Marshal of a conf change (the rules above).
std::string marshal(const ConfChange& change);
std::string marshal(const ConfChangeV2& change);
// proto.Unmarshal: nullopt on malformed input, with the error text in `err` if given. Unknown
// fields (and, proto2 enums being closed, unknown enum values) are skipped.
std::optional<ConfChange> unmarshal_conf_change(std::string_view bytes, std::string* err = nullptr);
std::optional<ConfChangeV2> unmarshal_conf_change_v2(std::string_view bytes,
                                                     std::string* err = nullptr);

// MarshalConfChange: the entry type and Data for proposing `change`. dataSet says whether
// upstream's Data is non-nil: true for a marshalled message (proto.Marshal returns a non-nil
// slice even when empty), false for nil, whose Data is nil. Put both in the Entry (with
// typeSet = true, as confChangeToMsg sets Type) so that its size is upstream's.
struct MarshalledConfChange {
  EntryType type = EntryType::EntryConfChangeV2;
  std::string data;
  bool dataSet = false;
};
MarshalledConfChange marshal_conf_change(const ConfChangeI& change);

// proto.Size(entry): the encoded byte size of an Entry.
std::uint64_t entry_size(const Entry& entry);

}  // namespace hasim::raft
