// eventually-raft-leader over hand-built traces, fed only the kinds it asks for (as a trial
// feeds it): a bound that runs out between two of them is still found, with the window it had
// when every event was fed (from the moment the bound ran out to the leader's election).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "properties/raft/eventually_raft_leader.hpp"

using hasim::StoredTraceEvent;
using hasim::TraceField;
using hasim::TrueTime;

namespace {

TrueTime at(double seconds) { return TrueTime{static_cast<std::int64_t>(seconds * 1e9)}; }

struct Feed {
  hasim::EventuallyRaftLeader property{"eventually-raft-leader:3s", hasim::seconds(3)};
  std::vector<StoredTraceEvent> events;
  bool all = false;  // also the kinds it does not ask for

  void emit(double t, std::string node, std::string proc, std::string kind,
            std::vector<TraceField> fields = {}) {
    events.push_back(StoredTraceEvent{at(t), std::move(node), std::move(proc), std::move(kind),
                                      std::move(fields)});
    if (all || property.wants(events.back().kind)) property.on_event(events.back());
  }
  void state(double t, int n, std::int64_t term, std::string s) {
    emit(t, "n" + std::to_string(n), "etcd", "raft-state",
         {{"member", std::int64_t{n}}, {"term", term}, {"state", std::move(s)}});
  }
  void run(bool every) {
    all = every;
    for (int n = 1; n <= 3; ++n) {
      emit(0, "n" + std::to_string(n), "etcd", "raft-recovered", {{"term", std::int64_t{1}}});
    }
    state(1, 1, 2, "StateLeader");
    emit(10, "n1", "etcd", "crash", {{"reason", std::string("fault")}});  // no leader from 10s
    for (int i = 0; i < 50; ++i) emit(10.1 + 0.1 * i, "n2", "etcd", "recv");  // ignored kinds
    state(18, 2, 3, "StateLeader");
    property.finish(at(20));
  }
};

}  // namespace

TEST_CASE("eventually-raft-leader asks only for the kinds it follows, with the same windows",
          "[raft-properties]") {
  CHECK_FALSE(Feed{}.property.wants("recv"));
  CHECK(Feed{}.property.wants("raft-state"));
  CHECK(Feed{}.property.wants("partition"));
  Feed some;
  some.run(false);
  Feed every;
  every.run(true);
  REQUIRE(some.property.violation().has_value());
  CHECK(some.property.violation()->at == at(13));
  const std::vector<hasim::ViolationWindow> windows = some.property.windows();
  REQUIRE(windows.size() == 1);
  CHECK(windows[0].start == at(13));
  CHECK(windows[0].end == at(18));
  REQUIRE(every.property.windows().size() == 1);
  CHECK(every.property.windows()[0].start == windows[0].start);
  CHECK(every.property.windows()[0].end == windows[0].end);
}
