#pragma once
// The lock identity control-plane components use: "<hostname>_<uuid>" (KCM, the scheduler
// and kube-apiserver's RunWithLeaderElection append a random UUID so a restarted process is a
// new candidate). The UUID comes from the process's random stream, so it is deterministic
// per seed.
#include <string>

#include "sim/rng.hpp"

namespace hasim::election {

std::string lock_identity(const std::string& hostname, Rng& rng);

}  // namespace hasim::election
