#pragma once
// etcd-io/raft util.go (all but what needs the raft core): message classes, the byte sizes of
// entries, and the Describe* texts that the interaction transcripts print verbatim.
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/ready.hpp"

namespace hasim::raft {

// raft.go: the local storage threads that MsgStorageAppend/MsgStorageApply target.
inline constexpr PeerId LocalAppendThread = std::numeric_limits<std::uint64_t>::max();
inline constexpr PeerId LocalApplyThread = std::numeric_limits<std::uint64_t>::max() - 1;

// entryEncodingSize: the protobuf size of entries; entryPayloadSize: the size of their Data.
using EntryEncodingSize = std::uint64_t;
using EntryPayloadSize = std::uint64_t;
// raft.go noLimit: no size limit.
inline constexpr EntryEncodingSize noLimit = std::numeric_limits<std::uint64_t>::max();

bool is_local_msg(MessageType type);     // IsLocalMsg
bool is_response_msg(MessageType type);  // IsResponseMsg
bool is_local_msg_target(PeerId id);     // IsLocalMsgTarget: one of the local threads
// voteRespMsgType: MsgVote -> MsgVoteResp, MsgPreVote -> MsgPreVoteResp (others: a bug).
MessageType vote_resp_msg_type(MessageType type);

// EntryFormatter: how an application shows an entry's Data. An empty function is valid and
// means Go's %q (go_quote).
using EntryFormatter = std::function<std::string(std::string_view)>;

std::string describe_hard_state(const HardState& hs);
std::string describe_soft_state(const SoftState& ss);
std::string describe_conf_state(const ConfState& state);
std::string describe_snapshot(const Snapshot& snap);
std::string describe_ready(const Ready& rd, const EntryFormatter& f = {});
std::string describe_message(const Message& m, const EntryFormatter& f = {});
std::string describe_entry(const Entry& e, const EntryFormatter& f = {});
// DescribeConfChange: "transition:... changes:{type:... node_id:...} context:\"...\"".
std::string describe_conf_change(const ConfChangeI& cc);
// DescribeEntries: one describe_entry per line, each ending in a newline.
std::string describe_entries(const std::vector<Entry>& ents, const EntryFormatter& f = {});

// entsSize: the sum of entry_size.
EntryEncodingSize ents_size(std::span<const Entry> ents);
// limitSize: the longest prefix whose total size is at most maxSize, but never less than one
// entry of a non-empty input.
std::vector<Entry> limit_size(std::vector<Entry> ents, EntryEncodingSize maxSize);
// The length of that prefix (what limit_size keeps), without copying.
std::size_t limit_size_len(std::span<const Entry> ents, EntryEncodingSize maxSize);
// payloadSize / payloadsSize: the bytes of Data only (an empty entry weighs nothing).
EntryPayloadSize payload_size(const Entry& e);
EntryPayloadSize payloads_size(std::span<const Entry> ents);
// assertConfStatesEquivalent: panics through `l` when they differ.
void assert_conf_states_equivalent(Logger& l, const ConfState& cs1, const ConfState& cs2);
// extend: dst followed by vals.
std::vector<Entry> extend(std::vector<Entry> dst, std::span<const Entry> vals);

}  // namespace hasim::raft
