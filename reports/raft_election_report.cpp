#include "reports/raft_election_report.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hasim_version.hpp"
#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/svg.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

std::string ms(Duration d) { return format_fixed(static_cast<double>(d.ns) / 1e6, 1) + " ms"; }

const RaftElectionLine* find_line(const RaftElectionResults& r, std::string_view name) {
  for (const RaftElectionLine& line : r.lines) {
    if (line.cell.name == name) return &line;
  }
  return nullptr;
}

// |hasim / paper - 1| <= tolerance.
bool within(Duration hasim, Duration paper, double tolerance) {
  const double ratio = static_cast<double>(hasim.ns) / static_cast<double>(paper.ns);
  return std::fabs(ratio - 1.0) <= tolerance;
}

std::string setup_text(const RaftElectionResults& r) {
  return "Paper lines: 5 members of etcd raft in paper mode (timeouts uniform in [A, B] ms, "
         "heartbeats every A/2, no PreVote or CheckQuorum, each member ticking every 0.5 ms at "
         "its own random phase, a candidate's RequestVotes sent while its vote is written, " +
         (r.options.timerRule == "paper"
              ? std::string("the paper's timer rule: a new term alone leaves the timer running")
              : std::string("etcd raft's timer rule: every new term restarts the timer")) +
         "); "
         "one-way latency uniform in [1, 1.2] ms and a 12.5 ms WAL fsync, so a broadcast (to "
         "all four and back, each voter writing its vote) takes " +
         ms(r.broadcast.mean) + " on average (p99 " + ms(r.broadcast.p99) +
         "; the paper: about 15 ms); two of the four survivors one entry short (ineligible); "
         "the leader crashed at a uniform instant within the heartbeat interval after its "
         "last heartbeat broadcast; time from the crash to the first member becoming leader, "
         "trials stopped at 10 s. Etcd lines: etcd's defaults (100 ms heartbeat, 1 s election "
         "timeout, CheckQuorum), 50-150 us one-way latency, 2 ms fsync. " +
         std::to_string(r.options.trials) + " trials per line (" +
         std::to_string((r.options.trials + 9) / 10) + " for 150-150), seed " +
         std::to_string(r.options.seed) + ".";
}

const std::vector<std::string>& line_header() {
  static const std::vector<std::string> h{
      "line", "trials", "over horizon",       "min",         "mean", "p50", "p90",
      "p99",  "max",    "terms per election", "unequal logs"};
  return h;
}

std::vector<std::vector<std::string>> line_rows(const RaftElectionResults& r, bool paper) {
  std::vector<std::vector<std::string>> rows;
  for (const RaftElectionLine& l : r.lines) {
    if (l.cell.paper != paper) continue;
    const DurationSummary& s = l.summary;
    const bool any = s.count > 0;
    rows.push_back({l.cell.name + (paper ? " ms" : ""), std::to_string(l.ran),
                    std::to_string(l.over), any ? ms(s.min) : "-", any ? ms(s.mean) : "-",
                    any ? ms(s.p50) : "-", any ? ms(s.p90) : "-", any ? ms(s.p99) : "-",
                    any ? ms(s.max) : "-", format_fixed(l.mean_terms, 2),
                    std::to_string(l.unequal) + "/" + std::to_string(l.ran)});
  }
  return rows;
}

std::vector<std::vector<std::string>> comparison_rows(const RaftElectionResults& r) {
  std::vector<std::vector<std::string>> rows;
  for (const PaperComparison& c : compare_with_paper(r)) {
    rows.push_back({c.claim, c.paper, c.hasim, c.tolerance, c.agrees ? "yes" : "no"});
  }
  return rows;
}
const std::vector<std::string> kComparisonHeader{"the paper's claim", "paper", "hasim", "tolerance",
                                                 "agrees"};

std::string differences_text() {
  return "What differs from the paper. (1) etcd raft restarts a member's election timer when "
         "it adopts a higher term (becomeFollower -> reset), even when it rejects the vote; "
         "the paper's Figure 2 and LogCabin restart it only on a heartbeat or a granted vote. "
         "So when an ineligible member (half of the first timeouts here) times out first, "
         "every survivor restarts its timer and the election costs one more timeout, where "
         "the paper's eligible members still time out on schedule: hasim's medians come out "
         "near the paper's but its tails (150-200's worst, 12-24's mean and longest) are "
         "longer. With the paper's rule (a local experiment, see the README) the tails match "
         "and the medians are shorter. (2) Timeouts are whole ticks (0.5 ms) with a random "
         "phase per member: a member's timeout after a heartbeat is uniform in [A - 0.5 ms, "
         "B) rather than [A, B]. (3) The network and disk are a model chosen to give a 15 ms "
         "broadcast and a one-millisecond RequestVote, not the paper's cluster. (4) In 12-24 "
         "a voter restarts its timer on the RequestVote and must hear the new leader within "
         "its timeout, about one broadcast later: some elections are undone by a voter's "
         "timeout (the paper's 'timing requirement'), and the unequal-logs set-up is "
         "sometimes overtaken by a leader change before the crash (the 'unequal logs' "
         "column).";
}

}  // namespace

RaftElectionResults summarize_raft_election(const RaftElectionOptions& options,
                                            const std::vector<RaftElectionTrial>& trials) {
  const std::vector<RaftElectionCell>& cells = raft_election_cells();
  HASIM_ASSERT(trials.size() == options.trials * cells.size());
  RaftElectionResults r;
  r.options = options;
  r.broadcast = paper_broadcast_time(100'000);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    RaftElectionLine line;
    line.cell = cells[c];
    std::int64_t terms = 0;
    for (std::uint64_t t = 0; t < options.trials; ++t) {
      const RaftElectionTrial& trial = trials[c * options.trials + t];
      if (!trial.ran) continue;
      ++line.ran;
      line.unequal += trial.lagging > 0 ? 1 : 0;
      if (!trial.elected) {
        ++line.over;
        continue;
      }
      line.downtime.push_back(trial.downtime);
      terms += trial.terms;
    }
    std::sort(line.downtime.begin(), line.downtime.end());
    line.summary = summarize_durations(line.downtime);
    if (!line.downtime.empty()) {
      line.mean_terms = static_cast<double>(terms) / static_cast<double>(line.downtime.size());
    }
    r.lines.push_back(std::move(line));
  }
  return r;
}

std::vector<PaperComparison> compare_with_paper(const RaftElectionResults& r) {
  std::vector<PaperComparison> out;
  if (const RaftElectionLine* l = find_line(r, "150-150")) {
    // "consistently took longer than 10 s": agree when most trials do.
    out.push_back({"150-150 ms: elections take over 10 s (split votes)", "over 10 s",
                   std::to_string(l->over) + " of " + std::to_string(l->ran) + " trials over 10 s",
                   "at least half of the trials over 10 s", 2 * l->over >= l->ran && l->ran > 0});
  }
  // A median of 1,000 trials is good to about 3%; the rest of the tolerance is the model's
  // network and disk (a vote round trip of 13-15 ms against theirs, unknown in detail).
  if (const RaftElectionLine* l = find_line(r, "150-155")) {
    out.push_back({"150-155 ms: median downtime", "287 ms", ms(l->summary.p50), "within 15%",
                   l->summary.count > 0 && within(l->summary.p50, milliseconds(287), 0.15)});
  }
  // A maximum of 1,000 trials is one draw from the tail: looser.
  if (const RaftElectionLine* l = find_line(r, "150-200")) {
    out.push_back({"150-200 ms: worst of 1,000 trials", "513 ms", ms(l->summary.max), "within 30%",
                   l->summary.count > 0 && within(l->summary.max, milliseconds(513), 0.30)});
  }
  if (const RaftElectionLine* l = find_line(r, "12-24")) {
    out.push_back({"12-24 ms: mean downtime", "35 ms", ms(l->summary.mean), "within 20%",
                   l->summary.count > 0 && within(l->summary.mean, milliseconds(35), 0.20)});
    out.push_back({"12-24 ms: longest trial", "152 ms", ms(l->summary.max), "within 40%",
                   l->summary.count > 0 && within(l->summary.max, milliseconds(152), 0.40)});
  }
  return out;
}

Table raft_election_cell_table(const RaftElectionResults& r) {
  Table table{
      {"line", "paper_mode", "low_ns", "high_ns", "members", "pre_vote", "trials", "over_horizon",
       "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "mean_terms", "unequal_logs"},
      {}};
  for (const RaftElectionLine& l : r.lines) {
    const DurationSummary& s = l.summary;
    table.rows.push_back({l.cell.name, l.cell.paper ? "1" : "0", std::to_string(l.cell.low.ns),
                          std::to_string(l.cell.high.ns), std::to_string(l.cell.members),
                          l.cell.preVote ? "1" : "0", std::to_string(l.ran), std::to_string(l.over),
                          std::to_string(s.min.ns), std::to_string(s.mean.ns),
                          std::to_string(s.p50.ns), std::to_string(s.p90.ns),
                          std::to_string(s.p99.ns), std::to_string(s.max.ns),
                          format_fixed(l.mean_terms, 4), std::to_string(l.unequal)});
  }
  return table;
}

std::string raft_election_json(const RaftElectionResults& r) {
  nlohmann::ordered_json doc;
  doc["report"] = "raft-election";
  doc["formatVersion"] = 2;  // 2: timerRule
  doc["hasimVersion"] = kVersion;
  doc["seed"] = r.options.seed;
  doc["trialsPerLine"] = r.options.trials;
  doc["timerRule"] = r.options.timerRule;
  doc["broadcastNs"] = {
      {"mean", r.broadcast.mean.ns}, {"p50", r.broadcast.p50.ns}, {"p99", r.broadcast.p99.ns}};
  for (const RaftElectionLine& l : r.lines) {
    std::vector<std::int64_t> samples;
    for (Duration d : l.downtime) samples.push_back(d.ns);
    const DurationSummary& s = l.summary;
    doc["lines"][l.cell.name] = {{"paperMode", l.cell.paper},
                                 {"lowNs", l.cell.low.ns},
                                 {"highNs", l.cell.high.ns},
                                 {"members", l.cell.members},
                                 {"preVote", l.cell.preVote},
                                 {"top", l.cell.top},
                                 {"bottom", l.cell.bottom},
                                 {"trials", l.ran},
                                 {"overHorizon", l.over},
                                 {"meanTerms", l.mean_terms},
                                 {"unequalLogs", l.unequal},
                                 {"downtime",
                                  {{"count", s.count},
                                   {"minNs", s.min.ns},
                                   {"meanNs", s.mean.ns},
                                   {"p50Ns", s.p50.ns},
                                   {"p90Ns", s.p90.ns},
                                   {"p99Ns", s.p99.ns},
                                   {"maxNs", s.max.ns}}},
                                 {"downtimeSamplesNs", samples}};
  }
  for (const PaperComparison& c : compare_with_paper(r)) {
    doc["paper"].push_back({{"claim", c.claim},
                            {"paper", c.paper},
                            {"hasim", c.hasim},
                            {"tolerance", c.tolerance},
                            {"agrees", c.agrees}});
  }
  return doc.dump(2) + "\n";
}

std::string raft_election_markdown(const RaftElectionResults& r) {
  std::string out = "# Raft elections: the paper's Figure 16, and etcd's defaults\n\n";
  out += setup_text(r) + "\n\n## Against the paper's stated numbers\n\n";
  out += markdown_table(kComparisonHeader, comparison_rows(r)) + "\n";
  out += "## Figure 16 lines (paper mode): time without a leader\n\n";
  out += markdown_table(line_header(), line_rows(r, true)) + "\n";
  out += "## etcd's defaults: time from killing the leader to a new leader\n\n";
  out += markdown_table(line_header(), line_rows(r, false)) + "\n";
  out += differences_text() + "\n\n";
  out +=
      "Terms per election: the new leader's term minus the crashed one's (1: the first "
      "election won; with PreVote a failed pre-vote costs no term). Quantiles are "
      "nearest-rank over the trials that elected a leader.\n";
  return out;
}

namespace {

std::vector<CdfSeries> series_of(const RaftElectionResults& r, bool top, bool bottom, bool paper,
                                 std::vector<std::string>* left_out) {
  std::vector<CdfSeries> series;
  for (const RaftElectionLine& l : r.lines) {
    if (l.cell.paper != paper || (top && !l.cell.top) || (bottom && !l.cell.bottom)) continue;
    if (l.over > 0 || l.downtime.empty()) {
      // A CDF of the elected trials alone would reach 100% and mislead.
      left_out->push_back(l.cell.name + ": " + std::to_string(l.over) + " of " +
                          std::to_string(l.ran) + " trials without a leader after 10 s");
      continue;
    }
    series.push_back(CdfSeries{l.cell.name + (paper ? " ms" : ""), "", l.downtime});
  }
  return series;
}

void add_plot(HtmlReport& html, const std::vector<CdfSeries>& series, const std::string& title,
              const std::vector<std::string>& left_out) {
  if (!series.empty()) {
    PlotOptions plot;
    plot.title = title;
    plot.x_label = "seconds from the crash to a new leader";
    plot.y_label = "fraction of trials";
    html.add_raw(svg_cdf_plot(series, plot));
  }
  for (const std::string& note : left_out) html.add_note("Not drawn: " + note + ".");
}

}  // namespace

std::string raft_election_html(const RaftElectionResults& r) {
  HtmlReport html("hasim: raft elections");
  html.add_heading(1, "Raft elections: the paper's Figure 16, and etcd's defaults");
  html.add_paragraph(setup_text(r));
  html.add_heading(2, "Against the paper's stated numbers");
  html.add_table(kComparisonHeader, comparison_rows(r));
  std::vector<std::string> left_out;
  html.add_heading(2, "Figure 16, top: varying the randomness (minimum 150 ms)");
  add_plot(html, series_of(r, true, false, true, &left_out), "Time without a leader (top)",
           left_out);
  left_out.clear();
  html.add_heading(2, "Figure 16, bottom: scaling the minimum (range 1x-2x)");
  add_plot(html, series_of(r, false, true, true, &left_out), "Time without a leader (bottom)",
           left_out);
  html.add_table(line_header(), line_rows(r, true));
  left_out.clear();
  html.add_heading(2, "etcd's defaults: killing the leader");
  add_plot(html, series_of(r, false, false, false, &left_out),
           "etcd (100 ms heartbeat, 1 s election timeout): time to a new leader", left_out);
  html.add_table(line_header(), line_rows(r, false));
  html.add_note(differences_text());
  return html.str();
}

}  // namespace hasim
