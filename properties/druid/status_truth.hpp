#pragma once
// status-truth:BOUND (etcd-druid, issue 17 part 6): the Etcd status druid writes matches
// ground truth within upstream's thresholds.
//
// Ground truth, per member pod (etcd-main-N): its member is *serving* from the moment
// etcd-wrapper starts the embedded etcd (druid-etcd-start, with the member's ID) until that
// process stops (crash, exit, its node down, raft-fatal, etcd-removed), while it is not paused,
// and while its ID is in etcd's configuration (no ConfChangeRemoveNode of it applied; see
// etcd_membership.hpp). A learner is serving. The cluster is *quorate* while more than half
// of the configuration's voters are serving.
//
// What druid says (druid-member-status, druid-condition type Ready; traced on change only,
// so a status holds until the next event about it). Upstream's rules
// (internal/health/etcdmember/check_ready.go, internal/health/condition/check_ready.go,
// api/config/v1alpha1/defaults.go, statefulset/builder.go; reference part C2-C4):
// - a member is Ready while its Lease's renewTime + UnknownThreshold (1m) is not before now,
//   Unknown (or NotReady, ContainersNotReady) after that, NotReady after 1m + 5m;
// - the sidecar renews the Lease every heartbeat period (10s), only after a Status call to
//   its own etcd succeeded; druid recomputes the status every sync period (15s).
// Hence the allowances, each with BOUND for what the rules leave out (apiserver round trips,
// the sidecar's leading loop that starts the renewals, clock skew):
// (a) a member not serving for longer than UnknownThreshold + sync + heartbeat + BOUND
//     (1m25s + BOUND) is not reported Ready: its last renewal is at most a heartbeat after it
//     stopped (a Status answered just before), the Lease turns stale 1m later and druid's next
//     sync sees it within 15s;
// (b) a member serving continuously, in a quorate cluster, for longer than heartbeat + sync +
//     BOUND (25s + BOUND) is reported Ready (not missing, not Unknown or NotReady): the sidecar
//     renews within a heartbeat, druid's next sync reads it (without a quorum its etcd's
//     /readyz fails and the heartbeat stops, so (a) applies to it instead);
// (c) the Ready condition is not True while the cluster has not been quorate for longer than
//     (a)'s allowance, and (d) it is True once the cluster has been quorate for longer than
//     (b)'s: the condition follows the member statuses of the same sync (Ready over quorum of
//     status members, Unknown ones counted).
// With a backup store, BackupReady too (check_backup_ready.go; reference part C4): backups
// *work* from a snapshot the leading sidecar saved (druid-br-snapshot "saved"), or from the
// start of its snapshotter's Run (druid-br-snapshotter "run", after the start-up snapshot), until
// an upload fails, the snapshotter fails (druid-br-snapshotter "failed" or "fatal") or stops (its
// sidecar stops leading, crashes, exits or loses its node). The sidecar renews the delta-snapshot
// Lease after each delta period's snapshot and druid turns BackupReady Unknown once that Lease is
// older than 2 delta periods, so (e) BackupReady is not True once backups have not worked for 2 x
// deltaSnapshotPeriod +
//     sync + BOUND, and (f) it is True once they have worked for deltaSnapshotPeriod + sync +
//     BOUND (the first delta follows the first full snapshot a period later). The period is
//     the one the snapshotter runs with (druid-br-snapshotter "run").
// Each breach is a window from the moment its allowance ran out (or the report that made it,
// if later) until the report or the truth changes; the violation is the earliest window's
// start, with the event that changed the truth and the report. Thresholds are compared
// strictly (Go's Time.Before): exactly at an allowance's end is still allowed.
// `status-truth:30s` holds in scenarios/druid: a bootstrap member serves at 16.7s and is
// reported Ready at 45s (28.3s: the sidecar starts the renewals only once its leading loop,
// polling every 5s, read a status, at 25.7s; its ticker renews first a heartbeat later, 35.7s,
// and druid's sync reads it at 45s).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "properties/druid/etcd_membership.hpp"
#include "properties/druid/etcd_pods.hpp"
#include "properties/property.hpp"

namespace hasim {

class StatusTruth final : public Property {
 public:
  static constexpr Duration kUnknownThreshold = minutes(1);  // DefaultEtcdUnknownThreshold
  static constexpr Duration kSyncPeriod = seconds(15);       // etcd status sync period
  static constexpr Duration kHeartbeat = seconds(10);        // --k8s-heartbeat-duration

  StatusTruth(std::string spec, Duration bound);
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

  // How long druid may keep reporting Ready after the truth turned (a, c), and take to report
  // Ready after it turned (b, d).
  Duration stale_allowance() const { return kUnknownThreshold + kSyncPeriod + kHeartbeat + bound_; }
  Duration fresh_allowance() const { return kHeartbeat + kSyncPeriod + bound_; }
  Duration backup_stale_allowance() const { return deltaPeriod_ * 2 + kSyncPeriod + bound_; }
  Duration backup_fresh_allowance() const { return deltaPeriod_ + kSyncPeriod + bound_; }

 private:
  static constexpr std::size_t kNoWindow = static_cast<std::size_t>(-1);
  // One thing druid claims (a member Ready, the cluster Ready) against its truth.
  struct Claim {
    bool truth = false;
    TrueTime truth_since{};
    std::string truth_cause;  // the event that last changed the truth, described
    bool reported = false;    // druid says Ready / True
    // druid makes no claim: a condition NotChecked (spec.replicas 0), a member absent from
    // status.members (it left the list).
    bool silent = false;
    std::string report;  // its last status ("" if none yet)
    TrueTime reported_since{};
    std::string report_cause;
    std::size_t window = kNoWindow;
  };
  static bool agrees(const Claim& claim);

  struct Breach {
    TrueTime start;
    std::string name;  // the pod, or "" for the Ready condition
    Claim* claim;
  };

  void check_deadlines(TrueTime now);
  std::optional<TrueTime> breach_start(const Claim& claim) const;
  Duration allowance(const Claim& claim) const;
  bool apply_backup(const TraceEvent& event);
  bool stop_backups(const TraceEvent& event);
  std::string describe_backup(const Claim& claim, TrueTime start) const;
  void open_breach(const Breach& breach);
  bool apply(const TraceEvent& event);
  void refresh_truth(const TraceEvent& event);
  std::string describe(const std::string& name, const Claim& claim, TrueTime start) const;
  std::string quorum_text() const;

  Duration bound_;
  druid_props::EtcdMembership membership_;
  druid_props::EtcdPods etcd_;
  std::map<std::string, Claim, std::less<>> claims_;  // by pod: druid's member status
  Claim quorum_;
  Claim backup_;  // BackupReady: silent until druid reports it (the constructor)
  Duration deltaPeriod_{};
  std::string backupPod_;   // the pod whose sidecar saved the last snapshot
  std::string backupNode_;  // and its node then
};

}  // namespace hasim
