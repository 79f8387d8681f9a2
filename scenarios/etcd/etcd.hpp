#pragma once
#include <optional>
#include <string>

// The etcd system's scenario glue (scenarios/etcd/system.cpp).
#include "scenarios/etcd/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& etcd_scenario_system();

// The member that leads now ("node/etcd", at the highest term), read from the wiring's
// tracker, for builders outside the etcd system (the upgrade's kubeadm health checks).
std::optional<std::string> current_raft_leader(const EtcdWiring& wiring);

}  // namespace hasim
