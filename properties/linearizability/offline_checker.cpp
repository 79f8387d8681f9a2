// check_offline: Wing & Gong's search with Lowe's memoization, key by key (checker.hpp).
#include <algorithm>
#include <set>
#include <utility>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/register_model.hpp"
#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

using StateSet = std::vector<RegisterState>;  // sorted, without duplicates
using Bits = std::vector<std::uint64_t>;

// One call or return entry of the doubly linked list; index 0 is the head sentinel.
struct Entry {
  std::size_t prev = 0;
  std::size_t next = 0;
  std::size_t match = 0;  // a call's return entry
  std::size_t op = 0;     // index into the key's operations
  bool is_call = false;
};
constexpr std::size_t kEnd = static_cast<std::size_t>(-1);

struct KeyResult {
  VerdictKind kind = VerdictKind::linearizable;
  std::vector<OperationId> longest_prefix;
  std::optional<OperationId> unplaceable;
};

StateSet step_set(const StateSet& states, const ModelOp& op) {
  StateSet next;
  for (const RegisterState& s : states) {
    const Successors successors = step(s, op);
    for (std::size_t i = 0; i < successors.count; ++i) next.push_back(successors.states[i]);
  }
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  return next;
}

// The list of entries in event order (calls before returns at one instant); an unknown
// outcome's return sits at the end (kNeverReturned).
std::vector<Entry> make_entries(const std::vector<const Operation*>& ops) {
  struct Timed {
    std::int64_t time;
    bool is_return;
    std::size_t op;
    auto operator<=>(const Timed&) const = default;
  };
  std::vector<Timed> order;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    order.push_back({ops[i]->invoke_ns, false, i});
    order.push_back({ops[i]->return_ns, true, i});
  }
  std::sort(order.begin(), order.end());
  std::vector<Entry> entries(order.size() + 1);
  std::vector<std::size_t> call_of(ops.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    Entry& e = entries[i + 1];
    e.prev = i;
    e.next = i + 2 < entries.size() ? i + 2 : kEnd;
    e.op = order[i].op;
    e.is_call = !order[i].is_return;
    if (e.is_call) call_of[e.op] = i + 1;
    if (!e.is_call) entries[call_of[e.op]].match = i + 1;
  }
  entries[0].next = entries.size() > 1 ? 1 : kEnd;
  return entries;
}

void unlink(std::vector<Entry>& entries, std::size_t index) {
  const Entry& e = entries[index];
  entries[e.prev].next = e.next;
  if (e.next != kEnd) entries[e.next].prev = e.prev;
}

void relink(std::vector<Entry>& entries, std::size_t index) {
  const Entry& e = entries[index];
  entries[e.prev].next = index;
  if (e.next != kEnd) entries[e.next].prev = index;
}

// Lifting a call removes it and its return; unlifting restores them in reverse order.
void lift(std::vector<Entry>& entries, std::size_t call) {
  unlink(entries, call);
  unlink(entries, entries[call].match);
}

void unlift(std::vector<Entry>& entries, std::size_t call) {
  relink(entries, entries[call].match);
  relink(entries, call);
}

struct Frame {
  std::size_t call = 0;
  StateSet states;
  // A read that left every state exactly as it was: linearizing it here is at least as good
  // as any later place (the partial-order reduction of online::absorb_reads: a later place
  // can only narrow the states, and legality only needs the wider ones), so when the search
  // under it fails, the orders that leave it for later fail too and are not tried.
  bool absorbed = false;
};

// The longest prefix is recorded at each return that forces a backtrack from a new depth.
void remember_prefix(const std::vector<Frame>& stack, const std::vector<Entry>& entries,
                     const std::vector<const Operation*>& ops, std::size_t stuck,
                     KeyResult& result) {
  if (result.unplaceable && stack.size() <= result.longest_prefix.size()) return;
  result.longest_prefix.clear();
  for (const Frame& frame : stack) result.longest_prefix.push_back(ops[entries[frame.call].op]->id);
  result.unplaceable = ops[entries[stuck].op]->id;
}

KeyResult check_key(const std::vector<const Operation*>& ops, const Limits& limits) {
  ValueTable values;
  std::vector<ModelOp> model_ops;
  for (const Operation* op : ops) model_ops.push_back(compile(*op, values));
  std::vector<Entry> entries = make_entries(ops);
  const std::size_t words = (ops.size() + 63) / 64;
  Bits linearized(words, 0);
  StateSet states{RegisterState{}};
  std::set<std::pair<Bits, StateSet>> cache;
  std::vector<Frame> stack;
  KeyResult result;
  std::size_t entry = entries[0].next;
  for (std::uint64_t steps = 0; entries[0].next != kEnd; ++steps) {
    if (steps >= limits.max_search_steps) return {VerdictKind::gave_up, {}, {}};
    HASIM_ASSERT(entry != kEnd);  // the last entry left is always a return
    const Entry& e = entries[entry];
    if (e.is_call) {
      StateSet next = step_set(states, model_ops[e.op]);
      Bits bits = linearized;
      bits[e.op / 64] |= std::uint64_t{1} << (e.op % 64);
      if (!next.empty() && cache.emplace(bits, next).second) {
        const bool absorbed = reads_only(model_ops[e.op]) && next == states;
        stack.push_back({entry, std::move(states), absorbed});
        states = std::move(next);
        linearized = std::move(bits);
        lift(entries, entry);
        entry = entries[0].next;
      } else {
        entry = e.next;
      }
      continue;
    }
    // A return of an operation not yet linearized: nothing after it can go first.
    remember_prefix(stack, entries, ops, entry, result);
    // Undo up to and including the newest frame whose alternatives are worth trying.
    bool absorbed = true;
    for (std::size_t undone = 0; absorbed; ++undone) {
      HASIM_ASSERT(undone <= ops.size());
      if (stack.empty()) {
        result.kind = VerdictKind::illegal;
        return result;
      }
      Frame top = std::move(stack.back());
      stack.pop_back();
      absorbed = top.absorbed;
      states = std::move(top.states);
      const std::size_t op = entries[top.call].op;
      linearized[op / 64] &= ~(std::uint64_t{1} << (op % 64));
      unlift(entries, top.call);
      entry = entries[top.call].next;
    }
  }
  HASIM_ASSERT(stack.size() == ops.size());
  return {};
}

// The operations that take part, grouped by key in key order, each key's in id order.
std::map<std::string, std::vector<const Operation*>> by_key(const History& history) {
  std::map<std::string, std::vector<const Operation*>> keys;
  for (const Operation& op : history.operations) {
    if (takes_part(op)) keys[op.key].push_back(&op);
  }
  return keys;
}

}  // namespace

Verdict check_offline(const History& history, const Limits& limits) {
  HASIM_ASSERT(validate(history).empty());
  Verdict verdict;
  for (const auto& [key, ops] : by_key(history)) {
    KeyResult result = check_key(ops, limits);
    verdict.keys[key] = result.kind;
    if (result.kind == VerdictKind::linearizable) continue;
    const bool first_illegal =
        verdict.kind != VerdictKind::illegal && result.kind == VerdictKind::illegal;
    if (verdict.kind != VerdictKind::linearizable && !first_illegal) continue;
    verdict.kind = result.kind;
    verdict.key = key;
    verdict.longest_prefix = std::move(result.longest_prefix);
    verdict.unplaceable = result.unplaceable;
    verdict.detail = result.kind == VerdictKind::gave_up
                         ? "search steps exceeded " + std::to_string(limits.max_search_steps)
                         : std::to_string(verdict.longest_prefix.size()) +
                               " operations linearize, then operation " +
                               std::to_string(*verdict.unplaceable) + " cannot be placed";
  }
  return verdict;
}

}  // namespace hasim::linearizability
