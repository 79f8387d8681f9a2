#pragma once
// skew-policy: the Kubernetes version-skew policy
// (https://kubernetes.io/releases/version-skew-policy/) over the components' binary versions,
// at every instant of true time, beside KEP-4355's no-skew (which judges only acting
// leaders, by emulation version):
//  - kube-apiserver: "the newest and oldest kube-apiserver instances must be within one
//    minor version" (of the serving ones);
//  - kube-controller-manager, kube-scheduler: "must not be newer than the kube-apiserver
//    instances they communicate with ... may be up to one minor version older": every
//    running one, leader or not (a follower's elector talks to the apiserver too), against
//    every serving kube-apiserver it may send requests to: its own node's (kubeadm points
//    them at the local endpoint), or, behind a load balancer, every one in its list;
//  - compatibility versions (KEP-4330): no component emulates a version above its binary's;
//  - what the election controller ranks by (KEP-4355): a LeaseCandidate, as its component
//    creates or renews it, publishes that component's binary and emulation versions
//    (client-go tools/leaderelection/leasecandidate.go NewCandidate takes both from the
//    component), else the controller ranks a version that does not run.
//
// From the trace: component-start {component, version, emulation, apiservers, identity}, and
// each LeaseCandidate's lease-write {binary, emulation}, named by its identity; until the
// process's exit or crash (node-down and disk-loss crash it). "apiservers" is traced only
// behind a load balancer; without it a controller talks to its own node's kube-apiserver.
// Stops at the first violation, which names both components and their versions.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/election/semver.hpp"
#include "properties/property.hpp"

namespace hasim {

class SkewPolicy final : public Property {
 public:
  explicit SkewPolicy(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  struct Running {
    std::string component;  // "kube-apiserver", "kube-controller-manager", ...
    std::string version;    // binary
    std::string emulation;  // "" when it emulates its binary version
    election::SemVer binary;
    std::vector<std::string> apiservers;  // "node/kube-apiserver" it may talk to
    std::string cause;                    // its component-start, described
    std::string identity;                 // its elector's, "" if it has none
  };
  struct Finding {
    std::string detail;
    std::vector<std::string> causes;
  };
  // The first rule `process` breaks against what runs now, or nullopt.
  std::optional<Finding> check(const std::string& process, const Running& r) const;
  std::optional<Finding> check_apiserver(const std::string& process, const Running& r) const;
  std::optional<Finding> check_client(const std::string& process, const Running& r) const;
  void maybe_close_window(TrueTime now);
  void check_candidate(const TraceEvent& event);

  std::map<std::string, Running> running_;  // by process, "node/proc"
  TrueTime last_seen_{};
  std::optional<std::size_t> window_;  // open while some running component breaks a rule
};

}  // namespace hasim
