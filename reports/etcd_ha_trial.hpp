#pragma once
// One trial of `hasim report etcd-ha` (issue 17 part 8): an etcd-druid-managed Etcd
// (models/druid/) with backups every 5 minutes and a client writing through its Service,
// under a fault mix drawn for the trial: node failures, zone outages, member data losses,
// backup-store outages and pod deletions, each a Poisson number of events at uniform instants
// of the window, at rates the study's options set. In mode upstream an on-call operator runs
// etcd-druid's quorum-loss runbook once the Etcd's Ready condition has been False for
// --operator-after; the proposal recovers by itself (its case 10) or not at all.
//
// The trial reads the trace: the writer's calls (what a user of the Etcd sees), the restores,
// the runbook, and the no-lost-write property (whether a loss was permitted).
//
// A cell is (storage, mode, members, zones). The control plane (druid, the kube-apiserver)
// and the object store sit outside the workers' zones: a zone outage takes workers only.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/druid/etcd_resource.hpp"
#include "scenarios/druid/spec.hpp"
#include "scenarios/scenario.hpp"
#include "sim/trace.hpp"

namespace hasim {

struct EtcdHaCell {
  DruidStorage storage = DruidStorage::persistent;
  druid::DruidMode mode = druid::DruidMode::upstream;
  int members = 3;
  int zones = 3;
  std::string name() const;  // "persistent/upstream/3/3-zones"
  bool operator==(const EtcdHaCell&) const = default;
};

inline constexpr DruidStorage kEtcdHaStorages[] = {DruidStorage::persistent,
                                                   DruidStorage::emptyDir};
inline constexpr druid::DruidMode kEtcdHaModes[] = {druid::DruidMode::upstream,
                                                    druid::DruidMode::proposal};
std::string_view to_string(DruidStorage storage);   // "persistent", "ephemeral"
std::string_view to_string(druid::DruidMode mode);  // "upstream", "proposal"

// The fault mix: expected events per trial window (Poisson), and how long outages last.
struct EtcdHaSettings {
  Duration window = minutes(30);  // a trial: faults land in [kWarmUp, window - kSettle)
  double nodeFailures = 0.5;      // a worker powers off for nodeDown
  Duration nodeDown = minutes(10);
  double zoneOutages = 0.1;  // every worker of one zone (of the only zone) for zoneDown
  Duration zoneDown = minutes(15);
  double volumeLosses = 0.2;  // one member's data: its PersistentVolume fails, or its pod
                              // (an emptyDir goes with it) is deleted
  double storeOutages = 0.2;  // the backup store is down for storeDown
  Duration storeDown = minutes(15);
  double podDeletions = 0.5;  // kubectl delete pod (an eviction, a rescheduling)
  Duration operatorAfter =
      minutes(10);    // upstream: the runbook once Ready has been False this long
  int writeRate = 2;  // client puts per second
};

inline constexpr Duration kEtcdHaWarmUp = minutes(2);  // bootstrap and the first full snapshot
inline constexpr Duration kEtcdHaSettle =
    minutes(5);  // the last faults land this long before the end
// A write outage at least this long counts as a quorum loss: a leader election takes about a
// second, a member's restart none (the others keep the quorum).
inline constexpr Duration kEtcdHaQuorumLoss = seconds(30);

struct EtcdHaTrial {
  std::int64_t faults = 0;          // fault events drawn
  std::int64_t volumes_lost = 0;    // distinct members whose data a drawn fault took
  bool store_outage = false;        // a backup-store outage was drawn
  bool quorum_lost = false;         // a write outage of at least kEtcdHaQuorumLoss
  Duration unavailable{};           // every write outage together, within the window
  Duration longest_outage{};        // to its end, or to the window's end if still open
  bool recovered = true;            // writes succeed again by the end of the window
  std::int64_t revisions_lost = 0;  // acknowledged revisions gone with restores
  bool loss_not_permitted = false;  // no-lost-write violated
  bool manual = false;              // the operator ran the runbook
  bool operator==(const EtcdHaTrial&) const = default;
};

// The cell's world without faults (every trial adds its own); checked by the loader.
Scenario etcd_ha_study_scenario(const EtcdHaCell& cell, const EtcdHaSettings& settings);

// `watcher` (tests, debugging) also sees the trial's trace.
EtcdHaTrial run_etcd_ha_trial(const Scenario& base, const EtcdHaCell& cell,
                              const EtcdHaSettings& settings, std::uint64_t seed,
                              TraceObserver* watcher = nullptr);

}  // namespace hasim
