// properties/linearizability: the online checker against the offline reference on random
// histories of a real sequential store (history_gen.hpp): every unmutated history is
// accepted by both, and on mutated ones (stale read, lost write, duplicated write, phantom
// read) the two agree key by key. The fixed-seed sweep makes sure the mutations are caught
// often enough for the agreement to mean something.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "linearizability_rig.hpp"
#include "properties/linearizability/history_gen.hpp"
#include "properties/linearizability/live_feed.hpp"

using namespace hasim::linearizability;

namespace {

HistoryShape draw_shape(Mutation mutation) {
  HistoryShape shape;
  shape.clients = *rc::gen::inRange<std::uint32_t>(1, 6);
  shape.keys = *rc::gen::inRange<std::uint32_t>(1, 4);
  shape.operations = *rc::gen::inRange<std::uint32_t>(0, 40);
  shape.duration_max_ns = *rc::gen::inRange<std::int64_t>(1, 200);
  shape.gap_max_ns = *rc::gen::inRange<std::int64_t>(0, 100);
  shape.fail_permille = *rc::gen::inRange<std::uint32_t>(0, 200);
  shape.unknown_permille = *rc::gen::inRange<std::uint32_t>(0, 200);
  shape.mutation = mutation;
  return shape;
}

// A random history of a real store with `mutation` applied; its shape and seed are drawn.
History draw_history(Mutation mutation) {
  const HistoryShape shape = draw_shape(mutation);
  hasim::Rng rng(*rc::gen::arbitrary<std::uint64_t>());
  return generate_history(shape, rng);
}

}  // namespace

TEST_CASE("random histories of a real store are linearizable to both checkers",
          "[linearizability]") {
  rc::prop("check_offline == check_online == linearizable", [] {
    const History history = draw_history(Mutation::none);
    const Verdict offline = check_offline(history);
    const Verdict online = check_online(history);
    RC_LOG() << describe(offline) << "\n" << describe(online) << "\n";
    RC_ASSERT(offline.kind == VerdictKind::linearizable);
    RC_ASSERT(online.kind == VerdictKind::linearizable);
    RC_ASSERT(offline.keys == online.keys);
  });
}

TEST_CASE("the checkers agree on mutated histories", "[linearizability]") {
  rc::prop("check_offline and check_online give every key one verdict", [] {
    const auto mutation = *rc::gen::element(Mutation::stale_read, Mutation::lost_write,
                                            Mutation::duplicated_write, Mutation::phantom_read);
    const History history = draw_history(mutation);
    const Verdict offline = check_offline(history);
    const Verdict online = check_online(history);
    RC_LOG() << mutation_name(mutation) << ": " << describe(offline) << "\n"
             << describe(online) << "\n";
    RC_ASSERT(offline.kind != VerdictKind::gave_up);
    RC_ASSERT(offline.keys == online.keys);
    RC_TAG(mutation_name(mutation), verdict_kind_name(online.kind));
  });
}

TEST_CASE("mutations are caught: a fixed-seed sweep", "[linearizability]") {
  for (const Mutation mutation : {Mutation::stale_read, Mutation::lost_write,
                                  Mutation::duplicated_write, Mutation::phantom_read}) {
    std::uint32_t illegal = 0;
    constexpr std::uint32_t kRuns = 100;
    for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
      HistoryShape shape;
      shape.clients = 3;
      shape.keys = 2;
      shape.operations = 40;
      shape.mutation = mutation;
      hasim::Rng rng(seed);
      const History history = generate_history(shape, rng);
      const auto both = hasim::linearizability::rig::check_both(history);
      illegal += both.online.kind == VerdictKind::illegal ? 1 : 0;
    }
    INFO(mutation_name(mutation) << ": " << illegal << " of " << kRuns << " illegal");
    CHECK(illegal >= kRuns / 4);
  }
}

TEST_CASE("a generated history is the same for the same seed", "[linearizability]") {
  HistoryShape shape;
  shape.operations = 100;
  hasim::Rng a(42);
  hasim::Rng b(42);
  CHECK(generate_history(shape, a) == generate_history(shape, b));
}

namespace {

// A history replayed as a simulation would report it: begin at invocation, end at return
// (an unknown outcome is learned `timeout_ns` after invocation), calls in time order.
Verdict replay_live(const History& history, std::int64_t timeout_ns) {
  struct Call {
    std::int64_t time_ns;
    bool is_end;  // at one instant, begins first (an unknown outcome may end at once)
    OperationId id;
    auto operator<=>(const Call&) const = default;
  };
  std::vector<Call> calls;
  for (const Operation& op : history.operations) {
    calls.push_back({op.invoke_ns, false, op.id});
    const bool unknown = op.outcome == Outcome::unknown;
    calls.push_back({unknown ? op.invoke_ns + timeout_ns : op.return_ns, true, op.id});
  }
  std::sort(calls.begin(), calls.end());
  LiveFeed feed;
  for (const Call& call : calls) {
    const Operation& op = history.operations[call.id];
    feed.advance(call.time_ns);
    if (call.is_end) {
      feed.end(op.id, op.outcome, op.output, op.return_ns);
    } else {
      feed.begin(op);
    }
  }
  feed.finish();
  RC_ASSERT(feed.held() == 0u);
  return feed.verdict();
}

}  // namespace

TEST_CASE("fed live, the online checker gives the same verdict at the same time",
          "[linearizability]") {
  rc::prop("replay_live == check_online", [] {
    const auto mutation = *rc::gen::element(Mutation::none, Mutation::stale_read,
                                            Mutation::lost_write, Mutation::phantom_read);
    const History history = draw_history(mutation);
    const Verdict online = check_online(history);
    const Verdict live = replay_live(history, *rc::gen::inRange<std::int64_t>(0, 500));
    RC_LOG() << describe(online) << "\n" << describe(live) << "\n";
    RC_ASSERT(live.kind == online.kind);
    RC_ASSERT(live.keys == online.keys);
    RC_ASSERT(live.time_ns == online.time_ns);
    RC_ASSERT(live.unplaceable == online.unplaceable);
  });
}

TEST_CASE("fed live, only the operations not yet fed are held", "[linearizability]") {
  LiveFeed feed;
  std::size_t held_max = 0;
  for (std::int64_t i = 0; i < 300; ++i) {
    Operation put;
    put.id = static_cast<OperationId>(2 * i);
    put.key = "x";
    put.kind = OpKind::put;
    put.value = std::to_string(i);
    put.invoke_ns = 100 * i;
    feed.begin(put);
    Output written;
    written.revision = i + 2;
    feed.end(put.id, Outcome::ok, written, 100 * i + 10);
    Operation get = put;
    get.id = put.id + 1;
    get.kind = OpKind::get;
    get.invoke_ns = 100 * i + 20;
    feed.begin(get);
    Output read{false, true, std::to_string(i), i + 2, i + 2};
    if (i == 299) read.value = "0";  // a stale read at the very end
    feed.end(get.id, Outcome::ok, read, 100 * i + 30);
    held_max = std::max(held_max, feed.held());
  }
  CHECK(held_max <= 2);
  CHECK(feed.verdict().kind == VerdictKind::linearizable);  // the last return is not fed yet
  feed.finish();
  CHECK(feed.held() == 0);
  CHECK(feed.verdict().kind == VerdictKind::illegal);
  CHECK(feed.verdict().time_ns == 29930);
}
