#include "properties/raft/raft_safety.hpp"

#include <algorithm>

#include "models/etcd/trace_entries.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

std::uint64_t u64(std::int64_t value) { return static_cast<std::uint64_t>(value); }

std::vector<raft_safety::LogEntry> to_log(const std::vector<etcd::TracedEntry>& entries) {
  std::vector<raft_safety::LogEntry> out;
  out.reserve(entries.size());
  for (const etcd::TracedEntry& e : entries) out.push_back({e.index, e.term, e.payload});
  return out;
}

}  // namespace

bool RaftSafety::wants(std::string_view kind) const {
  namespace kind_ = etcd::trace_kind;
  return kind == hasim::trace_kind::kCrash || kind == hasim::trace_kind::kExit ||
         kind == kind_::kRecovered || kind == kind_::kState || kind == kind_::kPersist ||
         kind == kind_::kInstall || kind == kind_::kApply || kind == kind_::kSnapshotRestore;
}

void RaftSafety::restored(const TraceEvent& event) {
  if (event.string_field("result") != "ok") return;
  const std::int64_t cluster = event.int_field("cluster");
  if (cluster_ != cluster) {
    cluster_ = cluster;
    checker_ = raft_safety::SafetyChecker{};
    logs_.clear();
    members_.clear();
    restored_.clear();
  }
  restored_.insert(std::string(event.node));
}

void RaftSafety::on_event(const TraceEvent& event) {
  if (event.kind == etcd::trace_kind::kSnapshotRestore) restored(event);
  if (event.proc != "etcd") return;
  if (cluster_ && !restored_.contains(event.node)) return;  // a member of the old cluster
  if (event.kind == hasim::trace_kind::kCrash || event.kind == hasim::trace_kind::kExit) {
    // A stopped member leads nothing; its restart reports what its disk kept.
    if (const auto it = members_.find(event.node); it != members_.end()) {
      checker_.on_step_down(it->second);
      logs_[it->second].leader = false;
    }
    return;
  }
  const TraceValue* member = event.find("member");
  if (member == nullptr || !std::holds_alternative<std::int64_t>(*member)) return;
  const std::uint64_t id = u64(std::get<std::int64_t>(*member));
  // Looked up before inserting: no string is built for the events of a known member.
  if (const auto it = members_.find(event.node); it == members_.end()) {
    members_.emplace(std::string(event.node), id);
  } else {
    it->second = id;
  }
  if (!observe(event, id)) {
    violate(event.t, "raft-safety: the event's entries are malformed", {describe_event(event)});
    return;
  }
  if (!checker_.ok()) {
    violate(event.t, "raft-safety: " + checker_.violation(), {describe_event(event)});
  }
}

bool RaftSafety::observe(const TraceEvent& event, std::uint64_t member) {
  namespace kind = etcd::trace_kind;
  Member& log = logs_[member];
  if (event.kind == kind::kRecovered) {
    const auto entries = etcd::decode_trace_entries(u64(event.int_field("first")),
                                                    event.string_field("ents"));
    if (!entries) return false;
    const std::uint64_t snapIndex = u64(event.int_field("snap-index"));
    checker_.on_restart(member, snapIndex, u64(event.int_field("snap-term")), to_log(*entries));
    log = Member{};
    commit(member, u64(event.int_field("commit")), u64(event.int_field("term")));
  } else if (event.kind == kind::kState) {
    const bool leader = event.string_field("state") == "StateLeader";
    if (leader) checker_.on_leader(member, u64(event.int_field("term")));
    if (!leader && log.leader) checker_.on_step_down(member);
    log.leader = leader;
  } else if (event.kind == kind::kPersist) {
    if (!append(member, u64(event.int_field("first")), event.string_field("ents"))) return false;
    commit(member, u64(event.int_field("commit")), u64(event.int_field("term")));
  } else if (event.kind == kind::kInstall) {
    const std::uint64_t index = u64(event.int_field("index"));
    checker_.on_snapshot(member, index, u64(event.int_field("term")));
    log.commit = std::max(log.commit, index);
  } else if (event.kind == kind::kApply) {
    if (!etcd::decode_trace_entries(u64(event.int_field("first")), event.string_field("ents"),
                                    traced_)) {
      return false;
    }
    for (const etcd::TracedEntry& e : traced_) {
      checker_.on_apply(member, raft_safety::LogEntry{e.index, e.term, e.payload});
    }
  }
  return true;
}

bool RaftSafety::append(std::uint64_t member, std::uint64_t first, std::string_view ents) {
  if (ents.empty()) return true;
  if (!etcd::decode_trace_entries(first, ents, traced_)) return false;
  entries_.clear();
  for (const etcd::TracedEntry& e : traced_) entries_.push_back({e.index, e.term, e.payload});
  checker_.on_append(member, entries_);
  return true;
}

void RaftSafety::commit(std::uint64_t member, std::uint64_t commit, std::uint64_t term) {
  Member& log = logs_[member];
  if (commit <= log.commit) return;
  log.commit = commit;
  checker_.on_commit(member, commit, term);
}

}  // namespace hasim
