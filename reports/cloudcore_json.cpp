// cloudcore.json (every sample, for `hasim report diff` and other tools) and the findings
// computed from the figures, for cloudcore.md and cloudcore.html.
#include <nlohmann/json.hpp>

#include "hasim_version.hpp"
#include "reports/cloudcore_report.hpp"
#include "reports/report_json.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using Json = nlohmann::ordered_json;

Json cell_json(const CloudCoreCellResult& c) {
  return {{"cell", c.cell.name()},
          {"fault", to_string(c.cell.fault)},
          {"loadBalancer", to_string(c.cell.balancer)},
          {"mode", cloudcore::to_string(c.cell.mode)},
          {"trials", c.trials},
          {"notServed", c.not_served},
          {"notServedInterval95", report_json::probability_interval(c.not_served, c.trials)},
          {"servedAgain", report_json::durations(c.served)},
          {"servedSamplesNs", report_json::samples(c.served)},
          {"notConverged", c.not_converged},
          {"notConvergedInterval95", report_json::probability_interval(c.not_converged, c.trials)},
          {"converged", report_json::durations(c.converged)},
          {"convergedSamplesNs", report_json::samples(c.converged)},
          {"resent", report_json::counts(c.resent)},
          {"duplicated", report_json::counts(c.duplicated)},
          {"givenUp", report_json::counts(c.dropped)},
          {"dualServingTrials", c.dual_serving},
          {"dualServingInterval95", report_json::probability_interval(c.dual_serving, c.trials)},
          {"dualServingTime", report_json::durations(c.dual_serving_time)},
          {"dualServingBeforeTrials", c.dual_serving_before},
          {"dualServingTimeSamplesNs", report_json::samples(c.dual_serving_time)}};
}

std::string percent(const CloudCoreCellResult& c) {
  return format_probability(
      c.trials == 0 ? 0.0 : static_cast<double>(c.dual_serving) / static_cast<double>(c.trials));
}

const CloudCoreCellResult* find_cell(const CloudCoreResults& r, CloudCoreCell cell) {
  for (const CloudCoreCellResult& c : r.cells) {
    if (c.cell == cell) return &c;
  }
  return nullptr;
}

// Where two CloudCores served at once, per fault.
std::vector<std::string> dual_serving_findings(const CloudCoreResults& r) {
  std::vector<std::string> out;
  for (CloudCoreFault fault : r.options.faults) {
    std::string cells;
    for (const CloudCoreCellResult& c : r.cells) {
      if (c.cell.fault != fault || c.dual_serving == 0) continue;
      cells += (cells.empty() ? "" : ", ") + std::string(to_string(c.cell.balancer)) + "/" +
               std::string(cloudcore::to_string(c.cell.mode)) + " " + percent(c) + " " +
               format_interval(wilson_interval(c.dual_serving, c.trials));
    }
    out.push_back("After " + std::string(to_string(fault)) +
                  (cells.empty() ? ", no cell had two CloudCores serving at once."
                                 : ", two CloudCores served at once in " + cells + "."));
  }
  return out;
}

// v1.5 (the kubeedge#2156 fix) against v1.3, per fault and load balancer, where v1.3 had
// dual serving.
std::vector<std::string> mode_findings(const CloudCoreResults& r) {
  using cloudcore::CloudCoreMode;
  std::vector<std::string> out;
  for (const CloudCoreCellResult& old : r.cells) {
    if (old.cell.mode != CloudCoreMode::v1_3 || old.dual_serving == 0) continue;
    CloudCoreCell fixed_cell = old.cell;
    fixed_cell.mode = CloudCoreMode::v1_5;
    const CloudCoreCellResult* fixed = find_cell(r, fixed_cell);
    if (fixed == nullptr) continue;
    const std::string where = "after " + std::string(to_string(old.cell.fault)) + " behind " +
                              std::string(to_string(old.cell.balancer));
    const bool lower = fixed->dual_serving * old.trials < old.dual_serving * fixed->trials;
    out.push_back(std::string(lower ? "v1.5 reduces" : "v1.5 does not reduce") +
                  " P(dual serving) " + where + ": " + percent(old) + " in v1.3, " +
                  percent(*fixed) + " in v1.5.");
  }
  return out;
}

// The nearest-rank median of a cell's times to be served again (some trial was served).
Duration median_served(const CloudCoreCellResult& c) {
  HASIM_ASSERT(!c.served.empty());
  std::vector<Duration> sorted = c.served;
  std::sort(sorted.begin(), sorted.end());
  return nearest_rank_quantile(sorted, 1, 2);
}

// Active-active (v1.7+) against hot standby v1.5, both behind the Service, per fault: the
// median time until the edges are served again and the share left unconverged.
std::vector<std::string> active_active_findings(const CloudCoreResults& r) {
  using cloudcore::CloudCoreMode;
  std::vector<std::string> out;
  for (const CloudCoreCellResult& aa : r.cells) {
    if (aa.cell.mode != CloudCoreMode::v1_7_plus) continue;
    CloudCoreCell standby_cell = aa.cell;
    standby_cell.mode = CloudCoreMode::v1_5;
    const CloudCoreCellResult* standby = find_cell(r, standby_cell);
    if (standby == nullptr) continue;
    const auto median = [](const CloudCoreCellResult& c) {
      return c.served.empty() ? std::string("never") : format_seconds_ms(median_served(c));
    };
    const auto unconverged = [](const CloudCoreCellResult& c) {
      return format_probability(static_cast<double>(c.not_converged) /
                                static_cast<double>(c.trials));
    };
    std::string line = "After " + std::string(to_string(aa.cell.fault)) +
                       " behind the Service, active-active (v1.7+) served the edges again after "
                       "a median " +
                       median(aa) + " (hot standby v1.5: " + median(*standby) + ") and left " +
                       unconverged(aa) +
                       " of trials unconverged at the horizon "
                       "(v1.5: " +
                       unconverged(*standby) + ").";
    if (aa.not_converged > 0 && aa.cell.fault == CloudCoreFault::apiserver_partition) {
      line +=
          " Its edges stay on the replica cut off from the apiserver, which hands them "
          "nothing new until its informers catch up after the partition heals.";
    } else if (aa.not_converged > 0) {
      // Seen in the traces: the pod deleted 3s after the fault, while its edge was on the
      // faulted replica, is never deleted there once the edge is back on a replica that
      // restarted after the delete.
      line +=
          " A replica that starts after an object was deleted never learns of it, and "
          "v1.7-v1.9's SyncController sends no delete for an object that is gone (fixed "
          "in v1.10): the pod deleted 3s after the fault stays on its edge "
          "(scenarios/cloudcore/cloudcore-active-active-delete-lost.json).";
    }
    out.push_back(std::move(line));
  }
  return out;
}

// The slowest and fastest median time to be served again, and trials that did not recover.
std::vector<std::string> recovery_findings(const CloudCoreResults& r) {
  std::vector<std::string> out;
  const CloudCoreCellResult* slowest = nullptr;
  const CloudCoreCellResult* fastest = nullptr;
  std::string unrecovered;
  const auto median = median_served;
  for (const CloudCoreCellResult& c : r.cells) {
    if (!c.served.empty()) {
      if (slowest == nullptr || median(c) > median(*slowest)) slowest = &c;
      if (fastest == nullptr || median(c) < median(*fastest)) fastest = &c;
    }
    if (c.not_served + c.not_converged > 0) {
      unrecovered += (unrecovered.empty() ? "" : "; ") + c.cell.name() + " " +
                     std::to_string(c.not_served) + " not served, " +
                     std::to_string(c.not_converged) + " not converged";
    }
  }
  if (slowest != nullptr) {
    out.push_back("Edges were served again soonest in " + fastest->cell.name() + " (median " +
                  format_seconds_ms(median(*fastest)) + ") and latest in " + slowest->cell.name() +
                  " (median " + format_seconds_ms(median(*slowest)) + ").");
  }
  out.push_back(unrecovered.empty()
                    ? "Every trial was served again and converged within the horizon."
                    : "Not recovered within the horizon (of " + std::to_string(r.options.trials) +
                          " trials): " + unrecovered + ".");
  return out;
}

// Dual serving already open at the fault, per load balancer and mode (over all faults): the
// start-up race of the lock.
std::vector<std::string> start_up_findings(const CloudCoreResults& r) {
  std::vector<std::string> out;
  for (CloudLoadBalancer balancer : r.options.balancers) {
    for (cloudcore::CloudCoreMode mode : r.options.modes) {
      std::uint64_t before = 0, trials = 0;
      for (const CloudCoreCellResult& c : r.cells) {
        if (c.cell.mode != mode || c.cell.balancer != balancer) continue;
        before += c.dual_serving_before;
        trials += c.trials;
      }
      if (before == 0) continue;
      out.push_back(
          "Before any fault, " + std::to_string(before) + " of " + std::to_string(trials) + " " +
          std::string(to_string(balancer)) + "/" + std::string(cloudcore::to_string(mode)) +
          " trials (" +
          format_probability(static_cast<double>(before) / static_cast<double>(trials)) +
          ") already had two CloudCores serving: both created the fresh endpointsleases lock at "
          "once, and client-go's MultiLock.Create ignores AlreadyExists on the Endpoints, so the "
          "one that created only the Lease believed it led, lost the lock after RenewDeadline "
          "and restarted with its gate True (not counted as the fault's dual serving).");
    }
  }
  return out;
}

// Totals of the delivery's resends and duplicates after the fault, and the cell with most.
std::string delivery_finding(const CloudCoreResults& r) {
  std::int64_t resent = 0, duplicated = 0;
  const CloudCoreCellResult* most = nullptr;
  std::int64_t most_duplicated = -1;
  for (const CloudCoreCellResult& c : r.cells) {
    const CountSummary d = summarize_counts(c.duplicated);
    resent += summarize_counts(c.resent).total;
    duplicated += d.total;
    if (d.total > most_duplicated) {
      most = &c;
      most_duplicated = d.total;
    }
  }
  std::string out = "After the faults CloudHub resent " + std::to_string(resent) +
                    " messages in all cells together, and the edges received " +
                    std::to_string(duplicated) + " versions they already held";
  if (duplicated > 0 && most != nullptr) {
    out += " (most in " + most->cell.name() + ": " + std::to_string(most_duplicated) + ")";
  }
  return out + ": at-least-once delivery re-sends what no ObjectSync recorded as acknowledged.";
}

}  // namespace

std::vector<std::string> cloudcore_findings(const CloudCoreResults& r) {
  std::vector<std::string> out = dual_serving_findings(r);
  for (std::string& s : mode_findings(r)) out.push_back(std::move(s));
  for (std::string& s : active_active_findings(r)) out.push_back(std::move(s));
  for (std::string& s : start_up_findings(r)) out.push_back(std::move(s));
  for (std::string& s : recovery_findings(r)) out.push_back(std::move(s));
  out.push_back(delivery_finding(r));
  HASIM_ASSERT(!out.empty());
  return out;
}

std::string cloudcore_json(const CloudCoreResults& r) {
  const CloudCoreSettings& s = r.options.settings;
  Json doc;
  doc["report"] = "cloudcore";
  doc["formatVersion"] = 1;
  doc["hasimVersion"] = kVersion;
  doc["seed"] = r.options.seed;
  doc["trialsPerCell"] = r.options.trials;
  doc["settings"] = {{"edges", s.edges},
                     {"partitionNs", s.partition.ns},
                     {"nodeDownNs", s.node_down.ns},
                     {"horizonNs", s.horizon.ns},
                     {"warmUpNs", kWarmUp.ns},
                     {"faultWindowNs", kFaultWindow.ns},
                     {"changesAfterFaultNs", kChangesAfterFault.ns}};
  Json cells = Json::array();
  for (const CloudCoreCellResult& c : r.cells) cells.push_back(cell_json(c));
  doc["cells"] = std::move(cells);
  doc["findings"] = cloudcore_findings(r);
  return doc.dump(2) + "\n";
}

}  // namespace hasim
