#include "properties/linearizability/history_gen.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "sim/assert.hpp"

namespace hasim::linearizability {

namespace {

// One operation as planned: its interval, its linearization point, whether it takes effect.
struct Planned {
  Operation op;
  std::int64_t point = 0;
  bool applied = false;
};

struct KeyValue {
  bool present = false;
  std::string value;
  Revision mod_revision = 0;
};

// etcd's MVCC in miniature: one revision counter for the whole store (it starts at 1).
struct Store {
  std::vector<KeyValue> keys;
  std::vector<std::vector<KeyValue>> past;  // every state each key has had, oldest first
  Revision revision = 1;
  std::uint32_t values_written = 0;

  void set(std::size_t key, bool present, std::string value) {
    past[key].push_back(keys[key]);
    revision += 1;
    keys[key] = {present, std::move(value), present ? revision : 0};
  }
};

OpKind draw_kind(Rng& rng) {
  const std::uint64_t roll = rng.below(100);
  if (roll < 40) return OpKind::get;
  if (roll < 65) return OpKind::put;
  if (roll < 75) return OpKind::del;
  if (roll < 90) return OpKind::cas_put;
  return OpKind::cas_delete;
}

std::vector<Planned> plan(const HistoryShape& shape, Rng& rng) {
  std::vector<std::int64_t> free_at(shape.clients, 0);
  std::vector<Planned> planned;
  for (std::uint32_t i = 0; i < shape.operations; ++i) {
    Planned p;
    Operation& op = p.op;
    op.process = static_cast<std::uint32_t>(rng.below(shape.clients));
    op.key = "k" + std::to_string(rng.below(shape.keys));
    op.kind = draw_kind(rng);
    op.invoke_ns = free_at[op.process] + rng.uniform_int(0, shape.gap_max_ns);
    const std::int64_t duration = rng.uniform_int(1, shape.duration_max_ns);
    free_at[op.process] = op.invoke_ns + duration;
    const std::uint64_t roll = rng.below(1000);
    op.outcome = roll < shape.fail_permille                            ? Outcome::fail
                 : roll < shape.fail_permille + shape.unknown_permille ? Outcome::unknown
                                                                       : Outcome::ok;
    op.return_ns = op.outcome == Outcome::unknown ? kNeverReturned : op.invoke_ns + duration;
    // An unknown outcome may take effect long after the client gave up on it.
    const std::int64_t reach = op.outcome == Outcome::unknown ? 3 * duration : duration;
    p.point = op.invoke_ns + rng.uniform_int(0, reach);
    p.applied = op.outcome == Outcome::ok || (op.outcome == Outcome::unknown && rng.bernoulli(0.5));
    planned.push_back(std::move(p));
  }
  return planned;
}

void read_into(const KeyValue& kv, Revision revision, Output& out) {
  out.found = kv.present;
  out.value = kv.present ? kv.value : "";
  out.mod_revision = kv.present ? kv.mod_revision : 0;
  out.revision = revision;
}

// A compare's expected mod_revision: the current one half of the time, else a near miss.
Revision draw_expected(const KeyValue& kv, Rng& rng) {
  if (rng.bernoulli(0.5)) return kv.mod_revision;
  if (kv.present && rng.bernoulli(0.3)) return 0;
  return kv.mod_revision + 1 + static_cast<Revision>(rng.below(2));
}

// Applies one operation at its point, as etcd's apply loop would, filling in its output.
void apply(Store& store, Operation& op, Rng& rng) {
  const std::size_t key = static_cast<std::size_t>(std::stoul(op.key.substr(1)));
  const KeyValue kv = store.keys[key];
  Output& out = op.output;
  if (is_compare(op.kind)) op.expected_mod_revision = draw_expected(kv, rng);
  const bool compare_held = !is_compare(op.kind) || op.expected_mod_revision == kv.mod_revision;
  if (op.kind == OpKind::put || op.kind == OpKind::cas_put) {
    op.value = "v" + std::to_string(++store.values_written);
  }
  if (op.kind == OpKind::get || !compare_held) {
    read_into(kv, store.revision, out);
    out.succeeded = false;
    return;
  }
  out.succeeded = op.kind != OpKind::put;  // a plain put has no succeeded flag
  if (op.kind == OpKind::put || op.kind == OpKind::cas_put) {
    store.set(key, true, op.value);
  } else if (kv.present) {
    store.set(key, false, "");
  } else {
    out.succeeded = is_compare(op.kind);  // a plain delete of an absent key deletes nothing
  }
  out.revision = store.revision;
}

bool is_target(const Operation& op, Mutation mutation) {
  if (op.outcome != Outcome::ok) return false;
  if (mutation == Mutation::stale_read || mutation == Mutation::phantom_read) {
    return op.kind == OpKind::get;
  }
  return mutation != Mutation::none && op.kind == OpKind::put;
}

void mutate(Store& store, Operation& op, Mutation mutation, Rng& rng) {
  const std::size_t key = static_cast<std::size_t>(std::stoul(op.key.substr(1)));
  if (mutation == Mutation::lost_write) {
    op.value = "v" + std::to_string(++store.values_written);
    store.revision += 1;  // acknowledged with a revision, but the value never lands
    op.output = {};
    op.output.revision = store.revision;
    return;
  }
  apply(store, op, rng);
  if (mutation == Mutation::duplicated_write) {
    store.set(key, true, op.value);  // replayed: the same value again, a new revision
  } else if (mutation == Mutation::stale_read && !store.past[key].empty()) {
    const auto& past = store.past[key];
    read_into(past[rng.below(past.size())], op.output.revision, op.output);
  } else if (mutation == Mutation::phantom_read) {
    op.output.found = true;
    op.output.value = "never-written";
    op.output.mod_revision = std::max<Revision>(1, store.keys[key].mod_revision);
  }
}

}  // namespace

History generate_history(const HistoryShape& shape, Rng& rng) {
  HASIM_ASSERT(shape.clients >= 1);
  HASIM_ASSERT(shape.keys >= 1);
  HASIM_ASSERT(shape.duration_max_ns >= 1);
  std::vector<Planned> planned = plan(shape, rng);
  std::vector<std::size_t> order(planned.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&planned](std::size_t a, std::size_t b) {
    return std::tie(planned[a].point, a) < std::tie(planned[b].point, b);
  });
  std::size_t targets = 0;
  for (const Planned& p : planned) targets += is_target(p.op, shape.mutation) ? 1 : 0;
  const std::size_t target = targets == 0 ? 0 : rng.below(targets);
  Store store;
  store.keys.resize(shape.keys);
  store.past.resize(shape.keys);
  std::size_t seen = 0;
  for (const std::size_t index : order) {
    Planned& p = planned[index];
    const bool chosen = is_target(p.op, shape.mutation) && seen++ == target;
    if (chosen) {
      mutate(store, p.op, shape.mutation, rng);
    } else if (p.applied) {
      apply(store, p.op, rng);
    } else if (p.op.kind == OpKind::put || p.op.kind == OpKind::cas_put) {
      p.op.value = "v" + std::to_string(++store.values_written);
    }
    if (p.op.outcome != Outcome::ok) p.op.output = {};
  }
  std::sort(planned.begin(), planned.end(), [](const Planned& a, const Planned& b) {
    return std::tie(a.op.invoke_ns, a.op.process) < std::tie(b.op.invoke_ns, b.op.process);
  });
  History history;
  for (Planned& p : planned) {
    p.op.id = static_cast<OperationId>(history.operations.size());
    history.operations.push_back(std::move(p.op));
  }
  HASIM_ASSERT(validate(history).empty());
  return history;
}

std::string_view mutation_name(Mutation mutation) {
  constexpr std::array<std::string_view, 5> kNames{"none", "stale-read", "lost-write",
                                                   "duplicated-write", "phantom-read"};
  const auto index = static_cast<std::size_t>(mutation);
  HASIM_ASSERT(index < kNames.size());
  return kNames[index];
}

}  // namespace hasim::linearizability
