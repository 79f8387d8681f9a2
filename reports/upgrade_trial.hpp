#pragma once
// One trial of the upgrade-skew study: a control plane of N nodes at the old version, whose
// KCM and scheduler elect with leases, with Coordinated Leader Election, or as a mixed fleet,
// is upgraded (or rolled back) node by node; the trial measures whether and for how long an
// acting KCM or scheduler leader ran a newer version than some serving kube-apiserver
// (the `no-skew` property), how often leadership changed, and the write load elections put
// on the apiservers (Leases and LeaseCandidates, the KEP's "Risk: amount of writes").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/svg.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

enum class UpgradeDirection { upgrade, rollback };
std::string_view to_string(UpgradeDirection direction);

// What the kube-apiservers stand on: the ideal store (an external etcd that never fails), or
// a stacked 3..9-member etcd (controlPlane.etcd raft/stacked: a member on every
// control-plane node, stopped, upgraded and restarted with it, etcd first).
enum class UpgradeStore { ideal, stacked };
std::string_view to_string(UpgradeStore store);

// One cell of the study's grid.
struct UpgradeCell {
  ElectionMode mode = ElectionMode::lease;
  UpgradeDirection direction = UpgradeDirection::upgrade;
  int nodes = 3;
  // How the upgrade is done (models/cluster/upgrade_methods.hpp); last, so cells of the node
  // method order and compare as they did before methods were a dimension.
  UpgradeSpec::Method method = UpgradeSpec::Method::node;
  // Last too: cells of the ideal store order and compare as before stores were a dimension.
  UpgradeStore store = UpgradeStore::ideal;
  auto operator<=>(const UpgradeCell&) const = default;
};
// "lease/upgrade/3", and "lease/upgrade/3/kubeadm" for another method than node; a stacked
// etcd adds "/stacked-etcd".
std::string describe(const UpgradeCell& cell);
// "lease", or "lease (kubeadm)" for another method than node (", stacked etcd" added for
// that store): a cell's mode in a chart.
std::string mode_label(const UpgradeCell& cell);

struct UpgradeSettings {
  std::string old_version = "1.31.0";
  std::string new_version = "1.32.0";
  UpgradeSpec upgrade;  // timings; `to` and `at` are set per trial from the cell
  // client-go defaults for KCM and the scheduler.
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
  // How long a trial runs after the last node's components started, so that leadership
  // settles and late violations are seen.
  Duration settle = minutes(1);
};

struct UpgradeTrial {
  bool violated = false;      // no-skew failed at least once
  bool kcm_violated = false;  // ... by the kube-controller-manager leader (the KEP's figure)
  Duration violation_time{};  // total time some acting leader was too new
  std::optional<Duration> first_violation;  // from the upgrade's start to the first violation
  std::uint64_t leader_changes = 0;         // acting-start events of KCM and scheduler during it
  std::uint64_t lease_writes = 0;           // writes accepted on Lease objects during it
  std::uint64_t candidate_writes = 0;       // ... on LeaseCandidate objects
  Duration upgrade_duration{};              // first node stopped .. last component started
  bool leaders_at_end = false;              // both components had an acting leader at the end
};

// The scenario of one cell (timings drawn per trial from the seed).
Scenario upgrade_scenario(const UpgradeSettings& settings, const UpgradeCell& cell);

UpgradeTrial run_upgrade_trial(const Scenario& scenario, std::uint64_t seed);

// The same run, drawn as swimlanes: per node, its kube-apiserver's version over time, and
// the KCM and scheduler leaders (which node, which version), with markers where the
// upgrade stopped and started components and where no-skew was violated.
struct UpgradeTimeline {
  std::vector<TimelineLane> lanes;
  TrueTime start{};
  TrueTime end{};
};
UpgradeTimeline upgrade_timeline(const Scenario& scenario, std::uint64_t seed);

}  // namespace hasim
