#pragma once
// rollout-capacity: a Cluster API KubeadmControlPlane rollout with maxSurge 1 (the upgrade's
// "replace" method, models/cluster/upgrade_methods.hpp) adds a machine before it removes one,
// so from the rollout's first upgrade-machine-create to its upgrade-done no fewer
// kube-apiservers serve than served when it began. That is the point of a surge: capacity
// never drops during the rollout (scale.go: scale up, wait for preflightChecks, then scale
// down). Vacuous for the other methods, which never create a machine.
//
// From the trace: kube-apiserver component-start until its exit or crash; upgrade-machine-
// create and upgrade-done. Assumes no fault stops a kube-apiserver during the rollout.
#include <set>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class RolloutCapacity final : public Property {
 public:
  explicit RolloutCapacity(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  std::set<std::string> serving_;  // "node/kube-apiserver"
  std::size_t floor_ = 0;          // serving at the rollout's start; 0: not rolling out
  bool done_ = false;
  std::string started_;  // the rollout's first machine-create, described
};

}  // namespace hasim
