#include "models/election/coordinated_election.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "models/election/semver.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
namespace {

const api::LeaseCandidateSpec& spec_of(const api::Object& candidate) {
  HASIM_ASSERT(candidate.key.kind == api::Kind::lease_candidate);
  return candidate.candidate;
}

// ParseTolerant, remembered: the controller ranks the same few version strings again on every
// reconcile step (several per second), and parsing dominated its cost. Pure, so a per-thread
// memo changes no result (report trials run on several threads). A short list scanned in
// order beats a std::map here (versions are few, and equal lengths are the rule). Only trim() drops
// entries, and each public function calls it before it takes any reference, never while it holds
// one.
class VersionMemo {
 public:
  struct Versions {
    const std::optional<SemVer>* emulation = nullptr;
    const std::optional<SemVer>* binary = nullptr;
  };

  // The scan inline (a hit is the rule), the parse out of line.
  const std::optional<SemVer>& parsed(const std::string& text) {
    for (const std::unique_ptr<Entry>& entry : entries_) {
      if (entry->text.size() == text.size() &&
          std::char_traits<char>::compare(entry->text.data(), text.data(), text.size()) == 0) {
        return entry->version;
      }
    }
    return add(text);
  }
  // A candidate's two versions, remembered by object: every step ranks the informer's
  // candidate objects, which stay the same until a candidate writes again, so the lookups
  // above ran for the same object many times (stop 41: ranking went from 6.6% to 5.4% of a
  // coordinated 5-node trial's instructions). An ObjectPtr's object is never modified once
  // shared, and a slot holds its object, so that address cannot name another object while the
  // slot remembers it; the address only picks the slot, and a hit answers what a miss
  // computes.
  Versions versions_of(const api::ObjectPtr& candidate) {
    HASIM_ASSERT(candidate != nullptr);
    Slot& slot = slots_[(reinterpret_cast<std::uintptr_t>(candidate.get()) >> 4) % kSlots];
    if (slot.object != candidate) {
      const api::LeaseCandidateSpec& spec = spec_of(*candidate);
      slot.versions = {&parsed(spec.emulationVersion), &parsed(spec.binaryVersion)};
      slot.object = candidate;
    }
    return slot.versions;
  }
  // Bounded: versions are few, but arbitrary strings (a fuzzer's) are not. The slots point
  // into the entries, so they go with them.
  void trim() {
    if (entries_.size() < kCapacity) return;
    entries_.clear();
    slots_ = {};
  }

 private:
  static constexpr std::size_t kCapacity = 64;
  static constexpr std::size_t kSlots = 64;
  struct Slot {
    api::ObjectPtr object;
    Versions versions;
  };
  std::array<Slot, kSlots> slots_;
  struct Entry {
    std::string text;
    std::optional<SemVer> version;
  };
  [[gnu::noinline]] const std::optional<SemVer>& add(const std::string& text) {
    entries_.push_back(std::make_unique<Entry>(Entry{text, parse_semver_tolerant(text)}));
    return entries_.back()->version;
  }
  // Each entry on the heap, so the references handed out survive later insertions.
  std::vector<std::unique_ptr<Entry>> entries_;
};

VersionMemo& memo() {
  thread_local VersionMemo instance;
  return instance;
}

// Upstream falls back to semver's zero Version on a parse error, so outside the OEV picker's
// pre-filter garbage ranks as 0.0.0, the oldest (and therefore best) version. A reference
// (into the memo, or to this zero) so ranking copies no pre-release identifiers.
const SemVer& or_zero(const std::optional<SemVer>& parsed) {
  static const SemVer kZero{};
  return parsed.has_value() ? *parsed : kZero;
}

const SemVer& version_or_zero(const std::string& text) { return or_zero(memo().parsed(text)); }

// What compare_candidates reads of a candidate, looked up once per candidate.
struct Rank {
  const SemVer* emulation = nullptr;
  const SemVer* binary = nullptr;
  LocalTime created{};
};

Rank rank_of(const api::Object& candidate) {
  const api::LeaseCandidateSpec& spec = spec_of(candidate);
  return {&version_or_zero(spec.emulationVersion), &version_or_zero(spec.binaryVersion),
          candidate.creationTimestamp};
}

// Versions from the memo (or the zero version): one object per distinct text, so one address
// is one version, and candidates mostly share their versions (stop 42: compare was 1.2% of a
// coordinated 5-node trial).
int compare_versions(const SemVer& lhs, const SemVer& rhs) {
  return &lhs == &rhs ? 0 : compare(lhs, rhs);
}

int compare_ranks(const Rank& lhs, const Rank& rhs) {
  int result = compare_versions(*lhs.emulation, *rhs.emulation);
  if (result == 0) result = compare_versions(*lhs.binary, *rhs.binary);
  if (result != 0) return result;
  // Upstream asks only "was lhs created after rhs?": equal timestamps answer -1 and keep lhs
  // (the current electee). The name is deliberately not consulted.
  return lhs.created > rhs.created ? 1 : -1;
}

// The rank of a candidate valid for OldestEmulationVersion (both versions parse), else none.
std::optional<Rank> valid_rank(const api::ObjectPtr& candidate) {
  const VersionMemo::Versions versions = memo().versions_of(candidate);
  if (!versions.emulation->has_value() || !versions.binary->has_value()) return std::nullopt;
  return Rank{&**versions.emulation, &**versions.binary, candidate->creationTimestamp};
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
  memo().trim();
  const api::LeaseCandidateSpec& spec = spec_of(candidate);
  return memo().parsed(spec.emulationVersion).has_value() &&
         memo().parsed(spec.binaryVersion).has_value();
}

SemVer emulation_version_or_zero(const api::Object& candidate) {
  memo().trim();
  return version_or_zero(spec_of(candidate).emulationVersion);
}

SemVer binary_version_or_zero(const api::Object& candidate) {
  memo().trim();
  return version_or_zero(spec_of(candidate).binaryVersion);
}

int compare_candidates(const api::Object& lhs, const api::Object& rhs) {
  memo().trim();
  return compare_ranks(rank_of(lhs), rank_of(rhs));
}

api::ObjectPtr pick_best_leader_oldest_emulation_version(
    const std::vector<api::ObjectPtr>& candidates) {
  memo().trim();
  api::ObjectPtr electee;
  Rank best;
  for (const api::ObjectPtr& candidate : candidates) {
    HASIM_ASSERT(candidate != nullptr);
    // Invalid candidates are skipped before ranking, so compare's 0.0.0 fallback never lets an
    // unparseable version win here.
    const std::optional<Rank> rank = valid_rank(candidate);
    if (!rank.has_value()) continue;
    // One pass in list order; a later candidate replaces the electee only when strictly
    // better, which is what makes ties order-dependent upstream.
    if (electee == nullptr || compare_ranks(best, *rank) > 0) {
      electee = candidate;
      best = *rank;
    }
  }
  return electee;
}

api::ObjectPtr pick_best_leader_with_priority(const std::vector<api::ObjectPtr>& candidates) {
  // The highest priority is taken over candidates the OEV tie-break can rank, so a prioritised
  // candidate with unparseable versions cannot leave the lease without a leader.
  memo().trim();
  std::int32_t highest = 0;
  for (const api::ObjectPtr& candidate : candidates) {
    HASIM_ASSERT(candidate != nullptr);
    if (!valid_rank(candidate).has_value()) continue;
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
  auto strategy = pick_best_strategy_view(candidates);
  if (auto* error = std::get_if<StrategyError>(&strategy)) return std::move(*error);
  return std::string(std::get<std::string_view>(strategy));
}

std::variant<std::string_view, StrategyError> pick_best_strategy_view(
    const std::vector<api::ObjectPtr>& candidates) {
  if (candidates.empty()) return StrategyError{"no candidates"};

  // No validity pre-filter here (unlike the OEV picker): an unparseable binary version takes
  // part as 0.0.0. Pointers into the candidates and the memo: nothing is copied but the result.
  memo().trim();
  const api::ObjectPtr& first = candidates.front();
  HASIM_ASSERT(first != nullptr);
  const api::Object* highest_candidate = first.get();
  // The binary versions alone: the emulation versions play no part in the strategy.
  const SemVer* highest = &or_zero(*memo().versions_of(first).binary);

  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const api::ObjectPtr& candidate = candidates[i];
    HASIM_ASSERT(candidate != nullptr);
    const api::LeaseCandidateSpec& spec = spec_of(*candidate);
    const SemVer& version = or_zero(*memo().versions_of(candidate).binary);
    const int order = compare_versions(*highest, version);
    if (order < 0) {
      highest_candidate = candidate.get();
      highest = &version;
    } else if (order == 0 && spec.strategy != highest_candidate->candidate.strategy) {
      // Upstream fails on the first such conflict it meets in list order, even if a later
      // candidate with a higher binary version would have settled the question.
      return StrategyError{"candidates " + highest_candidate->key.name + ", " +
                           candidate->key.name + " have the same binary version " +
                           to_string(*highest) + " but different strategies " +
                           highest_candidate->candidate.strategy + ", " + spec.strategy};
    }
  }
  return std::string_view(highest_candidate->candidate.strategy);
}

}  // namespace hasim::election
