#include "properties/linearizability/history.hpp"

#include <algorithm>
#include <array>

#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

constexpr std::array<std::string_view, 5> kKindNames{"get", "put", "delete", "cas-put",
                                                     "cas-delete"};
constexpr std::array<std::string_view, 3> kOutcomeNames{"ok", "fail", "unknown"};

std::string where(const Operation& op) {
  return "operation " + std::to_string(op.id) + " (process " + std::to_string(op.process) + ", " +
         std::string(op_kind_name(op.kind)) + " " + op.key + ")";
}

}  // namespace

std::string_view op_kind_name(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  HASIM_ASSERT(index < kKindNames.size());
  return kKindNames[index];
}

std::string_view outcome_name(Outcome outcome) {
  const auto index = static_cast<std::size_t>(outcome);
  HASIM_ASSERT(index < kOutcomeNames.size());
  return kOutcomeNames[index];
}

namespace {

// The index of `text` among `names`, or names.size().
template <std::size_t N>
std::size_t index_of(const std::array<std::string_view, N>& names, std::string_view text) {
  std::size_t i = 0;
  while (i < N && names[i] != text) ++i;
  return i;
}

}  // namespace

bool parse_op_kind(std::string_view text, OpKind& kind) {
  const std::size_t index = index_of(kKindNames, text);
  if (index == kKindNames.size()) return false;
  kind = static_cast<OpKind>(index);
  return true;
}

bool parse_outcome(std::string_view text, Outcome& outcome) {
  const std::size_t index = index_of(kOutcomeNames, text);
  if (index == kOutcomeNames.size()) return false;
  outcome = static_cast<Outcome>(index);
  return true;
}

bool is_write(OpKind kind) { return kind != OpKind::get; }

bool is_compare(OpKind kind) { return kind == OpKind::cas_put || kind == OpKind::cas_delete; }

bool takes_part(const Operation& op) {
  if (op.outcome == Outcome::fail) return false;
  return op.outcome == Outcome::ok || is_write(op.kind);
}

std::vector<Event> checker_events(const History& history) {
  std::vector<Event> events;
  events.reserve(2 * history.operations.size());
  for (const Operation& op : history.operations) {
    if (!takes_part(op)) continue;
    events.push_back({op.invoke_ns, false, op.id});
    if (op.outcome == Outcome::ok) events.push_back({op.return_ns, true, op.id});
  }
  std::sort(events.begin(), events.end());
  HASIM_ASSERT(events.size() <= 2 * history.operations.size());
  return events;
}

std::vector<std::string> validate(const History& history) {
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < history.operations.size(); ++i) {
    const Operation& op = history.operations[i];
    const std::string at = where(op);
    if (op.id != i) errors.push_back(at + ": id must equal its index " + std::to_string(i));
    if (op.invoke_ns < 0) errors.push_back(at + ": invoke_ns must not be negative");
    if (op.outcome == Outcome::unknown && op.return_ns != kNeverReturned) {
      errors.push_back(at + ": an unknown outcome never returns (return_ns must be absent)");
    }
    if (op.outcome != Outcome::unknown && op.return_ns < op.invoke_ns) {
      errors.push_back(at + ": return_ns is before invoke_ns");
    }
    if (op.outcome != Outcome::unknown && op.return_ns == kNeverReturned) {
      errors.push_back(at + ": an " + std::string(outcome_name(op.outcome)) +
                       " operation needs return_ns");
    }
    if (is_compare(op.kind) && op.expected_mod_revision < 0) {
      errors.push_back(at + ": expected_mod_revision must not be negative");
    }
    const bool failed_compare =
        op.outcome == Outcome::ok && is_compare(op.kind) && !op.output.succeeded;
    // The Else-Get of a failed compare always returns the key's mod_revision; without it
    // the checker could not tell "the compare failed" from "the compare should have held".
    if (failed_compare && op.output.found && op.output.mod_revision == 0) {
      errors.push_back(at +
                       ": output.mod_revision is needed when the compare failed on a "
                       "present key");
    }
  }
  return errors;
}

}  // namespace hasim::linearizability
