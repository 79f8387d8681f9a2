#pragma once
// etcd's member list as applied, followed from the trace for the druid properties
// (status-truth, no-superfluous-members). etcd has no event that lists the cluster, so the
// monitor rebuilds it:
// - the bootstrap: the first etcd that starts with initial-cluster-state "new"
//   (druid-etcd-start state=new) starts the cluster druid's StatefulSet describes, members
//   1..N with N the StatefulSet's first spec.replicas (sts-replicas): the backup-restore
//   sidecar serves ordinal + 1 as a bootstrap member's ID (models/druid/backup_restore*, as
//   etcd derives the ID from the initial cluster; upstream's IDs are hashes of the same).
// - every etcd-conf-change after it (etcd-io/raft confchange/confchange.go as etcd's
//   membership applies it, server/etcdserver/api/membership/cluster.go): AddNode makes a
//   voter (also a learner's promotion), AddLearnerNode a learner, RemoveNode drops one.
// Each member traces every change it applies, so each change arrives once per member, the
// laggards' late. Applying them is made idempotent and order-safe by one fact etcd keeps: a
// removed ID never comes back (cluster.go IsIDRemoved refuses it), so a change to a removed
// ID, or a learner add for an existing voter, is a late copy and changes nothing.
// - a restore from the backup store (druid-br-restore "restored"): the member's data
//   directory now holds a new one-member cluster; every other ID of the old one is gone.
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "sim/trace.hpp"

namespace hasim::druid_props {

class EtcdMembership {
 public:
  // The kinds on_event looks at.
  static bool wants(std::string_view kind);
  // Feeds one event; true if the applied configuration changed.
  bool on_event(const TraceEvent& event);

  bool bootstrapped() const { return bootstrapped_; }
  const std::set<std::uint64_t>& voters() const { return voters_; }
  const std::set<std::uint64_t>& learners() const { return learners_; }
  // Voters and learners: what `etcdctl member list` shows.
  std::set<std::uint64_t> members() const;
  bool removed(std::uint64_t id) const { return removed_.contains(id); }
  bool is_voter(std::uint64_t id) const { return voters_.contains(id); }

 private:
  bool apply_conf_change(std::string_view type, std::uint64_t node);
  bool restore(std::uint64_t member);

  std::optional<std::int64_t> first_replicas_;
  bool bootstrapped_ = false;
  std::set<std::uint64_t> voters_;
  std::set<std::uint64_t> learners_;
  std::set<std::uint64_t> removed_;
};

// A field that models write either as text or as a number ("id" of druid-member-status is
// text, "member" of druid-etcd-start a number), as text; "" if absent.
std::string field_text(const TraceEvent& event, std::string_view key);
// "etcd-main-1" from "etcd-main-1.etcd" (etcd-wrapper's process, named after its pod,
// scenarios/druid/build.cpp); "" for any other process.
std::string_view etcd_pod_of(std::string_view process);
// "etcd-main-1" from "etcd-main-1.backup-restore" (the sidecar's process); "" otherwise.
std::string_view sidecar_pod_of(std::string_view process);

}  // namespace hasim::druid_props
