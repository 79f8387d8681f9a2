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

// The value of `key`, looked for first at position `at`, where the member emits it
// (models/etcd/member.cpp), then anywhere: the frequent events (a persisted Ready, an
// applied batch) are read without a search per field, and any other order still reads right.
const TraceValue* field(const TraceEvent& event, std::size_t at, std::string_view key) {
  if (at < event.fields.size() && event.fields[at].key == key) return &event.fields[at].value;
  return event.find(key);
}

// TraceEvent::int_field and string_field over field(): 0 and "" if absent or of another type.
std::uint64_t int_at(const TraceEvent& event, std::size_t at, std::string_view key) {
  const TraceValue* value = field(event, at, key);
  const auto* number = value == nullptr ? nullptr : std::get_if<std::int64_t>(value);
  return number == nullptr ? 0 : u64(*number);
}
std::string_view string_at(const TraceEvent& event, std::size_t at, std::string_view key) {
  const TraceValue* value = field(event, at, key);
  const auto* text = value == nullptr ? nullptr : std::get_if<std::string>(value);
  return text == nullptr ? std::string_view() : std::string_view(*text);
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

RaftSafety::Member& RaftSafety::log_of(std::uint64_t member) {
  for (auto& [id, log] : logs_) {
    if (id == member) return log;
  }
  return logs_.emplace_back(member, Member{}).second;
}

std::uint64_t* RaftSafety::member_id(std::string_view node) {
  for (auto& [name, id] : members_) {
    if (name == node) return &id;
  }
  return nullptr;
}

void RaftSafety::on_event(const TraceEvent& event) {
  if (event.kind == etcd::trace_kind::kSnapshotRestore) restored(event);
  if (event.proc != "etcd") return;
  if (cluster_ && !restored_.contains(event.node)) return;  // a member of the old cluster
  if (event.kind == hasim::trace_kind::kCrash || event.kind == hasim::trace_kind::kExit) {
    // A stopped member leads nothing; its restart reports what its disk kept.
    if (const std::uint64_t* id = member_id(event.node)) {
      checker_.on_step_down(*id);
      log_of(*id).leader = false;
    }
    return;
  }
  const TraceValue* member = field(event, 0, "member");
  if (member == nullptr || !std::holds_alternative<std::int64_t>(*member)) return;
  const std::uint64_t id = u64(std::get<std::int64_t>(*member));
  // Looked up before inserting: no string is built for the events of a known member.
  if (std::uint64_t* known = member_id(event.node)) {
    *known = id;
  } else {
    members_.emplace_back(std::string(event.node), id);
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
  Member& log = log_of(member);
  if (event.kind == kind::kRecovered) {
    const auto entries = etcd::decode_trace_entries(u64(event.int_field("first")),
                                                    event.string_field("ents"));
    if (!entries) return false;
    const std::uint64_t snapIndex = u64(event.int_field("snap-index"));
    checker_.on_restart(member, snapIndex, u64(event.int_field("snap-term")), to_log(*entries));
    log = Member{};
    commit(member, log, u64(event.int_field("commit")), u64(event.int_field("term")));
  } else if (event.kind == kind::kState) {
    const bool leader = event.string_field("state") == "StateLeader";
    if (leader) checker_.on_leader(member, u64(event.int_field("term")));
    if (!leader && log.leader) checker_.on_step_down(member);
    log.leader = leader;
  } else if (event.kind == kind::kPersist) {
    // member, first, ents, term, commit (EtcdMember::trace_persist).
    if (!append(member, int_at(event, 1, "first"), string_at(event, 2, "ents"))) return false;
    commit(member, log, int_at(event, 4, "commit"), int_at(event, 3, "term"));
  } else if (event.kind == kind::kInstall) {
    const std::uint64_t index = u64(event.int_field("index"));
    checker_.on_snapshot(member, index, u64(event.int_field("term")));
    log.commit = std::max(log.commit, index);
  } else if (event.kind == kind::kApply) {
    // member, first, ents, ... (EtcdMember::apply).
    if (!etcd::decode_trace_entries(int_at(event, 1, "first"), string_at(event, 2, "ents"),
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

void RaftSafety::commit(std::uint64_t member, Member& log, std::uint64_t commit,
                        std::uint64_t term) {
  if (commit <= log.commit) return;
  log.commit = commit;
  checker_.on_commit(member, commit, term);
}

}  // namespace hasim
