// etcdctl's member API and move-leader as the etcd system's fault kinds (scenarios/system.hpp):
//
//   {"at": "10s", "kind": "member-add-learner", "node": "n4"}      a standby node joins
//   {"at": "12s", "kind": "member-promote", "node": "n4", "retry": "1s", "attempts": 20}
//   {"at": "30s", "kind": "member-remove", "role": "raft-leader"}  or "node": "n2"
//   {"at": "20s", "kind": "move-leader", "transferee": "n2"}  "transferee" left out: the most
//                                                                   caught-up voter
//
// Each is a request to the member that leads when it fires (etcdctl's answer for a
// follower is the leader's: promote and move-leader are forwarded or refused as not
// leader), checked there as etcd does (models/etcd/membership.hpp). With "retry", the
// operator asks again that long after a refusal (or no leader), up to "attempts" times.
#include "scenarios/etcd/member_faults.hpp"

#include <algorithm>
#include <memory>

#include "models/etcd/membership.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/build.hpp"
#include "scenarios/etcd/spec.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

constexpr std::int64_t kMaxAttempts = 1'000;
constexpr std::int64_t kDefaultAttempts = 10;  // with "retry" and no "attempts"

etcd::MemberOp op_of(const std::string& kind) {
  if (kind == "member-add-learner") return etcd::MemberOp::add_learner;
  if (kind == "member-promote") return etcd::MemberOp::promote;
  if (kind == "member-remove") return etcd::MemberOp::remove;
  HASIM_ASSERT(kind == "move-leader");
  return etcd::MemberOp::move_leader;
}

// The node must run an etcd process; member-add-learner's must be a standby one.
void check_etcd_node(Context& c, const FaultSpec& spec, const std::string& node,
                     const std::string& at) {
  const EtcdSpec* etcd = c.scenario.section<EtcdSpec>();
  if (etcd == nullptr) return;
  const bool member = is_listed(etcd->members, node);
  const bool standby = is_listed(etcd->standby, node);
  if (spec.kind == "member-add-learner" && !standby) {
    c.reader.error(at, "\"" + node + "\" " +
                           (member ? std::string("is already in the initial cluster")
                                   : std::string("runs no etcd")) +
                           "; member-add-learner adds a node listed in etcd.standby (" +
                           (etcd->standby.empty()
                                ? std::string("none is")
                                : scenario_loader::join_quoted(etcd->standby, " and ") + " are") +
                           ")");
  } else if (!member && !standby) {
    c.reader.error(
        at, "\"" + node + "\" runs no etcd member; the members are " +
                scenario_loader::join_quoted(etcd->members, " and ") +
                (etcd->standby.empty() ? std::string()
                                       : " and the standby nodes " +
                                             scenario_loader::join_quoted(etcd->standby, " and ")));
  }
}

void read_retry(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const Json* retry = JsonReader::field(f, "retry");
  const Json* attempts = JsonReader::field(f, "attempts");
  if (retry != nullptr) {
    const auto d = r.duration(*retry, JsonReader::key_path(path, "retry"), DurationSign::positive);
    if (d) spec.retry = *d;
    spec.attempts = kDefaultAttempts;
  }
  if (attempts == nullptr) return;
  const std::string at = JsonReader::key_path(path, "attempts");
  if (retry == nullptr) {
    r.error(at, "\"attempts\" needs \"retry\", the wait between attempts (e.g. \"1s\")");
    return;
  }
  if (const auto n = r.integer(*attempts, at, 1, kMaxAttempts)) spec.attempts = *n;
}

void read_member_op(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  if (!c.has(EtcdSpec::kSection)) {
    c.reader.error(path, "a " + spec.kind +
                             " is a request to etcd members; add an \"etcd\" "
                             "section");
    return;
  }
  std::vector<std::string> forms{"node"};
  if (spec.kind == "member-remove") forms.push_back("role");
  const std::string form = scenario_loader::one_of(
      c.reader, f, path, forms, spec.kind,
      spec.kind == "member-remove" ? "\"node\": \"n2\" or \"role\": \"raft-leader\""
                                   : "\"node\": \"n4\"");
  const std::string at = JsonReader::key_path(path, form);
  if (form == "role") {
    scenario_loader::read_role(c, f[form], at, spec);
  } else if (form == "node") {
    const auto node = c.reader.string(f[form], at);
    if (node && scenario_loader::check_node(c, *node, at)) {
      check_etcd_node(c, spec, *node, at);
      spec.targets = {*node};
    }
  }
  read_retry(c, f, path, spec);
}

void read_move_leader(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  if (!c.has(EtcdSpec::kSection)) {
    c.reader.error(path, "a move-leader is a request to etcd members; add an \"etcd\" section");
    return;
  }
  if (const Json* to = JsonReader::field(f, "transferee")) {
    const std::string at = JsonReader::key_path(path, "transferee");
    const auto node = c.reader.string(*to, at);
    if (node && scenario_loader::check_node(c, *node, at)) {
      check_etcd_node(c, spec, *node, at);
      spec.targets = {*node};
    }
  }
  read_retry(c, f, path, spec);
}

// ---- applying ---------------------------------------------------------------------------

struct Attempt {
  World* world;
  const BuildState* built;
  FaultSpec fault;
  std::vector<std::string> processes;  // EtcdWiring::processes
  std::shared_ptr<etcd::MemberReply> reply = std::make_shared<etcd::MemberReply>();
};

// The raft ID of the fault's member (0: move-leader's "most caught-up"), resolving a role now.
std::optional<raft::PeerId> target_id(Attempt& a) {
  if (a.fault.kind == "move-leader" && a.fault.targets.empty() && a.fault.role.empty()) return 0;
  const std::vector<NodeId> nodes = node_targets(*a.world, a.fault, *a.built)();
  if (nodes.empty()) return std::nullopt;  // an unresolved role, traced
  const std::string process = a.world->node_name(nodes.front()) + "/etcd";
  const auto it = std::find(a.processes.begin(), a.processes.end(), process);
  HASIM_ASSERT(it != a.processes.end());  // the loader checked the node
  return static_cast<raft::PeerId>(it - a.processes.begin()) + 1;
}

void attempt(const std::shared_ptr<Attempt>& a, std::int64_t left) {
  HASIM_ASSERT(left >= 1);
  World& world = *a->world;
  const etcd::MemberOp op = op_of(a->fault.kind);
  const RoleKind* leader_role = find_role_kind("raft-leader");
  HASIM_ASSERT(leader_role != nullptr);
  const auto leader = leader_role->resolve(world, *a->built, "");
  const auto target = target_id(*a);
  if (leader && target) {
    const auto process = world.find_process(*leader);
    HASIM_ASSERT(process.has_value());
    world.post(*process, std::make_shared<etcd::MemberRequest>(op, *target, a->reply));
  } else if (target) {
    world.trace_fault(etcd::trace_kind::kMemberApi, "",
                      {{"op", std::string(etcd::member_op_name(op))},
                       {"target", static_cast<std::int64_t>(*target)},
                       {"result", std::string(etcd::member_error::kNoLeader)}});
  }
  if (left == 1) return;
  world.at(world.now() + a->fault.retry, [a, left] {
    if (!a->reply->ok) attempt(a, left - 1);
  });
}

void apply_member_op(World& world, const Scenario&, const FaultSpec& fault,
                     const BuildState& built) {
  const EtcdWiring* wiring = built.get<EtcdWiring>();
  HASIM_ASSERT(wiring != nullptr);  // the loader requires an etcd section
  auto a = std::make_shared<Attempt>(Attempt{&world, &built, fault, wiring->processes});
  world.at(TrueTime{fault.at.ns}, [a] { attempt(a, a->fault.attempts); });
}

// ---- writing and describing -----------------------------------------------------------

void write_member_op(const FaultSpec& f, Json& out) {
  if (f.kind == "move-leader") {
    if (!f.targets.empty()) out["transferee"] = f.targets.front();
  } else {
    write_fault_targets(f, out);
  }
  if (f.retry.ns > 0) {
    out["retry"] = duration_text(f.retry);
    out["attempts"] = f.attempts;
  }
}

std::string describe_member_op(const FaultSpec& f) {
  std::string text;
  if (f.kind == "move-leader") {
    text = "move-leader to " +
           (f.targets.empty() ? std::string("the most caught-up voter") : f.targets.front());
  } else {
    text = f.kind + " of " + fault_target_text(f);
  }
  if (f.retry.ns > 0) {
    text += " (up to " + std::to_string(f.attempts) + " attempts, " + format_duration(f.retry) +
            " apart)";
  }
  return text;
}

}  // namespace

std::vector<FaultKind> etcd_member_fault_kinds() {
  return {
      {"member-add-learner", read_member_op, apply_member_op, write_member_op, describe_member_op,
       std::nullopt},
      {"member-promote", read_member_op, apply_member_op, write_member_op, describe_member_op,
       std::nullopt},
      {"member-remove", read_member_op, apply_member_op, write_member_op, describe_member_op,
       std::nullopt},
      {"move-leader", read_move_leader, apply_member_op, write_member_op, describe_member_op,
       std::nullopt},
  };
}

std::vector<KeySet> etcd_member_key_sets() {
  return {
      {"fault:member-add-learner", {"at", "kind", "node", "retry", "attempts"}},
      {"fault:member-promote", {"at", "kind", "node", "retry", "attempts"}},
      {"fault:member-remove", {"at", "kind", "node", "role", "retry", "attempts"}},
      {"fault:move-leader", {"at", "kind", "transferee", "retry", "attempts"}},
  };
}

bool read_standby(Context& c, const Json& section, const std::string& path, EtcdSpec& spec) {
  const Json* standby = JsonReader::field(section, "standby");
  if (standby == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "standby");
  const auto list = scenario_loader::read_node_list(c, *standby, at);
  if (!list) return false;
  if (JsonReader::field(section, "members") == nullptr) {
    // The members default to every node but the standby ones.
    std::erase_if(spec.members, [&](const std::string& node) { return is_listed(*list, node); });
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    if (!is_listed(spec.members, (*list)[i])) continue;
    c.reader.error(JsonReader::index_path(at, i),
                   "\"" + (*list)[i] +
                       "\" is a member of the initial cluster (etcd.members); a "
                       "standby node runs etcd outside it until a member-add-learner");
    return false;
  }
  spec.standby = *list;
  return true;
}

}  // namespace hasim
