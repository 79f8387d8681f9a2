#include "properties/druid/restore_loss.hpp"

#include <algorithm>

#include "models/druid/trace_kinds.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

namespace dk = druid::trace_kind;

DruidRestoreLoss::DruidRestoreLoss(std::string spec, const AcknowledgedWrites& writes)
    : Property(std::move(spec)), writes_(writes) {}

bool DruidRestoreLoss::reads(std::string_view kind) {
  return druid_props::EtcdMembership::wants(kind) || kind == dk::kSnapshot ||
         kind == trace_kind::kCrash || kind == trace_kind::kPodDelete;
}

void DruidRestoreLoss::on_event(const TraceEvent& event) {
  if (event.kind == dk::kEtcdStart) {
    const std::int64_t id = event.int_field("member");
    if (id > 0) {
      members_.emplace(static_cast<std::uint64_t>(id),
                       Member{std::string(event.string_field("pod")), event.t});
    }
  } else if (event.kind == dk::kSnapshot) {
    if (event.string_field("outcome") == "saved") {
      backedUp_ = std::max(backedUp_, event.int_field("last"));
    }
  } else if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kPodDelete) {
    lose_data(event);
  } else if (event.kind == dk::kRestore && event.string_field("outcome") == "restored") {
    judge_restore(event);  // against the old cluster, before the membership moves on
  }
  (void)membership_.on_event(event);
}

// A fault took a member's data: its volume or disk failed (the containers crash of it), or
// its pod went with an emptyDir. The kernel traces both on the pod's etcd process.
void DruidRestoreLoss::lose_data(const TraceEvent& event) {
  const std::string_view pod = druid_props::etcd_pod_of(event.proc);
  if (pod.empty()) return;
  const bool lost = event.kind == trace_kind::kCrash ? event.string_field("reason") == "disk-loss"
                                                     : event.int_field("volumes_wiped") > 0;
  if (lost) lostData_.insert_or_assign(std::string(pod), event.t);
}

void DruidRestoreLoss::judge_restore(const TraceEvent& event) {
  ++restores_;
  std::size_t lost_to_faults = 0;
  const std::set<std::uint64_t>& voters = membership_.voters();
  for (const std::uint64_t id : voters) {
    const auto member = members_.find(id);
    if (member == members_.end()) continue;  // never started: it has no data to keep
    const auto lost = lostData_.find(member->second.pod);
    if (lost != lostData_.end() && lost->second >= member->second.since) ++lost_to_faults;
  }
  HASIM_ASSERT(lost_to_faults <= voters.size());
  const std::int64_t revision = event.int_field("revision");
  const std::int64_t acked = writes_.acknowledged_revision();
  const std::int64_t lost = std::max<std::int64_t>(0, acked - revision);
  bool permitted = false;
  const std::string why = permission(lost_to_faults, voters.size(), revision, permitted);
  std::string text = std::string(event.string_field("pod")) + " restored from " +
                     std::string(event.string_field("full")) + " and " +
                     std::to_string(event.int_field("deltas")) + " delta(s) at revision " +
                     std::to_string(revision) + ": " + std::to_string(lost) +
                     " acknowledged revision(s) lost";
  if (lost > 0)
    text += " (revision " + std::to_string(acked) + " was acknowledged to " +
            writes_.acknowledged_by() + ")";
  text += "; " + why;
  if (lost > 0 && !permitted) violate(event.t, text, {describe_event(event)});
  note(event.t, std::move(text));
}

std::string DruidRestoreLoss::permission(std::size_t lost_to_faults, std::size_t voters,
                                         std::int64_t revision, bool& permitted) const {
  const std::string count = std::to_string(lost_to_faults) + " of " + std::to_string(voters) +
                            " voter(s) lost their data to faults";
  if (2 * lost_to_faults < voters || voters == 0) {
    permitted = false;
    return "not permitted: only " + count +
           ", so a quorum kept its data and could have "
           "recovered without a restore";
  }
  if (revision < backedUp_) {
    permitted = false;
    return "not permitted: the store held a backup up to revision " + std::to_string(backedUp_) +
           ", which the restore did not reach";
  }
  permitted = true;
  return "permitted: " + count + " and the restore reached the last backup (revision " +
         std::to_string(backedUp_) + ")";
}

}  // namespace hasim
