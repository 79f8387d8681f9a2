// upgrade-skew.html: one self-contained page with the charts (bars with intervals,
// violation-time CDFs, the sample upgrade's timeline).
#include "reports/upgrade_text.hpp"

#include "reports/html.hpp"
#include "reports/svg.hpp"

namespace hasim {
namespace {

// The question, the set-up and what counts as a violation.
void add_introduction(HtmlReport& html, const UpgradeResults& r) {
  html.add_heading(1, "Version skew during node-by-node control-plane upgrades");
  html.add_paragraph(
      "How likely is a node-by-node upgrade or rollback of a highly available Kubernetes "
      "control plane to break the version-skew policy, with plain leases, with Coordinated "
      "Leader Election (KEP-4355), and with a mixed fleet in the middle of migrating? Each "
      "trial simulates one whole upgrade: kube-apiserver, kube-controller-manager and "
      "kube-scheduler on every node, client-go's leader election and, where enabled, the "
      "coordinated election controller, step by step on simulated time. Trials differ only in "
      "their random seed: network latencies, downtimes, start-up jitter and retry jitter.");
  html.add_heading(2, "Set-up");
  html.add_paragraph(settings_text(r.options));
  html.add_paragraph(
      "Modes: lease = every component races for its Lease (client-go's tryAcquireOrRenew, "
      "what clusters run today); coordinated = every component publishes a LeaseCandidate "
      "and waits to be elected by the election controller in kube-apiserver, which picks the "
      "oldest version and can preempt; mixed = the KEP's migration, where instances of the "
      "newer binary are coordinated and instances of the older one still race. Direction: an "
      "upgrade goes from " +
      r.options.settings.old_version + " to " + r.options.settings.new_version +
      ", a rollback back from " + r.options.settings.new_version + " to " +
      r.options.settings.old_version + ". A cell is mode/direction/nodes, e.g. lease/upgrade/3.");
  html.add_paragraph(std::string(kViolation));
}

// The bar chart of probabilities and the CDFs of violation time.
void add_results(HtmlReport& html, const std::vector<UpgradeCellSummary>& cells) {
  html.add_heading(2, "How often does skew break?");
  for (const std::string& line : key_results(cells)) html.add_paragraph(line);
  std::vector<Bar> bars;
  for (const UpgradeCellSummary& s : cells) {
    bars.push_back(Bar{direction_name(s.cell.direction) + "/" + std::to_string(s.cell.nodes),
                       mode_label(s.cell), s.probability, s.interval});
  }
  PlotOptions bar_plot;
  bar_plot.title = "P(at least one skew violation) per upgrade, with 95% Wilson intervals";
  bar_plot.x_label = "direction/nodes";
  bar_plot.y_label = "probability";
  html.add_raw(svg_bar_chart(bars, bar_plot));
  html.add_note(
      "How to read: one group of bars per direction and control-plane size, one bar per "
      "election mode. A bar's height is the fraction of trials in which skew was violated at "
      "least once; the whisker is the 95% Wilson interval, the range of true probabilities "
      "consistent with that many violations in that many trials. Non-overlapping whiskers "
      "mean a real difference; a bar at zero still has an upper whisker.");
  html.add_table(skew_header(), skew_rows(cells));

  html.add_heading(2, "How long does a violation last?");
  for (ElectionMode mode : kUpgradeModes) {
    std::vector<CdfSeries> series;
    for (const UpgradeCellSummary& s : cells) {
      if (s.cell.mode != mode) continue;
      const std::string method = (s.cell.method == UpgradeSpec::Method::node
                                      ? std::string()
                                      : "/" + std::string(to_string(s.cell.method))) +
                                 (s.cell.store == UpgradeStore::ideal ? "" : "/stacked-etcd");
      series.push_back(CdfSeries{direction_name(s.cell.direction) + "/" +
                                     std::to_string(s.cell.nodes) + method + " (" +
                                     std::to_string(s.violating) + " violating)",
                                 "", s.violation_times});
    }
    if (series.empty()) continue;
    PlotOptions plot;
    plot.title = mode_name(mode) + ": total violation time per violating upgrade (CDF)";
    plot.x_label = "seconds with a too-new leader acting";
    plot.y_label = "fraction of violating trials";
    html.add_raw(svg_cdf_plot(series, plot));
  }
  html.add_note(
      "How to read: for each cell, the fraction of violating trials (y) whose violations "
      "added up to at most x seconds. A curve further left means shorter violations. Only "
      "violating trials are included; a cell without violations is marked \"no samples\".");
}

// Write load, then the comparison with the KEP and the uniform-race model.
void add_load_and_comparison(HtmlReport& html, const UpgradeResults& r,
                             const std::vector<UpgradeCellSummary>& cells) {
  html.add_heading(2, "Leader changes and write load");
  html.add_table(election_header(), election_rows(cells));
  html.add_paragraph(
      "KEP-4355 names a risk: \"Amount of writes performed by leader election increases "
      "substantially\", since every instance of every component also renews a "
      "LeaseCandidate. The table counts writes the apiservers accepted on Lease and "
      "LeaseCandidate objects during the upgrade; writes/s divides them by the time the "
      "upgrade took.");
  for (const std::string& line : write_findings(cells)) html.add_paragraph(line);

  html.add_heading(2, "Comparison with KEP-4355");
  html.add_paragraph("The KEP's Motivation says: " + std::string(kKepUpgrade) + " " +
                     std::string(kKepRollback));
  html.add_paragraph(
      "The KEP gives no derivation. Its 25% is exactly what this uniform-race model gives: "
      "the nodes are upgraded one at a time; a step takes a node's apiserver and controllers "
      "down together and brings them back at the new version before the next step; at the "
      "start the leader is on any node with equal probability; a leader on a downed node "
      "loses the lease, which goes uniformly at random to one of the other nodes; nobody "
      "preempts a live leader. For three nodes the lease is on the second node when it is "
      "upgraded with probability 1/2 (it was there, or it moved there from the first node), "
      "and then goes to the already upgraded first node with probability 1/2, while the third "
      "node's old apiserver still serves: 1/4. A rollback violates in every case: as soon as "
      "the first node comes back, its older apiserver serves while the leader runs the newer "
      "version elsewhere. hasim solves the model exactly for any size (reports/uniform_race).");
  html.add_table(comparison_header(), comparison_rows(cells));
  for (const std::string& line : comparison_findings(cells)) html.add_paragraph(line);
  html.add_heading(3, "Why the simulation can differ from the model");
  for (const std::string& line : model_differences(r.options.settings)) html.add_paragraph(line);
}

// The findings, the sample upgrade as a timeline, and the method.
void add_findings_and_sample(HtmlReport& html, const UpgradeResults& r) {
  html.add_heading(2, "Findings");
  for (const std::string& line : upgrade_findings()) html.add_paragraph(line);

  html.add_heading(2, "One upgrade, drawn");
  html.add_paragraph(sample_title(r) + ".");
  if (r.sample.timeline.start < r.sample.timeline.end && !r.sample.timeline.lanes.empty()) {
    PlotOptions plot;
    plot.title = describe(r.options.cells[r.sample.cell]) + ", trial " +
                 std::to_string(r.sample.trial) + ": versions and leaders over time";
    html.add_raw(svg_timeline(r.sample.timeline.lanes, r.sample.timeline.start,
                              r.sample.timeline.end, plot));
    html.add_note(
        "How to read: time runs left to right. Each node's lane shows its kube-apiserver's "
        "version over time, with ticks where the upgrade stopped and started components; "
        "the leader lanes show which node's kube-controller-manager and kube-scheduler acted "
        "as leader, at which version; red marks are no-skew violations. Hover for details.");
  } else {
    html.add_note("The sample trial produced no timeline to draw.");
  }

  html.add_heading(2, "Method");
  html.add_note(
      "Trial t of cell c (cells in the order of the tables) runs with a seed derived from the "
      "base seed and c x trials + t, so any trial can be re-run alone, and a study split into "
      "shards (hasim report upgrade-skew --shard I/N, hasim merge) gives the same bytes as one "
      "run. Probabilities carry 95% Wilson score intervals; quantiles are nearest-rank "
      "(p99 = x: at least 99% of the samples are at most x); means of durations are exact. "
      "Every trial is in upgrade-skew.json. Reproduce: " +
      upgrade_reproduce_command(r.options));
}

}  // namespace

std::string upgrade_html(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  HtmlReport html("hasim: version skew during control-plane upgrades");
  add_introduction(html, r);
  add_results(html, cells);
  add_load_and_comparison(html, r, cells);
  add_findings_and_sample(html, r);
  return html.str();
}

}  // namespace hasim
