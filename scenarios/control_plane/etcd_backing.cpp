// "controlPlane.etcd": whether the kube-apiservers stand on the ideal store or on the etcd
// members of the "etcd" section (issue 13 parts 2 and 3), and the store each apiserver gets.
//
// Topologies, as kubeadm lays them out:
//  - stacked: a member on every control-plane node, and each kube-apiserver's --etcd-servers
//    is its own node's member only (https://127.0.0.1:2379: kubeadm
//    cmd/kubeadm/app/phases/controlplane/manifests.go getAPIServerCommand), so an apiserver
//    whose member is cut off cannot fail over;
//  - external: the members on nodes of their own, every apiserver given all of them in the
//    section's order (kubeadm's ClusterConfiguration etcd.external.endpoints).
#include <algorithm>
#include <set>

#include "models/apiserver/raft_store.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/etcd/spec.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "sim/assert.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim {
namespace scenario_loader {
namespace {

const Json* cp_etcd(const Json& section) {
  return section.is_object() ? JsonReader::field(section, "etcd") : nullptr;
}

// One of `names` at `key` of `object`, or nullopt (absent, or an error reported).
std::optional<std::string> read_choice(JsonReader& r, const Json& object, const std::string& path,
                                       std::string_view key,
                                       const std::vector<std::string>& names,
                                       std::string_view meaning) {
  const Json* v = JsonReader::field(object, key);
  if (v == nullptr) return std::nullopt;
  const std::string at = JsonReader::key_path(path, key);
  const auto text = r.string(*v, at);
  if (!text) return std::nullopt;
  if (std::find(names.begin(), names.end(), *text) != names.end()) return text;
  r.error(at, "unknown " + std::string(key) + " \"" + *text + "\"" + did_you_mean(*text, names) +
                  "; use " + std::string(meaning));
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "\"" : ", \"") + name + "\"";
  return "[" + out + "]";
}

}  // namespace

bool stands_on_raft_etcd(const Context& c, const Json& section) {
  const Json* etcd = cp_etcd(section);
  if (etcd != nullptr && etcd->is_object()) {
    const Json* model = JsonReader::field(*etcd, "model");
    if (model != nullptr && model->is_string()) return model->get<std::string>() == "raft";
  }
  // A file with etcd members and no model given: the control plane stands on them.
  return c.has(EtcdSpec::kSection);
}

void read_cp_etcd(Context& c, const Json& section, const std::string& cp_path,
                  ControlPlaneSpec& spec) {
  JsonReader& r = c.reader;
  spec.etcd.model = c.has(EtcdSpec::kSection) ? EtcdModel::raft : EtcdModel::ideal;
  const Json* value = cp_etcd(section);
  if (value == nullptr) return;
  const std::string path = JsonReader::key_path(cp_path, "etcd");
  if (!r.object(*value, path, keys("controlPlaneEtcd"), "the control plane's etcd")) return;
  if (const auto model = read_choice(r, *value, path, "model", {"ideal", "raft"},
                                     "\"raft\" (the etcd members of the \"etcd\" section) or "
                                     "\"ideal\" (a store that never fails)")) {
    spec.etcd.model = *model == "raft" ? EtcdModel::raft : EtcdModel::ideal;
  }
  if (const auto t = read_choice(r, *value, path, "topology", {"stacked", "external"},
                                 "\"stacked\" (a member on each control-plane node) or "
                                 "\"external\" (members on their own nodes)")) {
    spec.etcd.topology = *t == "stacked" ? EtcdTopology::stacked : EtcdTopology::external;
  }
  if (const auto b = read_choice(r, *value, path, "balancer", {"round-robin", "pinned"},
                                 "\"round-robin\" (clientv3 3.4 and later) or \"pinned\" "
                                 "(clientv3 3.3)")) {
    spec.etcd.pinned = *b == "pinned";
  }
  const bool tuned = JsonReader::field(*value, "topology") != nullptr ||
                     JsonReader::field(*value, "balancer") != nullptr;
  if (spec.etcd.model == EtcdModel::ideal && tuned) {
    r.error(path, "\"topology\" and \"balancer\" describe etcd members, but the model is "
                  "\"ideal\"; set \"model\": \"raft\" (with an \"etcd\" section), or remove them");
  }
  if (spec.etcd.model == EtcdModel::raft && !c.has(EtcdSpec::kSection)) {
    r.error(JsonReader::key_path(path, "model"),
            "the \"raft\" model stands on the members of an \"etcd\" section, and the file has "
            "none; add one, e.g. \"etcd\": {\"members\": [the control-plane nodes]}");
  }
}

// Once everything is read: the members and the control-plane nodes fit the topology.
void cross_check_cp_etcd(Context& c) {
  const ControlPlaneSpec* cp = c.scenario.section<ControlPlaneSpec>();
  const EtcdSpec* etcd = c.scenario.section<EtcdSpec>();
  if (cp == nullptr || etcd == nullptr || cp->etcd.model != EtcdModel::raft) return;
  JsonReader& r = c.reader;
  const std::set<std::string> members(etcd->members.begin(), etcd->members.end());
  const std::set<std::string> nodes(cp->nodes.begin(), cp->nodes.end());
  if (cp->etcd.topology == EtcdTopology::stacked && members != nodes) {
    r.error("$.etcd.members",
            "a stacked etcd has one member on each control-plane node, but the members are " +
                joined(etcd->members) + " and the control-plane nodes " + joined(cp->nodes) +
                "; set \"members\": " + joined(cp->nodes) +
                ", or \"controlPlane\": {\"etcd\": {\"topology\": \"external\"}}");
  }
  if (cp->etcd.topology == EtcdTopology::external) {
    for (const std::string& member : etcd->members) {
      if (!nodes.contains(member)) continue;
      r.error("$.etcd.members", "an external etcd runs on nodes of its own, but \"" + member +
                                    "\" is also a control-plane node; list the control-plane "
                                    "nodes in controlPlane.nodes without it, or use "
                                    "\"topology\": \"stacked\"");
      break;
    }
  }
  if (c.has("cloudcore")) {
    r.error("$.controlPlane.etcd.model",
            "CloudCore is modelled over the ideal store only; set \"model\": \"ideal\"");
  }
  const auto* upgrade = c.scenario.section<UpgradeSpec>();
  if (upgrade != nullptr && !upgrade->replacements.empty() &&
      cp->etcd.topology == EtcdTopology::stacked) {
    r.error("$.upgrade.method",
            "replacing machines with stacked etcd members (member add and remove) is not "
            "modelled; use \"method\": \"node\" or \"kubeadm\", or an external etcd");
  }
}

}  // namespace scenario_loader

std::function<std::shared_ptr<api::Store>()> raft_store_factory(const Scenario& scenario,
                                                                 const std::string& node) {
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const EtcdSpec* etcd = scenario.section<EtcdSpec>();
  HASIM_ASSERT(cp.etcd.model == EtcdModel::raft && etcd != nullptr);
  api::RaftStoreConfig config;
  config.apiserver = node + "/" + std::string(kApiServerProcess);
  if (cp.etcd.topology == EtcdTopology::stacked) {
    config.client = api::stacked_etcd_client(node + "/etcd");
  } else {
    std::vector<std::string> endpoints;
    for (const std::string& member : etcd->members) endpoints.push_back(member + "/etcd");
    config.client = api::external_etcd_client(std::move(endpoints));
  }
  config.client.request_timeout = cp.requestTimeout;
  if (cp.etcd.pinned) config.client.balancer = api::EtcdBalancer::pinned;
  return [config] { return std::make_shared<api::RaftStore>(config); };
}

}  // namespace hasim
