#pragma once
// The HTTP calls between the two containers of an etcd-druid pod, over the pod's localhost:
// etcd-wrapper (the etcd container) asks etcd-backup-restore (the sidecar) to initialise the
// data directory and then for etcd's configuration. Upstream: gardener/etcd-wrapper
// internal/brclient/brclient.go (GetInitializationStatus, TriggerInitialization,
// GetEtcdConfig) and etcd-backup-restore pkg/server/httpAPI.go (serveInitializationStatus,
// triggerInitialization, serveConfig). One request and one response message each.
#include <cstdint>
#include <string>
#include <string_view>

#include "models/druid/sidecar_cluster_state.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// httpAPI.go's initialization status strings; brclient parses them into InitStatus.
enum class InitStatus : std::uint8_t { New, Progress, Successful, Failed };
std::string_view name(InitStatus status);

// etcd-wrapper's validation mode (bootstrap.go determineValidationMode): "full" unless the
// last exit was a SIGTERM or an interrupt the wrapper captured, then "sanity".
enum class ValidationMode : std::uint8_t { sanity, full };
std::string_view name(ValidationMode mode);

// GET /initialization/status
struct InitStatusRequest final : MessageBody {
  std::string_view type() const override { return "br-init-status"; }
};
struct InitStatusResponse final : MessageBody {
  std::string_view type() const override { return "br-init-status-response"; }
  InitStatus status = InitStatus::New;
};

// GET /initialization/start?mode=...: starts Initialize in the background, answered at once.
struct InitStartRequest final : MessageBody {
  std::string_view type() const override { return "br-init-start"; }
  ValidationMode mode = ValidationMode::full;
};

// GET /config: etcd's configuration file as the sidecar fills it in. What etcd derives from
// it in hasim: its raft ID (etcd: the member ID it hashes for a new cluster, or finds in the
// existing cluster's member list by its peer URL) and initial-cluster-state.
struct EtcdConfigRequest final : MessageBody {
  std::string_view type() const override { return "br-config"; }
};
struct EtcdConfigResponse final : MessageBody {
  std::string_view type() const override { return "br-config-response"; }
  std::uint64_t member_id = 0;
  sidecar::ClusterState state = sidecar::ClusterState::New;
  // len(--initial-cluster) for a fresh start; 0: the ConfigMap's (proposal init case 7 with no
  // backup starts a one-member cluster of its own peer URL).
  int initial_cluster_size = 0;
};

}  // namespace hasim::druid
