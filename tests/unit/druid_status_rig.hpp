#pragma once
// What the druid status tests share (test_druid_status.cpp, test_druid_status_conditions.cpp):
// a clock reading to start from, and short ways to write a member lease and a member entry.
#include <optional>
#include <string>

#include "models/druid/member_status.hpp"

namespace hasim::druid::testing {

inline constexpr LocalTime kT0{1'000'000'000'000};  // an arbitrary clock reading
inline constexpr Duration kNs = nanoseconds(1);

inline MemberLeaseObservation lease(std::string name, std::optional<std::string> holder,
                                    std::optional<LocalTime> renew,
                                    PodContainersReady pod = PodContainersReady::kTrue) {
  return {std::move(name), ObjectRead::kFound, std::move(holder), renew, pod};
}

inline EtcdMemberStatus member(std::string name, MemberStatus status, LocalTime ltt = kT0) {
  return {"id-" + name, std::move(name), EtcdRole::kMember, status, MemberReason::kLeaseSucceeded,
          ltt};
}

}  // namespace hasim::druid::testing
