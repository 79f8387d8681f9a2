#include "properties/single_leader.hpp"

#include "models/apiserver/trace_kinds.hpp"

namespace hasim {
namespace {
constexpr std::size_t kRecent = 12;

std::string seconds_of(Duration d) { return format_seconds(d.ns) + "s"; }
}  // namespace

void SingleLeader::on_event(const TraceEvent& event) {
  if (event.kind == api::trace_kind::kWrite) {
    const std::string_view user = event.string_field("user");
    for (Overlap& overlap : overlaps_) {
      if (!overlap.open) continue;
      if (user == overlap.first.identity) ++overlap.first_writes;
      if (user == overlap.second.identity) ++overlap.second_writes;
    }
    return;
  }
  if (!is_notable(event) && event.kind != api::trace_kind::kComponentStart) return;
  if (is_notable(event)) {
    recent_.push_back(describe_event(event));
    if (recent_.size() > kRecent) recent_.pop_front();
  }
  for (const ActingChange& change : leaders_.observe(event)) {
    if (change.started) {
      for (const auto& [process, other] : leaders_.acting().at(change.lease)) {
        if (process == change.actor.process) continue;
        overlaps_.push_back(Overlap{change.lease,
                                    other,
                                    change.actor,
                                    event.t,
                                    event.t,
                                    true,
                                    0,
                                    0,
                                    {recent_.begin(), recent_.end()}});
      }
      continue;
    }
    for (Overlap& overlap : overlaps_) {
      if (!overlap.open || overlap.lease != change.lease) continue;
      if (overlap.first.process != change.actor.process &&
          overlap.second.process != change.actor.process) {
        continue;
      }
      overlap.open = false;
      overlap.end = event.t;
      overlap.causes.push_back(describe_event(event));
    }
  }
}

std::string SingleLeader::describe(const Overlap& o) {
  std::string out = "Lease " + o.lease + ": " + o.first.process +
                    " (leading since t=" + format_seconds(o.first.since.ns) + "s) and " +
                    o.second.process + " both acted as leader for " + seconds_of(o.end - o.start) +
                    ", from t=" + format_seconds(o.start.ns) +
                    "s to t=" + format_seconds(o.end.ns) + "s. ";
  if (o.first_writes > 0 && o.second_writes > 0) {
    out += "Harmful: both had writes accepted by an apiserver during the overlap (" +
           o.first.process + ": " + std::to_string(o.first_writes) + ", " + o.second.process +
           ": " + std::to_string(o.second_writes) + ").";
  } else {
    const Actor& silent = o.first_writes == 0 ? o.first : o.second;
    out += "Harmless: " + silent.process +
           " had no write accepted by an apiserver during the overlap, so only one leader "
           "could change cluster state.";
  }
  return out;
}

void SingleLeader::finish(TrueTime end) {
  if (overlaps_.empty()) return;
  const Overlap* chosen = nullptr;
  std::size_t harmful = 0;
  for (Overlap& overlap : overlaps_) {
    if (overlap.open) overlap.end = end;
    if (overlap.first_writes > 0 && overlap.second_writes > 0) {
      ++harmful;
      if (chosen == nullptr) chosen = &overlap;
    }
  }
  harmful_ = harmful;
  if (chosen == nullptr) chosen = &overlaps_.front();  // none harmful: report the first
  std::string detail = describe(*chosen);
  if (overlaps_.size() > 1) {
    detail += " This run had " + std::to_string(overlaps_.size()) + " overlaps, " +
              std::to_string(harmful) + " of them harmful.";
  }
  violate(chosen->start, std::move(detail), chosen->causes);
}

std::vector<ViolationWindow> SingleLeader::windows() const {
  std::vector<ViolationWindow> out;
  out.reserve(overlaps_.size());
  // finish() gave open overlaps their end.
  for (const Overlap& overlap : overlaps_) {
    out.push_back({overlap.start, overlap.end, describe(overlap)});
  }
  return out;
}

}  // namespace hasim
