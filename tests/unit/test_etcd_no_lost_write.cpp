// no-lost-write over the etcd store (properties/etcd_store/no_lost_write.hpp) on hand-built
// etcd-call / etcd-call-end streams: linearizable histories hold, a stale read and a write
// lost after a crash are caught with the calls named, unknown outcomes (a client crash
// mid-call) may or may not apply, the checker's giving up is said, memory stays with the open
// calls; the history process numbers follow Jepsen's rule; and the exported history gets the
// offline checker's verdict after a round trip through the file.
#include <catch2/catch.hpp>

#include <algorithm>

#include "etcd_call_rig.hpp"
#include "properties/etcd_store/history_recorder.hpp"
#include "properties/etcd_store/no_lost_write.hpp"
#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/history_gen.hpp"
#include "properties/linearizability/history_json.hpp"
#include "properties/no_lost_write.hpp"
#include "sim/trace_kinds.hpp"

using Catch::Matchers::Contains;
using hasim::EtcdNoLostWrite;
using hasim::HistoryRecorder;
using hasim::etcd_rig::CallTrace;
namespace lin = hasim::linearizability;

namespace {

const std::string kKey = "/registry/leases/kube-system/kcm";

struct Rig {
  explicit Rig(lin::Limits limits = {}) : property("no-lost-write", limits) {}
  EtcdNoLostWrite property;
  HistoryRecorder recorder;
  CallTrace trace{{&property, &recorder}};
};

}  // namespace

TEST_CASE("no-lost-write holds for a linearizable etcd history", "[no-lost-write]") {
  Rig rig;
  rig.trace.put(0, 10, 1, 1, kKey, "a", 2);
  rig.trace.get(20, 30, 2, 1, kKey, "a", 2, 2);
  rig.trace.call(40, 1, 2, "cas-put", kKey, "b", 2);
  rig.trace.call(45, 2, 2, "get", kKey);  // concurrent with the cas-put: sees its write
  rig.trace.end(50, 1, 2, "ok", 3, true);
  rig.trace.end(60, 2, 2, "ok", 3, false, true, "b", 3);
  rig.trace.call(70, 2, 3, "cas-put", kKey, "c", 2);  // a stale compare: fails, sees "b"
  rig.trace.end(80, 2, 3, "ok", 3, false, true, "b", 3);
  rig.trace.call(90, 1, 3, "put", kKey, "d");  // refused before it was proposed
  rig.trace.end(95, 1, 3, "fail", 0, false, false, "", 0, "etcdserver: no leader");
  rig.trace.get(100, 110, 1, 4, kKey, "b", 3, 3);
  rig.trace.finish(200);
  CHECK_FALSE(rig.property.violation());
  CHECK(rig.property.calls() == 7);
  CHECK(rig.property.held() == 0);
  CHECK(rig.property.verdict().kind == lin::VerdictKind::linearizable);
}

TEST_CASE("no-lost-write holds when no etcd call happened", "[no-lost-write]") {
  hasim::StoreNoLostWrite property("no-lost-write");
  CallTrace trace{{&property}};
  trace.process(0, 1, "kube-apiserver", hasim::trace_kind::kStart,
                {{"incarnation", std::int64_t{1}}});
  trace.finish(1000);
  CHECK_FALSE(property.violation());
  CHECK(property.etcd().calls() == 0);
}

TEST_CASE("no-lost-write names the stale read and the write it missed", "[no-lost-write]") {
  Rig rig;
  rig.trace.put(0, 10, 1, 1, kKey, "a", 2);
  rig.trace.put(20, 30, 1, 2, kKey, "b", 3);
  rig.trace.get(40, 50, 2, 7, kKey, "a", 2, 3);  // after "b" was acknowledged: stale
  rig.trace.finish(100);
  REQUIRE(rig.property.violation());
  const std::string& detail = rig.property.violation()->detail;
  CHECK_THAT(detail, Contains("not linearizable on key " + kKey));
  CHECK_THAT(detail, Contains("cp-2/kube-apiserver call 7 (get on " + kKey +
                              ", invoked t=0.040000000s, returned t=0.050000000s: found \"a\" "
                              "mod_revision 2, revision 3)"));
  CHECK_THAT(detail, Contains("the last write acknowledged on the key was cp-1/kube-apiserver "
                              "call 2 (put \"b\""));
  CHECK(rig.property.violation()->at == hasim::etcd_rig::at_ms(50));
  CHECK(rig.property.violation()->causes.size() == 4);
}

TEST_CASE("no-lost-write catches an acknowledged write lost after a crash", "[no-lost-write]") {
  Rig rig;
  rig.trace.put(0, 10, 1, 1, kKey, "a", 2);
  rig.trace.put(20, 30, 1, 2, kKey, "b", 3);
  // The members crash (their own processes: nothing of the client's is open) and come back
  // without the write: the store answers from before it.
  for (int member = 1; member <= 3; ++member) {
    rig.trace.process(40, member, "etcd", hasim::trace_kind::kCrash,
                      {{"reason", std::string("node-down")}});
  }
  rig.trace.get(100, 110, 2, 1, kKey, "a", 2, 2);
  rig.trace.finish(200);
  REQUIRE(rig.property.violation());
  CHECK_THAT(rig.property.violation()->detail, Contains("cp-2/kube-apiserver call 1 (get"));
  CHECK_THAT(rig.property.violation()->detail, Contains("cp-1/kube-apiserver call 2 (put \"b\""));
}

TEST_CASE("no-lost-write: a client's crash leaves its calls unknown; they may or may not apply",
          "[no-lost-write]") {
  Rig rig;
  rig.trace.put(0, 10, 1, 1, kKey, "a", 2);
  rig.trace.call(20, 1, 2, "put", kKey, "b");
  rig.trace.process(25, 1, "kube-apiserver", hasim::trace_kind::kCrash,
                    {{"reason", std::string("oom")}});
  rig.trace.process(30, 1, "kube-apiserver", hasim::trace_kind::kStart,
                    {{"incarnation", std::int64_t{2}}});
  // Call ids start again in the new incarnation.
  SECTION("not applied yet, then applied") {
    rig.trace.get(40, 50, 1, 1, kKey, "a", 2, 2);
    rig.trace.get(60, 70, 2, 1, kKey, "b", 3, 3);
    rig.trace.get(80, 90, 1, 2, kKey, "b", 3, 3);
    rig.trace.finish(200);
    CHECK_FALSE(rig.property.violation());
  }
  SECTION("never applied") {
    rig.trace.get(40, 50, 1, 1, kKey, "a", 2, 2);
    rig.trace.get(60, 70, 2, 1, kKey, "a", 2, 5);
    rig.trace.finish(200);
    CHECK_FALSE(rig.property.violation());
  }
  SECTION("applied, then gone: caught") {
    rig.trace.get(40, 50, 2, 1, kKey, "b", 3, 3);
    rig.trace.get(60, 70, 1, 1, kKey, "a", 2, 3);
    rig.trace.finish(200);
    REQUIRE(rig.property.violation());
    CHECK_THAT(rig.property.violation()->detail,
               Contains("cp-1/kube-apiserver call 1 (incarnation 2) (get"));
  }
  SECTION("the node going down ends them the same way") {
    rig.trace.call(40, 1, 1, "put", kKey, "c");
    rig.trace.node_event(45, 1, hasim::trace_kind::kNodeDown);
    rig.trace.get(60, 70, 2, 1, kKey, "c", 4, 4);
    rig.trace.finish(200);
    CHECK_FALSE(rig.property.violation());
    const lin::History history = rig.recorder.finish();
    REQUIRE(history.operations.size() == 4);
    CHECK(history.operations.at(2).outcome == lin::Outcome::unknown);
    CHECK(history.operations.at(3).outcome == lin::Outcome::ok);
  }
}

TEST_CASE("no-lost-write says when the checker gave up", "[no-lost-write]") {
  lin::Limits limits;
  limits.max_open = 2;
  Rig rig(limits);
  for (std::int64_t i = 1; i <= 3; ++i)
    rig.trace.call(i, 1, i, "put", kKey, "v" + std::to_string(i));
  for (std::int64_t i = 1; i <= 3; ++i) rig.trace.end(10 + i, 1, i, "ok", 1 + i, true);
  rig.trace.finish(100);
  REQUIRE(rig.property.violation());
  CHECK_THAT(rig.property.violation()->detail, Contains("could not be checked on etcd key " + kKey +
                                                        ": the linearizability checker gave up"));
}

TEST_CASE("no-lost-write reports an etcd-call-end without its call", "[no-lost-write]") {
  Rig rig;
  rig.trace.end(10, 1, 42, "ok", 3, true);
  REQUIRE(rig.property.violation());
  CHECK_THAT(rig.property.violation()->detail, Contains("call 42 of \"cp-1/kube-apiserver\" "
                                                        "ended but is not open"));
}

TEST_CASE("no-lost-write holds only the calls still open", "[no-lost-write]") {
  Rig rig;
  std::size_t most_held = 0, most_described = 0;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const int client = 1 + static_cast<int>(i % 3);
    const std::string key = "/registry/k" + std::to_string(i % 5);
    rig.trace.put(10 * i, 10 * i + 4, client, i, key, "v" + std::to_string(i), i + 2);
    most_held = std::max(most_held, rig.property.held());
    most_described = std::max(most_described, rig.property.described());
  }
  rig.trace.finish(100'000);
  CHECK_FALSE(rig.property.violation());
  CHECK(most_held <= 2);
  CHECK(most_described <= 2);
}

TEST_CASE("history process numbers: one open operation each, never reused after unknown",
          "[no-lost-write]") {
  Rig rig;
  rig.trace.call(0, 1, 1, "put", kKey, "a");
  rig.trace.call(1, 1, 2, "get", kKey);  // concurrent on one client: a second number
  rig.trace.call(2, 2, 1, "get", kKey);  // another client: its own number
  rig.trace.end(10, 1, 1, "ok", 2, true);
  rig.trace.call(11, 1, 3, "get", kKey);  // reuses the first number, free again
  rig.trace.end(12, 1, 2, "unknown");     // abandoned at the deadline: retired
  rig.trace.end(13, 1, 3, "ok", 2, false, true, "a", 2);
  rig.trace.end(14, 2, 1, "ok", 2, false, true, "a", 2);
  rig.trace.call(20, 1, 4, "get", kKey);
  rig.trace.call(21, 1, 5, "get", kKey);
  rig.trace.finish(100);
  const lin::History history = rig.recorder.finish();
  REQUIRE(history.operations.size() == 6);
  std::vector<std::uint32_t> process;
  for (const lin::Operation& op : history.operations) process.push_back(op.process);
  CHECK(process == std::vector<std::uint32_t>{0, 1, 2, 0, 0, 3});
  CHECK(history.operations[1].outcome == lin::Outcome::unknown);
  CHECK(history.operations[4].outcome == lin::Outcome::unknown);  // open when the run ended
  CHECK(lin::validate(history).empty());
}

TEST_CASE("an exported history gets the offline checker's verdict after a round trip",
          "[no-lost-write][linearizability]") {
  Rig rig;
  rig.trace.put(0, 10, 1, 1, kKey, "a", 2);
  rig.trace.call(20, 1, 2, "put", kKey, "b");
  rig.trace.process(25, 1, "kube-apiserver", hasim::trace_kind::kCrash,
                    {{"reason", std::string("oom")}});
  rig.trace.get(30, 40, 2, 1, kKey, "b", 3, 3);
  rig.trace.call(45, 2, 2, "cas-delete", kKey, "", 3);
  rig.trace.end(50, 2, 2, "ok", 4, true);
  const bool stale = GENERATE(false, true);
  if (stale) rig.trace.get(60, 70, 3, 1, kKey, "b", 3, 4);  // after the delete: stale
  rig.trace.get(80, 90, 2, 3, "/registry/other", "", 0, 4);
  rig.trace.finish(200);
  const lin::History history = rig.recorder.finish();
  const lin::ReadResult back = lin::read_history_json(lin::write_history_json(history));
  REQUIRE(back.errors.empty());
  CHECK(back.history == history);
  const lin::Verdict offline = lin::check_offline(back.history);
  CHECK(offline.kind == rig.property.verdict().kind);
  CHECK(rig.property.violation().has_value() == stale);
  CHECK(offline.kind == (stale ? lin::VerdictKind::illegal : lin::VerdictKind::linearizable));
  if (stale) CHECK(offline.key == kKey);
}

namespace {

// A generated history (properties/linearizability/history_gen.hpp) as the etcd client would
// trace it: client N is "cp-N/kube-apiserver", call ids are operation ids, an unknown
// outcome ends "unknown" the moment it is invoked (abandoned at once).
void replay_as_trace(const lin::History& history, CallTrace& trace) {
  struct Step {
    std::int64_t t;
    bool end;
    lin::OperationId id;
    auto operator<=>(const Step&) const = default;
  };
  std::vector<Step> steps;
  for (const lin::Operation& op : history.operations) {
    steps.push_back({op.invoke_ns, false, op.id});
    const bool returns = op.outcome != lin::Outcome::unknown;
    steps.push_back({returns ? op.return_ns : op.invoke_ns, true, op.id});
  }
  std::sort(steps.begin(), steps.end());
  for (const Step& s : steps) {
    const lin::Operation& op = history.operations[s.id];
    const int client = static_cast<int>(op.process) + 1;
    if (!s.end) {
      trace.call(s.t, client, op.id, std::string(lin::op_kind_name(op.kind)), op.key, op.value,
                 op.expected_mod_revision);
      continue;
    }
    const lin::Output& o = op.output;
    trace.end(s.t, client, op.id, std::string(lin::outcome_name(op.outcome)), o.revision,
              o.succeeded, o.found, o.value, o.mod_revision);
  }
}

}  // namespace

TEST_CASE("no-lost-write judges generated histories as the offline checker does",
          "[no-lost-write][linearizability]") {
  const lin::Mutation mutation = GENERATE(lin::Mutation::none, lin::Mutation::stale_read,
                                          lin::Mutation::lost_write,
                                          lin::Mutation::duplicated_write,
                                          lin::Mutation::phantom_read);
  std::size_t illegal = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    lin::HistoryShape shape;
    shape.mutation = mutation;
    hasim::Rng rng(seed);
    const lin::History generated = lin::generate_history(shape, rng);
    Rig rig;
    // Trace times are in ms in the rig: stretch the generator's ns (ordering is kept).
    replay_as_trace(generated, rig.trace);
    rig.trace.finish(1'000'000'000);
    const lin::Verdict offline = lin::check_offline(generated);
    INFO("seed " << seed << " " << lin::mutation_name(mutation));
    CHECK(rig.property.verdict().kind == offline.kind);
    CHECK(rig.property.violation().has_value() == (offline.kind != lin::VerdictKind::linearizable));
    const lin::History recorded = rig.recorder.finish();
    REQUIRE(recorded.operations.size() == generated.operations.size());
    CHECK(lin::check_offline(recorded).kind == offline.kind);
    illegal += offline.kind == lin::VerdictKind::illegal ? 1 : 0;
  }
  if (mutation == lin::Mutation::none) CHECK(illegal == 0);
  if (mutation == lin::Mutation::lost_write) CHECK(illegal > 0);
}
