#pragma once
// etcd's member API on a member (server/etcdserver/server.go AddMember, PromoteMember,
// RemoveMember, MoveLeader and their strict-reconfig checks), as the scenario's actions
// reach it: a MemberRequest posted to the member that leads. Only what etcd's server layer
// decides lives here; the raft changes themselves are raft's (propose_conf_change,
// transfer_leader, apply_conf_change).
//
// What hasim simplifies, and why it does not change an outcome the checks depend on:
//  - The cluster's member list (etcd replicates it through raft, in its membership store)
//    is a MemberDirectory shared by the members of one world: whether a member has ever
//    started (published its attributes: etcd's IsStarted) and which IDs were removed. Every
//    write to it follows an applied entry or a member's own start, as etcd's do.
//  - rafthttp's "active since" of a peer: the first raft message heard from it after more
//    than ConnReadTimeout (5 s) of silence (a stream that stays silent that long is closed by
//    its read timeout). etcd's streams carry their own heartbeats, so a follower is connected
//    to every peer; here a member hears only the peers raft talks to, which for the leader
//    (where requests go) is every follower.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/raft/rawnode.hpp"
#include "sim/env.hpp"

namespace hasim::etcd {

// etcd's error texts (server/etcdserver/errors/errors.go, api/membership/errors.go).
namespace member_error {
inline constexpr std::string_view kNoLeader = "etcdserver: no leader";
inline constexpr std::string_view kNotLeader = "etcdserver: not leader";
inline constexpr std::string_view kLearnerNotReady =
    "etcdserver: can only promote a learner member which is in sync with leader";
inline constexpr std::string_view kNotEnoughStartedMembers =
    "etcdserver: re-configuration failed due to not enough started members";
inline constexpr std::string_view kUnhealthy = "etcdserver: unhealthy cluster";
inline constexpr std::string_view kBadLeaderTransferee = "etcdserver: bad leader transferee";
inline constexpr std::string_view kIDRemoved = "membership: ID removed";
inline constexpr std::string_view kIDExists = "membership: ID exists";
inline constexpr std::string_view kIDNotFound = "membership: ID not found";
inline constexpr std::string_view kMemberNotLearner =
    "membership: can only promote a learner member";
inline constexpr std::string_view kTooManyLearners =
    "membership: too many learner members in cluster";
// rpctypes.ErrGRPCNotSupportedForLearner: a learner serves only Status and serializable
// Range (v3rpc/interceptor.go newUnaryInterceptor, util.go isRPCSupportedForLearner).
inline constexpr std::string_view kNotSupportedForLearner =
    "etcdserver: rpc not supported for learner";
// What a client reads when its call was never served before its deadline (gRPC's
// codes.DeadlineExceeded, which togRPCError passes through: v3rpc/util.go).
inline constexpr std::string_view kDeadlineExceeded = "context deadline exceeded";
}  // namespace member_error

// `list` is etcdctl member list (Cluster.MemberList), served by any started member from its
// own applied membership; the others change it.
enum class MemberOp : std::uint8_t { add_learner, promote, remove, move_leader, list };
std::string_view member_op_name(MemberOp op);  // "member-add-learner", ..., "member-list"

// What the operator learns back (etcdctl's answer); the scenario's retries read it.
struct MemberReply {
  bool ok = false;
  std::string error;  // the last refusal
};

// An etcdctl request: `member add --learner`, `member promote`, `member remove`,
// `move-leader` or `member list`, for raft ID `target` (0 for move-leader: the most
// caught-up voter; unused by list).
//  - client_id 0: the scenario's request, posted by the world to the member that leads; it
//    is answered only through `reply` (and the trace), and never forwarded.
//  - client_id nonzero: a client's call over the network (an etcd-backup-restore sidecar's
//    clientv3): answered with a MemberResponse to the sender, as well as through `reply` if
//    set. Any member serves it (member_clients.cpp): a follower forwards a change to its
//    leader, once; `reply_to` is then the client the leader answers.
struct MemberRequest final : MessageBody {
  MemberRequest(MemberOp o, raft::PeerId t, std::shared_ptr<MemberReply> r)
      : op(o), target(t), reply(std::move(r)) {}
  std::string_view type() const override { return member_op_name(op); }
  MemberOp op;
  raft::PeerId target;
  std::shared_ptr<MemberReply> reply;
  std::uint64_t client_id = 0;  // the client's own id for the call, echoed in the response
  bool forwarded = false;       // sent on by a follower to the leader it knew
  ProcessId reply_to = 0;       // forwarded: the client the answer goes to
};

// etcdserverpb.Member as MemberList shows it (peer and client URLs left out: hasim's are the
// directory's addresses).
struct MemberInfo {
  raft::PeerId id = 0;
  std::string name;  // empty until the member has started (published its attributes)
  bool is_learner = false;
  bool operator==(const MemberInfo&) const = default;
};

// The answer to a client's MemberRequest (etcdserverpb Member*Response, or the error text).
struct MemberResponse final : MessageBody {
  std::string_view type() const override { return "member-response"; }
  std::uint64_t client_id = 0;
  MemberOp op = MemberOp::list;
  bool ok = false;
  std::string error;                // empty when ok
  raft::PeerId member_id = 0;       // the answering member (ResponseHeader.member_id)
  raft::PeerId target = 0;          // the request's target (move-leader: the transferee)
  std::vector<MemberInfo> members;  // op list: by ID; removed members absent
};

// The cluster's member list as far as the checks need it (see above), and the address book:
// where each member is reached. etcd learns a member's peerURLs from the member-add conf
// change that carries them (membership/cluster.go AddMember); hasim's address is the
// member's ProcessId, which survives World::move_process (a pod re-created on another node
// keeps its identity but not its "node/name"). The name is what a member publishes when it
// starts (server.go publishV3: its --name, the pod's name under etcd-druid).
class MemberDirectory {
 public:
  bool started(raft::PeerId id) const { return started_.count(id) > 0; }
  bool removed(raft::PeerId id) const { return removed_.count(id) > 0; }
  void mark_started(raft::PeerId id) {
    started_.insert(id);
    note_id(id);
  }
  void mark_removed(raft::PeerId id) {
    removed_.insert(id);
    note_id(id);
  }
  // An ID's address is set once (etcd's MemberUpdate of peer URLs is not modelled): members
  // cache what they resolved.
  void set_address(raft::PeerId id, ProcessId process);
  std::optional<ProcessId> address(raft::PeerId id) const;
  void set_name(raft::PeerId id, std::string name);
  std::string name(raft::PeerId id) const;  // empty if none was published
  // An ID a configuration uses (the members' and standby IDs, a conf change's node).
  void note_id(raft::PeerId id) { maxId_ = std::max(maxId_, id); }
  // The ID for a member added next: one past the largest ever addressed, configured or
  // seen. etcd draws a member's ID from a hash of its peer URLs, the cluster token and the
  // time (membership/member.go computeMemberID), so IDs never repeat; hasim's members are
  // numbered in order (raft IDs index the members' peer vectors), and never reusing an ID
  // keeps etcd's "membership: ID removed" meaning the same.
  raft::PeerId next_member_id() const { return maxId_ + 1; }
  // The cluster ID of the member that published last (0: a cluster never restored). etcd's
  // GetClusterFromRemotePeers (etcdserver/bootstrap.go): a member joining an existing
  // cluster without a WAL asks the peers of its initial-cluster for the cluster and takes
  // its ID. hasim's shortcut: the peers that answer are the members started last.
  void set_cluster(std::uint64_t cluster) { cluster_ = cluster; }
  std::uint64_t cluster() const { return cluster_; }

 private:
  std::set<raft::PeerId> started_;
  std::set<raft::PeerId> removed_;
  std::map<raft::PeerId, ProcessId> addresses_;
  std::map<raft::PeerId, std::string> names_;
  raft::PeerId maxId_ = 0;
  std::uint64_t cluster_ = 0;
};

// etcd's thresholds (server.go, membership/cluster_opts.go, rafthttp/peer.go).
inline constexpr double kReadyPercentThreshold = 0.9;     // readyPercentThreshold
inline constexpr std::size_t kMaxLearners = 1;            // DefaultMaxLearners
inline constexpr Duration kHealthInterval = seconds(5);   // HealthInterval
inline constexpr Duration kConnReadTimeout = seconds(5);  // rafthttp ConnReadTimeout

// isLearnerReady on the leader's Status: nullopt if `id`'s match is at least 90% of the
// leader's own, else etcd's error (not leader, ID not found, learner not ready).
std::optional<std::string_view> learner_not_ready(const raft::Status& status, raft::PeerId id);

// The strict-reconfig quorum counts (membership/cluster.go IsReadyTo*): `voters` are the
// voting members, `started` says which have started.
bool ready_to_add_voter(const std::set<raft::PeerId>& voters, const MemberDirectory& directory);
bool ready_to_remove_voter(const std::set<raft::PeerId>& voters, raft::PeerId id,
                           const MemberDirectory& directory);
bool ready_to_promote(const std::set<raft::PeerId>& voters, const MemberDirectory& directory);

// rafthttp's view of the peer streams of one member (Transport.ActiveSince).
class PeerActivity {
 public:
  void heard(raft::PeerId from, LocalTime now);
  // When the stream from `id` became active, if it is active at `now`.
  std::optional<LocalTime> active_since(raft::PeerId id, LocalTime now) const;
  // numConnectedSince: `self` and the members connected since `since`.
  std::size_t connected_since(const std::set<raft::PeerId>& members, raft::PeerId self,
                              LocalTime since, LocalTime now) const;
  // longestConnected (etcdserver/util.go): the member of `members` whose stream has been
  // active longest (the first in `members`' order on a tie), 0 if none is active.
  raft::PeerId longest_connected(const std::set<raft::PeerId>& members, LocalTime now) const;

 private:
  struct Stream {
    LocalTime since{};
    LocalTime last{};
  };
  // By peer, in the order first heard: a member hears from a few peers, on every message,
  // and nothing walks them, so a scanned vector serves better than a map.
  std::vector<std::pair<raft::PeerId, Stream>> streams_;
  const Stream* find(raft::PeerId id) const;
};

// The member API of one member, owned by its EtcdMember.
class MemberApi {
 public:
  MemberApi(raft::PeerId self, std::shared_ptr<MemberDirectory> directory);

  // A request reached this member: checked, then proposed or refused; traced either way.
  // `client` is where a client's request is answered (MemberRequest::client_id nonzero).
  void handle(Env& env, raft::RawNode& node, const MemberRequest& request, ProcessId client = 0);
  // Answers `request` with `result` ("ok" or etcd's error text): the reply object, the
  // trace, and a client's MemberResponse (with `members`, for list).
  void answer(Env& env, const MemberRequest& request, ProcessId client, raft::PeerId target,
              std::string_view result, std::vector<MemberInfo> members = {});
  void heard(raft::PeerId from, LocalTime now) { peers_.heard(from, now); }
  // The member applied `cc`; true if it removed this member (etcd stops it a second later).
  bool applied(Env& env, const raft::ConfChange& cc);
  // The member's raft leader is now `lead` (a move-leader in progress finishes).
  void lead_changed(Env& env, raft::PeerId lead);
  // The transferee of a graceful stop's leadership transfer (TryTransferLeadershipOnShutdown)
  // among `voters` other than this member, 0 if none is connected (ErrUnhealthy).
  raft::PeerId shutdown_transferee(const std::set<raft::PeerId>& voters, LocalTime now) const;
  MemberDirectory& directory() { return *directory_; }

 private:
  std::optional<std::string_view> check(Env& env, const raft::Status& st,
                                        const MemberRequest& request) const;
  std::optional<std::string_view> check_add(Env& env, const raft::Status& st,
                                            raft::PeerId id) const;
  std::optional<std::string_view> check_remove(Env& env, const raft::Status& st,
                                               raft::PeerId id) const;
  void move_leader(Env& env, raft::RawNode& node, const raft::Status& st, raft::PeerId target,
                   const MemberRequest& request, ProcessId client);

  raft::PeerId self_;
  std::shared_ptr<MemberDirectory> directory_;
  PeerActivity peers_;
  raft::PeerId transferee_ = 0;  // a move-leader under way
  // Clients' changes proposed and not yet applied, oldest first (bounded: a change raft
  // dropped is never applied, and its client has given up long before).
  struct Waiter {
    std::uint64_t id = 0;  // the change's cc.ID
    raft::PeerId node = 0;
    MemberRequest request;
    ProcessId client = 0;
  };
  static constexpr std::size_t kMaxWaiters = 16;
  std::uint64_t changeSeq_ = 0;
  std::vector<Waiter> waiters_;
  LocalTime transferStart_{};
};

// The most caught-up voter other than `self` (highest match; the lowest ID on a tie), 0 if
// none: hasim's choice of transferee for a move-leader without "to".
raft::PeerId most_caught_up_voter(const raft::Status& status, raft::PeerId self);

}  // namespace hasim::etcd
