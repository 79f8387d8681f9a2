// KubeEdge CloudCore hot standby's check half (properties/check_system.hpp): single-serving.
// Its fault choices are the kernel's and the control plane's (crashes, partitions, pauses,
// apiserver faults), which already aim at every process a scenario runs.
#include "properties/cloudcore/check.hpp"

#include "properties/cloudcore/single_serving.hpp"

namespace hasim {
namespace {

std::unique_ptr<Property> single_serving(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<SingleServing>(spec);
}

}  // namespace

const CheckSystem& cloudcore_check_system() {
  static const CheckSystem system{
      "cloudcore",
      {
          {{"single-serving", "",
            "at no instant do two CloudCores serve edge traffic through the load balancer (a "
            "ready Service endpoint or an open edge session)",
            "hot-standby mode; the kubelet restarts an exited CloudCore container"},
           single_serving},
      },
      {},
      nullptr,
      nullptr,
      nullptr,
  };
  return system;
}

}  // namespace hasim
