// The writers of `hasim report etcd-ha`: the per-cell summary, the findings and the seed's
// claims computed from it, and the Markdown, HTML and per-cell CSV (the JSON is
// etcd_ha_json.cpp). The study itself (flags, cells, trial fields) is in etcd_ha_study.cpp,
// the trial in etcd_ha_trial.cpp.
#include "reports/etcd_ha_report.hpp"

#include <functional>

#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/report_text.hpp"
#include "reports/svg.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

namespace text = report_text;

// Trials of several cells pooled: those where a cell matches.
struct Pool {
  std::uint64_t trials = 0, quorum_lost = 0, loss = 0, operator_needed = 0, not_recovered = 0;
  std::vector<Duration> recovery;
};

Pool pool(const EtcdHaResults& r, const std::function<bool(const EtcdHaCell&)>& in) {
  Pool p;
  for (const EtcdHaCellResult& c : r.cells) {
    if (!in(c.cell)) continue;
    p.trials += c.trials;
    p.quorum_lost += c.quorum_lost;
    p.loss += c.loss;
    p.operator_needed += c.operator_needed;
    p.not_recovered += c.not_recovered;
    p.recovery.insert(p.recovery.end(), c.recovery.begin(), c.recovery.end());
  }
  return p;
}

bool separated(std::uint64_t k1, std::uint64_t n1, std::uint64_t k2, std::uint64_t n2) {
  const Interval a = wilson_interval(k1, n1);
  const Interval b = wilson_interval(k2, n2);
  return a.high < b.low || b.high < a.low;
}

// "P(writes lost): ephemeral 12/400 (3.0% [...]) vs persistent 2/400 (...); the intervals are
// apart" for one dimension, pooled over the others.
std::string compare(const EtcdHaResults& r, const std::string& figure, std::uint64_t Pool::*field,
                    const std::string& a_name, const std::function<bool(const EtcdHaCell&)>& a,
                    const std::string& b_name, const std::function<bool(const EtcdHaCell&)>& b) {
  const Pool pa = pool(r, a);
  const Pool pb = pool(r, b);
  if (pa.trials == 0 || pb.trials == 0) return "";
  return figure + ": " + a_name + " " + text::probability(pa.*field, pa.trials) + " vs " + b_name +
         " " + text::probability(pb.*field, pb.trials) + " (pooled over the other " +
         "dimensions; the 95% intervals " +
         (separated(pa.*field, pa.trials, pb.*field, pb.trials) ? "are apart" : "overlap") + ").";
}

std::string settings_line(const EtcdHaResults& r) {
  const EtcdHaSettings& s = r.options.settings;
  return std::to_string(r.options.trials) + " trials per cell, seed " +
         std::to_string(r.options.seed) + "; each trial " + format_duration(s.window) +
         " of an Etcd under etcd-druid (deltas every 5m, " + std::to_string(s.writeRate) +
         " client writes/s, druid and the object store outside the workers' zones, one spare "
         "worker per zone); faults at uniform instants from " +
         format_duration(kEtcdHaWarmUp) + " to " + format_duration(kEtcdHaSettle) +
         " before the end, a Poisson number of each: " + format_fixed(s.nodeFailures, 2) +
         " worker power-offs (" + format_duration(s.nodeDown) + "), " +
         format_fixed(s.zoneOutages, 2) + " zone outages (" + format_duration(s.zoneDown) + "), " +
         format_fixed(s.volumeLosses, 2) + " member data losses, " +
         format_fixed(s.storeOutages, 2) + " backup-store outages (" +
         format_duration(s.storeDown) + "), " + format_fixed(s.podDeletions, 2) +
         " pod deletions per trial; upstream's operator runs the quorum-loss runbook once Ready "
         "has been False for " +
         format_duration(s.operatorAfter) + ".";
}

const char* const kDefinitions =
    "Quorum lost: the client's writes failed for 30 s or more in a row (from the first failed "
    "put after a success to the next success; a leader election takes about a second). Not "
    "recovered: writes still failing at the window's end. Operator needed: upstream's runbook "
    "ran, or writes still failed at the end. Writes lost: a restore (the runbook's, the "
    "proposal's case 10, a single member's) came back at a revision below the highest one "
    "acknowledged; revisions lost is the difference. Not permitted: no-lost-write says the loss "
    "was avoidable (a quorum kept its data, or the restore missed backups). Recovery: the "
    "longest write outage of each quorum-loss trial. Intervals: Wilson for probabilities, "
    "distribution-free for medians, normal for mean counts; quantiles are nearest-rank.";

// The cells side by side: a row per cell, a column per figure.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> cells_table(
    const EtcdHaResults& r) {
  std::vector<std::string> header{"cell",
                                  "quorum lost",
                                  "not recovered",
                                  "operator needed",
                                  "writes lost",
                                  "not permitted",
                                  "revisions lost: mean [95% CI], p90",
                                  "recovery: median [95% CI]",
                                  "recovery: p90 / max",
                                  "write unavailability: median"};
  std::vector<std::vector<std::string>> rows;
  for (const EtcdHaCellResult& c : r.cells) {
    rows.push_back(
        {c.cell.name(), text::probability(c.quorum_lost, c.trials),
         text::probability(c.not_recovered, c.trials),
         text::probability(c.operator_needed, c.trials), text::probability(c.loss, c.trials),
         text::probability(c.loss_not_permitted, c.trials), text::count(c.revisions_lost),
         text::median(c.recovery), text::tail(c.recovery), text::median(c.unavailable)});
  }
  return {header, rows};
}

}  // namespace

EtcdHaResults summarize_etcd_ha(const EtcdHaOptions& options,
                                const std::vector<EtcdHaTrial>& trials) {
  const std::vector<EtcdHaCell> cells = options.cells();
  HASIM_ASSERT(trials.size() == options.trials * cells.size());
  EtcdHaResults results{options, {}};
  for (const EtcdHaCell& cell : cells) {
    EtcdHaCellResult result;
    result.cell = cell;
    results.cells.push_back(std::move(result));
  }
  for (std::size_t index = 0; index < trials.size(); ++index) {
    EtcdHaCellResult& c = results.cells[index / options.trials];
    const EtcdHaTrial& t = trials[index];
    ++c.trials;
    c.quorum_lost += t.quorum_lost ? 1 : 0;
    c.not_recovered += t.recovered ? 0 : 1;
    c.operator_needed += t.manual || !t.recovered ? 1 : 0;
    c.loss += t.revisions_lost > 0 ? 1 : 0;
    c.loss_not_permitted += t.loss_not_permitted ? 1 : 0;
    const bool loss = t.revisions_lost > 0;
    c.loss_minority_volumes += loss && 2 * t.volumes_lost <= c.cell.members ? 1 : 0;
    c.loss_of_quorum_lost += loss && t.quorum_lost ? 1 : 0;
    c.operator_of_quorum_lost += t.quorum_lost && (t.manual || !t.recovered) ? 1 : 0;
    c.revisions_lost.push_back(t.revisions_lost);
    if (t.quorum_lost) c.recovery.push_back(t.longest_outage);
    c.unavailable.push_back(t.unavailable);
  }
  return results;
}

std::vector<std::string> etcd_ha_findings(const EtcdHaResults& r) {
  using C = EtcdHaCell;
  const auto persistent = [](const C& c) { return c.storage == DruidStorage::persistent; };
  const auto ephemeral = [](const C& c) { return c.storage == DruidStorage::emptyDir; };
  const auto upstream = [](const C& c) { return c.mode == druid::DruidMode::upstream; };
  const auto proposal = [](const C& c) { return c.mode == druid::DruidMode::proposal; };
  const auto three = [](const C& c) { return c.members == 3; };
  const auto five = [](const C& c) { return c.members == 5; };
  const auto one_zone = [](const C& c) { return c.zones == 1; };
  const auto three_zones = [](const C& c) { return c.zones == 3; };
  std::vector<std::string> out{
      compare(r, "P(acknowledged writes lost)", &Pool::loss, "ephemeral", ephemeral, "persistent",
              persistent),
      compare(r, "P(quorum lost)", &Pool::quorum_lost, "ephemeral", ephemeral, "persistent",
              persistent),
      compare(r, "P(operator needed)", &Pool::operator_needed, "upstream", upstream, "proposal",
              proposal),
      compare(r, "P(acknowledged writes lost)", &Pool::loss, "proposal", proposal, "upstream",
              upstream),
      compare(r, "P(quorum lost)", &Pool::quorum_lost, "3 members", three, "5 members", five),
      compare(r, "P(quorum lost)", &Pool::quorum_lost, "1 zone", one_zone, "3 zones", three_zones)};
  std::erase_if(out, [](const std::string& s) { return s.empty(); });
  return out;
}

std::vector<std::string> etcd_ha_claims(const EtcdHaResults& r) {
  // p: persistent trials, with writes lost, of those with at most half the data lost;
  // quorum losses with writes lost, persistent (q) and ephemeral (e); quorum losses that
  // needed an operator, upstream (u) and proposal (o).
  std::uint64_t pt = 0, pl = 0, pm = 0, eq = 0, el = 0, qq = 0, ql = 0;
  std::uint64_t uq = 0, uo = 0, oq = 0, oo = 0;
  for (const EtcdHaCellResult& c : r.cells) {
    const bool persistent = c.cell.storage == DruidStorage::persistent;
    if (persistent) {
      pt += c.trials;
      pl += c.loss;
      pm += c.loss_minority_volumes;
      qq += c.quorum_lost;
      ql += c.loss_of_quorum_lost;
    } else {
      eq += c.quorum_lost;
      el += c.loss_of_quorum_lost;
    }
    const bool upstream = c.cell.mode == druid::DruidMode::upstream;
    (upstream ? uq : oq) += c.quorum_lost;
    (upstream ? uo : oo) += c.operator_of_quorum_lost;
  }
  std::vector<std::string> out;
  if (pt > 0) {
    out.push_back(
        "\"With persistent storage, additional data loss needs a majority of the members to lose "
        "their volumes\" (together with a backup failure): " +
        std::to_string(pl) + " of " + std::to_string(pt) +
        " persistent trials lost acknowledged writes, " + std::to_string(pm) +
        " of them with at most half the members' data lost. " +
        (pm == 0 ? "Supported by these figures."
                 : "Not supported: a restore that loses writes also comes from an outage alone "
                   "(the proposal's case 10, or an operator's runbook after a long one)."));
  }
  if (qq > 0 && eq > 0) {
    out.push_back(
        "\"With ephemeral storage, a quorum loss suffices\" for data loss: writes were "
        "lost in " +
        text::probability(el, eq) + " of ephemeral quorum losses against " +
        text::probability(ql, qq) + " of persistent ones.");
  }
  if (uq > 0 && oq > 0) {
    out.push_back(
        "\"Automatically recover from failures (even quorum loss)\": an operator was "
        "needed in " +
        text::probability(oo, oq) +
        " of the proposal's quorum losses "
        "against " +
        text::probability(uo, uq) +
        " of upstream's (where the on-call "
        "operator runs the runbook).");
  }
  return out;
}

std::string etcd_ha_markdown(const EtcdHaResults& r) {
  std::string out = "# etcd under etcd-druid: quorum loss, recovery and lost writes\n\n";
  out += settings_line(r) + "\n\n## Findings\n\n";
  for (const std::string& finding : etcd_ha_findings(r)) out += "- " + finding + "\n";
  out += "\n## The seed's claims\n\n";
  for (const std::string& claim : etcd_ha_claims(r)) out += "- " + claim + "\n";
  const auto [header, rows] = cells_table(r);
  std::vector<Align> align(header.size(), Align::right);
  align[0] = Align::left;
  out += "\n## Cells (storage/mode/members/zones)\n\n" + markdown_table(header, rows, align);
  out += "\n" + std::string(kDefinitions) + "\n";
  return out;
}

std::string etcd_ha_html(const EtcdHaResults& r) {
  HtmlReport html("hasim: etcd under etcd-druid");
  html.add_heading(1, "etcd under etcd-druid: quorum loss, recovery and lost writes");
  html.add_paragraph(
      "How often does a druid-managed etcd lose its quorum or acknowledged writes, how long "
      "until writes succeed again, and how often must an operator step in, with persistent or "
      "ephemeral volumes, etcd-druid as shipped or as the seed proposes, 3 or 5 members, 1 or "
      "3 zones? Each trial runs etcd's raft members, etcd-druid and etcd-backup-restore step by "
      "step (models/druid) under faults drawn for it.");
  html.add_paragraph(settings_line(r));
  html.add_heading(2, "Findings");
  for (const std::string& finding : etcd_ha_findings(r)) html.add_paragraph(finding);
  html.add_heading(2, "The seed's claims");
  for (const std::string& claim : etcd_ha_claims(r)) html.add_paragraph(claim);
  std::vector<Bar> bars;
  for (const EtcdHaCellResult& c : r.cells) {
    const std::string label = std::to_string(c.cell.members) + "/" + std::to_string(c.cell.zones);
    const std::string group =
        std::string(to_string(c.cell.storage)) + " " + std::string(to_string(c.cell.mode));
    bars.push_back(
        {label, group, text::fraction(c.loss, c.trials), wilson_interval(c.loss, c.trials)});
  }
  PlotOptions bar_plot;
  bar_plot.title = "P(acknowledged writes lost), by members/zones";
  html.add_raw(svg_bar_chart(bars, bar_plot));
  std::vector<CdfSeries> series;
  for (const EtcdHaCellResult& c : r.cells) {
    series.push_back({c.cell.name(), "", text::sorted(c.recovery)});
  }
  PlotOptions plot;
  plot.title = "Time until writes succeed again (CDF over the quorum-loss trials)";
  plot.x_label = "seconds of write outage";
  plot.y_label = "fraction of trials";
  html.add_raw(svg_cdf_plot(series, plot));
  const auto [header, rows] = cells_table(r);
  html.add_table(header, rows);
  html.add_note(std::string(kDefinitions) + " Every sample is in etcd-ha.json.");
  return html.str();
}

Table etcd_ha_cell_table(const EtcdHaResults& r) {
  Table table{{"cell", "storage", "mode", "members", "zones", "trials", "quorum_lost",
               "not_recovered", "operator_needed", "loss_trials", "loss_not_permitted",
               "revisions_lost_mean", "recovery_p50_ns", "recovery_p90_ns", "unavailable_mean_ns"},
              {}};
  for (const EtcdHaCellResult& c : r.cells) {
    const DurationSummary recovery = summarize_durations(c.recovery);
    const DurationSummary unavailable = summarize_durations(c.unavailable);
    table.rows.push_back(
        {c.cell.name(), std::string(to_string(c.cell.storage)), std::string(to_string(c.cell.mode)),
         std::to_string(c.cell.members), std::to_string(c.cell.zones), std::to_string(c.trials),
         std::to_string(c.quorum_lost), std::to_string(c.not_recovered),
         std::to_string(c.operator_needed), std::to_string(c.loss),
         std::to_string(c.loss_not_permitted),
         format_fixed(summarize_counts(c.revisions_lost).mean, 3), std::to_string(recovery.p50.ns),
         std::to_string(recovery.p90.ns), std::to_string(unavailable.mean.ns)});
  }
  return table;
}

}  // namespace hasim
