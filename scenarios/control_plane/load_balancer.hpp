#pragma once
// The control plane's load balancer: its view of the kube-apiservers (made before the
// components, which hold it) and its periodic health checks (load_balancer.cpp).
#include "scenarios/control_plane/control_plane.hpp"

namespace hasim {

// Sets wiring.balancer when controlPlane.access is "loadBalancer" with health checks on.
void add_load_balancer(const ControlPlaneSpec& cp, ControlPlaneWiring& wiring);
// Runs the checks every interval from the start; nothing without a balancer.
void start_health_checks(World& world, const ControlPlaneWiring& wiring);

}  // namespace hasim
