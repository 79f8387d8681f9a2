#include "properties/linearizability/register_model.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

void check_invariants(const RegisterState& s) {
  HASIM_ASSERT(s.mod_low <= s.mod_high);
  HASIM_ASSERT(s.mod_low <= s.floor);
  if (s.value == 0) HASIM_ASSERT(s.mod_high == 0);
}

// A read of the key: found, value and mod_revision (0 = not recorded) and the header
// revision (0 = not recorded). Narrows the state to what the read saw.
bool observe(RegisterState& s, bool found, ValueId value, Revision mod, Revision header) {
  if (found != (s.value != 0)) return false;
  if (found && value != s.value) return false;
  if (found && mod != 0) {
    if (mod < s.mod_low || mod > s.mod_high) return false;
    s.mod_low = mod;
    s.mod_high = mod;
    s.floor = std::max(s.floor, mod);
  }
  if (header != 0) {
    if (header < s.floor) return false;  // the store's revision never goes back
    s.floor = header;
    // The key's mod_revision is at most the store's revision when it was read.
    if (found) s.mod_high = std::min(s.mod_high, header);
  }
  return true;
}

// A write of `value` (0 = delete) with revision `revision` (0 = not recorded / unknown).
bool write(RegisterState& s, ValueId value, Revision revision) {
  if (revision != 0) {
    if (revision <= s.floor) return false;  // each write takes a new, higher revision
    s.floor = revision;
  } else {
    s.floor += 1;  // the least revision it can have taken
  }
  s.value = value;
  s.mod_low = value == 0 ? 0 : s.floor;
  s.mod_high = value == 0 ? 0 : (revision != 0 ? revision : kUnbounded);
  return true;
}

// The Txn's compare ModRevision(key) == expected held: pins the mod_revision.
bool compare_holds(RegisterState& s, Revision expected) {
  if (expected < s.mod_low || expected > s.mod_high) return false;
  s.mod_low = expected;
  s.mod_high = expected;
  s.floor = std::max(s.floor, expected);
  return true;
}

// A delete of the key (plain or after a compare that held): a present key is removed with a
// new revision; deleting an absent key changes nothing and reads the store revision.
bool remove(RegisterState& s, bool known, bool deleted, Revision revision) {
  const bool present = s.value != 0;
  if (known && deleted != present) return false;
  if (present) return write(s, 0, known ? revision : 0);
  return known ? observe(s, false, 0, 0, revision) : true;
}

bool apply_known(RegisterState& s, const ModelOp& op) {
  switch (op.kind) {
    case OpKind::get:
      return observe(s, op.found, op.output_value, op.mod_revision, op.revision);
    case OpKind::put:
      return write(s, op.input_value, op.revision);
    case OpKind::del:
      return remove(s, true, op.succeeded, op.revision);
    case OpKind::cas_put:
    case OpKind::cas_delete:
      break;
  }
  if (!op.succeeded) {
    // The Else branch: the compare failed and the Get read the key.
    if (s.mod_low == op.expected && s.mod_high == op.expected) return false;
    if (op.found && op.mod_revision == op.expected) return false;
    if (!op.found && op.expected == 0) return false;  // an absent key has ModRevision 0
    return observe(s, op.found, op.output_value, op.mod_revision, op.revision);
  }
  if (!compare_holds(s, op.expected)) return false;
  if (op.kind == OpKind::cas_put) return write(s, op.input_value, op.revision);
  return remove(s, true, s.value != 0, op.revision);
}

// An unknown outcome: if it took effect, its compare held; its revision is unknown.
bool apply_unknown(RegisterState& s, const ModelOp& op) {
  if (is_compare(op.kind) && !compare_holds(s, op.expected)) return false;
  if (op.kind == OpKind::put || op.kind == OpKind::cas_put) return write(s, op.input_value, 0);
  HASIM_ASSERT(op.kind == OpKind::del || op.kind == OpKind::cas_delete);
  return remove(s, false, false, 0);
}

}  // namespace

ValueId ValueTable::intern(const std::string& value) {
  const auto [it, inserted] = ids_.emplace(value, static_cast<ValueId>(texts_.size() + 1));
  if (inserted) texts_.push_back(value);
  HASIM_ASSERT(it->second >= 1);
  HASIM_ASSERT(it->second <= texts_.size());
  return it->second;
}

const std::string& ValueTable::text(ValueId id) const {
  HASIM_ASSERT(id >= 1);
  HASIM_ASSERT(id <= texts_.size());
  return texts_[id - 1];
}

ModelOp compile(const Operation& op, ValueTable& values) {
  ModelOp m;
  m.kind = op.kind;
  m.known = op.outcome == Outcome::ok;
  HASIM_ASSERT(op.outcome != Outcome::fail);  // failed operations never reach the model
  if (op.kind == OpKind::put || op.kind == OpKind::cas_put) m.input_value = values.intern(op.value);
  m.expected = op.expected_mod_revision;
  if (!m.known) return m;
  m.succeeded = op.output.succeeded;
  m.found = op.output.found;
  if (m.found) m.output_value = values.intern(op.output.value);
  m.mod_revision = op.output.found ? op.output.mod_revision : 0;
  m.revision = op.output.revision;
  return m;
}

Successors step(const RegisterState& state, const ModelOp& op) {
  check_invariants(state);
  Successors out;
  if (!op.known) out.states[out.count++] = state;  // it may not have taken effect at all
  RegisterState next = state;
  const bool legal = op.known ? apply_known(next, op) : apply_unknown(next, op);
  if (legal && (op.known || next != state)) {
    check_invariants(next);
    out.states[out.count++] = next;
  }
  HASIM_ASSERT(out.count <= out.states.size());
  return out;
}

bool covers(const RegisterState& wide, const RegisterState& narrow) {
  if (wide.value != narrow.value) return false;
  if (wide.floor > narrow.floor) return false;
  return wide.mod_low <= narrow.mod_low && wide.mod_high >= narrow.mod_high;
}

bool reads_only(const ModelOp& op) {
  if (!op.known) return false;
  if (op.kind == OpKind::get) return true;
  if (is_compare(op.kind)) return !op.succeeded;
  return op.kind == OpKind::del && !op.succeeded;
}

bool may_delete(const ModelOp& op) {
  if (op.kind != OpKind::del && op.kind != OpKind::cas_delete) return false;
  return !op.known || op.succeeded;
}

void Observers::add(const ModelOp& op, Revision floor_min, bool may_be_absent) {
  const bool compare = is_compare(op.kind);
  if (!op.known) {
    if (compare && op.expected == 0) absence = true;
    if (compare && op.expected > floor_min) presence = true;
    return;
  }
  const bool reads = op.kind == OpKind::get || (compare && !op.succeeded);
  if (reads && op.found) values.push_back(op.output_value);
  if (reads && !op.found) absence = true;
  if (compare && op.succeeded && op.expected == 0) absence = true;
  if (compare && op.succeeded && op.expected > floor_min) presence = true;
  if (op.kind == OpKind::del && !op.succeeded) absence = true;
  if (op.kind == OpKind::del && op.succeeded && may_be_absent) presence = true;
}

void Observers::finish() {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

bool Observers::observes(const ModelOp& unknown) const {
  HASIM_ASSERT(!unknown.known);
  if (unknown.kind == OpKind::del || unknown.kind == OpKind::cas_delete) return absence;
  HASIM_ASSERT(unknown.kind == OpKind::put || unknown.kind == OpKind::cas_put);
  return presence || std::binary_search(values.begin(), values.end(), unknown.input_value);
}

bool can_still_apply(const ModelOp& unknown, const RegisterState& state) {
  HASIM_ASSERT(!unknown.known);
  if (!is_compare(unknown.kind) || unknown.expected == 0) return true;
  if (unknown.expected > state.floor) return true;
  return unknown.expected >= state.mod_low && unknown.expected <= state.mod_high;
}

std::string describe(const RegisterState& state, const ValueTable& values) {
  std::string text = state.value == 0 ? "absent" : "value \"" + values.text(state.value) + "\"";
  if (state.value != 0 && state.mod_low == state.mod_high) {
    text += " mod_revision " + std::to_string(state.mod_low);
  } else if (state.value != 0) {
    text += " mod_revision >= " + std::to_string(state.mod_low);
    if (state.mod_high != kUnbounded) text += " and <= " + std::to_string(state.mod_high);
  }
  return text + ", store revision >= " + std::to_string(state.floor);
}

}  // namespace hasim::linearizability
