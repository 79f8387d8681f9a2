#include "models/election/coordinated_election.hpp"

#include <map>

#include <algorithm>
#include <cstdint>

#include "models/election/semver.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
namespace {

const api::LeaseCandidateSpec& spec_of(const api::Object& candidate) {
  HASIM_ASSERT(candidate.key.kind == api::Kind::lease_candidate);
  return candidate.candidate;
}

// Upstream falls back to semver's zero Version on a parse error, so outside the OEV picker's
// pre-filter garbage ranks as 0.0.0, the oldest (and therefore best) version.
// ParseTolerant, remembered: the controller ranks the same few version strings again on every
// reconcile step (several per second), and parsing dominated its cost. Pure, so a per-thread
// memo changes no result (report trials run on several threads).
const std::optional<SemVer>& parsed_tolerant(const std::string& text) {
  thread_local std::map<std::string, std::optional<SemVer>, std::less<>> memo;
  if (memo.size() >= 1024) memo.clear();  // bounded: versions are few, names are not
  auto it = memo.find(text);
  if (it == memo.end()) it = memo.emplace(text, parse_semver_tolerant(text)).first;
  return it->second;
}

SemVer version_or_zero(const std::string& text) {
  return parsed_tolerant(text).value_or(SemVer{});
}

// Priority as KEP PR #5357 proposes it: only a value > 0 counts; unset, zero or negative (which
// validation would reject) all mean "no priority".
std::int32_t effective_priority(const api::Object& candidate) {
  const std::optional<std::int32_t>& priority = spec_of(candidate).priority;
  return priority.has_value() && *priority > 0 ? *priority : 0;
}

}  // namespace

bool is_lease_candidate_expired(const api::Object& candidate, LocalTime now) {
  const std::optional<LocalTime>& renew_time = spec_of(candidate).renewTime;
  // Go's Before is strict: exactly at renewTime + 30 min the candidate is still valid.
  return !renew_time.has_value() || *renew_time + kLeaseCandidateValidDuration < now;
}

bool is_lease_expired(const api::LeaseSpec& lease, LocalTime now) {
  if (!lease.renewTime.has_value() || !lease.leaseDurationSeconds.has_value()) return true;
  // Strict Before, as for candidates: a lease is live through renewTime + LDS inclusive.
  return *lease.renewTime + seconds(*lease.leaseDurationSeconds) < now;
}

bool valid_for_oldest_emulation_version(const api::Object& candidate) {
  const api::LeaseCandidateSpec& spec = spec_of(candidate);
  return parsed_tolerant(spec.emulationVersion).has_value() &&
         parsed_tolerant(spec.binaryVersion).has_value();
}

SemVer emulation_version_or_zero(const api::Object& candidate) {
  return version_or_zero(spec_of(candidate).emulationVersion);
}

SemVer binary_version_or_zero(const api::Object& candidate) {
  return version_or_zero(spec_of(candidate).binaryVersion);
}

int compare_candidates(const api::Object& lhs, const api::Object& rhs) {
  int result = compare(emulation_version_or_zero(lhs), emulation_version_or_zero(rhs));
  if (result == 0) result = compare(binary_version_or_zero(lhs), binary_version_or_zero(rhs));
  if (result != 0) return result;
  // Upstream asks only "was lhs created after rhs?": equal timestamps answer -1 and keep lhs
  // (the current electee). The name is deliberately not consulted.
  return lhs.creationTimestamp > rhs.creationTimestamp ? 1 : -1;
}

api::ObjectPtr pick_best_leader_oldest_emulation_version(
    const std::vector<api::ObjectPtr>& candidates) {
  api::ObjectPtr electee;
  for (const api::ObjectPtr& candidate : candidates) {
    HASIM_ASSERT(candidate != nullptr);
    // Invalid candidates are skipped before ranking, so compare's 0.0.0 fallback never lets an
    // unparseable version win here.
    if (!valid_for_oldest_emulation_version(*candidate)) continue;
    // One pass in list order; a later candidate replaces the electee only when strictly
    // better, which is what makes ties order-dependent upstream.
    if (electee == nullptr || compare_candidates(*electee, *candidate) > 0) electee = candidate;
  }
  return electee;
}

api::ObjectPtr pick_best_leader_with_priority(const std::vector<api::ObjectPtr>& candidates) {
  // The highest priority is taken over candidates the OEV tie-break can rank, so a prioritised
  // candidate with unparseable versions cannot leave the lease without a leader.
  std::int32_t highest = 0;
  for (const api::ObjectPtr& candidate : candidates) {
    HASIM_ASSERT(candidate != nullptr);
    if (!valid_for_oldest_emulation_version(*candidate)) continue;
    highest = std::max(highest, effective_priority(*candidate));
  }
  if (highest == 0) return pick_best_leader_oldest_emulation_version(candidates);

  std::vector<api::ObjectPtr> top;
  for (const api::ObjectPtr& candidate : candidates) {
    if (effective_priority(*candidate) == highest) top.push_back(candidate);
  }
  api::ObjectPtr electee = pick_best_leader_oldest_emulation_version(top);
  HASIM_ASSERT(electee != nullptr);  // at least one valid candidate carries `highest`
  return electee;
}

std::variant<std::string, StrategyError> pick_best_strategy(
    const std::vector<api::ObjectPtr>& candidates) {
  if (candidates.empty()) return StrategyError{"no candidates"};

  // No validity pre-filter here (unlike the OEV picker): an unparseable binary version takes
  // part as 0.0.0.
  const api::ObjectPtr& first = candidates.front();
  HASIM_ASSERT(first != nullptr);
  std::string strategy = spec_of(*first).strategy;
  SemVer highest = binary_version_or_zero(*first);
  std::string highest_name = first->key.name;

  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const api::ObjectPtr& candidate = candidates[i];
    HASIM_ASSERT(candidate != nullptr);
    const api::LeaseCandidateSpec& spec = spec_of(*candidate);
    const SemVer version = binary_version_or_zero(*candidate);
    const int order = compare(highest, version);
    if (order < 0) {
      strategy = spec.strategy;
      highest = version;
      highest_name = candidate->key.name;
    } else if (order == 0 && spec.strategy != strategy) {
      // Upstream fails on the first such conflict it meets in list order, even if a later
      // candidate with a higher binary version would have settled the question.
      return StrategyError{"candidates " + highest_name + ", " + candidate->key.name +
                           " have the same binary version " + to_string(highest) +
                           " but different strategies " + strategy + ", " + spec.strategy};
    }
  }
  return strategy;
}

}  // namespace hasim::election
