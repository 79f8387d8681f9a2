// properties/linearizability: the offline reference (Wing & Gong with Lowe's memoization, as
// Porcupine has it) and the online checker on hand-built histories: the published examples,
// stale reads, lost writes, split brain, unknown outcomes; every one checked by both.
#include "linearizability_rig.hpp"

using namespace hasim::linearizability;
using rig::check_both;
using rig::HistoryBuilder;
using rig::verdict_of;

namespace {
constexpr VerdictKind kOk = VerdictKind::linearizable;
constexpr VerdictKind kIllegal = VerdictKind::illegal;
}  // namespace

// Porcupine's README, register initialised to 0 (here: the key absent; a read of 0 is "not
// found"). C0 |--- Write(100) ---|, C1 |- Read: 100 -|, C2 |- Read: 0 -| all overlapping.
TEST_CASE("Porcupine's README example 1 is linearizable", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "100", 0, 100).get(1, "x", 10, 70, "100").get(2, "x", 20, 50, std::nullopt);
  CHECK(verdict_of(h.history) == kOk);
}

// C0 |------ Write(200) ------|; C1 |- Read: 200 -| ends before C2 |- Read: 0 -| begins.
TEST_CASE("Porcupine's README example 2 is not linearizable", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "200", 0, 100).get(1, "x", 5, 30, "200").get(2, "x", 40, 60, std::nullopt);
  const auto both = check_both(h.history);
  CHECK(both.offline.kind == kIllegal);
  CHECK(both.online.time_ns == 60);  // the return of C2's read
  CHECK(both.online.unplaceable == OperationId{2});
  CHECK(both.offline.unplaceable == OperationId{2});
  CHECK(both.offline.longest_prefix == std::vector<OperationId>{0, 1});
}

// Herlihy & Wing 1990, section 2: a history is linearizable when each operation appears to
// take effect at one instant between invocation and response. A read overlapping two
// sequential writes may see either; a read after both must see the second.
TEST_CASE("Herlihy and Wing: overlapping reads see either write, later ones the last",
          "[linearizability]") {
  HistoryBuilder ok;
  ok.put(0, "r", "a", 0, 10).put(0, "r", "b", 20, 30).get(1, "r", 5, 25, "a");
  ok.get(2, "r", 5, 25, "b");
  CHECK(verdict_of(ok.history) == kOk);
  HistoryBuilder bad;
  bad.put(0, "r", "a", 0, 10).put(0, "r", "b", 20, 30).get(1, "r", 35, 40, "a");
  CHECK(verdict_of(bad.history) == kIllegal);
}

// Wing & Gong's observation that a read may only return a value some write wrote.
TEST_CASE("a read of a value nobody wrote is illegal", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "a", 0, 10).get(1, "x", 0, 50, "ghost");
  CHECK(verdict_of(h.history) == kIllegal);
}

TEST_CASE("stale read: an older value after a newer one was acknowledged", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "a", 0, 10, 2).put(0, "x", "b", 20, 30, 3).get(1, "x", 40, 50, "a", 2, 3);
  const auto both = check_both(h.history);
  CHECK(both.online.kind == kIllegal);
  CHECK(both.online.time_ns == 50);
  CHECK(both.online.detail.find("value \"b\" mod_revision 3") != std::string::npos);
  // Concurrent with the second write, the same read is fine.
  HistoryBuilder concurrent;
  concurrent.put(0, "x", "a", 0, 10, 2).put(0, "x", "b", 20, 60, 3).get(1, "x", 40, 50, "a", 2, 2);
  CHECK(verdict_of(concurrent.history) == kOk);
}

TEST_CASE("lost write: an acknowledged write that no later read sees", "[linearizability]") {
  HistoryBuilder gone;
  gone.put(0, "x", "a", 0, 10, 2).get(1, "x", 20, 30, std::nullopt, 0, 2);
  CHECK(verdict_of(gone.history) == kIllegal);
  // Two concurrent writes; the later read sees the first. Without revisions "b then a"
  // explains it; with them, a (revision 2) cannot follow b (revision 3): b was lost.
  HistoryBuilder values;
  values.put(0, "x", "a", 0, 10).put(1, "x", "b", 0, 10).get(2, "x", 20, 30, "a");
  CHECK(verdict_of(values.history) == kOk);
  HistoryBuilder revisions;
  revisions.put(0, "x", "a", 0, 10, 2).put(1, "x", "b", 0, 10, 3).get(2, "x", 20, 30, "a", 2, 3);
  CHECK(verdict_of(revisions.history) == kIllegal);
}

TEST_CASE("split brain: two writers acknowledged with one revision", "[linearizability]") {
  HistoryBuilder same_revision;
  same_revision.put(0, "lease", "kcm-1", 0, 10, 5).put(1, "lease", "kcm-2", 0, 10, 5);
  CHECK(verdict_of(same_revision.history) == kIllegal);
  // Both creates (If ModRevision == 0) succeed: the second compare cannot have held.
  HistoryBuilder both_created;
  both_created.cas_put(0, "lease", 0, "kcm-1", 0, 10, 5).cas_put(1, "lease", 0, "kcm-2", 0, 10, 6);
  CHECK(verdict_of(both_created.history) == kIllegal);
  // One create wins, the other's Else-Get sees the winner: linearizable.
  HistoryBuilder one_wins;
  one_wins.cas_put(0, "lease", 0, "kcm-1", 0, 10, 5);
  one_wins.cas_put_failed(1, "lease", 0, "kcm-2", 0, 10, "kcm-1", 5, 5);
  CHECK(verdict_of(one_wins.history) == kOk);
}

// Knossos's cas-register in etcd's terms: a compare-and-set on the revision a reader saw,
// then a read after it returned must not see the value before it.
TEST_CASE("Knossos cas-register: a read after a successful cas sees it", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "1", 0, 10, 2).get(1, "x", 20, 30, "1", 2, 2).cas_put(1, "x", 2, "2", 40, 50, 3);
  h.get(2, "x", 60, 70, "2", 3, 3);
  CHECK(verdict_of(h.history) == kOk);
  h.history.operations.back().output.value = "1";
  h.history.operations.back().output.mod_revision = 2;
  CHECK(verdict_of(h.history) == kIllegal);
}

TEST_CASE("unknown outcomes may or may not have happened, at any later time", "[linearizability]") {
  HistoryBuilder seen;
  seen.put_unknown(0, "x", "a", 0).get(1, "x", 100, 110, "a");
  CHECK(verdict_of(seen.history) == kOk);
  HistoryBuilder not_seen;
  not_seen.put_unknown(0, "x", "a", 0).get(1, "x", 100, 110, std::nullopt);
  CHECK(verdict_of(not_seen.history) == kOk);
  HistoryBuilder late;  // not yet, then it lands
  late.put_unknown(0, "x", "a", 0).get(1, "x", 100, 110, std::nullopt).get(1, "x", 200, 210, "a");
  CHECK(verdict_of(late.history) == kOk);
  HistoryBuilder undone;  // seen, then gone again: nothing deleted it
  undone.put_unknown(0, "x", "a", 0).get(1, "x", 100, 110, "a").get(1, "x", 200, 210, std::nullopt);
  CHECK(verdict_of(undone.history) == kIllegal);
  HistoryBuilder before_invoke;  // a read that returned before the write was invoked
  before_invoke.get(1, "x", 0, 10, "a").put_unknown(0, "x", "a", 20);
  CHECK(verdict_of(before_invoke.history) == kIllegal);
  HistoryBuilder revision;  // its revision is unknown but must exceed what was seen before
  revision.get(1, "x", 0, 10, std::nullopt, 0, 7).put_unknown(0, "x", "a", 20);
  revision.get(1, "x", 100, 110, "a", 7, 9);
  CHECK(verdict_of(revision.history) == kIllegal);
  revision.history.operations.back().output.mod_revision = 8;
  CHECK(verdict_of(revision.history) == kOk);
}

// Found by the RapidCheck cross-check: two deletes that both deleted, open together with a
// read of nothing, while the key is present. Only "write lost?, delete, write lost?, delete"
// explains them, so an unknown write must be tried although nothing is absent yet.
TEST_CASE("two deletes that both deleted need an unknown write between them", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "x", "v3", 0, 10, 5).put_unknown(1, "x", "v4", 20).put_unknown(2, "x", "v5", 25);
  h.get(3, "x", 40, 67, std::nullopt, 0, 9).del(4, "x", 41, 70, true, 7);
  h.del(5, "x", 43, 67, true, 9);
  CHECK(verdict_of(h.history) == kOk);
  for (const OperationId id : {1u, 2u}) {  // both writes failed: one delete too many
    h.history.operations[id].outcome = Outcome::fail;
    h.history.operations[id].return_ns = 30;
  }
  CHECK(verdict_of(h.history) == kIllegal);
}

TEST_CASE("failed operations never happened", "[linearizability]") {
  HistoryBuilder h;
  h.put_failed(0, "x", "a", 0, 10).get(1, "x", 20, 30, std::nullopt);
  CHECK(verdict_of(h.history) == kOk);
  h.get(1, "x", 40, 50, "a");
  CHECK(verdict_of(h.history) == kIllegal);
}

TEST_CASE("the store's revision never goes back, across keys too", "[linearizability]") {
  HistoryBuilder h;
  h.get(0, "x", 0, 10, std::nullopt, 0, 7).put(1, "x", "a", 20, 30, 5);
  CHECK(verdict_of(h.history) == kIllegal);
  HistoryBuilder deletes;
  deletes.put(0, "x", "a", 0, 10, 2).del(0, "x", 20, 30, true, 3).del(1, "x", 40, 50, false, 3);
  deletes.get(1, "x", 60, 70, std::nullopt, 0, 4);
  CHECK(verdict_of(deletes.history) == kOk);
  deletes.history.operations[2].output.succeeded = true;  // deleted twice
  CHECK(verdict_of(deletes.history) == kIllegal);
}

TEST_CASE("keys are checked independently; the first illegal key is named", "[linearizability]") {
  HistoryBuilder h;
  h.put(0, "a", "1", 0, 10, 2).put(0, "b", "1", 20, 30, 3).get(1, "b", 40, 50, std::nullopt);
  h.get(1, "a", 60, 70, "1", 2, 3);
  const auto both = check_both(h.history);
  CHECK(both.online.key == "b");
  CHECK(both.offline.key == "b");
  CHECK(both.online.keys.at("a") == kOk);
  CHECK(both.online.keys.at("b") == kIllegal);
  CHECK(describe(both.online).rfind("illegal on key b at 50 ns: operation 2", 0) == 0);
}

TEST_CASE("the limits give up explicitly, never pass", "[linearizability]") {
  HistoryBuilder h;  // 12 concurrent writes without revisions: 2^12 orders to consider
  for (std::uint32_t p = 0; p < 12; ++p) h.put(p, "x", "v" + std::to_string(p), 0, 100);
  h.get(20, "x", 200, 210, "v3");
  Limits tight;
  tight.max_configurations = 50;
  tight.max_search_steps = 5;  // fewer than the 13 operations to place
  const Verdict online = check_online(h.history, tight);
  CHECK(online.kind == VerdictKind::gave_up);
  CHECK(online.detail == "more than 50 configurations at the return of operation 0");
  CHECK(check_offline(h.history, tight).kind == VerdictKind::gave_up);
  CHECK(verdict_of(h.history) == kOk);
  Limits few_open;
  few_open.max_open = 4;
  const Verdict v = check_online(h.history, few_open);
  CHECK(v.kind == VerdictKind::gave_up);
  CHECK(v.detail == "more than 4 operations open at once");
}

TEST_CASE("unknown outcomes nobody can observe stay out of the search", "[linearizability]") {
  HistoryBuilder h;  // 40 timed-out writes, then reads that see none of them
  for (std::uint32_t p = 0; p < 40; ++p) h.put_unknown(p, "x", "lost" + std::to_string(p), p);
  for (std::int64_t i = 0; i < 50; ++i) h.get(50, "x", 100 + 10 * i, 105 + 10 * i, std::nullopt);
  h.get(51, "x", 1000, 1010, "lost7");
  OnlineChecker checker;
  std::size_t peak = 0;
  for (const Event& e : checker_events(h.history)) {
    const Operation& op = h.history.operations[e.id];
    e.is_return ? checker.complete(op) : checker.invoke(op);
    peak = std::max(peak, checker.configurations());
  }
  CHECK(checker.verdict().kind == kOk);
  CHECK(peak == 1);
  CHECK(checker.open_operations() == 39);  // the write seen everywhere is forgotten
  // The offline reference, like Porcupine, tries the subsets of these writes placed before
  // the reads (2^40): it gives up, explicitly. With 10 of them it decides, and agrees.
  Limits small;
  small.max_search_steps = 1'000'000;
  CHECK(check_offline(h.history, small).kind == VerdictKind::gave_up);
  HistoryBuilder ten;
  for (std::uint32_t p = 0; p < 10; ++p) ten.put_unknown(p, "x", "lost" + std::to_string(p), p);
  for (std::int64_t i = 0; i < 5; ++i) ten.get(50, "x", 100 + 10 * i, 105 + 10 * i, std::nullopt);
  ten.get(51, "x", 1000, 1010, "lost7");
  CHECK(verdict_of(ten.history) == kOk);
}

TEST_CASE("the online checker holds only what is still open", "[linearizability]") {
  OnlineChecker checker;
  HistoryBuilder h;
  for (std::int64_t i = 0; i < 200; ++i) {
    h.put(0, "x", std::to_string(i), 100 * i, 100 * i + 10, i + 2);
    h.get(1, "x", 100 * i + 20, 100 * i + 30, std::to_string(i), i + 2, i + 2);
  }
  for (const Event& e : checker_events(h.history)) {
    const Operation& op = h.history.operations[e.id];
    e.is_return ? checker.complete(op) : checker.invoke(op);
    CHECK(checker.open_operations() <= 1);
  }
  CHECK(checker.verdict().kind == kOk);
  CHECK(checker.configurations() == 1);
  CHECK(checker.peak_configurations() == 1);
}
