#pragma once
// The kinds of trace event of etcd-druid's pods and operator (models/druid/), declared once
// (see sim/trace_kinds.hpp for why). A kind is part of the trace text: never rename one.
#include <array>
#include <string_view>

namespace hasim::druid::trace_kind {

// etcd-wrapper: embedded etcd starts on the sidecar's configuration; /readyz changes; /config
// could not be fetched (the container exits).
inline constexpr std::string_view kEtcdStart = "druid-etcd-start";
inline constexpr std::string_view kEtcdReadyz = "druid-etcd-readyz";
inline constexpr std::string_view kEtcdConfigFailed = "druid-etcd-config-failed";
// etcd's periodic auto-compactor (run by the leader) compacted, or failed to.
inline constexpr std::string_view kAutoCompaction = "druid-etcd-auto-compaction";
// etcd-backup-restore: Initialize decided (its action), finished (status), and the member
// calls it made (member-add-learner, member-remove, member-promote) with their outcome.
inline constexpr std::string_view kInitDecision = "druid-br-init";
inline constexpr std::string_view kInitDone = "druid-br-init-done";
inline constexpr std::string_view kMemberCall = "druid-br-member-call";
// The leading-sidecar loop changed state (Follower, Leader, Unknown).
inline constexpr std::string_view kLeading = "druid-br-leading";
// The leading sidecar's snapshotter: a snapshot uploaded or refused by the object store
// (kind Full or Incr, its revisions, the outcome); Run started, failed (with the error) or a
// fatal error at its creation (the store could not be listed).
inline constexpr std::string_view kSnapshot = "druid-br-snapshot";
inline constexpr std::string_view kSnapshotter = "druid-br-snapshotter";
// Initialize restored the data directory from the store: the member the new one-member
// cluster has, the full snapshot, how many deltas, the revision reached, and the outcome
// (restored, or the restorer's error).
inline constexpr std::string_view kRestore = "druid-br-restore";
// The leading sidecar's garbage collector ended a pass: the policy, how many snapshots were
// listed, how many full and delta snapshots it deleted, and how many deletes failed (or the
// listing's error).
inline constexpr std::string_view kGarbageCollection = "druid-br-gc";
// One snapshot the garbage collector deleted (kind Full or Incr, its revisions) or failed to.
inline constexpr std::string_view kGarbageCollectionDelete = "druid-br-gc-delete";
// etcd-druid: the status step wrote a member's status or a condition that changed.
inline constexpr std::string_view kMemberStatus = "druid-member-status";
inline constexpr std::string_view kCondition = "druid-condition";
// The Etcd's spec was edited (druid-scale): the change the API server admitted, or the one
// its CEL rule on spec.replicas refused (api/core/v1alpha1/etcd.go), which changes nothing.
inline constexpr std::string_view kSpecUpdate = "druid-spec-update";
inline constexpr std::string_view kSpecRefused = "druid-spec-refused";
// An operator's runbook (quorum_loss_runbook.hpp) finished a step, or gave up at one.
inline constexpr std::string_view kRunbook = "druid-runbook";
// etcd-druid skipped a spec reconcile: the Etcd has the suspend-etcd-spec-reconcile
// annotation (reconcile_spec.go shouldReconcileSpec, event SpecReconciliationSkipped).
inline constexpr std::string_view kSpecReconcileSkipped = "druid-spec-reconcile-skipped";

// Proposal mode (seed 004). etcd-druid applied one case of its decision table (the seed's
// case number, its name, the steps); a spec change that rolls the pods waited for full
// health or went out; the PDB's minAvailable changed.
inline constexpr std::string_view kDruidCase = "druid-case";
inline constexpr std::string_view kSpecRollout = "druid-spec-rollout";
inline constexpr std::string_view kPdb = "druid-pdb";
// A sidecar's initialization table: the case it observed and what it does.
inline constexpr std::string_view kInitCase = "druid-br-init-case";

inline constexpr std::array kAll{kEtcdStart,
                                 kEtcdReadyz,
                                 kEtcdConfigFailed,
                                 kAutoCompaction,
                                 kInitDecision,
                                 kInitDone,
                                 kMemberCall,
                                 kLeading,
                                 kSnapshot,
                                 kSnapshotter,
                                 kRestore,
                                 kGarbageCollection,
                                 kGarbageCollectionDelete,
                                 kMemberStatus,
                                 kCondition,
                                 kSpecUpdate,
                                 kSpecRefused,
                                 kRunbook,
                                 kSpecReconcileSkipped,
                                 kDruidCase,
                                 kSpecRollout,
                                 kPdb,
                                 kInitCase};

}  // namespace hasim::druid::trace_kind
