// Scheduler: events pop in the total order (time, insertion sequence); cancellation by
// EventId is exact, and stale ids (already run or cancelled) are harmless.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "sim/scheduler.hpp"

using namespace hasim;

namespace {

// Pops everything, returning the payloads in pop order.
std::vector<std::uint64_t> drain(Scheduler& scheduler) {
  std::vector<std::uint64_t> order;
  Event event;
  while (scheduler.pop(event)) order.push_back(event.payload);
  return order;
}

// Times with many ties: a few distinct instants, or anything in a wide range.
rc::Gen<std::int64_t> gen_time() {
  return rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 4),
                        rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000));
}

}  // namespace

TEST_CASE("an empty scheduler has nothing to pop", "[scheduler]") {
  Scheduler scheduler;
  Event event;
  CHECK_FALSE(scheduler.pop(event));
  CHECK(scheduler.next_time() == TrueTime::max());
  CHECK(scheduler.pending() == 0);
  CHECK(scheduler.executed() == 0);
  CHECK(scheduler.now() == TrueTime{0});
  CHECK_FALSE(scheduler.cancel(EventId{}));
  CHECK_FALSE(scheduler.is_pending(EventId{}));
  CHECK_FALSE(scheduler.cancel(EventId{7, 0}));  // a slot that never existed
}

TEST_CASE("events at the same instant run in the order they were scheduled", "[scheduler]") {
  Scheduler scheduler;
  scheduler.schedule(TrueTime{20}, 1, 10, 100);
  scheduler.schedule(TrueTime{10}, 2, 20, 200);
  scheduler.schedule(TrueTime{20}, 3, 30, 300);
  scheduler.schedule(TrueTime{10}, 4, 40, 400);
  CHECK(scheduler.pending() == 4);
  CHECK(scheduler.next_time() == TrueTime{10});
  Event e;
  REQUIRE(scheduler.pop(e));
  CHECK((e.at == TrueTime{10} && e.kind == 2 && e.target == 20 && e.payload == 200));
  CHECK(e.sequence == 1);
  CHECK(scheduler.now() == TrueTime{10});
  REQUIRE(scheduler.pop(e));
  CHECK((e.kind == 4 && e.sequence == 3));
  REQUIRE(scheduler.pop(e));
  CHECK((e.at == TrueTime{20} && e.kind == 1 && e.sequence == 0));
  REQUIRE(scheduler.pop(e));
  CHECK((e.kind == 3 && e.sequence == 2));
  CHECK_FALSE(scheduler.pop(e));
  CHECK(scheduler.executed() == 4);
  CHECK(scheduler.now() == TrueTime{20});
}

TEST_CASE("an event may be scheduled at now(), and runs after those already due", "[scheduler]") {
  Scheduler scheduler;
  scheduler.schedule(TrueTime{5}, 0, 0, 1);
  scheduler.schedule(TrueTime{5}, 0, 0, 2);
  Event e;
  REQUIRE(scheduler.pop(e));
  scheduler.schedule(scheduler.now(), 0, 0, 3);
  CHECK(drain(scheduler) == std::vector<std::uint64_t>{2, 3});
}

TEST_CASE("a stale EventId does not cancel the slot's new occupant", "[scheduler]") {
  Scheduler scheduler;
  SECTION("stale because the event already ran") {
    const EventId first = scheduler.schedule(TrueTime{1}, 0, 0, 1);
    Event e;
    REQUIRE(scheduler.pop(e));
    const EventId second = scheduler.schedule(TrueTime{2}, 0, 0, 2);
    CHECK(second.slot == first.slot);  // the slot is reused: only the generation tells them apart
    CHECK_FALSE(scheduler.is_pending(first));
    CHECK_FALSE(scheduler.cancel(first));
    CHECK(scheduler.is_pending(second));
    CHECK(drain(scheduler) == std::vector<std::uint64_t>{2});
  }
  SECTION("stale because the event was cancelled") {
    const EventId first = scheduler.schedule(TrueTime{1}, 0, 0, 1);
    CHECK(scheduler.cancel(first));
    CHECK_FALSE(scheduler.cancel(first));  // cancelling twice is a no-op
    CHECK(scheduler.pending() == 0);
    CHECK(scheduler.next_time() == TrueTime::max());  // discards the cancelled top, freeing it
    const EventId second = scheduler.schedule(TrueTime{2}, 0, 0, 2);
    CHECK(second.slot == first.slot);
    CHECK_FALSE(scheduler.cancel(first));
    CHECK(scheduler.pending() == 1);
    CHECK(drain(scheduler) == std::vector<std::uint64_t>{2});
  }
}

TEST_CASE("cancelled events never run and do not advance now()", "[scheduler]") {
  Scheduler scheduler;
  scheduler.schedule(TrueTime{1}, 0, 0, 1);
  const EventId late = scheduler.schedule(TrueTime{100}, 0, 0, 2);
  CHECK(scheduler.cancel(late));
  CHECK(drain(scheduler) == std::vector<std::uint64_t>{1});
  CHECK(scheduler.now() == TrueTime{1});
  CHECK(scheduler.executed() == 1);
}

TEST_CASE("pop order is the total order by (time, insertion sequence)", "[scheduler]") {
  rc::prop("scheduling all then popping all equals a stable sort by time", [] {
    const auto times = *rc::gen::container<std::vector<std::int64_t>>(gen_time());
    Scheduler scheduler;
    for (std::size_t i = 0; i < times.size(); ++i) {
      scheduler.schedule(TrueTime{times[i]}, 0, 0, i);
    }
    std::vector<std::uint64_t> expected(times.size());
    std::iota(expected.begin(), expected.end(), 0);
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::uint64_t a, std::uint64_t b) { return times[a] < times[b]; });
    RC_ASSERT(drain(scheduler) == expected);
  });
  rc::prop("cancelling a subset removes exactly those events", [] {
    const auto times = *rc::gen::container<std::vector<std::int64_t>>(gen_time());
    const auto cancel =
        *rc::gen::container<std::vector<bool>>(times.size(), rc::gen::arbitrary<bool>());
    Scheduler scheduler;
    std::vector<EventId> ids;
    for (std::size_t i = 0; i < times.size(); ++i) {
      ids.push_back(scheduler.schedule(TrueTime{times[i]}, 0, 0, i));
    }
    std::vector<std::uint64_t> expected;
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (cancel[i]) {
        RC_ASSERT(scheduler.cancel(ids[i]));
      } else {
        expected.push_back(i);
      }
    }
    RC_ASSERT(scheduler.pending() == expected.size());
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::uint64_t a, std::uint64_t b) { return times[a] < times[b]; });
    RC_ASSERT(drain(scheduler) == expected);
    for (const EventId id : ids) RC_ASSERT(!scheduler.cancel(id));
  });
}

TEST_CASE("the scheduler agrees with a sorted-map model under any operation sequence",
          "[scheduler]") {
  // Operations: schedule at now + delay (delay 0 and ties common), pop, cancel any id ever
  // issued (live, already run, or already cancelled), peek next_time.
  rc::prop("pops, cancels, pending(), is_pending(), next_time() and now() match the model", [] {
    const auto ops = *rc::gen::container<std::vector<std::pair<int, std::int64_t>>>(
        rc::gen::pair(rc::gen::inRange(0, 8), gen_time()));
    Scheduler scheduler;
    std::map<std::pair<std::int64_t, std::uint64_t>, std::uint64_t>
        model;                                                 // (time, seq) -> payload
    std::vector<EventId> ids;                                  // by payload
    std::vector<std::pair<std::int64_t, std::uint64_t>> keys;  // by payload
    std::uint64_t sequence = 0;
    for (const auto& [op, value] : ops) {
      const TrueTime before = scheduler.now();
      if (op <= 3) {  // schedule
        const std::uint64_t payload = ids.size();
        const TrueTime at = scheduler.now() + nanoseconds(value);
        ids.push_back(scheduler.schedule(at, static_cast<std::uint32_t>(op), 7, payload));
        keys.emplace_back(at.ns, sequence);
        model.emplace(std::make_pair(at.ns, sequence++), payload);
      } else if (op <= 5) {  // pop
        Event e;
        const bool popped = scheduler.pop(e);
        RC_ASSERT(popped == !model.empty());
        if (popped) {
          const auto first = model.begin();
          RC_ASSERT(e.payload == first->second);
          RC_ASSERT(e.at.ns == first->first.first);
          RC_ASSERT(e.sequence == first->first.second);
          RC_ASSERT(e.target == 7u);
          RC_ASSERT(scheduler.now() == e.at);
          model.erase(first);
        }
      } else if (op == 6) {  // cancel any id ever issued
        if (ids.empty()) continue;
        const std::size_t which = static_cast<std::size_t>(value) % ids.size();
        const bool live = model.count(keys[which]) == 1;
        RC_ASSERT(scheduler.cancel(ids[which]) == live);
        model.erase(keys[which]);
      } else {  // peek
        const TrueTime expected =
            model.empty() ? TrueTime::max() : TrueTime{model.begin()->first.first};
        RC_ASSERT(scheduler.next_time() == expected);
      }
      RC_ASSERT(scheduler.now() >= before);
      RC_ASSERT(scheduler.pending() == model.size());
      for (std::size_t p = 0; p < ids.size(); ++p) {
        RC_ASSERT(scheduler.is_pending(ids[p]) == (model.count(keys[p]) == 1));
      }
    }
    // Draining at the end still follows the model exactly.
    std::vector<std::uint64_t> rest;
    for (const auto& entry : model) rest.push_back(entry.second);
    RC_ASSERT(drain(scheduler) == rest);
  });
}

TEST_CASE("a large interleaved workload keeps the order and counts", "[scheduler]") {
  // Deterministic hold model: 1000 pending events, 100k pop/schedule pairs with ties.
  Scheduler scheduler;
  std::uint64_t x = 12345;
  auto next = [&x] {  // a tiny LCG is enough to vary the delays
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>(x >> 58);  // 0..63, many ties
  };
  for (std::uint64_t i = 0; i < 1000; ++i) scheduler.schedule(TrueTime{next()}, 0, 0, i);
  Event previous{};
  Event e;
  std::uint64_t out_of_order = 0;
  std::uint64_t missing = 0;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    if (!scheduler.pop(e)) ++missing;
    const bool ordered =
        previous.at < e.at || (previous.at == e.at && previous.sequence < e.sequence);
    if (i > 0 && !ordered) ++out_of_order;
    previous = e;
    scheduler.schedule(scheduler.now() + nanoseconds(next()), 0, 0, 1000 + i);
  }
  CHECK(missing == 0);
  CHECK(out_of_order == 0);
  CHECK(scheduler.pending() == 1000);
  CHECK(scheduler.executed() == 100'000);
}
