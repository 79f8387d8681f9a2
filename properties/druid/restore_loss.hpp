#pragma once
// no-lost-write's etcd-druid half (issue 17 part 6): what a restore from the backup store
// lost, and whether that loss was permitted. The etcd half (properties/etcd_store/
// no_lost_write.hpp) proves the client history linearizable while one cluster serves it; a
// restore (druid-br-restore "restored": etcd-backup-restore's Initialize replayed the
// latest full snapshot and its deltas into a new one-member cluster) ends that cluster, and
// every revision acknowledged to a client above the restored one is gone.
//
// At each restore this half notes, with the figures: the acknowledged revisions lost (the
// highest revision an ok write returned, minus the revision restored), and whether the loss
// was permitted. It was when both hold (the seed's promise for the proposal; etcd's
// disaster-recovery guide for any restore):
//  - a quorum's data was gone: more than half of the old cluster's voters lost their data
//    to a fault since they joined (a volume lost, a disk lost, an emptyDir deleted with its
//    pod); a PVC an operator deleted does not count, since the data was there until the
//    recovery itself threw it away;
//  - the restore reached the last backup: its revision is at least the last revision of
//    any snapshot the store accepted (druid-br-snapshot "saved"), so only what came after
//    the last successful backup is lost.
// A loss that is not permitted is a violation at the restore; a permitted one is a note.
// The voters are followed as druid's status-truth follows them (etcd_membership.hpp); a
// member's data lives on its pod's volume from its first start there (druid-etcd-start).
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "properties/acknowledged_writes.hpp"
#include "properties/druid/etcd_membership.hpp"
#include "properties/property.hpp"

namespace hasim {

class DruidRestoreLoss final : public Property {
 public:
  DruidRestoreLoss(std::string spec, const AcknowledgedWrites& writes);
  static bool reads(std::string_view kind);
  bool wants(std::string_view kind) const override { return reads(kind); }
  void on_event(const TraceEvent& event) override;

  // Restores judged so far: the history half starts over at each.
  std::size_t restores() const { return restores_; }
  std::int64_t backed_up_revision() const { return backedUp_; }

 private:
  struct Member {
    std::string pod;
    TrueTime since;  // its first start on that pod's volume
  };
  void lose_data(const TraceEvent& event);
  void judge_restore(const TraceEvent& event);
  std::string permission(std::size_t lost_to_faults, std::size_t voters, std::int64_t revision,
                         bool& permitted) const;

  const AcknowledgedWrites& writes_;
  druid_props::EtcdMembership membership_;
  std::map<std::uint64_t, Member> members_;                // by member ID
  std::map<std::string, TrueTime, std::less<>> lostData_;  // by pod: its last fault data loss
  std::int64_t backedUp_ = 0;                              // the last revision backed up
  std::size_t restores_ = 0;
};

}  // namespace hasim
