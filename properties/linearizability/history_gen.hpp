#pragma once
// Random client histories of an etcd store that are linearizable by construction, and
// mutations of them, for the checkers' tests and benchmark. Each client invokes operations
// one after another with random durations and gaps; every operation that takes effect is
// given a linearization point inside its interval, and a real sequential store (one global
// revision counter, as etcd's MVCC has) applies them in that order and computes their
// outputs. Some operations fail (never applied) or end unknown (applied or not, at a point
// anywhere after their invocation). Mutations then break the store's guarantees the way
// real bugs do.
#include <cstdint>

#include "properties/linearizability/history.hpp"
#include "sim/rng.hpp"

namespace hasim::linearizability {

enum class Mutation : std::uint8_t {
  none,
  stale_read,        // a read returns an older state of its key
  lost_write,        // an acknowledged write is not applied (its revision is consumed)
  duplicated_write,  // a write is applied a second time later, with a new revision
  phantom_read,      // a read returns a value nobody wrote
};

struct HistoryShape {
  std::uint32_t clients = 3;
  std::uint32_t keys = 2;
  std::uint32_t operations = 30;
  std::int64_t duration_max_ns = 100;   // an operation takes 1..duration_max_ns
  std::int64_t gap_max_ns = 50;         // a client waits 0..gap_max_ns between operations
  std::uint32_t fail_permille = 50;     // operations that fail, per thousand
  std::uint32_t unknown_permille = 50;  // operations whose outcome is unknown
  Mutation mutation = Mutation::none;
};

// Deterministic in (shape, rng). Operations are listed by invocation time (then process).
// With a mutation the history may or may not still be linearizable (a stale read among
// concurrent writes can still be explained); the checkers must agree on it either way.
History generate_history(const HistoryShape& shape, Rng& rng);

std::string_view mutation_name(Mutation mutation);

}  // namespace hasim::linearizability
