#pragma once
// The health a load balancer in front of the kube-apiservers keeps of each backend, as
// haproxy does it for kubeadm's high-availability guide (docs: kubeadm ha-considerations,
// "option httpchk" on every server with "check"): each check passes or fails; a backend that
// is up goes down after `fall` failed checks in a row, one that is down comes back after
// `rise` passed checks in a row, and every backend starts up (haproxy's defaults: inter 2s,
// fall 3, rise 2). New connections go only to backends that are up; a connection already open
// stays on its backend (haproxy keeps established sessions unless on-marked-down says
// otherwise). A pure unit: whoever runs the checks feeds observe().
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::api {

struct HealthCheckConfig {
  Duration interval = seconds(2);  // haproxy "inter"
  int fall = 3;
  int rise = 2;
};

class LoadBalancerHealth {
 public:
  LoadBalancerHealth(std::vector<std::string> backends, HealthCheckConfig config);

  // One check of `backend`; the backend's new state (true: up) if this check changed it.
  std::optional<bool> observe(std::size_t backend, bool passed);
  bool up(std::size_t backend) const { return backends_.at(backend).up; }
  // The backend named `name` ("node/kube-apiserver"), if the balancer has it.
  std::optional<std::size_t> find(std::string_view name) const;
  std::size_t size() const { return backends_.size(); }
  const std::string& name(std::size_t backend) const { return backends_.at(backend).name; }
  const HealthCheckConfig& config() const { return config_; }

 private:
  struct Backend {
    std::string name;
    bool up = true;
    int streak = 0;  // checks in a row that disagree with `up`
  };
  HealthCheckConfig config_;
  std::vector<Backend> backends_;
};

}  // namespace hasim::api
