// Nodes' "disks" and the disk fault kinds (disk-loss with "disk", slow-disk, disk-full,
// pod-delete): what they read into, and the errors for what they reject.
#include "scenario_loader_helpers.hpp"

#include "scenarios/fault_json.hpp"
#include "scenarios/fault_text.hpp"

using namespace hasim::loader_test;
using hasim::DurationDistribution;

namespace {

Json with_disks(Json disks) {
  Json doc = base();
  doc["nodes"][0]["disks"] = std::move(disks);
  return doc;
}

}  // namespace

TEST_CASE("a node's disks are read with their latencies and capacity", "[scenario][disk]") {
  const auto loaded = load(with_disks(Json::array(
      {{{"name", "ssd"}, {"writeLatency", "50us"}, {"fsyncLatency", "1ms..4ms"},
        {"capacity", "8Gi"}},
       {{"name", "hdd"}, {"capacity", 1000}}})));
  INFO(all_messages(loaded));
  REQUIRE(loaded.scenario.has_value());
  const auto& disks = loaded.scenario->nodes[0].disks;
  REQUIRE(disks.size() == 2);
  CHECK(disks[0].params.write_latency == DurationDistribution::constant(hasim::microseconds(50)));
  CHECK(disks[0].params.fsync_latency ==
        DurationDistribution::uniform(hasim::milliseconds(1), hasim::milliseconds(4)));
  CHECK(disks[0].params.capacity_bytes == 8ULL << 30);
  CHECK(disks[1].params.capacity_bytes == 1000);
  CHECK(disks[1].params.fsync_latency == hasim::DiskParams{}.fsync_latency);
  // A node without "disks" has the one default disk.
  const auto defaults = hasim::node_disks(loaded.scenario->nodes[1]);
  REQUIRE(defaults.size() == 1);
  CHECK(defaults[0].name == "disk");
}

TEST_CASE("bad disks are rejected at their path", "[scenario][disk]") {
  auto e = only_error(load(with_disks(Json::array({{{"name", "ssd"}, {"capacity", "8GB"}}}))));
  CHECK(e.path == "$.nodes[0].disks[0].capacity");
  CHECK_THAT(e.message, Contains("\"8Gi\""));
  e = only_error(load(with_disks(Json::array({{{"name", "a"}}, {{"name", "a"}}}))));
  CHECK(e.path == "$.nodes[0].disks[1].name");
  CHECK_THAT(e.message, Contains("already used"));
  e = only_error(load(with_disks(Json::array({{{"name", "a"}, {"iops", 3}}}))));
  CHECK(e.path == "$.nodes[0].disks[0].iops");
  e = only_error(load(with_disks(Json::array())));
  CHECK(e.path == "$.nodes[0].disks");
}

TEST_CASE("disk faults name a disk every target node has", "[scenario][disk]") {
  Json doc = with_disks(Json::array({{{"name", "ssd"}}}));
  doc["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "slow-disk"}, {"nodes", {"n1", "n2"}}, {"disk", "ssd"},
        {"factor", 50}}});
  auto e = only_error(load(doc));
  CHECK(e.path == "$.faults[0].disk");
  CHECK_THAT(e.message, Contains("node \"n2\" has no disk \"ssd\"") && Contains("\"disk\""));

  doc["faults"][0]["nodes"] = {"n1"};
  doc["faults"][0]["disk"] = "sdd";
  e = only_error(load(doc));
  CHECK_THAT(e.message, Contains("did you mean \"ssd\""));

  doc["faults"][0]["disk"] = "ssd";
  doc["faults"][0].erase("factor");
  e = only_error(load(doc));
  CHECK(e.path == "$.faults[0].factor");
  CHECK_THAT(e.message, Contains("factor"));

  doc["faults"][0]["factor"] = 1;
  e = only_error(load(doc));
  CHECK(e.path == "$.faults[0].factor");
}

TEST_CASE("a disk-loss of one disk aims at nodes, not a process", "[scenario][disk]") {
  Json doc = base();
  doc["heartbeat"] = Json::object();
  doc["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "disk-loss"}, {"process", "n1/heartbeat"}, {"disk", "disk"}}});
  auto e = only_error(load(doc));
  CHECK(e.path == "$.faults[0].disk");
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "pod-delete"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].node");
}

TEST_CASE("disk faults write back to JSON and read as sentences", "[scenario][disk]") {
  Json doc = base();
  doc["heartbeat"] = Json::object();
  doc["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "slow-disk"}, {"node", "n1"}, {"factor", 50}, {"for", "30s"}},
       {{"at", "2m"}, {"kind", "disk-full"}, {"nodes", {"n2"}}, {"disk", "disk"}},
       {{"at", "3m"}, {"kind", "pod-delete"}, {"process", "n3/heartbeat"}, {"for", "5s"}},
       {{"at", "4m"}, {"kind", "disk-loss"}, {"node", "n1"}, {"disk", "disk"}}});
  const auto loaded = load(doc);
  INFO(all_messages(loaded));
  REQUIRE(loaded.scenario.has_value());
  const auto& faults = loaded.scenario->faults;
  REQUIRE(faults.size() == 4);
  CHECK(hasim::describe_fault(faults[0]) ==
        "slow disk (50x latency) on every disk of n1 at 1m0s for 30s");
  CHECK(hasim::describe_fault(faults[1]) == "full disk (ENOSPC) on disk \"disk\" of n2 at 2m0s");
  // Written back, they read the same.
  doc["faults"] = hasim::faults_to_json(faults);
  const auto again = load(doc);
  REQUIRE(again.scenario.has_value());
  for (std::size_t i = 0; i < faults.size(); ++i) {
    CHECK(hasim::describe_fault(again.scenario->faults[i]) == hasim::describe_fault(faults[i]));
    CHECK(again.scenario->faults[i].disk == faults[i].disk);
    CHECK(again.scenario->faults[i].factor == faults[i].factor);
  }
}
