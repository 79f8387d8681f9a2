#pragma once
// Who plays which raft role, read from the trace of etcd members (models/etcd/trace_kinds.hpp)
// and the kernel's process events: the "raft-leader" fault target (scenarios/etcd/) and the
// eventually-raft-leader property (properties/raft/) read it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sim/trace.hpp"

namespace hasim::etcd {

// Whether a process is an etcd member: "etcd" (a static pod or an etcd node: scenarios/etcd,
// scenarios/stacked) or "<pod>.etcd" (etcd-druid's etcd container, named after its pod since
// the pod moves between nodes: scenarios/druid/build.cpp).
inline bool is_member_process(std::string_view proc) {
  return proc == "etcd" || (proc.size() > 5 && proc.ends_with(".etcd"));
}

class RaftRoles {
 public:
  struct Member {
    bool up = false;  // running: started and not crashed, exited or powered off since
    bool leader = false;
    std::int64_t term = 0;
  };
  void observe(const TraceEvent& event);
  // The kinds observe() reads (TraceObserver::wants for whoever feeds it).
  static bool reads(std::string_view kind);
  // The running member that leads at the highest term ("node/etcd", "w-1/etcd-main-0.etcd"), if
  // any.
  std::optional<std::string> leader() const;
  std::size_t members() const { return members_.size(); }
  std::size_t up() const;
  const std::map<std::string, Member, std::less<>>& all() const { return members_; }

 private:
  std::map<std::string, Member, std::less<>> members_;  // by "node/process"
};

}  // namespace hasim::etcd
