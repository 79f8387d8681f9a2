#include "scenarios/fault_json.hpp"

#include "sim/assert.hpp"
#include "sim/clock.hpp"

namespace hasim {
namespace {

using Kind = FaultSpec::Kind;

// The loader's "process" form: a fault on one process is written "node/process".
bool is_process_target(const std::string& target) { return target.find('/') != std::string::npos; }

void write_targets(const FaultSpec& fault, Json& out) {
  HASIM_ASSERT(!fault.targets.empty());
  if (fault.targets.size() == 1) {
    out[is_process_target(fault.targets[0]) ? "process" : "node"] = fault.targets[0];
  } else {
    out["nodes"] = fault.targets;
  }
}

// A distribution as the loader reads it: a duration, or an inclusive range "a..b". Generated
// upgrade timings are one of these two.
Json distribution_text(const DurationDistribution& d) {
  HASIM_ASSERT(d.kind == DurationDistribution::Kind::constant ||
               d.kind == DurationDistribution::Kind::uniform);
  if (d.kind == DurationDistribution::Kind::constant) return duration_text(d.a);
  return duration_text(d.a) + ".." + duration_text(d.b);
}

}  // namespace

std::string duration_text(Duration d) { return format_duration(d); }

std::string drift_text(std::int64_t rate_ppb) {
  const std::int64_t ppb = rate_ppb - kRatePerfect;
  HASIM_ASSERT(ppb % 1'000 == 0);
  HASIM_ASSERT(ppb > -1'000'000'000 && ppb < 1'000'000'000);
  const std::int64_t ppm = ppb / 1'000;
  return (ppm < 0 ? "-" : "+") + std::to_string(ppm < 0 ? -ppm : ppm) + "ppm";
}

Json fault_to_json(const FaultSpec& fault) {
  Json out = Json::object();
  out["at"] = duration_text(fault.at);
  out["kind"] = std::string(to_string(fault.kind));
  switch (fault.kind) {
    case Kind::heal:
      break;
    case Kind::partition:
      switch (fault.partition_mode) {
        case FaultSpec::PartitionMode::isolate:
          out["isolate"] = fault.targets;
          break;
        case FaultSpec::PartitionMode::groups:
          out["groups"] = fault.groups;
          break;
        case FaultSpec::PartitionMode::oneway:
          out["from"] = fault.from;
          out["to"] = fault.to;
          break;
      }
      break;
    case Kind::clock_step:
      write_targets(fault, out);
      out["by"] = duration_text(fault.step);
      break;
    case Kind::clock_rate:
      write_targets(fault, out);
      out["drift"] = drift_text(fault.rate_ppb);
      break;
    case Kind::terminate:
      write_targets(fault, out);
      out["grace"] = duration_text(fault.grace);
      break;
    case Kind::apiserver_slow:
      write_targets(fault, out);
      out["latency"] = duration_text(fault.latency);
      break;
    case Kind::apiserver_hang:
      write_targets(fault, out);
      if (!fault.verbs.empty()) out["verbs"] = fault.verbs;
      break;
    default:
      write_targets(fault, out);
      break;
  }
  if (fault.for_duration) out["for"] = duration_text(*fault.for_duration);
  return out;
}

Json faults_to_json(const std::vector<FaultSpec>& faults) {
  Json out = Json::array();
  for (const FaultSpec& fault : faults) out.push_back(fault_to_json(fault));
  return out;
}

void write_upgrade_timing(const UpgradeSpec& upgrade, Json& upgrade_json) {
  HASIM_ASSERT(upgrade_json.is_object());
  upgrade_json["at"] = duration_text(upgrade.at);
  if (upgrade.randomOrder) {
    upgrade_json["order"] = "random";
  } else if (!upgrade.order.empty()) {
    upgrade_json["order"] = upgrade.order;
  } else {
    upgrade_json["order"] = "sequential";
  }
  upgrade_json["downtime"] = distribution_text(upgrade.downtime);
  upgrade_json["gap"] = distribution_text(upgrade.gap);
  upgrade_json["startJitter"] = distribution_text(upgrade.startJitter);
  upgrade_json["canary"] = duration_text(upgrade.canary);
  if (upgrade.stop == UpgradeSpec::Stop::terminate) {
    upgrade_json["stop"] = "terminate";
    upgrade_json["grace"] = duration_text(upgrade.grace);
  } else {
    upgrade_json["stop"] = "power-off";
    upgrade_json.erase("grace");  // a power-off has no grace period
  }
}

}  // namespace hasim
