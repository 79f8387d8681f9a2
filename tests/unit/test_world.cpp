// The World driver: local-time timers, clock faults, pause, crash, node down, disk loss.
#include <catch2/catch.hpp>

#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace {
struct Fixture {
  explicit Fixture(std::vector<NodeSetup> nodes, WorldOptions options = constant_latency(1_ms))
      : world(std::move(nodes), options) {
    world.trace().add_observer(&trace);
  }
  World world;
  Collector trace;
};
}  // namespace

TEST_CASE("a timer set in local time fires at the true time the node's clock reaches it",
          "[world]") {
  std::vector<NodeSetup> nodes{{"fast", "", LocalClock({}, 2 * kRatePerfect)}};
  Fixture f(nodes);
  f.world.add_process(0, "p", scripted({{10_s, nothing()}}));
  f.world.run_until(TrueTime{20'000'000'000});
  const auto steps = f.trace.of_kind("step");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].t == TrueTime{5'000'000'000});
  CHECK(steps[0].int_field("mono_ns") == 10'000'000'000);
}

TEST_CASE("a clock rate change moves pending timers to their new true time", "[world]") {
  Fixture f(plain_nodes(1));
  f.world.add_process(0, "p", scripted({{10_s, nothing()}}));
  f.world.at(TrueTime{4'000'000'000}, [&] { f.world.clock_rate(0, 2 * kRatePerfect); });
  f.world.run_until(TrueTime{20'000'000'000});
  const auto steps = f.trace.of_kind("step");
  REQUIRE(steps.size() == 1);
  // 4 s at rate 1, then the remaining 6 s of local time at rate 2 take 3 s.
  CHECK(steps[0].t == TrueTime{7'000'000'000});
}

TEST_CASE("a clock step moves the wall clock but not timers or the monotonic clock", "[world]") {
  Fixture f(plain_nodes(1));
  f.world.add_process(0, "p", scripted({{10_s, nothing()}}));
  f.world.at(TrueTime{1'000'000'000}, [&] { f.world.clock_step(0, -5_s); });
  f.world.run_until(TrueTime{20'000'000'000});
  const auto steps = f.trace.of_kind("step");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].t == TrueTime{10'000'000'000});
  CHECK(steps[0].int_field("mono_ns") == 10'000'000'000);
  CHECK(steps[0].int_field("wall_ns") == 5'000'000'000);
}

TEST_CASE("a paused process holds its inputs and handles them in arrival order on resume",
          "[world]") {
  Fixture f(plain_nodes(2));
  const ProcessId receiver = f.world.add_process(0, "receiver", scripted({{2_s, nothing()}}));
  f.world.add_process(
      1, "sender",
      scripted({{1500_ms, [&](Env& env) { env.send(receiver, std::make_shared<Ping>(1)); }},
                {2500_ms, [&](Env& env) { env.send(receiver, std::make_shared<Ping>(2)); }}}));
  f.world.at(TrueTime{1'000'000'000}, [&] { f.world.pause(receiver); });
  f.world.at(TrueTime{5'000'000'000}, [&] { f.world.resume(receiver); });
  f.world.run_until(TrueTime{10'000'000'000});
  std::vector<std::string> order;
  for (const TraceEvent& e : f.trace.events) {
    if (e.proc != "receiver" || (e.kind != "got" && e.kind != "step")) continue;
    CHECK(e.t == TrueTime{5'000'000'000});  // nothing runs while frozen
    order.push_back(std::string(e.kind) +
                    (e.kind == "got" ? std::to_string(e.int_field("n")) : ""));
  }
  // Ping 1 arrived at 1.501 s, the timer fell due at 2 s, ping 2 arrived at 2.501 s.
  CHECK(order == std::vector<std::string>{"got1", "step", "got2"});
}

TEST_CASE("a crash loses volatile state and timers; a restart starts fresh but keeps durable state",
          "[world]") {
  Fixture f(plain_nodes(2));
  const ProcessId p = f.world.add_process(
      0, "p",
      scripted({{1_s, [](Env& env) { env.durable().entries["k"] = "v"; }}, {3_s, nothing()}}));
  f.world.add_process(
      1, "q", scripted({{500_ms, [p](Env& env) { env.send(p, std::make_shared<Ping>(1)); }}}));
  f.world.at(TrueTime{2'000'000'000}, [&] { f.world.crash(p); });
  f.world.at(TrueTime{2'500'000'000}, [&] { f.world.restart(p); });
  f.world.run_until(TrueTime{10'000'000'000});
  std::vector<std::int64_t> step_times;
  std::vector<std::int64_t> received;
  for (const TraceEvent& e : f.trace.of_kind("step")) {
    if (e.proc != "p") continue;
    step_times.push_back(e.t.ns);
    received.push_back(e.int_field("received"));
  }
  // Before the crash: the 1 s step. The 3 s timer of the first incarnation never fires; the
  // second incarnation runs its own 1 s and 3 s steps from its start at 2.5 s.
  CHECK(step_times == std::vector<std::int64_t>{1'000'000'000, 3'500'000'000, 5'500'000'000});
  CHECK(received == std::vector<std::int64_t>{1, 0, 0});
  CHECK(f.world.durable(p).entries.at("k") == "v");
}

TEST_CASE("disk loss wipes durable state; node down crashes and node up restarts every process",
          "[world]") {
  Fixture f(plain_nodes(2));
  const ProcessId p = f.world.add_process(
      0, "p", scripted({{1_s, [](Env& env) { env.durable().entries["k"] = "v"; }}}));
  const ProcessId q = f.world.add_process(
      1, "q",
      scripted({{100_ms, [p](Env& env) { env.send(p, std::make_shared<Ping>(7)); }},
                {2500_ms, [p](Env& env) { env.send(p, std::make_shared<Ping>(8)); }}}));
  (void)q;
  f.world.at(TrueTime{2'000'000'000}, [&] { f.world.node_down(0); });
  f.world.at(TrueTime{2'200'000'000}, [&] { f.world.disk_loss(0); });
  f.world.at(TrueTime{3'000'000'000}, [&] { f.world.node_up(0); });
  f.world.run_until(TrueTime{3'500'000'000});  // before the new incarnation writes again
  CHECK(f.world.durable(p).entries.empty());
  CHECK(f.world.durable(p).wipes == 1);
  CHECK(f.world.process_state(p) == ProcessState::running);
  const auto drops = f.trace.of_kind("drop");
  REQUIRE(drops.size() == 1);  // ping 8, sent while n1 was down
  CHECK(drops[0].string_field("reason") == "unreachable");
  CHECK(f.trace.of_kind("start").size() == 3);  // p, q, and p again
}
