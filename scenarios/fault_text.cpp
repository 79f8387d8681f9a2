#include "scenarios/fault_text.hpp"

#include "scenarios/system.hpp"

namespace hasim {

std::string describe_fault(const FaultSpec& f) {
  std::string what = fault_kind(f).describe(f) + " at " + format_duration(f.at);
  if (f.for_duration) what += " for " + format_duration(*f.for_duration);
  return what;
}

}  // namespace hasim
