#include "properties/journal/disk_semantics.hpp"

#include "models/journal/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/disk.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

namespace jk = journal::trace_kind;

// A journal's writes awaiting acknowledgement, at most: one per write since its last
// acknowledgement; the bound keeps a wedged journal's bookkeeping finite.
constexpr std::size_t kMaxArrived = 1'000'000;

}  // namespace

bool DiskSemantics::wants(std::string_view kind) const {
  return kind == trace_kind::kDiskFull || kind == trace_kind::kCrash || kind == jk::kRecovered ||
         kind == jk::kWrite || kind == jk::kSynced || kind == jk::kAck || kind == jk::kRejected;
}

void DiskSemantics::on_event(const TraceEvent& event) {
  if (event.kind == trace_kind::kDiskFull) {
    const std::string disk =
        std::string(event.node) + "/" + std::string(event.string_field("disk"));
    const TraceValue* full = event.find("full");
    HASIM_ASSERT(full != nullptr && std::holds_alternative<bool>(*full));
    if (std::get<bool>(*full)) {
      full_since_.try_emplace(disk, event.t);  // a second fault on a full disk: still full
    } else {
      full_since_.erase(disk);
    }
    return;
  }
  if (event.proc != "journal") return;
  on_journal_event(event, journals_[std::string(event.node) + "/journal"]);
}

void DiskSemantics::on_journal_event(const TraceEvent& event, Journal& journal) {
  if (event.kind == jk::kRecovered) {
    journal.disk = std::string(event.node) + "/" + std::string(event.string_field("disk"));
    journal.device = event.string_field("volume") != volume_kind_name(VolumeKind::memory);
    journal.arrived.clear();
  } else if (event.kind == trace_kind::kCrash) {
    journal.arrived.clear();  // its writes in flight died with it
  } else if (event.kind == jk::kWrite) {
    HASIM_ASSERT(journal.arrived.size() < kMaxArrived);
    journal.arrived[event.int_field("seq")] = event.t;
  } else if (event.kind == jk::kRejected) {
    journal.arrived.erase(event.int_field("seq"));
  } else if (event.kind == jk::kSynced) {
    on_synced(event);
  } else if (event.kind == jk::kAck) {
    on_ack(event, journal);
  }
}

void DiskSemantics::on_synced(const TraceEvent& event) {
  const std::int64_t covers = event.int_field("covers");
  const std::int64_t written = event.int_field("written");
  if (written >= covers) return;
  violate(event.t,
          std::string(event.node) + "/journal's fsync covering writes up to " +
              std::to_string(covers) + " completed while the append of write " +
              std::to_string(written + 1) +
              ", issued before it, had not: the disk served the fsync ahead of an earlier "
              "append",
          {describe_event(event)});
}

void DiskSemantics::on_ack(const TraceEvent& event, Journal& journal) {
  const std::int64_t sequence = event.int_field("seq");
  const auto it = journal.arrived.find(sequence);
  if (it == journal.arrived.end()) return;
  const TrueTime arrived = it->second;
  journal.arrived.erase(it);
  const auto full = full_since_.find(journal.disk);
  if (!journal.device || full == full_since_.end() || full->second > arrived) return;
  violate(event.t,
          std::string(event.node) + "/journal acknowledged write " + std::to_string(sequence) +
              ", whose append to " + journal.disk +
              " was issued and completed while that disk was full: it should have failed "
              "with ENOSPC",
          {"t=" + format_duration(full->second - TrueTime{}) + " " + journal.disk + " disk-full",
           describe_event(event)});
}

}  // namespace hasim
