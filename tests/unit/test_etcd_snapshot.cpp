// etcd's snapshot save and restore into a new cluster (issue 13 part 1; etcd op-guide
// recovery.md): Maintenance Snapshot on a member (models/etcd/kv_server_defrag.cpp),
// etcdctl snapshot save (models/etcd/etcdctl.cpp), the data directory etcdutl snapshot
// restore writes (models/etcd/snapshot_restore.cpp), the restored members' new cluster, and
// the scenario actions (scenarios/etcd/snapshot_faults.cpp).
#include <catch2/catch.hpp>

#include "etcd_kv_rig.hpp"
#include "models/etcd/etcdctl.hpp"
#include "models/etcd/kv_snapshot.hpp"
#include "models/etcd/snapshot_restore.hpp"
#include "models/etcd/wal.hpp"
#include "properties/run.hpp"
#include "scenario_loader_helpers.hpp"

using namespace hasim;
using namespace hasim::testing;

namespace {

constexpr std::int64_t kElected = 3'000;  // ms: a leader is elected well before

std::shared_ptr<etcd::KvRequest> kv_snapshot(std::uint64_t id) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::snapshot;
  return r;
}


// A snapshot of members' store as saved by call `id`.
etcd::EtcdSnapshot saved(const KvRig& rig, std::uint64_t id) {
  const etcd::KvResponse& r = ok_answer(rig, id);
  return etcd::EtcdSnapshot{r.snapshot, r.header.revision, r.snapshot_size, "n2/etcd"};
}

// The operator's restore at `at_ms` onto members `ids` (1-based): pod down, data directory
// rewritten, pod up, as the etcd-snapshot-restore action does.
// The snapshot is the answer to call `saved_by`.
void restore_at(KvRig& rig, std::int64_t at_ms, std::uint64_t saved_by,
                std::vector<raft::PeerId> ids) {
  rig.world().at(TrueTime{at_ms * 1'000'000}, [&rig, saved_by, ids] {
    const etcd::EtcdSnapshot snap = saved(rig, saved_by);
    const std::uint64_t cluster = etcd::restored_cluster_id("backup", ids, rig.world().now());
    const etcd::DataDirFiles files = etcd::restore_data_dir(snap, ids, cluster);
    for (const raft::PeerId id : ids) {
      const ProcessId p = rig.process(static_cast<int>(id));
      rig.world().delete_pod(p);
      rig.world().replace_volume_files(*rig.world().find_volume(p, etcd::EtcdMember::kVolume),
                                       files);
      rig.world().restart(p);
    }
  });
}

}  // namespace

TEST_CASE("snapshot save on a running member streams its store at its revision",
          "[etcd-snapshot][kv]") {
  KvRig rig;
  rig.call(kElected, "n1/etcd", kv_put(1, "a", "1"));
  rig.call(kElected + 100, "n2/etcd", kv_put(2, "b", "2"));
  rig.call(kElected + 500, "n3/etcd", kv_snapshot(3));  // any member, leader or not
  rig.run_until_ms(kElected + 1'000);
  const etcd::KvResponse& r = ok_answer(rig, 3);
  CHECK(r.op == etcd::KvOp::snapshot);
  CHECK(r.header.revision == 3);
  CHECK(r.snapshot_size == rig.member(3)->kv().store().db_size());
  // The stream decodes into the member's store: both keys at their revisions.
  etcd::mvcc::KvStore store;
  etcd::mvcc::Applier applier{store};
  REQUIRE(etcd::decode_store(r.snapshot, store, applier));
  CHECK(store.current_revision() == 3);
  CHECK(store.backend().size() == 2);
}

TEST_CASE("etcdctl snapshot save fails when the member is down or stalled, and stores nothing",
          "[etcd-snapshot][etcd-ops]") {
  etcd::EtcdConfig config;
  config.defragBytesPerSecond = 2'048;  // a defragmentation of ~20 kB takes ~10 s
  KvRig rig(config);
  const ProcessId ctl =
      rig.world().add_process(3, "etcdctl", [] { return std::make_unique<etcd::Etcdctl>(); });
  KindLog log("etcdctl");
  rig.world().trace().add_observer(&log);
  auto store = std::make_shared<etcd::SnapshotStore>();
  auto save = [&rig, ctl, store](std::int64_t at_ms, std::string endpoint, std::string name) {
    rig.world().at(TrueTime{at_ms * 1'000'000}, [&rig, ctl, store, endpoint, name] {
      auto c = std::make_shared<etcd::EtcdctlCommand>();
      c->op = etcd::EtcdctlOp::snapshot_save;
      c->endpoint = endpoint;
      c->name = name;
      c->store = store;
      rig.world().post(ctl, std::move(c));
    });
  };
  rig.call(kElected, "n1/etcd", kv_put(1, "a", "1"));
  rig.world().at(TrueTime{(kElected + 100) * 1'000'000},
                 [&rig] { rig.world().crash(rig.process(1)); });
  save(kElected + 200, "n1/etcd", "down");
  rig.call(kElected + 300, "n2/etcd", kv_defragment(2));
  save(kElected + 400, "n2/etcd", "stalled");
  save(kElected + 500, "n3/etcd", "good");
  rig.run_until_ms(kElected + 7'000);
  REQUIRE(log.events.size() == 3);
  std::map<std::string, StoredTraceEvent> by_name;
  for (const StoredTraceEvent& e : log.events) by_name.emplace(e.string_field("name"), e);
  // A crashed member's endpoint: the connection is closed (or the deadline passes).
  CHECK(by_name.at("down").string_field("result") != "ok");
  CHECK(by_name.at("stalled").string_field("result") == etcd::kDeadlineExceeded);
  CHECK(by_name.at("good").string_field("result") == "ok");
  CHECK(by_name.at("good").int_field("revision") == 2);
  CHECK(by_name.at("good").int_field("size") > 0);
  CHECK(store->find("down") == nullptr);
  CHECK(store->find("stalled") == nullptr);
  REQUIRE(store->find("good") != nullptr);
  CHECK(store->find("good")->revision == 2);
  CHECK(store->find("good")->member == "n3/etcd");
}

TEST_CASE("a restored data directory replays as a new cluster's bootstrap at the snapshot",
          "[etcd-snapshot]") {
  etcd::EtcdSnapshot snap;
  etcd::mvcc::KvStore store;
  etcd::mvcc::Applier applier{store};
  snap.data = etcd::encode_store(store, applier);
  snap.revision = 1;
  const etcd::DataDirFiles files = etcd::restore_data_dir(snap, {1, 2, 3}, 42);
  const std::vector<std::string> none;
  const etcd::Replayed r = etcd::replay(
      etcd::bootstrap_snapshot(3), [&](const std::string& f) -> const std::vector<std::string>& {
        const auto it = files.find(f);
        return it == files.end() ? none : it->second;
      });
  CHECK(r.cluster == 42);
  CHECK(r.snapshot.metadata.index == 3);  // after the three ConfChangeAddNode entries
  CHECK(r.snapshot.metadata.term == 1);
  CHECK(r.snapshot.metadata.confState.voters == std::vector<raft::PeerId>{1, 2, 3});
  CHECK(r.entries.empty());
  CHECK(r.state.term == 1);
  CHECK(r.state.vote == 1);
  CHECK(r.state.commit == 3);
  CHECK(r.segmentStarts == std::vector<raft::Index>{4});
  CHECK(etcd::restored_cluster_id("backup", {1, 2, 3}, TrueTime{1}) !=
        etcd::restored_cluster_id("backup", {1, 2}, TrueTime{1}));
}

TEST_CASE("restore into three members: they elect, serve the snapshot, and revisions go on",
          "[etcd-snapshot][kv]") {
  KvRig rig;
  KindLog recovered("raft-recovered");
  rig.world().trace().add_observer(&recovered);

  rig.call(kElected, "n1/etcd", kv_put(1, "a", "1"));
  rig.call(kElected + 100, "n1/etcd", kv_put(2, "b", "2"));
  rig.call(kElected + 200, "n2/etcd", kv_snapshot(3));
  rig.call(kElected + 300, "n1/etcd", kv_put(4, "c", "lost"));  // after the snapshot
  restore_at(rig, kElected + 1'000, 3, {1, 2, 3});
  const std::int64_t after = kElected + 6'000;
  rig.call(after, "n3/etcd", kv_get(5, "a", false));
  rig.call(after + 10, "n2/etcd", kv_get(6, "c", false));
  rig.call(after + 100, "n1/etcd", kv_put(7, "d", "4"));
  rig.call(after + 300, "n3/etcd", kv_get(8, "d", false));
  rig.run_until_ms(after + 1'000);
  REQUIRE(rig.leader() != 0);
  CHECK(saved(rig, 3).revision == 3);
  CHECK(ok_answer(rig, 4).header.revision == 4);

  // Read back: the snapshot's keys at their revisions; the later write is gone.
  const etcd::KvResponse& a = ok_answer(rig, 5);
  REQUIRE(a.range.kvs.size() == 1);
  CHECK(a.range.kvs[0].value == "1");
  CHECK(a.range.kvs[0].mod_revision == 2);
  CHECK(a.header.revision == 3);
  CHECK(ok_answer(rig, 6).range.kvs.empty());
  // Revisions continue from the snapshot's (etcd keeps them across a restore).
  CHECK(ok_answer(rig, 7).header.revision == 4);
  CHECK(ok_answer(rig, 8).range.kvs.at(0).mod_revision == 4);
  for (int i = 1; i <= 3; ++i) CHECK(rig.member(i)->kv().store().current_revision() == 4);
  // Each restored member started from the restore's snapshot at index 3, term 1.
  int restored = 0;
  for (const StoredTraceEvent& e : recovered.events) {
    if (e.t.ns < (kElected + 1'000) * 1'000'000) continue;
    ++restored;
    CHECK(e.int_field("snap-index") == 3);
    CHECK(e.int_field("snap-term") == 1);
    CHECK(e.int_field("commit") == 3);
  }
  CHECK(restored == 3);
}

TEST_CASE("a member left in the old cluster is refused by the restored one", "[etcd-snapshot]") {
  KvRig rig;
  KindLog mismatch("etcd-cluster-mismatch"), states("raft-state");
  rig.world().trace().add_observer(&mismatch);
  rig.world().trace().add_observer(&states);
  rig.call(kElected, "n1/etcd", kv_put(1, "a", "1"));
  rig.call(kElected + 200, "n1/etcd", kv_snapshot(2));
  const std::int64_t restore = kElected + 1'000;
  restore_at(rig, restore, 2, {1, 2});  // n3 keeps its old data and cluster
  rig.call(restore + 5'000, "n1/etcd", kv_put(3, "b", "2"));
  rig.call(restore + 5'100, "n2/etcd", kv_get(4, "b", false));
  rig.run_until_ms(restore + 8'000);
  // The new cluster of two elects and serves.
  CHECK(ok_answer(rig, 3).header.revision == 3);
  CHECK(ok_answer(rig, 4).range.kvs.size() == 1);
  // n3, alone in the old cluster, never joins it: its messages (and theirs to it, had they
  // any) are refused as from another cluster, and it learns of no new leader.
  REQUIRE(!mismatch.events.empty());
  bool refused_n3 = false;
  for (const StoredTraceEvent& e : mismatch.events) {
    if (e.int_field("from") == 3 && e.int_field("member") != 3) refused_n3 = true;
  }
  CHECK(refused_n3);
  for (const StoredTraceEvent& e : states.events) {
    if (e.t.ns > restore * 1'000'000 && e.node == "n3")
      CHECK(e.string_field("state") != "StateLeader");
  }
  CHECK(rig.member(3)->kv().store().current_revision() == 2);
}

TEST_CASE("etcd-snapshot-save and etcd-snapshot-restore refuse bad input, naming the field",
          "[etcd-snapshot][scenario]") {
  using namespace hasim::loader_test;
  Json doc = base();
  doc["etcd"] = Json::object();
  doc["faults"] = Json::array({{{"at", "1s"}, {"kind", "etcd-snapshot-save"}, {"node", "n1"}}});
  const ScenarioError no_name = only_error(load(doc));
  CHECK(no_name.path == "$.faults[0]");
  CHECK_THAT(no_name.message, Contains("needs \"name\""));
  doc["faults"] =
      Json::array({{{"at", "1s"}, {"kind", "etcd-snapshot-save"}, {"node", "n1"}, {"name", ""}}});
  CHECK(only_error(load(doc)).path == "$.faults[0].name");
  doc["faults"] = Json::array({{{"at", "1s"}, {"kind", "etcd-snapshot-restore"}}});
  CHECK_THAT(only_error(load(doc)).message, Contains("needs \"name\""));
  doc["etcd"] = {{"members", Json::array({"n1", "n2"})}};
  doc["faults"] = Json::array({{{"at", "1s"},
                                {"kind", "etcd-snapshot-restore"},
                                {"name", "b"},
                                {"nodes", Json::array({"n1", "n3"})}}});
  const ScenarioError not_member = only_error(load(doc));
  CHECK(not_member.path == "$.faults[0].nodes");
  CHECK_THAT(not_member.message, Contains("\"n3\" runs no member"));
  doc["faults"] =
      Json::array({{{"at", "1s"}, {"kind", "etcd-snapshot-restore"}, {"name", "b"}, {"keep", 1}}});
  CHECK_THAT(only_error(load(doc)).path, Contains("keep"));
  Json no_etcd = base();
  no_etcd["faults"] =
      Json::array({{{"at", "1s"}, {"kind", "etcd-snapshot-restore"}, {"name", "b"}}});
  CHECK_THAT(only_error(load(no_etcd)).message, Contains("add an \"etcd\" section"));
  // Good ones: the restore defaults to every member.
  doc["faults"] = Json::array(
      {{{"at", "1s"}, {"kind", "etcd-snapshot-save"}, {"role", "raft-leader"}, {"name", "b"}},
       {{"at", "2s"}, {"kind", "etcd-snapshot-restore"}, {"name", "b"}}});
  const LoadResult good = load(doc);
  REQUIRE(good.scenario.has_value());
  CHECK(good.scenario->faults.at(0).snapshot_name == "b");
  CHECK(good.scenario->faults.at(1).targets == std::vector<std::string>{"n1", "n2"});
}

TEST_CASE(
    "stacked/quorum-lost-restored: the restore closes the data-loss window and reports "
    "the acknowledged revisions it lost",
    "[etcd-snapshot][scenario]") {
  const LoadResult load = load_scenario_file(std::string(HASIM_SOURCE_DIR) +
                                             "/scenarios/stacked/quorum-lost-restored.json");
  REQUIRE(load.scenario.has_value());
  RunOptions options;
  options.capture_lines = 1'000'000;
  const auto run = run_scenario(*load.scenario, options);
  REQUIRE(run.has_value());
  // The backup, then the restore onto the three members at 3m.
  std::size_t saves = 0, restores = 0, after = 0;
  for (const std::string& line : run->captured) {
    if (line.find("\"op\":\"snapshot\",\"endpoint\":\"cp-1/etcd\",\"result\":\"ok\"") !=
        std::string::npos) {
      ++saves;
      CHECK(line.find("\"revision\":273") != std::string::npos);
    }
    if (line.find("\"kind\":\"etcd-snapshot-restore\"") != std::string::npos) {
      ++restores;
      CHECK(line.find("\"result\":\"ok\"") != std::string::npos);
    }
    // Revisions go on from the snapshot's once the restored cluster serves writes.
    if (restores == 3 && line.find("\"kind\":\"etcd-call-end\"") != std::string::npos &&
        line.find("\"revision\":274") != std::string::npos) {
      ++after;
    }
  }
  CHECK(saves == 1);
  CHECK(restores == 3);
  CHECK(after > 0);
  std::size_t qr = 0;
  while (run->property_specs.at(qr) != "quorum-recovery:30s") ++qr;
  const std::vector<ViolationWindow>& windows = run->windows.at(qr);
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].start == TrueTime{120'000'000'000});
  CHECK(windows[0].end == TrueTime{180'000'000'000});  // closed by the restore
  CHECK(windows[1].start == TrueTime{180'000'000'000});
  CHECK_THAT(windows[1].cause, Catch::Matchers::Contains("restored from snapshot \"backup\" at "
                                                         "revision 273: 90 acknowledged "
                                                         "revision(s) lost (revision 363"));
}

TEST_CASE("etcd-snapshot-save on a downed node is traced, and a restore of it finds nothing",
          "[etcd-snapshot][scenario]") {
  const LoadResult load = load_scenario_text(R"({
    "name": "t", "duration": "20s", "nodes": 3, "etcd": {},
    "faults": [
      {"at": "2s", "kind": "node-down", "node": "n1", "for": "10s"},
      {"at": "3s", "kind": "etcd-snapshot-save", "node": "n1", "name": "b"},
      {"at": "5s", "kind": "etcd-snapshot-restore", "name": "b"}]})",
                                             "t.json");
  REQUIRE(load.scenario.has_value());
  RunOptions options;
  options.capture_lines = 100'000;
  const auto run = run_scenario(*load.scenario, options);
  REQUIRE(run.has_value());
  std::size_t refused = 0, missing = 0;
  for (const std::string& line : run->captured) {
    if (line.find("\"result\":\"etcdctl not running (node down)\"") != std::string::npos) {
      ++refused;
    }
    if (line.find("\"result\":\"no snapshot saved under that name\"") != std::string::npos) {
      ++missing;
    }
  }
  CHECK(refused == 1);
  CHECK(missing == 1);
}
