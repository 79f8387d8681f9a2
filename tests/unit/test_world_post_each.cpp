// World::post_each: one queue entry for a batch of posts, delivering exactly what the posts one
// by one would (same trace lines in the same order, same event count), also when a receiver
// reacts at the same instant, when a receiver is stopped, and when an event bound stops the
// run inside a batch.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace post_each_test {

// Traces the pings it gets; a receiver other than the peer answers a ping 1 at once (zero
// latency), so the answers land at the batch's instant, behind everything queued before them.
class Reactor final : public Process {
 public:
  explicit Reactor(ProcessId peer) : peer_(peer) {}
  void on_start(Env&) override {}
  void on_message(Env& env, ProcessId from, const Message& message) override {
    // A crashed peer closes its connections; only pings count here.
    const auto* ping = dynamic_cast<const Ping*>(message.get());
    if (ping == nullptr) return;
    env.trace("got", {{"n", ping->n}, {"from", static_cast<std::int64_t>(from)}});
    if (ping->n == 1 && env.self() != peer_) env.send(peer_, std::make_shared<Ping>(100));
  }
  void on_timer(Env&, TimerId, std::uint64_t) override {}

 private:
  ProcessId peer_;
};

struct Outcome {
  std::vector<std::string> lines;
  RunStats stats;
};

// Three reactors on three nodes; at 1 s one action posts to all three (batched or not) between
// two single posts, and at 2 s to all three again with the second one crashed.
Outcome run(bool batched, std::uint64_t max_events) {
  World world(plain_nodes(3), constant_latency(Duration{}));
  world.trace().capture_all(1000);
  world.limit_events(max_events);
  std::vector<ProcessId> all;
  for (NodeId node = 0; node < 3; ++node) {
    all.push_back(world.add_process(node, "r", [] { return std::make_unique<Reactor>(2); }));
  }
  const auto post_all = [&world, &all, batched](std::int64_t n) {
    const auto message = std::make_shared<Ping>(n);
    if (batched) return world.post_each(all, message);
    for (const ProcessId to : all) world.post(to, message);
  };
  world.at(TrueTime{1'000'000'000}, [&] {
    world.post(all[2], std::make_shared<Ping>(7));
    post_all(1);
    world.post(all[0], std::make_shared<Ping>(8));
  });
  world.at(TrueTime{1'000'000'000}, [&] { world.post(all[1], std::make_shared<Ping>(9)); });
  world.at(TrueTime{2'000'000'000}, [&] {
    world.crash(all[1]);
    post_all(2);
  });
  Outcome outcome;
  outcome.stats = world.run_until(TrueTime{3'000'000'000});
  outcome.lines = world.trace().captured();
  return outcome;
}

}  // namespace post_each_test

TEST_CASE("post_each delivers what separate posts deliver, in the same order", "[world]") {
  using post_each_test::run;
  const auto separate = run(false, 1'000'000);
  const auto batched = run(true, 1'000'000);
  CHECK(batched.lines == separate.lines);
  CHECK(batched.stats.events == separate.stats.events);
  CHECK(batched.stats.status == RunStatus::completed);
  // The batch's three deliveries, the answer behind them, then the later post and action.
  std::size_t got = 0;
  for (const std::string& line : batched.lines) got += line.find("\"got\"") != std::string::npos;
  // 1 s: pings 7, 1 x3, 8, 9, then the two answers (100) behind them; 2 s: 2 x2 (one crashed).
  CHECK(got == 8 + 2);
}

TEST_CASE("post_each: an event bound inside a batch stops where separate posts stop", "[world]") {
  using post_each_test::run;
  const auto full = run(false, 1'000'000);
  // Every bound up to the whole run, so some stop inside each batch.
  for (std::uint64_t bound = 1; bound <= full.stats.events; ++bound) {
    INFO("max_events " << bound);
    const auto separate = run(false, bound);
    const auto batched = run(true, bound);
    CHECK(batched.lines == separate.lines);
    CHECK(batched.stats.events == separate.stats.events);
    CHECK(batched.stats.status == separate.stats.status);
  }
}
