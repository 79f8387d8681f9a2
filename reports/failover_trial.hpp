#pragma once
// One trial of the failover study: three control-plane nodes electing with the given
// LD/RD/RP; at a random instant after the first minute, the kube-controller-manager leader
// is hit by a crash, a partition of its node, or a pause; the trial measures how long the
// cluster goes without a working leader (until another process acts as leader, or the
// paused one resumes) and whether two leaders acted at once.
#include <cstdint>
#include <string_view>

#include "scenarios/control_plane/spec.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

enum class FailoverFault { crash, partition, pause };
std::string_view to_string(FailoverFault fault);
inline constexpr FailoverFault kFailoverFaults[] = {FailoverFault::crash, FailoverFault::partition,
                                                    FailoverFault::pause};

struct FailoverSettings {
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
  Duration pause = seconds(20);      // how long the leader is paused
  Duration partition = seconds(60);  // how long the leader's node is cut off
};

struct FailoverTrial {
  bool recovered = false;    // a working leader came back within the horizon
  Duration unavailable{};    // from the fault until a working leader (if recovered)
  bool dual_leader = false;  // single-leader was violated
  bool harmful = false;      // ... with both leaders writing
};

// The control plane the trials run (three nodes, lognormal 1ms/10ms latency).
Scenario failover_scenario(const FailoverSettings& settings);

FailoverTrial run_failover_trial(const Scenario& scenario, const FailoverSettings& settings,
                                 FailoverFault fault, std::uint64_t seed);

}  // namespace hasim
