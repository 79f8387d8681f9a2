#include "models/etcd/raft_roles.hpp"

#include "models/etcd/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim::etcd {

bool RaftRoles::reads(std::string_view kind) {
  return kind == hasim::trace_kind::kNodeDown || kind == trace_kind::kRecovered ||
         kind == trace_kind::kState || kind == hasim::trace_kind::kCrash ||
         kind == hasim::trace_kind::kExit;
}

void RaftRoles::observe(const TraceEvent& event) {
  const std::string_view kind = event.kind;
  if (!reads(kind)) return;  // before any string is built: most events are of other kinds
  if (kind == hasim::trace_kind::kNodeDown) {
    const std::string prefix = std::string(event.node) + "/";
    for (auto& [name, member] : members_) {
      if (name.compare(0, prefix.size(), prefix) == 0) member = Member{};
    }
    return;
  }
  if (!is_member_process(event.proc)) return;
  const std::string name = std::string(event.node) + "/" + std::string(event.proc);
  if (kind == trace_kind::kRecovered) {
    members_[name] = Member{true, false, event.int_field("term")};
  } else if (kind == trace_kind::kState) {
    Member& m = members_[name];
    m.leader = event.string_field("state") == "StateLeader";
    m.term = event.int_field("term");
  } else if (kind == hasim::trace_kind::kCrash || kind == hasim::trace_kind::kExit) {
    if (auto it = members_.find(name); it != members_.end()) it->second = Member{};
  }
}

std::optional<std::string> RaftRoles::leader() const {
  std::optional<std::string> out;
  std::int64_t term = -1;
  for (const auto& [name, member] : members_) {
    if (member.up && member.leader && member.term > term) {
      out = name;
      term = member.term;
    }
  }
  return out;
}

std::size_t RaftRoles::up() const {
  std::size_t n = 0;
  for (const auto& [name, member] : members_) n += member.up ? 1 : 0;
  return n;
}

}  // namespace hasim::etcd
