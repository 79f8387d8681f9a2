#pragma once
// Is a client history of the etcd store linearizable? Two checkers over one sequential
// specification (register_model.hpp), checked key by key: linearizability is local
// (Herlihy & Wing 1990, "locality"), so a history is linearizable iff each key's
// sub-history is, and the search is exponential only in one key's concurrency (Horn &
// Kroening's P-compositionality, which Porcupine applies through Model.Partition).
//
//  - check_offline: the reference. Wing & Gong's search ("Testing and verifying concurrent
//    objects", JPDC 1993) with Lowe's memoization ("Testing for linearizability", CCPE 2017)
//    as Porcupine implements it: the calls and returns in a doubly linked list; linearize the
//    first call whose operation the model accepts, lift its call and return out of the list,
//    and backtrack at the first return of an operation not yet linearized; a cache of
//    (linearized set, state set) seen prunes repeated sub-searches. The model is
//    nondeterministic only through unknown outcomes; like Porcupine's NondeterministicModel
//    the search carries the set of possible states. An unknown operation returns at
//    "infinity", so it may also be linearized after everything (it never had an effect).
//    Verdict after the whole history; when illegal, the longest linearizable prefix found and
//    the operation whose return could not be reached.
//
//  - OnlineChecker: fed invoke and return events in time order (virtual time), it keeps per
//    key the configurations consistent with everything seen: a model state plus which of the
//    operations still open are already linearized (Lowe's just-in-time linearization). At a
//    return it extends every configuration by any order of other open operations followed by
//    the returning one, keeps those, and forgets the returned operation: no configuration can
//    depend on it any more. Four prunings keep this small, each exact: an open read (a get, a
//    failed compare) that would leave a configuration's state exactly as it is is linearized
//    in it at once (a partial-order reduction: placing it later can only narrow the state;
//    online::absorb_reads), so k reads that saw one state make one configuration, not 2^k;
//    the offline search commits to such reads the same way (it does not backtrack over
//    them). A configuration another one dominates is dropped (its state is covered and it
//    used no unknown outcome the other did not: online_configs.hpp); an unknown outcome that
//    no open operation could observe is not tried (register_model.hpp, Observers); one that
//    can no longer take effect counts as linearized. An unknown outcome never returns: it is
//    forgotten once every configuration has linearized it, and held without a bit while none
//    has.
//    Bounds: memory is the open operations plus the configurations, and nothing of the
//    operations that returned. Configurations are up to 2^(open operations) x states:
//    exponential in the operations open at once on one key, and unknown outcomes stay open
//    for good (they may take effect at any later time), so many of them on one key, with
//    deletes that need the key present again, can still blow it up: plain puts whose values
//    nobody reads differ only in which of them a configuration used to explain a delete
//    (n choose k configurations). Timed-out compares die (can_still_apply) once the key's
//    mod_revision has moved past theirs, which is what kube-apiserver's writes are. `Limits`
//    bounds both the configurations and the slots; reaching either yields VerdictKind::gave_up
//    for the key, never a silent pass. The verdict is illegal at the first return no configuration
//    explains, with that event's time.
//
// Both must agree on every history (tests/unit/test_linearizability*.cpp cross-checks them).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/linearizability/history.hpp"

namespace hasim::linearizability {

enum class VerdictKind : std::uint8_t { linearizable, illegal, gave_up };
std::string_view verdict_kind_name(VerdictKind kind);  // "linearizable", "illegal", "gave-up"

struct Limits {
  // Online: configurations one key may hold (and explore at one return) before giving up.
  std::size_t max_configurations = 1u << 16;
  // Online: operations one key tracks in slots at once: ok operations still open, and
  // unknown outcomes some configuration has linearized or a return is trying (at most 256,
  // the linearized-set bitset's width).
  std::size_t max_open = 256;
  // Offline: search steps (linearize or backtrack) per key before giving up.
  std::uint64_t max_search_steps = 50'000'000;
};

struct Verdict {
  VerdictKind kind = VerdictKind::linearizable;
  std::string key;           // the key that decided it (the first illegal, else gave up)
  std::int64_t time_ns = 0;  // online: the event that made it impossible (or gave up)
  // Offline, illegal: a longest linearizable prefix found, in linearization order, and the
  // operation that could not be placed after it. Online: the prefix is empty; `unplaceable`
  // is the operation whose return no configuration explains.
  std::vector<OperationId> longest_prefix;
  std::optional<OperationId> unplaceable;
  std::string detail;
  std::map<std::string, VerdictKind> keys;  // every key's verdict
};

Verdict check_offline(const History& history, const Limits& limits = {});

class OnlineChecker {
 public:
  explicit OnlineChecker(Limits limits = {});
  ~OnlineChecker();
  OnlineChecker(OnlineChecker&&) noexcept;
  OnlineChecker& operator=(OnlineChecker&&) noexcept;

  // Events in time order (Event ordering, history.hpp). `op` carries its input at invoke;
  // its outcome and output at return (an unknown outcome never returns). Operations that
  // do not take part (takes_part) must not be fed.
  void invoke(const Operation& op);
  void complete(const Operation& op);
  // The verdict so far: linearizable until a return is unexplained or a limit is reached.
  const Verdict& verdict() const;
  // What is held now: open operations and configurations over all keys, and the largest
  // number of configurations one key has held at once.
  std::size_t open_operations() const;
  std::size_t configurations() const;
  std::size_t peak_configurations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Feeds the history's events (checker_events) to an OnlineChecker.
Verdict check_online(const History& history, const Limits& limits = {});

// "illegal on key k at 1.5 s: ..." or "linearizable (3 keys)".
std::string describe(const Verdict& verdict);

}  // namespace hasim::linearizability
