#pragma once
// Defragmentation by the leading sidecar (pkg/defragmentor/defrag.go, DefragmentData and
// GetEtcdEndPointsSorted in pkg/etcdutil/etcdutil.go, GetAllEtcdEndpoints and
// IsEtcdClusterHealthy in pkg/miscellaneous/miscellaneous.go). A cron job started by
// OnStartedLeading; each run waits on a 1-minute ticker until every member answers Status,
// then defragments the followers one by one and the leader last, retrying the whole sequence
// on the next tick if any step fails. The schedule itself is in sidecar_cron.hpp.
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::druid::sidecar {

inline constexpr std::string_view kDefaultDefragmentationSchedule =
    "0 0 */3 * *";                                             // server/types.go
inline constexpr Duration kDefragRetryPeriod = minutes(1);     // types/etcdconnection.go
inline constexpr Duration kDefaultDefragTimeout = minutes(8);  // br's own default
inline constexpr Duration kDruidDefragTimeout = minutes(15);   // druid's --etcd-defrag-timeout
inline constexpr Duration kDruidEtcdConnectionTimeout =
    minutes(5);  // druid's --etcd-connection-timeout

// The first health check of a run is one retry period after the cron fired: the run starts
// a time.Ticker and only acts on its ticks.
LocalTime first_defrag_tick(LocalTime fired);

// cron.SkipIfStillRunning: an activation while the previous run is still going is dropped.
enum class CronFire { StartRun, Skip };
CronFire on_cron_fire(bool previous_run_active);

// What one tick does. The member list (GetAllEtcdEndpoints) and a Status of every member's
// client endpoint (IsEtcdClusterHealthy, learners included) must both succeed; anything else
// waits for the next tick.
enum class DefragTick { WaitNextTick, RunSequence };
DefragTick defrag_tick(bool member_list_ok, bool every_member_status_ok);

// After the sequence: success ends the run (after the optional callback, which the
// backup-restore server leaves unset); a failure waits for the next tick.
enum class DefragRunState { Running, Finished };
DefragRunState after_sequence(bool sequence_ok);

// A member as MemberList returns it: etcd lists members in ascending ID order
// (membership.RaftCluster.Members sorts them), which defrag_order requires.
struct DefragMember {
  std::uint64_t id = 0;
};

// GetEtcdEndPointsSorted + DefragmentData: the member IDs in defragmentation order. A single
// member is defragmented alone. Otherwise `leader` is what a Status of the *first* listed
// member's endpoint reported; the members not equal to it are followers, defragmented in
// member-list order, then the leader. If that member saw no leader (0) or a leader that is not
// listed, every member counts as a follower and there is no "leader last".
std::vector<std::uint64_t> defrag_order(const std::vector<DefragMember>& member_list,
                                        std::uint64_t leader);

}  // namespace hasim::druid::sidecar
