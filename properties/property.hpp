#pragma once
// A property is a monitor over the trace: it observes every event as it is recorded and
// reports the first violation with the events that caused it.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace.hpp"

namespace hasim {

struct Violation {
  std::string property;  // the spec, e.g. "detect-crash:10s"
  TrueTime at;
  std::string detail;               // one readable sentence
  std::vector<std::string> causes;  // the causal events, "t=12.000s n2/heartbeat crash"
};

// A stretch of true time during which a property was violated (issue 18 part 3): from
// `start` to `end`, and the sentence that says why. A property about states (no-skew,
// single-leader, single-serving) keeps one for as long as the bad state lasts; a bounded
// liveness property (eventually-leader:BOUND) from the moment its bound ran out until it is
// met again or faults suspend it; a property about single steps (raft-safety,
// lease-protocol) has an instant, a window of length 0.
struct ViolationWindow {
  TrueTime start{};
  TrueTime end{};
  std::string cause;
  bool operator==(const ViolationWindow&) const = default;
};

// How many windows, the time covered by at least one (overlapping windows count once) and
// the longest.
struct WindowSummary {
  std::size_t count = 0;
  Duration total{};
  Duration longest{};
};
WindowSummary summarize(const std::vector<ViolationWindow>& windows);
// "1 window, 25.322s" / "3 windows, 41s in all, longest 25.322s", for verdict lines.
std::string describe_windows(const WindowSummary& summary);

class Property : public TraceObserver {
 public:
  explicit Property(std::string spec) : spec_(std::move(spec)) {}
  const std::string& spec() const { return spec_; }
  // Called once when the run ends at `end` (obligations due by then are checked).
  virtual void finish(TrueTime end) { (void)end; }
  const std::optional<Violation>& violation() const { return violation_; }
  // Every violation window of the run, after finish(), in the order they were opened. The
  // default: the windows the property opened and closed (open ones end with the run), or,
  // for one that keeps none, its violation as an instant.
  virtual std::vector<ViolationWindow> windows() const;
  // What the property found worth saying though it is no violation (a loss it permits, with
  // its figures), "t=510.000s: ...", in the order noted; at most kMaxNotes.
  const std::vector<std::string>& notes() const { return notes_; }
  static constexpr std::size_t kMaxNotes = 16;

 protected:
  void note(TrueTime at, std::string text);
  // For a property made of halves: the half's notes after this one's.
  void adopt_notes(const Property& half);
  // Records the violation unless one was already recorded (the first one is reported).
  void violate(TrueTime at, std::string detail, std::vector<std::string> causes);
  // Window bookkeeping for properties that have no interval records of their own: an index
  // to close it by; windows past kMaxWindows are not kept (the loop over them is bounded).
  std::size_t open_window(TrueTime start, std::string cause);
  void close_window(std::size_t index, TrueTime end);
  // Closes every window still open (finish(): it lasted until the end of the run).
  void close_open_windows(TrueTime end);

 private:
  static constexpr std::size_t kMaxWindows = 10'000;
  std::string spec_;
  std::optional<Violation> violation_;
  std::vector<ViolationWindow> windows_;
  std::vector<bool> open_;  // parallel to windows_
  std::vector<std::string> notes_;
  std::size_t adopted_ = 0;  // adopt_notes: how many of the half's notes were taken
};

// "t=12.000000000s n2/heartbeat crash" for explanations.
std::string describe_event(const TraceEvent& event);

// Builds a monitor from a spec already checked by validate_property_spec.
std::unique_ptr<Property> make_property(std::string_view spec);

// A validated spec's name and its bound, if it has one: "eventually-leader:25s" ->
// {"eventually-leader", 25s}.
struct PropertySpecParts {
  std::string_view name;
  std::optional<Duration> bound;
};
PropertySpecParts split_property_spec(std::string_view spec);

}  // namespace hasim
