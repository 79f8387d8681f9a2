#pragma once
// no-lost-write over the etcd store (issue 13 part 4): every client history of the store
// that kube-apiservers see through their etcd client is linearizable, checked per key and
// online, in virtual time. The calls come from EtcdCalls (etcd_calls.hpp) and go into a
// LiveFeed (properties/linearizability/live_feed.hpp), which runs the online checker behind
// the simulation by at most the longest call still open; each event's time advances it.
// A lost acknowledged write shows as a read (or a compare) that no order of the operations
// explains, the way Porcupine and Jepsen's Knossos find them (etcd's robustness tests run
// Porcupine over the same kind of history, tests/robustness/validate).
//
// The verdict names the key, the call whose return nothing explains (client, call id,
// invocation and return times, what it saw), the last write acknowledged on that key, and
// the checker's own explanation with the operation ids and process numbers of the history
// `hasim run --history` writes. When the checker gives up on a key (too many operations
// open at once or configurations: checker.hpp, Limits) the property reports that instead of
// passing: nothing was proved about that key. A trace that breaks the client's contract
// (an end without its call) is reported too. With no etcd calls at all it holds.
//
// Memory: what the LiveFeed holds (operations not yet fed: the open calls and those that
// ended after the oldest one still open), the checker's per-key state, and one record per key
// of its last acknowledged write, for the verdict.
#include <map>
#include <string>

#include "properties/acknowledged_writes.hpp"
#include "properties/etcd_store/etcd_calls.hpp"
#include "properties/linearizability/live_feed.hpp"
#include "properties/property.hpp"

namespace hasim {

class EtcdNoLostWrite final : public Property, private EtcdCallSink, public AcknowledgedWrites {
 public:
  explicit EtcdNoLostWrite(std::string spec, linearizability::Limits limits = {});
  bool wants(std::string_view kind) const override { return EtcdCalls::reads(kind); }
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;
  // A restore started a new cluster at `now`: the calls before it went to another store. The
  // old history is judged to its end (calls still open: unknown) and the check starts over;
  // calls of the old history that end later are left out.
  void new_history(TrueTime now);
  // The highest revision an ok write returned since the last new_history, and its call.
  std::int64_t acknowledged_revision() const override { return acked_; }
  std::string acknowledged_by() const override;

  // Calls seen, and what is held now: operations the feed has not fed in full, and their
  // descriptions kept for a verdict (tests check both stay bounded by the calls open).
  std::uint64_t calls() const { return calls_seen_; }
  std::size_t held() const { return feed_.held(); }
  std::size_t described() const { return infos_.size(); }
  const linearizability::Verdict& verdict() const { return feed_.verdict(); }

 private:
  struct Info {
    linearizability::Operation op;  // as invoked, then as ended
    CallOrigin origin;
    bool ended = false;
    std::string why;  // what ended it, if not the client (a crash)
  };
  void invoked(const linearizability::Operation& op, const CallOrigin& origin) override;
  void ended(const linearizability::Operation& op, const CallOrigin& origin, std::string_view error,
             std::string_view why) override;
  void judge(TrueTime now);
  void report_illegal(const linearizability::Verdict& verdict);
  void report_gave_up(const linearizability::Verdict& verdict);
  void prune(TrueTime now);

  linearizability::Limits limits_;
  EtcdCalls calls_;
  linearizability::LiveFeed feed_;
  linearizability::OperationId firstId_ = 0;  // the current history's first operation
  linearizability::OperationId nextId_ = 0;   // one past the last operation invoked
  std::int64_t acked_ = 0;
  CallOrigin ackedOrigin_;
  std::map<linearizability::OperationId, Info> infos_;  // not yet fed in full
  std::map<std::string, Info> last_write_;              // per key: the last acknowledged write
  std::uint64_t calls_seen_ = 0;
  std::size_t problems_reported_ = 0;
  bool decided_ = false;
};

// "cas-put \"0a1b...\" if mod_revision == 5" and "found \"0a1b...\" mod_revision 5, revision 9":
// an operation and what it saw, for verdicts.
std::string describe_operation(const linearizability::Operation& op);
std::string describe_outcome(const linearizability::Operation& op);

}  // namespace hasim
