#include "models/druid/sidecar_cluster_state.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

std::string_view name(ClusterState state) {
  return state == ClusterState::New ? "new" : "existing";
}

std::vector<InitialClusterEntry> tailor_initial_cluster(
    const std::vector<InitialClusterEntry>& configured,
    const std::optional<std::vector<std::string>>& listed_names, std::string_view self_name) {
  HASIM_ASSERT(!configured.empty());
  // Upstream slices off a trailing comma of the joined result, which panics if nothing is
  // kept; this member is always in its own initial-cluster, so something always is.
  const bool self_configured =
      std::any_of(configured.begin(), configured.end(),
                  [&](const InitialClusterEntry& e) { return e.name == self_name; });
  HASIM_ASSERT(self_configured);
  if (!listed_names.has_value() || listed_names->size() <= 1) return configured;
  std::vector<InitialClusterEntry> kept;
  for (const InitialClusterEntry& entry : configured) {  // bounded by the configured list
    const bool listed =
        std::find(listed_names->begin(), listed_names->end(), entry.name) != listed_names->end();
    if (listed || entry.name == self_name) kept.push_back(entry);
  }
  HASIM_ASSERT(!kept.empty() && kept.size() <= configured.size());
  return kept;
}

ClusterState get_cluster_state(int cluster_size, LearnerRead learner) {
  HASIM_ASSERT(cluster_size >= 1);
  if (cluster_size == 1) return ClusterState::New;
  return learner == LearnerRead::Present ? ClusterState::Existing : ClusterState::New;
}

}  // namespace hasim::druid::sidecar
