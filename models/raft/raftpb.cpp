// raftpb: enum names, conf change helpers (raftpb/confchange.go, raftpb/confstate.go) and the
// proto2 encoding of conf changes and Entry sizes (raftpb_util.hpp states the rules).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "models/raft/go_quote.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/raftpb_util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

namespace {

template <std::size_t N>
std::string_view checked_name(const std::array<std::string_view, N>& names, std::size_t i) {
  HASIM_ASSERT(i < N);  // our enums are closed: a value outside is a programmer error
  return names[i];
}

}  // namespace

std::string_view name(EntryType type) {
  static constexpr std::array<std::string_view, 3> kNames = {"EntryNormal", "EntryConfChange",
                                                             "EntryConfChangeV2"};
  return checked_name(kNames, static_cast<std::size_t>(type));
}

std::string_view name(MessageType type) {
  static constexpr std::array<std::string_view, kMessageTypeCount> kNames = {
      "MsgHup",
      "MsgBeat",
      "MsgProp",
      "MsgApp",
      "MsgAppResp",
      "MsgVote",
      "MsgVoteResp",
      "MsgSnap",
      "MsgHeartbeat",
      "MsgHeartbeatResp",
      "MsgUnreachable",
      "MsgSnapStatus",
      "MsgCheckQuorum",
      "MsgTransferLeader",
      "MsgTimeoutNow",
      "MsgReadIndex",
      "MsgReadIndexResp",
      "MsgPreVote",
      "MsgPreVoteResp",
      "MsgStorageAppend",
      "MsgStorageAppendResp",
      "MsgStorageApply",
      "MsgStorageApplyResp",
      "MsgForgetLeader",
  };
  return checked_name(kNames, static_cast<std::size_t>(type));
}

std::string_view name(ConfChangeTransition transition) {
  static constexpr std::array<std::string_view, 3> kNames = {"ConfChangeTransitionAuto",
                                                             "ConfChangeTransitionJointImplicit",
                                                             "ConfChangeTransitionJointExplicit"};
  return checked_name(kNames, static_cast<std::size_t>(transition));
}

std::string_view name(ConfChangeType type) {
  static constexpr std::array<std::string_view, 4> kNames = {
      "ConfChangeAddNode", "ConfChangeRemoveNode", "ConfChangeUpdateNode",
      "ConfChangeAddLearnerNode"};
  return checked_name(kNames, static_cast<std::size_t>(type));
}

// EnterJoint (raftpb/confchange.go): joint consensus whenever the transition is not Auto or
// there is more than one change; only the explicit transition stays joint until told.
std::optional<bool> ConfChangeV2::enter_joint() const {
  if (transition == ConfChangeTransition::ConfChangeTransitionAuto && changes.size() <= 1) {
    return std::nullopt;
  }
  return transition != ConfChangeTransition::ConfChangeTransitionJointExplicit;
}

// LeaveJoint: the zero change, the context aside.
bool ConfChangeV2::leave_joint() const {
  return transition == ConfChangeTransition::ConfChangeTransitionAuto && changes.empty();
}

// AsV2 keeps the type, node and context; the V1 id has no V2 counterpart.
ConfChangeV2 ConfChange::as_v2() const {
  ConfChangeV2 v2;
  v2.changes.push_back(ConfChangeSingle{type, nodeId});
  v2.context = context;
  return v2;
}

ConfChangeV2 as_v2(const ConfChangeI& change) {
  if (const auto* v1 = std::get_if<ConfChange>(&change)) return v1->as_v2();
  if (const auto* v2 = std::get_if<ConfChangeV2>(&change)) return *v2;
  return ConfChangeV2{};
}

MarshalledConfChange marshal_conf_change(const ConfChangeI& change) {
  // MarshalConfChange (raftpb/confchange.go): nil stays nil Data, so that its size registers
  // as zero and appendEntry can never refuse it.
  if (const auto* v1 = std::get_if<ConfChange>(&change)) {
    return {EntryType::EntryConfChange, marshal(*v1), true};
  }
  if (const auto* v2 = std::get_if<ConfChangeV2>(&change)) {
    return {EntryType::EntryConfChangeV2, marshal(*v2), true};
  }
  return {EntryType::EntryConfChangeV2, std::string(), false};
}

namespace {

bool is_go_space(char c) {
  // strings.TrimSpace's ASCII white space (the operations are ASCII text).
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_go_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_go_space(s.back())) s.remove_suffix(1);
  return s;
}

// strconv.ParseUint(s, 10, 64), with Go's error text on failure.
std::optional<std::uint64_t> parse_uint(std::string_view s, std::string* err) {
  auto fail = [&](std::string_view why) -> std::optional<std::uint64_t> {
    if (err != nullptr)
      *err = "strconv.ParseUint: parsing " + go_quote(s) + ": " + std::string(why);
    return std::nullopt;
  };
  if (s.empty()) return fail("invalid syntax");
  std::uint64_t value = 0;
  bool overflow = false;
  for (char c : s) {
    if (c < '0' || c > '9') return fail("invalid syntax");
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) overflow = true;
    value = value * 10 + digit;
  }
  if (overflow) return fail("value out of range");
  return value;
}

}  // namespace

std::optional<std::vector<ConfChangeSingle>> conf_changes_from_string(std::string_view s,
                                                                      std::string* err) {
  std::vector<ConfChangeSingle> changes;
  std::string_view rest = trim_space(s);
  // strings.Split on single spaces: two spaces in a row make an empty token, which fails.
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    const std::string_view tok = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (tok.size() < 2) {
      if (err != nullptr) *err = "unknown token " + std::string(tok);
      return std::nullopt;
    }
    ConfChangeSingle change;
    switch (tok[0]) {
      case 'v':
        change.type = ConfChangeType::ConfChangeAddNode;
        break;
      case 'l':
        change.type = ConfChangeType::ConfChangeAddLearnerNode;
        break;
      case 'r':
        change.type = ConfChangeType::ConfChangeRemoveNode;
        break;
      case 'u':
        change.type = ConfChangeType::ConfChangeUpdateNode;
        break;
      default:
        if (err != nullptr) *err = "unknown input: " + std::string(tok);
        return std::nullopt;
    }
    const auto id = parse_uint(tok.substr(1), err);
    if (!id) return std::nullopt;
    change.nodeId = *id;
    changes.push_back(change);
  }
  return changes;
}

std::string conf_changes_to_string(const std::vector<ConfChangeSingle>& changes) {
  std::string out;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (i > 0) out += ' ';
    switch (changes[i].type) {
      case ConfChangeType::ConfChangeAddNode:
        out += 'v';
        break;
      case ConfChangeType::ConfChangeAddLearnerNode:
        out += 'l';
        break;
      case ConfChangeType::ConfChangeRemoveNode:
        out += 'r';
        break;
      case ConfChangeType::ConfChangeUpdateNode:
        out += 'u';
        break;
    }
    out += std::to_string(changes[i].nodeId);
  }
  return out;
}

namespace {

// Go's %+#v of a ConfState as far as it is meaningful here (the generated struct's internal
// fields left out): only a panic message shows it.
std::string go_syntax(const ConfState& cs) {
  auto list = [](const std::vector<PeerId>& ids) {
    if (ids.empty()) return std::string("[]uint64(nil)");
    std::string out = "[]uint64{";
    for (std::size_t i = 0; i < ids.size(); ++i) {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      PeerId v = ids[i];
      do {
        hex.insert(hex.begin(), kHex[v & 0xF]);
        v >>= 4;
      } while (v != 0);
      out += (i > 0 ? ", 0x" : "0x") + hex;
    }
    return out + "}";
  };
  return "&raftpb.ConfState{Voters:" + list(cs.voters) + ", Learners:" + list(cs.learners) +
         ", VotersOutgoing:" + list(cs.votersOutgoing) + ", LearnersNext:" + list(cs.learnersNext) +
         ", AutoLeave:(*bool)(" + (cs.autoLeave ? "true" : "false") + ")}";
}

}  // namespace

std::optional<std::string> conf_state_equivalent(const ConfState& a, const ConfState& b) {
  auto sorted = [](ConfState cs) {
    for (auto* ids : {&cs.voters, &cs.learners, &cs.votersOutgoing, &cs.learnersNext}) {
      std::sort(ids->begin(), ids->end());
    }
    return cs;
  };
  const ConfState sa = sorted(a);
  const ConfState sb = sorted(b);
  if (sa == sb) return std::nullopt;
  return "ConfStates not equivalent after sorting:\n" + go_syntax(sa) + "\n" + go_syntax(sb) +
         "\nInputs were:\n" + go_syntax(a) + "\n" + go_syntax(b);
}

// ---- proto2 wire format ------------------------------------------------------------------

namespace {

enum WireType : std::uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kBytes = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5
};

std::uint64_t varint_size(std::uint64_t v) {
  std::uint64_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_tag(std::string& out, std::uint32_t field, WireType wire) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | wire);
}

void put_varint_field(std::string& out, std::uint32_t field, std::uint64_t v) {
  put_tag(out, field, kVarint);
  put_varint(out, v);
}

void put_bytes_field(std::string& out, std::uint32_t field, std::string_view bytes) {
  put_tag(out, field, kBytes);
  put_varint(out, bytes.size());
  out += bytes;
}

constexpr std::string_view kParseError = "proto: cannot parse invalid wire-format data";

// A cursor over encoded bytes; every read fails (returns false) rather than run past the end.
struct Reader {
  std::string_view in;
  std::size_t pos = 0;

  bool done() const { return pos >= in.size(); }

  // protowire.ConsumeVarint: at most 10 bytes, the 10th at most 1.
  bool varint(std::uint64_t& v) {
    v = 0;
    for (unsigned i = 0; i < 10; ++i) {
      if (pos >= in.size()) return false;
      const auto byte = static_cast<std::uint8_t>(in[pos++]);
      if (i == 9 && byte > 1) return false;
      v |= static_cast<std::uint64_t>(byte & 0x7F) << (7 * i);
      if (byte < 0x80) return true;
    }
    return false;
  }

  bool bytes(std::string_view& out) {
    std::uint64_t n = 0;
    if (!varint(n) || n > in.size() - pos) return false;
    out = in.substr(pos, n);
    pos += n;
    return true;
  }

  bool tag(std::uint32_t& field, WireType& wire) {
    std::uint64_t t = 0;
    if (!varint(t)) return false;
    const std::uint64_t number = t >> 3;
    if (number == 0 || number > 0x1FFFFFFF) return false;
    field = static_cast<std::uint32_t>(number);
    wire = static_cast<WireType>(t & 7);
    return true;
  }

  // Skips one unknown field's value; a group is skipped to its matching end, nested no
  // deeper than `depth`.
  bool skip(std::uint32_t field, WireType wire, int depth) {
    std::uint64_t ignored = 0;
    std::string_view ignored_bytes;
    switch (wire) {
      case kVarint:
        return varint(ignored);
      case kFixed64:
        return advance(8);
      case kFixed32:
        return advance(4);
      case kBytes:
        return bytes(ignored_bytes);
      case kStartGroup:
        return skip_group(field, depth);
      default:
        return false;  // an end group with no start, or wire types 6 and 7
    }
  }

  bool advance(std::size_t n) {
    if (n > in.size() - pos) return false;
    pos += n;
    return true;
  }

  bool skip_group(std::uint32_t field, int depth) {
    if (depth <= 0) return false;
    while (!done()) {  // each turn consumes at least one byte
      std::uint32_t inner = 0;
      WireType wire = kVarint;
      if (!tag(inner, wire)) return false;
      if (wire == kEndGroup) return inner == field;
      if (!skip(inner, wire, depth - 1)) return false;
    }
    return false;
  }
};

constexpr int kMaxGroupDepth = 100;

// A closed proto2 enum: a value it does not know leaves the field unset (protobuf-go keeps it
// among the unknown fields).
template <typename Enum>
void set_enum(Enum& field, std::uint64_t raw, int count) {
  const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(raw));  // Go's int32(v)
  if (v >= 0 && v < count) field = static_cast<Enum>(v);
}

// Reads every field of one message, handing the known ones to `on_field`, which returns
// false for a field it does not take (then the field is skipped as unknown).
template <typename OnField>
bool parse_message(std::string_view bytes, OnField on_field) {
  Reader r{bytes};
  while (!r.done()) {  // each turn consumes at least one byte
    std::uint32_t field = 0;
    WireType wire = kVarint;
    if (!r.tag(field, wire)) return false;
    bool ok = true;
    if (on_field(r, field, wire, ok)) {
      if (!ok) return false;
      continue;
    }
    if (!r.skip(field, wire, kMaxGroupDepth)) return false;
  }
  return true;
}

template <typename T>
std::optional<T> parse_failed(std::string* err) {
  if (err != nullptr) *err = std::string(kParseError);
  return std::nullopt;
}

}  // namespace

std::string marshal(const ConfChange& change) {
  std::string out;
  if (change.id != 0) put_varint_field(out, 1, change.id);
  put_varint_field(out, 2, static_cast<std::uint64_t>(change.type));
  put_varint_field(out, 3, change.nodeId);
  if (!change.context.empty()) put_bytes_field(out, 4, change.context);
  return out;
}

std::string marshal(const ConfChangeV2& change) {
  std::string out;
  put_varint_field(out, 1, static_cast<std::uint64_t>(change.transition));
  for (const ConfChangeSingle& single : change.changes) {
    std::string inner;
    put_varint_field(inner, 1, static_cast<std::uint64_t>(single.type));
    put_varint_field(inner, 2, single.nodeId);
    put_bytes_field(out, 2, inner);
  }
  if (!change.context.empty()) put_bytes_field(out, 3, change.context);
  return out;
}

std::optional<ConfChange> unmarshal_conf_change(std::string_view bytes, std::string* err) {
  ConfChange cc;
  const bool parsed =
      parse_message(bytes, [&](Reader& r, std::uint32_t field, WireType wire, bool& ok) {
        std::uint64_t v = 0;
        std::string_view b;
        if (wire == kVarint && (field == 1 || field == 2 || field == 3)) {
          ok = r.varint(v);
          if (field == 1) cc.id = v;
          if (field == 2) set_enum(cc.type, v, 4);
          if (field == 3) cc.nodeId = v;
          return true;
        }
        if (wire == kBytes && field == 4) {
          ok = r.bytes(b);
          cc.context = std::string(b);
          return true;
        }
        return false;
      });
  if (!parsed) return parse_failed<ConfChange>(err);
  return cc;
}

namespace {

std::optional<ConfChangeSingle> unmarshal_single(std::string_view bytes) {
  ConfChangeSingle single;
  const bool parsed =
      parse_message(bytes, [&](Reader& r, std::uint32_t field, WireType wire, bool& ok) {
        if (wire != kVarint || (field != 1 && field != 2)) return false;
        std::uint64_t v = 0;
        ok = r.varint(v);
        if (field == 1) set_enum(single.type, v, 4);
        if (field == 2) single.nodeId = v;
        return true;
      });
  if (!parsed) return std::nullopt;
  return single;
}

}  // namespace

std::optional<ConfChangeV2> unmarshal_conf_change_v2(std::string_view bytes, std::string* err) {
  ConfChangeV2 cc;
  const bool parsed =
      parse_message(bytes, [&](Reader& r, std::uint32_t field, WireType wire, bool& ok) {
        if (wire == kVarint && field == 1) {
          std::uint64_t v = 0;
          ok = r.varint(v);
          set_enum(cc.transition, v, 3);
          return true;
        }
        if (wire != kBytes || (field != 2 && field != 3)) return false;
        std::string_view b;
        ok = r.bytes(b);
        if (ok && field == 2) {
          const auto single = unmarshal_single(b);
          ok = single.has_value();
          if (ok) cc.changes.push_back(*single);
        }
        if (ok && field == 3) cc.context = std::string(b);
        return true;
      });
  if (!parsed) return parse_failed<ConfChangeV2>(err);
  return cc;
}

std::uint64_t entry_size(const Entry& entry) {
  // Entry: Type = 1, Term = 2, Index = 3, Data = 4; each tag is one byte.
  std::uint64_t size = 1 + varint_size(entry.term) + 1 + varint_size(entry.index);
  if (entry.type != EntryType::EntryNormal || entry.typeSet) {
    size += 1 + varint_size(static_cast<std::uint64_t>(entry.type));
  }
  if (!entry.data.empty() || entry.dataSet) {
    size += 1 + varint_size(entry.data.size()) + entry.data.size();
  }
  return size;
}

}  // namespace hasim::raft
