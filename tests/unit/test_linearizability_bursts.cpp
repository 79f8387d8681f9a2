// properties/linearizability: histories that used to make the online checker give up, as
// kube-apiservers produce them around a partition (test_stacked_properties.cpp found them):
// bursts of reads that all observe one state, compares that all fail on one new
// mod_revision, and timed-out compares piling up on one key with one expected revision.
// Each must be decided, by both checkers and quickly; and on random histories rich in unknown
// compares the online checker must agree with the offline reference key by key.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <string>

#include "linearizability_rig.hpp"
#include "properties/linearizability/history_gen.hpp"

using namespace hasim::linearizability;
using hasim::linearizability::rig::check_both;
using hasim::linearizability::rig::HistoryBuilder;

namespace {

// A cas-put whose outcome is unknown (the client timed out): never returns.
void cas_put_unknown(HistoryBuilder& h, std::uint32_t p, Revision expected,
                     const std::string& value, std::int64_t t0) {
  Operation& op = h.add(p, "x", OpKind::cas_put, t0, kNeverReturned);
  op.value = value;
  op.expected_mod_revision = expected;
  op.outcome = Outcome::unknown;
}

}  // namespace

TEST_CASE("a burst of reads of one state and of compares failing on one revision is decided",
          "[linearizability]") {
  // After a partition heals: 12 reads all see the leader's write at 21, then one compare
  // wins with 24 while 14 others fail on it, all open together (2^26 orders of the reads).
  HistoryBuilder h;
  h.cas_put(0, "x", 0, "a", 0, 10, 17);
  h.cas_put(1, "x", 17, "b", 20, 40, 21);
  for (std::uint32_t p = 2; p < 14; ++p) h.get(p, "x", 30, 100, "b", 21, 22);
  h.cas_put(14, "x", 21, "c", 50, 120, 24);
  for (std::uint32_t p = 15; p < 29; ++p) h.cas_put_failed(p, "x", 21, "d", 50, 130, "c", 24, 24);
  h.get(29, "x", 140, 150, "c", 24, 24);
  const auto both = check_both(h.history);
  CHECK(both.online.kind == VerdictKind::linearizable);
  HistoryBuilder stale = h;  // one of the failed compares read the older write: still fine
  stale.history.operations[20].output.mod_revision = 21;
  stale.history.operations[20].output.value = "b";
  stale.history.operations[20].output.revision = 22;
  stale.history.operations[20].expected_mod_revision = 17;
  CHECK(check_both(stale.history).online.kind == VerdictKind::linearizable);
  HistoryBuilder late = h;  // but not after a read that returned before it was invoked
  late.get(30, "x", 150, 160, "c", 24, 24).cas_put_failed(31, "x", 17, "e", 170, 180, "b", 21, 22);
  CHECK(check_both(late.history).online.kind == VerdictKind::illegal);
}

TEST_CASE("fifty unknown compares on one expected revision are decided quickly",
          "[linearizability]") {
  // An isolated kube-apiserver renews its lease every second against the mod_revision it
  // last saw; each renewal times out. At most one of them can have taken effect.
  HistoryBuilder h;
  h.cas_put(0, "x", 0, "a", 0, 10, 5);
  for (std::uint32_t i = 0; i < 50; ++i) {
    cas_put_unknown(h, 1, 5, "renew" + std::to_string(i), 20 + 10 * i);
    h.get(2, "x", 25 + 10 * i, 28 + 10 * i, "a", 5, 6 + i);
  }
  h.cas_put(3, "x", 5, "leader", 600, 610, 60);
  h.get(2, "x", 620, 630, "leader", 60, 60);
  CHECK(check_both(h.history).online.kind == VerdictKind::linearizable);
  // The offline reference cannot refute these (it would try every subset of the renewals
  // first): only the online checker's verdict is checked, and it is plain by hand.
  HistoryBuilder seen = h;  // a renewal seen after the leader's write on 5: impossible
  seen.get(4, "x", 640, 650, "renew7", 0, 61);
  CHECK(check_online(seen.history).kind == VerdictKind::illegal);
  HistoryBuilder early = h;  // a renewal seen instead of the leader's write: impossible too
  early.history.operations.back().output.value = "renew7";
  early.history.operations.back().output.mod_revision = 0;
  CHECK(check_online(early.history).kind == VerdictKind::illegal);
}

TEST_CASE("a renewal that took effect explains the next read", "[linearizability]") {
  HistoryBuilder h;
  h.cas_put(0, "x", 0, "a", 0, 10, 5);
  for (std::uint32_t i = 0; i < 50; ++i)
    cas_put_unknown(h, 1, 5, "renew" + std::to_string(i), 20 + i);
  h.get(2, "x", 100, 110, "renew31", 9, 9);
  for (std::uint32_t i = 0; i < 20; ++i)
    cas_put_unknown(h, 1, 9, "again" + std::to_string(i), 120 + i);
  h.get(2, "x", 200, 210, "again3", 12, 12).get(3, "x", 220, 230, "again3", 12, 13);
  CHECK(check_both(h.history).online.kind == VerdictKind::linearizable);
  HistoryBuilder twice = h;  // a second renewal on 5 after the first: impossible
  twice.get(2, "x", 240, 250, "renew32", 0, 14);
  CHECK(check_online(twice.history).kind == VerdictKind::illegal);  // offline: as above
}

TEST_CASE("with many unknown compares the checkers agree", "[linearizability]") {
  rc::prop("check_offline and check_online give every key one verdict", [] {
    HistoryShape shape;
    shape.clients = *rc::gen::inRange<std::uint32_t>(2, 8);
    shape.keys = *rc::gen::inRange<std::uint32_t>(1, 3);
    shape.operations = *rc::gen::inRange<std::uint32_t>(0, 36);
    shape.duration_max_ns = *rc::gen::inRange<std::int64_t>(1, 200);
    shape.gap_max_ns = *rc::gen::inRange<std::int64_t>(0, 60);
    shape.fail_permille = *rc::gen::inRange<std::uint32_t>(0, 100);
    shape.unknown_permille = *rc::gen::inRange<std::uint32_t>(200, 600);
    shape.mutation = *rc::gen::element(Mutation::none, Mutation::stale_read, Mutation::lost_write,
                                       Mutation::duplicated_write, Mutation::phantom_read);
    hasim::Rng rng(*rc::gen::arbitrary<std::uint64_t>());
    const History history = generate_history(shape, rng);
    const Verdict offline = check_offline(history);
    const Verdict online = check_online(history);
    RC_LOG() << mutation_name(shape.mutation) << ": " << describe(offline) << "\n"
             << describe(online) << "\n";
    RC_PRE(offline.kind != VerdictKind::gave_up);
    RC_ASSERT(online.kind != VerdictKind::gave_up);
    RC_ASSERT(offline.keys == online.keys);
    if (shape.mutation == Mutation::none) RC_ASSERT(online.kind == VerdictKind::linearizable);
    RC_TAG(mutation_name(shape.mutation), verdict_kind_name(online.kind));
  });
}
