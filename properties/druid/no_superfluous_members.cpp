#include "properties/druid/no_superfluous_members.hpp"

#include <algorithm>
#include <vector>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

namespace wk = workloads::trace_kind;

std::string id_list(const std::set<std::uint64_t>& ids) {
  std::string out;
  for (const std::uint64_t id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out.empty() ? "none" : out;
}

}  // namespace

NoSuperfluousMembers::NoSuperfluousMembers(std::string spec, Duration settle)
    : Property(std::move(spec)), settle_(settle) {
  HASIM_ASSERT(settle.ns > 0);
}

bool NoSuperfluousMembers::is_change(std::string_view kind) {
  return kind == wk::kPodCreate || kind == wk::kPodDelete || kind == wk::kPodGone ||
         kind == wk::kPodScheduled || druid_props::EtcdMembership::wants(kind);
}

bool NoSuperfluousMembers::wants(std::string_view kind) const { return is_change(kind); }

void NoSuperfluousMembers::on_event(const TraceEvent& event) {
  if (!is_change(event.kind)) return;  // observers see every event; only changes matter
  // A settle point strictly before this change was reached in the state before it.
  if (!checked_ && last_change_ && *last_change_ + settle_ < event.t) {
    check(*last_change_ + settle_);
  }
  membership_.on_event(event);
  if (event.kind == wk::kSetScaled) {
    replicas_ = event.int_field("replicas");
  } else if (event.kind == wk::kPodCreate || event.kind == wk::kPodGone) {
    pods_[std::string(event.string_field("pod"))].exists = event.kind == wk::kPodCreate;
  } else if (event.kind == druid::trace_kind::kEtcdStart) {
    pods_[std::string(event.string_field("pod"))].id =
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, event.int_field("member")));
  }
  last_change_ = event.t;
  last_cause_ = describe_event(event);
  checked_ = false;
  if (window_ != kNoWindow) {
    close_window(window_, event.t);  // no longer settled: nothing is claimed until it is
    window_ = kNoWindow;
  }
}

void NoSuperfluousMembers::finish(TrueTime end) {
  if (!checked_ && last_change_ && *last_change_ + settle_ <= end) check(*last_change_ + settle_);
  close_open_windows(end);
}

void NoSuperfluousMembers::check(TrueTime at) {
  HASIM_ASSERT(!checked_ && window_ == kNoWindow);
  checked_ = true;
  if (!replicas_ || *replicas_ == 0 || !membership_.bootstrapped()) return;
  std::string problem = mismatch();
  if (problem.empty()) return;
  std::string detail = "settled at " + format_duration(Duration{at.ns}) + " (nothing changed for " +
                       format_duration(settle_) + "), " + problem;
  window_ = open_window(at, detail);
  violate(at, std::move(detail), {last_cause_});
}

// "" if the member list matches the pods, else what does not.
std::string NoSuperfluousMembers::mismatch() const {
  const std::set<std::uint64_t> members = membership_.members();
  std::vector<std::string> problems;
  if (members.size() != static_cast<std::size_t>(*replicas_)) {
    problems.push_back("etcd has " + std::to_string(members.size()) + " members (" +
                       id_list(members) + ") but the StatefulSet has " +
                       std::to_string(*replicas_) + " replicas");
  }
  for (const std::uint64_t id : members) {
    std::string last_pod;  // the pod whose latest etcd ran it, if any
    bool owned = false;
    for (const auto& [name, pod] : pods_) {
      if (pod.id != id) continue;
      last_pod = name;
      owned = owned || pod.exists;
    }
    if (owned) continue;
    problems.push_back(
        "member " + std::to_string(id) + " belongs to no existing pod" +
        (last_pod.empty() ? " (no pod ran it)" : " (" + last_pod + " ran it, gone)"));
  }
  std::string out;
  for (const std::string& p : problems) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace hasim
