// etcd-io/raft util.go, less what needs the raft core (util.hpp).
#include "models/raft/util.hpp"

#include <array>

#include "models/raft/go_quote.hpp"
#include "models/raft/strcat.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

std::string_view name(StateType state) {
  // raft.go stmap.
  static constexpr std::array<std::string_view, 4> kNames = {"StateFollower", "StateCandidate",
                                                             "StateLeader", "StatePreCandidate"};
  const auto i = static_cast<std::size_t>(state);
  HASIM_ASSERT(i < kNames.size());
  return kNames[i];
}

namespace {

constexpr std::uint32_t bit(MessageType type) { return 1u << static_cast<unsigned>(type); }
static_assert(kMessageTypeCount <= 32);

// util.go isLocalMsg and isResponseMsg, as sets of message types.
constexpr std::uint32_t kLocalMsgs =
    bit(MessageType::MsgHup) | bit(MessageType::MsgBeat) | bit(MessageType::MsgUnreachable) |
    bit(MessageType::MsgSnapStatus) | bit(MessageType::MsgCheckQuorum) |
    bit(MessageType::MsgStorageAppend) | bit(MessageType::MsgStorageAppendResp) |
    bit(MessageType::MsgStorageApply) | bit(MessageType::MsgStorageApplyResp);
constexpr std::uint32_t kResponseMsgs =
    bit(MessageType::MsgAppResp) | bit(MessageType::MsgVoteResp) |
    bit(MessageType::MsgHeartbeatResp) | bit(MessageType::MsgUnreachable) |
    bit(MessageType::MsgReadIndexResp) | bit(MessageType::MsgPreVoteResp) |
    bit(MessageType::MsgStorageAppendResp) | bit(MessageType::MsgStorageApplyResp);

}  // namespace

bool is_local_msg(MessageType type) { return (kLocalMsgs & bit(type)) != 0; }

bool is_response_msg(MessageType type) { return (kResponseMsgs & bit(type)) != 0; }

bool is_local_msg_target(PeerId id) { return id == LocalAppendThread || id == LocalApplyThread; }

MessageType vote_resp_msg_type(MessageType type) {
  // Upstream panics "not a vote message: %s" for anything else: a programmer error.
  HASIM_ASSERT(type == MessageType::MsgVote || type == MessageType::MsgPreVote);
  return type == MessageType::MsgVote ? MessageType::MsgVoteResp : MessageType::MsgPreVoteResp;
}

std::string describe_hard_state(const HardState& hs) {
  std::string out = text::cat("Term:", hs.term);
  if (hs.vote != 0) out += text::cat(" Vote:", hs.vote);
  out += text::cat(" Commit:", hs.commit);
  return out;
}

std::string describe_soft_state(const SoftState& ss) {
  return text::cat("Lead:", ss.lead, " State:", name(ss.raftState));
}

namespace {

// Go's %v of a []uint64: "[1 2 3]", "[]" when empty.
std::string go_list(const std::vector<std::uint64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(values[i]);
  }
  return out + "]";
}

// Go's %v of a []ReadState: "[{5 [99 116 120]}]" (the context's bytes in decimal).
std::string go_read_states(const std::vector<ReadState>& states) {
  std::string out = "[";
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (i > 0) out += ' ';
    std::vector<std::uint64_t> bytes;
    for (char c : states[i].requestCtx) bytes.push_back(static_cast<std::uint8_t>(c));
    out += text::cat("{", states[i].index, " ", go_list(bytes), "}");
  }
  return out + "]";
}

// describeTarget: the local threads by name, peers in hex.
std::string describe_target(PeerId id) {
  if (id == None) return "None";
  if (id == LocalAppendThread) return "AppendThread";
  if (id == LocalApplyThread) return "ApplyThread";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kHex[id & 0xF]);
    id >>= 4;
  } while (id != 0);
  return out;
}

}  // namespace

std::string describe_conf_state(const ConfState& state) {
  return text::cat("Voters:", go_list(state.voters),
                   " VotersOutgoing:", go_list(state.votersOutgoing),
                   " Learners:", go_list(state.learners),
                   " LearnersNext:", go_list(state.learnersNext), " AutoLeave:", state.autoLeave);
}

std::string describe_snapshot(const Snapshot& snap) {
  const SnapshotMetadata& m = snap.metadata;
  return text::cat("Index:", m.index, " Term:", m.term,
                   " ConfState:", describe_conf_state(m.confState));
}

std::string describe_ready(const Ready& rd, const EntryFormatter& f) {
  std::string buf;
  if (rd.softState) buf += describe_soft_state(*rd.softState) + "\n";
  if (rd.hardState && !is_empty_hard_state(*rd.hardState)) {
    buf += "HardState " + describe_hard_state(*rd.hardState) + "\n";
  }
  if (!rd.readStates.empty()) buf += "ReadStates " + go_read_states(rd.readStates) + "\n";
  if (!rd.entries.empty()) buf += "Entries:\n" + describe_entries(rd.entries, f);
  if (rd.snapshot && !is_empty_snap(*rd.snapshot)) {
    buf += "Snapshot " + describe_snapshot(*rd.snapshot) + "\n";
  }
  if (!rd.committedEntries.empty()) {
    buf += "CommittedEntries:\n" + describe_entries(rd.committedEntries, f);
  }
  if (!rd.messages.empty()) {
    buf += "Messages:\n";
    for (const Message& msg : rd.messages) buf += describe_message(msg, f) + "\n";
  }
  if (buf.empty()) return "<empty Ready>";
  return text::cat("Ready MustSync=", rd.mustSync, ":\n", buf);
}

namespace {

// describeMessageWithIndent; `depth` bounds the recursion into responses (a response of a
// response is as deep as raft ever nests them).
std::string describe_message_with_indent(const std::string& indent, const Message& m,
                                         const EntryFormatter& f, int depth) {
  HASIM_ASSERT(depth < 8);
  std::string buf = text::cat(indent, describe_target(m.from), "->", describe_target(m.to), " ",
                              name(m.type), " Term:", m.term, " Log:", m.logTerm, "/", m.index);
  if (m.reject) buf += text::cat(" Rejected (Hint: ", m.rejectHint, ")");
  if (m.commit != 0) buf += text::cat(" Commit:", m.commit);
  if (m.vote != 0) buf += text::cat(" Vote:", m.vote);
  if (m.entries.size() == 1) {
    buf += " Entries:[" + describe_entry(m.entries[0], f) + "]";
  } else if (m.entries.size() > 1) {
    buf += " Entries:[";
    for (const Entry& e : m.entries) buf += "\n" + indent + "  " + describe_entry(e, f);
    buf += "\n" + indent + "]";
  }
  if (m.snapshot && !is_empty_snap(*m.snapshot)) {
    buf += "\n" + indent + "  Snapshot: " + describe_snapshot(*m.snapshot);
  }
  if (!m.responses.empty()) {
    buf += " Responses:[";
    for (const Message& r : m.responses) {
      buf += "\n" + describe_message_with_indent(indent + "  ", r, f, depth + 1);
    }
    buf += "\n" + indent + "]";
  }
  return buf;
}

}  // namespace

std::string describe_message(const Message& m, const EntryFormatter& f) {
  return describe_message_with_indent("", m, f, 0);
}

std::string describe_entry(const Entry& e, const EntryFormatter& f) {
  // A conf change shows its operations (ConfChangesToString of its V2 form), or the parse
  // error for data that is no conf change.
  std::string formatted;
  std::string err;
  switch (e.type) {
    case EntryType::EntryNormal:
      formatted = f ? f(e.data) : go_quote(e.data);
      break;
    case EntryType::EntryConfChange: {
      const auto cc = unmarshal_conf_change(e.data, &err);
      formatted = cc ? conf_changes_to_string(cc->as_v2().changes) : err;
      break;
    }
    case EntryType::EntryConfChangeV2: {
      const auto cc = unmarshal_conf_change_v2(e.data, &err);
      formatted = cc ? conf_changes_to_string(cc->changes) : err;
      break;
    }
  }
  if (!formatted.empty()) formatted = " " + formatted;
  return text::cat(e.term, "/", e.index, " ", name(e.type), formatted);
}

std::string describe_conf_change(const ConfChangeI& cc) {
  const ConfChangeV2 v2 = as_v2(cc);
  std::string out = text::cat("transition:", name(v2.transition));
  for (const ConfChangeSingle& c : v2.changes) {
    out += text::cat(" changes:{type:", name(c.type), " node_id:", c.nodeId, "}");
  }
  if (!v2.context.empty()) out += " context:" + go_quote(v2.context);
  return out;
}

std::string describe_entries(const std::vector<Entry>& ents, const EntryFormatter& f) {
  std::string out;
  for (const Entry& e : ents) out += describe_entry(e, f) + "\n";
  return out;
}

EntryEncodingSize ents_size(std::span<const Entry> ents) {
  EntryEncodingSize size = 0;
  for (const Entry& e : ents) size += entry_size(e);
  return size;
}

std::size_t limit_size_len(std::span<const Entry> ents, EntryEncodingSize maxSize) {
  if (ents.empty()) return 0;
  EntryEncodingSize size = entry_size(ents[0]);
  for (std::size_t limit = 1; limit < ents.size(); ++limit) {
    size += entry_size(ents[limit]);
    if (size > maxSize) return limit;
  }
  return ents.size();
}

std::vector<Entry> limit_size(std::vector<Entry> ents, EntryEncodingSize maxSize) {
  ents.resize(limit_size_len(ents, maxSize));
  return ents;
}

EntryPayloadSize payload_size(const Entry& e) { return e.data.size(); }

EntryPayloadSize payloads_size(std::span<const Entry> ents) {
  EntryPayloadSize size = 0;
  for (const Entry& e : ents) size += payload_size(e);
  return size;
}

void assert_conf_states_equivalent(Logger& l, const ConfState& cs1, const ConfState& cs2) {
  if (const auto err = conf_state_equivalent(cs1, cs2)) l.panic(*err);
}

std::vector<Entry> extend(std::vector<Entry> dst, std::span<const Entry> vals) {
  dst.reserve(dst.size() + vals.size());
  dst.insert(dst.end(), vals.begin(), vals.end());
  return dst;
}

}  // namespace hasim::raft
