#pragma once
// A fault as a sentence for explanations and timelines.
#include <string>

#include "scenarios/scenario.hpp"

namespace hasim {

// "partition isolating cp-1 at 2m for 1m", "pause of cp-1/kube-controller-manager at 2m10s
// for 3.5s".
std::string describe_fault(const FaultSpec& fault);

}  // namespace hasim
