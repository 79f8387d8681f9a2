#include "properties/journal/group_commit.hpp"

#include "models/journal/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {
namespace jk = journal::trace_kind;
}  // namespace

bool GroupCommit::wants(std::string_view kind) const {
  return kind == trace_kind::kCrash || kind == jk::kRecovered || kind == jk::kWrite ||
         kind == jk::kFsync || kind == jk::kSynced;
}

void GroupCommit::on_event(const TraceEvent& event) {
  if (event.proc != "journal" || !wants(event.kind)) return;  // acks come between: not judged
  Journal& journal = journals_[std::string(event.node) + "/journal"];
  HASIM_ASSERT(!journal.owes_sync || journal.owes_sync->at <= event.t);  // trace order
  if (journal.owes_sync) {
    const Owed owed = std::move(*journal.owes_sync);
    journal.owes_sync.reset();
    const bool paid = event.kind == jk::kFsync && event.t == owed.at;
    if (!paid && event.kind != trace_kind::kCrash) {
      violate(owed.at,
              std::string(event.node) + "/journal's fsync covering writes up to " +
                  std::to_string(owed.covers) + " completed while write " +
                  std::to_string(journal.arrived) +
                  " waited, and no fsync was issued for it then (the journal's next step: " +
                  std::string(event.kind) + ")",
              {owed.synced, describe_event(event)});
    }
  }
  if (event.kind == jk::kRecovered) {
    journal.arrived = event.int_field("last");
  } else if (event.kind == jk::kWrite) {
    journal.arrived = event.int_field("seq");
  } else if (event.kind == jk::kSynced && journal.arrived > event.int_field("covers")) {
    journal.owes_sync = Owed{event.t, event.int_field("covers"), describe_event(event)};
  }
}

}  // namespace hasim
