#include "models/etcd/membership.hpp"

#include "models/etcd/trace_kinds.hpp"
#include "models/raft/raftpb_util.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {
namespace {

std::int64_t i64(std::uint64_t value) { return static_cast<std::int64_t>(value); }

std::size_t quorum(std::size_t n) { return n / 2 + 1; }  // etcd util.go quorum

std::set<raft::PeerId> voters_of(const raft::Status& st) { return st.config.voters.ids(); }

bool is_learner(const raft::Status& st, raft::PeerId id) {
  return st.config.learners.count(id) > 0;
}

std::size_t started_among(const std::set<raft::PeerId>& ids, const MemberDirectory& directory) {
  std::size_t n = 0;
  for (raft::PeerId id : ids) n += directory.started(id) ? 1 : 0;
  return n;
}

}  // namespace

std::string_view member_op_name(MemberOp op) {
  switch (op) {
    case MemberOp::add_learner:
      return "member-add-learner";
    case MemberOp::promote:
      return "member-promote";
    case MemberOp::remove:
      return "member-remove";
    case MemberOp::move_leader:
      return "move-leader";
    case MemberOp::list:
      return "member-list";
  }
  return "member-op";
}

void MemberDirectory::set_address(raft::PeerId id, ProcessId process) {
  HASIM_ASSERT(id != 0);
  const auto [it, inserted] = addresses_.emplace(id, process);
  HASIM_ASSERT((inserted || it->second == process) && "a member's address is set once");
  note_id(id);
}

std::optional<ProcessId> MemberDirectory::address(raft::PeerId id) const {
  const auto it = addresses_.find(id);
  if (it == addresses_.end()) return std::nullopt;
  return it->second;
}

void MemberDirectory::set_name(raft::PeerId id, std::string name) {
  HASIM_ASSERT(id != 0);
  names_[id] = std::move(name);
  note_id(id);
}

std::string MemberDirectory::name(raft::PeerId id) const {
  const auto it = names_.find(id);
  return it == names_.end() ? std::string() : it->second;
}

std::optional<std::string_view> learner_not_ready(const raft::Status& status, raft::PeerId id) {
  // server.go isLearnerReady: only the leader has the followers' progress.
  if (status.progress.empty()) return member_error::kNotLeader;
  const auto learner = status.progress.find(id);
  if (learner == status.progress.end()) return member_error::kIDNotFound;
  const auto leader = status.progress.find(status.basic.id);
  HASIM_ASSERT(leader != status.progress.end() && leader->second.match > 0);
  const double ready =
      static_cast<double>(learner->second.match) / static_cast<double>(leader->second.match);
  if (ready < kReadyPercentThreshold) return member_error::kLearnerNotReady;
  return std::nullopt;
}

bool ready_to_add_voter(const std::set<raft::PeerId>& voters, const MemberDirectory& directory) {
  // IsReadyToAddVotingMember: the new member counts, not started.
  const std::size_t members = voters.size() + 1;
  const std::size_t started = started_among(voters, directory);
  if (started == 1 && members == 2) return true;  // restoring a one-member cluster
  return started >= quorum(members);
}

bool ready_to_remove_voter(const std::set<raft::PeerId>& voters, raft::PeerId id,
                           const MemberDirectory& directory) {
  std::set<raft::PeerId> rest = voters;
  rest.erase(id);
  return started_among(rest, directory) >= quorum(rest.size());
}

bool ready_to_promote(const std::set<raft::PeerId>& voters, const MemberDirectory& directory) {
  // IsReadyToPromoteMember: the learner counts, as started.
  return started_among(voters, directory) + 1 >= quorum(voters.size() + 1);
}

const PeerActivity::Stream* PeerActivity::find(raft::PeerId id) const {
  for (const auto& [peer, stream] : streams_) {
    if (peer == id) return &stream;
  }
  return nullptr;
}

void PeerActivity::heard(raft::PeerId from, LocalTime now) {
  for (auto& [peer, stream] : streams_) {
    if (peer != from) continue;
    if (now - stream.last > kConnReadTimeout) stream.since = now;
    stream.last = now;
    return;
  }
  streams_.emplace_back(from, Stream{now, now});
}

std::optional<LocalTime> PeerActivity::active_since(raft::PeerId id, LocalTime now) const {
  const Stream* stream = find(id);
  if (stream == nullptr || now - stream->last > kConnReadTimeout) return std::nullopt;
  return stream->since;
}

std::size_t PeerActivity::connected_since(const std::set<raft::PeerId>& members, raft::PeerId self,
                                          LocalTime since, LocalTime now) const {
  std::size_t n = 0;
  for (raft::PeerId id : members) {
    const auto active = active_since(id, now);
    n += id == self || (active && *active <= since) ? 1 : 0;
  }
  return n;
}

raft::PeerId most_caught_up_voter(const raft::Status& status, raft::PeerId self) {
  raft::PeerId best = 0;
  raft::Index match = 0;
  for (raft::PeerId id : voters_of(status)) {
    const auto it = status.progress.find(id);
    if (id == self || it == status.progress.end()) continue;
    if (best == 0 || it->second.match > match) {
      best = id;
      match = it->second.match;
    }
  }
  return best;
}

MemberApi::MemberApi(raft::PeerId self, std::shared_ptr<MemberDirectory> directory)
    : self_(self), directory_(std::move(directory)) {
  HASIM_ASSERT(self_ != 0 && directory_ != nullptr);
}

void MemberApi::handle(Env& env, raft::RawNode& node, const MemberRequest& request,
                       ProcessId client) {
  HASIM_ASSERT(request.op != MemberOp::list);  // served by the member (member_clients.cpp)
  const raft::Status st = node.status();
  if (request.op == MemberOp::move_leader)
    return move_leader(env, node, st, request.target, request, client);
  if (auto refusal = check(env, st, request)) {
    return answer(env, request, client, request.target, *refusal);
  }
  raft::ConfChange cc;
  cc.nodeId = request.target;
  switch (request.op) {
    case MemberOp::add_learner:
      cc.type = raft::ConfChangeType::ConfChangeAddLearnerNode;
      break;
    case MemberOp::promote:
      cc.type = raft::ConfChangeType::ConfChangeAddNode;
      cc.context = "promote";  // etcd's ConfigChangeContext.IsPromote
      break;
    case MemberOp::remove:
      cc.type = raft::ConfChangeType::ConfChangeRemoveNode;
      break;
    case MemberOp::move_leader:
    case MemberOp::list:
      break;
  }
  // server.go configure: a client's change carries its own ID (reqIDGen), by which its
  // waiter is found when the change is applied. The scenario's requests keep ID 0.
  if (client != 0) cc.id = (std::uint64_t{self_} << 48) | ++changeSeq_;
  const raft::RaftError err = node.propose_conf_change(raft::ConfChangeI{cc});
  if (err != raft::RaftError::Ok || client == 0) {
    return answer(env, request, client, request.target,
                  err == raft::RaftError::Ok ? std::string_view("ok") : raft::error_text(err));
  }
  // server.go configure: a client's call returns once the change is applied; a proposal raft
  // drops (another change still pending) or loses is never answered, and the client's
  // deadline ends the call.
  if (waiters_.size() == kMaxWaiters) waiters_.erase(waiters_.begin());
  waiters_.push_back(Waiter{cc.id, cc.nodeId, request, client});
}

std::optional<std::string_view> MemberApi::check(Env& env, const raft::Status& st,
                                                 const MemberRequest& request) const {
  const raft::PeerId id = request.target;
  if (st.progress.empty()) return member_error::kNotLeader;  // requests go to the leader
  if (directory_->removed(id)) return member_error::kIDRemoved;
  switch (request.op) {
    case MemberOp::add_learner:
      return check_add(env, st, id);
    case MemberOp::promote:
      if (auto not_ready = learner_not_ready(st, id)) return not_ready;
      // ValidateConfigurationChange refuses it when applied; the answer is the same.
      if (!is_learner(st, id)) return member_error::kMemberNotLearner;
      if (!ready_to_promote(voters_of(st), *directory_)) {
        return member_error::kNotEnoughStartedMembers;
      }
      return std::nullopt;
    case MemberOp::remove:
      return check_remove(env, st, id);
    case MemberOp::move_leader:
    case MemberOp::list:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string_view> MemberApi::check_add(Env& env, const raft::Status& st,
                                                     raft::PeerId id) const {
  if (st.progress.count(id) > 0) return member_error::kIDExists;
  if (st.config.learners.size() >= kMaxLearners) return member_error::kTooManyLearners;
  // mayAddMember: a learner needs no started quorum, but the local member must stay
  // connected to a quorum counting the new member as down.
  const std::set<raft::PeerId> voters = voters_of(st);
  if (voters.size() == 1) return std::nullopt;
  const LocalTime now = env.monotonic_now();
  if (peers_.connected_since(voters, self_, now - kHealthInterval, now) <
      quorum(voters.size() + 1)) {
    return member_error::kUnhealthy;
  }
  return std::nullopt;
}

std::optional<std::string_view> MemberApi::check_remove(Env& env, const raft::Status& st,
                                                        raft::PeerId id) const {
  if (st.progress.count(id) == 0) return member_error::kIDNotFound;
  if (is_learner(st, id)) return std::nullopt;  // no quorum check for a learner
  const std::set<raft::PeerId> voters = voters_of(st);
  if (!ready_to_remove_voter(voters, id, *directory_)) {
    return member_error::kNotEnoughStartedMembers;
  }
  const LocalTime now = env.monotonic_now();
  // A member that is down is safe to remove: it is not part of the active quorum.
  if (id != self_ && !peers_.active_since(id, now)) return std::nullopt;
  const std::size_t active = peers_.connected_since(voters, self_, now - kHealthInterval, now);
  if (active - 1 < 1 + (voters.size() - 1) / 2) return member_error::kUnhealthy;
  return std::nullopt;
}

void MemberApi::move_leader(Env& env, raft::RawNode& node, const raft::Status& st,
                            raft::PeerId target, const MemberRequest& request, ProcessId client) {
  // etcdctl move-leader asks the leader (maintenance.go MoveLeader: ErrNotLeader elsewhere).
  if (st.progress.empty()) return answer(env, request, client, target, member_error::kNotLeader);
  if (target == 0) target = most_caught_up_voter(st, self_);
  if (target == 0 || voters_of(st).count(target) == 0) {
    return answer(env, request, client, target, member_error::kBadLeaderTransferee);
  }
  node.transfer_leader(target);
  transferee_ = target;
  transferStart_ = env.monotonic_now();
  answer(env, request, client, target, "ok");
}

void MemberApi::answer(Env& env, const MemberRequest& request, ProcessId client,
                       raft::PeerId target, std::string_view result,
                       std::vector<MemberInfo> members) {
  const bool ok = result == "ok";
  if (request.reply) {
    request.reply->ok = ok;
    request.reply->error = ok ? std::string() : std::string(result);
  }
  if (request.client_id != 0) {
    auto response = std::make_shared<MemberResponse>();
    response->client_id = request.client_id;
    response->op = request.op;
    response->ok = ok;
    response->error = ok ? std::string() : std::string(result);
    response->member_id = self_;
    response->target = target;
    response->members = std::move(members);
    env.send(client, std::move(response));
  }
  // A list changes nothing: only a refused one is traced (the member API's log line).
  if (request.op == MemberOp::list && ok) return;
  env.trace(trace_kind::kMemberApi, {{"member", i64(self_)},
                                     {"op", std::string(member_op_name(request.op))},
                                     {"target", i64(target)},
                                     {"result", std::string(result)}});
}

bool MemberApi::applied(Env& env, const raft::ConfChange& cc) {
  directory_->note_id(cc.nodeId);
  if (cc.type == raft::ConfChangeType::ConfChangeRemoveNode) directory_->mark_removed(cc.nodeId);
  env.trace(trace_kind::kConfChange, {{"member", i64(self_)},
                                      {"type", std::string(raft::name(cc.type))},
                                      {"node", i64(cc.nodeId)}});
  for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
    if (cc.id == 0 || it->id != cc.id) continue;
    const Waiter waiter = std::move(*it);
    waiters_.erase(it);
    answer(env, waiter.request, waiter.client, waiter.node, "ok");
    break;
  }
  return cc.type == raft::ConfChangeType::ConfChangeRemoveNode && cc.nodeId == self_;
}

raft::PeerId PeerActivity::longest_connected(const std::set<raft::PeerId>& members,
                                             LocalTime now) const {
  raft::PeerId longest = 0;
  LocalTime oldest{};
  for (raft::PeerId id : members) {
    const auto since = active_since(id, now);
    if (!since) continue;  // inactive
    if (longest == 0 || *since < oldest) {
      longest = id;
      oldest = *since;
    }
  }
  return longest;
}

raft::PeerId MemberApi::shutdown_transferee(const std::set<raft::PeerId>& voters,
                                            LocalTime now) const {
  std::set<raft::PeerId> others = voters;
  // The local member's own stream is never active: longestConnected skips it the same way.
  others.erase(self_);
  return peers_.longest_connected(others, now);
}

void MemberApi::lead_changed(Env& env, raft::PeerId lead) {
  if (transferee_ == 0 || lead == 0 || lead == self_) return;
  // MoveLeader waits until the local member sees the transferee lead ("leadership transfer
  // finished", with how long it took).
  const bool finished = lead == transferee_;
  env.trace(trace_kind::kMoveLeader,
            {{"member", i64(self_)},
             {"transferee", i64(transferee_)},
             {"lead", i64(lead)},
             {"result", std::string(finished ? "finished" : "another leader")},
             {"took-ms", (env.monotonic_now() - transferStart_).ns / 1'000'000}});
  transferee_ = 0;
}

}  // namespace hasim::etcd
