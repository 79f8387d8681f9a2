#pragma once
// Upstream's answer to a permanent quorum loss (mode `upstream`): the manual runbook of
// etcd-druid's docs/usage/recovering-etcd-clusters.md, carried out by an operator with
// kubectl. etcd-druid has no automatic recovery (reference part C12: EtcdOpsTask's only
// handler is the on-demand snapshot). The steps, in the document's numbering:
//   01 annotate the Etcd with suspend-etcd-spec-reconcile (and
//      disable-etcd-component-protection, which only lifts a webhook hasim does not model);
//   02 scale the StatefulSet to 0 and wait until no pod is left;
//   03 delete every PVC of the set; 04 delete every member Lease;
//   05 edit the ConfigMap so initial-cluster lists member 0 only;
//   06 scale the StatefulSet to 1; 07 wait until <etcd>-0 is Ready (2/2: its sidecar restored
//      it from the backup store, a one-member cluster with an empty data directory);
//   08 remove the suspend annotation and annotate gardener.cloud/operation=reconcile: druid
//      reconciles (the member Leases again, the ConfigMap for spec.replicas, the set's
//      replicas) and the new members join as learners;
//   09 verify: wait until every member pod is Ready.
// A person types the commands: `stepDelay` passes between one command and the next, and a
// wait polls every `pollPeriod` (kubectl get -w). A wait longer than `waitLimit` ends the
// runbook (the operator escalates); so does a Lease delete that keeps failing.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "models/apiserver/client.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

enum class RunbookStep : std::uint8_t {
  kSuspend,
  kScaleToZero,
  kDeleteClaims,
  kDeleteLeases,
  kEditConfigMap,
  kScaleToOne,
  kResume,
  kDone,
};
// "suspend-reconcile", "scale-to-0", ... as the trace names them.
std::string_view name(RunbookStep step);
// The step after `step` (kDone stays kDone).
RunbookStep next(RunbookStep step);

// What the operator's kubectl reaches that hasim keeps outside the API server (the Etcd's
// annotations and ConfigMap, the StatefulSet and its claims: etcd_resource.hpp,
// scenarios/workloads/stateful_pods.hpp). The member Leases are deleted through the API.
struct RunbookHooks {
  std::function<void(bool)> suspendSpecReconcile;  // the annotation set (true) or removed
  std::function<void(int)> scaleStatefulSet;       // kubectl scale sts --replicas=N
  std::function<int()> podsLeft;                   // the set's pods that still exist
  std::function<void()> deleteClaims;              // kubectl delete pvc -l instance=<sts>
  std::function<void(int)> setConfigMapClusterSize;
  std::function<bool(int ordinal)> podReady;  // kubectl get pod: every container Ready
  std::function<int()> replicas;              // the Etcd's spec.replicas
  std::function<void()> requestReconcile;     // the reconcile annotation reaches druid
};

struct QuorumLossRunbookConfig {
  api::ApiClientConfig apiserver;  // timer_tags is set by the process
  std::string namespace_;
  std::string etcdName;  // "etcd-main": member Leases "etcd-main-0", ...
  RunbookHooks hooks;
  Duration stepDelay = seconds(30);
  Duration pollPeriod = seconds(5);
  Duration waitLimit = minutes(30);
};

class QuorumLossRunbook final : public Process {
 public:
  explicit QuorumLossRunbook(QuorumLossRunbookConfig config);
  ~QuorumLossRunbook() override;
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

 private:
  enum Timer : std::uint64_t { kStep, kPoll };
  void run_step(Env& env);
  void poll(Env& env);
  bool waiting_done() const;
  void delete_leases(Env& env);
  void step_done(Env& env, std::string detail);
  void give_up(Env& env, std::string why);

  QuorumLossRunbookConfig config_;
  TagSpace tags_;
  std::unique_ptr<api::ApiClient> api_;
  RunbookStep step_ = RunbookStep::kSuspend;
  LocalTime waitingSince_{};
  int leaseFailures_ = 0;
};

}  // namespace hasim::druid
