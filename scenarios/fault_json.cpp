#include "scenarios/fault_json.hpp"

#include "scenarios/system.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"
#include "sim/clock.hpp"

namespace hasim {
bool is_process_target(const std::string& target) { return target.find('/') != std::string::npos; }

std::string duration_text(Duration d) { return format_duration(d); }

std::string drift_text(std::int64_t rate_ppb) {
  const std::int64_t ppb = rate_ppb - kRatePerfect;
  HASIM_ASSERT(ppb % 1'000 == 0);
  HASIM_ASSERT(ppb > -1'000'000'000 && ppb < 1'000'000'000);
  const std::int64_t ppm = ppb / 1'000;
  return (ppm < 0 ? "-" : "+") + std::to_string(ppm < 0 ? -ppm : ppm) + "ppm";
}

void write_fault_targets(const FaultSpec& fault, Json& out) {
  if (!fault.role.empty()) {
    out["role"] = fault.role;
    return;
  }
  HASIM_ASSERT(!fault.targets.empty());
  if (fault.targets.size() == 1) {
    out[is_process_target(fault.targets[0]) ? "process" : "node"] = fault.targets[0];
  } else {
    out["nodes"] = fault.targets;
  }
}

Json fault_to_json(const FaultSpec& fault) {
  Json out = Json::object();
  out["at"] = duration_text(fault.at);
  out["kind"] = fault.kind;
  fault_kind(fault).write(fault, out);
  if (fault.for_duration) out["for"] = duration_text(*fault.for_duration);
  return out;
}

Json faults_to_json(const std::vector<FaultSpec>& faults) {
  Json out = Json::array();
  for (const FaultSpec& fault : faults) out.push_back(fault_to_json(fault));
  return out;
}

std::string fault_target_text(const FaultSpec& fault) {
  const std::size_t colon = fault.role.find(':');
  if (!fault.role.empty() && colon == std::string::npos) return "the " + fault.role;
  if (!fault.role.empty())
    return "the " + fault.role.substr(0, colon) + " of " + fault.role.substr(colon + 1);
  return join_words(fault.targets);
}

}  // namespace hasim
