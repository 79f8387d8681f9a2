#pragma once
// The decisions of Coordinated Leader Election (KEP-4355), as kube-apiserver's
// pkg/controlplane/controller/leaderelection/election.go makes them (v1beta1): candidate
// ranking for OldestEmulationVersion, strategy resolution, and the expiry rules. Pure
// functions over API objects; the controller (election_controller.hpp) drives them.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/apiserver/object.hpp"
#include "models/election/semver.hpp"

namespace hasim::election {

inline constexpr std::string_view kOldestEmulationVersion = "OldestEmulationVersion";
// leaseCandidateValidDuration: a candidate not renewed for this long is expired (and GC'd).
inline constexpr Duration kLeaseCandidateValidDuration = minutes(30);
// electionDuration: the ping-ack window, and how fresh a renewTime counts as an ack.
inline constexpr Duration kElectionDuration = seconds(5);

// isLeaseCandidateExpired: renewTime nil, or renewTime + 30 min strictly before now.
bool is_lease_candidate_expired(const api::Object& candidate, LocalTime now);
// isLeaseExpired: renewTime or leaseDurationSeconds nil, or renewTime + LDS strictly before
// now.
bool is_lease_expired(const api::LeaseSpec& lease, LocalTime now);

// validLeaseCandidateForOldestEmulationVersion: both versions parse (ParseTolerant).
bool valid_for_oldest_emulation_version(const api::Object& candidate);

// getEmulationVersionOrZero / getBinaryVersionOrZero: the candidate's version through
// ParseTolerant, semver's zero Version (0.0.0) when it does not parse.
SemVer emulation_version_or_zero(const api::Object& candidate);
SemVer binary_version_or_zero(const api::Object& candidate);

// compare(lhs, rhs): -1 when lhs is the better leader, 1 when rhs is: lower emulation
// version, then lower binary version (ParseTolerant; 0.0.0 when unparseable), then the
// earlier creationTimestamp (equal timestamps favour lhs). Never the name.
int compare_candidates(const api::Object& lhs, const api::Object& rhs);

// pickBestLeaderOldestEmulationVersion: drops invalid candidates, then one pass in the given
// order keeping the current best unless a later one is strictly better. nullptr if none.
api::ObjectPtr pick_best_leader_oldest_emulation_version(
    const std::vector<api::ObjectPtr>& candidates);

// The KEP's proposed Priority field (PR #5357, not upstream): among candidates with the
// highest priority > 0, OldestEmulationVersion decides; with no priorities set, it alone
// decides. A priority <= 0 counts as unset, and the highest priority is taken over the
// candidates OldestEmulationVersion accepts (an unparseable one cannot claim the lease).
api::ObjectPtr pick_best_leader_with_priority(const std::vector<api::ObjectPtr>& candidates);

// pickBestStrategy (v1beta1): seeds from the first candidate, adopts the strategy of any
// later candidate with a strictly higher binary version (unparseable: 0.0.0), and fails when
// one with an equal binary version names a different strategy. The error text is
// upstream's shape; "no candidates" for an empty list.
struct StrategyError {
  std::string message;
};
std::variant<std::string, StrategyError> pick_best_strategy(
    const std::vector<api::ObjectPtr>& candidates);
// The same without copying the strategy: a view into the deciding candidate's spec, valid as
// long as that candidate object is (the controller decides on every reconcile step).
std::variant<std::string_view, StrategyError> pick_best_strategy_view(
    const std::vector<api::ObjectPtr>& candidates);

}  // namespace hasim::election
