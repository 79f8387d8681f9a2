#pragma once
// How readiness is decided around a CloudCore pod, as pure functions a unit test drives:
//  - pod readiness, as the kubelet's status manager and the endpoints controller decide it
//    (KEP-580 pod readiness gates): Ready = every container ready AND every condition named in
//    spec.readinessGates present with status "True" (k8s pkg/kubelet/status/generate.go
//    GeneratePodReadyCondition); a Service endpoint is ready exactly when its pod is Ready
//    (pkg/controller/endpoint: podutil.IsPodReady);
//  - /readyz, as CloudCore's ReadyzAdaptor computes it (KE@v1.5.0:cloud/pkg/leaderelection/
//    readyzadaptor.go): not ready without an elector, when not the leader, or when the leader
//    has not renewed for leaseDuration + timeout (client-go LeaderElector.Check).
#include <optional>
#include <string>

#include "models/apiserver/object.hpp"
#include "models/election/leader_elector.hpp"

namespace hasim::cloudcore {

// The readiness gate CloudCore's HA Deployment declares and CloudCore patches
// (KE@v1.5.0:build/cloud/ha/03-ha-deployment.yaml.example).
inline constexpr std::string_view kLeaderGate = "kubeedge.io/CloudCoreIsLeader";
inline constexpr std::string_view kConditionTrue = "True";
inline constexpr std::string_view kConditionFalse = "False";

// nullopt when the pod is Ready; otherwise why not ("containers not ready", or the first gate
// whose condition is not True, in spec order, e.g. "kubeedge.io/CloudCoreIsLeader is False").
std::optional<std::string> pod_not_ready(const api::Object& pod, bool containers_ready);

// ReadyzAdaptor.Check: nullopt (HTTP 200) or the error the handler answers with 404.
std::optional<std::string> readyz_check(const election::LeaderElector* elector, Env& env,
                                        Duration timeout);

}  // namespace hasim::cloudcore
