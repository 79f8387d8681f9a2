// Issue 11 part 5 renamed the ideal store's node from "etcd" to "store" without changing a
// number: the store's node forks its random streams by its old name, old scenario files that
// name "etcd" load with it read as "store" (and a note), and replay files of format 1 (written
// by hasim before the rename) load with the store on "etcd" and replay exactly.
//
// tests/fixtures/replay-format-1-*.json were written by `hasim run --replay-out` of main at
// dc2e985, just before the rename: leader-partitioned is the built-in scenario; etcd-names
// declares "etcd", links to it and partitions it, with random link latencies (its scenario is
// tests/fixtures/old-store-name.json, which tests/cli/run.sh loads).
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "properties/replay.hpp"
#include "scenario_loader_helpers.hpp"

using namespace hasim;
using hasim::loader_test::base;
using hasim::loader_test::Contains;
using hasim::loader_test::load;
using hasim::loader_test::source_path;

namespace {

const char* const kEtcdNames = "tests/fixtures/replay-format-1-etcd-names.json";
const char* const kLeaderPartitioned = "tests/fixtures/replay-format-1-leader-partitioned.json";

Json read_json(const std::string& relative) {
  std::ifstream in(source_path(relative));
  std::ostringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

RunResult run(const Scenario& scenario, std::uint64_t seed) {
  RunOptions options;
  options.seed = seed;
  options.capture_lines = 1'000'000;
  auto result = run_scenario(scenario, options);
  REQUIRE(result.has_value());
  return *result;
}

// The trace lines with the store's node named "etcd", as before the rename: only partition
// edges and shapes name it in these traces ("cp-1->store store->cp-1", "isolate":"store").
std::vector<std::string> with_old_store_name(std::vector<std::string> lines) {
  for (std::string& line : lines) {
    if (line.find("\"edges\"") == std::string::npos) continue;
    line = std::regex_replace(line, std::regex(R"(([" ])store->)"), "$1etcd->");
    line = std::regex_replace(line, std::regex(R"(->store([" ]))"), "->etcd$1");
    // The partition's shape ("isolate", "groups", "from", "to"): names between , | and quotes.
    line = std::regex_replace(line, std::regex(R"((["|,])store(?=["|,]))"), "$1etcd");
  }
  return lines;
}

std::vector<std::string> paths_of(const std::vector<ScenarioError>& notes) {
  std::vector<std::string> paths;
  for (const ScenarioError& note : notes) paths.push_back(note.path);
  return paths;
}

Json control_plane_doc() {
  Json doc = base();
  doc["controlPlane"] = Json::object();
  return doc;
}

}  // namespace

TEST_CASE("a replay of format 1 runs the store on \"etcd\" and reproduces its hash",
          "[replay][legacy]") {
  for (const char* fixture : {kEtcdNames, kLeaderPartitioned}) {
    INFO(fixture);
    const Json file = read_json(fixture);
    REQUIRE(file["replayFormat"] == 1);
    const ReplayLoad load = load_replay_text(file.dump(), fixture);
    INFO(format_errors(load.errors, fixture));
    REQUIRE(load.replay.has_value());
    CHECK(load.notes.empty());  // nothing to rename: "etcd" is the store's node here
    const Scenario& scenario = load.replay->scenario;
    CHECK(scenario.section<ControlPlaneSpec>()->storeNode == "etcd");
    CHECK(scenario.nodes.back().name == "etcd");
    const RunResult result = run(scenario, load.replay->seed);
    CHECK(result.trace_hash == load.replay->trace_hash);
    CHECK(result.trace_events == load.replay->trace_events);
    CHECK(result.checkpoints == load.replay->checkpoints);

    // Read as format 2, the same file runs the store on "store": the same run, but the trace
    // prints the new name, so the recorded hash no longer matches. The format is what keeps
    // an old replay exact.
    Json as_new = file;
    as_new["replayFormat"] = kReplayFormat;
    const ReplayLoad renamed = load_replay_text(as_new.dump(), fixture);
    REQUIRE(renamed.replay.has_value());
    CHECK(renamed.replay->scenario.section<ControlPlaneSpec>()->storeNode == "store");
    const RunResult now = run(renamed.replay->scenario, renamed.replay->seed);
    CHECK(now.trace_hash != load.replay->trace_hash);
    CHECK(now.trace_events == load.replay->trace_events);
    CHECK(with_old_store_name(now.captured) == result.captured);
  }
}

TEST_CASE("new replays are format 2; a newer format is refused", "[replay][legacy]") {
  const LoadResult scenario = load(control_plane_doc());
  REQUIRE(scenario.scenario.has_value());
  const RunResult result = run(*scenario.scenario, 1);
  Json replay = make_replay(control_plane_doc(), result, "");
  CHECK(replay["replayFormat"] == 2);
  replay["replayFormat"] = 3;
  const ReplayLoad load = load_replay_text(replay.dump(), "r.json");
  REQUIRE_FALSE(load.replay.has_value());
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].path == "$.replayFormat");
  CHECK_THAT(load.errors[0].message, Contains("reads replay formats 1 to 2, found 3"));
}

TEST_CASE("an old scenario naming \"etcd\" loads it as \"store\", with a note at each place",
          "[scenario][legacy]") {
  // The scenario of the etcd-names fixture, as a scenario file: "etcd" declared (zone c), in
  // a link, an isolate list and a partition group.
  const Json file = read_json(kEtcdNames);
  const LoadResult migrated = load(file["scenario"]);
  INFO(format_errors(migrated.errors, "old.json"));
  REQUIRE(migrated.scenario.has_value());
  CHECK(paths_of(migrated.notes) ==
        std::vector<std::string>{"$.nodes[3].name", "$.network.links[0].to",
                                 "$.faults[0].isolate[0]", "$.faults[1].groups[0][1]"});
  CHECK_THAT(format_notes(migrated.notes, "old.json"),
             Contains("old.json: $.nodes[3].name: note: \"etcd\" is the ideal store's old node "
                      "name, read as \"store\"; rename it to \"store\""));
  const Scenario& s = *migrated.scenario;
  REQUIRE(s.nodes.size() == 4);  // the declared node is the store: kept, not added again
  CHECK(s.nodes[3].name == "store");
  CHECK(s.nodes[3].zone == "c");
  CHECK(s.nodes[3].stream_name == "etcd");
  CHECK(s.network.links[0].to == "store");
  CHECK(s.faults[0].targets == std::vector<std::string>{"store"});
  CHECK(s.faults[1].groups[0] == std::vector<std::string>{"cp-1", "store"});
  CHECK(s.section<ControlPlaneSpec>()->nodes == std::vector<std::string>{"cp-1", "cp-2", "cp-3"});

  // It draws exactly what the old hasim drew: the recorded run, with the new name.
  const std::uint64_t seed = file["seed"].get<std::uint64_t>();
  const RunResult now = run(s, seed);
  const ReplayLoad old = load_replay_text(file.dump(), kEtcdNames);
  REQUIRE(old.replay.has_value());
  const RunResult then = run(old.replay->scenario, seed);
  REQUIRE(then.trace_hash == old.replay->trace_hash);
  CHECK(with_old_store_name(now.captured) == then.captured);
  CHECK(now.violated_count() == then.violated_count());
}

namespace {

// Records its incarnation's first random draw.
class DrawOnStart final : public Process {
 public:
  explicit DrawOnStart(std::uint64_t* out) : out_(out) {}
  void on_start(Env& env) override { *out_ = env.rng().next_u64(); }
  void on_message(Env&, ProcessId, const Message&) override {}
  void on_timer(Env&, TimerId, std::uint64_t) override {}

 private:
  std::uint64_t* out_;
};

// Node 1 (named `name`, streams named `stream_name`): the first latency drawn on the link
// 0 -> 1 and the first draw of a process on it.
std::pair<TrueTime, std::uint64_t> draws(const std::string& name, const std::string& stream_name) {
  WorldOptions options;
  options.remote.latency = DurationDistribution::lognormal(milliseconds(1), milliseconds(10));
  World world({{"a", "", LocalClock()}, {name, "", LocalClock(), stream_name}}, options);
  std::uint64_t process_draw = 0;
  world.add_process(1, "p",
                    [&process_draw] { return std::make_unique<DrawOnStart>(&process_draw); });
  world.run_until(TrueTime{1});
  Flight flight;
  flight.to_node = 1;
  flight.transport = Transport::datagram;
  return {world.network().plan_delivery(TrueTime{}, flight)[0], process_draw};
}

}  // namespace

// Today nothing draws on the store's links (the store is called, not messaged) and no process
// runs on it, so a scenario cannot show it; the kernel keeps the old stream name for what
// will (real etcd members talk over links).
TEST_CASE("a renamed node keeps drawing what it drew under its stream name", "[legacy]") {
  const auto before = draws("etcd", "");
  CHECK(draws("store", "etcd") == before);
  CHECK(draws("store", "").first != before.first);
  CHECK(draws("store", "").second != before.second);
}

TEST_CASE("the old store name: every kind of reference, and what is refused",
          "[scenario][legacy]") {
  // A fault's "process" and "node", "nodes", one-way "from"/"to", controlPlane.nodes and
  // upgrade.order are references too; here each is read as "store" and then refused as
  // "store" would be, with the note beside the error.
  Json doc = control_plane_doc();
  doc["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "pause"}, {"process", "etcd/kube-apiserver"}},
       {{"at", "1m"}, {"kind", "partition"}, {"from", {"etcd"}}, {"to", {"n1"}}},
       {{"at", "1m"}, {"kind", "apiserver-slow"}, {"node", "etcd"}, {"latency", "1s"}}});
  LoadResult result = load(doc);
  CHECK(paths_of(result.notes) ==
        std::vector<std::string>{"$.faults[0].process", "$.faults[1].from[0]", "$.faults[2].node"});
  CHECK_THAT(loader_test::all_messages(result),
             Contains("no process runs on \"store\"") && Contains("node \"store\" is not a "
                                                                  "control-plane node"));
  doc = control_plane_doc();
  doc["controlPlane"]["nodes"] = {"n1", "etcd"};
  result = load(doc);
  CHECK(paths_of(result.notes) == std::vector<std::string>{"$.controlPlane.nodes[1]"});
  CHECK(loader_test::only_error(result).path == "$.controlPlane.nodes[1]");
  doc = control_plane_doc();
  doc["upgrade"] = {{"to", "1.32.0"}, {"order", {"n1", "etcd", "n2", "n3"}}};
  result = load(doc);
  CHECK(paths_of(result.notes) == std::vector<std::string>{"$.upgrade.order[1]"});
  CHECK(loader_test::only_error(result).path == "$.upgrade.order[1]");

  // A file that also declares "store" names the one store twice.
  doc = control_plane_doc();
  doc["nodes"][2]["name"] = "store";
  doc["faults"] = Json::array({{{"at", "1m"}, {"kind", "partition"}, {"isolate", {"etcd"}}}});
  result = load(doc);
  REQUIRE_FALSE(result.errors.empty());
  CHECK(result.errors[0].path == "$.faults[0].isolate[0]");
  CHECK_THAT(result.errors[0].message, Contains("$.nodes[2].name declares a node \"store\" too"));

  // Without a control plane there is no store, and "etcd" is a node like any other.
  doc = base();
  doc["nodes"][0]["name"] = "etcd";
  doc["heartbeat"] = {{"interval", "1s"}, {"timeout", "3s"}};
  doc["faults"] = Json::array({{{"at", "1m"}, {"kind", "crash"}, {"node", "etcd"}}});
  result = load(doc);
  REQUIRE(result.scenario.has_value());
  CHECK(result.notes.empty());
  CHECK(result.scenario->nodes[0].name == "etcd");
  CHECK(result.scenario->nodes[0].stream_name.empty());

  // A file without the old name gets no note; the store it adds keeps the old stream name.
  result = load(control_plane_doc());
  REQUIRE(result.scenario.has_value());
  CHECK(result.notes.empty());
  CHECK(result.scenario->nodes.back().name == "store");
  CHECK(result.scenario->nodes.back().stream_name == "etcd");
}
