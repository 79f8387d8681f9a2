// skew-policy over synthetic traces: component-start (with the apiservers a controller may
// talk to), crash and exit, as a control plane traces them; which rule of the version-skew
// policy breaks, and when nothing does.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "properties/skew_policy.hpp"

using Catch::Matchers::Contains;
using hasim::SkewPolicy;
using hasim::StoredTraceEvent;
using hasim::TraceEvent;
using hasim::TraceField;
using hasim::TrueTime;

namespace {

TrueTime at(std::int64_t seconds) { return TrueTime{hasim::seconds(seconds).ns}; }

// Node and process names are string literals, as the trace requires (TraceEvent holds views).
class Trace {
 public:
  void apiserver(std::int64_t t, std::string_view node, std::string version,
                 std::string emulation = "") {
    feed(t, node, "kube-apiserver",
         {{"component", std::string("kube-apiserver")},
          {"version", version},
          {"emulation", emulation.empty() ? version : emulation}});
  }
  // A KCM or scheduler on `node` that may talk to `apiservers` ("cp-1/kube-apiserver,...",
  // traced behind a load balancer), or, with "", to its own node's only (no field traced).
  void client(std::int64_t t, std::string_view node, std::string_view proc, std::string version,
              std::string apiservers, std::string emulation = "") {
    std::vector<TraceField> fields{{"component", std::string(proc)},
                                   {"version", version},
                                   {"emulation", emulation.empty() ? version : emulation}};
    if (!apiservers.empty()) fields.push_back({"apiservers", apiservers});
    feed(t, node, proc, std::move(fields));
  }
  void stop(std::int64_t t, std::string_view node, std::string_view proc, bool crash) {
    policy.on_event(StoredTraceEvent{at(t), node, proc, crash ? "crash" : "exit", {}});
  }
  std::string violation() const {
    return policy.violation() ? policy.violation()->detail : std::string();
  }

  SkewPolicy policy{"skew-policy"};

 private:
  void feed(std::int64_t t, std::string_view node, std::string_view proc,
            std::vector<TraceField> fields) {
    policy.on_event(StoredTraceEvent{at(t), node, proc, "component-start", std::move(fields)});
  }
};

}  // namespace

TEST_CASE("skew-policy holds through a node-by-node upgrade with local endpoints",
          "[property][skew-policy]") {
  Trace trace;
  for (std::string_view node : {"cp-1", "cp-2", "cp-3"}) trace.apiserver(0, node, "1.31.0");
  trace.client(1, "cp-1", "kube-controller-manager", "1.31.0", "cp-1/kube-apiserver");
  trace.client(1, "cp-2", "kube-controller-manager", "1.31.0", "cp-2/kube-apiserver");
  // cp-1 is upgraded: its components stop, its new apiserver and controller come back.
  trace.stop(10, "cp-1", "kube-apiserver", false);
  trace.stop(10, "cp-1", "kube-controller-manager", true);
  trace.client(20, "cp-1", "kube-controller-manager", "1.32.0", "cp-1/kube-apiserver");
  trace.apiserver(21, "cp-1", "1.32.0");
  // A 1.31 controller may talk to a 1.32 apiserver (one minor older is allowed).
  trace.client(22, "cp-3", "kube-scheduler", "1.31.0", "cp-3/kube-apiserver,cp-1/kube-apiserver");
  CHECK(trace.violation().empty());
}

TEST_CASE("skew-policy: without a load balancer a controller talks to its own node's apiserver",
          "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.31.0");
  trace.apiserver(0, "cp-2", "1.32.0");
  trace.client(1, "cp-2", "kube-controller-manager", "1.32.0", "");  // cp-1's is not its
  CHECK(trace.violation().empty());
  trace.client(2, "cp-1", "kube-controller-manager", "1.32.0", "");  // cp-1's is
  CHECK_THAT(trace.violation(), Contains("is newer than cp-1/kube-apiserver (1.31.0)"));
}

TEST_CASE("skew-policy: a controller newer than an apiserver it talks to",
          "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.31.0");
  trace.apiserver(0, "cp-2", "1.32.0");
  // Behind a load balancer the new controller may reach the old cp-1 apiserver.
  trace.client(5, "cp-2", "kube-controller-manager", "1.32.0",
               "cp-2/kube-apiserver,cp-1/kube-apiserver");
  CHECK_THAT(trace.violation(),
             Contains("cp-2/kube-controller-manager (1.32.0) is newer than "
                      "cp-1/kube-apiserver (1.31.0)"));
  REQUIRE(trace.policy.violation()->at == at(5));
}

TEST_CASE("skew-policy: an old apiserver starting under a new controller is caught too",
          "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.32.0");
  trace.client(1, "cp-1", "kube-scheduler", "1.32.0", "cp-1/kube-apiserver");
  trace.stop(2, "cp-1", "kube-apiserver", true);
  CHECK(trace.violation().empty());
  trace.apiserver(3, "cp-1", "1.31.0");  // a rollback of the apiserver alone
  CHECK_THAT(trace.violation(), Contains("kube-scheduler cp-1/kube-scheduler (1.32.0) is newer"));
}

TEST_CASE("skew-policy: two minors apart", "[property][skew-policy]") {
  SECTION("apiservers") {
    Trace trace;
    trace.apiserver(0, "cp-1", "1.30.0");
    trace.apiserver(1, "cp-2", "1.31.0");
    CHECK(trace.violation().empty());
    trace.apiserver(2, "cp-3", "1.32.0");
    CHECK_THAT(trace.violation(), Contains("more than one minor version apart"));
  }
  SECTION("a stopped apiserver no longer counts") {
    Trace trace;
    trace.apiserver(0, "cp-1", "1.30.0");
    trace.stop(1, "cp-1", "kube-apiserver", false);
    trace.apiserver(2, "cp-3", "1.32.0");
    CHECK(trace.violation().empty());
  }
  SECTION("a controller two minors older") {
    Trace trace;
    trace.apiserver(0, "cp-1", "1.32.0");
    trace.client(1, "cp-1", "kube-controller-manager", "1.30.0", "cp-1/kube-apiserver");
    CHECK_THAT(trace.violation(), Contains("more than one minor version older than"));
  }
}

TEST_CASE("skew-policy: emulating above the binary", "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.32.0", "1.31.0");  // emulating an older version is fine
  CHECK(trace.violation().empty());
  trace.client(1, "cp-1", "kube-scheduler", "1.31.0", "cp-1/kube-apiserver", "1.32.0");
  CHECK_THAT(trace.violation(), Contains("emulates 1.32.0, above its binary 1.31.0"));
}

TEST_CASE("skew-policy: a window lasts while some component breaks a rule",
          "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.31.0");
  trace.apiserver(0, "cp-2", "1.32.0");
  trace.client(5, "cp-2", "kube-controller-manager", "1.32.0",
               "cp-2/kube-apiserver,cp-1/kube-apiserver");  // opens the window
  trace.client(6, "cp-2", "kube-scheduler", "1.32.0", "cp-1/kube-apiserver");  // still open
  trace.stop(8, "cp-2", "kube-controller-manager", false);  // the scheduler still breaks it
  trace.stop(9, "cp-1", "kube-apiserver", true);            // nothing breaks it any more
  trace.apiserver(20, "cp-1", "1.31.0");                    // a second window, to the end
  trace.policy.finish(at(30));
  const std::vector<hasim::ViolationWindow> windows = trace.policy.windows();
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].start == at(5));
  CHECK(windows[0].end == at(9));
  CHECK(windows[1].start == at(20));
  CHECK(windows[1].end == at(30));
  CHECK(trace.policy.violation()->at == at(5));  // the first is the violation
}

TEST_CASE("skew-policy: a LeaseCandidate publishes its component's binary and emulation",
          "[property][skew-policy]") {
  Trace trace;
  trace.apiserver(0, "cp-1", "1.32.0", "1.31.0");
  trace.policy.on_event(StoredTraceEvent{at(0), "cp-1", "kube-scheduler", "component-start",
                                   {{"component", std::string("kube-scheduler")},
                                    {"version", std::string("1.32.0")},
                                    {"emulation", std::string("1.31.0")},
                                    {"identity", std::string("cp-1_s")}}});
  const auto candidate = [&](std::int64_t t, std::string user, std::string binary,
                             std::string emulation) {
    trace.policy.on_event(StoredTraceEvent{at(t), "cp-1", "kube-apiserver", "lease-write",
                                     {{"user", std::move(user)},
                                      {"verb", std::string("update")},
                                      {"object", std::string("LeaseCandidate kube-system/cp-1_s")},
                                      {"binary", std::move(binary)},
                                      {"emulation", std::move(emulation)}}});
  };
  candidate(1, "cp-1_s", "1.32.0", "1.31.0");
  candidate(2, "cp-2_controller", "1.31.0", "1.31.0");  // a ping keeps an old spec: not judged
  CHECK(trace.violation().empty());
  candidate(3, "cp-1_s", "1.32.0", "1.32.0");
  CHECK_THAT(trace.violation(), Contains("publishes binary 1.32.0 emulating 1.32.0") &&
                                    Contains("runs 1.32.0 emulating 1.31.0"));
  REQUIRE(trace.policy.windows().size() == 1);
  CHECK(trace.policy.windows()[0].start == trace.policy.windows()[0].end);
}
