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
}  // namespace member_error

enum class MemberOp : std::uint8_t { add_learner, promote, remove, move_leader };
std::string_view member_op_name(MemberOp op);  // "member-add-learner", ...

// What the operator learns back (etcdctl's answer); the scenario's retries read it.
struct MemberReply {
  bool ok = false;
  std::string error;  // the last refusal
};

// An etcdctl request: `member add --learner`, `member promote`, `member remove` or
// `move-leader`, for raft ID `target` (0 for move-leader: the most caught-up voter).
struct MemberRequest final : MessageBody {
  MemberRequest(MemberOp o, raft::PeerId t, std::shared_ptr<MemberReply> r)
      : op(o), target(t), reply(std::move(r)) {}
  std::string_view type() const override { return member_op_name(op); }
  MemberOp op;
  raft::PeerId target;
  std::shared_ptr<MemberReply> reply;
};

// The cluster's member list as far as the checks need it (see above).
class MemberDirectory {
 public:
  bool started(raft::PeerId id) const { return started_.count(id) > 0; }
  bool removed(raft::PeerId id) const { return removed_.count(id) > 0; }
  void mark_started(raft::PeerId id) { started_.insert(id); }
  void mark_removed(raft::PeerId id) { removed_.insert(id); }

 private:
  std::set<raft::PeerId> started_;
  std::set<raft::PeerId> removed_;
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
  void handle(Env& env, raft::RawNode& node, const MemberRequest& request);
  void heard(raft::PeerId from, LocalTime now) { peers_.heard(from, now); }
  // The member applied `cc`; true if it removed this member (etcd stops it a second later).
  bool applied(Env& env, const raft::ConfChange& cc);
  // The member's raft leader is now `lead` (a move-leader in progress finishes).
  void lead_changed(Env& env, raft::PeerId lead);
  MemberDirectory& directory() { return *directory_; }

 private:
  std::optional<std::string_view> check(Env& env, const raft::Status& st,
                                        const MemberRequest& request) const;
  std::optional<std::string_view> check_add(Env& env, const raft::Status& st,
                                            raft::PeerId id) const;
  std::optional<std::string_view> check_remove(Env& env, const raft::Status& st,
                                               raft::PeerId id) const;
  void move_leader(Env& env, raft::RawNode& node, const raft::Status& st, raft::PeerId target,
                   const MemberRequest& request);
  void answer(Env& env, const MemberRequest& request, raft::PeerId target, std::string_view result);

  raft::PeerId self_;
  std::shared_ptr<MemberDirectory> directory_;
  PeerActivity peers_;
  raft::PeerId transferee_ = 0;  // a move-leader under way
  LocalTime transferStart_{};
};

// The most caught-up voter other than `self` (highest match; the lowest ID on a tie), 0 if
// none: hasim's choice of transferee for a move-leader without "to".
raft::PeerId most_caught_up_voter(const raft::Status& status, raft::PeerId self);

}  // namespace hasim::etcd
