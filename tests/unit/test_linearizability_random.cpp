// properties/linearizability: the online checker against the offline reference on random
// histories of a real sequential store (history_gen.hpp): every unmutated history is
// accepted by both, and on mutated ones (stale read, lost write, duplicated write, phantom
// read) the two agree key by key. The fixed-seed sweep makes sure the mutations are caught
// often enough for the agreement to mean something.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "linearizability_rig.hpp"
#include "properties/linearizability/history_gen.hpp"

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

}  // namespace

TEST_CASE("random histories of a real store are linearizable to both checkers",
          "[linearizability]") {
  rc::prop("check_offline == check_online == linearizable", [] {
    const HistoryShape shape = draw_shape(Mutation::none);
    hasim::Rng rng(*rc::gen::arbitrary<std::uint64_t>());
    const History history = generate_history(shape, rng);
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
    const HistoryShape shape = draw_shape(mutation);
    hasim::Rng rng(*rc::gen::arbitrary<std::uint64_t>());
    const History history = generate_history(shape, rng);
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
