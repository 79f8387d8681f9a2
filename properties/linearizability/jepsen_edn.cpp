// to_jepsen_edn (history_json.hpp): a history as Jepsen's history maps, written as EDN.
// Depends on nothing of hasim but history.hpp, so it can be lifted into other tools.
#include <algorithm>
#include <tuple>

#include "properties/linearizability/history_json.hpp"
#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

std::string edn_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Knossos and Jepsen's etcd tests name register operations :read, :write and :cas.
std::string edn_f(OpKind kind) {
  switch (kind) {
    case OpKind::get:
      return ":read";
    case OpKind::put:
      return ":write";
    case OpKind::del:
      return ":delete";
    case OpKind::cas_put:
      return ":cas";
    case OpKind::cas_delete:
      return ":cas-delete";
  }
  HASIM_ASSERT(false);
  return {};
}

// jepsen.independent's [key value] tuple; a compare's value is [expected-mod-revision value].
std::string edn_value(const Operation& op, bool completed) {
  std::string inner = "nil";
  if (op.kind == OpKind::put || op.kind == OpKind::cas_put) inner = edn_string(op.value);
  const bool read_ok = completed && op.kind == OpKind::get && op.output.found;
  if (read_ok) inner = edn_string(op.output.value);
  if (is_compare(op.kind))
    inner = "[" + std::to_string(op.expected_mod_revision) + " " + inner + "]";
  return "[" + edn_string(op.key) + " " + inner + "]";
}

// The extra keys of an ok completion: what etcd returned beyond the value.
std::string edn_observed(const Operation& op) {
  const Output& o = op.output;
  std::string out = ", :revision " + std::to_string(o.revision);
  if (op.kind == OpKind::get && o.found) out += ", :mod-revision " + std::to_string(o.mod_revision);
  if (op.kind == OpKind::del) out += o.succeeded ? ", :deleted 1" : ", :deleted 0";
  const bool compare_failed = is_compare(op.kind) && !o.succeeded;
  if (compare_failed) {
    out +=
        ", :error :compare-failed, :observed {:found? " + std::string(o.found ? "true" : "false");
    if (o.found) out += ", :value " + edn_string(o.value);
    if (o.found) out += ", :mod-revision " + std::to_string(o.mod_revision);
    out += "}";
  }
  return out;
}

// A compare that failed did not take effect: Jepsen's etcd tests complete it with :fail.
std::string edn_type(const Operation& op) {
  if (op.outcome == Outcome::unknown) return ":info";
  if (op.outcome == Outcome::fail) return ":fail";
  return is_compare(op.kind) && !op.output.succeeded ? ":fail" : ":ok";
}

}  // namespace

std::string to_jepsen_edn(const History& history) {
  std::int64_t end_ns = 0;
  for (const Operation& op : history.operations) {
    end_ns = std::max(end_ns, op.invoke_ns);
    if (op.return_ns != kNeverReturned) end_ns = std::max(end_ns, op.return_ns);
  }
  // (time, completion after invocations at one instant, operation id)
  std::vector<std::tuple<std::int64_t, bool, OperationId>> events;
  for (const Operation& op : history.operations) {
    events.emplace_back(op.invoke_ns, false, op.id);
    events.emplace_back(op.outcome == Outcome::unknown ? end_ns : op.return_ns, true, op.id);
  }
  std::sort(events.begin(), events.end());
  std::string out;
  for (std::size_t index = 0; index < events.size(); ++index) {
    const auto& [time, completion, id] = events[index];
    const Operation& op = history.operations[id];
    out += "{:index " + std::to_string(index) + ", :type " +
           (completion ? edn_type(op) : std::string(":invoke")) + ", :process " +
           std::to_string(op.process) + ", :f " + edn_f(op.kind) + ", :value " +
           edn_value(op, completion) + ", :time " + std::to_string(time);
    if (completion && op.outcome == Outcome::ok) out += edn_observed(op);
    out += "}\n";
  }
  HASIM_ASSERT(events.size() == 2 * history.operations.size());
  return out;
}

}  // namespace hasim::linearizability
