#include "properties/druid/backup_chain.hpp"

#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

std::string describe_snapshot(const TraceEvent& event) {
  return std::string(event.string_field("snapshot")) + " " +
         std::to_string(event.int_field("start")) + "-" + std::to_string(event.int_field("last")) +
         " by " + std::string(event.string_field("pod")) + " at " +
         format_duration(Duration{event.t.ns});
}

}  // namespace

BackupChain::BackupChain(std::string spec) : Property(std::move(spec)) {}

bool BackupChain::wants(std::string_view kind) const {
  return kind == druid::trace_kind::kSnapshot ||
         kind == druid::trace_kind::kGarbageCollectionDelete;
}

void BackupChain::on_delete(const TraceEvent& event) {
  if (event.string_field("outcome") != "deleted") return;
  if (chain_.count(std::string(event.string_field("name"))) == 0 || gcWindow_ != kNoWindow) return;
  const std::string deleted = describe_snapshot(event);
  std::string detail = "the garbage collector deleted " + deleted +
                       ", of the latest chain: a restore from the store now misses revisions";
  gcWindow_ = open_window(event.t, detail);
  violate(event.t, std::move(detail), {deleted});
}

void BackupChain::on_event(const TraceEvent& event) {
  if (event.kind == druid::trace_kind::kGarbageCollectionDelete) return on_delete(event);
  if (!wants(event.kind) || event.string_field("outcome") != "saved") return;
  const std::int64_t start = event.int_field("start");
  const std::int64_t last = event.int_field("last");
  HASIM_ASSERT(start >= 0 && last >= start);
  const std::string here = describe_snapshot(event);
  if (event.string_field("snapshot") == "Full") {
    if (window_ != kNoWindow) close_window(window_, event.t);  // a new chain starts
    if (gcWindow_ != kNoWindow) close_window(gcWindow_, event.t);
    window_ = gcWindow_ = kNoWindow;
    chain_.clear();
  } else if (window_ == kNoWindow && (!last_.has_value() || start != *last_ + 1)) {
    std::string detail =
        last_.has_value()
            ? "delta " + here + " does not follow " + lastSnapshot_ + ": expected it to start at " +
                  std::to_string(*last_ + 1) +
                  "; a restore from the store fails at it (mismatched event revision)"
            : "delta " + here + " was saved with no full snapshot before it to apply it to";
    window_ = open_window(event.t, detail);
    violate(event.t, std::move(detail), {here});
  }
  chain_.insert(std::string(event.string_field("name")));
  HASIM_ASSERT(chain_.size() <= 10'000'000);  // a chain is a day of deltas at most, in practice
  last_ = last;
  lastSnapshot_ = here;
}

void BackupChain::finish(TrueTime end) { close_open_windows(end); }

}  // namespace hasim
