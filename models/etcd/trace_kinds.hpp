#pragma once
// The kinds of trace event of etcd members (models/etcd/member.hpp), declared once (see
// sim/trace_kinds.hpp for why). Every event carries "member", the raft ID. Entries are
// written compactly, as "ents": runs "TERM:HASH,HASH,..." separated by spaces, HASH being
// 16 hex digits of entry_payload_hash (an entry's type and data), starting at index "first".
#include <array>
#include <string_view>

namespace hasim::etcd::trace_kind {

// After a start: what the member read back from its disk (the snapshot it restarts from,
// "snap-index"/"snap-term", the entries after it, the HardState "term"/"vote"/"commit").
inline constexpr std::string_view kRecovered = "raft-recovered";
// The member's raft role changed: "term", "state" (StateFollower, ...), "lead".
inline constexpr std::string_view kState = "raft-state";
// A Ready's writes are durable (or, with unsafeAckBeforeFsync, issued): entries from
// "first" ("ents"), an installed snapshot ("snap-index", "snap-term"), the HardState's
// "commit" and "term" when it changed.
inline constexpr std::string_view kPersist = "raft-persist";
// Committed entries applied to the state machine, from "first" ("ents"), and the state
// machine's hash after them; once clients have written to the KV store, also its revision
// after them ("rev").
inline constexpr std::string_view kApply = "raft-apply";
// The member installed a snapshot from the leader at "index" (term "term"): its log is now
// what follows it.
inline constexpr std::string_view kInstall = "raft-install";
// The member took a snapshot at "index" (term "term") and compacted its log to
// "compact".
inline constexpr std::string_view kSnapshot = "raft-snapshot";
// A client proposal: "seq", and "result" ("ok", or the error: "raft proposal dropped").
inline constexpr std::string_view kPropose = "raft-propose";
// The member stopped on a fatal error, as etcd's lg.Fatal does ("error").
inline constexpr std::string_view kFatal = "raft-fatal";

// The member API (models/etcd/membership.hpp): a request's answer ("op", "target" raft ID,
// "result": "ok" or etcd's error), a conf change applied ("type", "node"), a move-leader
// that finished ("transferee", "lead", "took-ms"), and a member that stops because it was
// removed from the cluster.
inline constexpr std::string_view kMemberApi = "etcd-member-api";
inline constexpr std::string_view kConfChange = "etcd-conf-change";
inline constexpr std::string_view kMoveLeader = "etcd-move-leader";
inline constexpr std::string_view kRemoved = "etcd-removed";

// A Defragment call (models/etcd/kv_server.hpp) locked the member's backend: its
// "db-size" and "db-size-in-use" before, and the copy's "expect-ms"; and its end: the sizes
// after, "took-ms", and "held-entries", the committed entries it kept from being applied.
inline constexpr std::string_view kDefragStart = "etcd-defrag-start";
inline constexpr std::string_view kDefragEnd = "etcd-defrag-end";
// An applied alarm request changed the alarm list: "action" raised or disarmed, "alarm"
// (NOSPACE), "alarm-member" whose alarm it is.
inline constexpr std::string_view kAlarm = "etcd-alarm";
// A client call of etcdctl (models/etcd/etcdctl.hpp) came back: "op", "endpoint", "result"
// ("ok" or the error), and the op's own fields.
inline constexpr std::string_view kEtcdctl = "etcdctl";
// A peer message carried another cluster's ID and was refused ("from", "local-cluster",
// "remote-cluster"), once per peer (models/etcd/snapshot_restore.hpp).
inline constexpr std::string_view kClusterMismatch = "etcd-cluster-mismatch";
// The operator restored a snapshot onto a member's data directory (the etcd-snapshot-restore
// action, on the member's node): "member", "snapshot" (its name), "revision", "voters" (the
// new cluster's raft IDs, comma-separated), "cluster" (its ID), "index" (the restored
// snapshot's raft index).
inline constexpr std::string_view kSnapshotRestore = "etcd-snapshot-restore";

inline constexpr std::array kAll{kRecovered,  kState,     kPersist,    kApply,     kInstall,
                                 kSnapshot,   kPropose,   kFatal,      kMemberApi, kConfChange,
                                 kMoveLeader, kRemoved,   kDefragStart, kDefragEnd, kAlarm,
                                 kEtcdctl,    kClusterMismatch, kSnapshotRestore};

}  // namespace hasim::etcd::trace_kind
