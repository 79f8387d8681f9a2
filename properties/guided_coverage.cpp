// A run's coverage and the corpus of runs kept for it (properties/guided.hpp).
#include <algorithm>
#include <bit>

#include "properties/guided.hpp"
#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim {
namespace {

// FNV-1a over the parts, each closed by a separator byte so ("ab","c") and ("a","bc") differ.
std::uint64_t feature_hash(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = kFnvOffset;
  for (std::string_view part : parts) h = fnv1a_byte(fnv1a(h, part), 0xff);
  return h;
}

// AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+. Finer counts would keep
// runs that differ only in how long something ran.
std::string_view count_bucket(std::uint64_t count) {
  HASIM_ASSERT(count > 0);
  if (count <= 3) return count == 1 ? "1" : count == 2 ? "2" : "3";
  if (count < 8) return "4-7";
  if (count < 16) return "8-15";
  if (count < 32) return "16-31";
  return count < 128 ? "32-127" : "128+";
}

// A field value that may name a process ("cp-2/kube-controller-manager"); whether it does is
// decided against the fault space when a mutation aims at it.
bool may_name_process(std::string_view value) {
  const std::size_t slash = value.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < value.size() &&
         value.find('/', slash + 1) == std::string_view::npos && value.size() < 128 &&
         value.find(' ') == std::string_view::npos;
}

}  // namespace

std::uint64_t kind_feature(std::string_view kind) { return feature_hash({"kind", kind}); }

bool CoverageObserver::wants(std::string_view kind) const { return kind != "recv"; }

// What a string field names, as the same across runs: a process for an identity (a fresh
// seed draws fresh identities), a value that may name a process or an object as it is, else
// nothing (free text, numbers in text).
std::string CoverageObserver::named(const std::string& value) const {
  const auto identity = identities_.find(value);
  if (identity != identities_.end()) return identity->second;
  return may_name_process(value) ? value : std::string();
}

Anchor CoverageObserver::anchor_of(const TraceEvent& event) {
  Anchor a{event.t, std::string(event.kind), std::string(event.node), {}, {}};
  a.features.push_back(kind_feature(event.kind));
  if (!event.proc.empty()) a.processes.push_back(a.node + "/" + std::string(event.proc));
  for (const TraceField& field : event.fields) {
    const auto* text = std::get_if<std::string>(&field.value);
    if (text == nullptr) continue;
    const std::string name = named(*text);
    if (name.empty()) continue;
    // Who or what the event is about ("cle-elect" of which Lease, for which holder).
    a.features.push_back(feature_hash({"field", event.kind, field.key, name}));
    local_.insert(a.features.back());
    if (std::find(a.processes.begin(), a.processes.end(), name) == a.processes.end()) {
      a.processes.push_back(name);
    }
  }
  return a;
}

void CoverageObserver::on_event(const TraceEvent& event) {
  auto it = kind_index_.find(event.kind);
  if (it == kind_index_.end()) {
    HASIM_ASSERT(kinds_.size() < 100'000);  // kinds are declared literals: few
    it = kind_index_.emplace(std::string(event.kind), kinds_.size()).first;
    kinds_.push_back(KindStats{std::string(event.kind), 0, {}});
  }
  const std::size_t kind = it->second;
  const std::uint64_t n = kinds_[kind].count++;
  // Reused: building "node/proc" allocates only while the longest name grows.
  std::string& who = who_;
  who.clear();
  if (!event.proc.empty()) {
    who.append(event.node).append("/").append(event.proc);
    // A process's identity (client-go's holderIdentity): later events name it by that.
    const std::string_view identity = event.string_field("identity");
    if (!identity.empty() && identities_.find(identity) == identities_.end()) {
      HASIM_ASSERT(identities_.size() < 1'000'000);
      identities_.emplace(std::string(identity), who);
    }
  }
  // Bounded: the first kFirst occurrences, then one per doubling.
  if (n < kFirst || std::has_single_bit(n)) kinds_[kind].anchors.push_back(anchor_of(event));
  // The order of kinds among the first few events of each: a pause that ends just after a
  // takeover rather than long after it differs here and maybe nowhere else. Kinds only, and
  // only the first few: which process, and the order among routine events, change with every
  // timing, and runs kept for that would bury the few that matter.
  if (n < kOrdered) {
    local_.insert(feature_hash({"order", previous_ordered_, event.kind}));
    previous_ordered_.assign(event.kind);
  }
  const std::string_view place = who.empty() ? event.node : std::string_view(who);
  local_.insert(feature_hash({"at", event.kind, place}));
  const auto last = last_kind_.find(place);
  if (last == last_kind_.end()) {
    last_kind_.emplace(std::string(place), kind);
    return;
  }
  local_.insert(feature_hash({"edge", kinds_[last->second].kind, event.kind}));
  last->second = kind;
}

RunCoverage CoverageObserver::finish() const {
  RunCoverage out;
  std::set<std::uint64_t> features = local_;
  for (const KindStats& s : kinds_) {
    features.insert(kind_feature(s.kind));
    features.insert(feature_hash({"count", s.kind, count_bucket(s.count)}));
    out.anchors.insert(out.anchors.end(), s.anchors.begin(), s.anchors.end());
  }
  out.features.assign(features.begin(), features.end());
  return out;
}

std::uint64_t Corpus::hits(std::uint64_t feature) const {
  const auto it = hits_.find(feature);
  return it == hits_.end() ? 0 : it->second;
}

std::optional<std::size_t> Corpus::take_fresh_turn() {
  if (fresh_ >= entries_.size()) return std::nullopt;
  const std::size_t entry = fresh_;
  if (++fresh_taken_ == kFreshTurns) {
    ++fresh_;
    fresh_taken_ = 0;
  }
  return entry;
}

bool Corpus::offer(const Schedule& schedule, std::uint64_t seed, RunCoverage coverage) {
  bool any = false;
  for (const std::uint64_t f : coverage.features) any = ++hits_[f] == 1 || any;
  if (!any || entries_.size() >= kMaxEntries) return false;
  const std::size_t index = entries_.size();
  for (const std::uint64_t f : coverage.features) {
    const auto [it, added] = top_.emplace(f, index);
    if (!added && entries_[it->second].schedule.faults.size() > schedule.faults.size()) {
      it->second = index;
    }
  }
  entries_.push_back(
      CorpusEntry{schedule, seed, std::move(coverage.anchors), std::move(coverage.features)});
  return true;
}

}  // namespace hasim
