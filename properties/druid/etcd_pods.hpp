#pragma once
// Which etcd-druid pods run a serving etcd member, followed from the trace for the druid
// properties (status-truth, pdb-safe). A pod's member serves from the moment etcd-wrapper
// starts the embedded etcd (druid-etcd-start, with the member's ID) until that process stops
// (crash, exit, its node down, raft-fatal, etcd-removed), while it is not paused, and while its
// ID is in etcd's configuration (etcd_membership.hpp: no ConfChangeRemoveNode of it applied).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "properties/druid/etcd_membership.hpp"
#include "sim/trace.hpp"

namespace hasim::druid_props {

class EtcdPods {
 public:
  struct Pod {
    std::string node;  // where its etcd runs
    std::uint64_t id = 0;
    bool running = false;
    bool paused = false;
  };
  // The kinds on_event looks at (besides the membership's).
  static bool wants(std::string_view kind);
  // Feeds one event; true if a pod's etcd started, stopped, paused or resumed.
  bool on_event(const TraceEvent& event);

  const std::map<std::string, Pod, std::less<>>& pods() const { return pods_; }
  const Pod* find(std::string_view pod) const;
  bool serving(const Pod& pod, const EtcdMembership& membership) const {
    return pod.running && !pod.paused && pod.id != 0 && !membership.removed(pod.id);
  }
  // The configuration's voters whose pod serves.
  std::size_t serving_voters(const EtcdMembership& membership) const;

 private:
  std::map<std::string, Pod, std::less<>> pods_;
};

}  // namespace hasim::druid_props
