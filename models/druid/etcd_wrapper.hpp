#pragma once
// The etcd container of an etcd-druid pod: gardener/etcd-wrapper, which embeds etcd
// (go.etcd.io/etcd/server/v3/embed) instead of exec'ing it. Step by step
// (internal/bootstrap/bootstrap.go Run, internal/app/app.go Start, readycheck.go):
//  1. every second, GET the sidecar's /initialization/status; while it answers New, ask it to
//     start (with the validation mode); until it answers Successful;
//  2. GET /config (up to 5 attempts a second apart; then the container exits and the
//     kubelet restarts it);
//  3. start etcd on that configuration: here an etcd::EtcdMember this process owns, to which
//     it hands every timer, message and disk completion that is not its own;
//  4. meanwhile answer /readyz from the outcome of a linearizable GET of "foo" against its
//     own etcd, queried every 2 s with a 5 s timeout (the druid StatefulSet's readiness
//     probe calls /readyz; the kubelet reads the answer through PodContainers::etcdReady).
// When embedded etcd stops (a removed member stops itself) the wrapper returns and the
// container exits.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/druid/pod_http.hpp"
#include "models/etcd/member.hpp"
#include "models/etcd/periodic_compactor.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// What the containers of one pod share with each other and with the kubelet: who they are,
// and the answer the etcd container's /readyz gives right now.
struct PodContainers {
  std::string pod;  // "etcd-main-0": etcd's member name (--name is the pod name)
  int ordinal = 0;
  ProcessId etcd = 0;           // the etcd container (this wrapper)
  ProcessId backupRestore = 0;  // the sidecar
  bool etcdReady = false;       // the wrapper's last readiness query succeeded
  // The data directory's db fails bbolt's consistency check (the druid-data-corrupt fault):
  // a property of the files on the volume, so it lasts while they do. A full validation
  // reports it (DataDirectoryCorrupt); the sidecar's wipe ends it.
  bool dataCorrupt = false;
};

struct EtcdWrapperConfig {
  std::shared_ptr<PodContainers> pod;
  // etcd's flags as druid's ConfigMap gives them; the member ID and the cluster state come
  // from the sidecar's /config.
  etcd::EtcdConfig etcd;
  // Every ordinal's etcd process and its name, and the ConfigMap's initial-cluster size now:
  // a member bootstrapping a cluster larger than the one hasim built (an Etcd woken from
  // hibernation to more replicas) takes its initial-cluster from the ConfigMap.
  std::vector<ProcessId> ordinalEtcds;
  std::vector<std::string> ordinalNames;
  std::function<int()> clusterSize;
  // --auto-compaction-mode periodic with this --auto-compaction-retention (druid's ConfigMap:
  // 30m, configmap/etcdconfig.go defaultAutoCompactionRetention); none: off.
  std::optional<Duration> autoCompactionRetention;
};

// etcd-wrapper's constants (bootstrap.go, readycheck.go).
inline constexpr Duration kInitPollInterval = seconds(1);    // defaultBackOffBetweenRetries
inline constexpr int kConfigAttempts = 5;                    // defaultBackupRestoreMaxRetries
inline constexpr Duration kReadyQueryInterval = seconds(2);  // etcdQueryInterval
inline constexpr Duration kReadyQueryTimeout = seconds(5);   // etcdGetTimeout

class EtcdWrapper final : public Process {
 public:
  explicit EtcdWrapper(EtcdWrapperConfig config);
  ~EtcdWrapper() override;

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_io(Env& env, const IoCompletion& io) override;
  // etcd's own graceful stop; the wrapper records the signal (its exit-code file, which makes
  // the next start ask for a sanity validation only).
  void on_terminate(Env& env) override;

  // The embedded member, once started (tests).
  const etcd::EtcdMember* member() const { return member_.get(); }

 private:
  enum Timer : std::uint64_t { kPoll, kConfigRetry, kReadyQuery, kReadyTimeout, kCompactor };
  void poll(Env& env);
  void on_status(Env& env, InitStatus status);
  void ask_config(Env& env);
  void start_etcd(Env& env, const EtcdConfigResponse& config);
  bool widen_initial_cluster(Env& env, etcd::EtcdConfig& config, raft::PeerId id, int size);
  void query_ready(Env& env);
  void ready_answer(Env& env, bool ok);
  bool is_mine(const MessageBody& body) const;
  // etcd's periodic compactor, which runs inside etcd (embedded here with it).
  void compactor_wake(Env& env);
  void compactor_answer(Env& env, const etcd::KvResponse& response);

  EtcdWrapperConfig config_;
  TagSpace tags_;
  InitStatus status_ = InitStatus::New;  // the last status read
  int configAttempts_ = 0;
  std::unique_ptr<etcd::EtcdMember> member_;
  std::uint64_t readyQuery_ = 0;  // client_id of the GET in flight, 0: none
  std::uint64_t readyQueries_ = 0;
  std::optional<TimerId> readyTimeout_;
  std::optional<etcd::PeriodicCompactor> compactor_;
  std::uint64_t compactCall_ = 0;     // client_id of the Compact in flight, 0: none
  std::int64_t compactRevision_ = 0;  // its revision
};

// The exit-code file etcd-wrapper writes on a signal (types.DefaultExitCodeFilePath), on the
// data volume here: the next start reads it to choose the validation mode.
inline constexpr std::string_view kExitCodeFile = "exit_code";

// Whether the pod's data volume holds anything of etcd's (the exit-code file aside).
bool has_etcd_data(const Env& env);

}  // namespace hasim::druid
