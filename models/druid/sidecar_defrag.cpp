#include "models/druid/sidecar_defrag.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

LocalTime first_defrag_tick(LocalTime fired) { return fired + kDefragRetryPeriod; }

CronFire on_cron_fire(bool previous_run_active) {
  return previous_run_active ? CronFire::Skip : CronFire::StartRun;
}

DefragTick defrag_tick(bool member_list_ok, bool every_member_status_ok) {
  return member_list_ok && every_member_status_ok ? DefragTick::RunSequence
                                                  : DefragTick::WaitNextTick;
}

DefragRunState after_sequence(bool sequence_ok) {
  return sequence_ok ? DefragRunState::Finished : DefragRunState::Running;
}

std::vector<std::uint64_t> defrag_order(const std::vector<DefragMember>& member_list,
                                        std::uint64_t leader) {
  HASIM_ASSERT(!member_list.empty());
  std::vector<std::uint64_t> order;
  order.reserve(member_list.size());
  if (member_list.size() == 1) {
    order.push_back(member_list.front().id);
    return order;
  }
  bool leader_listed = false;
  for (std::size_t i = 0; i < member_list.size(); ++i) {  // followers, in list order
    const DefragMember& m = member_list[i];
    // etcd's RaftCluster.Members sorts by ID, so callers must pass the list that way.
    HASIM_ASSERT(m.id != 0 && (i == 0 || member_list[i - 1].id < m.id));
    if (m.id == leader) {
      leader_listed = true;
    } else {
      order.push_back(m.id);
    }
  }
  if (leader_listed) order.push_back(leader);
  HASIM_ASSERT(order.size() == member_list.size());  // IDs are unique
  HASIM_ASSERT(!leader_listed || order.back() == leader);
  return order;
}

}  // namespace hasim::druid::sidecar
