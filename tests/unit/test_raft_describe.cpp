// The raft texts the interaction transcripts print (util.go Describe*, Go's %q), the proto2
// encoding of conf changes and the size of entries (models/raft/util.hpp, raftpb_util.hpp).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <string>
#include <vector>

#include "models/raft/go_quote.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/util.hpp"

using namespace hasim::raft;
using namespace std::string_literals;

namespace {

Entry entry(Term term, Index index, std::string data = "",
            EntryType type = EntryType::EntryNormal) {
  Entry e;
  e.term = term;
  e.index = index;
  e.type = type;
  e.data = std::move(data);
  return e;
}

Entry conf_entry(Term term, Index index, const ConfChangeI& cc) {
  const MarshalledConfChange m = marshal_conf_change(cc);
  Entry e = entry(term, index, m.data, m.type);
  e.typeSet = true;
  e.dataSet = m.dataSet;
  return e;
}

ConfChangeV2 v2(std::string_view ops,
                ConfChangeTransition t = ConfChangeTransition::ConfChangeTransitionAuto) {
  ConfChangeV2 cc;
  cc.transition = t;
  cc.changes = conf_changes_from_string(ops).value();
  return cc;
}

Message msg(MessageType type, PeerId from, PeerId to, Term term) {
  Message m;
  m.type = type;
  m.from = from;
  m.to = to;
  m.term = term;
  return m;
}

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

}  // namespace

TEST_CASE("go_quote escapes as Go's strconv.Quote", "[raft]") {
  CHECK(go_quote("") == R"("")");
  CHECK(go_quote("foo") == R"("foo")");
  CHECK(go_quote(R"("foo")") == R"("\"foo\"")");
  CHECK(go_quote("a\\b") == R"("a\\b")");
  CHECK(go_quote("hello\0world"s) == R"("hello\x00world")");
  CHECK(go_quote("\a\b\f\n\r\t\v") == R"("\a\b\f\n\r\t\v")");
  CHECK(go_quote("\x01\x1f\x7f") == R"("\x01\x1f\x7f")");
  // Printable non-ASCII stays as it is: Latin, CJK, an emoji, a combining mark, U+FFFD.
  CHECK(go_quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(go_quote("\xe6\x97\xa5\xe6\x9c\xac") == "\"\xe6\x97\xa5\xe6\x9c\xac\"");
  CHECK(go_quote("\xf0\x9f\x98\x80") == "\"\xf0\x9f\x98\x80\"");
  CHECK(go_quote("e\xcc\x81") == "\"e\xcc\x81\"");
  CHECK(go_quote("\xef\xbf\xbd") == "\"\xef\xbf\xbd\"");
  // Valid but not printable: C1 controls, spaces other than ' ', format characters,
  // private use, unassigned code points.
  CHECK(go_quote("\xc2\x85") == R"("\u0085")");
  CHECK(go_quote("\xc2\xa0") == R"("\u00a0")");
  CHECK(go_quote("\xc2\xad") == R"("\u00ad")");
  CHECK(go_quote("\xe2\x80\xa8") == R"("\u2028")");
  CHECK(go_quote("\xee\x80\x80") == R"("\ue000")");
  CHECK(go_quote("\xf4\x8f\xbf\xbf") == R"("\U0010ffff")");
  CHECK(go_quote("\xf3\xa0\x80\x81") == R"("\U000e0001")");
  // Invalid UTF-8: each offending byte as \x, decoding resumes at the next byte.
  CHECK(go_quote("\xff") == R"("\xff")");
  CHECK(go_quote("a\xc3") == R"("a\xc3")");
  CHECK(go_quote("\xc0\x80") == R"("\xc0\x80")");                  // overlong
  CHECK(go_quote("\xed\xa0\x80") == R"("\xed\xa0\x80")");          // a surrogate
  CHECK(go_quote("\xf4\x90\x80\x80") == R"("\xf4\x90\x80\x80")");  // past U+10FFFF
  CHECK(go_quote("\xe2\x82x") == R"("\xe2\x82x")");                // cut short
  CHECK(go_is_print(U' '));
  CHECK_FALSE(go_is_print(U'\u3000'));  // ideographic space: Zs
  CHECK(go_is_print(U'\u0301'));        // combining acute accent: Mn
}

TEST_CASE("describe_entry: normal entries and conf changes", "[raft]") {
  const Entry e = entry(1, 2, "hello\0world"s);
  CHECK(describe_entry(e) == R"(1/2 EntryNormal "hello\x00world")");
  const EntryFormatter upper = [](std::string_view data) {
    std::string out(data);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  };
  CHECK(describe_entry(e, upper) == "1/2 EntryNormal HELLO\0WORLD"s);
  CHECK(describe_entry(entry(1, 11)) == R"(1/11 EntryNormal "")");
  CHECK(describe_entry(entry(1, 12, R"("foo")")) == R"(1/12 EntryNormal "\"foo\"")");
  // A formatter that shows nothing leaves no trailing space.
  CHECK(describe_entry(e, [](std::string_view) { return std::string(); }) == "1/2 EntryNormal");

  ConfChange v1;
  v1.type = ConfChangeType::ConfChangeAddNode;
  v1.nodeId = 2;
  CHECK(describe_entry(conf_entry(1, 3, v1)) == "1/3 EntryConfChange v2");
  CHECK(describe_entry(conf_entry(1, 5, v2("l2 l3"))) == "1/5 EntryConfChangeV2 l2 l3");
  CHECK(describe_entry(conf_entry(1, 6, v2(""))) == "1/6 EntryConfChangeV2");
  CHECK(describe_entry(conf_entry(1, 7, std::monostate{})) == "1/7 EntryConfChangeV2");
  CHECK(describe_entry(conf_entry(2, 4, v2("v1 r2 u3 l4"))) == "2/4 EntryConfChangeV2 v1 r2 u3 l4");
  CHECK(describe_entry(entry(1, 2, "\xff", EntryType::EntryConfChange)) ==
        "1/2 EntryConfChange proto: cannot parse invalid wire-format data");
  CHECK(describe_entries({entry(1, 1, "a"), entry(1, 2, "b")}) ==
        "1/1 EntryNormal \"a\"\n1/2 EntryNormal \"b\"\n");
}

TEST_CASE("describe_conf_change as raft's ignoring line shows it", "[raft]") {
  CHECK(describe_conf_change(v2("v3 v4 v5")) ==
        "transition:ConfChangeTransitionAuto changes:{type:ConfChangeAddNode node_id:3} "
        "changes:{type:ConfChangeAddNode node_id:4} changes:{type:ConfChangeAddNode node_id:5}");
  CHECK(describe_conf_change(std::monostate{}) == "transition:ConfChangeTransitionAuto");
  ConfChange v1;
  v1.type = ConfChangeType::ConfChangeRemoveNode;
  v1.nodeId = 7;
  v1.context = "ctx\n";
  CHECK(describe_conf_change(v1) ==
        "transition:ConfChangeTransitionAuto changes:{type:ConfChangeRemoveNode node_id:7} "
        "context:\"ctx\\n\"");
}

TEST_CASE("describe_message in the transcripts' shapes", "[raft]") {
  Message app = msg(MessageType::MsgApp, 1, 2, 1);
  app.logTerm = 1;
  app.index = 10;
  app.commit = 10;
  app.entries = {entry(1, 11)};
  CHECK(describe_message(app) ==
        R"(1->2 MsgApp Term:1 Log:1/10 Commit:10 Entries:[1/11 EntryNormal ""])");

  app.entries = {entry(1, 11, "a"), entry(1, 12, "b")};
  app.to = 0x1a;
  CHECK(describe_message(app) ==
        "1->1a MsgApp Term:1 Log:1/10 Commit:10 Entries:[\n  1/11 EntryNormal \"a\"\n"
        "  1/12 EntryNormal \"b\"\n]");

  Message resp = msg(MessageType::MsgAppResp, 2, 1, 3);
  resp.logTerm = 2;
  resp.index = 14;
  resp.reject = true;
  resp.rejectHint = 13;
  CHECK(describe_message(resp) == "2->1 MsgAppResp Term:3 Log:2/14 Rejected (Hint: 13)");

  const Message vote = msg(MessageType::MsgVoteResp, 1, 1, 1);
  Message append = msg(MessageType::MsgStorageAppend, 1, LocalAppendThread, 1);
  append.commit = 10;
  append.vote = 1;
  append.responses = {vote};
  CHECK(describe_message(append) ==
        "1->AppendThread MsgStorageAppend Term:1 Log:0/0 Commit:10 Vote:1 Responses:[\n"
        "  1->1 MsgVoteResp Term:1 Log:0/0\n]");

  Message snap = msg(MessageType::MsgSnap, 1, 3, 1);
  snap.snapshot = Snapshot{};
  CHECK(describe_message(snap) == "1->3 MsgSnap Term:1 Log:0/0");  // an empty snapshot hides
  snap.snapshot->metadata.index = 11;
  snap.snapshot->metadata.term = 1;
  snap.snapshot->metadata.confState.voters = {1, 2, 3};
  CHECK(describe_message(snap) ==
        "1->3 MsgSnap Term:1 Log:0/0\n  Snapshot: Index:11 Term:1 ConfState:Voters:[1 2 3] "
        "VotersOutgoing:[] Learners:[] LearnersNext:[] AutoLeave:false");

  CHECK(describe_message(msg(MessageType::MsgStorageApply, LocalApplyThread, None, 0)) ==
        "ApplyThread->None MsgStorageApply Term:0 Log:0/0");
}

TEST_CASE("describe_ready, hard, soft and conf state", "[raft]") {
  CHECK(describe_ready(Ready{}) == "<empty Ready>");
  Ready rd;
  rd.softState = SoftState{1, StateType::StateLeader};
  rd.hardState = HardState{1, 1, 5};
  rd.entries = {entry(1, 4, "foo")};
  rd.committedEntries = {entry(1, 3)};
  Snapshot s;
  s.metadata.index = 4;
  s.metadata.term = 1;
  s.metadata.confState.voters = {1, 2};
  s.metadata.confState.votersOutgoing = {1};
  s.metadata.confState.autoLeave = true;
  rd.snapshot = s;
  rd.readStates = {ReadState{5, "ab"}};
  rd.mustSync = true;
  rd.messages = {msg(MessageType::MsgHeartbeat, 1, 2, 1)};
  CHECK(describe_ready(rd) ==
        "Ready MustSync=true:\n"
        "Lead:1 State:StateLeader\n"
        "HardState Term:1 Vote:1 Commit:5\n"
        "ReadStates [{5 [97 98]}]\n"
        "Entries:\n1/4 EntryNormal \"foo\"\n"
        "Snapshot Index:4 Term:1 ConfState:Voters:[1 2] VotersOutgoing:[1] Learners:[] "
        "LearnersNext:[] AutoLeave:true\n"
        "CommittedEntries:\n1/3 EntryNormal \"\"\n"
        "Messages:\n1->2 MsgHeartbeat Term:1 Log:0/0\n");
  Ready quiet;
  quiet.hardState = HardState{};  // empty: not shown
  quiet.snapshot = Snapshot{};
  CHECK(describe_ready(quiet) == "<empty Ready>");
  CHECK(describe_hard_state(HardState{2, 0, 7}) == "Term:2 Commit:7");
  CHECK(name(StateType::StatePreCandidate) == "StatePreCandidate");
}

TEST_CASE("message classes", "[raft]") {
  const std::vector<MessageType> local = {MessageType::MsgHup,
                                          MessageType::MsgBeat,
                                          MessageType::MsgUnreachable,
                                          MessageType::MsgSnapStatus,
                                          MessageType::MsgCheckQuorum,
                                          MessageType::MsgStorageAppend,
                                          MessageType::MsgStorageAppendResp,
                                          MessageType::MsgStorageApply,
                                          MessageType::MsgStorageApplyResp};
  const std::vector<MessageType> response = {
      MessageType::MsgAppResp,           MessageType::MsgVoteResp,
      MessageType::MsgHeartbeatResp,     MessageType::MsgUnreachable,
      MessageType::MsgReadIndexResp,     MessageType::MsgPreVoteResp,
      MessageType::MsgStorageAppendResp, MessageType::MsgStorageApplyResp};
  for (int i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    const bool isLocal = std::find(local.begin(), local.end(), t) != local.end();
    const bool isResponse = std::find(response.begin(), response.end(), t) != response.end();
    CHECK(is_local_msg(t) == isLocal);
    CHECK(is_response_msg(t) == isResponse);
  }
  CHECK(is_local_msg_target(LocalAppendThread));
  CHECK(is_local_msg_target(LocalApplyThread));
  CHECK_FALSE(is_local_msg_target(1));
  CHECK(vote_resp_msg_type(MessageType::MsgPreVote) == MessageType::MsgPreVoteResp);
  CHECK(name(MessageType::MsgForgetLeader) == "MsgForgetLeader");
}

TEST_CASE("conf change encoding: exact bytes", "[raft]") {
  ConfChange v1;
  v1.type = ConfChangeType::ConfChangeAddNode;
  v1.nodeId = 2;
  CHECK(hex(marshal(v1)) == "10 00 18 02");  // type 0 and node 2, both always written
  v1.id = 5;
  v1.context = "x";
  CHECK(hex(marshal(v1)) == "08 05 10 00 18 02 22 01 78");
  CHECK(unmarshal_conf_change(marshal(v1)) == v1);

  CHECK(hex(marshal(ConfChangeV2{})) == "08 00");
  CHECK(hex(marshal(v2("l2 r300", ConfChangeTransition::ConfChangeTransitionJointExplicit))) ==
        "08 02 12 04 08 03 10 02 12 05 08 01 10 ac 02");

  const MarshalledConfChange none = marshal_conf_change(std::monostate{});
  CHECK(none.type == EntryType::EntryConfChangeV2);
  CHECK(none.data.empty());
  CHECK_FALSE(none.dataSet);
  CHECK(unmarshal_conf_change_v2("").value().leave_joint());

  // Unknown fields are skipped (a varint, a fixed64, bytes, a group); an unknown enum value
  // leaves the field at its default, as a closed proto2 enum does.
  const std::string extra =
      "\x38\x01"s + "\x41" + std::string(8, '\0') + "\x4a\x01z" + "\x53\x08\x01\x54"s;
  CHECK(unmarshal_conf_change_v2(marshal(v2("v1")) + extra) == v2("v1"));
  CHECK(unmarshal_conf_change_v2("\x08\x09"s).value().transition ==
        ConfChangeTransition::ConfChangeTransitionAuto);
  std::string err;
  CHECK_FALSE(unmarshal_conf_change_v2("\x12\x05\x08"s, &err).has_value());  // cut short
  CHECK(err == "proto: cannot parse invalid wire-format data");
  CHECK_FALSE(unmarshal_conf_change("\x0c"s).has_value());      // an end group with no start
  CHECK_FALSE(unmarshal_conf_change("\x00\x00"s).has_value());  // field number 0
}

TEST_CASE("entry_size is proto.Size with presence", "[raft]") {
  // The empty entry a new leader appends: Term and Index only.
  CHECK(entry_size(entry(1, 11)) == 4);
  // A proposal "foo": 4 + tag, length, 3 bytes.
  CHECK(entry_size(entry(1, 12, "foo")) == 9);
  // A refused conf change turned into {Type: EntryNormal}: 2 bytes more for the set type.
  Entry refused = entry(1, 13);
  refused.typeSet = true;
  CHECK(entry_size(refused) == 6);
  // An empty but non-nil Data ([]byte("")): tag and zero length.
  Entry empty = entry(1, 14);
  empty.dataSet = true;
  CHECK(entry_size(empty) == 6);
  // The interaction's "l2 l3" (transition set): data 08 00 12 04 08 03 10 02 12 04 08 03 10 03.
  const Entry cc = conf_entry(1, 5, v2("l2 l3"));
  CHECK(cc.data.size() == 14);
  CHECK(entry_size(cc) == 4 + 2 + 1 + 1 + 14);
  // Auto-leave: Type set, Data nil.
  CHECK(entry_size(conf_entry(2, 7, std::monostate{})) == 6);
  // Multi-byte varints: term 300 (2 bytes), index 2^63 (10 bytes), 200 data bytes (length 2).
  CHECK(entry_size(entry(300, Index{1} << 63, std::string(200, 'x'))) ==
        1 + 2 + 1 + 10 + 1 + 2 + 200);
  CHECK(payload_size(cc) == 14);
  CHECK(payloads_size(std::vector<Entry>{cc, entry(1, 1, "ab")}) == 16);
}

TEST_CASE("limit_size keeps the longest prefix within the size, at least one", "[raft]") {
  const std::vector<Entry> ents = {entry(4, 4), entry(5, 5), entry(6, 6)};
  const auto s = [&](std::size_t i) { return entry_size(ents[i]); };
  CHECK(limit_size(ents, noLimit).size() == 3);
  CHECK(limit_size(ents, 0).size() == 1);
  CHECK(limit_size(ents, s(0) + s(1)).size() == 2);
  CHECK(limit_size(ents, s(0) + s(1) + s(2) / 2).size() == 2);
  CHECK(limit_size(ents, s(0) + s(1) + s(2) - 1).size() == 2);
  CHECK(limit_size(ents, s(0) + s(1) + s(2)).size() == 3);
  CHECK(limit_size({}, 0).empty());
  CHECK(ents_size(ents) == s(0) + s(1) + s(2));
  CHECK(extend({ents[0]}, std::vector<Entry>{ents[1], ents[2]}) == ents);
}

TEST_CASE("conf changes from and to strings; conf state equivalence; joint", "[raft]") {
  const auto ccs = conf_changes_from_string(" v1 l2 r3 u4 ");
  REQUIRE(ccs.has_value());
  CHECK(ccs->size() == 4);
  CHECK(conf_changes_to_string(*ccs) == "v1 l2 r3 u4");
  CHECK(conf_changes_from_string("").value().empty());
  std::string err;
  CHECK_FALSE(conf_changes_from_string("v", &err));
  CHECK(err == "unknown token v");
  CHECK_FALSE(conf_changes_from_string("v1  v2", &err));
  CHECK(err == "unknown token ");
  CHECK_FALSE(conf_changes_from_string("x1", &err));
  CHECK(err == "unknown input: x1");
  CHECK_FALSE(conf_changes_from_string("vx", &err));
  CHECK(err == R"(strconv.ParseUint: parsing "x": invalid syntax)");
  CHECK_FALSE(conf_changes_from_string("v18446744073709551616", &err));
  CHECK(err == R"(strconv.ParseUint: parsing "18446744073709551616": value out of range)");

  ConfState a;
  a.voters = {3, 1, 2};
  a.learners = {5, 4};
  ConfState b;
  b.voters = {1, 2, 3};
  b.learners = {4, 5};
  CHECK_FALSE(conf_state_equivalent(a, b).has_value());
  b.autoLeave = true;
  const auto diff = conf_state_equivalent(a, b);
  REQUIRE(diff.has_value());
  CHECK(diff->rfind("ConfStates not equivalent after sorting:\n", 0) == 0);

  CHECK_FALSE(v2("v1").enter_joint().has_value());
  CHECK(v2("v1 v2").enter_joint() == std::optional<bool>(true));
  CHECK(v2("v1", ConfChangeTransition::ConfChangeTransitionJointExplicit).enter_joint() ==
        std::optional<bool>(false));
  CHECK(v2("", ConfChangeTransition::ConfChangeTransitionJointImplicit).enter_joint() ==
        std::optional<bool>(true));
  CHECK(v2("").leave_joint());
  CHECK_FALSE(v2("", ConfChangeTransition::ConfChangeTransitionJointImplicit).leave_joint());
  ConfChange v1;
  v1.type = ConfChangeType::ConfChangeAddLearnerNode;
  v1.nodeId = 9;
  v1.context = "c";
  v1.id = 3;
  CHECK(v1.as_v2() == ConfChangeV2{ConfChangeTransition::ConfChangeTransitionAuto,
                                   {{ConfChangeType::ConfChangeAddLearnerNode, 9}},
                                   "c"});
}

TEST_CASE("conf changes survive marshal and unmarshal", "[raft]") {
  rc::prop("unmarshal(marshal(cc)) == cc for any ConfChangeV2", [] {
    ConfChangeV2 cc;
    cc.transition = static_cast<ConfChangeTransition>(*rc::gen::inRange(0, 3));
    const auto n = *rc::gen::inRange(0, 8);
    for (int i = 0; i < n; ++i) {
      cc.changes.push_back(ConfChangeSingle{static_cast<ConfChangeType>(*rc::gen::inRange(0, 4)),
                                            *rc::gen::arbitrary<PeerId>()});
    }
    cc.context = *rc::gen::arbitrary<std::string>();
    const std::string bytes = marshal(cc);
    RC_ASSERT(unmarshal_conf_change_v2(bytes) == std::optional<ConfChangeV2>(cc));
    // As an entry, its size is the encoding's: 1 tag + length varint + bytes, plus the rest.
    Entry e = conf_entry(1, 1, cc);
    RC_ASSERT(entry_size(e) == 4 + 2 + 1 + (bytes.size() < 128 ? 1u : 2u) + bytes.size());
  });
  rc::prop("unmarshal(marshal(cc)) == cc for any ConfChange", [] {
    ConfChange cc;
    cc.type = static_cast<ConfChangeType>(*rc::gen::inRange(0, 4));
    cc.nodeId = *rc::gen::arbitrary<PeerId>();
    cc.id = *rc::gen::arbitrary<std::uint64_t>();
    cc.context = *rc::gen::arbitrary<std::string>();
    RC_ASSERT(unmarshal_conf_change(marshal(cc)) == std::optional<ConfChange>(cc));
  });
}
