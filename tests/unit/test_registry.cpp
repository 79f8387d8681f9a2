// The system registry (systems/registry.cpp): every system is whole -- each fault kind can be
// read, applied, written back and described, and has its key set; each fault choice draws
// faults that it matches and that load back as written; each property builds a monitor --
// and the vocabulary is unique across systems.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <set>

#include "properties/check_system.hpp"
#include "properties/fault_space.hpp"
#include "properties/schedule_gen.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/fault_text.hpp"
#include "scenarios/loader.hpp"
#include "systems/registry.hpp"

using namespace hasim;

namespace {

bool has_key_set(std::string_view name) {
  for (const KeySet& set : scenario_key_sets()) {
    if (set.name == name) return true;
  }
  return false;
}

// A scenario where every fault choice applies: a control plane on three nodes, an upgrade,
// etcd members, an Etcd under etcd-druid with a backup store, and single-leader within
// client-go's defaults.
Scenario every_choice_scenario() {
  const LoadResult load = load_scenario_text(R"({
    "name": "registry", "duration": "20m", "nodes": [{"name": "cp-1"}, {"name": "cp-2"}, {"name": "cp-3"},
              {"name": "w-1"}, {"name": "s3"}],
    "controlPlane": {"nodes": ["cp-1", "cp-2", "cp-3"]}, "upgrade": {"to": "1.32.0"},
    "journal": {"nodes": ["cp-1"]}, "etcd": {"members": ["cp-1", "cp-2", "cp-3"]},
    "etcdDruid": {"replicas": 1, "maxReplicas": 3, "workers": ["w-1"],
                  "backup": {"storeNode": "s3", "deltaSnapshotPeriod": "1m"}},
    "properties": ["single-leader", "no-skew", "eventually-leader:60s"]})",
                                             "registry");
  REQUIRE(load.scenario.has_value());
  return *load.scenario;
}

}  // namespace

TEST_CASE("the registry lists each system once, with both halves", "[registry]") {
  std::set<std::string_view> names, sections;
  REQUIRE(systems().size() >= 4);
  for (const System& system : systems()) {
    INFO(system.name);
    CHECK(names.insert(system.name).second);
    CHECK(system.scenario->name == system.name);
    CHECK(system.check->name == system.name);
    CHECK_FALSE(system.summary.empty());
    if (!system.scenario->section.empty()) {
      CHECK(sections.insert(system.scenario->section).second);
      CHECK(system.scenario->read != nullptr);
      CHECK(has_key_set(system.scenario->section));
    }
  }
}

TEST_CASE("every fault kind is complete and has its key set", "[registry]") {
  std::set<std::string> kinds;
  for (const ScenarioSystem* system : scenario_systems()) {
    for (const FaultKind& kind : system->fault_kinds) {
      INFO(kind.name);
      CHECK(kinds.insert(std::string(kind.name)).second);
      CHECK(kind.read != nullptr);
      CHECK(kind.apply != nullptr);
      CHECK(kind.write != nullptr);
      CHECK(kind.describe != nullptr);
      CHECK(has_key_set("fault:" + std::string(kind.name)));
      CHECK(find_fault_kind(kind.name) == &kind);
    }
  }
  CHECK(kinds.size() == fault_kind_names().size());
}

TEST_CASE("every property builds its monitor and is listed once", "[registry]") {
  std::set<std::string_view> names;
  for (const CheckSystem* system : check_systems()) {
    for (const PropertyDef& p : system->properties) {
      INFO(p.info.name);
      CHECK(names.insert(p.info.name).second);
      const std::string spec = std::string(p.info.name) + (p.info.argument.empty() ? "" : ":10s");
      CHECK_FALSE(validate_property_spec(spec).has_value());
      const auto monitor = make_property(spec);
      REQUIRE(monitor != nullptr);
      CHECK(monitor->spec() == spec);
    }
  }
  CHECK(names.size() == property_catalog().size());
}

TEST_CASE("every fault choice applies somewhere and draws what it matches", "[registry]") {
  const Scenario scenario = every_choice_scenario();
  const FaultSpace space = fault_space(scenario, false);
  std::set<std::string> seen;
  for (const FaultChoiceDef* choice : fault_choices()) {
    INFO(choice->name);
    CHECK(seen.insert(std::string(choice->name)).second);
    CHECK(std::find(space.applicable.begin(), space.applicable.end(), choice->name) !=
          space.applicable.end());
    CHECK((choice->draw != nullptr) != (choice->redraw != nullptr));
    CHECK((choice->draw != nullptr) == (choice->matches != nullptr));
  }
  // Drawn faults count as the choice that drew them, and load back exactly as written.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Schedule schedule = generate_schedule(space, GenerateOptions{}, seed);
    for (const FaultSpec& fault : schedule.faults) {
      INFO(describe_fault(fault));
      const auto choice = choice_of(fault);
      REQUIRE(choice.has_value());
      CHECK(std::find(schedule.enabled.begin(), schedule.enabled.end(), *choice) !=
            schedule.enabled.end());
      Json doc = Json::parse(R"({"name": "r", "duration": "20m",
        "nodes": [{"name": "cp-1"}, {"name": "cp-2"}, {"name": "cp-3"}, {"name": "w-1"},
                  {"name": "s3"}],
        "controlPlane": {"nodes": ["cp-1", "cp-2", "cp-3"]},
        "journal": {"nodes": ["cp-1"]}, "etcd": {"members": ["cp-1", "cp-2", "cp-3"]},
        "etcdDruid": {"replicas": 1, "maxReplicas": 3, "workers": ["w-1"],
                      "backup": {"storeNode": "s3", "deltaSnapshotPeriod": "1m"}}})");
      doc["faults"] = Json::array({fault_to_json(fault)});
      const LoadResult back = load_scenario_text(doc.dump(), "round trip");
      REQUIRE(back.scenario.has_value());
      CHECK(fault_to_json(back.scenario->faults.at(0)) == fault_to_json(fault));
    }
  }
}

TEST_CASE("the fuzz dictionary has every key, section and kind", "[registry]") {
  const std::vector<std::string> words = scenario_dictionary();
  const std::set<std::string> all(words.begin(), words.end());
  for (const std::string& kind : fault_kind_names()) CHECK(all.count(kind) == 1);
  for (const KeySet& set : scenario_key_sets()) {
    for (const std::string& key : set.keys) CHECK(all.count(key) == 1);
  }
  for (const ScenarioSystem* system : scenario_systems()) {
    if (!system->section.empty()) CHECK(all.count(std::string(system->section)) == 1);
  }
}
