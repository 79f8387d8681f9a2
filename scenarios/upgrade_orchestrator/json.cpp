// The upgrade's timings written back as scenario JSON, for replay files of `hasim check`
// schedules that redrew them (upgrade-timing); the inverse of the "upgrade" reader.
#include "scenarios/fault_json.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// A distribution as the loader reads it: a duration, or an inclusive range "a..b". Generated
// upgrade timings are one of these two.
Json distribution_text(const DurationDistribution& d) {
  HASIM_ASSERT(d.kind == DurationDistribution::Kind::constant ||
               d.kind == DurationDistribution::Kind::uniform);
  if (d.kind == DurationDistribution::Kind::constant) return duration_text(d.a);
  return duration_text(d.a) + ".." + duration_text(d.b);
}

}  // namespace

void write_upgrade_timing(const UpgradeSpec& upgrade, Json& upgrade_json) {
  HASIM_ASSERT(upgrade_json.is_object());
  upgrade_json["at"] = duration_text(upgrade.at);
  if (upgrade.method == UpgradeSpec::Method::replace) {
    // Keys "replace" refuses (the loader's check_method_keys) are left out.
    upgrade_json["provision"] = distribution_text(upgrade.provision);
  } else if (upgrade.randomOrder) {
    upgrade_json["order"] = "random";
  } else if (!upgrade.order.empty()) {
    upgrade_json["order"] = upgrade.order;
  } else {
    upgrade_json["order"] = "sequential";
  }
  if (upgrade.method != UpgradeSpec::Method::replace) {
    upgrade_json["downtime"] = distribution_text(upgrade.downtime);
    upgrade_json["startJitter"] = distribution_text(upgrade.startJitter);
  }
  upgrade_json["gap"] = distribution_text(upgrade.gap);
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
