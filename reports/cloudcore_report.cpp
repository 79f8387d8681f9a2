// The writers of `hasim report cloudcore`: the per-cell summary, the findings computed from
// it, and the JSON, Markdown, HTML and per-cell CSV. The study itself (flags, cells, trial
// fields) is in cloudcore_study.cpp, the trial in cloudcore_trial.cpp.
#include "reports/cloudcore_report.hpp"

#include <algorithm>
#include <functional>

#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/report_text.hpp"
#include "reports/svg.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

std::string secs(Duration d) { return format_seconds_ms(d); }

using report_text::fraction;
using report_text::sorted;
std::string probability_text(std::uint64_t k, std::uint64_t n) {
  return report_text::probability(k, n);
}
std::string median_text(const std::vector<Duration>& s) { return report_text::median(s); }
std::string tail_text(const std::vector<Duration>& s) { return report_text::tail(s); }
std::string count_text(const std::vector<std::int64_t>& s) { return report_text::count(s); }

std::string column_label(const CloudCoreCell& cell) {
  return std::string(to_string(cell.balancer)) + " " + std::string(cloudcore::to_string(cell.mode));
}

std::vector<const CloudCoreCellResult*> cells_of(const CloudCoreResults& r, CloudCoreFault fault) {
  std::vector<const CloudCoreCellResult*> out;
  for (const CloudCoreCellResult& c : r.cells) {
    if (c.cell.fault == fault) out.push_back(&c);
  }
  return out;
}

// Dual serving is hot standby's question: active-active serves from every replica.
std::string hot_standby_only(const CloudCoreCellResult& c, std::string text) {
  return cloudcore::is_hot_standby(c.cell.mode) ? text : "n/a (active-active)";
}

// One fault's table: a row per figure, a column per cell (load balancer x mode).
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> fault_table(
    const std::vector<const CloudCoreCellResult*>& cells) {
  std::vector<std::string> header{"figure"};
  using Row = std::function<std::string(const CloudCoreCellResult&)>;
  const std::vector<std::pair<std::string, Row>> figures{
      {"trials", [](const auto& c) { return std::to_string(c.trials); }},
      {"served again: median [95% CI]", [](const auto& c) { return median_text(c.served); }},
      {"served again: p90 / max", [](const auto& c) { return tail_text(c.served); }},
      {"not served within the horizon",
       [](const auto& c) { return probability_text(c.not_served, c.trials); }},
      {"converged: median [95% CI]", [](const auto& c) { return median_text(c.converged); }},
      {"converged: p90 / max", [](const auto& c) { return tail_text(c.converged); }},
      {"not converged within the horizon",
       [](const auto& c) { return probability_text(c.not_converged, c.trials); }},
      {"resent per trial: mean [95% CI]", [](const auto& c) { return count_text(c.resent); }},
      {"duplicates per trial: mean [95% CI]",
       [](const auto& c) { return count_text(c.duplicated); }},
      {"given up per trial: mean [95% CI]", [](const auto& c) { return count_text(c.dropped); }},
      {"dual serving (single-serving violated)",
       [](const auto& c) {
         return hot_standby_only(c, probability_text(c.dual_serving, c.trials));
       }},
      {"dual-serving time: median [95% CI]",
       [](const auto& c) { return hot_standby_only(c, median_text(c.dual_serving_time)); }},
      {"dual serving already before the fault",
       [](const auto& c) {
         return hot_standby_only(c, probability_text(c.dual_serving_before, c.trials));
       }},
  };
  for (const CloudCoreCellResult* c : cells) header.push_back(column_label(c->cell));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, value] : figures) {
    std::vector<std::string> row{name};
    for (const CloudCoreCellResult* c : cells) row.push_back(value(*c));
    rows.push_back(std::move(row));
  }
  return {header, rows};
}

std::string hot_standby_story(CloudCoreFault fault, const CloudCoreSettings& s);

std::string fault_story(CloudCoreFault fault, const CloudCoreSettings& s) {
  return hot_standby_story(fault, s) +
         " In active-active (v1.7+) the fault hits the replica holding the most edge sessions; "
         "its edges dial any ready replica, which sends them what its queues and "
         "SyncController hold (cut off from the apiserver, the replica keeps serving its edges "
         "what it knew).";
}

std::string hot_standby_story(CloudCoreFault fault, const CloudCoreSettings& s) {
  switch (fault) {
    case CloudCoreFault::crash:
      return "The leader's CloudCore dies and stays down (its pod deleted; the replacement pod "
             "is not modelled). Its endpoint goes, its edges' sockets close; the standby takes "
             "the lease about 15s after the last renewal and the edges dial again 30s after "
             "the break.";
    case CloudCoreFault::crash_restart:
      return "The leader's container crashes and the kubelet restarts it at once, as a "
             "standby: the kubeedge#2156 pattern. v1.3 never resets the readiness gate "
             "kubeedge.io/CloudCoreIsLeader, so the restarted standby's pod is Ready again; "
             "v1.5 patches the gate False when Run starts.";
    case CloudCoreFault::apiserver_partition:
      return "The leader's node is cut off from the control plane for " + secs(s.partition) +
             " while its edge connections stay up: it loses the lease after RetryPeriod + "
             "RenewDeadline, and its modules serve its edges until it exits (v1.5 first waits "
             "for its False patch to time out).";
    case CloudCoreFault::node_down:
      return "The leader's node powers off for " + secs(s.node_down) +
             " and boots again. Its edges notice only when a write fails; on boot the "
             "CloudCore starts again as a standby (with v1.3's stale gate).";
  }
  return "";
}

std::string settings_line(const CloudCoreResults& r) {
  const CloudCoreOptions& o = r.options;
  return std::to_string(o.trials) + " trials per cell, seed " + std::to_string(o.seed) +
         "; two CloudCores, one control-plane node, " + std::to_string(o.settings.edges) +
         " edge nodes with two pods each (a ConfigMap and a Secret per pod); lognormal latency "
         "(median 1ms, p99 10ms); the fault at a uniform instant in [" +
         secs(Duration{kWarmUp}) + ", " + secs(kWarmUp + kFaultWindow) +
         "); the cloud updates an object every " + secs(kUpdateEvery) + " until " +
         secs(kChangesAfterFault) +
         " after the fault, and deletes a pod, creates one and updates a ConfigMap 3s, 6s and "
         "9s after it; each trial ends " +
         secs(o.settings.horizon) + " after the fault.";
}

const char* const kDefinitions =
    "Served again: from the fault until every edge node holds a connection to the new leader "
    "(the first CloudCore with another identity to start leading after the fault) made after "
    "it started; in active-active, until no edge is left on a session with the faulted replica "
    "from before the fault (one cut off from the apiserver keeps serving: 0). Converged: from "
    "the fault until the last (edge, object) difference between an edge store and the cloud's "
    "wants ended (edge-converges), for trials where none is left at "
    "the horizon. Resent: CloudHub writing a message again for lack of an ACK; duplicates: "
    "MetaManager receiving a version it already holds; given up: a message dropped after its "
    "fifth write (all after the fault). Dual serving: two CloudCores served edge traffic through "
    "the load balancer at one instant, in a window that opened after the fault (single-serving); "
    "already before the fault: a window opened during the warm-up (a start-up race of the "
    "lock, see the findings). Intervals: Wilson for "
    "probabilities, distribution-free for medians, normal for mean counts; quantiles are "
    "nearest-rank.";

}  // namespace

std::vector<CloudCoreCell> CloudCoreOptions::cells() const {
  std::vector<CloudCoreCell> out;
  for (CloudCoreFault fault : faults) {
    for (CloudLoadBalancer balancer : balancers) {
      for (cloudcore::CloudCoreMode mode : modes) {
        // keepalived polls /readyz, which active-active has not (kubeedge#3059).
        if (balancer == CloudLoadBalancer::keepalived && !cloudcore::is_hot_standby(mode)) {
          continue;
        }
        out.push_back({fault, balancer, mode});
      }
    }
  }
  return out;
}

CloudCoreResults summarize_cloudcore(const CloudCoreOptions& options,
                                     const std::vector<CloudCoreTrial>& trials) {
  const std::vector<CloudCoreCell> cells = options.cells();
  HASIM_ASSERT(trials.size() == options.trials * cells.size());
  CloudCoreResults results{options, {}};
  for (const CloudCoreCell& cell : cells) {
    CloudCoreCellResult result;
    result.cell = cell;
    results.cells.push_back(std::move(result));
  }
  for (std::size_t index = 0; index < trials.size(); ++index) {
    CloudCoreCellResult& c = results.cells[index / options.trials];
    const CloudCoreTrial& t = trials[index];
    ++c.trials;
    if (t.served) c.served.push_back(t.served_after);
    if (t.converged) c.converged.push_back(t.converged_after);
    c.not_served += t.served ? 0 : 1;
    c.not_converged += t.converged ? 0 : 1;
    c.dual_serving_before += t.dual_serving_before ? 1 : 0;
    if (t.dual_serving) {
      ++c.dual_serving;
      c.dual_serving_time.push_back(t.dual_serving_time);
    }
    c.resent.push_back(t.resent);
    c.duplicated.push_back(t.duplicated);
    c.dropped.push_back(t.dropped);
  }
  return results;
}

Table cloudcore_cell_table(const CloudCoreResults& r) {
  Table table{{"cell",
               "fault",
               "load_balancer",
               "mode",
               "trials",
               "served",
               "served_p50_ns",
               "served_p90_ns",
               "served_max_ns",
               "not_served",
               "converged",
               "converged_p50_ns",
               "converged_p90_ns",
               "not_converged",
               "resent_mean",
               "duplicated_mean",
               "dropped_mean",
               "dual_serving_trials",
               "dual_serving_ci95_low",
               "dual_serving_ci95_high",
               "dual_serving_before_trials"},
              {}};
  for (const CloudCoreCellResult& c : r.cells) {
    const DurationSummary served = summarize_durations(c.served);
    const DurationSummary converged = summarize_durations(c.converged);
    const Interval dual = wilson_interval(c.dual_serving, c.trials);
    table.rows.push_back({c.cell.name(),
                          std::string(to_string(c.cell.fault)),
                          std::string(to_string(c.cell.balancer)),
                          std::string(cloudcore::to_string(c.cell.mode)),
                          std::to_string(c.trials),
                          std::to_string(served.count),
                          std::to_string(served.p50.ns),
                          std::to_string(served.p90.ns),
                          std::to_string(served.max.ns),
                          std::to_string(c.not_served),
                          std::to_string(converged.count),
                          std::to_string(converged.p50.ns),
                          std::to_string(converged.p90.ns),
                          std::to_string(c.not_converged),
                          format_fixed(summarize_counts(c.resent).mean, 6),
                          format_fixed(summarize_counts(c.duplicated).mean, 6),
                          format_fixed(summarize_counts(c.dropped).mean, 6),
                          std::to_string(c.dual_serving),
                          format_fixed(dual.low, 6),
                          format_fixed(dual.high, 6),
                          std::to_string(c.dual_serving_before)});
  }
  return table;
}

std::string cloudcore_markdown(const CloudCoreResults& r) {
  std::string out = "# KubeEdge CloudCore failover: readiness gate vs keepalived, by mode\n\n";
  out += settings_line(r) + "\n\n## Findings\n\n";
  for (const std::string& finding : cloudcore_findings(r)) out += "- " + finding + "\n";
  for (CloudCoreFault fault : r.options.faults) {
    const auto [header, rows] = fault_table(cells_of(r, fault));
    out += "\n## " + std::string(to_string(fault)) + "\n\n" +
           fault_story(fault, r.options.settings) + "\n\n";
    std::vector<Align> align(header.size(), Align::right);
    align[0] = Align::left;
    out += markdown_table(header, rows, align);
  }
  out += "\n" + std::string(kDefinitions) + "\n";
  return out;
}

std::string cloudcore_html(const CloudCoreResults& r) {
  HtmlReport html("hasim: KubeEdge CloudCore failover");
  html.add_heading(1,
                   "KubeEdge CloudCore failover: readiness gate vs keepalived, hot standby vs "
                   "active-active");
  html.add_paragraph(
      "How long do edge nodes go unserved, and do two CloudCores ever serve at once, when the "
      "hot-standby leader (or, in active-active, the busiest replica) fails? Each trial runs "
      "CloudCore's leader election, its readiness gate or keepalived's VIP, EdgeCore's "
      "reconnects and the delivery with ObjectSync step by step (models/cloudcore), and hits "
      "the leader or replica at a random moment.");
  html.add_paragraph(settings_line(r));
  html.add_heading(2, "Findings");
  for (const std::string& finding : cloudcore_findings(r)) html.add_paragraph(finding);
  std::vector<Bar> bars;
  for (const CloudCoreCellResult& c : r.cells) {
    bars.push_back({std::string(to_string(c.cell.fault)), column_label(c.cell),
                    fraction(c.dual_serving, c.trials), wilson_interval(c.dual_serving, c.trials)});
  }
  PlotOptions bar_plot;
  bar_plot.title = "P(two CloudCores serve at once), by fault";
  html.add_raw(svg_bar_chart(bars, bar_plot));
  for (CloudCoreFault fault : r.options.faults) {
    const std::vector<const CloudCoreCellResult*> cells = cells_of(r, fault);
    html.add_heading(2, std::string(to_string(fault)));
    html.add_paragraph(fault_story(fault, r.options.settings));
    const auto [header, rows] = fault_table(cells);
    html.add_table(header, rows);
    for (const bool served : {true, false}) {
      std::vector<CdfSeries> series;
      for (const CloudCoreCellResult* c : cells) {
        series.push_back({column_label(c->cell), "", sorted(served ? c->served : c->converged)});
      }
      PlotOptions plot;
      plot.title = std::string(served ? "Served again" : "Every edge converged") + " after " +
                   std::string(to_string(fault)) + " (CDF over the trials that got there)";
      plot.x_label = "seconds from the fault";
      plot.y_label = "fraction of trials";
      html.add_raw(svg_cdf_plot(series, plot));
    }
  }
  html.add_note(std::string(kDefinitions) + " Every sample is in cloudcore.json.");
  return html.str();
}

}  // namespace hasim
