// The upgrade-skew report and its options as JSON (versioned, with every trial).
#include "reports/upgrade_text.hpp"

#include <set>

#include "hasim_version.hpp"
#include "reports/json_text.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

std::optional<ElectionMode> parse_mode(std::string_view text) {
  for (ElectionMode m : kUpgradeModes) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}
std::optional<UpgradeDirection> parse_direction(std::string_view text) {
  for (UpgradeDirection d : kUpgradeDirections) {
    if (to_string(d) == text) return d;
  }
  return std::nullopt;
}
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

std::optional<UpgradeSpec::Method> parse_method(std::string_view text) {
  for (UpgradeSpec::Method m : kUpgradeMethods) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}

// "method" only for another method than node: a study of the node method alone writes the
// bytes it wrote before methods were a dimension.
void add_method(const UpgradeCell& cell, OrderedJson& j) {
  if (cell.method != UpgradeSpec::Method::node) j["method"] = std::string(to_string(cell.method));
}

// "store" likewise only for a stacked etcd.
void add_store(const UpgradeCell& cell, OrderedJson& j) {
  if (cell.store != UpgradeStore::ideal) j["store"] = store_name(cell.store);
}

OrderedJson cell_json(const UpgradeCell& cell) {
  OrderedJson j = {{"mode", mode_name(cell.mode)},
                   {"direction", direction_name(cell.direction)},
                   {"nodes", cell.nodes}};
  add_method(cell, j);
  add_store(cell, j);
  return j;
}

UpgradeCell cell_from(const Json& j) {
  UpgradeCell cell;
  const auto mode = parse_mode(j.at("mode").get<std::string>());
  const auto direction = parse_direction(j.at("direction").get<std::string>());
  if (!mode || !direction) throw std::runtime_error("unknown mode or direction in a cell");
  cell.mode = *mode;
  cell.direction = *direction;
  cell.nodes = j.at("nodes").get<int>();
  if (j.contains("method")) {
    const auto method = parse_method(j.at("method").get<std::string>());
    if (!method) throw std::runtime_error("unknown method in a cell");
    cell.method = *method;
  }
  if (j.contains("store")) {
    const std::string store = j.at("store").get<std::string>();
    if (store != store_name(UpgradeStore::stacked)) throw std::runtime_error("unknown store");
    cell.store = UpgradeStore::stacked;
  }
  return cell;
}

OrderedJson options_json_impl(const UpgradeOptions& o) {
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

OrderedJson summary_json(const DurationSummary& s) {
  return {{"count", s.count},  {"minNs", s.min.ns}, {"meanNs", s.mean.ns}, {"p50Ns", s.p50.ns},
          {"p90Ns", s.p90.ns}, {"p99Ns", s.p99.ns}, {"maxNs", s.max.ns}};
}

}  // namespace

OrderedJson upgrade_options_to_json(const UpgradeOptions& o) { return options_json_impl(o); }

UpgradeOptions upgrade_options_from_json(const Json& j) { return options_from(j); }

std::string upgrade_options_json(const UpgradeOptions& options) {
  return options_json_impl(options).dump();
}

std::string upgrade_json(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  OrderedJson doc;
  doc["report"] = kUpgradeReportName;
  doc["file"] = "report";
  doc["formatVersion"] = kUpgradeFormatVersion;
  doc["hasimVersion"] = kVersion;
  doc["options"] = options_json_impl(r.options);
  doc["reproduce"] = upgrade_reproduce_command(r.options);
  doc["kep"] = {{"upgrade3Nodes", kKepUpgrade}, {"rollback", kKepRollback}};
  OrderedJson models = OrderedJson::array();
  std::set<int> seen;
  for (const UpgradeCell& c : r.options.cells) {
    if (!model_covers(c.nodes) || !seen.insert(c.nodes).second) continue;
    for (UpgradeDirection d : kUpgradeDirections) {
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
    OrderedJson cell = {{"cell", describe(s.cell)},
                        {"mode", mode_name(s.cell.mode)},
                        {"direction", direction_name(s.cell.direction)},
                        {"nodes", s.cell.nodes}};
    add_method(s.cell, cell);
    add_store(s.cell, cell);
    OrderedJson figures = {{"trials", s.trials},
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
                           {"trialData", trial_fields_json(upgrade_trial_fields(), r.trials, begin,
                                                           begin + r.options.trials)}};
    for (auto& [key, value] : figures.items()) cell[key] = value;
    out_cells.push_back(std::move(cell));
  }
  doc["cells"] = out_cells;
  doc["sample"] = {{"cell", describe(r.options.cells[r.sample.cell])},
                   {"trial", r.sample.trial},
                   {"seed", r.sample.seed}};
  return json_text(doc);
}

}  // namespace hasim
