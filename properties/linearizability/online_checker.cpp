// OnlineChecker: just-in-time linearization over the open operations of each key
// (checker.hpp). Configurations are kept sorted and unique, so every step is deterministic.
#include <algorithm>
#include <array>
#include <set>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/register_model.hpp"
#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

constexpr std::size_t kSlotWords = 4;
constexpr std::size_t kSlotsMax = 64 * kSlotWords;  // open operations one key can track
using Slots = std::array<std::uint64_t, kSlotWords>;

bool has(const Slots& bits, std::size_t slot) {
  return ((bits[slot / 64] >> (slot % 64)) & 1u) != 0;
}
void set_bit(Slots& bits, std::size_t slot) { bits[slot / 64] |= std::uint64_t{1} << (slot % 64); }
void clear_bit(Slots& bits, std::size_t slot) {
  bits[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

// A model state plus which open operations (by slot) it has already linearized.
struct Config {
  Slots linearized{};
  RegisterState state;
  auto operator<=>(const Config&) const = default;
};

struct Slot {
  bool used = false;
  OperationId id = 0;
  ModelOp op;
};

struct KeyRun {
  ValueTable values;
  std::vector<Slot> slots;
  std::vector<Config> configs{Config{}};  // sorted, unique
  bool decided = false;  // illegal or gave up: later events on this key are ignored
};

}  // namespace

struct OnlineChecker::Impl {
  Limits limits;
  std::map<std::string, KeyRun> keys;
  std::map<OperationId, std::size_t> slot_of;  // open operation -> its slot on its key
  Verdict verdict;
  std::int64_t last_time_ns = 0;
  std::size_t peak_configurations = 1;

  void decide(const std::string& key, KeyRun& run, VerdictKind kind, std::int64_t time_ns,
              const Operation& op, std::string detail);
  std::size_t claim_slot(KeyRun& run, const Operation& op);
  bool extend(const KeyRun& run, std::size_t returning, std::vector<Config>& out) const;
  void forget_unknowns(KeyRun& run);
};

void OnlineChecker::Impl::decide(const std::string& key, KeyRun& run, VerdictKind kind,
                                 std::int64_t time_ns, const Operation& op, std::string detail) {
  HASIM_ASSERT(!run.decided);
  HASIM_ASSERT(kind != VerdictKind::linearizable);
  run.decided = true;
  verdict.keys[key] = kind;
  // Nothing more is checked on this key: give its memory back.
  for (Slot& slot : run.slots) {
    if (slot.used) slot_of.erase(slot.id);
    slot.used = false;
  }
  run.configs.clear();
  const bool first_illegal = kind == VerdictKind::illegal && verdict.kind != VerdictKind::illegal;
  if (verdict.kind != VerdictKind::linearizable && !first_illegal) return;
  verdict.kind = kind;
  verdict.key = key;
  verdict.time_ns = time_ns;
  verdict.unplaceable = op.id;
  verdict.detail = std::move(detail);
}

std::size_t OnlineChecker::Impl::claim_slot(KeyRun& run, const Operation& op) {
  std::size_t slot = 0;
  while (slot < run.slots.size() && run.slots[slot].used) ++slot;
  if (slot >= std::min(limits.max_open, kSlotsMax)) return kSlotsMax;
  if (slot == run.slots.size()) run.slots.emplace_back();
  run.slots[slot] = Slot{true, op.id, compile(op, run.values)};
  slot_of[op.id] = slot;
  return slot;
}

// Every configuration extended by any order of other open operations and then the returning
// one (or kept as it is when it linearized the returning one earlier), with the returning
// slot cleared. Orders that place other operations after the returning one are left out: a
// later return generates them from the configurations kept here. Breadth first over (linearized set, state), each
// reached once. False when the limit on configurations was reached.
bool OnlineChecker::Impl::extend(const KeyRun& run, std::size_t returning,
                                 std::vector<Config>& out) const {
  std::set<Config> seen(run.configs.begin(), run.configs.end());
  std::vector<Config> work = run.configs;
  std::set<Config> done;
  for (std::size_t i = 0; i < work.size(); ++i) {
    Config c = work[i];
    if (has(c.linearized, returning)) {
      // Already linearized by an earlier return: it stays explained, as it is.
      HASIM_ASSERT(i < run.configs.size());
      clear_bit(c.linearized, returning);
      done.insert(c);
      continue;
    }
    const Successors last = step(c.state, run.slots[returning].op);
    for (std::size_t s = 0; s < last.count; ++s) done.insert({c.linearized, last.states[s]});
    for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
      const Slot& other = run.slots[slot];
      if (slot == returning || !other.used || has(c.linearized, slot)) continue;
      const Successors next = step(c.state, other.op);
      for (std::size_t s = 0; s < next.count; ++s) {
        // Taking no effect is the same as staying unlinearized: not a new configuration.
        if (!other.op.known && next.states[s] == c.state) continue;
        Config n{c.linearized, next.states[s]};
        set_bit(n.linearized, slot);
        if (seen.insert(n).second) work.push_back(n);
      }
    }
    if (seen.size() > limits.max_configurations) return false;
    if (done.size() > limits.max_configurations) return false;
  }
  out.assign(done.begin(), done.end());
  return true;
}

// An unknown outcome never returns; once every configuration has linearized it, no
// configuration can depend on it any more, so its slot is freed.
void OnlineChecker::Impl::forget_unknowns(KeyRun& run) {
  for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
    Slot& s = run.slots[slot];
    if (!s.used || s.op.known) continue;
    const bool everywhere = std::all_of(run.configs.begin(), run.configs.end(),
                                        [slot](const Config& c) { return has(c.linearized, slot); });
    if (!everywhere) continue;
    for (Config& c : run.configs) clear_bit(c.linearized, slot);
    slot_of.erase(s.id);
    s.used = false;
  }
  std::sort(run.configs.begin(), run.configs.end());
  run.configs.erase(std::unique(run.configs.begin(), run.configs.end()), run.configs.end());
}

OnlineChecker::OnlineChecker(Limits limits) : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  HASIM_ASSERT(limits.max_configurations >= 1);
}
OnlineChecker::~OnlineChecker() = default;
OnlineChecker::OnlineChecker(OnlineChecker&&) noexcept = default;
OnlineChecker& OnlineChecker::operator=(OnlineChecker&&) noexcept = default;

void OnlineChecker::invoke(const Operation& op) {
  HASIM_ASSERT(takes_part(op));
  HASIM_ASSERT(op.invoke_ns >= impl_->last_time_ns);
  HASIM_ASSERT(!impl_->slot_of.contains(op.id));
  impl_->last_time_ns = op.invoke_ns;
  KeyRun& run = impl_->keys[op.key];
  impl_->verdict.keys.emplace(op.key, VerdictKind::linearizable);
  if (run.decided) return;
  if (impl_->claim_slot(run, op) == kSlotsMax) {
    impl_->decide(op.key, run, VerdictKind::gave_up, op.invoke_ns, op,
                  "more than " + std::to_string(std::min(impl_->limits.max_open, kSlotsMax)) +
                      " operations open at once");
  }
}

namespace {

std::string describe_output(const Operation& op) {
  const Output& o = op.output;
  std::string text;
  if (op.kind == OpKind::get || (is_compare(op.kind) && !o.succeeded)) {
    text = o.found ? "found \"" + o.value + "\" mod_revision " + std::to_string(o.mod_revision)
                   : "not found";
    if (is_compare(op.kind)) text = "compare failed, " + text;
  } else if (op.kind == OpKind::del) {
    text = o.succeeded ? "deleted" : "nothing deleted";
  } else {
    text = is_compare(op.kind) ? "compare held" : "written";
  }
  return text + ", revision " + std::to_string(o.revision);
}

std::string describe_unexplained(const Operation& op, const KeyRun& run) {
  std::size_t open = 0;
  for (const Slot& slot : run.slots) open += slot.used ? 1 : 0;
  std::string text = "operation " + std::to_string(op.id) + " (process " +
                     std::to_string(op.process) + ", " + std::string(op_kind_name(op.kind)) +
                     " " + op.key + ") returned at " + std::to_string(op.return_ns) +
                     " ns with " + describe_output(op) + ": no order of the " +
                     std::to_string(open) + " open operations explains it; the key was";
  const std::size_t shown = std::min<std::size_t>(run.configs.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) {
    text += (i == 0 ? " " : " or ") + describe(run.configs[i].state, run.values);
  }
  if (run.configs.size() > shown) text += " or ...";
  return text;
}

}  // namespace

void OnlineChecker::complete(const Operation& op) {
  HASIM_ASSERT(op.outcome == Outcome::ok);
  HASIM_ASSERT(op.return_ns >= impl_->last_time_ns);
  impl_->last_time_ns = op.return_ns;
  KeyRun& run = impl_->keys.at(op.key);
  if (run.decided) return;
  const auto slot_it = impl_->slot_of.find(op.id);
  HASIM_ASSERT(slot_it != impl_->slot_of.end());
  const std::size_t slot = slot_it->second;
  HASIM_ASSERT(run.slots[slot].used);
  HASIM_ASSERT(run.slots[slot].id == op.id);
  std::vector<Config> next;
  if (!impl_->extend(run, slot, next)) {
    impl_->decide(op.key, run, VerdictKind::gave_up, op.return_ns, op,
                  "more than " + std::to_string(impl_->limits.max_configurations) +
                      " configurations at the return of operation " + std::to_string(op.id));
    return;
  }
  if (next.empty()) {
    impl_->decide(op.key, run, VerdictKind::illegal, op.return_ns, op,
                  describe_unexplained(op, run));
    return;
  }
  run.slots[slot].used = false;
  impl_->slot_of.erase(op.id);
  run.configs = std::move(next);
  impl_->forget_unknowns(run);
  impl_->peak_configurations = std::max(impl_->peak_configurations, run.configs.size());
  HASIM_ASSERT(!run.configs.empty());
}

const Verdict& OnlineChecker::verdict() const { return impl_->verdict; }

std::size_t OnlineChecker::open_operations() const { return impl_->slot_of.size(); }

std::size_t OnlineChecker::configurations() const {
  std::size_t total = 0;
  for (const auto& [key, run] : impl_->keys) total += run.configs.size();
  return total;
}

std::size_t OnlineChecker::peak_configurations() const { return impl_->peak_configurations; }

Verdict check_online(const History& history, const Limits& limits) {
  HASIM_ASSERT(validate(history).empty());
  OnlineChecker checker(limits);
  for (const Event& event : checker_events(history)) {
    const Operation& op = history.operations[event.id];
    if (event.is_return) {
      checker.complete(op);
    } else {
      checker.invoke(op);
    }
  }
  return checker.verdict();
}

}  // namespace hasim::linearizability
