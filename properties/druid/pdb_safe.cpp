#include "properties/druid/pdb_safe.hpp"

#include "models/cluster/disruption.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {

bool PdbSafe::wants(std::string_view kind) const {
  return druid_props::EtcdMembership::wants(kind) || druid_props::EtcdPods::wants(kind) ||
         kind == workloads::trace_kind::kPodEviction;
}

void PdbSafe::on_event(const TraceEvent& event) {
  if (!wants(event.kind)) return;  // observers see every event; only these matter here
  // The eviction is judged against the state before it: its deletion comes after.
  if (event.kind == workloads::trace_kind::kPodEviction) return judge(event);
  (void)membership_.on_event(event);
  (void)etcd_.on_event(event);
}

void PdbSafe::judge(const TraceEvent& eviction) {
  const std::string_view outcome = eviction.string_field("outcome");
  // Refused (429): nothing was deleted.
  if (outcome == cluster::name(cluster::EvictionOutcome::TooManyRequests)) return;
  const std::size_t voters = membership_.voters().size();
  const std::size_t before = etcd_.serving_voters(membership_);
  if (2 * before <= voters) return;  // no quorum to break
  const std::string pod(eviction.string_field("pod"));
  const druid_props::EtcdPods::Pod* evicted = etcd_.find(pod);
  const bool counted = evicted != nullptr && etcd_.serving(*evicted, membership_) &&
                       membership_.is_voter(evicted->id);
  if (!counted) return;
  const std::size_t after = before - 1;
  HASIM_ASSERT(after < voters);
  if (2 * after > voters) return;
  violate(eviction.t,
          "evicting " + pod + " (voter " + std::to_string(evicted->id) + ") left " +
              std::to_string(after) + " of " + std::to_string(voters) + " etcd voters serving (" +
              std::to_string(before) + " before): the eviction broke quorum; the budget answered " +
              std::string(outcome) + " with " +
              std::to_string(eviction.int_field("disruptions_allowed")) + " disruption(s) allowed",
          {describe_event(eviction)});
}

}  // namespace hasim
