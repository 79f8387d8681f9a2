#include "properties/druid/status_truth.hpp"

#include <algorithm>
#include <tuple>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

namespace dk = druid::trace_kind;

std::string at(TrueTime t) { return format_duration(Duration{t.ns}); }

}  // namespace

StatusTruth::StatusTruth(std::string spec, Duration bound)
    : Property(std::move(spec)), bound_(bound) {
  HASIM_ASSERT(bound.ns >= 0);
  backup_.silent = true;
}

bool StatusTruth::wants(std::string_view kind) const {
  return druid_props::EtcdMembership::wants(kind) || druid_props::EtcdPods::wants(kind) ||
         kind == dk::kMemberStatus || kind == dk::kCondition || kind == dk::kSnapshot ||
         kind == dk::kSnapshotter || kind == dk::kLeading;
}

void StatusTruth::on_event(const TraceEvent& event) {
  if (!wants(event.kind)) return;  // observers see every event; only these matter here
  // Deadlines that ran out before this event were breached in the state before it.
  check_deadlines(event.t);
  if (!apply(event)) return;
  refresh_truth(event);
  auto settle = [&](Claim& claim) {
    if (claim.window == kNoWindow || !agrees(claim)) return;
    close_window(claim.window, event.t);  // druid and the truth agree again
    claim.window = kNoWindow;
  };
  for (auto& [name, claim] : claims_) settle(claim);
  settle(quorum_);
  settle(backup_);
}

void StatusTruth::finish(TrueTime end) {
  check_deadlines(end);
  close_open_windows(end);
}

// Whether druid's report and the truth agree (a silent claim agrees with anything).
bool StatusTruth::agrees(const Claim& claim) {
  return claim.silent || claim.reported == claim.truth;
}

// When `claim` is breached if nothing changes: a report that disagrees with a truth older
// than its allowance, from the allowance's end or the report, whichever is later.
std::optional<TrueTime> StatusTruth::breach_start(const Claim& claim) const {
  if (claim.window != kNoWindow || agrees(claim)) return std::nullopt;
  return std::max(claim.truth_since + allowance(claim), claim.reported_since);
}

Duration StatusTruth::allowance(const Claim& claim) const {
  if (&claim == &backup_)
    return claim.reported ? backup_stale_allowance() : backup_fresh_allowance();
  return claim.reported ? stale_allowance() : fresh_allowance();
}

void StatusTruth::check_deadlines(TrueTime now) {
  std::vector<Breach> due;
  for (auto& [name, claim] : claims_) {
    const std::optional<TrueTime> start = breach_start(claim);
    if (start && *start < now) due.push_back({*start, name, &claim});
  }
  if (const std::optional<TrueTime> start = breach_start(quorum_); start && *start < now) {
    due.push_back({*start, "", &quorum_});
  }
  if (const std::optional<TrueTime> start = breach_start(backup_); start && *start < now) {
    due.push_back({*start, "BackupReady", &backup_});
  }
  // Several may run out between two events: open them in time order, so the violation is the
  // earliest (a later event cannot reveal an earlier one: its state was already in force).
  std::sort(due.begin(), due.end(), [](const Breach& a, const Breach& b) {
    return std::tie(a.start, a.name) < std::tie(b.start, b.name);
  });
  for (const Breach& breach : due) open_breach(breach);
}

void StatusTruth::open_breach(const Breach& breach) {
  Claim& claim = *breach.claim;
  HASIM_ASSERT(claim.window == kNoWindow && !agrees(claim));
  std::string detail = describe(breach.name, claim, breach.start);
  std::vector<std::string> causes;
  if (!claim.truth_cause.empty()) causes.push_back(claim.truth_cause);
  if (!claim.report_cause.empty()) causes.push_back(claim.report_cause);
  claim.window = open_window(breach.start, detail);
  violate(breach.start, std::move(detail), std::move(causes));
}

// Updates pods and reports from one event; false if it changed nothing this property follows.
bool StatusTruth::apply(const TraceEvent& event) {
  const bool backups_stopped = stop_backups(event);
  const bool membership_changed = membership_.on_event(event);
  const bool pods_changed = etcd_.on_event(event);
  if (event.kind == dk::kEtcdStart) {
    claims_.try_emplace(std::string(event.string_field("pod")));
  } else if (event.kind == dk::kSnapshot || event.kind == dk::kSnapshotter ||
             (event.kind == dk::kCondition && event.string_field("type") == "BackupReady")) {
    return apply_backup(event);
  } else if (event.kind == dk::kMemberStatus || event.kind == dk::kCondition) {
    const bool condition = event.kind == dk::kCondition;
    if (condition && event.string_field("type") != "Ready") return false;
    Claim& claim = condition ? quorum_ : claims_[std::string(event.string_field("member"))];
    const std::string status(event.string_field("status"));
    const bool reported = status == (condition ? "True" : "Ready");
    if (reported != claim.reported) claim.reported_since = event.t;
    claim.reported = reported;
    claim.silent = status == "Absent" || event.string_field("reason") == "NotChecked";
    claim.report = status;
    claim.report_cause = describe_event(event);
  } else {
    return membership_changed || pods_changed || backups_stopped;
  }
  return true;
}

// Backups stop working when the snapshotter that saved the last snapshot stops: its sidecar
// stops leading (snapshotter.go runs under the leading context), or stops itself (crash,
// exit, its node down).
bool StatusTruth::stop_backups(const TraceEvent& event) {
  if (!backup_.truth || backupPod_.empty()) return false;
  bool stopped = false;
  if (event.kind == dk::kLeading) {
    stopped = event.string_field("pod") == backupPod_ && event.string_field("state") != "Leader";
  } else if (event.kind == trace_kind::kNodeDown) {
    stopped = event.node == backupNode_;
  } else if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) {
    stopped = druid_props::sidecar_pod_of(event.proc) == backupPod_;
  }
  if (!stopped) return false;
  backup_.truth = false;
  backup_.truth_since = event.t;
  backup_.truth_cause = describe_event(event);
  return true;
}

// BackupReady's truth (backups work) and report; the truth changes here, not in
// refresh_truth.
bool StatusTruth::apply_backup(const TraceEvent& event) {
  if (event.kind == dk::kCondition) {
    const std::string status(event.string_field("status"));
    const bool reported = status == "True";
    if (reported != backup_.reported) backup_.reported_since = event.t;
    backup_.reported = reported;
    backup_.silent = event.string_field("reason") == "NotChecked" || deltaPeriod_.ns == 0;
    backup_.report = status;
    backup_.report_cause = describe_event(event);
    return true;
  }
  const std::string_view what =
      event.string_field(event.kind == dk::kSnapshot ? "outcome" : "event");
  // Run starts only after the start-up snapshot (a full one, or the deltas since the last,
  // possibly none) went to the store: backups work from there too.
  if (what == "run") deltaPeriod_ = Duration{event.int_field("delta_period_ns")};
  const bool works = what == "saved" || what == "run";
  if (event.kind == dk::kSnapshotter && !works && what != "failed" && what != "fatal") {
    return false;
  }
  if (works) {
    backupPod_ = std::string(event.string_field("pod"));
    backupNode_ = std::string(event.node);
  }
  if (works == backup_.truth) return false;
  backup_.truth = works;
  backup_.truth_since = event.t;
  backup_.truth_cause = describe_event(event);
  return true;
}

// A member is Ready in truth while it serves and the cluster is quorate: without a quorum its
// /readyz fails (the pod's containers turn not ready) and the sidecar's heartbeat, which asks
// its etcd first, stops renewing the Lease.
void StatusTruth::refresh_truth(const TraceEvent& event) {
  const std::size_t serving_voters = etcd_.serving_voters(membership_);
  const std::size_t voters = membership_.voters().size();
  const bool quorate = voters > 0 && 2 * serving_voters > voters;
  for (auto& [name, claim] : claims_) {
    const druid_props::EtcdPods::Pod* pod = etcd_.find(name);
    const bool ready = pod != nullptr && etcd_.serving(*pod, membership_) && quorate;
    if (ready == claim.truth) continue;
    claim.truth = ready;
    claim.truth_since = event.t;
    claim.truth_cause = describe_event(event);
  }
  if (quorate == quorum_.truth) return;
  quorum_.truth = quorate;
  quorum_.truth_since = event.t;
  quorum_.truth_cause = describe_event(event);
}

std::string StatusTruth::quorum_text() const {
  return std::to_string(etcd_.serving_voters(membership_)) + " of " +
         std::to_string(membership_.voters().size()) + " voters serving";
}

std::string StatusTruth::describe(const std::string& name, const Claim& claim,
                                  TrueTime start) const {
  const std::string bound = "bound " + format_duration(bound_) + ")";
  const std::string allows =
      claim.reported ? "; upstream's rules allow " + format_duration(stale_allowance()) +
                           " (UnknownThreshold 1m + status sync 15s + heartbeat 10s + " + bound
                     : "; upstream's rules allow " + format_duration(fresh_allowance()) +
                           " (heartbeat 10s + status sync 15s + " + bound;
  if (&claim == &backup_) return describe_backup(claim, start);
  const std::string since =
      claim.truth_cause.empty() ? "the start of the run" : at(claim.truth_since);
  const std::string status = claim.report.empty() ? "no status" : "status " + claim.report;
  if (name.empty()) {
    return claim.reported ? "druid's Ready condition was True at " + at(start) +
                                " but the etcd cluster has had no quorum serving since " + since +
                                " (" + quorum_text() + ")" + allows
                          : "druid's Ready condition was not True by " + at(start) + " (" + status +
                                ") although a quorum of etcd voters has served since " + since +
                                " (" + quorum_text() + ")" + allows;
  }
  const druid_props::EtcdPods::Pod* pod = etcd_.find(name);
  const std::uint64_t id = pod == nullptr ? 0 : pod->id;
  const std::string member = id == 0 ? "its etcd" : "its etcd (member " + std::to_string(id) + ")";
  return claim.reported ? "druid reported " + name + " Ready at " + at(start) + " but " + member +
                              " has not served in a quorate cluster since " + since + allows
                        : "druid did not report " + name + " Ready by " + at(start) + " (" +
                              status + ") although " + member +
                              " has served in a quorate cluster since " + since + allows;
}

std::string StatusTruth::describe_backup(const Claim& claim, TrueTime start) const {
  const std::string period = format_duration(deltaPeriod_);
  const std::string since =
      claim.truth_cause.empty() ? "the start of the run" : at(claim.truth_since);
  const std::string bound = " + status sync 15s + bound " + format_duration(bound_) + ")";
  if (claim.reported) {
    return "druid's BackupReady condition was True at " + at(start) +
           " but no backup has worked since " + since + "; upstream's rules allow " +
           format_duration(backup_stale_allowance()) + " (2 x deltaSnapshotPeriod " + period +
           bound;
  }
  const std::string status = claim.report.empty() ? "no status" : "status " + claim.report;
  return "druid's BackupReady condition was not True by " + at(start) + " (" + status +
         ") although backups have worked since " + since + "; upstream's rules allow " +
         format_duration(backup_fresh_allowance()) + " (deltaSnapshotPeriod " + period + bound;
}

}  // namespace hasim
