// The etcd system's check half (properties/check_system.hpp): the raft properties, the etcd
// store's (no-lost-write, which also judges the journal demo, and quorum-recovery), the
// assumptions they rest on (members keep their disks; CheckQuorum is on) and the etcd fault
// choices (move-leader, isolating the leader, a power loss aimed at an acknowledgement).
#include "properties/raft/check.hpp"

#include "properties/etcd_store/quorum_recovery.hpp"
#include "properties/no_lost_write.hpp"
#include "properties/raft/check_quorum.hpp"
#include "properties/raft/eventually_raft_leader.hpp"
#include "properties/raft/raft_safety.hpp"
#include "scenarios/etcd/spec.hpp"
#include "sim/assert.hpp"

#include <rapidcheck.h>

namespace hasim {
namespace {

// What the etcd choices need of the space: that there are etcd members.
struct EtcdSpace {
  static constexpr std::string_view kSection = "etcd";
  std::vector<std::string> members;
};

void fill_space(const Scenario& scenario, FaultSpace& space) {
  if (const EtcdSpec* etcd = scenario.section<EtcdSpec>()) {
    space.facts.set(EtcdSpace{etcd->members});
  }
}

bool has_members(const FaultSpace& space) {
  const EtcdSpace* etcd = space.facts.get<EtcdSpace>();
  return etcd != nullptr && etcd->members.size() > 1;
}

// move-leader keeps every raft property (a transfer is an election the leader starts for
// its transferee, MsgTimeoutNow), so it is drawn within the assumptions: to a named member
// or, half the time, to the most caught-up voter.
FaultSpec move_leader(const FaultSpace& space, const Intensity&) {
  FaultSpec f;
  f.kind = "move-leader";
  if (*rc::gen::arbitrary<bool>()) f.targets = {pick(space.facts.get<EtcdSpace>()->members)};
  return f;
}

// Isolating whoever leads when the partition starts: the old leader's CheckQuorum step-down
// and the majority's election, the case raft-safety and PreVote are about.
FaultSpec isolate_leader(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "partition";
  f.partition_mode = FaultSpec::PartitionMode::isolate;
  f.role = "raft-leader";
  f.for_duration = draw_outage(space, intensity);
  return f;
}

// check-quorum's assumptions: CheckQuorum on (etcd mode hard-codes it; the paper mode and
// checkQuorum false leave it off) and clocks that start at true rate (the property reads the
// clock-rate faults, not a node's configured rate).
void check_quorum_broken(const Scenario& scenario, const EtcdSpec& spec,
                         std::vector<std::string>& out) {
  if (!names_property(scenario, "check-quorum")) return;
  if (spec.config.paper() || !spec.config.checkQuorum) {
    out.push_back("check-quorum assumes CheckQuorum, which " +
                  std::string(spec.config.paper() ? "the paper mode" : "etcd.checkQuorum false") +
                  " turns off: a leader cut off from a quorum then keeps leading");
  }
  for (const NodeSpec& node : scenario.nodes) {
    if (node.clock.rate_ppb >= 1'000'000'000) continue;
    out.push_back("check-quorum assumes clocks start at true rate, and " + node.name +
                  "'s runs slow (its leader's election timeouts take longer)");
  }
}

// A power loss aimed at an acknowledgement in flight (scenarios/etcd/ack_power_loss.cpp): a
// member's next MsgAppResp or MsgVoteResp after the fault's time cuts its node's power as
// the answer arrives, inside the window a member that acknowledged before its fsync would
// lose what it promised. Within the assumptions: etcd fsyncs first.
FaultSpec power_loss_after_ack(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "node-down-after-ack";
  f.targets = {pick(space.facts.get<EtcdSpace>()->members)};
  f.message = *rc::gen::element<std::string>("MsgAppResp", "MsgVoteResp");
  f.for_duration = draw_outage(space, intensity);
  return f;
}

bool assumes_disks(const Scenario& scenario) {
  return scenario.section<EtcdSpec>() != nullptr && names_property(scenario, "raft-safety");
}

// A lost disk (or a pod deleted with an ephemeral volume, which etcd's is not here) makes a
// member forget its vote and log.
bool forbids(const Scenario& scenario, const FaultSpace&, const FaultChoiceDef& choice) {
  return assumes_disks(scenario) && choice.name == "disk-loss";
}

void broken(const Scenario& scenario, std::vector<std::string>& out) {
  if (scenario.section<EtcdSpec>() == nullptr) return;
  check_quorum_broken(scenario, *scenario.section<EtcdSpec>(), out);
  // The named unsafe mode of issue 13 part 7: a crash can lose an acknowledged write, which
  // is what no-lost-write is there to catch.
  if (scenario.section<EtcdSpec>()->config.unsafeAckBeforeFsync &&
      names_property(scenario, "no-lost-write")) {
    out.push_back("etcd.unsafeAckBeforeFsync acknowledges before the WAL is fsynced, and "
                  "no-lost-write assumes members fsync before acknowledging");
  }
  if (!assumes_disks(scenario)) return;
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.kind != "disk-loss") continue;
    out.push_back("a disk-loss at " + format_duration(fault.at) +
                  " makes an etcd member forget its vote and log, and raft-safety assumes "
                  "members keep their disks (etcd: remove and re-add a member that lost its "
                  "data)");
  }
  const EtcdSpec& spec = *scenario.section<EtcdSpec>();
  if (spec.config.unsafeAckBeforeFsync) {
    out.push_back("etcd.unsafeAckBeforeFsync sends messages before the WAL is fsynced, and "
                  "raft-safety assumes what a member acknowledges is durable");
  }
}

std::unique_ptr<Property> make_no_lost_write(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<StoreNoLostWrite>(spec);
}

std::unique_ptr<Property> make_quorum_recovery(const std::string& spec,
                                               std::optional<Duration> bound) {
  HASIM_ASSERT(bound.has_value());
  return std::make_unique<QuorumRecovery>(spec, *bound);
}

std::unique_ptr<Property> make_raft_safety(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<RaftSafety>(spec);
}

std::unique_ptr<Property> make_check_quorum(const std::string& spec,
                                            std::optional<Duration> bound) {
  HASIM_ASSERT(bound.has_value());
  return std::make_unique<CheckQuorum>(spec, *bound);
}

std::unique_ptr<Property> make_eventually_raft_leader(const std::string& spec,
                                                 std::optional<Duration> bound) {
  HASIM_ASSERT(bound.has_value());
  return std::make_unique<EventuallyRaftLeader>(spec, *bound);
}

}  // namespace

const CheckSystem& etcd_check_system() {
  static const CheckSystem system{
      "etcd",
      {
          {{"raft-safety", "",
            "the Raft paper's Figure 3 over the etcd members: one leader per term, leaders "
            "only append, logs that share an entry share the prefix, committed entries are in "
            "every later leader's log, no two members apply different entries at one index",
            "members keep their disks (no disk-loss) and fsync before acknowledging"},
           make_raft_safety},
          {{"eventually-raft-leader", "BOUND",
            "once faults have healed and a quorum of etcd members runs, some member is raft "
            "leader within BOUND",
            "a quorum of members can reach each other once faults heal"},
           make_eventually_raft_leader},
          {{"no-lost-write", "",
            "no store loses a write it acknowledged: the client history kube-apiservers see "
            "of the etcd store (their etcd calls) is linearizable, checked per key online; and "
            "a journal (the disk demo) recovers every write it acknowledged after any restart",
            "etcd: members fsync before acknowledging and keep their disks while a quorum "
            "needs them; a journal's volume survives what happens to it (no disk loss; no pod "
            "deletion unless the volume is persistent; no power loss for a memory volume)"},
           make_no_lost_write},
          {{"quorum-recovery", "BOUND",
            "once faults heal and a quorum of etcd members runs with its data, a member is raft "
            "leader and every running kube-apiserver has had a write accepted within BOUND; "
            "when a quorum's data is gone, the run says recovery needs an operator and how "
            "many acknowledged revisions were lost",
            "the apiservers keep writing (leases renew); members keep their disks, or the "
            "verdict is the data loss"},
           make_quorum_recovery},
          {{"check-quorum", "BOUND",
            "an etcd member that leads and has heard from no quorum of voters (itself "
            "included) for BOUND on its clock steps down (CheckQuorum: within about two "
            "election timeouts)",
            "CheckQuorum is on (etcd mode) and node clocks start at true rate"},
           make_check_quorum},
      },
      {
          {"move-leader", has_members, move_leader,
           [](const FaultSpec& f) { return f.kind == "move-leader"; }},
          {"partition-raft-leader", has_members, isolate_leader,
           [](const FaultSpec& f) { return f.kind == "partition" && f.role == "raft-leader"; },
           true},
          {"node-down-after-ack", has_members, power_loss_after_ack,
           [](const FaultSpec& f) { return f.kind == "node-down-after-ack"; }, true},
      },
      fill_space,
      forbids,
      broken,
  };
  return system;
}

}  // namespace hasim
