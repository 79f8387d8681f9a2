// lease-protocol over hand-built traces: each test writes the lease-write / lease-read events
// kube-apiserver would trace (and the clock-rate, component-start and cle-controller-start
// events the monitor reads), once as the protocol allows, once with the mistake the check is
// for, and checks the verdict and the sentence.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/lease_trace.hpp"
#include "properties/lease_protocol.hpp"

using Catch::Matchers::Contains;
using hasim::LeaseProtocol;
using hasim::StoredTraceEvent;
using hasim::TraceEvent;
using hasim::TraceField;
using hasim::TrueTime;

namespace {

constexpr std::string_view kLease = "Lease kube-system/kube-controller-manager";
const std::string kA = "cp-1_aaaa";  // identities are hostname_UUID
const std::string kB = "cp-2_bbbb";
const std::string kController = "cp-3_cccc";

TrueTime at(double seconds) {
  return TrueTime{static_cast<std::int64_t>(seconds * 1e9)};
}
std::int64_t wall(double seconds) { return static_cast<std::int64_t>(seconds * 1e9); }

// A Lease's spec as the write leaves it.
struct Spec {
  std::string holder;
  std::int64_t lds = 15;
  std::int64_t acquire = 0;
  std::int64_t renew = 0;
  std::int64_t transitions = 0;
};

class Trace {
 public:
  LeaseProtocol monitor{"lease-protocol"};

  void write(double t, const std::string& user, std::string verb, std::int64_t rv,
             std::int64_t precondition, const Spec& s) {
    feed(t, "lease-write",
         {{"user", user},
          {"verb", std::move(verb)},
          {"object", std::string(kLease)},
          {"rv", rv},
          {"precondition", precondition},
          {"holder", s.holder},
          {"lds", s.lds},
          {"acquire", s.acquire},
          {"renew", s.renew},
          {"transitions", s.transitions},
          {"strategy", std::string()},
          {"preferred", std::string()}});
  }
  void read(double t, const std::string& user, std::int64_t rv,
            std::string object = std::string(kLease)) {
    feed(t, "lease-read", {{"user", user}, {"object", std::move(object)}, {"rv", rv}});
  }
  void candidate(double t, const std::string& user, std::string verb, std::int64_t rv,
                 std::int64_t precondition, double renew,
                 std::int64_t ping = hasim::api::kNilTime) {
    feed(t, "lease-write",
         {{"user", user},
          {"verb", std::move(verb)},
          {"object", std::string("LeaseCandidate kube-system/") + kB},
          {"rv", rv},
          {"precondition", precondition},
          {"lease", std::string("kube-controller-manager")},
          {"renew", wall(renew)},
          {"ping", ping}});
  }
  void clock_rate(std::string_view node, std::int64_t ppb) {
    events_.push_back(StoredTraceEvent{at(0), node, "", "clock-rate", {{"rate_ppb", ppb}}});
    monitor.on_event(events_.back());
  }
  void coordinated(const std::string& identity) {
    feed(0, "component-start", {{"identity", identity}, {"coordinated", true}});
  }
  void controller(const std::string& identity) {
    feed(0, "cle-controller-start", {{"identity", identity}});
  }
  // A lease created by A at t=0 (rv 1) and renewed at t=2 (rv 2).
  void held_by_a() {
    write(0, kA, "create", 1, 0, {kA, 15, wall(0), wall(0), 0});
    write(2, kA, "update", 2, 1, {kA, 15, wall(0), wall(2), 0});
  }
  // etcdctl snapshot save (ok) at `revision`, and its restore onto each of three members.
  void snapshot(double t, std::int64_t revision) {
    feed(t, "etcdctl",
         {{"op", std::string("snapshot")},
          {"result", std::string("ok")},
          {"name", std::string("backup")},
          {"revision", revision}});
  }
  void restore(double t, std::int64_t revision) {
    for (std::int64_t member = 1; member <= 3; ++member) {
      feed(t, "etcd-snapshot-restore",
           {{"member", member}, {"snapshot", std::string("backup")}, {"revision", revision}});
    }
  }
  bool held() const { return !monitor.violation().has_value(); }
  std::string detail() const { return held() ? std::string() : monitor.violation()->detail; }

 private:
  void feed(double t, std::string_view kind, std::vector<TraceField> fields) {
    events_.push_back(StoredTraceEvent{at(t), "cp-9", "kube-apiserver", kind, std::move(fields)});
    monitor.on_event(events_.back());
  }
  std::vector<StoredTraceEvent> events_;
};

}  // namespace

TEST_CASE("lease-protocol (a): updates are conditional on a version the writer was served",
          "[lease-protocol]") {
  Trace trace;
  trace.held_by_a();  // A's renewal is conditional on its own create's answer
  REQUIRE(trace.held());
  SECTION("a blind update") {
    trace.write(4, kA, "update", 3, 0, {kA, 15, wall(0), wall(4), 0});
    CHECK_THAT(trace.detail(), Contains("(a) blind update"));
  }
  SECTION("conditional on a version never served to the writer") {
    trace.write(4, kB, "update", 3, 2, {kA, 15, wall(0), wall(4), 0});
    CHECK_THAT(trace.detail(), Contains("which it was never served"));
  }
  SECTION("a version served by a get") {
    trace.read(3, kB, 2);
    trace.read(20, kB, 2);
    trace.write(20, kB, "update", 3, 2, {kB, 15, wall(20), wall(20), 1});
    CHECK(trace.held());
  }
}

TEST_CASE("lease-protocol (b): only the stored holder renews or releases", "[lease-protocol]") {
  Trace trace;
  trace.held_by_a();
  trace.read(3, kB, 2);
  SECTION("the holder releases: empty holder, LDS 1, acquireTime = now") {
    trace.write(4, kA, "update", 3, 2, {"", 1, wall(4), wall(4), 0});
    CHECK(trace.held());
  }
  SECTION("a non-holder releases") {
    trace.write(4, kB, "update", 3, 2, {"", 1, wall(4), wall(4), 0});
    CHECK_THAT(trace.detail(), Contains("(b) release by a non-holder"));
  }
  SECTION("a non-holder rewrites the holder's record") {
    trace.write(4, kB, "update", 3, 2, {kA, 15, wall(0), wall(4), 0});
    CHECK_THAT(trace.detail(), Contains("(b) renewal by a non-holder"));
  }
}

TEST_CASE("lease-protocol (c): a takeover waits leaseDuration on the taker's clock",
          "[lease-protocol]") {
  Trace trace;
  trace.held_by_a();
  trace.read(3, kB, 2);  // B observes the record renewed at t=2 from t=3
  SECTION("after leaseDuration") {
    trace.read(18, kB, 2);
    trace.write(18, kB, "update", 3, 2, {kB, 15, wall(18), wall(18), 1});
    CHECK(trace.held());
  }
  SECTION("too early") {
    trace.read(12, kB, 2);
    trace.write(12, kB, "update", 3, 2, {kB, 15, wall(12), wall(12), 1});
    CHECK_THAT(trace.detail(), Contains("(c) early takeover"));
    CHECK_THAT(trace.detail(), Contains("9s on its own clock"));
  }
  SECTION("a fast clock counts leaseDuration sooner") {
    Trace fast;
    fast.clock_rate("cp-2", 1'500'000'000);
    fast.held_by_a();
    fast.read(3, kB, 2);
    fast.write(13, kB, "update", 3, 2, {kB, 15, wall(13), wall(13), 1});  // 15s on cp-2
    CHECK(fast.held());
  }
  SECTION("a released (empty) lease is taken at once") {
    trace.write(4, kA, "update", 3, 2, {"", 1, wall(4), wall(4), 0});
    trace.read(5, kB, 3);
    trace.write(5, kB, "update", 4, 3, {kB, 15, wall(5), wall(5), 1});
    CHECK(trace.held());
  }
}

TEST_CASE("lease-protocol (d): leaseTransitions and acquireTime move at a change of holder",
          "[lease-protocol]") {
  Trace trace;
  trace.held_by_a();
  trace.read(3, kB, 2);
  SECTION("a takeover that leaves leaseTransitions alone") {
    trace.write(18, kB, "update", 3, 2, {kB, 15, wall(18), wall(18), 0});
    CHECK_THAT(trace.detail(), Contains("(d) leaseTransitions"));
  }
  SECTION("a takeover that keeps acquireTime") {
    trace.write(18, kB, "update", 3, 2, {kB, 15, wall(0), wall(18), 1});
    CHECK_THAT(trace.detail(), Contains("without setting acquireTime"));
  }
  SECTION("a renewal that resets acquireTime") {
    trace.write(4, kA, "update", 3, 2, {kA, 15, wall(4), wall(4), 0});
    CHECK_THAT(trace.detail(), Contains("stayed holder"));
  }
  SECTION("a renewal that counts a transition") {
    trace.write(4, kA, "update", 3, 2, {kA, 15, wall(0), wall(4), 1});
    CHECK_THAT(trace.detail(), Contains("expected 0"));
  }
}

TEST_CASE("lease-protocol (e): under CLE only the election controller sets the holder",
          "[lease-protocol]") {
  Trace trace;
  trace.coordinated(kB);
  trace.controller(kController);
  trace.held_by_a();
  trace.read(3, kB, 2);
  trace.read(3, kController, 2);
  SECTION("the controller takes over the expired Lease (transitions left alone)") {
    trace.write(18, kController, "update", 3, 2, {kB, 5, hasim::api::kNilTime, wall(18), 0});
    CHECK(trace.held());
  }
  SECTION("the controller takes over before renewTime + leaseDuration") {
    trace.write(10, kController, "update", 3, 2, {kB, 5, hasim::api::kNilTime, wall(10), 0});
    CHECK_THAT(trace.detail(), Contains("(c) early election"));
  }
  SECTION("the controller ends the term (preferredHolder): no renewal") {
    trace.write(4, kController, "update", 3, 2, {kA, 15, wall(0), wall(2), 0});
    CHECK(trace.held());
  }
  SECTION("the controller empties a Lease another holds") {
    trace.write(4, kController, "update", 3, 2, {"", 15, wall(0), wall(2), 0});
    CHECK_THAT(trace.detail(), Contains("(b) release by a non-holder"));
  }
  SECTION("a candidate takes the Lease itself") {
    trace.write(18, kB, "update", 3, 2, {kB, 15, wall(18), wall(18), 1});
    CHECK_THAT(trace.detail(), Contains("(e) coordinated candidate took"));
  }
  SECTION("a candidate creates the Lease") {
    Trace fresh;
    fresh.coordinated(kB);
    fresh.write(0, kB, "create", 1, 0, {kB, 15, wall(0), wall(0), 0});
    CHECK_THAT(fresh.detail(), Contains("(e) coordinated candidate took"));
  }
}

TEST_CASE("lease-protocol (f): a LeaseCandidate renewed within its validity is not collected",
          "[lease-protocol]") {
  Trace trace;
  trace.candidate(0, kB, "create", 1, 0, 0);
  trace.candidate(300, kB, "update", 2, 1, 300);  // renewed at 5 min
  trace.read(600, kController, 2, "LeaseCandidate kube-system/" + kB);
  SECTION("a ping (pingTime only) is no renewal; collected 55 min after its renewal") {
    trace.candidate(600, kController, "update", 3, 2, 300);
    trace.candidate(3600, kController, "delete", 4, 0, 300);
    CHECK(trace.held());
  }
  SECTION("collected 5 min after its renewal") {
    trace.candidate(600, kController, "delete", 3, 0, 300);
    CHECK_THAT(trace.detail(), Contains("(f) live LeaseCandidate deleted"));
  }
}

TEST_CASE("lease-protocol (g): the election controller pings only candidates not fresh",
          "[lease-protocol]") {
  Trace trace;
  trace.controller(kController);
  trace.candidate(0, kB, "create", 1, 0, 0);
  trace.read(10, kController, 1, "LeaseCandidate kube-system/" + kB);
  SECTION("renewed 10s before the ping: it needs one") {
    trace.candidate(10, kController, "update", 2, 1, 0, wall(10));
    CHECK(trace.held());
  }
  SECTION("renewed 3s before the ping: acked already") {
    trace.candidate(10, kB, "update", 2, 1, 7);
    trace.read(10, kController, 2, "LeaseCandidate kube-system/" + kB);
    trace.candidate(10, kController, "update", 3, 2, 7, wall(10));
    CHECK_THAT(trace.detail(), Contains("(g) needless ping") && Contains("3s after"));
  }
}

TEST_CASE("lease-protocol across a snapshot restore: the store is the snapshot's again",
          "[lease-protocol]") {
  Trace trace;
  trace.held_by_a();      // rv 1, 2
  trace.snapshot(3, 2);   // saved at revision 2: A's renewal at t=2
  trace.write(4, kA, "update", 3, 2, {kA, 15, wall(0), wall(4), 0});  // lost by the restore
  trace.read(5, kB, 3);   // B observes the renewal at t=4 from t=5
  trace.restore(30, 2);   // back to revision 2
  SECTION("a takeover judged against the restored record, observed for leaseDuration") {
    trace.read(31, kB, 2);  // new bytes for B: its clock restarts at 31
    trace.read(46, kB, 2);
    trace.write(46, kB, "update", 3, 2, {kB, 15, wall(46), wall(46), 1});
    CHECK(trace.held());
  }
  SECTION("a takeover of the restored record observed too briefly") {
    trace.read(31, kB, 2);
    trace.write(40, kB, "update", 3, 2, {kB, 15, wall(40), wall(40), 1});
    CHECK_THAT(trace.detail(), Contains("(c) early takeover"));
    CHECK_THAT(trace.detail(), Contains("9s on its own clock"));
  }
  SECTION("the holder renews the restored record, conditional on its revision") {
    trace.write(31, kA, "update", 3, 2, {kA, 15, wall(0), wall(31), 0});
    CHECK(trace.held());
  }
  SECTION("an update conditional on a version the restore took back") {
    trace.write(31, kA, "update", 3, 3, {kA, 15, wall(0), wall(31), 0});
    CHECK_THAT(trace.detail(), Contains("which it was never served"));
  }
}

TEST_CASE("lease-protocol across a restore: writes committed below the snapshot's revision "
          "after the save belong in it",
          "[lease-protocol]") {
  Trace trace;
  trace.write(0, kA, "create", 1, 0, {kA, 15, wall(0), wall(0), 0});
  trace.snapshot(1, 2);  // the member had applied revision 2 before A heard back
  trace.write(2, kA, "update", 2, 1, {kA, 15, wall(0), wall(2), 0});
  trace.write(4, kA, "update", 3, 2, {kA, 15, wall(0), wall(4), 0});
  trace.restore(30, 2);
  trace.read(31, kB, 2);
  SECTION("the restored record is revision 2's: B's clock started at 31") {
    trace.write(40, kB, "update", 3, 2, {kB, 15, wall(40), wall(40), 1});
    CHECK_THAT(trace.detail(), Contains("(c) early takeover"));
  }
  SECTION("and 15s later B may take it") {
    trace.read(46, kB, 2);
    trace.write(46, kB, "update", 3, 2, {kB, 15, wall(46), wall(46), 1});
    CHECK(trace.held());
  }
}
