// Network: stream FIFO vs datagram reordering, connection drops, loss and duplication,
// independent per-link random streams, and partitions as a reachability graph.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <set>

#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace {

WorldOptions jittery(double loss = 0.0, double duplicate = 0.0) {
  WorldOptions options;
  options.seed = 7;
  options.remote = LinkParams{DurationDistribution::uniform(1_ms, 50_ms), loss, duplicate};
  return options;
}

// n2 sends `count` pings to n1 every 1 ms starting at 1 s; returns the order n1 got them in.
std::vector<std::int64_t> received_order(Transport transport, WorldOptions options, int count,
                                         std::function<void(World&)> faults = {}) {
  World world(plain_nodes(3), options);
  Collector trace;
  world.trace().add_observer(&trace);
  const ProcessId receiver = world.add_process(0, "receiver", scripted({}));
  std::vector<Step> steps;
  for (int i = 0; i < count; ++i) {
    steps.push_back({1_s + milliseconds(i), [receiver, i, transport](Env& env) {
                       env.send(receiver, std::make_shared<Ping>(i), transport);
                     }});
  }
  world.add_process(1, "sender", scripted(steps));
  if (faults) faults(world);
  world.run_until(TrueTime{5'000'000'000});
  std::vector<std::int64_t> order;
  for (const TraceEvent& e : trace.of_kind("got")) order.push_back(e.int_field("n"));
  return order;
}

}  // namespace

TEST_CASE("stream messages arrive in send order despite random latency", "[network]") {
  const auto order = received_order(Transport::stream, jittery(), 200);
  REQUIRE(order.size() == 200);
  CHECK(std::is_sorted(order.begin(), order.end()));
}

TEST_CASE("datagrams with random latency can overtake each other", "[network]") {
  const auto order = received_order(Transport::datagram, jittery(), 200);
  REQUIRE(order.size() == 200);
  CHECK_FALSE(std::is_sorted(order.begin(), order.end()));
}

TEST_CASE("datagram loss and duplication follow the link's probabilities", "[network]") {
  CHECK(received_order(Transport::datagram, jittery(1.0), 50).empty());
  CHECK(received_order(Transport::datagram, jittery(0.0, 1.0), 50).size() == 100);
  const auto some = received_order(Transport::datagram, jittery(0.3), 2000).size();
  CHECK(some > 1250);  // expected 1400; 6 standard deviations is about 123
  CHECK(some < 1550);
  // Streams are TCP: link loss does not apply to them.
  CHECK(received_order(Transport::stream, jittery(1.0), 50).size() == 50);
}

TEST_CASE("a partition drops the connection: stream messages in flight are lost", "[network]") {
  // Pings 0..199 are sent between 1.000 s and 1.199 s with 1-50 ms latency; the partition at
  // 1.100 s loses those in flight and those sent before the heal at 1.150 s.
  const auto order = received_order(Transport::stream, jittery(), 200, [](World& world) {
    auto cut = std::make_shared<std::uint64_t>();
    world.at(TrueTime{1'100'000'000},
             [&world, cut] { *cut = world.partition(Reachability::isolate({0}, 3)); });
    world.at(TrueTime{1'150'000'000}, [&world, cut] { world.heal(*cut); });
  });
  REQUIRE(!order.empty());
  CHECK(std::is_sorted(order.begin(), order.end()));
  std::set<std::int64_t> got(order.begin(), order.end());
  for (int n = 100; n < 150; ++n) CHECK(got.count(n) == 0);  // sent while cut
  CHECK(got.count(199) == 1);                                // after the heal, a new connection
  CHECK(got.size() < 150);                                   // some in flight at 1.1 s were lost
}

TEST_CASE("traffic on one link does not shift the random draws of another", "[network]") {
  auto arrival_times = [](bool extra_traffic) {
    World world(plain_nodes(3), jittery());
    Collector trace;
    world.trace().add_observer(&trace);
    const ProcessId a = world.add_process(0, "a", scripted({}));
    std::vector<Step> steps;
    for (int i = 0; i < 20; ++i) {
      steps.push_back({seconds(1 + i), [a, i](Env& env) {
                         env.send(a, std::make_shared<Ping>(i), Transport::datagram);
                       }});
    }
    world.add_process(1, "b", scripted(steps));
    std::vector<Step> noise;
    for (int i = 0; i < 50 && extra_traffic; ++i) {
      noise.push_back({milliseconds(1100 + 7 * i), [a, i](Env& env) {
                         env.send(a, std::make_shared<Ping>(1000 + i), Transport::datagram);
                       }});
    }
    world.add_process(2, "c", scripted(noise));
    world.run_until(TrueTime{30'000'000'000});
    std::vector<std::int64_t> times;
    for (const TraceEvent& e : trace.of_kind("got")) {
      if (e.int_field("n") < 1000) times.push_back(e.t.ns);
    }
    return times;
  };
  const auto quiet = arrival_times(false);
  CHECK(quiet.size() == 20);
  CHECK(quiet == arrival_times(true));
}

TEST_CASE("partition reachability equals the graph built from the active cuts", "[network][rc]") {
  rc::prop("reachable(a, b) iff no active cut removes a->b", [] {
    const auto n = *rc::gen::inRange<std::size_t>(1, 8);
    Reachability reachability(n);
    std::map<std::uint64_t, std::set<DirectedEdge>> model;
    const auto operations = *rc::gen::inRange(0, 30);
    for (int op = 0; op < operations; ++op) {
      const int choice = *rc::gen::inRange(0, 5);
      auto some_nodes = [n] {
        return *rc::gen::container<std::vector<NodeId>>(
            rc::gen::inRange<NodeId>(0, static_cast<NodeId>(n)));
      };
      std::vector<DirectedEdge> cut;
      if (choice == 0) cut = Reachability::isolate(some_nodes(), n);
      if (choice == 1) cut = Reachability::between_groups({some_nodes(), some_nodes()});
      if (choice == 2) cut = Reachability::one_way(some_nodes(), some_nodes());
      if (choice <= 2) {
        const auto id = reachability.add_cut(cut);
        model[id] = std::set<DirectedEdge>(cut.begin(), cut.end());
      } else if (choice == 3 && !model.empty()) {
        const auto it =
            std::next(model.begin(), *rc::gen::inRange<long>(0, static_cast<long>(model.size())));
        RC_ASSERT(reachability.remove_cut(it->first));
        model.erase(it);
      } else if (choice == 4) {
        reachability.remove_all_cuts();
        model.clear();
      }
      for (NodeId a = 0; a < n; ++a) {
        for (NodeId b = 0; b < n; ++b) {
          bool cut_now = false;
          for (const auto& [id, edges] : model) cut_now = cut_now || edges.count({a, b}) > 0;
          RC_ASSERT(reachability.reachable(a, b) == !cut_now);
        }
      }
    }
  });
}

TEST_CASE("isolate, groups and one-way cuts remove the expected directions", "[network]") {
  Reachability r(4);
  const auto zone = r.add_cut(Reachability::isolate({0, 1}, 4));
  CHECK(r.reachable(0, 1));
  CHECK(r.reachable(2, 3));
  CHECK_FALSE(r.reachable(0, 2));
  CHECK_FALSE(r.reachable(3, 1));
  r.remove_cut(zone);
  r.add_cut(Reachability::one_way({0}, {1}));
  CHECK_FALSE(r.reachable(0, 1));
  CHECK(r.reachable(1, 0));
  CHECK(r.missing_edges() == std::vector<DirectedEdge>{{0, 1}});
}
