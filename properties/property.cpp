#include "properties/property.hpp"

#include <algorithm>

#include "properties/check_system.hpp"
#include "sim/assert.hpp"

namespace hasim {

void Property::violate(TrueTime at, std::string detail, std::vector<std::string> causes) {
  if (violation_) return;
  violation_ = Violation{spec_, at, std::move(detail), std::move(causes)};
}

void Property::note(TrueTime at, std::string text) {
  if (notes_.size() >= kMaxNotes) return;
  notes_.push_back("t=" + format_seconds(at.ns) + "s: " + std::move(text));
}

void Property::adopt_notes(const Property& half) {
  HASIM_ASSERT(adopted_ <= half.notes().size());
  for (; adopted_ < half.notes().size() && notes_.size() < kMaxNotes; ++adopted_) {
    notes_.push_back(half.notes()[adopted_]);
  }
}

std::vector<ViolationWindow> Property::windows() const {
  if (!windows_.empty() || !violation_) return windows_;
  return {ViolationWindow{violation_->at, violation_->at, violation_->detail}};
}

std::size_t Property::open_window(TrueTime start, std::string cause) {
  // Past the bound the window is not kept; its index names no window and closing it is a
  // no-op (kMaxWindows windows already show what went wrong).
  if (windows_.size() >= kMaxWindows) return kMaxWindows;
  windows_.push_back(ViolationWindow{start, start, std::move(cause)});
  open_.push_back(true);
  return windows_.size() - 1;
}

void Property::close_window(std::size_t index, TrueTime end) {
  if (index >= windows_.size()) return;
  HASIM_ASSERT(open_[index] && windows_[index].start <= end);
  windows_[index].end = end;
  open_[index] = false;
}

void Property::close_open_windows(TrueTime end) {
  for (std::size_t i = 0; i < windows_.size(); ++i) {
    if (open_[i]) close_window(i, end);
  }
}

WindowSummary summarize(const std::vector<ViolationWindow>& windows) {
  std::vector<ViolationWindow> sorted = windows;
  std::sort(sorted.begin(), sorted.end(), [](const ViolationWindow& a, const ViolationWindow& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  WindowSummary out;
  out.count = sorted.size();
  bool have = false;
  TrueTime from{};
  TrueTime to{};
  for (const ViolationWindow& w : sorted) {
    HASIM_ASSERT(w.start <= w.end);
    out.longest = std::max(out.longest, w.end - w.start);
    if (have && w.start <= to) {
      to = std::max(to, w.end);
      continue;
    }
    if (have) out.total = out.total + (to - from);
    have = true;
    from = w.start;
    to = w.end;
  }
  if (have) out.total = out.total + (to - from);
  HASIM_ASSERT(out.longest <= out.total);
  return out;
}

std::string describe_windows(const WindowSummary& summary) {
  if (summary.count == 1) return "1 window, " + format_duration(summary.total);
  return std::to_string(summary.count) + " windows, " + format_duration(summary.total) +
         " in all, longest " + format_duration(summary.longest);
}

std::string describe_event(const TraceEvent& event) {
  // Appended in place, no temporaries: properties describe the events that cause their
  // findings as they see them (no-skew: every acting leader and apiserver start of a trial).
  std::string out;
  out.reserve(64);
  out.append("t=").append(format_seconds(event.t.ns)).append("s ");
  out.append(event.node);
  if (!event.proc.empty()) out.append(1, '/').append(event.proc);
  out.append(1, ' ').append(event.kind);
  for (const TraceField& field : event.fields) {
    out.append(1, ' ').append(field.key).append(1, '=');
    if (const auto* text = std::get_if<std::string>(&field.value)) {
      out.append(*text);
    } else if (const auto* number = std::get_if<std::int64_t>(&field.value)) {
      out.append(std::to_string(*number));
    } else {
      out.append(std::get<bool>(field.value) ? "true" : "false");
    }
  }
  return out;
}

PropertySpecParts split_property_spec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  PropertySpecParts parts{spec.substr(0, colon), std::nullopt};
  if (colon != std::string_view::npos) parts.bound = parse_duration(spec.substr(colon + 1));
  return parts;
}

std::unique_ptr<Property> make_property(std::string_view spec) {
  const auto [name, bound] = split_property_spec(spec);
  for (const CheckSystem* system : check_systems()) {
    for (const PropertyDef& p : system->properties) {
      if (p.info.name == name) return p.make(std::string(spec), bound);
    }
  }
  HASIM_ASSERT(false && "make_property called with an unvalidated spec");
  return nullptr;
}

}  // namespace hasim
