#include "properties/linearizability/live_feed.hpp"

#include "sim/assert.hpp"

namespace hasim::linearizability {

LiveFeed::LiveFeed(Limits limits) : checker_(limits) {}

void LiveFeed::begin(const Operation& op) {
  HASIM_ASSERT(op.invoke_ns >= now_ns_);
  HASIM_ASSERT(!operations_.contains(op.id));
  advance(op.invoke_ns);
  Operation stored = op;
  stored.outcome = Outcome::unknown;  // until it ends
  stored.return_ns = kNeverReturned;
  stored.output = {};
  operations_.emplace(op.id, std::move(stored));
  open_.insert(op.id);
  events_.insert({op.invoke_ns, false, op.id});
}

void LiveFeed::end(OperationId id, Outcome outcome, const Output& output, std::int64_t return_ns) {
  const auto it = operations_.find(id);
  HASIM_ASSERT(it != operations_.end());
  HASIM_ASSERT(open_.erase(id) == 1);
  Operation& op = it->second;
  op.outcome = outcome;
  if (outcome == Outcome::ok) op.output = output;  // before anything is fed
  if (outcome != Outcome::unknown) {
    HASIM_ASSERT(return_ns >= op.invoke_ns);
    HASIM_ASSERT(return_ns >= now_ns_);
    op.return_ns = return_ns;
    now_ns_ = return_ns;
  }
  if (outcome == Outcome::ok) events_.insert({return_ns, true, id});
  feed(now_ns_);
}

void LiveFeed::advance(std::int64_t now_ns) {
  HASIM_ASSERT(now_ns >= now_ns_);
  now_ns_ = now_ns;
  feed(now_ns_);
}

void LiveFeed::finish() {
  const std::set<OperationId> still_open = open_;
  for (const OperationId id : still_open) end(id, Outcome::unknown, {}, 0);
  feed(kNeverReturned);
  HASIM_ASSERT(events_.empty());
  HASIM_ASSERT(operations_.empty());
}

// Feeds events before `before_ns` in order, stopping at the invocation of an operation that
// has not ended yet: its outcome decides how the checker must take it.
void LiveFeed::feed(std::int64_t before_ns) {
  while (!events_.empty() && events_.begin()->time_ns < before_ns) {
    const Event event = *events_.begin();
    if (open_.contains(event.id)) break;
    events_.erase(events_.begin());
    const auto it = operations_.find(event.id);
    HASIM_ASSERT(it != operations_.end());
    const Operation& op = it->second;
    const bool last = event.is_return || op.outcome != Outcome::ok;
    if (event.is_return) {
      checker_.complete(op);
    } else if (takes_part(op)) {
      checker_.invoke(op);
    }
    if (last) operations_.erase(it);
  }
}

}  // namespace hasim::linearizability
