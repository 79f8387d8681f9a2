#pragma once
// pdb-safe (etcd-druid, issue 17 part 6): no voluntary eviction breaks etcd's quorum. druid
// guards the members with a PodDisruptionBudget of minAvailable n/2+1 (poddisruptionbudget.go),
// and the eviction subresource (kubectl drain, the cluster autoscaler, node upgrades) deletes a
// pod only while the budget allows a disruption. The budget counts Ready pods, which is not
// the same as serving etcd members: a readiness probe is up to failureThreshold x period
// (25s for druid's etcd container) behind a member that stopped.
//
// At each eviction the API server granted (pod-eviction with any outcome but 429),
// ground truth (etcd_pods.hpp): the voters of etcd's configuration whose pod serves. The
// eviction breaks quorum when more than half of the voters served before it and no more than
// half would without the evicted pod's member. A cluster already without quorum, or an evicted
// pod whose member did not serve (or is a learner), takes nothing away. The violation names the
// pod, its member, the voters serving before and after, and the budget's answer.
#include <string>

#include "properties/druid/etcd_membership.hpp"
#include "properties/druid/etcd_pods.hpp"
#include "properties/property.hpp"

namespace hasim {

class PdbSafe final : public Property {
 public:
  explicit PdbSafe(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  void judge(const TraceEvent& eviction);

  druid_props::EtcdMembership membership_;
  druid_props::EtcdPods etcd_;
};

}  // namespace hasim
