#pragma once
// Feeds an OnlineChecker from a running simulation (the `no-lost-write` property), where an
// operation's output, and whether it returns at all, is known only when it ends, while the
// checker needs each operation's outcome at its invocation (an unknown outcome is held apart
// from one that will return; a read's output says where it may go). So invocations are held
// back until every operation invoked before them has ended: the checker runs behind the
// simulation by at most the longest operation still open (the client's request timeout,
// after which the outcome is unknown). What is held is the operations not yet fed and the
// events after the oldest one still open; nothing of what was fed. Verdicts carry the
// virtual time of the event that decided them, not the time they were reached.
//
// Events at one instant are fed only once the simulation has moved past that instant, so
// an invocation and a return at the same time count as concurrent, as in checker_events.
#include <cstdint>
#include <map>
#include <set>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/history.hpp"

namespace hasim::linearizability {

class LiveFeed {
 public:
  explicit LiveFeed(Limits limits = {});

  // A client invoked `op` (its id, process, key, kind, value, expected_mod_revision and
  // invoke_ns; the rest is ignored). Ids must be distinct; times must not go back.
  void begin(const Operation& op);
  // It ended: ok with `output`, or fail (it did not happen), at `return_ns`; or unknown
  // (timed out: it may take effect at any later time), when return_ns is ignored.
  void end(OperationId id, Outcome outcome, const Output& output, std::int64_t return_ns);
  // The simulation's time has reached `now_ns`: feeds what can be fed before it.
  void advance(std::int64_t now_ns);
  // The run is over: operations still open never returned (unknown); feeds everything.
  void finish();

  const Verdict& verdict() const { return checker_.verdict(); }
  std::size_t held() const { return operations_.size(); }  // operations not yet fed in full
  const OnlineChecker& checker() const { return checker_; }

 private:
  void feed(std::int64_t before_ns);

  OnlineChecker checker_;
  std::map<OperationId, Operation> operations_;  // begun and not yet fed in full
  std::set<OperationId> open_;                   // begun and not yet ended
  std::set<Event> events_;                       // not yet fed, in checker order
  std::int64_t now_ns_ = 0;
};

}  // namespace hasim::linearizability
