// OnlineChecker: just-in-time linearization over the open operations of each key
// (checker.hpp). Configurations are kept sorted and unique, so every step is deterministic.
#include <algorithm>
#include <array>
#include <set>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/online_configs.hpp"
#include "properties/linearizability/register_model.hpp"
#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

using online::Antichain;
using online::clear_bit;
using online::Config;
using online::has;
using online::kSlotsMax;
using online::set_bit;
using online::Slots;

// An open operation that holds a slot: an ok one until it returns, an unknown one while some
// configuration has linearized it (or it is being tried at a return).
struct Slot {
  bool used = false;
  OperationId id = 0;
  ModelOp op;
};

// An operation whose outcome is unknown and that no configuration has linearized: it is
// pending in every configuration alike, so it needs no bit.
struct Pending {
  OperationId id = 0;
  ModelOp op;
};

struct KeyRun {
  ValueTable values;
  std::vector<Slot> slots;
  std::vector<Pending> pool;              // in id order
  std::vector<Config> configs{Config{}};  // sorted, an antichain
  Slots unknown{};                        // the slots holding operations whose outcome is unknown
  bool decided = false;  // illegal or gave up: later events on this key are ignored
};

constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);

// By slot, the open operations online::absorb_reads may linearize at once (reads_only).
std::vector<const ModelOp*> open_reads(const KeyRun& run) {
  std::vector<const ModelOp*> reads(run.slots.size(), nullptr);
  for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
    const Slot& s = run.slots[slot];
    if (s.used && reads_only(s.op)) reads[slot] = &s.op;
  }
  return reads;
}

}  // namespace

struct OnlineChecker::Impl {
  Limits limits;
  std::map<std::string, KeyRun> keys;
  std::map<OperationId, std::size_t> slot_of;  // open ok operation -> its slot on its key
  Verdict verdict;
  std::int64_t last_time_ns = 0;
  std::size_t peak_configurations = 1;

  void decide(const std::string& key, KeyRun& run, VerdictKind kind, std::int64_t time_ns,
              const Operation& op, std::string detail);
  std::size_t claim_slot(KeyRun& run, OperationId id, const ModelOp& op) const;
  bool admit_observed(KeyRun& run, std::vector<std::size_t>& twin_before) const;
  bool extend(const KeyRun& run, std::size_t returning, const std::vector<std::size_t>& twin_before,
              std::vector<Config>& out) const;
  void settle_unknowns(KeyRun& run) const;
};

void OnlineChecker::Impl::decide(const std::string& key, KeyRun& run, VerdictKind kind,
                                 std::int64_t time_ns, const Operation& op, std::string detail) {
  HASIM_ASSERT(!run.decided);
  HASIM_ASSERT(kind != VerdictKind::linearizable);
  run.decided = true;
  verdict.keys[key] = kind;
  // Nothing more is checked on this key: give its memory back.
  for (Slot& slot : run.slots) {
    if (slot.used && slot.op.known) slot_of.erase(slot.id);
  }
  run.slots.clear();
  run.pool.clear();
  run.configs.clear();
  const bool first_illegal = kind == VerdictKind::illegal && verdict.kind != VerdictKind::illegal;
  if (verdict.kind != VerdictKind::linearizable && !first_illegal) return;
  verdict.kind = kind;
  verdict.key = key;
  verdict.time_ns = time_ns;
  verdict.unplaceable = op.id;
  verdict.detail = std::move(detail);
}

// The lowest free slot, or kNoSlot when the key already tracks max_open operations.
std::size_t OnlineChecker::Impl::claim_slot(KeyRun& run, OperationId id, const ModelOp& op) const {
  std::size_t slot = 0;
  while (slot < run.slots.size() && run.slots[slot].used) ++slot;
  if (slot >= std::min(limits.max_open, kSlotsMax)) return kNoSlot;
  if (slot == run.slots.size()) run.slots.emplace_back();
  run.slots[slot] = Slot{true, id, op};
  if (!op.known) set_bit(run.unknown, slot);
  return slot;
}

// Before a return: moves every pending unknown operation that an open operation could
// observe (Observers, register_model.hpp) into a slot, so the search may linearize it; the
// others are left out of the search, which is what keeps long-pending unknown outcomes
// cheap. Fills twin_before: for an unknown slot, the previous slot holding an identical
// unknown operation (interchangeable: only the first not yet linearized needs trying).
// False when no slot was free.
bool OnlineChecker::Impl::admit_observed(KeyRun& run, std::vector<std::size_t>& twin_before) const {
  Revision floor_min = kUnbounded;
  bool some_absent = false;
  for (const Config& c : run.configs) {
    floor_min = std::min(floor_min, c.state.floor);
    some_absent = some_absent || c.state.value == 0;
  }
  // The key may be absent somewhere in the orders searched if it is now, or if one delete
  // can follow another (a deleted key written again by an unknown write, then deleted).
  std::size_t deleters = 0;
  for (const Slot& slot : run.slots) deleters += slot.used && may_delete(slot.op) ? 1 : 0;
  for (const Pending& p : run.pool) deleters += may_delete(p.op) ? 1 : 0;
  const bool may_be_absent = some_absent || deleters >= 2;
  Observers observers;
  for (const Slot& slot : run.slots) {
    if (slot.used) observers.add(slot.op, floor_min, may_be_absent);
  }
  for (const Pending& p : run.pool) observers.add(p.op, floor_min, may_be_absent);
  observers.finish();
  std::vector<Pending> left;
  for (const Pending& p : run.pool) {
    if (!observers.observes(p.op)) {
      left.push_back(p);
    } else if (claim_slot(run, p.id, p.op) == kNoSlot) {
      return false;
    }
  }
  run.pool = std::move(left);
  twin_before.assign(run.slots.size(), kNoSlot);
  for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
    const ModelOp& op = run.slots[slot].op;
    if (!run.slots[slot].used || op.known) continue;
    for (std::size_t before = slot; before-- > 0;) {
      const ModelOp& other = run.slots[before].op;
      if (!run.slots[before].used || other.known) continue;
      if (other.kind != op.kind || other.input_value != op.input_value) continue;
      if (other.expected != op.expected) continue;
      twin_before[slot] = before;
      break;
    }
  }
  return true;
}

// Every configuration extended by any order of other open operations and then the returning
// one (or kept as it is when it linearized the returning one earlier), with the returning
// slot cleared. Orders that place other operations after the returning one are left out: a
// later return generates them from the configurations kept here. Breadth first; a
// configuration another one dominates is not explored. False when the work passed
// max_configurations.
bool OnlineChecker::Impl::extend(const KeyRun& run, std::size_t returning,
                                 const std::vector<std::size_t>& twin_before,
                                 std::vector<Config>& out) const {
  const std::vector<const ModelOp*> reads = open_reads(run);
  Antichain seen(run.unknown);
  std::vector<Config> work;
  for (Config c : run.configs) {
    online::absorb_reads(c, reads);
    if (seen.insert(c)) work.push_back(c);
  }
  Antichain done(run.unknown);
  for (std::size_t i = 0; i < work.size(); ++i) {
    Config c = work[i];
    if (has(c.linearized, returning)) {
      // Linearized already (by an earlier return, or absorbed): it stays explained, as it is.
      clear_bit(c.linearized, returning);
      done.insert(c);
      continue;
    }
    const Successors last = step(c.state, run.slots[returning].op);
    for (std::size_t s = 0; s < last.count; ++s) done.insert({c.linearized, last.states[s]});
    for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
      const Slot& other = run.slots[slot];
      if (slot == returning || !other.used || has(c.linearized, slot)) continue;
      const std::size_t twin = twin_before[slot];
      if (twin != kNoSlot && !has(c.linearized, twin)) continue;
      const Successors next = step(c.state, other.op);
      for (std::size_t s = 0; s < next.count; ++s) {
        // Taking no effect is the same as staying unlinearized: not a new configuration.
        if (!other.op.known && next.states[s] == c.state) continue;
        Config n{c.linearized, next.states[s]};
        set_bit(n.linearized, slot);
        online::absorb_reads(n, reads);
        if (seen.insert(n)) work.push_back(n);
      }
    }
    if (work.size() > limits.max_configurations) return false;
    if (done.size() > limits.max_configurations) return false;
  }
  out = done.sorted();
  return true;
}

// After a return, for each unknown operation holding a slot (counted as linearized where it
// can no longer take effect): linearized by every
// configuration, nothing can depend on it any more (it is forgotten); by none, it goes back
// to the pool. A pooled compare that can no longer take effect anywhere is forgotten too.
void OnlineChecker::Impl::settle_unknowns(KeyRun& run) const {
  for (std::size_t slot = 0; slot < run.slots.size(); ++slot) {
    Slot& s = run.slots[slot];
    if (!s.used || s.op.known) continue;
    // Where it can no longer take effect, it counts as linearized without effect: otherwise
    // configurations that differ only in which dead compare they used would never merge.
    for (Config& c : run.configs) {
      if (!can_still_apply(s.op, c.state)) set_bit(c.linearized, slot);
    }
    const auto linearized = [slot](const Config& c) { return has(c.linearized, slot); };
    const bool everywhere = std::all_of(run.configs.begin(), run.configs.end(), linearized);
    const bool nowhere = std::none_of(run.configs.begin(), run.configs.end(), linearized);
    if (!everywhere && !nowhere) continue;
    for (Config& c : run.configs) clear_bit(c.linearized, slot);
    clear_bit(run.unknown, slot);
    if (nowhere) run.pool.push_back({s.id, s.op});
    s.used = false;
  }
  std::erase_if(run.pool, [&run](const Pending& p) {
    return std::none_of(run.configs.begin(), run.configs.end(),
                        [&p](const Config& c) { return can_still_apply(p.op, c.state); });
  });
  std::sort(run.pool.begin(), run.pool.end(),
            [](const Pending& a, const Pending& b) { return a.id < b.id; });
  Antichain kept(run.unknown);
  for (const Config& c : run.configs) kept.insert(c);
  run.configs = kept.sorted();
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
  const ModelOp model_op = compile(op, run.values);
  if (op.outcome == Outcome::unknown) {
    run.pool.push_back({op.id, model_op});  // no configuration has linearized it yet
    return;
  }
  const std::size_t slot = impl_->claim_slot(run, op.id, model_op);
  if (slot != kNoSlot) {
    impl_->slot_of[op.id] = slot;
    return;
  }
  impl_->decide(op.key, run, VerdictKind::gave_up, op.invoke_ns, op,
                "more than " + std::to_string(std::min(impl_->limits.max_open, kSlotsMax)) +
                    " operations open at once");
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
  std::size_t open = run.pool.size();
  for (const Slot& slot : run.slots) open += slot.used ? 1 : 0;
  std::string text = "operation " + std::to_string(op.id) + " (process " +
                     std::to_string(op.process) + ", " + std::string(op_kind_name(op.kind)) + " " +
                     op.key + ") returned at " + std::to_string(op.return_ns) + " ns with " +
                     describe_output(op) + ": no order of the " + std::to_string(open) +
                     " open operations explains it; the key was";
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
  std::vector<std::size_t> twin_before;
  std::vector<Config> next;
  if (!impl_->admit_observed(run, twin_before)) {
    impl_->decide(op.key, run, VerdictKind::gave_up, op.return_ns, op,
                  "more than " + std::to_string(std::min(impl_->limits.max_open, kSlotsMax)) +
                      " operations to track at the return of operation " + std::to_string(op.id));
    return;
  }
  if (!impl_->extend(run, slot, twin_before, next)) {
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
  impl_->settle_unknowns(run);
  impl_->peak_configurations = std::max(impl_->peak_configurations, run.configs.size());
  HASIM_ASSERT(!run.configs.empty());
}

const Verdict& OnlineChecker::verdict() const { return impl_->verdict; }

std::size_t OnlineChecker::open_operations() const {
  std::size_t total = 0;
  for (const auto& [key, run] : impl_->keys) {
    total += run.pool.size();
    for (const Slot& slot : run.slots) total += slot.used ? 1 : 0;
  }
  return total;
}

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
