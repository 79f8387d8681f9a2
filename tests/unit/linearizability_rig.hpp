#pragma once
// Hand-built client histories for the linearizability checkers' tests: one call per
// operation, times in ns, outcome ok unless said otherwise; and both checkers run on one
// history with their verdicts required to agree.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/history.hpp"

namespace hasim::linearizability::rig {

struct HistoryBuilder {
  History history;

  Operation& add(std::uint32_t process, const std::string& key, OpKind kind, std::int64_t invoke_ns,
                 std::int64_t return_ns) {
    Operation op;
    op.id = static_cast<OperationId>(history.operations.size());
    op.process = process;
    op.key = key;
    op.kind = kind;
    op.invoke_ns = invoke_ns;
    op.return_ns = return_ns;
    history.operations.push_back(op);
    return history.operations.back();
  }
  // A read; nullopt = not found. mod and rev 0 = not recorded.
  HistoryBuilder& get(std::uint32_t p, const std::string& key, std::int64_t t0, std::int64_t t1,
                      std::optional<std::string> value, Revision mod = 0, Revision rev = 0) {
    Operation& op = add(p, key, OpKind::get, t0, t1);
    op.output.found = value.has_value();
    op.output.value = value.value_or("");
    op.output.mod_revision = mod;
    op.output.revision = rev;
    return *this;
  }
  HistoryBuilder& put(std::uint32_t p, const std::string& key, const std::string& value,
                      std::int64_t t0, std::int64_t t1, Revision rev = 0) {
    Operation& op = add(p, key, OpKind::put, t0, t1);
    op.value = value;
    op.output.revision = rev;
    return *this;
  }
  HistoryBuilder& del(std::uint32_t p, const std::string& key, std::int64_t t0, std::int64_t t1,
                      bool deleted, Revision rev = 0) {
    Operation& op = add(p, key, OpKind::del, t0, t1);
    op.output.succeeded = deleted;
    op.output.revision = rev;
    return *this;
  }
  // A cas-put whose compare held, with the revision it wrote.
  HistoryBuilder& cas_put(std::uint32_t p, const std::string& key, Revision expected,
                          const std::string& value, std::int64_t t0, std::int64_t t1,
                          Revision rev = 0) {
    Operation& op = add(p, key, OpKind::cas_put, t0, t1);
    op.value = value;
    op.expected_mod_revision = expected;
    op.output.succeeded = true;
    op.output.revision = rev;
    return *this;
  }
  // A cas-put whose compare failed; its Else-Get read `seen` (nullopt = absent) at `mod`.
  HistoryBuilder& cas_put_failed(std::uint32_t p, const std::string& key, Revision expected,
                                 const std::string& value, std::int64_t t0, std::int64_t t1,
                                 std::optional<std::string> seen, Revision mod, Revision rev = 0) {
    Operation& op = add(p, key, OpKind::cas_put, t0, t1);
    op.value = value;
    op.expected_mod_revision = expected;
    op.output.found = seen.has_value();
    op.output.value = seen.value_or("");
    op.output.mod_revision = mod;
    op.output.revision = rev;
    return *this;
  }
  // A write whose outcome is unknown (it timed out): never returns.
  HistoryBuilder& put_unknown(std::uint32_t p, const std::string& key, const std::string& value,
                              std::int64_t t0) {
    Operation& op = add(p, key, OpKind::put, t0, kNeverReturned);
    op.value = value;
    op.outcome = Outcome::unknown;
    return *this;
  }
  HistoryBuilder& put_failed(std::uint32_t p, const std::string& key, const std::string& value,
                             std::int64_t t0, std::int64_t t1) {
    Operation& op = add(p, key, OpKind::put, t0, t1);
    op.value = value;
    op.outcome = Outcome::fail;
    return *this;
  }
};

// Both checkers' verdicts; they must agree on the kind of every key.
struct Both {
  Verdict offline;
  Verdict online;
};

inline Both check_both(const History& history, const Limits& limits = {}) {
  Both both{check_offline(history, limits), check_online(history, limits)};
  INFO("offline: " << describe(both.offline) << "\nonline: " << describe(both.online));
  CHECK(both.offline.keys == both.online.keys);
  CHECK(both.offline.kind == both.online.kind);
  return both;
}

inline VerdictKind verdict_of(const History& history) { return check_both(history).online.kind; }

}  // namespace hasim::linearizability::rig
