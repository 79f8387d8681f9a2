#include "reports/upgrade_report.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "hasim_version.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/semver.hpp"
#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/svg.hpp"
#include "reports/uniform_race.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
// Insertion order for what we write, so a reader sees "report" and "options" first.
using OrderedJson = nlohmann::ordered_json;

constexpr ElectionMode kModes[] = {ElectionMode::lease, ElectionMode::coordinated,
                                   ElectionMode::mixed};
constexpr UpgradeDirection kDirections[] = {UpgradeDirection::upgrade, UpgradeDirection::rollback};

// ---------------------------------------------------------------------------------------
// Text helpers. Everything locale-independent and exact for the same input.

// "15.517 s": milliseconds are the precision a reader of these durations needs.
std::string secs(Duration d) {
  const std::int64_t ms = (d.ns + 500'000) / 1'000'000;
  std::string frac = std::to_string(ms % 1000);
  return std::to_string(ms / 1000) + "." + std::string(3 - frac.size(), '0') + frac + " s";
}

// A fixed-point number; std::to_chars ignores the C locale, unlike printf.
std::string fixed(double value, int decimals) {
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value + 0.0,
                                    std::chars_format::fixed, decimals);
  HASIM_ASSERT(result.ec == std::errc{});
  return std::string(buffer, result.ptr);
}

std::string mode_name(ElectionMode mode) { return std::string(to_string(mode)); }
std::string direction_name(UpgradeDirection d) { return std::string(to_string(d)); }

std::optional<ElectionMode> parse_mode(std::string_view text) {
  for (ElectionMode m : kModes) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}
std::optional<UpgradeDirection> parse_direction(std::string_view text) {
  for (UpgradeDirection d : kDirections) {
    if (to_string(d) == text) return d;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// JSON layout: objects indented, arrays of plain values on one line. Every trial is in the
// files, and one number per line would make a 10,000-trial report tens of megabytes.

bool scalar_array(const OrderedJson& j) {
  return std::all_of(j.begin(), j.end(), [](const OrderedJson& e) { return e.is_primitive(); });
}

void write_json(const OrderedJson& j, int depth, std::string& out) {
  const std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
  const std::string close(static_cast<std::size_t>(depth) * 2, ' ');
  if (j.is_object() && !j.empty()) {
    out += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += pad + OrderedJson(it.key()).dump() + ": ";
      write_json(it.value(), depth + 1, out);
    }
    out += "\n" + close + "}";
  } else if (j.is_array() && !j.empty() && !scalar_array(j)) {
    out += "[\n";
    bool first = true;
    for (const OrderedJson& e : j) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      write_json(e, depth + 1, out);
    }
    out += "\n" + close + "]";
  } else {
    out += j.dump();
  }
}

std::string json_text(const OrderedJson& j) {
  std::string out;
  write_json(j, 0, out);
  return out + "\n";
}

// ---------------------------------------------------------------------------------------
// Options <-> JSON. Every field of UpgradeSettings is written so a merge can rebuild the
// exact study (and simulate its sample timeline) from a shard file alone.

const char* distribution_kind(DurationDistribution::Kind kind) {
  switch (kind) {
    case DurationDistribution::Kind::constant:
      return "constant";
    case DurationDistribution::Kind::uniform:
      return "uniform";
    case DurationDistribution::Kind::exponential:
      return "exponential";
    case DurationDistribution::Kind::normal:
      return "normal";
    case DurationDistribution::Kind::lognormal:
      return "lognormal";
  }
  return "?";
}

OrderedJson distribution_json(const DurationDistribution& d) {
  return {{"kind", distribution_kind(d.kind)}, {"aNs", d.a.ns}, {"bNs", d.b.ns}};
}

DurationDistribution distribution_from(const Json& j) {
  DurationDistribution d;
  const std::string kind = j.at("kind").get<std::string>();
  bool known = false;
  for (auto k : {DurationDistribution::Kind::constant, DurationDistribution::Kind::uniform,
                 DurationDistribution::Kind::exponential, DurationDistribution::Kind::normal,
                 DurationDistribution::Kind::lognormal}) {
    if (kind == distribution_kind(k)) {
      d.kind = k;
      known = true;
    }
  }
  if (!known) throw std::runtime_error("unknown distribution kind \"" + kind + "\"");
  d.a = Duration{j.at("aNs").get<std::int64_t>()};
  d.b = Duration{j.at("bNs").get<std::int64_t>()};
  return d;
}

OrderedJson cell_json(const UpgradeCell& cell) {
  return {{"mode", mode_name(cell.mode)},
          {"direction", direction_name(cell.direction)},
          {"nodes", cell.nodes}};
}

UpgradeCell cell_from(const Json& j) {
  UpgradeCell cell;
  const auto mode = parse_mode(j.at("mode").get<std::string>());
  const auto direction = parse_direction(j.at("direction").get<std::string>());
  if (!mode || !direction) throw std::runtime_error("unknown mode or direction in a cell");
  cell.mode = *mode;
  cell.direction = *direction;
  cell.nodes = j.at("nodes").get<int>();
  return cell;
}

OrderedJson options_json(const UpgradeOptions& o) {
  const UpgradeSettings& s = o.settings;
  const UpgradeSpec& u = s.upgrade;
  OrderedJson cells = OrderedJson::array();
  for (const UpgradeCell& cell : o.cells) cells.push_back(cell_json(cell));
  OrderedJson upgrade = {
      {"atNs", u.at.ns},
      {"to", u.to},
      {"order", u.order},
      {"randomOrder", u.randomOrder},
      {"downtime", distribution_json(u.downtime)},
      {"gap", distribution_json(u.gap)},
      {"startJitter", distribution_json(u.startJitter)},
      {"canaryNs", u.canary.ns},
      {"emulation", u.emulation},
      {"stop", u.stop == UpgradeSpec::Stop::terminate ? "terminate" : "power-off"},
      {"graceNs", u.grace.ns}};
  OrderedJson settings = {{"oldVersion", s.old_version},
                          {"newVersion", s.new_version},
                          {"leaseDurationNs", s.leaseDuration.ns},
                          {"renewDeadlineNs", s.renewDeadline.ns},
                          {"retryPeriodNs", s.retryPeriod.ns},
                          {"settleNs", s.settle.ns},
                          {"upgrade", upgrade}};
  return {{"trialsPerCell", o.trials}, {"seed", o.seed}, {"cells", cells}, {"settings", settings}};
}

UpgradeOptions options_from(const Json& j) {
  UpgradeOptions o;
  o.trials = j.at("trialsPerCell").get<std::uint64_t>();
  o.seed = j.at("seed").get<std::uint64_t>();
  o.cells.clear();
  for (const Json& c : j.at("cells")) o.cells.push_back(cell_from(c));
  const Json& s = j.at("settings");
  o.settings.old_version = s.at("oldVersion").get<std::string>();
  o.settings.new_version = s.at("newVersion").get<std::string>();
  o.settings.leaseDuration = Duration{s.at("leaseDurationNs").get<std::int64_t>()};
  o.settings.renewDeadline = Duration{s.at("renewDeadlineNs").get<std::int64_t>()};
  o.settings.retryPeriod = Duration{s.at("retryPeriodNs").get<std::int64_t>()};
  o.settings.settle = Duration{s.at("settleNs").get<std::int64_t>()};
  const Json& u = s.at("upgrade");
  UpgradeSpec& spec = o.settings.upgrade;
  spec.at = Duration{u.at("atNs").get<std::int64_t>()};
  spec.to = u.at("to").get<std::string>();
  spec.order = u.at("order").get<std::vector<std::string>>();
  spec.randomOrder = u.at("randomOrder").get<bool>();
  spec.downtime = distribution_from(u.at("downtime"));
  spec.gap = distribution_from(u.at("gap"));
  spec.startJitter = distribution_from(u.at("startJitter"));
  spec.canary = Duration{u.at("canaryNs").get<std::int64_t>()};
  spec.emulation = u.at("emulation").get<bool>();
  const std::string stop = u.at("stop").get<std::string>();
  if (stop != "terminate" && stop != "power-off")
    throw std::runtime_error("unknown stop \"" + stop + "\"");
  spec.stop = stop == "terminate" ? UpgradeSpec::Stop::terminate : UpgradeSpec::Stop::power_off;
  spec.grace = Duration{u.at("graceNs").get<std::int64_t>()};
  return o;
}

// ---------------------------------------------------------------------------------------
// Trials <-> compact arrays, one array per field. A trial without a first violation has -1.

OrderedJson trials_json(const std::vector<UpgradeTrial>& trials, std::size_t begin,
                        std::size_t end) {
  std::vector<int> violated, kcm_violated, at_end;
  std::vector<std::int64_t> time, first, duration;
  std::vector<std::uint64_t> changes, lease, candidate;
  for (std::size_t i = begin; i < end; ++i) {
    const UpgradeTrial& t = trials[i];
    violated.push_back(t.violated ? 1 : 0);
    kcm_violated.push_back(t.kcm_violated ? 1 : 0);
    time.push_back(t.violation_time.ns);
    first.push_back(t.first_violation ? t.first_violation->ns : -1);
    changes.push_back(t.leader_changes);
    lease.push_back(t.lease_writes);
    candidate.push_back(t.candidate_writes);
    duration.push_back(t.upgrade_duration.ns);
    at_end.push_back(t.leaders_at_end ? 1 : 0);
  }
  return {{"violated", violated},          {"kcmViolated", kcm_violated},
          {"violationTimeNs", time},
          {"firstViolationNs", first},     {"leaderChanges", changes},
          {"leaseWrites", lease},          {"candidateWrites", candidate},
          {"upgradeDurationNs", duration}, {"leadersAtEnd", at_end}};
}

std::vector<UpgradeTrial> trials_from(const Json& j, std::uint64_t count) {
  const auto field = [&](const char* name) -> const Json& {
    const Json& a = j.at(name);
    if (!a.is_array() || a.size() != count) {
      throw std::runtime_error(std::string("\"trials.") + name + "\" must be an array of " +
                               std::to_string(count) + " values (the shard's range)");
    }
    return a;
  };
  const Json& violated = field("violated");
  const Json& kcm_violated = field("kcmViolated");
  const Json& time = field("violationTimeNs");
  const Json& first = field("firstViolationNs");
  const Json& changes = field("leaderChanges");
  const Json& lease = field("leaseWrites");
  const Json& candidate = field("candidateWrites");
  const Json& duration = field("upgradeDurationNs");
  const Json& at_end = field("leadersAtEnd");
  std::vector<UpgradeTrial> trials(count);
  for (std::size_t i = 0; i < count; ++i) {
    UpgradeTrial& t = trials[i];
    t.violated = violated[i].get<int>() != 0;
    t.kcm_violated = kcm_violated[i].get<int>() != 0;
    t.violation_time = Duration{time[i].get<std::int64_t>()};
    const std::int64_t f = first[i].get<std::int64_t>();
    if (f >= 0) t.first_violation = Duration{f};
    t.leader_changes = changes[i].get<std::uint64_t>();
    t.lease_writes = lease[i].get<std::uint64_t>();
    t.candidate_writes = candidate[i].get<std::uint64_t>();
    t.upgrade_duration = Duration{duration[i].get<std::int64_t>()};
    t.leaders_at_end = at_end[i].get<int>() != 0;
  }
  return trials;
}

OrderedJson summary_json(const DurationSummary& s) {
  return {{"count", s.count},  {"minNs", s.min.ns}, {"meanNs", s.mean.ns}, {"p50Ns", s.p50.ns},
          {"p90Ns", s.p90.ns}, {"p99Ns", s.p99.ns}, {"maxNs", s.max.ns}};
}

// ---------------------------------------------------------------------------------------
// The comparison with KEP-4355.

constexpr std::string_view kKepUpgrade =
    "\"For 3 node control plane upgrade, there is about a 25% chance of a new version of the "
    "controller running while old versions of the apiserver are active, resulting in a skew "
    "violation. (Consider case where the 2nd node upgraded has the lease)\"";
constexpr std::string_view kKepRollback =
    "\"For rollback, it is almost a certainty that skew will be violated.\"";

static_assert(kUpgradeMinNodes >= kUniformRaceMinNodes && kUpgradeMaxNodes <= kUniformRaceMaxNodes,
              "every study size has its uniform-race value");

bool model_covers(int nodes) {
  return nodes >= kUniformRaceMinNodes && nodes <= kUniformRaceMaxNodes;
}

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

const UpgradeCellSummary* find_summary(const std::vector<UpgradeCellSummary>& cells,
                                       ElectionMode mode, UpgradeDirection direction, int nodes) {
  for (const UpgradeCellSummary& s : cells) {
    if (s.cell.mode == mode && s.cell.direction == direction && s.cell.nodes == nodes) return &s;
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
                " " + format_interval(s.kcm_interval) + ", against " +
                model_text(m.one_lease) + " for one lease (" +
                versus(m.one_lease.value(), s.kcm_interval) + ").";
        if (s.cell.nodes == 3) line += " The KEP says about 25% for one controller.";
      } else {
        line +=
            " The uniform race gives 1 (certain), as the KEP says (\"almost a "
            "certainty\"); that is " +
            versus(1.0, s.interval) + ".";
      }
    } else if (s.cell.mode != ElectionMode::lease) {
      const UpgradeCellSummary* lease =
          find_summary(cells, ElectionMode::lease, s.cell.direction, s.cell.nodes);
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
    out.push_back(line);
  }
  return out;
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
      line += std::string(first ? " " : "; ") + mode_name(s.cell.mode) + " " + probability_text(s) +
              (s.violating > 0 ? " (mean " + secs(s.violation_time.mean) + " when violated)"
                               : std::string());
      first = false;
    }
    out.push_back(line + ".");
  }
  return out;
}

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

// ---------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------
// Write load (KEP "Risk: Amount of writes performed by leader election increases
// substantially").

std::vector<std::string> write_findings(const std::vector<UpgradeCellSummary>& cells) {
  std::vector<std::string> out;
  for (const UpgradeCellSummary& s : cells) {
    if (s.cell.mode == ElectionMode::lease) continue;
    const UpgradeCellSummary* lease =
        find_summary(cells, ElectionMode::lease, s.cell.direction, s.cell.nodes);
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
         std::to_string(o.seed) + ".";
}

constexpr std::string_view kViolation =
    "A violation is the no-skew property failing: at some instant an acting "
    "kube-controller-manager or kube-scheduler leader runs a newer version than some serving "
    "kube-apiserver. \"Acting\" means from OnStartedLeading until its work has stopped, not "
    "what the Lease object says. The Kubernetes skew policy requires controllers to stay at "
    "the old version until every apiserver is upgraded, and to be rolled back before any "
    "apiserver is.";

std::string sample_title(const UpgradeResults& r) {
  const UpgradeCell& cell = r.options.cells[r.sample.cell];
  const std::size_t index = r.sample.cell * r.options.trials + r.sample.trial;
  const bool violated = r.trials[index].violated;
  return "Sample trial: " + describe(cell) + ", trial " + std::to_string(r.sample.trial) +
         " (seed " + std::to_string(r.sample.seed) + ")" +
         (violated ? ", the first trial that violated skew" : ", no trial violated skew");
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::vector<UpgradeCell> upgrade_grid(const std::vector<ElectionMode>& modes,
                                      const std::vector<UpgradeDirection>& directions,
                                      const std::vector<int>& nodes) {
  // A canonical order whatever order the flags list them in: the cell order decides every
  // trial's seed, so "--modes coordinated,lease" and "--modes lease,coordinated" agree.
  const std::set<int> sizes(nodes.begin(), nodes.end());
  std::vector<UpgradeCell> cells;
  for (ElectionMode m : kModes) {
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) continue;
    for (UpgradeDirection d : kDirections) {
      if (std::find(directions.begin(), directions.end(), d) == directions.end()) continue;
      for (int n : sizes) cells.push_back(UpgradeCell{m, d, n});
    }
  }
  return cells;
}

std::vector<UpgradeCell> default_upgrade_cells() {
  return upgrade_grid({std::begin(kModes), std::end(kModes)},
                      {std::begin(kDirections), std::end(kDirections)}, {3, 5});
}

std::optional<std::string> validate_upgrade_options(const UpgradeOptions& o) {
  if (o.trials == 0) return "--trials must be at least 1";
  if (o.cells.empty()) {
    return "the study has no cells; give at least one of each of --modes, --directions and "
           "--nodes";
  }
  if (o.trials > std::numeric_limits<std::uint64_t>::max() / o.cells.size()) {
    return "--trials " + std::to_string(o.trials) + " times " + std::to_string(o.cells.size()) +
           " cells does not fit in 64 bits; use fewer trials";
  }
  for (const UpgradeCell& cell : o.cells) {
    if (cell.nodes < kUpgradeMinNodes || cell.nodes > kUpgradeMaxNodes) {
      return "--nodes " + std::to_string(cell.nodes) + ": a control plane needs " +
             std::to_string(kUpgradeMinNodes) + " to " + std::to_string(kUpgradeMaxNodes) +
             " nodes for a node-by-node upgrade to mean anything, e.g. --nodes 3,5";
    }
  }
  const auto from = election::parse_semver(o.settings.old_version);
  if (!from) {
    return "--from \"" + o.settings.old_version +
           "\" is not a semantic version MAJOR.MINOR.PATCH, e.g. --from 1.31.0";
  }
  const auto to = election::parse_semver(o.settings.new_version);
  if (!to) {
    return "--to \"" + o.settings.new_version +
           "\" is not a semantic version MAJOR.MINOR.PATCH, e.g. --to 1.32.0";
  }
  if (election::compare(*from, *to) >= 0) {
    return "--from " + o.settings.old_version + " must be older than --to " +
           o.settings.new_version +
           " (a rollback runs from --to back to --from), e.g. --from 1.31.0 --to 1.32.0";
  }
  election::LeaderElectionConfig config;
  config.leaseDuration = o.settings.leaseDuration;
  config.renewDeadline = o.settings.renewDeadline;
  config.retryPeriod = o.settings.retryPeriod;
  config.name = "upgrade-skew";
  if (const auto problem = election::validate(config, "identity")) {
    return *problem +
           " (client-go requires leaseDuration > renewDeadline > 1.2 x retryPeriod > 0); adjust "
           "--lease-duration, --renew-deadline or --retry-period";
  }
  const UpgradeSpec& u = o.settings.upgrade;
  for (const auto& [flag, d] : {std::pair{"--downtime", u.downtime}, std::pair{"--gap", u.gap},
                                std::pair{"startJitter", u.startJitter}}) {
    if (d.a.ns < 0 || d.b.ns < 0) {
      return std::string(flag) + " " + d.describe() + " must not be negative, e.g. 30s..90s";
    }
  }
  if (o.shard.count == 0 || o.shard.index >= o.shard.count) {
    return "--shard " + std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count) +
           ": I must be below N, e.g. --shard 0/4";
  }
  return std::nullopt;
}

UpgradeModel simulated_upgrade_model(const UpgradeSettings& settings,
                                     const std::vector<UpgradeCell>& cells) {
  auto scenarios = std::make_shared<std::map<UpgradeCell, Scenario>>();
  for (const UpgradeCell& cell : cells) {
    if (!scenarios->contains(cell)) scenarios->emplace(cell, upgrade_scenario(settings, cell));
  }
  UpgradeModel model;
  // Read-only after construction, so worker threads share it.
  model.trial = [scenarios](const UpgradeCell& cell, std::uint64_t seed) {
    return run_upgrade_trial(scenarios->at(cell), seed);
  };
  model.timeline = [settings](const UpgradeCell& cell, std::uint64_t seed) {
    return upgrade_timeline(upgrade_scenario(settings, cell), seed);
  };
  return model;
}

UpgradeShard run_upgrade_shard(const UpgradeOptions& options, const UpgradeTrialFn& trial,
                               const TrialProgress& progress) {
  HASIM_ASSERT(options.trials >= 1 && !options.cells.empty());
  HASIM_ASSERT(options.jobs >= 1);
  UpgradeShard shard;
  shard.options = options;
  shard.range = trial_range(options.trials * options.cells.size(), options.shard);
  const std::uint64_t per_cell = options.trials;
  shard.trials = run_trials<UpgradeTrial>(
      shard.range.begin, shard.range.end, options.jobs,
      [&](std::uint64_t index) {
        return trial(options.cells[index / per_cell], trial_seed(options.seed, index));
      },
      progress);
  return shard;
}

UpgradeResults complete_upgrade_study(const UpgradeOptions& options,
                                      std::vector<UpgradeTrial> trials,
                                      const UpgradeTimelineFn& timeline) {
  HASIM_ASSERT(trials.size() == options.trials * options.cells.size());
  UpgradeResults r;
  r.options = options;
  r.options.shard = ShardSpec{};
  r.trials = std::move(trials);
  const auto first_violation = std::find_if(r.trials.begin(), r.trials.end(),
                                            [](const UpgradeTrial& t) { return t.violated; });
  const std::size_t index = first_violation == r.trials.end()
                                ? 0
                                : static_cast<std::size_t>(first_violation - r.trials.begin());
  r.sample.cell = index / options.trials;
  r.sample.trial = index % options.trials;
  r.sample.seed = trial_seed(options.seed, index);
  r.sample.timeline = timeline(options.cells[r.sample.cell], r.sample.seed);
  return r;
}

UpgradeResults run_upgrade_study(const UpgradeOptions& options, const UpgradeModel& model,
                                 const TrialProgress& progress) {
  UpgradeOptions whole = options;
  whole.shard = ShardSpec{};
  UpgradeShard shard = run_upgrade_shard(whole, model.trial, progress);
  return complete_upgrade_study(whole, std::move(shard.trials), model.timeline);
}

double UpgradeCellSummary::mean(std::uint64_t sum) const {
  return trials == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(trials);
}

double UpgradeCellSummary::writes_per_second() const {
  if (total_upgrade_time.ns <= 0) return 0.0;
  return static_cast<double>(lease_writes + candidate_writes) /
         (static_cast<double>(total_upgrade_time.ns) / 1e9);
}

std::vector<UpgradeCellSummary> summarize_upgrade(const UpgradeResults& r) {
  std::vector<UpgradeCellSummary> out;
  const std::uint64_t per_cell = r.options.trials;
  for (std::size_t c = 0; c < r.options.cells.size(); ++c) {
    UpgradeCellSummary s;
    s.cell = r.options.cells[c];
    std::vector<Duration> all, firsts, durations;
    for (std::uint64_t t = 0; t < per_cell; ++t) {
      const UpgradeTrial& trial = r.trials[c * per_cell + t];
      ++s.trials;
      all.push_back(trial.violation_time);
      if (trial.kcm_violated) ++s.kcm_violating;
      if (trial.violated) {
        ++s.violating;
        s.violation_times.push_back(trial.violation_time);
        if (trial.first_violation) firsts.push_back(*trial.first_violation);
      }
      s.leader_changes += trial.leader_changes;
      s.lease_writes += trial.lease_writes;
      s.candidate_writes += trial.candidate_writes;
      s.total_upgrade_time += trial.upgrade_duration;
      durations.push_back(trial.upgrade_duration);
      s.leaders_at_end += trial.leaders_at_end ? 1 : 0;
    }
    s.probability = static_cast<double>(s.violating) / static_cast<double>(s.trials);
    s.interval = wilson_interval(s.violating, s.trials);
    s.kcm_interval = wilson_interval(s.kcm_violating, s.trials);
    std::sort(s.violation_times.begin(), s.violation_times.end());
    s.violation_time = summarize_durations(s.violation_times);
    s.violation_time_all = summarize_durations(std::move(all));
    s.first_violation = summarize_durations(std::move(firsts));
    s.upgrade_duration = summarize_durations(std::move(durations));
    out.push_back(std::move(s));
  }
  return out;
}

std::string upgrade_options_json(const UpgradeOptions& options) {
  return options_json(options).dump();
}

std::string upgrade_reproduce_command(const UpgradeOptions& o) {
  std::set<std::string> modes, directions;
  std::set<int> nodes;
  std::string mode_list, direction_list, node_list;
  for (const UpgradeCell& c : o.cells) {
    if (modes.insert(mode_name(c.mode)).second)
      mode_list += (mode_list.empty() ? "" : ",") + mode_name(c.mode);
    if (directions.insert(direction_name(c.direction)).second)
      direction_list += (direction_list.empty() ? "" : ",") + direction_name(c.direction);
    if (nodes.insert(c.nodes).second)
      node_list += (node_list.empty() ? "" : ",") + std::to_string(c.nodes);
  }
  const UpgradeSettings& s = o.settings;
  return "hasim report upgrade-skew --trials " + std::to_string(o.trials) + " --seed " +
         std::to_string(o.seed) + " --modes " + mode_list + " --directions " + direction_list +
         " --nodes " + node_list + " --from " + s.old_version + " --to " + s.new_version +
         " --lease-duration " + format_duration(s.leaseDuration) + " --renew-deadline " +
         format_duration(s.renewDeadline) + " --retry-period " + format_duration(s.retryPeriod) +
         " --downtime " + s.upgrade.downtime.describe() + " --gap " + s.upgrade.gap.describe();
}

std::string upgrade_json(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  OrderedJson doc;
  doc["report"] = kUpgradeReportName;
  doc["file"] = "report";
  doc["formatVersion"] = kUpgradeFormatVersion;
  doc["hasimVersion"] = kVersion;
  doc["options"] = options_json(r.options);
  doc["reproduce"] = upgrade_reproduce_command(r.options);
  doc["kep"] = {{"upgrade3Nodes", kKepUpgrade}, {"rollback", kKepRollback}};
  OrderedJson models = OrderedJson::array();
  std::set<int> seen;
  for (const UpgradeCell& c : r.options.cells) {
    if (!model_covers(c.nodes) || !seen.insert(c.nodes).second) continue;
    for (UpgradeDirection d : kDirections) {
      const UniformRaceResult m = uniform_race(c.nodes, d);
      std::vector<std::string> steps;
      for (Fraction f : m.by_step) steps.push_back(f.str());
      models.push_back({{"nodes", c.nodes},
                        {"direction", direction_name(d)},
                        {"oneLease", m.one_lease.str()},
                        {"oneLeaseProbability", m.one_lease.value()},
                        {"twoLeases", m.two_leases.str()},
                        {"twoLeasesProbability", m.two_leases.value()},
                        {"firstViolationByStep", steps}});
    }
  }
  doc["uniformRace"] = models;
  OrderedJson out_cells = OrderedJson::array();
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const UpgradeCellSummary& s = cells[c];
    const std::size_t begin = c * r.options.trials;
    out_cells.push_back({{"cell", describe(s.cell)},
                         {"mode", mode_name(s.cell.mode)},
                         {"direction", direction_name(s.cell.direction)},
                         {"nodes", s.cell.nodes},
                         {"trials", s.trials},
                         {"violatingTrials", s.violating},
                         {"probability", s.probability},
                         {"interval95", {s.interval.low, s.interval.high}},
                         {"violationTime", summary_json(s.violation_time)},
                         {"violationTimeAllTrials", summary_json(s.violation_time_all)},
                         {"firstViolation", summary_json(s.first_violation)},
                         {"leaderChanges", s.leader_changes},
                         {"leaderChangesMean", s.mean(s.leader_changes)},
                         {"leaseWrites", s.lease_writes},
                         {"leaseWritesMean", s.mean(s.lease_writes)},
                         {"candidateWrites", s.candidate_writes},
                         {"candidateWritesMean", s.mean(s.candidate_writes)},
                         {"upgradeTimeTotalNs", s.total_upgrade_time.ns},
                         {"writesPerSecond", s.writes_per_second()},
                         {"upgradeDuration", summary_json(s.upgrade_duration)},
                         {"leadersAtEndTrials", s.leaders_at_end},
                         {"trialData", trials_json(r.trials, begin, begin + r.options.trials)}});
  }
  doc["cells"] = out_cells;
  doc["sample"] = {{"cell", describe(r.options.cells[r.sample.cell])},
                   {"trial", r.sample.trial},
                   {"seed", r.sample.seed}};
  return json_text(doc);
}

// What hasim found beyond the grid, each kept as a scenario whose verdict a test asserts.
// Facts about the models, not figures: the figures above come from the data.
std::vector<std::string> upgrade_findings() {
  return {
      "Faults during a coordinated upgrade can still break skew. RapidCheck, adding crash and "
      "partition faults to coordinated upgrades, shrank a counterexample to one fault: the "
      "last node still at the old version crashes for 19 s after the others were upgraded. "
      "While it is down its old candidates cannot ack the controller's ping, so the controller "
      "elects a new-version candidate, correctly at that moment, since no old apiserver serves "
      "either. When the node comes back, its old kube-apiserver serves at once, beside a "
      "new-version leader, until the controller has pinged the returning old candidates and "
      "preempted the leader (about 11 s). CLE bounds the window but cannot close it: "
      "scenarios/upgrade/coordinated-old-node-crash-3.json.",
      "A coordinated rollback violates in every trial, briefly: the first rolled-back node's "
      "older kube-apiserver serves the moment it starts, while the newer leader keeps acting "
      "until it is preempted through preferredHolder and gives up after renewDeadline "
      "(scenarios/upgrade/coordinated-rollback-3.json). The KEP's story 2 describes the "
      "preemption but not this window.",
      "A mixed fleet (the upgrade enables CLE) is no safer than leases: only coordinated, "
      "new-version components publish LeaseCandidates, so when an old lease-based leader's lease "
      "expires the controller hands it to a new-version candidate while old apiservers still "
      "serve (scenarios/upgrade/mixed-upgrade-3.json).",
      "Stale candidates keep the controller pinging. A component stopped by the upgrade leaves "
      "its LeaseCandidate behind (client-go does not delete it), unexpired for 30 minutes. After "
      "an upgrade the dead old-version candidates still rank best, so electionNeeded stays true "
      "and the controller pings every live candidate every 5 s per Lease until the garbage "
      "collector removes them (up to 30 minutes after the upgrade): two writes per live "
      "candidate per round, on top of the write load in the table above, which counts only the "
      "upgrade itself.",
  };
}

std::string upgrade_markdown(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  std::string out = "# Version skew during node-by-node control-plane upgrades\n\n";
  out += settings_text(r.options) + "\n\n";
  out += std::string(kViolation) + "\n\n";
  out += "P(at least one violation) per upgrade, 95% interval:\n\n";
  for (const std::string& line : key_results(cells)) out += "- " + line + "\n";
  out += "\n## Skew violations\n\n";
  out += markdown_table(
      skew_header(), skew_rows(cells),
      {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right});
  out += "\n## Elections and write load\n\n";
  out += markdown_table(election_header(), election_rows(cells),
                        {Align::left, Align::right, Align::right, Align::right, Align::right,
                         Align::right, Align::right});
  out += "\n";
  for (const std::string& line : write_findings(cells)) out += "- " + line + "\n";
  out += "\n## Comparison with KEP-4355\n\n";
  out += "KEP-4355 (Motivation): " + std::string(kKepUpgrade) + " " + std::string(kKepRollback) +
         " The uniform-race model (every step takes a node's apiserver and controllers down "
         "together, a leader on a downed node loses the lease, the lease goes uniformly at "
         "random to a surviving elector, nobody preempts) reproduces the 25% exactly.\n\n";
  out += markdown_table(comparison_header(), comparison_rows(cells));
  out += "\n";
  for (const std::string& line : comparison_findings(cells)) out += "- " + line + "\n";
  out += "\nWhy the simulation can differ from the model:\n\n";
  for (const std::string& line : model_differences(r.options.settings)) out += "- " + line + "\n";
  out += "\n## Findings\n\n";
  for (const std::string& line : upgrade_findings()) out += "- " + line + "\n";
  out += "\n" + sample_title(r) + " (drawn in upgrade-skew.html).\n\n";
  out +=
      "Intervals are 95% Wilson intervals; quantiles are nearest-rank; every trial is in "
      "upgrade-skew.json. Reproduce: `" +
      upgrade_reproduce_command(r.options) + "`\n";
  return out;
}

std::string upgrade_html(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  HtmlReport html("hasim: version skew during control-plane upgrades");
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

  html.add_heading(2, "How often does skew break?");
  for (const std::string& line : key_results(cells)) html.add_paragraph(line);
  std::vector<Bar> bars;
  for (const UpgradeCellSummary& s : cells) {
    bars.push_back(Bar{direction_name(s.cell.direction) + "/" + std::to_string(s.cell.nodes),
                       mode_name(s.cell.mode), s.probability, s.interval});
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
  for (ElectionMode mode : kModes) {
    std::vector<CdfSeries> series;
    for (const UpgradeCellSummary& s : cells) {
      if (s.cell.mode != mode) continue;
      series.push_back(CdfSeries{direction_name(s.cell.direction) + "/" +
                                     std::to_string(s.cell.nodes) + " (" +
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
  return html.str();
}

std::vector<std::string> upgrade_report_files() {
  const std::string base(kUpgradeReportName);
  return {base + ".json", base + ".md", base + ".html"};
}

std::string upgrade_shard_file_name(ShardSpec shard) {
  return std::string(kUpgradeReportName) + ".shard-" + std::to_string(shard.index) + "-of-" +
         std::to_string(shard.count) + ".json";
}

std::string upgrade_shard_json(const UpgradeShard& shard) {
  OrderedJson doc;
  doc["report"] = kUpgradeReportName;
  doc["file"] = "shard";
  doc["formatVersion"] = kUpgradeFormatVersion;
  doc["hasimVersion"] = kVersion;
  doc["options"] = options_json(shard.options);
  doc["shard"] = {{"index", shard.options.shard.index}, {"count", shard.options.shard.count}};
  doc["range"] = {{"begin", shard.range.begin}, {"end", shard.range.end}};
  doc["trials"] = trials_json(shard.trials, 0, shard.trials.size());
  return json_text(doc);
}

namespace {

// A parsed shard file with what merge compares.
struct ShardFile {
  UpgradeShard shard;
  std::string hasim_version;
  std::string options_text;  // canonical
};

std::optional<ShardFile> read_shard(std::string_view text, std::string* error) {
  const auto fail = [&](const std::string& message) -> std::optional<ShardFile> {
    if (error != nullptr) *error = message;
    return std::nullopt;
  };
  const Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return fail("not a JSON object");
  try {
    if (doc.value("report", "") != kUpgradeReportName) {
      return fail("not an upgrade-skew file (\"report\" is not \"upgrade-skew\")");
    }
    if (doc.value("file", "") != "shard") {
      return fail("not a shard file (write shards with `hasim report upgrade-skew --shard I/N`)");
    }
    const int format = doc.at("formatVersion").get<int>();
    if (format != kUpgradeFormatVersion) {
      return fail("format version " + std::to_string(format) + ", this hasim reads " +
                  std::to_string(kUpgradeFormatVersion) + "; re-run the shard with this hasim");
    }
    ShardFile file;
    file.hasim_version = doc.at("hasimVersion").get<std::string>();
    UpgradeOptions options = options_from(doc.at("options"));
    // Round trip: anything this hasim does not know (or reads differently) would silently
    // change the study, so the options must read back to exactly what was written.
    file.options_text = upgrade_options_json(options);
    if (Json::parse(file.options_text) != doc.at("options")) {
      return fail("its options do not read back exactly (written by another hasim?)");
    }
    if (options.trials == 0 || options.cells.empty()) return fail("it has no trials");
    options.shard.index = doc.at("shard").at("index").get<std::uint64_t>();
    options.shard.count = doc.at("shard").at("count").get<std::uint64_t>();
    if (options.shard.count == 0 || options.shard.index >= options.shard.count) {
      return fail("bad shard " + std::to_string(options.shard.index) + "/" +
                  std::to_string(options.shard.count));
    }
    file.shard.range.begin = doc.at("range").at("begin").get<std::uint64_t>();
    file.shard.range.end = doc.at("range").at("end").get<std::uint64_t>();
    const TrialRange expected = trial_range(options.trials * options.cells.size(), options.shard);
    if (file.shard.range != expected) {
      return fail("its range [" + std::to_string(file.shard.range.begin) + ", " +
                  std::to_string(file.shard.range.end) + ") is not shard " +
                  std::to_string(options.shard.index) + "/" + std::to_string(options.shard.count) +
                  "'s [" + std::to_string(expected.begin) + ", " + std::to_string(expected.end) +
                  ")");
    }
    file.shard.trials = trials_from(doc.at("trials"), expected.size());
    file.shard.options = std::move(options);
    return file;
  } catch (const std::exception& e) {
    return fail(std::string("malformed shard: ") + e.what());
  }
}

}  // namespace

std::optional<UpgradeShard> parse_upgrade_shard(std::string_view text, std::string* error) {
  auto file = read_shard(text, error);
  if (!file) return std::nullopt;
  return std::move(file->shard);
}

std::optional<MergedUpgradeTrials> merge_upgrade_shards(const std::vector<std::string>& texts,
                                                        const std::vector<std::string>& names,
                                                        std::string* error) {
  HASIM_ASSERT(texts.size() == names.size());
  const auto fail = [&](const std::string& message) -> std::optional<MergedUpgradeTrials> {
    if (error != nullptr) *error = message;
    return std::nullopt;
  };
  if (texts.empty()) return fail("no shard files given");
  std::vector<ShardFile> files;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string problem;
    auto file = read_shard(texts[i], &problem);
    if (!file) return fail(names[i] + ": " + problem);
    files.push_back(std::move(*file));
  }
  const ShardFile& first = files.front();
  const std::uint64_t count = first.shard.options.shard.count;
  std::vector<std::optional<std::size_t>> owner(count);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ShardFile& f = files[i];
    if (f.hasim_version != first.hasim_version) {
      return fail(names[i] + " was written by hasim " + f.hasim_version + " but " + names[0] +
                  " by hasim " + first.hasim_version + "; run every shard with the same hasim");
    }
    if (f.options_text != first.options_text) {
      return fail(names[i] + " and " + names[0] +
                  " belong to different studies (their options differ: trials, seed, cells or "
                  "settings); merge shards of one `hasim report upgrade-skew` invocation");
    }
    const ShardSpec shard = f.shard.options.shard;
    if (shard.count != count) {
      return fail(names[i] + " is one of " + std::to_string(shard.count) + " shards but " +
                  names[0] + " one of " + std::to_string(count) +
                  "; merge shards split the same way");
    }
    if (owner[shard.index]) {
      return fail(names[i] + " and " + names[*owner[shard.index]] + " are both shard " +
                  std::to_string(shard.index) + "/" + std::to_string(count) +
                  "; give each shard exactly once");
    }
    owner[shard.index] = i;
  }
  std::string missing;
  std::size_t missing_count = 0;
  for (std::uint64_t s = 0; s < count; ++s) {
    if (owner[s]) continue;
    ++missing_count;
    if (missing_count <= 10) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(s) + "/" + std::to_string(count);
    }
  }
  if (missing_count > 0) {
    return fail("missing " + std::to_string(missing_count) + " of " + std::to_string(count) +
                " shards: " + missing + (missing_count > 10 ? ", ..." : "") +
                "; give every shard file (" + upgrade_shard_file_name({0, count}) + " to " +
                upgrade_shard_file_name({count - 1, count}) + ")");
  }
  MergedUpgradeTrials merged;
  merged.options = first.shard.options;
  merged.options.shard = ShardSpec{};
  for (std::uint64_t s = 0; s < count; ++s) {
    const ShardFile& f = files[*owner[s]];
    merged.trials.insert(merged.trials.end(), f.shard.trials.begin(), f.shard.trials.end());
  }
  HASIM_ASSERT(merged.trials.size() == merged.options.trials * merged.options.cells.size());
  return merged;
}

}  // namespace hasim
