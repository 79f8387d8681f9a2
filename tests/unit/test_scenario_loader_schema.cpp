// scenarios/schema.json and the scenario loader agree on every object's keys.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "scenario_loader_helpers.hpp"

using namespace hasim::loader_test;

namespace {

using KeyMap = std::map<std::string, std::set<std::string>>;

// Key sets of scenarios/schema.json: each definition's "properties", and for each
// "if": {"properties": {"kind": {"const": K}}} / "then": {"propertyNames": {"enum": [...]}}
// the set "<definition>:K".
KeyMap schema_key_sets() {
  std::ifstream in(source_path("scenarios/schema.json"));
  const Json schema = Json::parse(in);
  KeyMap sets;
  auto add = [&](const std::string& name, const Json& def) {
    if (def.contains("properties")) {
      for (const auto& item : def["properties"].items()) sets[name].insert(item.key());
    }
    if (!def.contains("allOf")) return;
    for (const Json& branch : def["allOf"]) {
      if (!branch.contains("if") || !branch["then"].contains("propertyNames")) continue;
      const auto discriminator = branch["if"]["properties"].begin();
      const std::string value = discriminator.value()["const"].get<std::string>();
      for (const Json& key : branch["then"]["propertyNames"]["enum"]) {
        sets[name + ":" + value].insert(key.get<std::string>());
      }
    }
  };
  add("scenario", schema);
  for (const auto& item : schema["$defs"].items()) add(item.key(), item.value());
  return sets;
}

// Whether `name` is a registered system's top-level section ("heartbeat", "journal", ...).
bool is_section(const std::string& name) {
  for (const hasim::ScenarioSystem* system : hasim::scenario_systems()) {
    if (system->section == name) return true;
  }
  return false;
}

// A valid scenario with an object holding every key of `set` (null values) at its place.
Json document_with_keys(const std::string& set, const std::set<std::string>& keys) {
  Json doc = base();
  Json object = Json::object();
  for (const std::string& key : keys) object[key] = nullptr;
  const std::string kind = set.substr(0, set.find(':'));
  const std::string variant =
      set.find(':') == std::string::npos ? "" : set.substr(set.find(':') + 1);
  if (kind == "scenario") {
    for (const std::string& key : keys)
      if (!doc.contains(key)) doc[key] = nullptr;
  } else if (kind == "node") {
    doc["nodes"][0] = object;
  } else if (kind == "clock") {
    doc["nodes"][0]["clock"] = object;
  } else if (kind == "disk") {
    doc["nodes"][0]["disks"] = Json::array({object});
  } else if (kind == "upgrade") {
    doc["controlPlane"] = Json::object();
    doc[kind] = object;
  } else if (kind == "network" || is_section(kind)) {
    doc[kind] = object;
  } else if (kind == "components" || kind == "kubelet") {
    doc["controlPlane"] = {{kind, object}};
  } else if (kind == "loadBalancerHealthCheck") {
    doc["controlPlane"] = {{"access", "loadBalancer"}, {kind, object}};
  } else if (kind == "controlPlaneEtcd") {
    doc["controlPlane"] = {{"etcd", object}};
  } else if (kind == "component") {
    doc["controlPlane"] = {{"components", {{"kube-scheduler", object}}}};
  } else if (kind == "coordination") {
    doc["controlPlane"] = {{"election", "coordinated"}, {kind, object}};
  } else if (kind == "edgeWorkload" || kind == "edgeObjectChange") {
    doc["controlPlane"] = {{"nodes", Json::array({"n1"})}};
    doc["cloudcore"] = {{"nodes", Json::array({"n2"})}, {"edgeNodes", Json::array({"n3"})}};
    if (kind == "edgeWorkload") doc["cloudcore"]["workload"] = object;
    if (kind == "edgeObjectChange") doc["cloudcore"]["objectChanges"] = Json::array({object});
  } else if (kind == "druidBackup") {
    doc["controlPlane"] = {{"nodes", Json::array({"n1"})}};
    doc["etcdDruid"] = {{"workers", Json::array({"n2"})}, {"backup", object}};
  } else if (kind == "druidProposal") {
    doc["controlPlane"] = {{"nodes", Json::array({"n1"})}};
    doc["etcdDruid"] = {
        {"workers", Json::array({"n2"})}, {"mode", "proposal"}, {"proposal", object}};
  } else if (kind == "link") {
    doc["network"] = {{"links", Json::array({object})}};
  } else if (kind == "fault") {
    if (!variant.empty()) object["kind"] = variant;
    doc["faults"] = Json::array({object});
  } else if (kind == "distribution") {
    if (!variant.empty()) object["dist"] = variant;
    doc["network"] = {{"latency", object}};
  } else {
    FAIL("no place for key set " << set);
  }
  return doc;
}

}  // namespace

TEST_CASE("the schema and the loader agree on every object's keys", "[scenario]") {
  const KeyMap from_schema = schema_key_sets();
  KeyMap from_loader;
  for (const hasim::KeySet& set : hasim::scenario_key_sets()) {
    from_loader[set.name].insert(set.keys.begin(), set.keys.end());
  }
  std::set<std::string> names;
  for (const auto& [name, keys] : from_schema) names.insert(name);
  for (const auto& [name, keys] : from_loader) names.insert(name);
  for (const std::string& name : names) {
    INFO("key set " << name);
    CHECK(from_schema.count(name) == 1);
    CHECK(from_loader.count(name) == 1);
    if (from_schema.count(name) && from_loader.count(name)) {
      CHECK(from_schema.at(name) == from_loader.at(name));
    }
  }
  CHECK(from_schema.count("fault:drop-connections") == 1);

  // Every schema key is accepted where the schema puts it; an invented one is not.
  for (const auto& [name, keys] : from_schema) {
    if (name.find("Distribution") != std::string::npos || keys.empty()) continue;
    INFO("key set " << name);
    const LoadResult result = load(document_with_keys(name, keys));
    const std::string text = all_messages(result);
    INFO(text);
    CHECK(text.find("unknown key") == std::string::npos);
    // The upgrade's keys depend on its method: with every key present, "provision" (replace
    // only) is refused for the default node method, naming the method, and nothing else.
    if (name == "upgrade") {
      CHECK(text.find("key \"provision\" does not apply to \"method\": \"node\"") !=
            std::string::npos);
      CHECK(text.find("does not apply") == text.rfind("does not apply"));
    } else {
      CHECK(text.find("does not apply") == std::string::npos);
    }
    std::set<std::string> with_invented = keys;
    with_invented.insert("invented");
    const std::string rejected = all_messages(load(document_with_keys(name, with_invented)));
    CHECK((rejected.find("unknown key \"invented\"") != std::string::npos ||
           rejected.find("key \"invented\" does not apply") != std::string::npos));
  }
}
