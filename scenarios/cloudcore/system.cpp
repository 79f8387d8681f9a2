// KubeEdge CloudCore hot standby as a registered system (scenarios/system.hpp): section
// "cloudcore", a process "cloudcore" on each of its nodes and "edgecore" on each edge node
// (models/cloudcore/). It runs over the control plane (section "controlPlane"): CloudCore
// elects and patches its pod through those kube-apiservers, and the control plane's kubelet
// restarts its container.
#include <algorithm>

#include "models/cloudcore/trace_kinds.hpp"
#include "scenarios/cloudcore/cloudcore.hpp"
#include "scenarios/cloudcore/workload.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;
using scenario_loader::read_duration_field;

// In CloudCoreMode's order.
const std::vector<std::string> kModeNames{"v1.3", "v1.5", "v1.7+"};
const std::vector<std::string> kLoadBalancerNames{"service", "keepalived"};

bool read_nodes_field(Context& c, const Json& value, const std::string& path,
                      std::string_view key, std::vector<std::string>& target) {
  const Json* nodes = JsonReader::field(value, key);
  if (nodes == nullptr) return true;
  auto list = scenario_loader::read_node_list(c, *nodes, JsonReader::key_path(path, key));
  if (list) target = *list;
  return list.has_value();
}

bool read_timings(Context& c, const Json& value, const std::string& path, CloudCoreSpec& spec) {
  JsonReader& r = c.reader;
  election::LeaderElectionConfig& e = spec.config.election;
  bool ok = true;
  for (const auto& [key, target] :
       {std::pair{"leaseDuration", &e.leaseDuration}, std::pair{"renewDeadline", &e.renewDeadline},
        std::pair{"retryPeriod", &e.retryPeriod}, std::pair{"informerSync", &spec.config.informer_sync},
        std::pair{"keepaliveInterval", &spec.config.keepalive_interval},
        std::pair{"heartbeat", &spec.edge.heartbeat},
        std::pair{"endpointsDelay", &spec.endpoints_delay},
        std::pair{"containerReadyDelay", &spec.container_ready_delay}}) {
    const DurationSign sign =
        std::string_view(key) == "informerSync" || std::string_view(key) == "endpointsDelay" ||
                std::string_view(key) == "containerReadyDelay"
            ? DurationSign::non_negative
            : DurationSign::positive;
    ok = read_duration_field(r, value, path, key, sign, *target) && ok;
  }
  if (!ok) return false;
  // NewLeaderElector's checks, with upstream's messages.
  if (const auto problem = election::validate(e, "cloudcore")) {
    r.error(path, *problem + "; CloudCore's defaults are leaseDuration \"15s\", renewDeadline "
                             "\"10s\", retryPeriod \"2s\"");
    return false;
  }
  return true;
}

// v1.7+ removed /readyz (KE@v1.7.0, commit 320132bf8), which keepalived's vrrp_script curls:
// the check can never pass (kubeedge#3059), so the VIP would follow VRRP priorities alone,
// never a CloudCore's health. Upstream's docs still describe it; hasim refuses it.
bool check_active_active(Context& c, const std::string& path, CloudCoreSpec& spec) {
  if (cloudcore::is_hot_standby(spec.config.mode)) return true;
  spec.config.delivery.sync_read = cloudcore::SyncControllerRead::live_get_v1_7;
  if (spec.load_balancer != CloudLoadBalancer::keepalived) return true;
  c.reader.error(JsonReader::key_path(path, "loadBalancer"),
                 "\"keepalived\" checks /readyz, which \"mode\": \"v1.7+\" no longer serves "
                 "(kubeedge#3059: the check always gets 404); use \"loadBalancer\": \"service\" "
                 "for active-active, or a hot-standby mode (\"v1.3\", \"v1.5\") with keepalived");
  return false;
}

void read_cloudcore(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, scenario_loader::keys("cloudcore"), "the cloudcore section")) return;
  if (!c.has("controlPlane")) {
    r.error(path, "CloudCore elects and patches its pod through kube-apiservers: add a "
                  "\"controlPlane\" section (e.g. \"controlPlane\": {\"nodes\": [\"cp-1\"]})");
    return;
  }
  CloudCoreSpec spec;
  bool ok = read_nodes_field(c, value, path, "nodes", spec.nodes);
  ok = read_nodes_field(c, value, path, "edgeNodes", spec.edge_nodes) && ok;
  ok = scenario_loader::read_choice(c, value, path, "mode", kModeNames, spec.config.mode) && ok;
  ok = scenario_loader::read_choice(c, value, path, "loadBalancer", kLoadBalancerNames,
                                    spec.load_balancer) &&
       ok;
  ok = read_timings(c, value, path, spec) && ok;
  ok = read_edge_workload(c, value, path, spec) && ok;
  if (ok && spec.nodes.empty()) {
    r.error(JsonReader::key_path(path, "nodes"),
            "CloudCore needs nodes to run on: list them, e.g. \"nodes\": [\"cc-1\", \"cc-2\"]");
    ok = false;
  }
  ok = check_active_active(c, path, spec) && ok;
  for (const std::string& edge : spec.edge_nodes) {
    if (std::find(spec.nodes.begin(), spec.nodes.end(), edge) == spec.nodes.end()) continue;
    r.error(JsonReader::key_path(path, "edgeNodes"),
            "\"" + edge + "\" is also a CloudCore node; an edge node runs only EdgeCore: "
                          "remove it from \"nodes\" or from \"edgeNodes\"");
    ok = false;
  }
  if (ok) c.scenario.sections.set(spec);
}

std::optional<std::vector<std::string>> processes_on(const Context& c, const std::string& node) {
  const CloudCoreSpec* spec = c.scenario.section<CloudCoreSpec>();
  if (spec == nullptr) return std::nullopt;
  std::vector<std::string> out;
  const bool cloud = is_listed(spec->nodes, node);
  if (cloud) out.emplace_back(CloudCoreSpec::kProcess);
  if (cloud && spec->load_balancer == CloudLoadBalancer::keepalived) {
    out.emplace_back(CloudCoreSpec::kKeepalivedProcess);
  }
  if (is_listed(spec->edge_nodes, node)) out.emplace_back(CloudCoreSpec::kEdgeProcess);
  return out;
}

// What active-active has no use for: single-serving is hot standby's promise (only the leader
// serves; every replica serves by design in v1.7+), and nobody holds kubeedge/cloudcorelease,
// so a fault aimed at its leader would never fire.
void cross_check(Context& c) {
  const CloudCoreSpec* spec = c.scenario.section<CloudCoreSpec>();
  if (spec == nullptr || cloudcore::is_hot_standby(spec->config.mode)) return;
  const auto& properties = c.scenario.properties;
  for (std::size_t i = 0; i < properties.size(); ++i) {
    if (properties[i] != "single-serving") continue;
    c.reader.error(JsonReader::index_path("$.properties", i),
                   "\"single-serving\" is hot standby's property; with \"mode\": \"v1.7+\" every "
                   "CloudCore serves edges by design: remove it, or check edge-converges:BOUND "
                   "and edge-reconnects:BOUND");
  }
  const std::string lease = "leader:" + spec->config.lease_namespace + "/" + spec->config.lease_name;
  const auto& faults = c.scenario.faults;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    if (faults[i].role != lease) continue;
    c.reader.error(JsonReader::key_path(JsonReader::index_path("$.faults", i), "role"),
                   "\"" + lease + "\" has no holder in \"mode\": \"v1.7+\" (no election): aim "
                   "at a replica instead, e.g. \"process\": \"" + spec->nodes.front() + "/" +
                   std::string(CloudCoreSpec::kProcess) + "\"");
  }
}

}  // namespace

std::string cloudcore_pod_name(const std::string& node) { return "cloudcore-" + node; }

const ScenarioSystem& cloudcore_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "cloudcore";
    s.section = CloudCoreSpec::kSection;
    s.key_sets = {{"cloudcore",
                   {"mode", "nodes", "edgeNodes", "loadBalancer", "leaseDuration", "renewDeadline",
                    "retryPeriod", "informerSync", "keepaliveInterval", "heartbeat",
                    "endpointsDelay", "containerReadyDelay", "workload", "objectChanges"}},
                  {"edgeWorkload",
                   {"podsPerNode", "configMapsPerPod", "secretsPerPod", "updateEvery",
                    "updateUntil"}},
                  {"edgeObjectChange",
                   {"at", "op", "kind", "name", "node", "configMaps", "secrets"}}};
    s.read = read_cloudcore;
    s.processes_on = processes_on;
    s.process_origin =
        "\"cloudcore\" (\"cloudcore\" on each of its nodes, with \"keepalived\" for that load "
        "balancer, \"edgecore\" on each edge node)";
    s.build = add_cloudcore;
    s.trace_kinds.assign(cloudcore::trace_kind::kAll.begin(), cloudcore::trace_kind::kAll.end());
    s.cross_check = cross_check;
    s.dictionary = {"v1.3", "v1.5", "v1.7+", "service", "keepalived", "cc-1/keepalived", "cc-1/cloudcore", "e1/edgecore",
                    "leader:kubeedge/cloudcorelease"};
    return s;
  }();
  return system;
}

}  // namespace hasim
