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

class Property : public TraceObserver {
 public:
  explicit Property(std::string spec) : spec_(std::move(spec)) {}
  const std::string& spec() const { return spec_; }
  // Called once when the run ends at `end` (obligations due by then are checked).
  virtual void finish(TrueTime end) { (void)end; }
  const std::optional<Violation>& violation() const { return violation_; }

 protected:
  // Records the violation unless one was already recorded (the first one is reported).
  void violate(TrueTime at, std::string detail, std::vector<std::string> causes);

 private:
  std::string spec_;
  std::optional<Violation> violation_;
};

// "t=12.000000000s n2/heartbeat crash" for explanations.
std::string describe_event(const TraceEvent& event);

// Builds a monitor from a spec already checked by validate_property_spec.
std::unique_ptr<Property> make_property(std::string_view spec);

}  // namespace hasim
