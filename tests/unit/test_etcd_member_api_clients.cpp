// The etcd member API as a client over the network reaches it (models/etcd/member_clients.cpp):
// an etcd-backup-restore sidecar lists the members, adds a learner through any member,
// reads Status (cluster ID, learner), and the members reach each other through the address
// book (MemberDirectory::set_address), so a pod re-created on another node, or one with an ID
// a client added at runtime, is still reached.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "etcd_kv_rig.hpp"
#include "models/etcd/kv_api.hpp"
#include "models/etcd/member.hpp"
#include "models/etcd/membership.hpp"
#include "sim/world.hpp"

using namespace hasim;
using hasim::testing::KindLog;
using hasim::testing::kv_status;

namespace Catch {
template <>
struct StringMaker<etcd::MemberInfo> {
  static std::string convert(const etcd::MemberInfo& m) {
    return "{" + std::to_string(m.id) + " \"" + m.name + "\"" + (m.is_learner ? " learner}" : "}");
  }
};
}  // namespace Catch

namespace {

constexpr std::int64_t kMs = 1'000'000;
// rafthttp's streams must have been active for HealthInterval (5 s) before a member add
// passes mayAddMember on a three-member cluster.
constexpr std::int64_t kHealthy = 6'000;

struct ClientLog {
  std::map<std::uint64_t, std::shared_ptr<const etcd::MemberResponse>> members;
  std::map<std::uint64_t, std::shared_ptr<const etcd::KvStatusResponse>> statuses;
  std::map<std::uint64_t, ProcessId> from;  // who sent the answer, by call
};

// What a call sends, decided when it goes out: (to, request).
using Send = std::function<std::pair<ProcessId, Message>()>;
struct Call {
  std::int64_t at_ms = 0;
  Send send;
};

// The sidecar's clientv3, reduced to a script: each call at its time, every answer kept.
class ScriptedClient final : public Process {
 public:
  ScriptedClient(std::shared_ptr<std::vector<Call>> calls, std::shared_ptr<ClientLog> log)
      : calls_(std::move(calls)), log_(std::move(log)) {}
  void on_start(Env& env) override {
    tags_ = env.tag_space("script");
    for (std::size_t i = 0; i < calls_->size(); ++i) {
      env.set_timer(milliseconds((*calls_)[i].at_ms), tags_.tag(i));
    }
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    auto [to, request] = calls_->at(tags_.local(tag)).send();
    env.send(to, std::move(request));
  }
  void on_message(Env&, ProcessId from, const Message& message) override {
    if (auto r = std::dynamic_pointer_cast<const etcd::MemberResponse>(message)) {
      REQUIRE(log_->members.count(r->client_id) == 0);  // one answer per call
      log_->from[r->client_id] = from;
      log_->members[r->client_id] = std::move(r);
    } else if (auto s = std::dynamic_pointer_cast<const etcd::KvStatusResponse>(message)) {
      log_->statuses[s->client_id] = std::move(s);
    }
  }

 private:
  std::shared_ptr<std::vector<Call>> calls_;
  std::shared_ptr<ClientLog> log_;
  TagSpace tags_;
};

// Nodes n1..n5 and c in one zone. The members etcd-main-0..2 run on n1..n3 (raft IDs 1..3),
// each on its own network disk (a cloud PersistentVolume: the pod may move); `extra` pods
// etcd-main-3.. (IDs 4..) on n4.. start only when the test starts them, with an ID a client
// adds at runtime (beyond members and standby: only the address book knows them).
class PodRig {
 public:
  PodRig(bool address_book, int extra, std::int64_t rate = 0)
      : directory_(std::make_shared<etcd::MemberDirectory>()),
        calls_(std::make_shared<std::vector<Call>>()),
        log_(std::make_shared<ClientLog>()) {
    std::vector<NodeSetup> nodes;
    for (const char* n : {"n1", "n2", "n3", "n4", "n5", "c"}) {
      nodes.push_back(NodeSetup{n, "z", LocalClock{}});
    }
    WorldOptions options;
    options.seed = 7;
    world_ = std::make_unique<World>(std::move(nodes), options);
    etcd::EtcdConfig config;
    config.rate = rate;
    config.directory = directory_;
    for (int i = 0; i < 3; ++i) config.members.push_back(qualified(i));
    for (int i = 0; i < 3 + extra; ++i) add_pod(config, i, i < 3, address_book);
    world_->add_process(5, "client", [calls = calls_, log = log_] {
      return std::make_unique<ScriptedClient>(calls, log);
    });
    world_->set_stop_handler([this](ProcessId p, StopReason, int) {
      for (std::size_t i = 0; i < processes_.size(); ++i) {
        if (processes_[i] == p) *slots_[i] = nullptr;
      }
    });
  }

  static std::string pod(int i) { return "etcd-main-" + std::to_string(i); }
  static std::string qualified(int i) { return "n" + std::to_string(i + 1) + "/" + pod(i); }
  ProcessId process(raft::PeerId id) const { return processes_.at(id - 1); }
  const etcd::EtcdMember* member(raft::PeerId id) const { return *slots_.at(id - 1); }
  etcd::MemberDirectory& directory() { return *directory_; }
  World& world() { return *world_; }
  const ClientLog& log() const { return *log_; }

  // The member of 1..3 that leads, as the running members see it; 0 if none.
  raft::PeerId leader() const {
    for (raft::PeerId id = 1; id <= 3; ++id) {
      const etcd::EtcdMember* m = member(id);
      if (m != nullptr && m->kv().status().leader == id) return id;
    }
    return 0;
  }
  raft::PeerId follower() const {
    const raft::PeerId lead = leader();
    REQUIRE(lead != 0);
    return lead == 1 ? 2 : 1;
  }
  void call(std::int64_t at_ms, Send send) { calls_->push_back(Call{at_ms, std::move(send)}); }
  void run_until_ms(std::int64_t ms) {
    REQUIRE(world_->run_until(TrueTime{ms * kMs}).status == RunStatus::completed);
  }
  const etcd::MemberResponse& response(std::uint64_t client_id) const {
    const auto it = log_->members.find(client_id);
    INFO("call " << client_id);
    REQUIRE(it != log_->members.end());
    return *it->second;
  }
  const etcd::KvStatus& status(std::uint64_t client_id) const {
    const auto it = log_->statuses.find(client_id);
    INFO("status call " << client_id);
    REQUIRE(it != log_->statuses.end());
    return it->second->status;
  }

 private:
  void add_pod(etcd::EtcdConfig config, int i, bool member, bool address_book) {
    const std::string disk = "pd-" + std::to_string(i);
    world_->add_network_disk("z", disk, DiskParams{});
    if (!member) config.name = pod(i);  // the pod's etcd --name (configured ones: by default)
    auto slot = std::make_shared<const etcd::EtcdMember*>(nullptr);
    const auto id = static_cast<raft::PeerId>(i + 1);
    const ProcessId p = world_->add_process(
        static_cast<NodeId>(i), pod(i),
        [config, id, slot] {
          auto m = std::make_unique<etcd::EtcdMember>(config, id);
          *slot = m.get();
          return m;
        },
        member ? StartPolicy::with_node : StartPolicy::on_demand);
    world_->add_volume(p, std::string(etcd::EtcdMember::kVolume), disk, VolumeKind::persistent);
    if (member && address_book) directory_->set_address(id, p);
    slots_.push_back(slot);
    processes_.push_back(p);
  }

  std::unique_ptr<World> world_;
  std::shared_ptr<etcd::MemberDirectory> directory_;
  std::vector<std::shared_ptr<const etcd::EtcdMember*>> slots_;
  std::vector<ProcessId> processes_;
  std::shared_ptr<std::vector<Call>> calls_;
  std::shared_ptr<ClientLog> log_;
};

Message member_call(etcd::MemberOp op, raft::PeerId target, std::uint64_t client_id) {
  auto r = std::make_shared<etcd::MemberRequest>(op, target, nullptr);
  r->client_id = client_id;
  return r;
}

std::vector<etcd::MemberInfo> started_three() {
  return {{1, PodRig::pod(0), false}, {2, PodRig::pod(1), false}, {3, PodRig::pod(2), false}};
}

}  // namespace

TEST_CASE("member list is served by the leader and by a follower, by ID, with names",
          "[etcd][etcd-member-clients]") {
  PodRig rig(/*address_book=*/true, 0);
  auto asked = std::make_shared<std::map<std::uint64_t, raft::PeerId>>();
  const auto at = [&rig, asked](std::uint64_t call, bool leader) {
    const raft::PeerId id = leader ? rig.leader() : rig.follower();
    REQUIRE(id != 0);
    (*asked)[call] = id;
    return rig.process(id);
  };
  rig.call(3'000, [&] { return std::pair{at(1, true), member_call(etcd::MemberOp::list, 0, 1)}; });
  rig.call(3'000, [&] { return std::pair{at(2, false), member_call(etcd::MemberOp::list, 0, 2)}; });
  rig.call(3'000, [&] { return std::pair{at(3, false), Message(kv_status(3))}; });
  rig.run_until_ms(3'500);

  for (std::uint64_t call : {1, 2}) {
    const etcd::MemberResponse& r = rig.response(call);
    INFO("call " << call << ": " << r.error);
    CHECK(r.ok);
    CHECK(r.op == etcd::MemberOp::list);
    CHECK(r.member_id == asked->at(call));  // answered by the member asked, not forwarded
    CHECK(r.members == started_three());
  }
  CHECK(asked->at(1) != asked->at(2));
  // Status: the member's raft ID, its cluster's nonzero ID, not a learner.
  const etcd::KvStatus& st = rig.status(3);
  CHECK(st.member_id == asked->at(3));
  CHECK(st.cluster_id == etcd::bootstrap_cluster_id(3));
  CHECK(st.cluster_id != 0);
  CHECK_FALSE(st.is_learner);
  CHECK(st.leader == asked->at(1));
}

TEST_CASE("a follower forwards a client's add-learner to the leader, which answers the client",
          "[etcd][etcd-member-clients]") {
  PodRig rig(/*address_book=*/true, 1);
  auto reply = std::make_shared<etcd::MemberReply>();
  auto leader = std::make_shared<raft::PeerId>(0);
  CHECK(rig.directory().next_member_id() == 4);  // one past the largest addressed ID
  rig.world().at(TrueTime{(kHealthy - 200) * kMs}, [&rig, reply, leader] {
    CHECK(rig.directory().next_member_id() == 4);
    *leader = rig.leader();
    REQUIRE(*leader != 0);
    // The scenario's requests (client_id 0) keep today's path: a follower refuses them.
    rig.world().post(rig.process(rig.follower()),
                     std::make_shared<etcd::MemberRequest>(etcd::MemberOp::add_learner, 4, reply));
  });
  rig.call(kHealthy, [&rig] {
    rig.directory().set_address(4, rig.process(4));  // the new member's peer URLs
    return std::pair{rig.process(rig.follower()), member_call(etcd::MemberOp::add_learner, 4, 1)};
  });
  rig.call(kHealthy + 500, [&rig] {
    return std::pair{rig.process(rig.follower()), member_call(etcd::MemberOp::list, 0, 2)};
  });
  rig.run_until_ms(kHealthy + 1'000);

  CHECK_FALSE(reply->ok);
  CHECK(reply->error == etcd::member_error::kNotLeader);
  const etcd::MemberResponse& add = rig.response(1);
  INFO(add.error);
  REQUIRE(add.ok);
  CHECK(add.op == etcd::MemberOp::add_learner);
  CHECK(add.target == 4);
  CHECK(add.member_id == *leader);  // the leader checked and proposed it
  CHECK(rig.log().from.at(1) == rig.process(*leader));
  // The follower applied it: member 4 is a learner, nameless until it starts.
  std::vector<etcd::MemberInfo> expected = started_three();
  expected.push_back({4, "", true});
  CHECK(rig.response(2).members == expected);
  CHECK(rig.directory().next_member_id() == 5);
}

TEST_CASE("a follower without a leader answers as etcd's blocked calls end, and still lists",
          "[etcd][etcd-member-clients]") {
  PodRig rig(/*address_book=*/true, 1);
  auto cut = std::make_shared<raft::PeerId>(0);
  rig.world().at(TrueTime{3'000 * kMs}, [&rig, cut] {
    *cut = rig.follower();
    std::vector<DirectedEdge> edges;
    for (NodeId other = 0; other < 3; ++other) {
      if (other + 1 == *cut) continue;
      edges.emplace_back(static_cast<NodeId>(*cut - 1), other);
      edges.emplace_back(other, static_cast<NodeId>(*cut - 1));
    }
    rig.world().partition(std::move(edges));
  });
  // PreVote: the cut-off follower becomes a pre-candidate, which forgets its leader.
  const auto to_cut = [&rig, cut] { return rig.process(*cut); };
  rig.call(6'000, [&rig, to_cut] {
    rig.directory().set_address(4, rig.process(4));
    return std::pair{to_cut(), member_call(etcd::MemberOp::add_learner, 4, 1)};
  });
  rig.call(6'000, [to_cut] {
    return std::pair{to_cut(), member_call(etcd::MemberOp::promote, 3, 2)};
  });
  rig.call(6'000, [to_cut] {
    return std::pair{to_cut(), member_call(etcd::MemberOp::list, 0, 3)};
  });
  rig.call(6'000, [to_cut] { return std::pair{to_cut(), Message(kv_status(4))}; });
  rig.run_until_ms(6'500);

  REQUIRE(*cut != 0);
  CHECK(rig.status(4).leader == 0);
  CHECK(rig.response(1).error == etcd::member_error::kDeadlineExceeded);
  CHECK(rig.response(2).error == etcd::member_error::kNoLeader);
  CHECK(rig.response(1).member_id == *cut);
  CHECK(rig.response(3).ok);
  CHECK(rig.response(3).members == started_three());
}

TEST_CASE("a member with an address-book ID beyond the configured ones joins by snapshot",
          "[etcd][etcd-member-clients]") {
  PodRig rig(/*address_book=*/true, 1, /*rate=*/50);
  KindLog installs("raft-install");
  rig.world().trace().add_observer(&installs);
  rig.call(kHealthy, [&rig] {
    const raft::PeerId id = rig.directory().next_member_id();
    REQUIRE(id == 4);
    rig.directory().set_address(id, rig.process(id));
    return std::pair{rig.process(rig.leader()), member_call(etcd::MemberOp::add_learner, id, 1)};
  });
  // The pod's etcd starts once it was added (initial-cluster-state existing): empty.
  rig.world().at(TrueTime{(kHealthy + 200) * kMs}, [&rig] { rig.world().restart(rig.process(4)); });
  rig.call(kHealthy + 1'500, [&rig] { return std::pair{rig.process(4), Message(kv_status(2))}; });
  rig.call(kHealthy + 1'500, [&rig] {
    return std::pair{rig.process(4), member_call(etcd::MemberOp::list, 0, 3)};
  });
  rig.call(kHealthy + 3'000, [&rig] {
    return std::pair{rig.process(rig.follower()), member_call(etcd::MemberOp::promote, 4, 4)};
  });
  rig.call(kHealthy + 3'500, [&rig] { return std::pair{rig.process(4), Message(kv_status(5))}; });
  rig.call(kHealthy + 3'500, [&rig] {
    return std::pair{rig.process(rig.follower()), member_call(etcd::MemberOp::list, 0, 6)};
  });
  rig.run_until_ms(kHealthy + 4'000);

  INFO(rig.response(1).error);
  REQUIRE(rig.response(1).ok);
  // It caught up from the leader's snapshot: its log had nothing, the leader's starts at 2.
  bool installed = false;
  for (const auto& e : installs.events) installed = installed || e.int_field("member") == 4;
  CHECK(installed);
  const etcd::KvStatus& learner = rig.status(2);
  CHECK(learner.is_learner);
  CHECK(learner.member_id == 4);
  CHECK(learner.cluster_id == etcd::bootstrap_cluster_id(3));
  // A learner serves Status, not the Cluster service.
  CHECK(rig.response(3).error == etcd::member_error::kNotSupportedForLearner);
  INFO(rig.response(4).error);
  CHECK(rig.response(4).ok);
  const etcd::KvStatus& voter = rig.status(5);
  CHECK_FALSE(voter.is_learner);
  CHECK(voter.leader != 0);
  std::vector<etcd::MemberInfo> expected = started_three();
  expected.push_back({4, PodRig::pod(3), false});  // started: its --name published
  CHECK(rig.response(6).members == expected);
  const etcd::EtcdMember* leader = rig.member(rig.leader());
  REQUIRE(leader != nullptr);
  CHECK(rig.member(4)->kv().status().raft_applied_index + 20 >=
        leader->kv().status().raft_applied_index);
}

TEST_CASE("a member whose pod moved to another node is still reached and catches up",
          "[etcd][etcd-member-clients]") {
  PodRig rig(/*address_book=*/true, 0, /*rate=*/50);
  auto moved = std::make_shared<raft::PeerId>(0);
  rig.world().at(TrueTime{3'000 * kMs}, [&rig, moved] {
    *moved = rig.follower();
    const ProcessId p = rig.process(*moved);
    rig.world().crash(p);
    rig.world().move_process(p, 4);  // n5: its "node/name" changes, its ProcessId does not
  });
  rig.world().at(TrueTime{4'000 * kMs},
                 [&rig, moved] { rig.world().restart(rig.process(*moved)); });
  auto behind = std::make_shared<std::uint64_t>(0);
  rig.world().at(TrueTime{5'000 * kMs}, [&rig, behind] {
    *behind = rig.member(rig.leader())->kv().status().raft_applied_index;
  });
  rig.call(7'000, [&rig, moved] {
    return std::pair{rig.process(*moved), member_call(etcd::MemberOp::list, 0, 1)};
  });
  rig.run_until_ms(7'500);

  REQUIRE(*moved != 0);
  const ProcessId p = rig.process(*moved);
  CHECK(rig.world().process_name(p) == "n5/" + PodRig::pod(static_cast<int>(*moved) - 1));
  const etcd::EtcdMember* m = rig.member(*moved);
  REQUIRE(m != nullptr);
  CHECK(m->kv().status().leader == rig.leader());
  CHECK(*behind > 0);
  CHECK(m->kv().status().raft_applied_index > *behind);  // it applied what came after 5 s
  CHECK(rig.response(1).ok);
  CHECK(rig.response(1).members == started_three());
}
