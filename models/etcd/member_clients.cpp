// The etcd member as its clients and peers find it: the address book of its peers (a peer's
// ProcessId, which survives a pod's move to another node), the member API served to clients
// over the network (etcd-backup-restore's sidecar lists members, adds itself as a learner,
// removes its old ID, promotes), what it publishes when it starts, and the cluster ID and
// learner flag of its Status.
#include <algorithm>

#include "models/etcd/member.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::etcd {

std::uint64_t bootstrap_cluster_id(std::size_t members) {
  std::uint64_t id = fnv1a(kFnvOffset, "etcd-cluster");
  for (std::size_t i = 1; i <= members; ++i) id = fnv1a_word(id, i);
  return id == 0 ? 1 : id;
}

// --- the address book ------------------------------------------------------------------------

// rafthttp's Transport holds a peer per member it was told of (AddPeer, from the member
// list and every applied member-add): the configured members by name, unless the directory
// has their addresses, which win (a member started after a peer moved node cannot reach it
// by its old "node/name", and that name no longer resolves).
void EtcdMember::resolve_peers(Env& env) {
  HASIM_ASSERT(config_.directory != nullptr && peers_.empty());
  const MemberDirectory& directory = *config_.directory;
  const std::size_t configured = config_.members.size() + config_.standby.size();
  peers_.reserve(std::max<std::size_t>(configured, id_));
  for (std::size_t i = 0; i < configured; ++i) {
    const raft::PeerId id = i + 1;
    const std::string& name = i < config_.members.size()
                                  ? config_.members[i]
                                  : config_.standby[i - config_.members.size()];
    const auto address = directory.address(id);
    peers_.push_back(address ? *address : env.process(name));
    config_.directory->note_id(id);
  }
  HASIM_ASSERT(peers_.size() == configured);
}

// A miss of the cache: an ID added later (its address may have come meanwhile).
bool EtcdMember::resolve_peer(raft::PeerId id) {
  HASIM_ASSERT(id >= 1 && (id > peers_.size() || peers_[id - 1] == kUnresolved));
  const auto address = config_.directory->address(id);
  if (!address) return false;
  // Bounded: IDs are numbered in order (MemberDirectory::next_member_id).
  HASIM_ASSERT(id <= config_.directory->next_member_id());
  if (peers_.size() < id) peers_.resize(id, kUnresolved);
  peers_[id - 1] = *address;
  return true;
}

// --- what the member publishes and reports ----------------------------------------------

std::string EtcdMember::published_name() const {
  if (!config_.name.empty()) return config_.name;
  const std::size_t i = id_ - 1;
  if (i >= config_.members.size() + config_.standby.size()) return std::string();
  const std::string& qualified =
      i < config_.members.size() ? config_.members[i] : config_.standby[i - config_.members.size()];
  const std::size_t slash = qualified.find('/');
  return slash == std::string::npos ? qualified : qualified.substr(slash + 1);
}

// server.go publishV3: once started, the member proposes its attributes (name, client URLs)
// and, once applied, is started (membership IsStarted) and serves its clients (embed
// serve.go waits on ReadyNotify). hasim: the first apply of each incarnation.
void EtcdMember::publish() {
  HASIM_ASSERT(!published_);
  published_ = true;
  MemberDirectory& directory = api_->directory();
  directory.mark_started(id_);
  directory.set_cluster(clusterId_);
  const std::string name = published_name();
  if (!name.empty()) directory.set_name(id_, name);
}

bool EtcdMember::is_learner() const {
  const auto& learners = confState_.learners;
  return std::find(learners.begin(), learners.end(), id_) != learners.end();
}

// The WAL's cluster ID; a member joining an existing cluster without a WAL takes the remote
// cluster's (bootstrapExistingClusterNoWAL), written into the new WAL's metadata (wal.Create)
// ahead of the first entries.
void EtcdMember::recover_cluster(const Replayed& replayed) {
  set_cluster(replayed.cluster);
  const bool fresh = replayed.entries.empty() && replayed.snapshot.metadata.index == 0 &&
                     raft::is_empty_hard_state(replayed.state);
  if (standby() && fresh && config_.directory->cluster() != 0) {
    set_cluster(config_.directory->cluster());
    encoder_.encode(metadata_record(clusterId_));
  }
}

void EtcdMember::set_cluster(std::uint64_t cluster) {
  clusterId_ = cluster;
  wireCluster_ = cluster != 0 ? cluster : bootstrap_cluster_id(config_.members.size());
}

// membership/cluster.go Members: every member of the applied membership, sorted by ID
// (MembersByID); v3rpc/member.go membersToProtoMembers. A member not yet started has no
// name (it publishes it on start).
std::vector<MemberInfo> EtcdMember::member_list() const {
  std::vector<MemberInfo> list;
  const MemberDirectory& directory = *config_.directory;
  for (const auto* ids : {&confState_.voters, &confState_.learners}) {
    const bool learner = ids == &confState_.learners;
    for (raft::PeerId id : *ids) {
      list.push_back(
          MemberInfo{id, directory.started(id) ? directory.name(id) : std::string(), learner});
    }
  }
  std::sort(list.begin(), list.end(),
            [](const MemberInfo& a, const MemberInfo& b) { return a.id < b.id; });
  return list;
}

// --- the member API served to clients -----------------------------------------------------

// A client's call, on any member (every etcd member serves the Cluster service):
//  - before it has started, the member serves no client (embed serve.go waits on
//    ReadyNotify, closed once published): the client times out. hasim answers at once;
//  - a learner serves only Status and serializable Range (v3rpc/interceptor.go);
//  - list: from the member's own applied membership (v3rpc/member.go MemberList, without
//    --consistency=l: clientv3's default is not linearizable);
//  - a change on the leader: its checks, as for the scenario's requests;
//  - a change on a follower that knows a leader: forwarded to it (below).
void EtcdMember::serve_member_client(Env& env, ProcessId from, const MemberRequest& request) {
  HASIM_ASSERT(request.client_id != 0);
  const ProcessId client = request.forwarded ? request.reply_to : from;
  const raft::PeerId target = request.target;
  if (!published_)
    return api_->answer(env, request, client, target, member_error::kDeadlineExceeded);
  if (is_learner()) {
    return api_->answer(env, request, client, target, member_error::kNotSupportedForLearner);
  }
  if (request.op == MemberOp::list)
    return api_->answer(env, request, client, target, "ok", member_list());
  const raft::BasicStatus st = node_->basic_status();
  // move-leader goes to the leader (maintenance.go MoveLeader: ErrNotLeader elsewhere); a
  // forwarded request goes no further (the leader changed meanwhile: "not leader").
  if (st.softState.raftState == raft::StateType::StateLeader || request.forwarded ||
      request.op == MemberOp::move_leader) {
    return api_->handle(env, *node_, request, client);
  }
  forward_member_request(env, client, request);
}

// A follower's change. etcd's follower checks it against its own view (mayAddMember,
// mayRemoveMember) and proposes the conf change through raft, which forwards the MsgProp to
// the leader (raft.go stepFollower); a promote goes to the leader over peer HTTP
// (server.go PromoteMember: promoteMemberHTTP, only the leader knows the learner's
// progress). hasim forwards every change to the leader, which checks it and answers the
// client. Without a leader (server.go):
//  - promote: waitLeader waits an election at a time until the call's deadline, then
//    ErrNoLeader;
//  - add and remove: raft's node takes no proposal while it knows no leader (node.go run:
//    propc = nil), so ProposeConfChange blocks until the client's deadline, whose error
//    togRPCError passes through (context deadline exceeded).
// hasim answers both at once; a client retries after its own timeout.
void EtcdMember::forward_member_request(Env& env, ProcessId client, const MemberRequest& request) {
  HASIM_ASSERT(!request.forwarded && request.op != MemberOp::list);
  const raft::PeerId lead = node_->basic_status().softState.lead;
  const bool reachable =
      lead != 0 && lead != id_ &&
      ((lead <= peers_.size() && peers_[lead - 1] != kUnresolved) || resolve_peer(lead));
  if (!reachable) {
    const std::string_view error =
        request.op == MemberOp::promote ? member_error::kNoLeader : member_error::kDeadlineExceeded;
    return api_->answer(env, request, client, request.target, error);
  }
  auto forwarded = std::make_shared<MemberRequest>(request);
  forwarded->forwarded = true;
  forwarded->reply_to = client;
  env.send(peers_[lead - 1], std::move(forwarded));
}

// --- a graceful stop ---------------------------------------------------------------------

// server.go Stop: TryTransferLeadershipOnShutdown, then HardStop. A leader of several voters
// moves leadership to the longest-connected voter (MoveLeader: raft's TransferLeadership,
// then a poll every tick until that voter leads or ReqTimeout, 5 s + 2 x election timeout,
// passes); failing that it just stops. Anyone else stops at once.
void EtcdMember::start_shutdown(Env& env) {
  if (node_ == nullptr || !leader_ || confState_.voters.size() < 2) return env.exit(0);
  const std::set<raft::PeerId> voters(confState_.voters.begin(), confState_.voters.end());
  shutdownTransferee_ = api_->shutdown_transferee(voters, env.monotonic_now());
  if (shutdownTransferee_ == 0) return env.exit(0);  // ErrUnhealthy: logged, then stop
  shutdown_ = env.tag_space("etcd-shutdown");
  shutdownStart_ = env.monotonic_now();
  shutdownDeadline_ = shutdownStart_ + seconds(5) + Duration{2 * config_.electionTimeout.ns};
  node_->transfer_leader(shutdownTransferee_);
  pump(env);
  env.set_timer(config_.heartbeatInterval, shutdown_.tag());
}

void EtcdMember::shutdown_poll(Env& env) {
  HASIM_ASSERT(shutdownTransferee_ != 0);
  const bool moved = node_->basic_status().softState.lead == shutdownTransferee_;
  if (moved || env.monotonic_now() >= shutdownDeadline_) {
    const auto id = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
    env.trace(trace_kind::kMoveLeader,
              {{"member", id(id_)},
               {"transferee", id(shutdownTransferee_)},
               {"lead", id(node_->basic_status().softState.lead)},
               {"result", std::string(moved ? "shutdown-transfer" : "shutdown-transfer-timeout")},
               {"took-ms", (env.monotonic_now() - shutdownStart_).ns / 1'000'000}});
    return env.exit(0);
  }
  env.set_timer(config_.heartbeatInterval, shutdown_.tag());
}

}  // namespace hasim::etcd
