#include "properties/journal/no_lost_write.hpp"

#include "models/journal/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

bool loses_writes(std::string_view kind) {
  return kind == trace_kind::kCrash || kind == trace_kind::kPodDelete ||
         kind == trace_kind::kUnsyncedLost || kind == trace_kind::kDiskLoss ||
         kind == trace_kind::kNodeDown;
}

}  // namespace

void NoLostWrite::on_event(const TraceEvent& event) {
  if (event.proc.empty()) {
    // Node-level: a power loss or a lost disk, for the causes of the next recovery there.
    if (loses_writes(event.kind)) node_loss_[std::string(event.node)] = describe_event(event);
    return;
  }
  if (event.proc != "journal") return;
  Journal& journal = journals_[std::string(event.node) + "/journal"];
  if (event.kind == journal::trace_kind::kAck) {
    const std::int64_t sequence = event.int_field("seq");
    if (sequence > journal.acknowledged) {
      journal.acknowledged = sequence;
      journal.ack = describe_event(event);
    }
  } else if (event.kind == journal::trace_kind::kRecovered) {
    on_recovered(event, journal);
  } else if (loses_writes(event.kind)) {
    journal.loss = describe_event(event);
  }
}

void NoLostWrite::on_recovered(const TraceEvent& event, Journal& journal) {
  const std::int64_t last = event.int_field("last");
  if (last < journal.acknowledged) {
    std::vector<std::string> causes{journal.ack};
    if (const auto it = node_loss_.find(event.node); it != node_loss_.end()) {
      causes.push_back(it->second);
    }
    if (!journal.loss.empty()) causes.push_back(journal.loss);
    causes.push_back(describe_event(event));
    violate(event.t,
            std::string(event.node) + "/journal acknowledged write " +
                std::to_string(journal.acknowledged) + " but recovered only up to " +
                std::to_string(last) + " after its restart: " +
                std::to_string(journal.acknowledged - last) + " acknowledged write(s) lost",
            std::move(causes));
  }
  // From here on the journal continues after `last`; judge later restarts from there.
  journal.acknowledged = last;
  journal.ack.clear();
  journal.loss.clear();
  node_loss_.erase(std::string(event.node));
}

}  // namespace hasim
