#pragma once
// The history file (`hasim run SCENARIO --history FILE`, issue 13 part 5): every client
// operation on the etcd store, so an outside linearizability checker can judge the same
// history hasim's `no-lost-write` judged. One JSON document, or JSON Lines (one operation
// object per line, no header), both read by read_history_json.
//
//   { "format": "hasim-history", "version": 1, "operations": [ OPERATION, ... ] }
//
// OPERATION, field by field, with its Porcupine and Jepsen counterparts. Porcupine
// (anishathalye/porcupine, model.go) checks []Operation{ClientId, Input, Call, Output,
// Return} against a Model whose Partition splits by key and whose Step is
// register_model.hpp's step; Jepsen (jepsen.history) writes each operation as two maps, an
// :invoke and its completion, in one time-ordered list.
//
//  field                 | meaning                      | Porcupine          | Jepsen
//  ----------------------+------------------------------+--------------------+-----------------
//  id                    | index in the list (optional) | slice index        | :index (events)
//  process               | client id, integer >= 0      | ClientId           | :process
//  key                   | etcd key, string             | Input.Key          | :value [key _]
//  op                    | get, put, delete, cas-put,   | Input.Op           | :f :read :write
//                        | cas-delete                   |                    | :delete :cas
//                        |                              |                    | :cas-delete
//  value                 | put, cas-put: value written  | Input.Value        | :value [key v]
//  expected_mod_revision | cas-*: If ModRevision(key)== | Input.Expected     | :value
//                        |                              |                    | [key [rev v]]
//  invoke_ns             | virtual ns at invocation     | Call               | :time, :invoke
//  return_ns             | virtual ns at completion;    | Return; unknown:   | :time of the
//                        | absent when unknown          | math.MaxInt64      | completion
//  outcome               | ok, fail, unknown            | ok: kept; fail:    | :type :ok :fail
//                        |                              | left out           | :info (at the
//                        |                              |                    | history's end)
//  output.found          | get / failed cas: present    | Output.Found       | :value [key nil]
//  output.value          | get / failed cas: value read | Output.Value       | :value [key v]
//  output.mod_revision   | get / failed cas: the key's  | Output.ModRevision | :mod-revision
//                        | mod_revision                 |                    |
//  output.succeeded      | delete: a key was deleted;   | Output.Succeeded   | :deleted 1 / 0;
//                        | cas-*: the compare held      |                    | cas: :ok, or
//                        |                              |                    | :fail :error
//                        |                              |                    | :compare-failed
//                        |                              |                    | :observed {...}
//  output.revision       | response header revision     | Output.Revision    | :revision
//
// `process` numbers in a file `hasim run --history` writes follow Jepsen's rule for
// processes (properties/etcd_store/etcd_calls.hpp): one operation open per process at a
// time, and a process whose operation ended unknown (:info) never invokes again. An
// apiserver's concurrent etcd calls therefore take distinct numbers; a number is reused only
// by the same apiserver, after its previous operation ended ok or fail.
//
// `output` is present only when outcome is ok, and carries only the fields its op defines
// (history.hpp, Output). Failed operations stay in the file (they are part of what clients
// saw) but no checker considers them: Porcupine's histories leave them out, Knossos drops
// :fail. A get whose outcome is unknown is likewise ignored (it observed nothing).
//
// Worked example: client 1 creates /registry/leases/kcm (cas-put on ModRevision 0) and gets
// revision 5; client 2 reads it concurrently and sees it; client 3's overwrite timed out.
//
//   {"format":"hasim-history","version":1,"operations":[
//    {"id":0,"process":1,"key":"/registry/leases/kcm","op":"cas-put","value":"a",
//     "expected_mod_revision":0,"invoke_ns":1000,"return_ns":3000,"outcome":"ok",
//     "output":{"succeeded":true,"revision":5}},
//    {"id":1,"process":2,"key":"/registry/leases/kcm","op":"get","invoke_ns":2000,
//     "return_ns":4000,"outcome":"ok",
//     "output":{"found":true,"value":"a","mod_revision":5,"revision":5}},
//    {"id":2,"process":3,"key":"/registry/leases/kcm","op":"put","value":"b",
//     "invoke_ns":5000,"outcome":"unknown"}]}
//
// Porcupine: Operation{ClientId: 1, Input: {CasPut, kcm, "a", 0}, Call: 1000,
//   Output: {Succeeded: true, Revision: 5}, Return: 3000}; {2, {Get, kcm}, 2000,
//   {Found: true, "a", ModRevision: 5, Revision: 5}, 4000}; {3, {Put, kcm, "b"}, 5000, {},
//   math.MaxInt64}. Jepsen (to_jepsen_edn; K stands for "/registry/leases/kcm"):
//   {:index 0, :type :invoke, :process 1, :f :cas, :value [K [0 "a"]], :time 1000}
//   {:index 1, :type :invoke, :process 2, :f :read, :value [K nil], :time 2000}
//   {:index 2, :type :ok, :process 1, :f :cas, :value [K [0 "a"]], :time 3000, :revision 5}
//   {:index 3, :type :ok, :process 2, :f :read, :value [K "a"], :time 4000, :revision 5,
//    :mod-revision 5}
//   {:index 4, :type :invoke, :process 3, :f :write, :value [K "b"], :time 5000}
//   {:index 5, :type :info, :process 3, :f :write, :value [K "b"], :time 5000}
//
// Jepsen's own checkers read the values (Knossos's cas-register and Elle's rw-register
// compare values, not revisions), so on the EDN they check a weaker, value-only model; the
// revisions ride along as extra keys for a model that reads them.
#include <string>
#include <vector>

#include "properties/linearizability/history.hpp"

namespace hasim::linearizability {

// The JSON document above, one operation per line inside "operations".
std::string write_history_json(const History& history);
// JSON Lines: one operation object per line.
std::string write_history_jsonl(const History& history);

// Reads either form. On any problem `history` is empty and `errors` names each one with
// its place and field ("operations[3].output.revision: must be an integer >= 0", "line 4:
// op: unknown operation \"pt\" ..."); validate() runs on what was read.
struct ReadResult {
  History history;
  std::vector<std::string> errors;
};
ReadResult read_history_json(const std::string& text);

// Jepsen history EDN: an :invoke map and a completion map per operation in time order,
// with jepsen.independent [key value] tuples; unknown outcomes complete with :info at the
// history's last instant (Jepsen's reading: it may take effect any time after invocation).
std::string to_jepsen_edn(const History& history);

}  // namespace hasim::linearizability
