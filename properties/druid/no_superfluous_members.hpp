#pragma once
// no-superfluous-members:SETTLE (etcd-druid, issue 17 part 6; the seed warns that a scale-up
// followed by a scale-down can leave members behind): once nothing has changed for SETTLE,
// etcd's member list equals the StatefulSet's pods.
//
// A change is any of: a pod created, marked for deletion, gone or scheduled (pod-create,
// pod-deletion, pod-gone, pod-scheduled), spec.replicas set (sts-replicas), a configuration
// change applied by any member (etcd-conf-change), or an etcd started with a member ID
// (druid-etcd-start: which pod runs which member changes). A settle point is SETTLE after the
// last change, reached when a later instant is observed or the run ends at or after it.
// At each settle point, with spec.replicas N > 0:
// - etcd's member list (voters and learners, as applied: etcd_membership.hpp) has N members,
//   as the StatefulSet has N pods;
// - every member ID is the one the latest etcd start of some pod that exists (created and not
//   yet gone) ran: a member whose pod is gone, or that no pod ever ran, is superfluous.
// N = 0 is hibernation: the members stay in the volumes' data, nothing is checked.
// A mismatch is a window from the settle point to the next change (or the run's end).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "properties/druid/etcd_membership.hpp"
#include "properties/property.hpp"

namespace hasim {

class NoSuperfluousMembers final : public Property {
 public:
  NoSuperfluousMembers(std::string spec, Duration settle);
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  static constexpr std::size_t kNoWindow = static_cast<std::size_t>(-1);
  struct Pod {
    bool exists = false;
    std::uint64_t id = 0;  // the member its latest etcd start ran, 0 if none
  };
  static bool is_change(std::string_view kind);
  void check(TrueTime at);
  std::string mismatch() const;

  Duration settle_;
  druid_props::EtcdMembership membership_;
  std::map<std::string, Pod, std::less<>> pods_;
  std::optional<std::int64_t> replicas_;
  std::optional<TrueTime> last_change_;
  std::string last_cause_;  // the last change, described
  bool checked_ = true;     // the settle point after last_change_ was judged
  std::size_t window_ = kNoWindow;
};

}  // namespace hasim
