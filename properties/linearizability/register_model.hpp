#pragma once
// The sequential specification both linearizability checkers test against: one etcd key as
// a register with revisions. It is Porcupine's `Model.Step` for this store, written once and
// shared by the offline reference and the online checker (checker.hpp), so the two can only
// disagree through their search, which is what the cross-check tests.
//
// What one key can see of etcd's global revision. etcd numbers every write to any key with
// the next store revision; a response header carries the store revision when the request was
// served. Checked per key (P-compositionality: Horn & Kroening, "Faster linearizability
// checking via P-compositionality", FORTE 2015), the writes to other keys are invisible, so
// the key sees only inequalities: a write's revision exceeds every revision observed before
// it (the store never goes back), and a read's header revision is at least every revision
// observed before it and at least the key's mod_revision. Gaps between revisions are always
// explained by writes to other keys. What per-key checking cannot see: whether two writes to
// different keys were given the same revision, or whether a read's header revision is
// consistent with the writes to other keys (a cross-key check, like the one etcd's
// robustness model makes over the whole store, would catch those).
//
// The state keeps the least store revision consistent with everything linearized so far
// (`floor`) and the key's mod_revision as an interval: a write whose outcome is unknown (or
// whose revision was not recorded) took some revision above the floor, narrowed later by
// what reads observe. Choosing every unknown revision as small as allowed is exact here,
// because the only later constraints on it are lower bounds for newer writes and upper bounds
// from reads, both kept in the interval.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "properties/linearizability/history.hpp"

namespace hasim::linearizability {

using ValueId = std::uint32_t;  // interned value; 0 = the key is absent
inline constexpr Revision kUnbounded = std::numeric_limits<Revision>::max();

struct RegisterState {
  ValueId value = 0;
  Revision mod_low = 0;  // the key's mod_revision lies in [mod_low, mod_high]; 0 when absent
  Revision mod_high = 0;
  Revision floor = 0;  // the least store revision consistent with the observations
  auto operator<=>(const RegisterState&) const = default;
};

// A key's values as small integers, so states compare and hash cheaply; ids follow first use.
class ValueTable {
 public:
  ValueId intern(const std::string& value);
  const std::string& text(ValueId id) const;

 private:
  std::map<std::string, ValueId> ids_;
  std::vector<std::string> texts_;
};

// An operation in the model's terms (values interned). `known` is false when the outcome is
// unknown: then no output is checked.
struct ModelOp {
  OpKind kind = OpKind::get;
  bool known = true;
  ValueId input_value = 0;
  Revision expected = 0;
  bool succeeded = false;
  bool found = false;
  ValueId output_value = 0;
  Revision mod_revision = 0;
  Revision revision = 0;
};

ModelOp compile(const Operation& op, ValueTable& values);

// The legal successors of `state` under `op`: none (the operation cannot happen here), or one
// or two. An operation with an unknown outcome may also have had no effect at all (Knossos's
// reading of :info), so its first successor is then `state` itself.
struct Successors {
  std::array<RegisterState, 2> states{};
  std::size_t count = 0;
};
Successors step(const RegisterState& state, const ModelOp& op);

// Whether `wide` allows everything `narrow` allows: the same value, a floor no higher and a
// mod_revision interval that contains narrow's. Every operation legal from `narrow` is legal
// from `wide`, and their successors keep the relation (the checks are lower bounds on the
// floor and interval membership), so a search may drop `narrow` when it keeps `wide`.
bool covers(const RegisterState& wide, const RegisterState& narrow);

// What the open operations of a key could observe of an unknown outcome's effect. An unknown
// write that nothing open can observe may be left out of every order the online checker
// tries: dropping it from a legal order leaves a legal order whose state covers the other's
// (a lower floor, the same later writes). Observers: reads of a value (its writers matter),
// operations that need the key present while some configuration has it absent (deletes that
// deleted, compares on a revision above the floor: only a write still to come can take it),
// and operations that need it absent (reads of nothing, compares on 0, deletes that deleted
// nothing). "Some configuration has it absent" must hold of the whole order searched, not
// only of its start: the caller passes true as soon as two open operations could delete.
// Over-approximating is safe; it only costs search.
struct Observers {
  std::vector<ValueId> values;  // sorted, unique after finish()
  bool presence = false;
  bool absence = false;
  void add(const ModelOp& op, Revision floor_min, bool may_be_absent);
  void finish();
  bool observes(const ModelOp& unknown) const;  // could anything see this write take effect?
};
// Whether a known operation only reads the key (a get, a compare that failed, a delete that
// found nothing). Writes always move the store revision; only such reads can leave a state
// exactly as it was, which lets both checkers linearize them eagerly (checker.hpp).
bool reads_only(const ModelOp& op);

// Whether the operation may delete the key (then a later one may need it present again).
bool may_delete(const ModelOp& op);

// Whether an unknown outcome can still take effect from `state` or any state after it: a
// compare on a revision other than 0 cannot once the floor has passed it and the key's
// mod_revision is known not to be it (every later write takes a higher revision).
bool can_still_apply(const ModelOp& unknown, const RegisterState& state);

// "value \"v1\" mod_revision 7, store revision >= 9" for explanations.
std::string describe(const RegisterState& state, const ValueTable& values);

}  // namespace hasim::linearizability
