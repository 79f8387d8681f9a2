// Tables and sentences of the upgrade-skew report that both the Markdown and the HTML show.
#include "reports/upgrade_text.hpp"

#include <algorithm>
#include <set>

namespace hasim {
const UpgradeCellSummary* find_summary(const std::vector<UpgradeCellSummary>& cells,
                                       ElectionMode mode, UpgradeDirection direction, int nodes,
                                       UpgradeSpec::Method method, UpgradeStore store) {
  for (const UpgradeCellSummary& s : cells) {
    if (s.cell.mode == mode && s.cell.direction == direction && s.cell.nodes == nodes &&
        s.cell.method == method && s.cell.store == store) {
      return &s;
    }
  }
  return nullptr;
}

std::string probability_text(const UpgradeCellSummary& s) {
  return format_probability(s.probability) + " " + format_interval(s.interval);
}

std::string times_text(const UpgradeCellSummary& s) {
  if (s.violating == 0) return "no violation";
  return "mean " + secs(s.violation_time.mean) + ", p99 " + secs(s.violation_time.p99);
}

// One line per (direction, nodes): every mode's probability side by side, the bar chart in
// words.
std::vector<std::string> key_results(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::pair<UpgradeDirection, int>> groups;
  for (const UpgradeCellSummary& s : cells) {
    const std::pair group{s.cell.direction, s.cell.nodes};
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  std::vector<std::string> out;
  for (const auto& [direction, nodes] : groups) {
    std::string line = direction_name(direction) + ", " + std::to_string(nodes) + " nodes:";
    bool first = true;
    for (const UpgradeCellSummary& s : cells) {
      if (s.cell.direction != direction || s.cell.nodes != nodes) continue;
      line += std::string(first ? " " : "; ") + mode_label(s.cell) + " " + probability_text(s) +
              (s.violating > 0 ? " (mean " + secs(s.violation_time.mean) + " when violated)"
                               : std::string());
      first = false;
    }
    out.push_back(line + ".");
  }
  return out;
}

// Tables.

std::vector<std::string> skew_header() {
  return {"cell",
          "trials",
          "P(violation) [95% CI]",
          "violation time mean / p99 (violating)",
          "mean / p99 (all trials)",
          "first violation p50 / p99"};
}

std::vector<std::vector<std::string>> skew_rows(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::vector<std::string>> rows;
  for (const UpgradeCellSummary& s : cells) {
    const bool any = s.violating > 0;
    const bool firsts = s.first_violation.count > 0;
    rows.push_back(
        {describe(s.cell), std::to_string(s.trials), probability_text(s),
         any ? secs(s.violation_time.mean) + " / " + secs(s.violation_time.p99) : "-",
         secs(s.violation_time_all.mean) + " / " + secs(s.violation_time_all.p99),
         firsts ? secs(s.first_violation.p50) + " / " + secs(s.first_violation.p99) : "-"});
  }
  return rows;
}

std::vector<std::string> election_header() {
  return {"cell",
          "leader changes (mean)",
          "Lease writes / trial",
          "LeaseCandidate writes / trial",
          "writes/s during the upgrade",
          "upgrade duration mean / p99",
          "leaders at the end"};
}

std::vector<std::vector<std::string>> election_rows(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::vector<std::string>> rows;
  for (const UpgradeCellSummary& s : cells) {
    rows.push_back({describe(s.cell), fixed(s.mean(s.leader_changes), 2),
                    fixed(s.mean(s.lease_writes), 1), fixed(s.mean(s.candidate_writes), 1),
                    fixed(s.writes_per_second(), 3),
                    secs(s.upgrade_duration.mean) + " / " + secs(s.upgrade_duration.p99),
                    s.trials == 0 ? "-"
                                  : format_probability(static_cast<double>(s.leaders_at_end) /
                                                       static_cast<double>(s.trials))});
  }
  return rows;
}

std::vector<std::string> write_findings(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::string> out;
  for (const UpgradeCellSummary& s : cells) {
    if (s.cell.mode == ElectionMode::lease) continue;
    const UpgradeCellSummary* lease = find_summary(cells, ElectionMode::lease, s.cell.direction,
                                                   s.cell.nodes, s.cell.method, s.cell.store);
    std::string line = describe(s.cell) + ": " + fixed(s.writes_per_second(), 3) +
                       " election writes/s during the upgrade (" +
                       fixed(s.mean(s.lease_writes), 1) + " Lease and " +
                       fixed(s.mean(s.candidate_writes), 1) + " LeaseCandidate writes per trial)";
    if (lease != nullptr && lease->writes_per_second() > 0) {
      line += ", " + fixed(s.writes_per_second() / lease->writes_per_second(), 2) + " times the " +
              fixed(lease->writes_per_second(), 3) + " writes/s of plain leases";
    }
    out.push_back(line + ".");
  }
  return out;
}

namespace {

// With other methods than node among the cells, what the timings mean for them; nothing for
// the node method alone (the default report reads as it did).
std::string methods_text(const UpgradeOptions& o) {
  bool kubeadm = false;
  bool replace = false;
  bool stacked = false;
  for (const UpgradeCell& c : o.cells) {
    kubeadm = kubeadm || c.method == UpgradeSpec::Method::kubeadm;
    replace = replace || c.method == UpgradeSpec::Method::replace;
    stacked = stacked || c.store == UpgradeStore::stacked;
  }
  std::string out;
  if (kubeadm) {
    out +=
        " Cells named .../kubeadm upgrade in place in kubeadm's order (kube-apiserver, "
        "kube-controller-manager, kube-scheduler, each static pod waited for until its new "
        "version runs; the start range is the kubelet noticing a manifest), then drain the "
        "node and upgrade its kubelet for the down range.";
  }
  if (replace) {
    out +=
        " Cells named .../replace roll out as Cluster API's KubeadmControlPlane with "
        "maxSurge 1: a new machine joins (provisioned within the down range) and passes "
        "preflight before the oldest old one is drained and deleted; the next waits the gap.";
  }
  if (stacked) {
    out +=
        " Cells named .../stacked-etcd stand on a stacked etcd (a member on every "
        "control-plane node, each kube-apiserver asking only its own node's member): the "
        "member stops with its node and starts first when the node is back (node), or is "
        "upgraded first and waited for until every member answers Status (kubeadm); an "
        "apiserver serves again only once its member has rejoined the quorum.";
  }
  return out;
}

}  // namespace

std::string settings_text(const UpgradeOptions& o) {
  const UpgradeSettings& s = o.settings;
  const UpgradeSpec& u = s.upgrade;
  std::string nodes;
  std::set<int> seen;
  for (const UpgradeCell& c : o.cells) {
    if (seen.insert(c.nodes).second) nodes += (nodes.empty() ? "" : ", ") + std::to_string(c.nodes);
  }
  return "Versions " + s.old_version + " and " + s.new_version + "; " + nodes +
         " control-plane nodes, each running kube-apiserver, kube-controller-manager and "
         "kube-scheduler; nodes upgraded one at a time (" +
         (u.randomOrder ? std::string("random order") : std::string("in order")) +
         "), stopped with " +
         (u.stop == UpgradeSpec::Stop::terminate
              ? "SIGTERM (grace " + format_duration(u.grace) + ")"
              : std::string("a power-off")) +
         ", down for " + u.downtime.describe() + ", components starting within " +
         u.startJitter.describe() + ", next node " + u.gap.describe() + " later" +
         (u.canary.ns > 0 ? ", canary period " + format_duration(u.canary) : std::string()) +
         "; KCM and scheduler elect with leaseDuration " + format_duration(s.leaseDuration) +
         ", renewDeadline " + format_duration(s.renewDeadline) + ", retryPeriod " +
         format_duration(s.retryPeriod) + "; each trial runs " + format_duration(s.settle) +
         " past the last start; " + std::to_string(o.trials) + " trials per cell, seed " +
         std::to_string(o.seed) + "." + methods_text(o);
}

std::string sample_title(const UpgradeResults& r) {
  const UpgradeCell& cell = r.options.cells[r.sample.cell];
  const std::size_t index = r.sample.cell * r.options.trials + r.sample.trial;
  const bool violated = r.trials[index].violated;
  return "Sample trial: " + describe(cell) + ", trial " + std::to_string(r.sample.trial) +
         " (seed " + std::to_string(r.sample.seed) + ")" +
         (violated ? ", the first trial that violated skew" : ", no trial violated skew");
}

}  // namespace hasim
