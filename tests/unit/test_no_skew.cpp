// no-skew over synthetic traces: each test writes the events a control plane would trace
// (component-start, acting-start/-end, crash, exit, cle-elect) and checks which intervals
// the property finds, how long they last, and the sentence it reports.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/no_skew.hpp"

using Catch::Matchers::Contains;
using hasim::NoSkew;
using hasim::StoredTraceEvent;
using hasim::TraceEvent;
using hasim::TraceField;
using hasim::TrueTime;

namespace {

constexpr std::string_view kKcmLease = "kube-system/kube-controller-manager";
constexpr std::string_view kSchedulerLease = "kube-system/kube-scheduler";

TrueTime at(std::int64_t seconds) { return TrueTime{hasim::seconds(seconds).ns}; }

// Feeds events to one NoSkew monitor. Node, process and kind names are string literals, as
// the trace requires (TraceEvent holds views).
class Trace {
 public:
  void apiserver_start(std::int64_t t, std::string_view node, std::string version,
                       std::string emulation = "") {
    std::vector<TraceField> fields{{"component", std::string("kube-apiserver")},
                                   {"version", version},
                                   {"emulation", emulation.empty() ? version : emulation},
                                   {"identity", std::string(node) + "_apiserver"}};
    feed(t, node, "kube-apiserver", "component-start", std::move(fields));
  }
  // A KCM (or scheduler) on `node` starts leading; `emulation` "" leaves the field out.
  void leads(std::int64_t t, std::string_view node, std::string_view proc, std::string version,
             std::string emulation = "") {
    std::vector<TraceField> fields{{"lease", lease_of(proc)},
                                   {"identity", identity(node, proc)},
                                   {"component", std::string(proc)},
                                   {"version", version}};
    if (!emulation.empty()) fields.push_back({"emulation", emulation});
    feed(t, node, proc, "acting-start", std::move(fields));
  }
  void stops_leading(std::int64_t t, std::string_view node, std::string_view proc) {
    feed(t, node, proc, "acting-end",
         {{"lease", lease_of(proc)}, {"identity", identity(node, proc)}});
  }
  void crash(std::int64_t t, std::string_view node, std::string_view proc) {
    feed(t, node, proc, "crash", {{"reason", std::string("fault")}});
  }
  void exit(std::int64_t t, std::string_view node, std::string_view proc) {
    feed(t, node, proc, "exit", {{"code", std::int64_t{0}}});
  }
  // The election controller in `node`'s kube-apiserver names `holder_node`'s `proc`.
  void cle_elect(std::int64_t t, std::string_view node, std::string_view holder_node,
                 std::string_view proc, std::string reason) {
    feed(t, node, "kube-apiserver", "cle-elect",
         {{"lease", lease_of(proc)}, {"holder", identity(holder_node, proc)}, {"reason", reason}});
  }
  void finish(std::int64_t t) { skew.finish(at(t)); }

  static std::string identity(std::string_view node, std::string_view proc) {
    return std::string(node) + "_" + std::string(proc == "kube-scheduler" ? "s" : "k") + "-uuid";
  }

  NoSkew skew{"no-skew", std::nullopt};

 private:
  static std::string lease_of(std::string_view proc) {
    return std::string(proc == "kube-scheduler" ? kSchedulerLease : kKcmLease);
  }
  void feed(std::int64_t t, std::string_view node, std::string_view proc, std::string_view kind,
            std::vector<TraceField> fields) {
    skew.on_event(StoredTraceEvent{at(t), node, proc, kind, std::move(fields)});
  }
};

constexpr std::string_view kKcm = "kube-controller-manager";
constexpr std::string_view kScheduler = "kube-scheduler";

// Three apiservers at `version`, started at t=0.
void three_apiservers(Trace& trace, const std::string& version) {
  for (std::string_view node : {"cp-1", "cp-2", "cp-3"}) trace.apiserver_start(0, node, version);
}

}  // namespace

TEST_CASE("no-skew is a known property with an optional bound", "[no-skew]") {
  CHECK_FALSE(hasim::validate_property_spec("no-skew").has_value());
  CHECK_FALSE(hasim::validate_property_spec("no-skew:17s").has_value());
  CHECK_THAT(*hasim::validate_property_spec("no-skew:soon"), Contains("bound of \"no-skew:soon\""));
  CHECK_THAT(*hasim::validate_property_spec("no-skw"), Contains("did you mean \"no-skew\""));
  const auto property = hasim::make_property("no-skew");
  REQUIRE(property != nullptr);
  CHECK(dynamic_cast<NoSkew*>(property.get()) != nullptr);
}

TEST_CASE("a new leader while old apiservers serve violates until the last one stops",
          "[no-skew]") {
  Trace trace;
  three_apiservers(trace, "1.31.0");
  trace.leads(1, "cp-2", kKcm, "1.31.0");
  // Upgrade cp-1: its apiserver and KCM stop, come back at 1.32.0, and the KCM takes over.
  trace.exit(10, "cp-1", "kube-apiserver");
  trace.apiserver_start(20, "cp-1", "1.32.0");
  trace.stops_leading(25, "cp-2", kKcm);
  trace.leads(30, "cp-1", kKcm, "1.32.0");
  trace.crash(40, "cp-2", "kube-apiserver");  // cp-3 still serves 1.31.0: still a violation
  trace.apiserver_start(45, "cp-2", "1.32.0");
  trace.exit(50, "cp-3", "kube-apiserver");  // the last old apiserver stops
  trace.finish(100);

  REQUIRE(trace.skew.intervals().size() == 1);
  const NoSkew::SkewInterval& v = trace.skew.intervals()[0];
  CHECK(v.component == "kube-controller-manager");
  CHECK(v.lease == kKcmLease);
  CHECK(v.leader.process == "cp-1/kube-controller-manager");
  CHECK(v.leader.identity == Trace::identity("cp-1", kKcm));
  CHECK(v.leader.emulation == "1.32.0");
  CHECK(v.start == at(30));
  CHECK(v.end == at(50));
  CHECK_FALSE(v.open);
  CHECK_FALSE(v.until_end);
  REQUIRE(v.apiservers.size() == 2);  // both old apiservers it was newer than
  CHECK(v.apiservers[0] == NoSkew::OlderApiserver{"cp-2/kube-apiserver", "1.31.0"});
  CHECK(v.apiservers[1] == NoSkew::OlderApiserver{"cp-3/kube-apiserver", "1.31.0"});
  CHECK(trace.skew.violation_count() == 1);
  CHECK(trace.skew.total_violation_time() == hasim::seconds(20));
  CHECK(trace.skew.first_violation() == at(30));

  REQUIRE(trace.skew.violation().has_value());
  const hasim::Violation& violation = *trace.skew.violation();
  CHECK(violation.property == "no-skew");
  CHECK(violation.at == at(30));
  CHECK_THAT(violation.detail,
             Contains("The kube-controller-manager leader cp-1/kube-controller-manager") &&
                 Contains("version 1.32.0") &&
                 Contains("the older kube-apiservers cp-2/kube-apiserver at 1.31.0 and "
                          "cp-3/kube-apiserver at 1.31.0 were still serving") &&
                 Contains("from t=30.000000000s to t=50.000000000s (20s)") &&
                 Contains("how it became leader: acquired the Lease itself (lease-based "
                          "election)."));
  // The causes: the old apiservers' starts, the leader's acting-start, and what ended it.
  REQUIRE(violation.causes.size() == 4);
  CHECK_THAT(violation.causes[0], Contains("cp-2/kube-apiserver component-start"));
  CHECK_THAT(violation.causes[2], Contains("cp-1/kube-controller-manager acting-start"));
  CHECK_THAT(violation.causes[3], Contains("t=50.000000000s cp-3/kube-apiserver exit"));
}

TEST_CASE("an old apiserver coming back under a new leader violates (rollback)", "[no-skew]") {
  Trace trace;
  three_apiservers(trace, "1.32.0");
  trace.leads(5, "cp-3", kScheduler, "1.32.0");
  trace.exit(10, "cp-1", "kube-apiserver");
  trace.apiserver_start(20, "cp-1", "1.31.0");  // rolled back
  trace.stops_leading(35, "cp-3", kScheduler);  // the new leader stops: the interval ends
  trace.finish(60);

  REQUIRE(trace.skew.violation_count() == 1);
  const NoSkew::SkewInterval& v = trace.skew.intervals()[0];
  CHECK(v.component == "kube-scheduler");
  CHECK(v.lease == kSchedulerLease);
  CHECK(v.start == at(20));
  CHECK(v.end == at(35));
  REQUIRE(v.apiservers.size() == 1);
  CHECK(v.apiservers[0].process == "cp-1/kube-apiserver");
  CHECK(v.apiservers[0].version == "1.31.0");
  // The leader came first; the apiserver's start opened the interval.
  REQUIRE(v.causes.size() == 3);
  CHECK_THAT(v.causes[0], Contains("cp-3/kube-scheduler acting-start"));
  CHECK_THAT(v.causes[1], Contains("t=20.000000000s cp-1/kube-apiserver component-start"));
  CHECK_THAT(v.causes[2], Contains("cp-3/kube-scheduler acting-end"));
  CHECK_THAT(trace.skew.violation()->detail,
             Contains("the older kube-apiserver cp-1/kube-apiserver at 1.31.0 was still serving"));
}

TEST_CASE("equal or older leaders are fine", "[no-skew]") {
  Trace trace;
  three_apiservers(trace, "1.31.0");
  trace.leads(1, "cp-1", kKcm, "1.31.0");
  trace.leads(1, "cp-2", kScheduler, "1.30.4");  // older than every apiserver: allowed
  trace.exit(10, "cp-3", "kube-apiserver");
  trace.apiserver_start(20, "cp-3", "1.32.0");  // a newer apiserver is allowed too
  trace.finish(60);
  CHECK(trace.skew.violation_count() == 0);
  CHECK(trace.skew.total_violation_time() == hasim::Duration{});
  CHECK_FALSE(trace.skew.first_violation().has_value());
  CHECK_FALSE(trace.skew.violation().has_value());
}

TEST_CASE("the emulation version decides, not the binary version", "[no-skew]") {
  SECTION("a new binary emulating the old version may lead") {
    Trace trace;
    three_apiservers(trace, "1.31.0");
    trace.leads(1, "cp-1", kKcm, "1.32.0", "1.31.0");
    trace.finish(60);
    CHECK(trace.skew.violation_count() == 0);
  }
  SECTION("a leader is too new for an apiserver that emulates an older version") {
    Trace trace;
    trace.apiserver_start(0, "cp-1", "1.32.0", "1.31.0");  // binary 1.32.0, emulating 1.31.0
    trace.apiserver_start(0, "cp-2", "1.32.0");
    trace.leads(3, "cp-2", kKcm, "1.32.0");  // no emulation field: emulates its binary
    trace.finish(60);
    REQUIRE(trace.skew.violation_count() == 1);
    CHECK(trace.skew.intervals()[0].apiservers ==
          std::vector<NoSkew::OlderApiserver>{{"cp-1/kube-apiserver", "1.31.0"}});
    CHECK(trace.skew.intervals()[0].leader.emulation == "1.32.0");
  }
  SECTION("a leader emulating a newer version than an apiserver, on the same binary") {
    Trace trace;
    trace.apiserver_start(0, "cp-1", "1.33.0", "1.31.0");
    trace.leads(3, "cp-2", kScheduler, "1.33.0", "1.32.0");
    trace.finish(60);
    REQUIRE(trace.skew.violation_count() == 1);
    CHECK_THAT(trace.skew.violation()->detail,
               Contains("emulation version 1.32.0 on binary 1.33.0") &&
                   Contains("cp-1/kube-apiserver at 1.31.0"));
  }
}

TEST_CASE("pre-releases order below their release", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.32.0-rc.1");
  trace.leads(1, "cp-2", kKcm, "1.32.0");  // 1.32.0 > 1.32.0-rc.1
  trace.finish(10);
  CHECK(trace.skew.violation_count() == 1);

  Trace fine;
  fine.apiserver_start(0, "cp-1", "1.32.0");
  fine.apiserver_start(0, "cp-2", "1.32.0-rc.2");
  fine.leads(1, "cp-2", kKcm, "1.32.0-rc.1");  // rc.1 < rc.2 < 1.32.0
  fine.finish(10);
  CHECK(fine.skew.violation_count() == 0);
}

TEST_CASE("a leader's crash or exit ends its interval", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.31.0");
  trace.leads(10, "cp-2", kKcm, "1.32.0");
  trace.crash(15, "cp-2", kKcm);
  trace.leads(20, "cp-3", kKcm, "1.32.0");
  trace.exit(28, "cp-3", kKcm);
  trace.finish(60);
  REQUIRE(trace.skew.violation_count() == 2);
  CHECK(trace.skew.intervals()[0].end == at(15));
  CHECK(trace.skew.intervals()[1].start == at(20));
  CHECK(trace.skew.intervals()[1].end == at(28));
  CHECK(trace.skew.total_violation_time() == hasim::seconds(13));
  CHECK(trace.skew.first_violation() == at(10));
  CHECK_THAT(trace.skew.violation()->detail,
             Contains("from t=10.000000000s to t=15.000000000s (5s)") &&
                 Contains("This run had 2 skew violations, 13s of true time in all."));
}

TEST_CASE("an interval still open at the end lasts until the end of the run", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.31.0");
  trace.leads(40, "cp-2", kKcm, "1.32.0");
  CHECK(trace.skew.intervals().size() == 1);
  CHECK(trace.skew.intervals()[0].open);
  CHECK(trace.skew.total_violation_time() == hasim::Duration{});  // up to the last event
  trace.finish(100);
  const NoSkew::SkewInterval& v = trace.skew.intervals()[0];
  CHECK_FALSE(v.open);
  CHECK(v.until_end);
  CHECK(v.end == at(100));
  CHECK(trace.skew.total_violation_time() == hasim::minutes(1));
  CHECK_THAT(trace.skew.violation()->detail,
             Contains("from t=40.000000000s until the end of the run (t=100.000000000s, 1m0s)"));
}

TEST_CASE("overlapping violations of two components count once in the total", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.31.0");
  trace.leads(10, "cp-2", kKcm, "1.32.0");
  trace.leads(20, "cp-2", kScheduler, "1.32.0");
  trace.stops_leading(30, "cp-2", kKcm);
  trace.stops_leading(40, "cp-2", kScheduler);
  trace.finish(60);
  REQUIRE(trace.skew.violation_count() == 2);
  CHECK(trace.skew.intervals()[0].component == "kube-controller-manager");
  CHECK(trace.skew.intervals()[1].component == "kube-scheduler");
  CHECK(trace.skew.total_violation_time() == hasim::seconds(30));  // 10..40, not 20 + 20
}

TEST_CASE("only kube-controller-manager and kube-scheduler leaders are judged", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.31.0");
  trace.skew.on_event(StoredTraceEvent{at(5),
                                 "cp-2",
                                 "kube-apiserver",
                                 "acting-start",
                                 {{"lease", std::string("kube-system/leader-election-controller")},
                                  {"identity", std::string("cp-2_x")},
                                  {"component", std::string("kube-apiserver")},
                                  {"version", std::string("1.32.0")}}});
  trace.finish(60);
  CHECK(trace.skew.violation_count() == 0);
}

TEST_CASE("why the leader led: the election controller or its own lease race", "[no-skew]") {
  SECTION("the last cle-elect for the lease named it") {
    Trace trace;
    three_apiservers(trace, "1.31.0");
    trace.cle_elect(8, "cp-3", "cp-2", kKcm, "no holder");
    trace.cle_elect(9, "cp-3", "cp-1", kScheduler, "a different lease");  // not the KCM's
    trace.leads(10, "cp-2", kKcm, "1.32.0");
    trace.finish(20);
    const NoSkew::SkewInterval& v = trace.skew.intervals().at(0);
    CHECK(v.why == "elected by the election controller on cp-3/kube-apiserver: no holder");
    CHECK_THAT(trace.skew.violation()->detail,
               Contains("how it became leader: elected by the election controller on "
                        "cp-3/kube-apiserver: no holder."));
    CHECK_THAT(trace.skew.violation()->causes.at(3), Contains("cle-elect"));
  }
  SECTION("a later cle-elect named someone else") {
    Trace trace;
    three_apiservers(trace, "1.31.0");
    trace.cle_elect(8, "cp-3", "cp-2", kKcm, "no holder");
    trace.cle_elect(9, "cp-3", "cp-1", kKcm, "better candidate");
    trace.leads(10, "cp-2", kKcm, "1.32.0");
    trace.finish(20);
    CHECK(trace.skew.intervals().at(0).why == "acquired the Lease itself (lease-based election)");
  }
  SECTION("no election controller ran") {
    Trace trace;
    three_apiservers(trace, "1.31.0");
    trace.leads(10, "cp-2", kKcm, "1.32.0");
    trace.finish(20);
    CHECK(trace.skew.intervals().at(0).why == "acquired the Lease itself (lease-based election)");
  }
}

TEST_CASE("a violation that ends and starts again is two intervals", "[no-skew]") {
  Trace trace;
  trace.apiserver_start(0, "cp-1", "1.31.0");
  trace.apiserver_start(0, "cp-2", "1.32.0");
  trace.leads(10, "cp-2", kKcm, "1.32.0");
  trace.crash(20, "cp-1", "kube-apiserver");
  trace.apiserver_start(25, "cp-1", "1.31.0");  // the kubelet restarts the old one
  trace.finish(30);
  REQUIRE(trace.skew.violation_count() == 2);
  CHECK(trace.skew.intervals()[0].end == at(20));
  CHECK(trace.skew.intervals()[1].start == at(25));
  CHECK(trace.skew.intervals()[1].until_end);
  CHECK(trace.skew.total_violation_time() == hasim::seconds(15));
}

TEST_CASE("no-skew's windows are its intervals, and a bound forgives the shorter ones",
          "[no-skew]") {
  const auto run = [](std::optional<hasim::Duration> bound) {
    Trace trace;
    trace.skew = NoSkew("no-skew", bound);
    trace.apiserver_start(0, "cp-1", "1.31.0");
    trace.apiserver_start(0, "cp-2", "1.32.0");
    trace.leads(10, "cp-2", kKcm, "1.32.0");
    trace.crash(20, "cp-1", "kube-apiserver");    // a 10 s window
    trace.apiserver_start(25, "cp-1", "1.31.0");  // a 75 s one, to the end
    trace.finish(100);
    return std::move(trace.skew);
  };
  const NoSkew plain = run(std::nullopt);
  const std::vector<hasim::ViolationWindow> windows = plain.windows();
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].start == at(10));
  CHECK(windows[0].end == at(20));
  CHECK(windows[1].start == at(25));
  CHECK(windows[1].end == at(100));
  const hasim::WindowSummary summary = hasim::summarize(windows);
  CHECK(summary.count == 2);
  CHECK(summary.total == hasim::seconds(85));
  CHECK(summary.longest == hasim::seconds(75));
  REQUIRE(plain.violation().has_value());
  CHECK(plain.violation()->at == at(10));
  // Both windows are shorter than 80 s: the bounded form holds, and still keeps them.
  const NoSkew loose = run(hasim::seconds(80));
  CHECK_FALSE(loose.violation().has_value());
  CHECK(loose.windows().size() == 2);
  // With 30 s only the second breaks the bound, when its 30 s run out.
  const NoSkew tight = run(hasim::seconds(30));
  REQUIRE(tight.violation().has_value());
  CHECK(tight.violation()->at == at(55));
  CHECK_THAT(tight.violation()->detail, Contains("longer than the bound 30s"));
}

TEST_CASE("summarize counts overlapping windows once", "[property]") {
  using hasim::ViolationWindow;
  const std::vector<ViolationWindow> windows{
      {at(5), at(15), "a"}, {at(0), at(10), "b"}, {at(20), at(20), "instant"}};
  const hasim::WindowSummary summary = hasim::summarize(windows);
  CHECK(summary.count == 3);
  CHECK(summary.total == hasim::seconds(15));
  CHECK(summary.longest == hasim::seconds(10));
  CHECK(hasim::describe_windows(summary) == "3 windows, 15s in all, longest 10s");
  CHECK(hasim::describe_windows(hasim::summarize({{at(1), at(3), ""}})) == "1 window, 2s");
}
