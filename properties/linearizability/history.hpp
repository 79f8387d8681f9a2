#pragma once
// A client history of the etcd key-value store: every operation a client invoked, with its
// invoke and return times in virtual nanoseconds and what it observed. This is the input of
// the `no-lost-write` property (issue 13, part 4): properties/linearizability/checker.hpp
// decides whether the history is linearizable (Herlihy & Wing, "Linearizability: a
// correctness condition for concurrent objects", TOPLAS 1990), and history_json.hpp writes
// and reads it in a format that maps onto Porcupine's and Jepsen's histories.
//
// The operations are the ones kube-apiserver's etcd3 store issues
// (k8s.io/apiserver/pkg/storage/etcd3/store.go):
//  - get:        Range(key); returns the key's value and mod_revision, or not found;
//  - put:        Put(key, value); returns the new store revision;
//  - delete:     DeleteRange(key); returns whether a key was deleted and the revision;
//  - cas-put:    Txn If ModRevision(key) == expected Then Put(key, value) Else Get(key)
//                (create is cas-put with expected 0: "the key does not exist");
//  - cas-delete: Txn If ModRevision(key) == expected Then Delete(key) Else Get(key).
//
// Outcomes follow Jepsen's :ok / :fail / :info: a failed operation definitely did not take
// effect (etcd refused it before proposing it); an unknown one may or may not have taken
// effect, at any time after its invocation (a timeout: the proposal may still commit), and
// never returns. Only ok operations carry an output.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace hasim::linearizability {

using Revision = std::int64_t;  // etcd revisions start at 1; 0 means absent or not recorded
using OperationId = std::uint32_t;
inline constexpr std::int64_t kNeverReturned = std::numeric_limits<std::int64_t>::max();

enum class OpKind : std::uint8_t { get, put, del, cas_put, cas_delete };
enum class Outcome : std::uint8_t { ok, fail, unknown };

// What an ok operation observed. Which fields mean something depends on the kind:
//  - get:                found, value, mod_revision (0 when not recorded), revision;
//  - put:                revision (the write's revision, 0 when not recorded);
//  - delete:             succeeded (a key was deleted), revision;
//  - cas-put/cas-delete: succeeded (the compare held); when it held, revision (the write's);
//                        when it did not, the Else-Get's found, value, mod_revision, revision.
// `revision` is etcd's response header revision: the store's revision when the request was
// served (for a write: the revision it created).
struct Output {
  bool succeeded = false;
  bool found = false;
  std::string value;
  Revision mod_revision = 0;
  Revision revision = 0;
  bool operator==(const Output&) const = default;
};

struct Operation {
  OperationId id = 0;         // its index in History::operations
  std::uint32_t process = 0;  // the client (Porcupine's ClientId, Jepsen's :process)
  std::string key;
  OpKind kind = OpKind::get;
  std::string value;                   // put, cas-put: the value written
  Revision expected_mod_revision = 0;  // cas-put, cas-delete: the compare's ModRevision
  std::int64_t invoke_ns = 0;
  std::int64_t return_ns = 0;  // kNeverReturned when the outcome is unknown
  Outcome outcome = Outcome::ok;
  Output output;  // meaningful only when outcome == ok
  bool operator==(const Operation&) const = default;
};

struct History {
  std::vector<Operation> operations;
  bool operator==(const History&) const = default;
};

std::string_view op_kind_name(OpKind kind);      // "get", "put", "delete", "cas-put", "cas-delete"
std::string_view outcome_name(Outcome outcome);  // "ok", "fail", "unknown"
bool parse_op_kind(std::string_view text, OpKind& kind);
bool parse_outcome(std::string_view text, Outcome& outcome);
bool is_write(OpKind kind);    // every kind but get
bool is_compare(OpKind kind);  // cas-put, cas-delete

// An operation as a checker sees it: one event in time order. Calls sort before returns at
// the same instant, so two operations that touch at one instant count as concurrent (as in
// Porcupine: an operation precedes another only if it returned strictly before the other
// was invoked); ties then break by operation id, so the order is total and deterministic.
struct Event {
  std::int64_t time_ns = 0;
  bool is_return = false;
  OperationId id = 0;
  auto operator<=>(const Event&) const = default;
};

// The events the checkers consume: an invoke for every operation that may have taken effect,
// a return for every ok one. Failed operations (they never took effect) and gets that did
// not return (they changed nothing and observed nothing) are left out, as Knossos drops
// :fail operations and unknown reads.
std::vector<Event> checker_events(const History& history);
// Whether the checkers consider the operation at all (see checker_events).
bool takes_part(const Operation& op);

// Problems that make a history unusable, each naming the operation and the field: ids not
// equal to indexes, return before invoke, an unknown outcome with a return time, a failed
// compare that did not record the key's mod_revision. Empty when the history is well formed.
std::vector<std::string> validate(const History& history);

}  // namespace hasim::linearizability
