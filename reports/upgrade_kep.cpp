// The upgrade-skew study set against KEP-4355's figures and the uniform-race model they
// imply (reports/uniform_race): the comparison table and the sentences about it.
#include "reports/upgrade_text.hpp"

#include "sim/assert.hpp"

namespace hasim {

static_assert(kUpgradeMinNodes >= kUniformRaceMinNodes && kUpgradeMaxNodes <= kUniformRaceMaxNodes,
              "every study size has its uniform-race value");

bool model_covers(int nodes) {
  return nodes >= kUniformRaceMinNodes && nodes <= kUniformRaceMaxNodes;
}

namespace {

std::string kep_figure(const UpgradeCell& cell) {
  if (cell.mode == ElectionMode::coordinated) return "goal: never";
  if (cell.mode == ElectionMode::mixed) return "no worse than leases";
  if (cell.direction == UpgradeDirection::rollback) return "almost certain";
  return cell.nodes == 3 ? "about 25%" : "(3 nodes only)";
}

std::string model_text(Fraction f) { return f.str() + " = " + format_probability(f.value()); }

// Where a model value sits relative to the simulated 95% interval.
std::string versus(double model, const Interval& interval) {
  if (model < interval.low) return "below the simulated interval";
  if (model > interval.high) return "above the simulated interval";
  return "inside the simulated interval";
}

// Two estimates compared by their 95% intervals: only disjoint intervals count as a
// difference (a conservative test, fine for a summary sentence).
std::string compared(const Interval& a, const Interval& b) {
  if (a.low > b.high) return "higher (the 95% intervals do not overlap)";
  if (a.high < b.low) return "lower (the 95% intervals do not overlap)";
  return "not clearly different (the 95% intervals overlap)";
}

// A stacked-etcd cell against the same cell over the ideal store, when the study has it.
std::string versus_ideal_store(const std::vector<UpgradeCellSummary>& cells,
                               const UpgradeCellSummary& s) {
  HASIM_ASSERT(s.cell.store == UpgradeStore::stacked);
  const UpgradeCellSummary* ideal = find_summary(cells, s.cell.mode, s.cell.direction, s.cell.nodes,
                                                 s.cell.method, UpgradeStore::ideal);
  if (ideal == nullptr) return "";
  return " Over the ideal store: " + probability_text(*ideal) + ", " + times_text(*ideal) +
         "; the probability is " + compared(s.interval, ideal->interval) + ".";
}

}  // namespace

// One sentence per cell, every claim computed from the data.
std::vector<std::string> comparison_findings(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::string> out;
  for (const UpgradeCellSummary& s : cells) {
    const std::string name = describe(s.cell);
    std::string line = name + ": " + std::to_string(s.violating) + " of " +
                       std::to_string(s.trials) + " trials violated skew, " + probability_text(s) +
                       ".";
    if (s.cell.mode == ElectionMode::lease && model_covers(s.cell.nodes)) {
      const UniformRaceResult m = uniform_race(s.cell.nodes, s.cell.direction);
      if (s.cell.direction == UpgradeDirection::upgrade) {
        line += " The uniform race gives " + model_text(m.two_leases) +
                " for two independent leases (" + versus(m.two_leases.value(), s.interval) +
                "). The kube-controller-manager lease alone violated in " +
                std::to_string(s.kcm_violating) + " trials, " +
                format_probability(static_cast<double>(s.kcm_violating) /
                                   static_cast<double>(s.trials)) +
                " " + format_interval(s.kcm_interval) + ", against " + model_text(m.one_lease) +
                " for one lease (" + versus(m.one_lease.value(), s.kcm_interval) + ").";
        if (s.cell.nodes == 3) line += " The KEP says about 25% for one controller.";
      } else {
        line +=
            " The uniform race gives 1 (certain), as the KEP says (\"almost a "
            "certainty\"); that is " +
            versus(1.0, s.interval) + ".";
      }
    } else if (s.cell.mode != ElectionMode::lease) {
      const UpgradeCellSummary* lease = find_summary(cells, ElectionMode::lease, s.cell.direction,
                                                     s.cell.nodes, s.cell.method, s.cell.store);
      const std::string goal = s.cell.mode == ElectionMode::coordinated
                                   ? "The KEP's goal (no violation)"
                                   : "No violation";
      if (s.violating == 0) {
        line += " " + goal + " held in every trial; the 95% upper bound is " +
                format_probability(s.interval.high) + ".";
      } else if (s.cell.mode == ElectionMode::coordinated) {
        line += " The KEP's goal is no violation; violations lasted " + times_text(s) + ".";
      } else {
        line += " Violations lasted " + times_text(s) + ".";
      }
      if (lease != nullptr) {
        line += " With plain leases: " + probability_text(*lease) + ", " + times_text(*lease) +
                "; the probability is " + compared(s.interval, lease->interval) + ".";
        if (s.cell.mode == ElectionMode::mixed) {
          line += " The KEP (Migrations) expects a mixed fleet to be no worse than leases.";
        }
        if (lease->violating > 0 && s.violating > 0 && lease->violation_time.mean.ns > 0) {
          const double ratio = static_cast<double>(s.violation_time.mean.ns) /
                               static_cast<double>(lease->violation_time.mean.ns);
          line += " Mean violation time is " + fixed(ratio * 100, 1) + "% of the lease value.";
        }
      }
    }
    if (s.cell.store == UpgradeStore::stacked) line += versus_ideal_store(cells, s);
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> comparison_header() {
  return {"cell",
          "KEP-4355",
          "uniform race, one lease",
          "simulated, KCM lease [95% CI]",
          "uniform race, two leases",
          "simulated, either lease [95% CI]"};
}

std::vector<std::vector<std::string>> comparison_rows(
    const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::vector<std::string>> rows;
  for (const UpgradeCellSummary& s : cells) {
    std::string one = "-", two = "-";
    if (s.cell.mode == ElectionMode::coordinated) {
      one = two = "0 (by design)";
    } else if (s.cell.mode == ElectionMode::lease && model_covers(s.cell.nodes)) {
      const UniformRaceResult m = uniform_race(s.cell.nodes, s.cell.direction);
      one = model_text(m.one_lease);
      two = model_text(m.two_leases);
    }
    const std::string kcm =
        format_probability(s.trials == 0 ? 0.0
                                         : static_cast<double>(s.kcm_violating) /
                                               static_cast<double>(s.trials)) +
        " " + format_interval(s.kcm_interval);
    rows.push_back({describe(s.cell), kep_figure(s.cell), one, kcm, two, probability_text(s)});
  }
  return rows;
}

// Write load (KEP "Risk: Amount of writes performed by leader election increases

// Why the simulation and the model may differ. These are facts about the two models (what
// each one includes), not conclusions: the findings above say what the data shows.
std::vector<std::string> model_differences(const UpgradeSettings& s) {
  const bool terminate = s.upgrade.stop == UpgradeSpec::Stop::terminate;
  return {
      "Two leases. The KEP's figure is about one controller; the study counts a trial as "
      "violating if the kube-controller-manager or the kube-scheduler lease violates. For "
      "independent leases the model gives 1 - (1 - p)^2; leaders that tend to sit on the same "
      "node move together and bring the figure toward the one-lease value.",
      "The race is not uniform. When a lease expires it goes to whichever candidate tries "
      "first after the expiry by its own clock: each candidate retries at a random moment "
      "between retryPeriod and 2.2 x retryPeriod (" +
          format_duration(s.retryPeriod) +
          ", JitterFactor 1.2) after its previous try, and "
          "judges expiry from when it last saw the record change, so candidates that came up "
          "at different times are not equally placed.",
      std::string("Release on stop. ") +
          (terminate ? "Nodes are stopped with SIGTERM (grace " + format_duration(s.upgrade.grace) +
                           "): kube-scheduler runs with ReleaseOnCancel and gives its lease up at "
                           "once, so a successor acquires it within about one retryPeriod; "
                           "kube-controller-manager does not release, so its lease lingers for up "
                           "to leaseDuration (" +
                           format_duration(s.leaseDuration) + ")."
                     : "Nodes are powered off: no lease is released, every lease lingers until it "
                       "expires (leaseDuration " +
                           format_duration(s.leaseDuration) + ")."),
      "Time. The model's steps are instantaneous and strictly one after another. In the "
      "simulation a node is down for " +
          s.upgrade.downtime.describe() + ", its components start with a jitter of " +
          s.upgrade.startJitter.describe() + ", and the next node stops " +
          s.upgrade.gap.describe() +
          " after the last component started; a violation has a duration, which the model "
          "cannot express.",
      "The starting leader. The model starts with the leader uniform over the nodes; the "
      "simulation starts with whoever won the start-up race.",
      "Coordinated Leader Election. The election controller in kube-apiserver picks the "
      "candidate with the oldest version, but it preempts a newer leader only by marking the "
      "end of its term (preferredHolder), and only once the older candidate's LeaseCandidate "
      "exists and has answered a ping (within 5s). The marked leader then refuses to renew "
      "and stops acting when its renew loop gives up, after renewDeadline (" +
          format_duration(s.renewDeadline) +
          "). In a rollback the first node's older kube-apiserver serves before all this has "
          "happened, so a window of roughly renewDeadline plus the ping round remains: the "
          "findings above show how often and how long.",
      "Mixed fleet. Instances of the newer binary elect through the coordinator, instances of "
      "the older one race for the same Lease with plain leases (the KEP's Migrations "
      "section). A lease-based holder ignores preferredHolder, so the coordinator cannot "
      "preempt it and elects only when the Lease is free or expired; whichever kind of "
      "elector gets there first decides a step.",
  };
}

}  // namespace hasim
