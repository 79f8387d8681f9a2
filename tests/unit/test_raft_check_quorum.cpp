// check-quorum:BOUND over hand-built traces: the raft-state, raft-recovered, recv, pause,
// clock-rate and etcd-conf-change events etcd members and the kernel trace. A leader that
// hears from a quorum, or steps down in time, keeps it; one that leads on cut off from its
// peers breaks it at the moment its bound ran out.
#include <catch2/catch.hpp>

#include <deque>
#include <string>

#include "properties/raft/check_quorum.hpp"

using Catch::Matchers::Contains;
using hasim::CheckQuorum;
using hasim::StoredTraceEvent;
using hasim::TraceEvent;
using hasim::TraceField;
using hasim::TrueTime;

namespace {

TrueTime at(double seconds) { return TrueTime{static_cast<std::int64_t>(seconds * 1e9)}; }

class Trace {
 public:
  CheckQuorum monitor{"check-quorum:3s", hasim::seconds(3)};

  // Three members n1..n3 start from the bootstrap snapshot (voters); n4 is a standby.
  explicit Trace(int members = 3) {
    for (int i = 1; i <= members; ++i) {
      feed(0, node(i), "etcd", "raft-recovered",
           {{"member", std::int64_t{i}}, {"snap-index", std::int64_t{1}}});
    }
  }
  void lead(double t, int member, std::int64_t term = 2) {
    state(t, member, "StateLeader", term);
  }
  void follow(double t, int member, std::int64_t term = 2) {
    state(t, member, "StateFollower", term);
  }
  // `to` receives a message from `from`.
  void recv(double t, int to, int from) {
    feed(t, node(to), "etcd", "recv",
         {{"from", node(from) + "/etcd"}, {"msg", std::string("MsgHeartbeatResp")}});
  }
  void kernel(double t, int member, std::string_view kind, std::string_view proc = "etcd") {
    feed(t, node(member), proc, kind, {});
  }
  void clock_rate(double t, int member, std::int64_t ppb) {
    feed(t, node(member), "", "clock-rate", {{"rate_ppb", ppb}});
  }
  void conf_change(double t, std::string type, int member) {
    feed(t, node(1), "etcd", "etcd-conf-change",
         {{"member", std::int64_t{1}}, {"type", std::move(type)}, {"node", std::int64_t{member}}});
  }
  void standby_start(int member) {
    feed(0, node(member), "etcd", "raft-recovered",
         {{"member", std::int64_t{member}}, {"snap-index", std::int64_t{0}}});
  }
  void end(double t) { monitor.finish(at(t)); }

 private:
  static std::string node(int i) { return "n" + std::to_string(i); }
  void state(double t, int member, std::string s, std::int64_t term) {
    feed(t, node(member), "etcd", "raft-state",
         {{"member", std::int64_t{member}}, {"term", term}, {"state", std::move(s)}});
  }
  void feed(double t, std::string node, std::string_view proc, std::string_view kind,
            std::vector<TraceField> fields) {
    names_.push_back(std::move(node));
    events_.push_back(StoredTraceEvent{at(t), names_.back(), proc, kind, std::move(fields)});
    monitor.on_event(events_.back());
  }
  std::deque<std::string> names_;  // the events' node names live here
  std::deque<StoredTraceEvent> events_;
};

}  // namespace

TEST_CASE("check-quorum holds for a leader that hears from a quorum or steps down in time",
          "[raft][check-quorum]") {
  Trace trace;
  SECTION("one peer keeps answering: with itself, 2 of 3") {
    trace.lead(1, 1);
    for (int i = 2; i <= 80; ++i) trace.recv(i * 0.5, 1, 2);
  }
  SECTION("cut off, it steps down 2.5s after the last message it heard, within 3s") {
    trace.lead(1, 3);
    trace.recv(2, 3, 1);
    trace.follow(4.5, 3);
  }
  trace.end(40);
  CHECK_FALSE(trace.monitor.violation());
}

TEST_CASE("check-quorum: a leader that never steps down is caught", "[raft][check-quorum]") {
  Trace trace;
  trace.lead(1, 3);
  trace.recv(2, 3, 1);
  trace.recv(2.5, 3, 2);
  trace.end(60);
  REQUIRE(trace.monitor.violation());
  CHECK(trace.monitor.violation()->at == at(5.5));  // the second peer's message, 3s old
  CHECK_THAT(trace.monitor.violation()->detail, Contains("n3/etcd led term 2"));
  CHECK_THAT(trace.monitor.violation()->detail, Contains("no quorum of the 3 voters"));
}

TEST_CASE("check-quorum: no obligation while paused, a slow clock stretches the bound",
          "[raft][check-quorum]") {
  Trace trace;
  SECTION("paused") {
    trace.lead(1, 1);
    trace.kernel(2, 1, "pause");
    trace.kernel(30, 1, "resume");
    trace.follow(32, 1);
  }
  SECTION("a clock at half speed: 6s of true time") {
    trace.clock_rate(0.5, 1, 500'000'000);
    trace.lead(1, 1);
    trace.follow(6.5, 1);
  }
  trace.end(60);
  CHECK_FALSE(trace.monitor.violation());
}

TEST_CASE("check-quorum: a slow clock stretches the bound and no more", "[raft][check-quorum]") {
  Trace trace;
  trace.clock_rate(0.5, 1, 500'000'000);
  trace.lead(1, 1);
  trace.end(60);
  REQUIRE(trace.monitor.violation());
  CHECK(trace.monitor.violation()->at == at(7));
}

TEST_CASE("check-quorum: crashes end leadership; a single voter needs nobody",
          "[raft][check-quorum]") {
  const bool single = GENERATE(false, true);
  Trace trace(single ? 1 : 3);
  trace.lead(1, 1);
  bool leads_on = false;
  SECTION("crash") { trace.kernel(2, 1, "crash"); }
  SECTION("node down") { trace.kernel(2, 1, "node-down", ""); }
  SECTION("leads on") { leads_on = true; }
  trace.end(60);
  // Only a leader of three that leads on without its peers breaks it.
  CHECK(trace.monitor.violation().has_value() == (!single && leads_on));
}

TEST_CASE("check-quorum: the voters follow conf changes; standby members are not voters",
          "[raft][check-quorum]") {
  SECTION("a standby member does not raise the quorum") {
    Trace trace;
    trace.standby_start(4);
    trace.lead(1, 1);
    for (int i = 2; i <= 80; ++i) trace.recv(i * 0.5, 1, 2);
    trace.end(40);
    CHECK_FALSE(trace.monitor.violation());
  }
  SECTION("a promoted fourth voter makes it 3 of 4") {
    Trace trace;
    trace.standby_start(4);
    trace.conf_change(0.5, "ConfChangeAddLearnerNode", 4);
    trace.conf_change(0.8, "ConfChangeAddNode", 4);
    trace.lead(1, 1);
    for (int i = 2; i <= 80; ++i) trace.recv(i * 0.5, 1, 2);
    trace.end(40);
    REQUIRE(trace.monitor.violation());
    CHECK_THAT(trace.monitor.violation()->detail, Contains("no quorum of the 4 voters"));
  }
}
