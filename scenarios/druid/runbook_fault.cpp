// Upstream's quorum-loss runbook as an operator action of the etcd-druid system:
//
//   {"at": "8m", "kind": "druid-quorum-loss-runbook", "stepDelay": "30s"}
//
// At "at" an operator starts etcd-druid's docs/usage/recovering-etcd-clusters.md with kubectl
// on druid's node (models/druid/quorum_loss_runbook.hpp); "stepDelay" (default 30 s) passes
// between one command and the next. The scenario says when the operator acts: a study puts
// the delay between the quorum loss and the page being answered there.
#include <algorithm>
#include <memory>

#include "models/druid/etcd_resource.hpp"
#include "models/druid/quorum_loss_runbook.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

constexpr std::string_view kKind = "druid-quorum-loss-runbook";
constexpr Duration kDefaultStepDelay = seconds(30);

void read_runbook(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const bool twice = std::any_of(c.scenario.faults.begin(), c.scenario.faults.end(),
                                 [](const FaultSpec& other) { return other.kind == kKind; });
  if (twice) {
    c.reader.error(path,
                   "one druid-quorum-loss-runbook per scenario: the operator runs it once, "
                   "start to end; remove the second one");
  }
  spec.step = kDefaultStepDelay;
  if (JsonReader::field(f, "stepDelay") != nullptr) {
    (void)scenario_loader::read_duration_field(c.reader, f, path, "stepDelay",
                                               DurationSign::positive, spec.step);
  }
  // An on-call operator (FaultSpec::retry holds it): paged once the Etcd's Ready condition
  // has been False this long, from `at` on; absent: the runbook starts at `at`.
  if (JsonReader::field(f, "afterReadyFalse") != nullptr) {
    (void)scenario_loader::read_duration_field(c.reader, f, path, "afterReadyFalse",
                                               DurationSign::positive, spec.retry);
  }
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid != nullptr) spec.targets = {druid->name};
}

// The operator's dashboard, read every kPagePoll: once druid's Ready condition (as the API
// server holds it) has read False for `after`, the runbook starts. A False that turns True or
// Unknown resets the wait.
constexpr Duration kPagePoll = seconds(30);

struct OnCall {
  World* world = nullptr;
  ProcessId runbook = 0;
  std::shared_ptr<const druid::EtcdResource> etcd;
  Duration after{};
  std::optional<TrueTime> falseSince;
};

void on_call_poll(std::shared_ptr<OnCall> call) {
  World& w = *call->world;
  const TrueTime now = w.now();
  if (call->etcd->status.ready != std::optional<bool>{false}) {
    call->falseSince.reset();
  } else if (!call->falseSince) {
    call->falseSince = now;
  } else if (now.ns - call->falseSince->ns >= call->after.ns) {
    return w.restart(call->runbook);
  }
  w.at(TrueTime{now.ns + kPagePoll.ns}, [call] { on_call_poll(call); });
}

void apply_runbook(World& world, const Scenario&, const FaultSpec& fault, const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && wiring->runbook.has_value());
  World* w = &world;
  const ProcessId process = *wiring->runbook;
  if (fault.retry == Duration{}) {
    world.at(TrueTime{fault.at.ns}, [w, process] { w->restart(process); });
    return;
  }
  auto call = std::make_shared<OnCall>(OnCall{w, process, wiring->etcd, fault.retry, std::nullopt});
  world.at(TrueTime{fault.at.ns}, [call] { on_call_poll(call); });
}

void write_runbook(const FaultSpec& f, Json& out) {
  out["stepDelay"] = format_duration(f.step);
  if (f.retry != Duration{}) out["afterReadyFalse"] = format_duration(f.retry);
}

std::string describe_runbook(const FaultSpec& f) {
  const std::string when = f.retry == Duration{} ? ""
                                                 : " once its Ready condition has been False for " +
                                                       format_duration(f.retry);
  return "an operator runs the quorum-loss runbook on " +
         (f.targets.empty() ? std::string("the Etcd") : "etcd " + f.targets.front()) + ", " +
         format_duration(f.step) + " per step" + when;
}

druid::RunbookHooks runbook_hooks(World& world, const DruidWiring& wiring, int ordinals) {
  druid::RunbookHooks h;
  std::shared_ptr<druid::EtcdResource> etcd = wiring.etcd;
  std::shared_ptr<workloads::StatefulPods> pods = wiring.pods;
  h.suspendSpecReconcile = [etcd](bool on) { etcd->suspendSpecReconcile = on; };
  h.scaleStatefulSet = [pods](int replicas) { pods->scale(replicas); };
  h.podsLeft = [pods, ordinals] {
    int left = 0;
    for (int ordinal = 0; ordinal < ordinals; ++ordinal) left += pods->pod(ordinal) ? 1 : 0;
    return left;
  };
  h.deleteClaims = [pods] { (void)pods->delete_claims(); };
  h.setConfigMapClusterSize = [etcd](int size) { etcd->configMapClusterSize = size; };
  h.podReady = [pods](int ordinal) {
    const auto pod = pods->pod(ordinal);
    return pod.has_value() && pod->ready;
  };
  h.replicas = [etcd] { return static_cast<int>(etcd->replicas); };
  World* w = &world;
  const ProcessId druid = wiring.druid;
  h.requestReconcile = [w, druid] { w->post(druid, std::make_shared<druid::EtcdSpecChanged>()); };
  return h;
}

}  // namespace

FaultKind druid_runbook_fault_kind() {
  return {kKind, read_runbook, apply_runbook, write_runbook, describe_runbook, std::nullopt};
}

KeySet druid_runbook_key_set() {
  return {"fault:" + std::string(kKind), {"at", "kind", "stepDelay", "afterReadyFalse"}};
}

std::optional<ProcessId> add_druid_runbook(World& world, const Scenario& scenario,
                                           const DruidWiring& wiring) {
  const auto runbook = std::find_if(scenario.faults.begin(), scenario.faults.end(),
                                    [](const FaultSpec& f) { return f.kind == kKind; });
  if (runbook == scenario.faults.end()) return std::nullopt;
  const DruidSpec& spec = *scenario.section<DruidSpec>();
  const auto node = world.find_node(druid_node(scenario));
  HASIM_ASSERT(node.has_value());
  druid::QuorumLossRunbookConfig config;
  config.apiserver = druid_in_cluster_client(*scenario.section<ControlPlaneSpec>(), "operator");
  config.namespace_ = spec.namespace_;
  config.etcdName = spec.name;
  config.hooks = runbook_hooks(world, wiring, std::max(spec.replicas, spec.maxReplicas));
  config.stepDelay = runbook->step;
  return world.add_process(
      *node, "kubectl", [config] { return std::make_unique<druid::QuorumLossRunbook>(config); },
      StartPolicy::on_demand);
}

}  // namespace hasim
