#pragma once
// The etcd config the sidecar serves to etcd-wrapper (pkg/server/httpAPI.go serveConfig):
// `initial-cluster` trimmed to the members that already exist (getInitialCluster), then
// `initial-cluster-state` chosen from that trimmed size and learner presence
// (getClusterState). Pure functions over what the sidecar read from etcd.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hasim::druid::sidecar {

enum class ClusterState { New, Existing };
// The value written into the config ("new" / "existing", miscellaneous.ClusterState*).
std::string_view name(ClusterState state);

// One `name=peerURL` entry of initial-cluster.
struct InitialClusterEntry {
  std::string name;
  std::string peer_url;
  bool operator==(const InitialClusterEntry&) const = default;
};

// getInitialCluster: when MemberList (2 attempts, 2 s apart, within a 5 s context) returns
// more than one member, keep only the entries whose name is a listed member's name or this
// member's own name; otherwise serve the configured list unchanged (first member
// bootstrapping, a single-node cluster, or etcd unreachable). `listed_names` is nullopt when
// the list could not be read. A learner that has not started yet is listed with an empty
// name, so it does not keep its entry.
std::vector<InitialClusterEntry> tailor_initial_cluster(
    const std::vector<InitialClusterEntry>& configured,
    const std::optional<std::vector<std::string>>& listed_names, std::string_view self_name);

// IsLearnerPresent's outcome as getClusterState sees it.
enum class LearnerRead { Present, Absent, Unreadable };

// getClusterState: size 1 -> new; otherwise existing only if a learner is listed. An
// unreadable member list (normal during a fresh parallel bootstrap, when no etcd runs yet)
// also gives new: failing instead would deadlock the bootstrap.
ClusterState get_cluster_state(int cluster_size, LearnerRead learner);

}  // namespace hasim::druid::sidecar
