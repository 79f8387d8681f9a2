// node-down-after-ack: a power loss aimed at an in-flight acknowledgement, for the window
// between a member's answer leaving and its WAL write being durable:
//
//   {"at": "20s", "kind": "node-down-after-ack", "node": "n2", "ack": "MsgVoteResp", "for": "5s"}
//
// From `at`, the first time any etcd member receives an "ack" (MsgAppResp or MsgVoteResp)
// from the member on "node", that node loses power at that instant (the kernel's node-down:
// its disks keep only what was fsynced) and comes back after "for". etcd answers a MsgApp or
// a MsgVote only once the Ready that carries the answer is on disk (etcdserver/raft.go: a
// follower sends its messages after wal.Save, which fsyncs when raft.MustSync), so a correct
// member forgets nothing it acknowledged; a member that answers early loses what it promised.
// The answer itself still arrives: the receiver has taken it when the power goes.
#include "scenarios/etcd/member_faults.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "scenarios/build.hpp"
#include "scenarios/etcd/spec.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

// The answers a follower sends only once its Ready is durable (raft.MustSync: entries, or a
// new term or vote).
constexpr std::array<std::string_view, 2> kAcks{"MsgAppResp", "MsgVoteResp"};

void read_ack(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const EtcdSpec* etcd = c.scenario.section<EtcdSpec>();
  if (etcd == nullptr) {
    c.reader.error(path, "a node-down-after-ack aims at etcd members; add an \"etcd\" section");
    return;
  }
  if (const Json* v = c.reader.required(f, path, "node", "\"n2\"")) {
    const std::string at = JsonReader::key_path(path, "node");
    const auto node = c.reader.string(*v, at);
    if (node && scenario_loader::check_node(c, *node, at)) {
      const bool member = std::find(etcd->members.begin(), etcd->members.end(), *node) !=
                              etcd->members.end() ||
                          std::find(etcd->standby.begin(), etcd->standby.end(), *node) !=
                              etcd->standby.end();
      if (member) spec.targets = {*node};
      else c.reader.error(at, "\"" + *node + "\" runs no etcd member");
    }
  }
  if (const Json* v = c.reader.required(f, path, "ack", "\"MsgAppResp\"")) {
    const std::string at = JsonReader::key_path(path, "ack");
    const auto ack = c.reader.string(*v, at);
    if (ack && std::find(kAcks.begin(), kAcks.end(), *ack) != kAcks.end()) {
      spec.message = *ack;
    } else if (ack) {
      c.reader.error(at, "\"" + *ack + "\" is not an acknowledgement node-down-after-ack aims "
                         "at; use \"MsgAppResp\" or \"MsgVoteResp\"");
    }
  }
}

// Watches the receipts of the target's answers; fires once, the first time one arrives
// after it was armed.
class AckTrigger final : public TraceObserver {
 public:
  AckTrigger(World& world, NodeId node, std::string from, std::string ack,
             std::optional<Duration> down_for)
      : world_(&world), node_(node), from_(std::move(from)), ack_(std::move(ack)),
        for_(down_for) {}
  void arm() { armed_ = true; }
  bool wants(std::string_view kind) const override { return kind == trace_kind::kRecv; }
  void on_event(const TraceEvent& event) override {
    if (!armed_ || event.kind != trace_kind::kRecv || event.proc != "etcd") return;
    if (event.string_field("from") != from_ || event.string_field("msg") != ack_) return;
    armed_ = false;
    World* w = world_;
    const NodeId node = node_;
    // After the delivery that is being traced: the receiver takes the answer first.
    w->at(w->now(), [w, node] { w->node_down(node); });
    if (for_) w->at(w->now() + *for_, [w, node] { w->node_up(node); });
  }

 private:
  World* world_;
  NodeId node_;
  std::string from_;
  std::string ack_;
  std::optional<Duration> for_;
  bool armed_ = false;
};

void apply_ack(World& world, const Scenario&, const FaultSpec& fault, const BuildState&) {
  HASIM_ASSERT(fault.targets.size() == 1 && !fault.message.empty());
  auto trigger = std::make_shared<AckTrigger>(world, node_of(world, fault.targets.front()),
                                              fault.targets.front() + "/etcd", fault.message,
                                              fault.for_duration);
  world.trace().add_observer(trigger.get());
  world.keep_alive(trigger);
  world.at(TrueTime{fault.at.ns}, [trigger] { trigger->arm(); });
}

void write_ack(const FaultSpec& f, Json& out) {
  out["node"] = f.targets.front();
  out["ack"] = f.message;
}

std::string describe_ack(const FaultSpec& f) {
  return "node-down of " + f.targets.front() + " once its next " + f.message + " arrives";
}

}  // namespace

FaultKind etcd_ack_power_loss_kind() {
  return {"node-down-after-ack", read_ack, apply_ack, write_ack, describe_ack, std::nullopt};
}

KeySet etcd_ack_power_loss_keys() {
  return {"fault:node-down-after-ack", {"at", "kind", "node", "ack", "for"}};
}

}  // namespace hasim
