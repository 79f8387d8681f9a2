// backup-chain (properties/druid/backup_chain.hpp) on hand-made traces: the deltas the store
// accepts follow each other and the full snapshot before them; a gap, an overlap or a delta
// without a full snapshot is a violation, which a new full snapshot ends.
#include <catch2/catch.hpp>

#include "models/druid/trace_kinds.hpp"
#include "properties/druid/backup_chain.hpp"

using namespace hasim;
using Catch::Matchers::Contains;

namespace {

void saved(BackupChain& p, std::int64_t s, std::string_view kind, std::int64_t start,
           std::int64_t last, std::string_view outcome = "saved") {
  p.on_event(StoredTraceEvent{TrueTime{s * 1'000'000'000},
                              "w-1",
                              "etcd-main-0.backup-restore",
                              druid::trace_kind::kSnapshot,
                              {{"pod", std::string("etcd-main-0")},
                               {"snapshot", std::string(kind)},
                               {"start", start},
                               {"last", last},
                               {"outcome", std::string(outcome)}}});
}

}  // namespace

TEST_CASE("backup-chain holds for deltas that follow each other", "[druid-properties]") {
  BackupChain p("backup-chain");
  saved(p, 10, "Full", 0, 26);
  saved(p, 70, "Incr", 27, 326);
  saved(p, 100, "Incr", 327, 400, "context deadline exceeded");  // not stored: no link
  saved(p, 130, "Incr", 327, 626);
  saved(p, 200, "Full", 0, 700);
  saved(p, 260, "Incr", 701, 720);
  p.finish(TrueTime{300'000'000'000});
  CHECK_FALSE(p.violation().has_value());
}

TEST_CASE("backup-chain fails at a gap, an overlap or a delta with no full snapshot",
          "[druid-properties]") {
  SECTION("gap") {
    BackupChain p("backup-chain");
    saved(p, 10, "Full", 0, 26);
    saved(p, 70, "Incr", 30, 326);
    REQUIRE(p.violation().has_value());
    CHECK_THAT(p.violation()->detail, Contains("expected it to start at 27"));
    CHECK(p.violation()->at == TrueTime{70'000'000'000});
  }
  SECTION("overlap") {
    BackupChain p("backup-chain");
    saved(p, 10, "Full", 0, 26);
    saved(p, 70, "Incr", 20, 326);
    REQUIRE(p.violation().has_value());
  }
  SECTION("no full snapshot") {
    BackupChain p("backup-chain");
    saved(p, 70, "Incr", 1, 326);
    REQUIRE(p.violation().has_value());
    CHECK_THAT(p.violation()->detail, Contains("no full snapshot before it"));
  }
  SECTION("a full snapshot ends the broken chain's window") {
    BackupChain p("backup-chain");
    saved(p, 10, "Full", 0, 26);
    saved(p, 70, "Incr", 30, 326);
    saved(p, 100, "Full", 0, 400);
    saved(p, 130, "Incr", 401, 450);
    p.finish(TrueTime{200'000'000'000});
    REQUIRE(p.windows().size() == 1);
    CHECK(p.windows().front().end == TrueTime{100'000'000'000});
  }
}
