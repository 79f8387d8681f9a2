#pragma once
// quorum-recovery:BOUND (issue 13 part 4; the design card's "quorum recovery" invariant).
// Once every fault has healed (FaultsInForce: no partition, pause, downed node or apiserver
// condition in force; crashed processes count as healed, the kubelet restarts them) and a
// quorum of the etcd members runs with its data, within BOUND of true time some member is
// raft leader, some write was accepted (an etcd call that writes ending ok, or an apiserver
// `write` event), and etcd answered every running kube-apiserver (any call ending ok: a
// linearizable read goes through a quorum's ReadIndex; apiservers of non-leaders only read). The
// obligation arms when those conditions start to hold and again whenever the leader is lost while
// they hold; a fault in force suspends it. Etcd's own figure for the leader part is about two
// election timeouts (etcd FAQ, "What is the recommended election timeout"); the writes then need
// the client to fail over to a member that can reach the leader.
//
// When a quorum's data is gone (members whose data directory a disk loss took: their
// process crashed of the disk loss, their node lost every disk, their pod's emptyDir went
// with the pod, their PVC was deleted, or they refused to start, "member N has already been
// bootstrapped"), the cluster cannot regain a quorum by itself: raft needs a majority that
// remembers the log (Raft thesis, section 4.2.1). A window opens then; unless a restore
// closes it within BOUND (automation: etcd-backup-restore restoring a lone member from its
// backups), the property is violated at the window's start + BOUND: recovery needs an
// operator (restoring a snapshot into a new cluster, as etcd's disaster-recovery guide and
// etcd-druid's quorum-loss runbook do), with how many acknowledged revisions were lost at
// that point: the highest revision an ok etcd-call-end acknowledged to a client, minus the
// highest revision any member that kept its data holds. What a member holds is its persisted
// log (raft-persist, raft-install, raft-recovered); a log index becomes a revision through
// the members' raft-apply events, which carry the store's revision ("rev") once clients
// have written.
//
// The voters are the members that bootstrapped the cluster (their first raft-recovered
// starts from the bootstrap snapshot, index >= 1); later reconfigurations are not followed.
// Members are "node/etcd" (bound to their node) or etcd-druid's "<pod>.etcd" (the pod and
// its data move between nodes). Only kube-apiservers that call etcd are judged (one over
// hasim's ideal store writes nothing to this etcd).
//
// A restore starts a new cluster: an operator's (etcd-snapshot-restore events,
// models/etcd/snapshot_restore.hpp; its voters are the members restored, each has its data
// again at raft index "index") or etcd-backup-restore's (druid-br-restore: a one-member
// cluster at index 1). The log-to-revision map starts over at the restored revision and a
// window a quorum's data loss opened closes. What an operator's restore lost is reported
// then, as a violation at that instant: every revision acknowledged to a client above the
// snapshot's revision (etcd's recovery guide: writes after the snapshot are gone). What
// etcd-backup-restore's restore lost is no-lost-write's to judge (properties/druid/
// restore_loss.hpp: permitted or not). The highest acknowledged revision then starts again
// from the restored one, which the new cluster's revisions continue.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "models/etcd/raft_roles.hpp"
#include "properties/etcd_store/etcd_calls.hpp"
#include "properties/faults_in_force.hpp"
#include "properties/property.hpp"

namespace hasim {

class QuorumRecovery final : public Property, private EtcdCallSink {
 public:
  QuorumRecovery(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

  // For tests and messages: members holding their data, voters, the store revision the
  // members' surviving data reaches, and the highest one acknowledged to a client.
  std::size_t members_with_data() const;
  std::size_t voters() const;
  std::int64_t surviving_revision() const;
  std::int64_t acknowledged_revision() const { return acked_revision_; }

 private:
  static bool busy_kind(std::string_view kind);
  struct Member {
    bool voter = false;
    bool has_data = false;
    std::int64_t persisted = 0;  // the last log index on its disk
    std::string lost;            // how its data went, described
    std::string process;         // "node/process" where it last ran (for its role)
  };
  enum class Phase : std::uint8_t { idle, waiting, met };

  void invoked(const linearizability::Operation&, const CallOrigin& origin) override {
    etcdClients_.insert(origin.client);
  }
  bool etcd_apiserver(const std::string& name) const { return etcdClients_.contains(name); }
  void ended(const linearizability::Operation& op, const CallOrigin& origin, std::string_view error,
             std::string_view why) override;
  void observe_member(const TraceEvent& event, const std::string& name);
  void observe_apiserver(const TraceEvent& event);
  void lose_data(const std::string& name, std::string how);
  void prune_revisions();
  void step(TrueTime now);
  void check(TrueTime now);
  void report_data_loss(TrueTime now);
  void observe_restore(const TraceEvent& event);
  void observe_druid_restore(const TraceEvent& event);
  void observe_volume(const TraceEvent& event);
  void restored(TrueTime at, const std::string& name, std::int64_t revision, std::int64_t index,
                const std::string& from, bool new_cluster, bool judge_loss);
  void check_data_gone(TrueTime now);
  bool owed() const;
  bool met() const;

  Duration bound_;
  FaultsInForce faults_;
  etcd::RaftRoles roles_;
  EtcdCalls calls_;
  std::map<std::string, Member, std::less<>> members_;   // "node/etcd", or "<pod>.etcd"
  std::map<std::int64_t, std::int64_t> revisions_;       // applied log index -> store revision
  std::map<std::string, bool, std::less<>> apiservers_;  // "node/kube-apiserver" -> running
  bool any_write_ = false;                               // a write was accepted since since_
  std::set<std::string, std::less<>> wrote_;             // apiservers with a write since since_
  // The clients that called etcd: only apiservers among them are judged (an apiserver over
  // hasim's ideal store, as in etcd-druid's scenarios, writes nothing to this etcd).
  std::set<std::string, std::less<>> etcdClients_;
  std::int64_t acked_revision_ = 0;
  std::string acked_by_;  // the call that acknowledged it, described
  Phase phase_ = Phase::idle;
  TrueTime since_{};
  std::optional<std::size_t> overdue_;    // the open window: waiting longer than the bound
  std::optional<std::size_t> data_gone_;  // the open window: a quorum's data is gone
  struct Gone {                           // ... not yet reported: when, what, why
    TrueTime since;
    std::string detail;
    std::vector<std::string> causes;
  };
  std::optional<Gone> gone_;
  std::optional<std::int64_t> cluster_;  // the cluster ID of the last restore
};

// The number of entries an "ents" field lists (models/etcd/trace_entries.hpp: runs
// "TERM:HASH,HASH" separated by spaces), without decoding them.
std::int64_t count_trace_entries(std::string_view ents);

}  // namespace hasim
