// The upgrade orchestrator's check half (properties/check_system.hpp): the no-skew property
// and `hasim check`'s upgrade-timing choice, which redraws the upgrade's start, order,
// downtime, gap, start jitter, canary and stop mode instead of adding a fault.
#include "properties/upgrade_orchestrator/check.hpp"

#include <rapidcheck.h>

#include "models/cluster/upgrade_spec.hpp"
#include "properties/no_skew.hpp"
#include "properties/rollout_capacity.hpp"
#include "properties/skew_policy.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// The upgrade as the scenario has it, for its timings to be redrawn.
struct UpgradeSpace {
  static constexpr std::string_view kSection = "upgrade";
  UpgradeSpec upgrade;
};

void fill_space(const Scenario& scenario, FaultSpace& space) {
  const UpgradeSpec* upgrade = scenario.section<UpgradeSpec>();
  if (upgrade == nullptr) return;
  space.facts.set(UpgradeSpace{*upgrade});
  // A replacement machine does not exist before the rollout creates it: a drawn fault that
  // ended by powering it on would boot a machine nobody created. Its faults are not drawn.
  // (space.processes are filled from the hosts afterwards.)
  for (const std::string& node : upgrade->replacements) std::erase(space.hosts, node);
}

// Faults that stop a kube-apiserver: what rollout-capacity assumes away.
bool stops_apiservers(std::string_view kind) {
  return kind == "crash" || kind == "node-down" || kind == "disk-loss" || kind == "pod-delete" ||
         kind == "terminate";
}

bool rollout_capacity_checked(const Scenario& scenario) {
  const UpgradeSpec* upgrade = scenario.section<UpgradeSpec>();
  return upgrade != nullptr && upgrade->method == UpgradeSpec::Method::replace &&
         names_property(scenario, "rollout-capacity");
}

bool forbids(const Scenario& scenario, const FaultSpace&, const FaultChoiceDef& choice) {
  return rollout_capacity_checked(scenario) && stops_apiservers(choice.name);
}

void broken(const Scenario& scenario, std::vector<std::string>& out) {
  if (!rollout_capacity_checked(scenario)) return;
  for (const FaultSpec& fault : scenario.faults) {
    if (!stops_apiservers(fault.kind)) continue;
    out.push_back("a " + fault.kind + " fault at " + format_duration(fault.at) +
                  " may stop a kube-apiserver, which rollout-capacity assumes no fault does");
    return;
  }
}

bool has_upgrade(const FaultSpace& space) { return space.facts.get<UpgradeSpace>() != nullptr; }

void redraw(const FaultSpace& space, Schedule& schedule) {
  const UpgradeSpace* facts = space.facts.get<UpgradeSpace>();
  HASIM_ASSERT(facts != nullptr);
  UpgradeSpec u = facts->upgrade;
  u.at = draw_duration(Duration{}, space.duration / 4);
  u.order.clear();
  u.randomOrder = *rc::gen::inRange(0, 3) == 0;
  u.downtime = DurationDistribution::constant(draw_duration(seconds(1), minutes(2)));
  u.gap = DurationDistribution::constant(draw_duration(Duration{}, seconds(90)));
  const Duration jitter = draw_duration(Duration{}, seconds(30));
  u.startJitter = DurationDistribution::uniform(Duration{}, jitter);
  u.canary = *rc::gen::arbitrary<bool>() ? draw_duration(Duration{}, minutes(2)) : Duration{};
  u.stop =
      *rc::gen::inRange(0, 4) == 0 ? UpgradeSpec::Stop::power_off : UpgradeSpec::Stop::terminate;
  // The same draws for every method (the node method's searches stay as they were), then
  // what a method does not take is put back: kubeadm never powers a node off; Cluster API
  // picks the machines itself, and a replacement's provisioning stands for the downtime.
  if (u.method == UpgradeSpec::Method::kubeadm) u.stop = UpgradeSpec::Stop::terminate;
  if (u.method == UpgradeSpec::Method::replace) {
    u.randomOrder = false;
    u.provision = u.downtime;
  }
  schedule.redraws.push_back(Redraw{"upgrade-timing", u});
}

const UpgradeSpec& upgrade_of(const std::any& value) {
  const UpgradeSpec* u = std::any_cast<UpgradeSpec>(&value);
  HASIM_ASSERT(u != nullptr);
  return *u;
}

std::string describe_timing(const std::any& value) {
  const UpgradeSpec& u = upgrade_of(value);
  if (u.method == UpgradeSpec::Method::replace) {
    return "upgrade timing (replace): start at " + format_duration(u.at) + ", provision " +
           u.provision.describe() + ", gap " + u.gap.describe() + ", canary " +
           format_duration(u.canary) + ", stop by " +
           (u.stop == UpgradeSpec::Stop::terminate ? "SIGTERM" : "power-off");
  }
  return std::string(u.method == UpgradeSpec::Method::kubeadm ? "upgrade timing (kubeadm)"
                                                              : "upgrade timing") +
         ": start at " + format_duration(u.at) + ", order " +
         (u.randomOrder ? "random" : "sequential") + ", downtime " + u.downtime.describe() +
         ", gap " + u.gap.describe() + ", start jitter " + u.startJitter.describe() +
         ", canary " + format_duration(u.canary) + ", stop by " +
         (u.stop == UpgradeSpec::Stop::terminate ? "SIGTERM" : "power-off");
}

const RedrawOps kTimingOps{
    [](const std::any& value, Scenario& scenario) { scenario.sections.set(upgrade_of(value)); },
    describe_timing,
    [](const std::any& value, Json& scenario) {
      write_upgrade_timing(upgrade_of(value), scenario["upgrade"]);
    },
    [](const std::any& value) { return upgrade_of(value).at; },
    [](std::any& value, Duration at) { std::any_cast<UpgradeSpec&>(value).at = at; },
};

std::unique_ptr<Property> no_skew(const std::string& spec, std::optional<Duration> bound) {
  return std::make_unique<NoSkew>(spec, bound);
}

std::unique_ptr<Property> skew_policy(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<SkewPolicy>(spec);
}

std::unique_ptr<Property> rollout_capacity(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<RolloutCapacity>(spec);
}

}  // namespace

const CheckSystem& upgrade_check_system() {
  static const CheckSystem system{
      "upgrade-orchestrator",
      {
          {{"no-skew", "[BOUND]",
            "at no instant of true time does an acting kube-controller-manager or kube-scheduler "
            "leader run a newer (emulation) version than some serving kube-apiserver (the "
            "version-skew policy; covers upgrades and rollbacks); every violating interval is "
            "kept, with why the leader was elected. With BOUND, only an interval longer than "
            "BOUND violates: under Coordinated Leader Election, 17s is the window the election "
            "controller promises (a 5s ping round, then the holder's 10s renewDeadline and a "
            "2s retry before it stops acting)",
            "components trace their versions at start; a kube-apiserver serves from its start "
            "until its process stops (a paused or cut-off one still counts as serving)"},
           no_skew},
          {{"skew-policy", "",
            "the Kubernetes version-skew policy by binary version, at every instant: serving "
            "kube-apiservers within one minor of each other; every running "
            "kube-controller-manager and kube-scheduler (leader or not) never newer than a "
            "serving kube-apiserver it may talk to (its node's, or all behind a load "
            "balancer) and at most one minor older; no component emulating a version above "
            "its binary (KEP-4330)",
            "components trace their binary and emulation versions and the apiservers they may "
            "use at start; each runs until its process stops"},
           skew_policy},
          {{"rollout-capacity", "",
            "during a rolling replacement (upgrade method \"replace\": Cluster API's "
            "KubeadmControlPlane with maxSurge 1), from its first new machine to its end, no "
            "fewer kube-apiservers serve than when it began; vacuous for other methods",
            "no fault stops a kube-apiserver during the rollout; a kube-apiserver serves from "
            "its start until its process stops"},
           rollout_capacity},
      },
      {
          {"upgrade-timing", has_upgrade, nullptr, nullptr, false, redraw, &kTimingOps},
      },
      fill_space,
      forbids,
      broken,
  };
  return system;
}

}  // namespace hasim
