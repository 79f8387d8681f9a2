// Mutating a kept run's schedule (properties/guided.hpp): AFL's "havoc" stage, with the
// run's trace telling where to aim.
#include <algorithm>
#include <rapidcheck.h>

#include "properties/check_system.hpp"
#include "properties/guided.hpp"
#include "scenarios/fault_json.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

constexpr int kTries = 16;

// A delay after an anchor: a decade (10 ms, 100 ms, 1 s, 10 s) on a coin, then uniform within
// it, so as many mutants land within 10 ms of the moment (a race) as seconds after it (a
// timeout), on the millisecond grid every drawn schedule keeps.
Duration draw_delay() {
  static constexpr std::int64_t kTops[] = {10, 100, 1000, 10000};
  return milliseconds(*rc::gen::inRange<std::int64_t>(0, kTops[*rc::gen::inRange(0, 4)] + 1));
}

// Up to the next whole millisecond, so "after the event" stays after it.
Duration ceil_ms(Duration d) {
  const std::int64_t ms = (d.ns + 999'999) / 1'000'000;
  return milliseconds(ms);
}

std::size_t pick_index(std::size_t size) {
  HASIM_ASSERT(size > 0);
  return *rc::gen::inRange<std::size_t>(0, size);
}

// How much a feature counts for: the rarer across the runs so far, the more (FairFuzz).
std::uint64_t rarity(const Corpus& corpus, std::uint64_t feature) {
  return (std::uint64_t{1} << 20) / std::max<std::uint64_t>(1, corpus.hits(feature));
}

// An index drawn with the given weights (not all zero).
std::size_t pick_weighted(const std::vector<std::uint64_t>& weights) {
  std::uint64_t total = 0;
  for (const std::uint64_t w : weights) total += w;
  HASIM_ASSERT(total > 0);
  std::uint64_t draw = *rc::gen::inRange<std::uint64_t>(0, total);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (draw < weights[i]) return i;
    draw -= weights[i];
  }
  HASIM_ASSERT(false);
  return 0;
}

// A quarter of the time one of the newest entries (where the last new behaviour was), else a
// top-rated entry, by the rarity of the features it is top-rated for.
std::size_t pick_entry(const Corpus& corpus) {
  const std::size_t n = corpus.entries().size();
  HASIM_ASSERT(n > 0);
  if (*rc::gen::inRange(0, 4) == 0) return n - 1 - pick_index(std::min<std::size_t>(n, 4));
  std::vector<std::uint64_t> weights(n, 0);
  for (const auto& [feature, entry] : corpus.top_rated()) weights[entry] += rarity(corpus, feature);
  return pick_weighted(weights);
}

// An anchor in [from, to). Half the time by kind (a kind uniformly, then one of its
// occurrences, so a rare kind is as likely as a frequent one); half the time weighted by the
// rarest thing the event is about across the runs so far (a takeover for an unusual holder
// over the routine ones).
const Anchor* pick_anchor(const Corpus& corpus, const CorpusEntry& entry, TrueTime from,
                          TrueTime to) {
  std::vector<const Anchor*> in_range;
  for (const Anchor& a : entry.anchors) {
    if (a.t >= from && a.t < to) in_range.push_back(&a);
  }
  if (in_range.empty()) return nullptr;
  if (*rc::gen::arbitrary<bool>()) {
    std::vector<std::uint64_t> weights;
    for (const Anchor* a : in_range) {
      std::uint64_t w = 0;
      for (const std::uint64_t f : a->features) w = std::max(w, rarity(corpus, f));
      weights.push_back(w);
    }
    return in_range[pick_weighted(weights)];
  }
  std::vector<std::string_view> kinds;
  for (const Anchor* a : in_range) {
    if (std::find(kinds.begin(), kinds.end(), a->kind) == kinds.end()) kinds.push_back(a->kind);
  }
  const std::string_view kind = kinds[pick_index(kinds.size())];
  std::vector<const Anchor*> occurrences;
  for (const Anchor* a : in_range) {
    if (a->kind == kind) occurrences.push_back(a);
  }
  return occurrences[pick_index(occurrences.size())];
}

// Aims a drawn fault at what the anchor concerns: its processes for a process fault, its node
// for a node fault. Role-aimed and many-target faults (partitions) keep their targets.
void retarget(FaultSpec& f, const Anchor& a, const FaultSpace& space) {
  if (!f.role.empty() || f.targets.size() != 1) return;
  const std::string& old = f.targets.front();
  if (is_process_target(old)) {
    const std::vector<std::string>& pool =
        is_listed(space.mounts, old) ? space.mounts : space.processes;
    std::vector<std::string> aimed;
    for (const std::string& p : a.processes) {
      if (is_listed(pool, p)) aimed.push_back(p);
    }
    if (!aimed.empty()) f.targets = {aimed[pick_index(aimed.size())]};
    return;
  }
  const std::vector<std::string>& pool = is_listed(space.hosts, old) ? space.hosts : space.nodes;
  if (is_listed(pool, a.node)) f.targets = {a.node};
}

std::vector<FaultChoice> drawable_choices(const FaultSpace& space, const GenerateOptions& options) {
  std::vector<FaultChoice> drawable;
  for (const FaultChoice& c : fault_menu(space, options.kinds)) {
    if (find_fault_choice(c)->draw != nullptr) drawable.push_back(c);
  }
  return drawable;
}

// A full schedule makes room: a new fault replaces one, so a mutant of a run that already has
// max_faults can still try another combination.
void make_room(Schedule& s, const GenerateOptions& options) {
  if (static_cast<int>(s.faults.size()) < std::max(1, options.max_faults)) return;
  s.faults.erase(s.faults.begin() + static_cast<std::ptrdiff_t>(pick_index(s.faults.size())));
}

void sort_faults(Schedule& s) {
  std::stable_sort(s.faults.begin(), s.faults.end(),
                   [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
}

// A drawn fault at an anchor plus a delay, aimed at what the anchor concerns (replacing one
// when the schedule is full).
bool add_at_anchor(Schedule& s, const Corpus& corpus, const CorpusEntry& entry,
                   const FaultSpace& space, const GenerateOptions& options) {
  const std::vector<FaultChoice> drawable = drawable_choices(space, options);
  const Anchor* a = pick_anchor(corpus, entry, TrueTime{}, TrueTime::max());
  if (drawable.empty() || a == nullptr) return false;
  const FaultChoice& choice = drawable[pick_index(drawable.size())];
  FaultSpec f = find_fault_choice(choice)->draw(space, Intensity{*rc::gen::element(10, 30, 100)});
  f.at = ceil_ms(Duration{a->t.ns} + draw_delay());
  if (f.at >= space.duration) return false;
  retarget(f, *a, space);
  make_room(s, options);
  s.faults.push_back(std::move(f));
  if (!is_listed(s.enabled, choice)) s.enabled.push_back(choice);
  return true;
}

// A fault's end moved to an anchor plus a delay: "pause until the others have elected, then a
// little longer". Half the time an anchor while the fault lasted (what the others did about
// it), else any after its start.
bool end_at_anchor(Schedule& s, const Corpus& corpus, const CorpusEntry& entry) {
  std::vector<std::size_t> lasting;
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    if (s.faults[i].for_duration) lasting.push_back(i);
  }
  if (lasting.empty()) return false;
  FaultSpec& f = s.faults[lasting[pick_index(lasting.size())]];
  const TrueTime from{(f.at + milliseconds(1)).ns};
  const TrueTime end{(f.at + *f.for_duration).ns};
  const Anchor* a =
      pick_anchor(corpus, entry, from, *rc::gen::arbitrary<bool>() ? end : TrueTime::max());
  if (a == nullptr) return false;
  f.for_duration = ceil_ms(Duration{a->t.ns} + draw_delay() - f.at);
  return true;
}

// Another drawn fault on the target of one that lasts, a delay after it ends: a process that
// comes back and fails again.
bool follow_up(Schedule& s, const FaultSpace& space, const GenerateOptions& options) {
  std::vector<std::size_t> lasting;
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    if (f.for_duration && f.role.empty() && f.targets.size() == 1) lasting.push_back(i);
  }
  std::vector<FaultChoice> drawable = drawable_choices(space, options);
  if (lasting.empty() || drawable.empty()) return false;
  const FaultSpec& after = s.faults[lasting[pick_index(lasting.size())]];
  const std::string target = after.targets.front();
  const Duration at = ceil_ms(after.at + *after.for_duration + draw_delay());
  const FaultChoice& choice = drawable[pick_index(drawable.size())];
  FaultSpec f = find_fault_choice(choice)->draw(space, Intensity{*rc::gen::element(10, 30, 100)});
  if (at >= space.duration || f.targets.size() != 1) return false;
  if (is_process_target(target) != is_process_target(f.targets.front())) return false;
  f.targets = {target};
  f.at = at;
  make_room(s, options);
  s.faults.push_back(std::move(f));
  if (!is_listed(s.enabled, choice)) s.enabled.push_back(choice);
  return true;
}

// A fault's start or length moved by a delay either way.
bool nudge(Schedule& s, const FaultSpace& space) {
  if (s.faults.empty()) return false;
  FaultSpec& f = s.faults[pick_index(s.faults.size())];
  const Duration delta = draw_delay();
  const bool later = *rc::gen::arbitrary<bool>();
  if (f.for_duration && *rc::gen::arbitrary<bool>()) {
    const Duration d = later ? *f.for_duration + delta : *f.for_duration - delta;
    f.for_duration = std::max(milliseconds(1), d);
    return true;
  }
  const Duration at = later ? f.at + delta : f.at - delta;
  f.at = std::clamp(at, Duration{}, space.duration - milliseconds(1));
  return true;
}

bool drop(Schedule& s) {
  if (s.faults.size() + s.redraws.size() < 2 || s.faults.empty()) return false;
  s.faults.erase(s.faults.begin() + static_cast<std::ptrdiff_t>(pick_index(s.faults.size())));
  return true;
}

bool mutate_once(Schedule& s, const Corpus& corpus, const CorpusEntry& entry,
                 const FaultSpace& space, const GenerateOptions& options) {
  switch (*rc::gen::inRange(0, 9)) {
    case 0:
    case 1:
    case 2:
      return add_at_anchor(s, corpus, entry, space, options);
    case 3:
    case 4:
    case 5:
      return end_at_anchor(s, corpus, entry);
    case 6:
      return follow_up(s, space, options);
    case 7:
      return nudge(s, space);
    default:
      return drop(s);
  }
}

// Within max_faults and, when the space keeps to the assumptions, breaking none beyond those
// the scenario's configuration breaks by itself (`config_broken`: a scenario may be weak on
// purpose, e.g. clock rates beyond LD/RD).
bool valid(const Schedule& s, const Scenario& scenario, const FaultSpace& space,
           const GenerateOptions& options, const std::vector<std::string>& config_broken) {
  if (s.faults.empty() && s.redraws.empty()) return false;
  if (static_cast<int>(s.faults.size()) > std::max(1, options.max_faults)) return false;
  if (!space.within_assumptions) return true;
  for (const std::string& broken : broken_assumptions(apply_schedule(scenario, s))) {
    if (std::find(config_broken.begin(), config_broken.end(), broken) == config_broken.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Mutant> mutate_schedule(const Corpus& corpus, std::optional<std::size_t> parent,
                                      const Scenario& scenario, const FaultSpace& space,
                                      const GenerateOptions& options, std::uint64_t seed) {
  HASIM_ASSERT(!corpus.entries().empty());
  HASIM_ASSERT(!parent || *parent < corpus.entries().size());
  const std::vector<std::string> config_broken =
      space.within_assumptions ? broken_assumptions(apply_schedule(scenario, Schedule{}))
                               : std::vector<std::string>{};
  const auto gen = rc::gen::exec([&]() -> std::optional<Mutant> {
    for (int attempt = 0; attempt < kTries; ++attempt) {
      const std::size_t from = parent ? *parent : pick_entry(corpus);
      const CorpusEntry& entry = corpus.entries()[from];
      Schedule s = entry.schedule;
      const int rounds = *rc::gen::inRange(0, 4) == 0 ? 2 : 1;
      bool changed = false;
      for (int r = 0; r < rounds; ++r)
        changed = mutate_once(s, corpus, entry, space, options) || changed;
      if (!changed) continue;
      sort_faults(s);
      if (valid(s, scenario, space, options, config_broken))
        return Mutant{std::move(s), entry.seed};
    }
    return std::nullopt;
  });
  return gen(rc::Random(seed), rc::kNominalSize).value();
}

}  // namespace hasim
