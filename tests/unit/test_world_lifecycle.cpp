// Process life cycle in the World: exit from inside a callback, SIGTERM with a grace period,
// the supervisor's stop handler (the kubelet hook), and post().
#include <catch2/catch.hpp>

#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace {

struct Stop {
  ProcessId process;
  StopReason reason;
  int code;
  TrueTime at;
};

struct Fixture {
  Fixture() : world(plain_nodes(2), constant_latency(1_ms)) {
    world.trace().add_observer(&trace);
    world.set_stop_handler([this](ProcessId p, StopReason reason, int code) {
      stops.push_back({p, reason, code, world.now()});
    });
  }
  World world;
  Collector trace;
  std::vector<Stop> stops;
};

// Ignores SIGTERM, as a wedged process would.
class Stubborn final : public Process {
 public:
  void on_start(Env&) override {}
  void on_message(Env&, ProcessId, const Message&) override {}
  void on_timer(Env&, TimerId, std::uint64_t) override {}
  void on_terminate(Env& env) override { env.trace("ignored-sigterm", {}); }
};

}  // namespace

TEST_CASE("exit stops the process after its callback and tells the supervisor", "[world]") {
  Fixture f;
  const ProcessId p = f.world.add_process(0, "p",
                                          scripted({{2_s,
                                                     [](Env& env) {
                                                       env.exit(3);
                                                       env.trace("after-exit", {});
                                                     }},
                                                    {5_s, nothing()}}));
  f.world.run_until(TrueTime{10'000'000'000});
  CHECK(f.world.process_state(p) == ProcessState::stopped);
  // The callback finished (its trace after exit() is kept), then the process stopped, so
  // its 5 s step never ran.
  CHECK(f.trace.of_kind("after-exit").size() == 1);
  CHECK(f.trace.of_kind("step").size() == 1);
  REQUIRE(f.trace.of_kind("exit").size() == 1);
  CHECK(f.trace.of_kind("exit")[0].int_field("code") == 3);
  REQUIRE(f.stops.size() == 1);
  CHECK(f.stops[0].reason == StopReason::exit);
  CHECK(f.stops[0].code == 3);
  CHECK(f.stops[0].at == TrueTime{2'000'000'000});
}

TEST_CASE("terminate runs the handler; a process that ignores it is killed after the grace",
          "[world]") {
  Fixture f;
  const ProcessId polite = f.world.add_process(0, "polite", scripted({{30_s, nothing()}}));
  const ProcessId stubborn =
      f.world.add_process(1, "stubborn", [] { return std::make_unique<Stubborn>(); });
  f.world.at(TrueTime{1'000'000'000}, [&] {
    f.world.terminate(polite, 10_s);
    f.world.terminate(stubborn, 10_s);
  });
  f.world.run_until(TrueTime{20'000'000'000});
  CHECK(f.world.process_state(polite) == ProcessState::stopped);
  CHECK(f.world.process_state(stubborn) == ProcessState::stopped);
  CHECK(f.trace.of_kind("ignored-sigterm").size() == 1);
  REQUIRE(f.stops.size() == 2);
  // The default on_terminate exits 0 at once; the stubborn one dies at the end of the grace.
  CHECK(f.stops[0].process == polite);
  CHECK(f.stops[0].reason == StopReason::terminated);
  CHECK(f.stops[0].code == 0);
  CHECK(f.stops[0].at == TrueTime{1'000'000'000});
  CHECK(f.stops[1].process == stubborn);
  CHECK(f.stops[1].reason == StopReason::terminated);
  CHECK(f.stops[1].at == TrueTime{11'000'000'000});
  const auto crashes = f.trace.of_kind("crash");
  REQUIRE(crashes.size() == 1);
  CHECK(crashes[0].string_field("reason") == "grace-period");
}

TEST_CASE("a crash fault tells the supervisor; node-down does not", "[world]") {
  Fixture f;
  const ProcessId a = f.world.add_process(0, "a", scripted({}));
  f.world.add_process(1, "b", scripted({}));
  f.world.at(TrueTime{1'000'000'000}, [&] { f.world.crash(a); });
  f.world.at(TrueTime{2'000'000'000}, [&] { f.world.node_down(1); });
  f.world.run_until(TrueTime{3'000'000'000});
  REQUIRE(f.stops.size() == 1);
  CHECK(f.stops[0].process == a);
  CHECK(f.stops[0].reason == StopReason::crash);
}

TEST_CASE("post delivers at once to a running process and is lost for a stopped one", "[world]") {
  Fixture f;
  const ProcessId p = f.world.add_process(0, "p", scripted({}));
  f.world.at(TrueTime{1'000'000'000}, [&] { f.world.post(p, std::make_shared<Ping>(7)); });
  f.world.at(TrueTime{2'000'000'000}, [&] {
    f.world.crash(p);
    f.world.post(p, std::make_shared<Ping>(8));
  });
  f.world.run_until(TrueTime{3'000'000'000});
  const auto got = f.trace.of_kind("got");
  REQUIRE(got.size() == 1);
  CHECK(got[0].t == TrueTime{1'000'000'000});
  CHECK(got[0].int_field("n") == 7);
  CHECK(f.trace.of_kind("drop").size() == 1);
}
