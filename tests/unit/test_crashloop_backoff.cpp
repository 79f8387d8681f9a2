// crashloop-backoff (properties/control_plane/crashloop_backoff.hpp): the delays the kubelet
// may choose after each exit, and the reset after a long run.
#include <catch2/catch.hpp>

#include "models/cluster/kubelet_backoff.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "properties/control_plane/crashloop_backoff.hpp"

using namespace hasim;

namespace {

TrueTime at_s(std::int64_t s) { return TrueTime{s * 1'000'000'000}; }

void restart(CrashLoopBackoff& property, std::int64_t s, std::int64_t after_s) {
  property.on_event(StoredTraceEvent{at_s(s), "cp-2", "", cluster::trace_kind::kKubeletRestart,
                               {{"process", std::string("cp-2/kube-scheduler")},
                                {"after_ns", after_s * 1'000'000'000},
                                {"backoff_ns", std::int64_t{10'000'000'000}},
                                {"max_ns", std::int64_t{300'000'000'000}},
                                {"reset_ns", std::int64_t{600'000'000'000}}}});
}

}  // namespace

TEST_CASE("crashloop-backoff holds for the kubelet's own back-off", "[kubelet]") {
  CrashLoopBackoff property("crashloop-backoff");
  cluster::KubeletBackoff kubelet(cluster::BackoffPolicy{});
  // Exits 30s apart (the back-off climbs to its 5 min cap), then one after 11 min of running.
  for (const std::int64_t s : {60, 90, 120, 150, 180, 210, 240, 270, 300, 960, 970}) {
    const Duration delay = kubelet.restart_delay(7, at_s(s));
    restart(property, s, delay.ns / 1'000'000'000);
  }
  CHECK_FALSE(property.violation().has_value());
}

TEST_CASE("crashloop-backoff: a back-off that is never reset", "[kubelet]") {
  CrashLoopBackoff property("crashloop-backoff");
  restart(property, 60, 0);
  restart(property, 90, 10);
  restart(property, 120, 20);
  CHECK_FALSE(property.violation().has_value());
  restart(property, 780, 40);  // 11 min after the last restart: at once was due
  REQUIRE(property.violation().has_value());
  CHECK_THAT(property.violation()->detail, Catch::Contains("after 40s"));
  CHECK_THAT(property.violation()->detail, Catch::Contains("more than 10m"));
}

TEST_CASE("crashloop-backoff: a first restart that waits", "[kubelet]") {
  CrashLoopBackoff property("crashloop-backoff");
  restart(property, 60, 10);
  REQUIRE(property.violation().has_value());
}
