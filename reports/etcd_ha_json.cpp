// etcd-ha.json: every sample, for `hasim report diff` and other tools, with the findings and
// the seed's claims computed from the figures.
#include <nlohmann/json.hpp>

#include "hasim_version.hpp"
#include "reports/etcd_ha_report.hpp"
#include "reports/report_json.hpp"

namespace hasim {
namespace {

using Json = nlohmann::ordered_json;

Json cell_json(const EtcdHaCellResult& c) {
  using report_json::probability_interval;
  return {{"cell", c.cell.name()},
          {"storage", to_string(c.cell.storage)},
          {"mode", to_string(c.cell.mode)},
          {"members", c.cell.members},
          {"zones", c.cell.zones},
          {"trials", c.trials},
          {"quorumLost", c.quorum_lost},
          {"quorumLostInterval95", probability_interval(c.quorum_lost, c.trials)},
          {"notRecovered", c.not_recovered},
          {"notRecoveredInterval95", probability_interval(c.not_recovered, c.trials)},
          {"operatorNeeded", c.operator_needed},
          {"operatorNeededInterval95", probability_interval(c.operator_needed, c.trials)},
          {"lossTrials", c.loss},
          {"lossInterval95", probability_interval(c.loss, c.trials)},
          {"lossNotPermitted", c.loss_not_permitted},
          {"lossWithMinorityVolumesLost", c.loss_minority_volumes},
          {"revisionsLost", report_json::counts(c.revisions_lost)},
          {"recovery", report_json::durations(c.recovery)},
          {"recoverySamplesNs", report_json::samples(c.recovery)},
          {"unavailable", report_json::durations(c.unavailable)},
          {"unavailableSamplesNs", report_json::samples(c.unavailable)}};
}

}  // namespace

std::string etcd_ha_json(const EtcdHaResults& r) {
  const EtcdHaSettings& s = r.options.settings;
  Json cells = Json::array();
  for (const EtcdHaCellResult& c : r.cells) cells.push_back(cell_json(c));
  Json doc = {{"report", "etcd-ha"},
              {"formatVersion", 1},
              {"hasimVersion", kVersion},
              {"seed", r.options.seed},
              {"trialsPerCell", r.options.trials},
              {"settings",
               {{"windowNs", s.window.ns},
                {"nodeFailures", s.nodeFailures},
                {"nodeDownNs", s.nodeDown.ns},
                {"zoneOutages", s.zoneOutages},
                {"zoneDownNs", s.zoneDown.ns},
                {"volumeLosses", s.volumeLosses},
                {"storeOutages", s.storeOutages},
                {"storeDownNs", s.storeDown.ns},
                {"podDeletions", s.podDeletions},
                {"operatorAfterNs", s.operatorAfter.ns},
                {"writeRate", s.writeRate}}},
              {"findings", etcd_ha_findings(r)},
              {"claims", etcd_ha_claims(r)},
              {"cells", cells}};
  return doc.dump(2) + "\n";
}

}  // namespace hasim
