#include "properties/raft/check_quorum.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/int128.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

constexpr std::int64_t kTrueRate = 1'000'000'000;  // ppb

std::string member_name(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

std::string_view node_of(std::string_view member) {
  return member.substr(0, member.find('/'));
}

// The bound on a clock running at `rate_ppb`: a slow clock ticks raft less often.
Duration stretched(Duration bound, std::int64_t rate_ppb) {
  HASIM_ASSERT(rate_ppb > 0);
  if (rate_ppb >= kTrueRate) return bound;
  const Int128 ns = static_cast<Int128>(bound.ns) * kTrueRate / rate_ppb;
  return Duration{static_cast<std::int64_t>(ns)};
}

}  // namespace

bool CheckQuorum::wants(std::string_view kind) const {
  namespace k = trace_kind;
  namespace e = etcd::trace_kind;
  return kind == k::kRecv || kind == k::kCrash || kind == k::kExit || kind == k::kPause ||
         kind == k::kResume || kind == k::kNodeDown || kind == k::kClockRate ||
         kind == e::kRecovered || kind == e::kState || kind == e::kConfChange;
}

void CheckQuorum::on_event(const TraceEvent& event) {
  if (event.proc.empty()) {
    observe_node(event);
  } else if (event.proc == "etcd") {
    observe_member(event, member_name(event));
  }
  check(event.t);
}

void CheckQuorum::observe_node(const TraceEvent& event) {
  if (event.kind == trace_kind::kClockRate) {
    rates_[std::string(event.node)] = event.int_field("rate_ppb", kTrueRate);
    // Its leaders count from here at the new rate.
    for (auto& [name, leader] : leaders_) {
      if (node_of(name) == event.node) leader.since = event.t;
    }
  } else if (event.kind == trace_kind::kNodeDown) {
    std::erase_if(leaders_, [&](const auto& l) { return node_of(l.first) == event.node; });
  }
}

void CheckQuorum::observe_member(const TraceEvent& event, const std::string& name) {
  namespace e = etcd::trace_kind;
  const std::string_view kind = event.kind;
  if (kind == trace_kind::kRecv) {
    const std::string_view from = event.string_field("from");
    const auto it = leaders_.find(name);
    if (it != leaders_.end() && from != name && from.ends_with("/etcd")) {
      it->second.heard[std::string(from)] = event.t;
    }
  } else if (kind == e::kState) {
    if (event.string_field("state") != "StateLeader") {
      leaders_.erase(name);
    } else {
      leaders_[name] = Leader{event.t, event.int_field("term"), false, {}};
    }
  } else if (kind == trace_kind::kCrash || kind == trace_kind::kExit) {
    leaders_.erase(name);
  } else if (kind == trace_kind::kPause || kind == trace_kind::kResume) {
    if (const auto it = leaders_.find(name); it != leaders_.end()) {
      it->second.paused = kind == trace_kind::kPause;
      it->second.since = event.t;
    }
  } else if (kind == e::kRecovered) {
    // A member's first start: from the bootstrap snapshot (a voter of the initial cluster)
    // or, a standby member, empty.
    const std::int64_t id = event.int_field("member");
    if (seen_.insert(id).second && event.int_field("snap-index") > 0) voters_.insert(id);
  } else if (kind == e::kConfChange) {
    const std::string_view type = event.string_field("type");
    const std::int64_t id = event.int_field("node");
    if (type == "ConfChangeAddNode") voters_.insert(id);
    if (type == "ConfChangeRemoveNode" || type == "ConfChangeAddLearnerNode") voters_.erase(id);
  }
}

std::optional<TrueTime> CheckQuorum::due(const std::string& name, const Leader& leader) const {
  HASIM_ASSERT(!name.empty() && leader.term >= 0);
  const std::size_t needed = quorum() - 1;  // peers besides the leader itself
  if (leader.paused || needed == 0) return std::nullopt;
  std::vector<TrueTime> heard;
  heard.reserve(leader.heard.size());
  for (const auto& [peer, t] : leader.heard) heard.push_back(t);
  std::sort(heard.begin(), heard.end(), std::greater<>());
  // It has heard from a quorum until the needed-th most recent peer's message is BOUND old.
  TrueTime from = leader.since;
  if (heard.size() >= needed) from = std::max(from, heard[needed - 1]);
  const auto rate = rates_.find(node_of(name));
  return from + stretched(bound_, rate == rates_.end() ? kTrueRate : rate->second);
}

void CheckQuorum::check(TrueTime now) {
  if (violation()) return;
  for (const auto& [name, leader] : leaders_) {
    const std::optional<TrueTime> at = due(name, leader);
    if (!at || now <= *at) continue;
    violate(*at,
            name + " led term " + std::to_string(leader.term) + " and heard from no quorum of " +
                "the " + std::to_string(voters_.size()) + " voters (" +
                std::to_string(quorum() - 1) + " peer(s) besides itself) for " +
                format_duration(bound_) + " on its clock, and had not stepped down by t=" +
                format_seconds(now.ns) +
                "s (CheckQuorum steps a leader down within about two election timeouts)",
            {});
    return;
  }
}

void CheckQuorum::finish(TrueTime end) { check(end); }

}  // namespace hasim
