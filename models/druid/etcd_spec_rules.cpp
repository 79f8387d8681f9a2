#include "models/druid/etcd_spec_rules.hpp"

#include "sim/assert.hpp"

namespace hasim::druid {

std::int32_t pdb_min_available(std::int32_t replicas) {
  HASIM_ASSERT(replicas >= 0);
  // computePDBMinAvailable: integer division, so 2 members need both and 4 need 3.
  const std::int32_t min_available = replicas <= 1 ? 0 : replicas / 2 + 1;
  HASIM_ASSERT(min_available <= replicas);
  return min_available;
}

std::string_view name(UnhealthyPodEvictionPolicy policy) {
  switch (policy) {
    case UnhealthyPodEvictionPolicy::kAlwaysAllow:
      return "AlwaysAllow";
  }
  HASIM_ASSERT(false);
}

std::optional<UnhealthyPodEvictionPolicy> unhealthy_pod_eviction_policy(bool has_annotation) {
  if (has_annotation) return UnhealthyPodEvictionPolicy::kAlwaysAllow;
  return std::nullopt;
}

bool replicas_update_allowed(std::int32_t old_replicas, std::int32_t new_replicas) {
  HASIM_ASSERT(old_replicas >= 0);
  // `self == 0 ? true : self < oldSelf ? false : true`
  if (new_replicas == 0) return true;
  return new_replicas >= old_replicas;
}

std::string member_name(std::string_view member_name_prefix, std::string_view pod_name) {
  if (member_name_prefix.empty()) return std::string(pod_name);
  return std::string(member_name_prefix) + "-" + std::string(pod_name);
}

std::vector<std::string> member_lease_names(std::string_view etcd_name,
                                            std::string_view member_name_prefix,
                                            std::int32_t replicas) {
  HASIM_ASSERT(replicas >= 0 && !etcd_name.empty());
  std::vector<std::string> names;
  for (std::int32_t ordinal = 0; ordinal < replicas; ++ordinal) {
    const std::string pod = std::string(etcd_name) + "-" + std::to_string(ordinal);
    names.push_back(member_name(member_name_prefix, pod));
  }
  HASIM_ASSERT(names.size() == static_cast<std::size_t>(replicas));
  return names;
}

std::string pod_name_from_lease_name(std::string_view lease_name,
                                     std::string_view member_name_prefix) {
  if (member_name_prefix.empty()) return std::string(lease_name);
  const std::string prefix = std::string(member_name_prefix) + "-";
  if (lease_name.starts_with(prefix)) return std::string(lease_name.substr(prefix.size()));
  return std::string(lease_name);
}

}  // namespace hasim::druid
