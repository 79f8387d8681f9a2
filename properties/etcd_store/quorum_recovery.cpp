#include "properties/etcd_store/quorum_recovery.hpp"

#include <algorithm>

#include "models/apiserver/trace_kinds.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

namespace lin = linearizability;

namespace {

constexpr std::string_view kApiserverProc = "kube-apiserver";

std::string process_name(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

// A member's name for the books: "node/etcd" for a member bound to its node, the process
// alone for etcd-druid's "<pod>.etcd", whose pod (and data) moves between nodes.
std::string member_key(std::string_view node, std::string_view proc) {
  if (proc == "etcd") return std::string(node) + "/" + std::string(proc);
  return std::string(proc);
}

bool on_node(std::string_view process, std::string_view node) {
  return process.size() > node.size() && process.compare(0, node.size(), node) == 0 &&
         process[node.size()] == '/';
}

bool member_kind(std::string_view kind) {
  namespace e = etcd::trace_kind;
  return kind == e::kRecovered || kind == e::kPersist || kind == e::kInstall || kind == e::kApply ||
         kind == e::kFatal;
}

}  // namespace

std::int64_t count_trace_entries(std::string_view ents) {
  std::int64_t count = 0;
  std::size_t start = 0;
  while (start < ents.size()) {
    std::size_t end = ents.find(' ', start);
    if (end == std::string_view::npos) end = ents.size();
    const std::string_view run = ents.substr(start, end - start);
    const std::size_t colon = run.find(':');
    if (colon != std::string_view::npos && colon + 1 < run.size()) {
      count += 1 + std::count(run.begin() + static_cast<std::ptrdiff_t>(colon), run.end(), ',');
    }
    start = end + 1;
  }
  HASIM_ASSERT(count >= 0);
  return count;
}

bool QuorumRecovery::busy_kind(std::string_view kind) {
  namespace e = etcd::trace_kind;
  return kind == api::trace_kind::kEtcdCall || kind == api::trace_kind::kEtcdCallEnd ||
         kind == e::kPersist || kind == e::kApply || kind == api::trace_kind::kWrite;
}

bool QuorumRecovery::wants(std::string_view kind) const {
  return FaultsInForce::wants(kind) || etcd::RaftRoles::reads(kind) || EtcdCalls::reads(kind) ||
         member_kind(kind) || kind == trace_kind::kDiskLoss || kind == trace_kind::kStart ||
         kind == etcd::trace_kind::kSnapshotRestore || kind == api::trace_kind::kWrite ||
         kind == trace_kind::kPodDelete || kind == workloads::trace_kind::kClaimDeleted ||
         kind == druid::trace_kind::kRestore;
}

void QuorumRecovery::on_event(const TraceEvent& event) {
  faults_.observe(event);
  roles_.observe(event);
  if (EtcdCalls::reads(event.kind)) calls_.observe(event, *this);
  if (event.kind == trace_kind::kDiskLoss && event.find("disk") == nullptr) {
    // A node that lost every disk lost its member's data directory, running or not.
    for (auto& [name, member] : members_) {
      if (on_node(member.process, event.node)) {
        lose_data(name, "the disk loss of " + std::string(event.node));
      }
    }
  }
  observe_volume(event);
  if (event.kind == etcd::trace_kind::kSnapshotRestore) observe_restore(event);
  if (event.kind == druid::trace_kind::kRestore) observe_druid_restore(event);
  if (etcd::is_member_process(event.proc))
    observe_member(event, member_key(event.node, event.proc));
  observe_apiserver(event);
  // While nothing is owed or it has been met, only a fault, a role or a member's or
  // apiserver's life can change that; the busiest kinds (calls, persists, applies, writes)
  // only feed the books kept above.
  if (phase_ != Phase::waiting && busy_kind(event.kind)) return;
  step(event.t);
}

void QuorumRecovery::observe_member(const TraceEvent& event, const std::string& name) {
  namespace e = etcd::trace_kind;
  const std::string_view kind = event.kind;
  if (kind == trace_kind::kCrash && event.string_field("reason") == "disk-loss") {
    lose_data(name, "its disk loss at t=" + format_seconds(event.t.ns) + "s");
    return;
  }
  if (!member_kind(kind)) return;
  const auto found = members_.find(name);
  if (found != members_.end()) found->second.process = process_name(event);
  if (kind == e::kRecovered && found == members_.end()) {
    // The first start: the initial members recover the bootstrap snapshot (index 1).
    Member m;
    m.voter = event.int_field("snap-index") >= 1;
    m.has_data = m.voter;
    m.process = process_name(event);
    members_.emplace(name, m);
  }
  Member& m = members_[name];
  if (kind == e::kRecovered) {
    m.persisted = event.int_field("snap-index") + count_trace_entries(event.string_field("ents"));
  } else if (kind == e::kPersist) {
    const std::int64_t n = count_trace_entries(event.string_field("ents"));
    if (n > 0) m.persisted = event.int_field("first") + n - 1;  // later entries are replaced
  } else if (kind == e::kInstall) {
    m.persisted = event.int_field("index");
    m.has_data = true;
  } else if (kind == e::kApply && event.find("rev") != nullptr) {
    const std::int64_t last =
        event.int_field("first") + count_trace_entries(event.string_field("ents")) - 1;
    revisions_[last] = event.int_field("rev");
    prune_revisions();
  } else if (kind == e::kFatal && event.string_field("error").find("already been bootstrapped") !=
                                      std::string_view::npos) {
    lose_data(name,
              "it refused to start without its data at t=" + format_seconds(event.t.ns) + "s");
  }
}

void QuorumRecovery::observe_restore(const TraceEvent& event) {
  if (event.string_field("result") != "ok") return;
  const std::int64_t cluster = event.int_field("cluster");
  const bool new_cluster = cluster_ != cluster;
  cluster_ = cluster;
  restored(event.t, member_key(event.node, "etcd"), event.int_field("revision"),
           event.int_field("index"),
           "snapshot \"" + std::string(event.string_field("snapshot")) + "\"", new_cluster, true);
}

// etcd-backup-restore's restore (druid-br-restore): the member's data directory holds a new
// one-member cluster, its log the restore's one ConfChangeAddNode (index 1).
void QuorumRecovery::observe_druid_restore(const TraceEvent& event) {
  if (event.string_field("outcome") != "restored") return;
  const std::string pod(event.string_field("pod"));
  restored(event.t, member_key("", pod + ".etcd"), event.int_field("revision"), 1,
           "the backup store (" + std::string(event.string_field("full")) + " and " +
               std::to_string(event.int_field("deltas")) + " delta(s))",
           true, false);
}

void QuorumRecovery::restored(TrueTime at, const std::string& name, std::int64_t revision,
                              std::int64_t index, const std::string& from, bool new_cluster,
                              bool judge_loss) {
  HASIM_ASSERT(index >= 1 && revision >= 1);
  if (new_cluster) {
    // A new cluster: only the members restored into it vote; its log starts over.
    for (auto& [member, m] : members_) m.voter = false;
    revisions_.clear();
    revisions_[index] = revision;
    if (judge_loss && acked_revision_ > revision) {
      const std::string detail =
          "the etcd cluster was restored from " + from + " at revision " +
          std::to_string(revision) + ": " + std::to_string(acked_revision_ - revision) +
          " acknowledged revision(s) lost (revision " + std::to_string(acked_revision_) +
          " was acknowledged to " + acked_by_ + ")";
      close_window(open_window(at, detail), at);
      violate(at, detail, {});
    }
    acked_revision_ = revision;
    acked_by_ = "the restore of " + from;
  }
  Member& m = members_[name];
  m.voter = true;
  m.has_data = true;
  m.lost.clear();
  m.persisted = index;
  if (data_gone_ && members_with_data() >= voters() / 2 + 1) {
    check_data_gone(at);
    close_window(*data_gone_, at);
    data_gone_.reset();
    gone_.reset();
  }
}

// A pod's data volume gone with it (an emptyDir: the kernel's pod-delete wiped it) or
// deleted (kubectl delete pvc).
void QuorumRecovery::observe_volume(const TraceEvent& event) {
  if (event.kind == trace_kind::kPodDelete && etcd::is_member_process(event.proc) &&
      event.int_field("volumes_wiped") > 0) {
    lose_data(member_key(event.node, event.proc),
              "its pod's deletion at t=" + format_seconds(event.t.ns) + "s took its emptyDir");
  } else if (event.kind == workloads::trace_kind::kClaimDeleted) {
    const std::string name = std::string(event.string_field("pod")) + ".etcd";
    if (members_.contains(name)) {
      lose_data(name, "its PVC was deleted at t=" + format_seconds(event.t.ns) + "s");
    }
  }
}

void QuorumRecovery::observe_apiserver(const TraceEvent& event) {
  if (event.proc == kApiserverProc) {
    const std::string name = process_name(event);
    if (event.kind == trace_kind::kStart) apiservers_[name] = true;
    if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit)
      apiservers_[name] = false;
    if (event.kind == api::trace_kind::kWrite && phase_ == Phase::waiting && etcd_apiserver(name)) {
      wrote_.insert(name);
      any_write_ = true;
    }
  }
  if (event.kind == trace_kind::kNodeDown) {
    for (auto& [name, running] : apiservers_) {
      if (on_node(name, event.node)) running = false;
    }
  }
}

void QuorumRecovery::ended(const lin::Operation& op, const CallOrigin& origin, std::string_view,
                           std::string_view) {
  if (op.outcome != lin::Outcome::ok) return;
  if (op.output.revision > acked_revision_) {
    acked_revision_ = op.output.revision;
    acked_by_ = describe_origin(origin) + " (" + std::string(lin::op_kind_name(op.kind)) + " " +
                op.key + ", acknowledged at t=" + format_seconds(op.return_ns) + "s)";
  }
  // Any call etcd answered counts for its apiserver: a linearizable read went through a
  // ReadIndex, i.e. a quorum (non-leaders' apiservers only read while their components poll).
  if (phase_ != Phase::waiting) return;
  wrote_.insert(origin.client);
  if (lin::is_write(op.kind)) any_write_ = true;
}

void QuorumRecovery::lose_data(const std::string& name, std::string how) {
  Member& m = members_[name];
  if (!m.has_data && !m.lost.empty()) return;
  m.has_data = false;
  m.persisted = 0;
  m.lost = std::move(how);
}

// Lookups ask for the revision at the largest applied index at or below a member's
// persisted index; entries below the one that answers the lowest such member are not needed.
void QuorumRecovery::prune_revisions() {
  std::optional<std::int64_t> lowest;
  for (const auto& [name, m] : members_) {
    if (m.voter && m.has_data) lowest = std::min(lowest.value_or(m.persisted), m.persisted);
  }
  if (!lowest) return;
  auto keep = revisions_.upper_bound(*lowest);
  if (keep == revisions_.begin()) return;
  revisions_.erase(revisions_.begin(), std::prev(keep));
}

std::size_t QuorumRecovery::voters() const {
  return static_cast<std::size_t>(std::count_if(members_.begin(), members_.end(),
                                                [](const auto& m) { return m.second.voter; }));
}

std::size_t QuorumRecovery::members_with_data() const {
  return static_cast<std::size_t>(
      std::count_if(members_.begin(), members_.end(),
                    [](const auto& m) { return m.second.voter && m.second.has_data; }));
}

std::int64_t QuorumRecovery::surviving_revision() const {
  std::int64_t best = 0;
  for (const auto& [name, m] : members_) {
    if (!m.voter || !m.has_data) continue;
    auto it = revisions_.upper_bound(m.persisted);
    if (it == revisions_.begin()) continue;
    best = std::max(best, std::prev(it)->second);
  }
  return best;
}

bool QuorumRecovery::owed() const {
  const std::size_t n = voters();
  if (n == 0 || faults_.active()) return false;
  std::size_t running = 0;
  for (const auto& [name, m] : members_) {
    if (!m.voter || !m.has_data) continue;
    const auto role = roles_.all().find(m.process);
    running += role != roles_.all().end() && role->second.up ? 1 : 0;
  }
  return running >= n / 2 + 1;
}

bool QuorumRecovery::met() const {
  if (!roles_.leader() || !any_write_) return false;
  for (const auto& [name, running] : apiservers_) {
    if (running && etcd_apiserver(name) && !wrote_.contains(name)) return false;
  }
  return true;
}

void QuorumRecovery::step(TrueTime now) {
  if (!data_gone_ && voters() > 0 && members_with_data() < voters() / 2 + 1) {
    report_data_loss(now);
  }
  check_data_gone(now);
  const bool owe = !data_gone_ && owed();
  if (!owe) {
    if (overdue_) close_window(*overdue_, now);
    overdue_.reset();
    phase_ = Phase::idle;
    return;
  }
  // Armed when the conditions start to hold, and again when the leader is lost.
  if (phase_ == Phase::idle || (phase_ == Phase::met && !roles_.leader())) {
    phase_ = Phase::waiting;
    since_ = now;
    wrote_.clear();
    any_write_ = false;
  }
  if (phase_ == Phase::waiting && met()) {
    phase_ = Phase::met;
    if (overdue_) close_window(*overdue_, now);
    overdue_.reset();
  }
  check(now);
}

void QuorumRecovery::check(TrueTime now) {
  if (phase_ != Phase::waiting || now - since_ <= bound_) return;
  std::vector<std::string> missing;
  for (const auto& [name, running] : apiservers_) {
    if (running && etcd_apiserver(name) && !wrote_.contains(name)) missing.push_back(name);
  }
  std::string detail = "from t=" + format_seconds(since_.ns) + "s, when faults had healed and " +
                       std::to_string(members_with_data()) + " of " + std::to_string(voters()) +
                       " etcd members had their data, to at least t=" + format_seconds(now.ns) +
                       "s (longer than the bound " + format_duration(bound_) + ")";
  detail += roles_.leader() ? ", a member led but" : ", no etcd member was raft leader and";
  if (missing.empty()) {
    detail += any_write_ ? " every running kube-apiserver was served by etcd"
                         : " no write was accepted (no etcd client's, no kube-apiserver's)";
  } else {
    detail += " etcd served nothing through";
    for (std::size_t i = 0; i < missing.size(); ++i) detail += (i == 0 ? " " : ", ") + missing[i];
  }
  if (!overdue_) overdue_ = open_window(since_ + bound_, detail);
  violate(since_ + bound_, std::move(detail), {});
}

void QuorumRecovery::report_data_loss(TrueTime now) {
  std::vector<std::string> causes;
  for (const auto& [name, m] : members_) {
    if (m.voter && !m.has_data) causes.push_back(name + " lost its data: " + m.lost);
  }
  const std::int64_t surviving = surviving_revision();
  std::string detail =
      "a quorum's data is gone: " + std::to_string(voters() - members_with_data()) + " of " +
      std::to_string(voters()) +
      " etcd members lost their data directories, so the cluster cannot "
      "regain a quorum by itself; recovery needs an operator (restore a "
      "snapshot into a new cluster: etcd's disaster-recovery guide, or etcd-druid's "
      "quorum-loss runbook) unless automation restores one; ";
  if (acked_revision_ == 0) {
    detail += "no revision had been acknowledged to a client";
  } else {
    const std::int64_t lost = std::max<std::int64_t>(acked_revision_ - surviving, 0);
    detail += std::to_string(lost) + " acknowledged revision(s) lost: revision " +
              std::to_string(acked_revision_) + " was acknowledged to " + acked_by_ +
              ", and the members that kept their data hold up to revision " +
              std::to_string(surviving);
  }
  data_gone_ = open_window(now, detail);
  gone_ = Gone{now, std::move(detail), std::move(causes)};
}

// A quorum's data gone for longer than the bound, no restore meanwhile: no automation
// recovered it, so an operator must.
void QuorumRecovery::check_data_gone(TrueTime now) {
  if (!data_gone_ || !gone_ || now - gone_->since <= bound_) return;
  violate(gone_->since + bound_,
          gone_->detail + "; no restore came within the bound " + format_duration(bound_),
          gone_->causes);
  gone_.reset();  // reported once per window
}

void QuorumRecovery::finish(TrueTime end) {
  calls_.finish(*this);
  check(end);
  check_data_gone(end);
  close_open_windows(end);
}

}  // namespace hasim
