#pragma once
// Coverage-guided schedules for `hasim check --guided`. A bug that needs two faults, each in a
// window milliseconds wide that the system itself opens (kubernetes#138066's stall: the
// election controller makes a late candidate preferredHolder before the holder it just chose
// has renewed, and that candidate stops answering within the next seconds), is out of reach
// of faults drawn uniformly: swarm schedules find it in none of 2,000 runs, guided ones in 736
// (README, Coordinated Leader Election). Greybox fuzzers of distributed systems (Mallory, CCS
// 2023; AFL's corpus and "havoc" before it) reach such states by keeping every run that did
// something no earlier run did and mutating those, with faults aimed at moments the run's own
// trace shows. This unit does that:
//   - CoverageObserver reduces a run's trace to features (which kinds of events happened, how
//     often on a log scale, on which process, after which kind on the same process, about
//     which process or object, in which order the kinds first came) and to anchors (when
//     events happened and which processes they concern; the first occurrences of each kind,
//     then one per doubling);
//   - Corpus keeps the runs that covered a feature no kept run had, counts how many runs
//     covered each feature (mutations start from top-rated runs rich in rare features and aim
//     at rare events: FairFuzz's rare branches, ICSE 2018), and hands out each new kept run's
//     first mutants (the frontier);
//   - mutate_schedule changes a kept run's schedule: a fault at an anchor plus a delay, aimed
//     at a process the anchor concerns; a fault's end moved to just after an anchor; another
//     fault on a target after its fault ends; a time nudged; a fault dropped.
// A mutated schedule runs with its parent's simulation seed, so the run is the parent's run up
// to the first changed fault and the anchors' times still mean what they meant. The result is
// an ordinary schedule (absolute times), shrunk and replayed as any other.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "properties/schedule_gen.hpp"
#include "sim/trace.hpp"

namespace hasim {

// A moment of a run a mutation may aim a fault at.
struct Anchor {
  TrueTime t{};
  std::string kind;
  std::string node;                     // "" for a world-level event
  std::vector<std::string> processes;   // "node/proc": the event's own, and those it names
  std::vector<std::uint64_t> features;  // its kind's, and those of what its fields name
};

struct RunCoverage {
  std::vector<std::uint64_t> features;  // hashes, ascending, unique
  std::vector<Anchor> anchors;          // by kind (first seen first), then time
};

class CoverageObserver final : public TraceObserver {
 public:
  // Occurrences of a kind kept as anchors: the first kFirst, then the 2^k-th.
  static constexpr std::uint64_t kFirst = 16;
  // Occurrences of a kind whose order among the others is a feature: the first kOrdered.
  static constexpr std::uint64_t kOrdered = 4;

  void on_event(const TraceEvent& event) override;
  // Not "recv": the most frequent event, one per message, says nothing a send does not.
  bool wants(std::string_view kind) const override;
  RunCoverage finish() const;

 private:
  struct KindStats {
    std::string kind;
    std::uint64_t count = 0;
    std::vector<Anchor> anchors;
  };
  // The event as an anchor; also adds the features of what its fields name.
  Anchor anchor_of(const TraceEvent& event);
  std::string named(const std::string& value) const;

  std::map<std::string, std::size_t, std::less<>> kind_index_;  // into kinds_
  std::vector<KindStats> kinds_;                                // in first-seen order
  std::map<std::string, std::size_t, std::less<>> last_kind_;   // "node/proc" -> kind index
  std::set<std::uint64_t> local_;  // (kind, node/proc) and (previous kind there, kind)
  std::map<std::string, std::string, std::less<>> identities_;  // identity -> "node/proc"
  std::string who_;               // scratch: the current event's "node/proc"
  std::string previous_ordered_;  // the kind of the last of the first kOrdered of a kind
};

struct CorpusEntry {
  Schedule schedule;
  std::uint64_t seed = 0;               // the run's simulation seed; its mutants run with it
  std::vector<Anchor> anchors;          // of its run
  std::vector<std::uint64_t> features;  // of its run, by hash
};

// The feature "an event of this kind happened" (anchors are weighed by how rare it is).
std::uint64_t kind_feature(std::string_view kind);

class Corpus {
 public:
  static constexpr std::size_t kMaxEntries = 2000;  // bounded: a full corpus keeps no more

  // Counts the run's features, and keeps the run if it covered a feature no kept run did (and
  // there is room); true if kept. Every run is offered, so the counts say how rare each is.
  bool offer(const Schedule& schedule, std::uint64_t seed, RunCoverage coverage);
  const std::vector<CorpusEntry>& entries() const { return entries_; }
  std::size_t features() const { return hits_.size(); }
  // Runs offered that covered the feature (0 if none).
  std::uint64_t hits(std::uint64_t feature) const;
  // The kept run that covers the feature with the fewest faults (the first such), as AFL's
  // top_rated: mutating the simplest run that does something keeps mutants simple too.
  const std::map<std::uint64_t, std::size_t>& top_rated() const { return top_; }
  // The frontier (AFL's first pass over a new queue entry): each kept run, in the order kept,
  // is the parent of kFreshTurns mutants handed out by this before it is only drawn by weight.
  // nullopt when every kept run has had its turns.
  static constexpr int kFreshTurns = 8;
  std::optional<std::size_t> take_fresh_turn();

 private:
  std::size_t fresh_ = 0;  // the entry whose fresh turns are being taken
  int fresh_taken_ = 0;
  std::map<std::uint64_t, std::uint64_t> hits_;
  std::map<std::uint64_t, std::size_t> top_;
  std::vector<CorpusEntry> entries_;
};

struct Mutant {
  Schedule schedule;
  std::uint64_t seed = 0;  // the parent's simulation seed
};

// A mutant of an entry of `corpus` (not empty), within options.max_faults and, when the space
// keeps to the assumptions, within them; nullopt when no valid mutant was found in a few tries
// (the caller draws a fresh schedule instead). A pure function of its arguments.
// `parent`: that entry's (a fresh turn), else one drawn by weight.
std::optional<Mutant> mutate_schedule(const Corpus& corpus, std::optional<std::size_t> parent,
                                      const Scenario& scenario, const FaultSpace& space,
                                      const GenerateOptions& options, std::uint64_t seed);

}  // namespace hasim
