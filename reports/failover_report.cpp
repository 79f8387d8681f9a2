#include "reports/failover_report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "hasim_version.hpp"
#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/stats.hpp"
#include "reports/svg.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

std::string secs(Duration d) { return format_seconds_ms(d); }

// What client-go's timing allows after a crash: challengers take over LD after they last saw
// the record change, at their next try (every RP..2.2RP). The last renewal was at most
// RP (+ a round trip) before the fault; a challenger saw it within 2.2RP; its takeover try
// comes within 2.2RP after LD. Hence LD - RP <= unavailable <= LD + 4.4RP (+ latency).
Duration crash_lower_bound(const FailoverSettings& s) { return s.leaseDuration - s.retryPeriod; }
Duration crash_upper_bound(const FailoverSettings& s) {
  return s.leaseDuration + Duration{s.retryPeriod.ns * 22 / 5};
}

std::string fault_story(FailoverFault fault, const FailoverSettings& s) {
  switch (fault) {
    case FailoverFault::crash:
      return "The leader process crashes (the kubelet restarts it at once, as a new identity). "
             "Another candidate takes over once the record it last saw change has not changed "
             "for leaseDuration by its own clock. Expected between LD - RP = " +
             secs(crash_lower_bound(s)) + " and LD + 4.4 RP = " + secs(crash_upper_bound(s)) +
             " plus latency.";
    case FailoverFault::partition:
      return "The leader's node is cut off from the other nodes and from the store for " +
             secs(s.partition) +
             ". The old leader keeps acting until its renew round fails (RenewDeadline), but it "
             "cannot write, so the cluster has no working leader from the partition until a "
             "successor acts; the successor needs LD from the last renewal it saw, as after a "
             "crash. Dual-leader trials here come from kube-scheduler (on the same node): with "
             "ReleaseOnCancel its release() runs before its work context is cancelled, and "
             "release's Get waits out the 5s client timeout, so it acts for up to RP + RD + 5s "
             "= 17s after its last renewal, longer than LD. Harmless (it cannot write), but two "
             "schedulers act at once.";
    case FailoverFault::pause:
      return "The leader process is paused for " + secs(s.pause) +
             " (GC, VM stop). A working leader returns when a successor takes over (after LD) "
             "or when the paused one resumes, whichever is first. A pause longer than LD lets a "
             "successor take over while the old leader still believes it leads: when it "
             "resumes, both act until the old one's renewal fails.";
    case FailoverFault::etcd_leader_crash:
      return "Over a stacked 3-member etcd, the etcd raft leader crashes (the kubelet restarts "
             "it). Measured: the time until writes succeed again, when a member applies the "
             "first entry of a newer term (the new leader's empty entry, which every write "
             "commits behind). The two followers elect a leader once one's election "
             "timeout (1s..2s of 100ms ticks without the leader's heartbeat) runs out and "
             "PreVote and the vote pass; writes then commit again. The crashed member's "
             "kube-apiserver asks only its own member, so its writes wait for the restart.";
    case FailoverFault::etcd_leader_node_down:
      return "Over a stacked 3-member etcd, the node of the etcd raft leader is lost whole (its "
             "member, kube-apiserver, kube-controller-manager and kube-scheduler at once; it "
             "does not come back). Measured as after the crash: the two remaining members "
             "elect a leader, and the surviving kube-apiservers' writes commit again.";
  }
  return "";
}

nlohmann::json summary_json(const DurationSummary& s) {
  return {{"count", s.count},  {"minNs", s.min.ns}, {"meanNs", s.mean.ns}, {"p50Ns", s.p50.ns},
          {"p90Ns", s.p90.ns}, {"p99Ns", s.p99.ns}, {"maxNs", s.max.ns}};
}

std::vector<std::vector<std::string>> table_rows(const FailoverResults& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [fault, cell] : r.cells) {
    const DurationSummary s = summarize_durations(cell.unavailable);
    const Interval dual = wilson_interval(cell.dual_leader, cell.trials);
    const double p = cell.trials == 0
                         ? 0.0
                         : static_cast<double>(cell.dual_leader) / static_cast<double>(cell.trials);
    rows.push_back({std::string(to_string(fault)), std::to_string(cell.trials), secs(s.min),
                    secs(s.mean), secs(s.p50), secs(s.p90), secs(s.p99), secs(s.max),
                    std::to_string(cell.dual_leader) + " (" + format_probability(p) + " " +
                        format_interval(dual) + ")",
                    std::to_string(cell.harmful), std::to_string(cell.not_recovered)});
  }
  return rows;
}

const std::vector<std::string>& table_header() {
  static const std::vector<std::string> header{
      "fault",   "trials",        "min",
      "mean",    "p50",           "p90",
      "p99",     "max",           "dual-leader trials (95% CI)",
      "harmful", "no leader back"};
  return header;
}

std::string settings_line(const FailoverResults& r) {
  const FailoverSettings& s = r.options.settings;
  return "leaseDuration " + format_duration(s.leaseDuration) + ", renewDeadline " +
         format_duration(s.renewDeadline) + ", retryPeriod " + format_duration(s.retryPeriod) +
         "; " + std::to_string(r.options.trials) + " trials per fault, seed " +
         std::to_string(r.options.seed) +
         "; three control-plane nodes, lognormal latency "
         "(median 1ms, p99 10ms), ideal store" +
         (r.options.default_faults() ? std::string()
                                     : " (etcd-* faults: a stacked 3-member etcd instead)") +
         ".";
}

}  // namespace

bool FailoverOptions::default_faults() const {
  return std::equal(faults.begin(), faults.end(), std::begin(kFailoverFaults),
                    std::end(kFailoverFaults));
}

FailoverResults summarize_failover(const FailoverOptions& options,
                                   const std::vector<FailoverTrial>& trials) {
  const std::uint64_t per_fault = options.trials;
  HASIM_ASSERT(trials.size() == per_fault * options.faults.size());
  FailoverResults results;
  results.options = options;
  for (std::uint64_t index = 0; index < trials.size(); ++index) {
    FailoverCell& cell = results.cells[options.faults[index / per_fault]];
    const FailoverTrial& trial = trials[index];
    ++cell.trials;
    if (trial.recovered) {
      cell.unavailable.push_back(trial.unavailable);
    } else {
      ++cell.not_recovered;
    }
    cell.dual_leader += trial.dual_leader ? 1 : 0;
    cell.harmful += trial.harmful ? 1 : 0;
  }
  return results;
}

Table failover_cell_table(const FailoverResults& r) {
  Table table{{"fault", "trials", "recovered", "unavailable_min_ns", "unavailable_mean_ns",
               "unavailable_p50_ns", "unavailable_p90_ns", "unavailable_p99_ns",
               "unavailable_max_ns", "dual_leader_trials", "dual_leader_ci95_low",
               "dual_leader_ci95_high", "harmful_trials", "not_recovered"},
              {}};
  for (const auto& [fault, cell] : r.cells) {
    const DurationSummary s = summarize_durations(cell.unavailable);
    const Interval dual = wilson_interval(cell.dual_leader, cell.trials);
    table.rows.push_back(
        {std::string(to_string(fault)), std::to_string(cell.trials), std::to_string(s.count),
         std::to_string(s.min.ns), std::to_string(s.mean.ns), std::to_string(s.p50.ns),
         std::to_string(s.p90.ns), std::to_string(s.p99.ns), std::to_string(s.max.ns),
         std::to_string(cell.dual_leader), format_fixed(dual.low, 6), format_fixed(dual.high, 6),
         std::to_string(cell.harmful), std::to_string(cell.not_recovered)});
  }
  return table;
}

std::string failover_json(const FailoverResults& r) {
  const FailoverSettings& s = r.options.settings;
  nlohmann::json doc;
  doc["report"] = "failover";
  doc["formatVersion"] = 1;
  doc["hasimVersion"] = kVersion;
  doc["seed"] = r.options.seed;
  doc["trialsPerFault"] = r.options.trials;
  doc["settings"] = {{"leaseDurationNs", s.leaseDuration.ns},
                     {"renewDeadlineNs", s.renewDeadline.ns},
                     {"retryPeriodNs", s.retryPeriod.ns},
                     {"pauseNs", s.pause.ns},
                     {"partitionNs", s.partition.ns}};
  doc["crashBoundsNs"] = {crash_lower_bound(s).ns, crash_upper_bound(s).ns};
  for (const auto& [fault, cell] : r.cells) {
    std::vector<std::int64_t> samples;
    for (Duration d : cell.unavailable) samples.push_back(d.ns);
    const Interval dual = wilson_interval(cell.dual_leader, cell.trials);
    doc["faults"][std::string(to_string(fault))] = {
        {"trials", cell.trials},
        {"notRecovered", cell.not_recovered},
        {"dualLeaderTrials", cell.dual_leader},
        {"dualLeaderInterval95", {dual.low, dual.high}},
        {"harmfulTrials", cell.harmful},
        {"unavailable", summary_json(summarize_durations(cell.unavailable))},
        {"unavailableSamplesNs", samples}};
  }
  return doc.dump(2) + "\n";
}

std::string failover_markdown(const FailoverResults& r) {
  std::string out = "# Leader failover: time without a working leader\n\n";
  out += settings_line(r) + "\n\n";
  out += markdown_table(table_header(), table_rows(r)) + "\n";
  for (FailoverFault fault : r.options.faults) {
    out += "- **" + std::string(to_string(fault)) +
           "**: " + fault_story(fault, r.options.settings) + "\n";
  }
  out +=
      "\nDual-leader trials: two processes acted as kube-controller-manager or "
      "kube-scheduler leader at one instant (property single-leader); harmful: both had "
      "writes accepted by an apiserver during the overlap. Intervals are 95% Wilson "
      "intervals. Quantiles are nearest-rank.\n";
  return out;
}

std::string failover_html(const FailoverResults& r) {
  HtmlReport html("hasim: leader failover");
  html.add_heading(1, "Leader failover: time without a working leader");
  html.add_paragraph(
      "How long does a Kubernetes control plane go without a working kube-controller-manager "
      "leader when the leader crashes, is cut off, or pauses? Each trial simulates client-go's "
      "lease-based leader election step by step and hits the leader at a random moment.");
  html.add_paragraph(settings_line(r));
  html.add_table(table_header(), table_rows(r));
  std::vector<CdfSeries> series;
  for (const auto& [fault, cell] : r.cells) {
    std::vector<Duration> sorted = cell.unavailable;
    std::sort(sorted.begin(), sorted.end());
    series.push_back(CdfSeries{std::string(to_string(fault)), "", std::move(sorted)});
  }
  PlotOptions plot;
  plot.title = "Time without a working leader (CDF over trials)";
  plot.x_label = "seconds from the fault";
  plot.y_label = "fraction of trials";
  html.add_raw(svg_cdf_plot(series, plot));
  for (FailoverFault fault : r.options.faults) {
    html.add_heading(2, std::string(to_string(fault)));
    html.add_paragraph(fault_story(fault, r.options.settings));
  }
  html.add_note(
      "Dual-leader trials: two processes acted as leader of one lease at the same instant "
      "(single-leader), counted over both leases; harmful: both had writes accepted by an "
      "apiserver during the overlap. Intervals are 95% Wilson intervals; quantiles are "
      "nearest-rank. Every sample is in failover.json.");
  return html.str();
}

}  // namespace hasim
