#pragma once
// Small rules druid applies to an Etcd's spec: the PodDisruptionBudget it derives
// (internal/component/poddistruptionbudget/poddisruptionbudget.go), the API server's CEL rule
// on spec.replicas (api/core/v1alpha1/etcd.go), and the names of member Leases and pods
// (api/core/v1alpha1/helper.go; internal/health/etcdmember/check_ready.go).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hasim::druid {

// PDB spec.minAvailable: a majority for a multi-member cluster; 0 for one member (the PDB
// still exists but never blocks an eviction, so a single-node etcd can always be drained).
std::int32_t pdb_min_available(std::int32_t replicas);

// The annotation on the Etcd that sets the PDB's unhealthyPodEvictionPolicy.
inline constexpr std::string_view kAllowUnhealthyPodEvictionAnnotation =
    "resources.druid.gardener.cloud/allow-unhealthy-pod-eviction";

// policy/v1 UnhealthyPodEvictionPolicyType; druid only ever sets AlwaysAllow.
enum class UnhealthyPodEvictionPolicy { kAlwaysAllow };
std::string_view name(UnhealthyPodEvictionPolicy policy);

// Only the annotation's presence matters (its value is ignored); without it the policy is
// unset, i.e. Kubernetes' default (IfHealthyBudget).
std::optional<UnhealthyPodEvictionPolicy> unhealthy_pod_eviction_policy(bool has_annotation);

// The transition rule on spec.replicas, checked on update only (a create is not checked
// against an old value): 0 is always accepted (hibernation); otherwise the new value must not
// be below the old. Waking from 0 to any size is therefore accepted, even a smaller one than
// before hibernation.
bool replicas_update_allowed(std::int32_t old_replicas, std::int32_t new_replicas);

// GetMemberName: "<prefix>-<podName>" with a non-empty memberNamePrefix, else the pod name.
std::string member_name(std::string_view member_name_prefix, std::string_view pod_name);

// GetMemberLeaseNames: one per ordinal 0..replicas-1 of pod "<etcd>-<ordinal>".
std::vector<std::string> member_lease_names(std::string_view etcd_name,
                                            std::string_view member_name_prefix,
                                            std::int32_t replicas);

// podNameFromLeaseName: strips "<prefix>-" when a prefix is set and present.
std::string pod_name_from_lease_name(std::string_view lease_name,
                                     std::string_view member_name_prefix);

}  // namespace hasim::druid
