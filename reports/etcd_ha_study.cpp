// The etcd-ha study as a Study (reports/study.hpp): its flags, its cells (storage x mode x
// members x zones), its trial and the fields each trial reports. Seeds, threads, shards, merge,
// progress and CSV are the generic runner's; the writers are etcd_ha_report.cpp and
// etcd_ha_json.cpp.
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "reports/etcd_ha_report.hpp"
#include "reports/cell_study.hpp"
#include "reports/study_flags.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr double kMaxRate = 20.0;  // expected events of one kind per window

const std::vector<TrialField<EtcdHaTrial>>& etcd_ha_fields() {
  using T = EtcdHaTrial;
  using I = std::int64_t;
  static const std::vector<TrialField<T>> fields{
      {"faults", [](const T& t) { return t.faults; }, [](T& t, I v) { t.faults = v; }},
      {"volumesLost", [](const T& t) { return t.volumes_lost; },
       [](T& t, I v) { t.volumes_lost = v; }},
      {"storeOutage", [](const T& t) -> I { return t.store_outage; },
       [](T& t, I v) { t.store_outage = v != 0; }},
      {"quorumLost", [](const T& t) -> I { return t.quorum_lost; },
       [](T& t, I v) { t.quorum_lost = v != 0; }},
      {"unavailableNs", [](const T& t) { return t.unavailable.ns; },
       [](T& t, I v) { t.unavailable = Duration{v}; }},
      {"longestOutageNs", [](const T& t) { return t.longest_outage.ns; },
       [](T& t, I v) { t.longest_outage = Duration{v}; }},
      {"recovered", [](const T& t) -> I { return t.recovered; },
       [](T& t, I v) { t.recovered = v != 0; }},
      {"revisionsLost", [](const T& t) { return t.revisions_lost; },
       [](T& t, I v) { t.revisions_lost = v; }},
      {"lossNotPermitted", [](const T& t) -> I { return t.loss_not_permitted; },
       [](T& t, I v) { t.loss_not_permitted = v != 0; }},
      {"manual", [](const T& t) -> I { return t.manual; }, [](T& t, I v) { t.manual = v != 0; }},
  };
  return fields;
}

ComparedCells compared_cells() {
  ComparedCells c;
  c.cells = "/cells";
  c.cell_name = "/cell";
  c.figures = {{"quorumLost", "P(a write outage of 30s or more)", "/quorumLost", "/trials", "", ""},
               {"notRecovered", "P(writes still failing at the window's end)", "/notRecovered",
                "/trials", "", ""},
               {"operatorNeeded", "P(an operator needed)", "/operatorNeeded", "/trials", "", ""},
               {"writesLost", "P(acknowledged writes lost)", "/lossTrials", "/trials", "", ""},
               {"recovery", "time until writes succeed again", "", "", "/recoverySamplesNs", ""}};
  c.settings = {"/hasimVersion", "/seed", "/trialsPerCell", "/settings"};
  return c;
}

std::optional<std::vector<int>> ints_flag(const std::string& flag, const std::string& text,
                                          const std::set<int>& allowed, std::string* error) {
  std::vector<int> out;
  for (const std::string& part : split_list(text)) {
    int v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    const bool ok = ec == std::errc{} && end == part.data() + part.size() && allowed.contains(v);
    if (!ok || std::find(out.begin(), out.end(), v) != out.end()) {
      std::string choices;
      for (int a : allowed) choices += (choices.empty() ? "" : ", ") + std::to_string(a);
      *error = flag + " \"" + text + "\": give distinct values among " + choices + ", e.g. " +
               flag + " " + std::to_string(*allowed.begin());
      return std::nullopt;
    }
    out.push_back(v);
  }
  if (out.empty()) *error = flag + " needs at least one value";
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<double> rate_flag(const std::string& flag, const std::string& text,
                                std::string* error) {
  double v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !(v >= 0.0) || v > kMaxRate) {
    *error = flag + " \"" + text +
             "\": give the expected number of events per window, from 0 "
             "to 20, e.g. " +
             flag + " 0.5";
    return std::nullopt;
  }
  return v;
}

std::string ints_text(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

template <typename Enum>
std::vector<std::string> names_of(const std::vector<Enum>& values) {
  std::vector<std::string> out;
  for (Enum e : values) out.emplace_back(to_string(e));
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

class EtcdHaStudy final : public CellScenarioStudy<EtcdHaOptions, EtcdHaCell, EtcdHaTrial> {
 public:
  const StudyInfo& info() const override {
    static const StudyInfo info{
        "etcd-ha",
        "etcd under etcd-druid: quorum loss, recovery time, acknowledged writes lost and "
        "operators needed; persistent vs ephemeral, upstream vs the seed's proposal, 3 vs 5 "
        "members, 1 vs 3 zones",
        1000,
        "cell; the default 16 cells x 1,000 trials of 30 simulated minutes each",
        {{"--storages", "storage kinds (default persistent,ephemeral)"},
         {"--modes", "etcd-druid modes (default upstream,proposal)"},
         {"--members", "cluster sizes (default 3,5)"},
         {"--zones", "zones the workers spread over (default 1,3)"},
         {"--window",
          "simulated time per trial (default 30m; faults land from 2m to 5m before "
          "the end)"},
         {"--node-failures", "expected worker power-offs per window (default 0.5)"},
         {"--node-down", "how long a worker stays off (default 10m)"},
         {"--zone-outages", "expected zone outages per window (default 0.1)"},
         {"--zone-down", "how long a zone stays off (default 15m)"},
         {"--volume-losses", "expected member data losses per window (default 0.2)"},
         {"--store-outages", "expected backup-store outages per window (default 0.2)"},
         {"--store-down", "how long the store stays down (default 15m)"},
         {"--pod-deletions", "expected pod deletions per window (default 0.5)"},
         {"--operator-after",
          "upstream: the operator runs the quorum-loss runbook once Ready "
          "has been False this long (default 10m)"}},
        1,
        compared_cells()};
    return info;
  }

  std::optional<std::string> configure(const StudyArgs& args) override {
    std::string error;
    if (!read_cells(args.flags, &error) || !read_settings(args.flags, &error)) return error;
    options_.trials = args.trials.value_or(info().default_trials);
    options_.seed = args.seed;
    return validate();
  }

  void read_options(const Json& j) override {
    options_.trials = j.at("trialsPerCell").get<std::uint64_t>();
    options_.seed = j.at("seed").get<std::uint64_t>();
    std::map<std::string, std::string> flags{
        {"--storages", joined(j.at("storages").get<std::vector<std::string>>())},
        {"--modes", joined(j.at("modes").get<std::vector<std::string>>())},
        {"--members", ints_text(j.at("members").get<std::vector<int>>())},
        {"--zones", ints_text(j.at("zones").get<std::vector<int>>())}};
    std::string error;
    if (!read_cells(flags, &error)) throw std::runtime_error(error);
    const Json& s = j.at("settings");
    EtcdHaSettings& e = options_.settings;
    for (const auto& [key, target] : durations(e))
      *target = Duration{s.at(key).get<std::int64_t>()};
    for (const auto& [key, target] : rates(e)) *target = s.at(key).get<double>();
  }

  OrderedJson options_json() const override {
    OrderedJson settings = OrderedJson::object();
    EtcdHaSettings copy = options_.settings;
    for (const auto& [key, target] : durations(copy)) settings[key] = target->ns;
    for (const auto& [key, target] : rates(copy)) settings[key] = *target;
    settings["writeRate"] = copy.writeRate;
    return {{"trialsPerCell", options_.trials},
            {"seed", options_.seed},
            {"storages", names_of(options_.storages)},
            {"modes", names_of(options_.modes)},
            {"members", options_.members},
            {"zones", options_.zones},
            {"settings", settings}};
  }

  std::optional<std::string> validate() const override {
    const EtcdHaSettings& s = options_.settings;
    if (options_.trials == 0) return "--trials must be at least 1";
    if (options_.trials > std::numeric_limits<std::uint64_t>::max() / 64) {
      return "--trials " + std::to_string(options_.trials) + " is too many; use fewer trials";
    }
    if (s.window < minutes(10) || s.window > hours(24)) {
      return "--window " + format_duration(s.window) +
             " must be from 10m to 24h (faults land "
             "from 2m to 5m before its end), e.g. --window 30m";
    }
    EtcdHaSettings copy = s;
    for (const auto& [key, target] : rates(copy)) {
      if (!(*target >= 0.0) || *target > kMaxRate) return std::string(key) + " must be 0 to 20";
    }
    if (options_.cells().empty()) return "no cell to run";
    return std::nullopt;
  }

  Report report() override {
    const EtcdHaResults r = summarize_etcd_ha(options_, trials_);
    return {etcd_ha_json(r), etcd_ha_markdown(r), etcd_ha_html(r)};
  }
  Table cell_table() const override {
    return etcd_ha_cell_table(summarize_etcd_ha(options_, trials_));
  }

 protected:
  Scenario cell_scenario(const EtcdHaCell& cell) const override {
    return etcd_ha_study_scenario(cell, options_.settings);
  }
  EtcdHaTrial cell_trial(const Scenario& scenario, const EtcdHaCell& cell,
                         std::uint64_t seed) const override {
    return run_etcd_ha_trial(scenario, cell, options_.settings, seed);
  }
  const std::vector<TrialField<EtcdHaTrial>>& fields() const override { return etcd_ha_fields(); }

 private:
  // The settings by their JSON names (also how the flags are read).
  static std::vector<std::pair<const char*, Duration*>> durations(EtcdHaSettings& s) {
    return {{"windowNs", &s.window},
            {"nodeDownNs", &s.nodeDown},
            {"zoneDownNs", &s.zoneDown},
            {"storeDownNs", &s.storeDown},
            {"operatorAfterNs", &s.operatorAfter}};
  }
  static std::vector<std::pair<const char*, double*>> rates(EtcdHaSettings& s) {
    return {{"nodeFailures", &s.nodeFailures},
            {"zoneOutages", &s.zoneOutages},
            {"volumeLosses", &s.volumeLosses},
            {"storeOutages", &s.storeOutages},
            {"podDeletions", &s.podDeletions}};
  }

  bool read_cells(const std::map<std::string, std::string>& flags, std::string* error) {
    const auto storages = names_flag(
        "--storages", flag_or(flags, "--storages", "persistent,ephemeral"), kEtcdHaStorages, error);
    if (!storages) return false;
    const auto modes =
        names_flag("--modes", flag_or(flags, "--modes", "upstream,proposal"), kEtcdHaModes, error);
    if (!modes) return false;
    const auto members =
        ints_flag("--members", flag_or(flags, "--members", "3,5"), {1, 3, 5}, error);
    if (!members) return false;
    const auto zones = ints_flag("--zones", flag_or(flags, "--zones", "1,3"), {1, 3}, error);
    if (!zones) return false;
    options_.storages = *storages;
    options_.modes = *modes;
    options_.members = *members;
    options_.zones = *zones;
    return true;
  }

  bool read_settings(const std::map<std::string, std::string>& flags, std::string* error) {
    EtcdHaSettings& s = options_.settings;
    for (const auto& [flag, fallback, target] :
         {std::tuple{"--window", "30m", &s.window}, std::tuple{"--node-down", "10m", &s.nodeDown},
          std::tuple{"--zone-down", "15m", &s.zoneDown},
          std::tuple{"--store-down", "15m", &s.storeDown},
          std::tuple{"--operator-after", "10m", &s.operatorAfter}}) {
      const auto d = positive_duration_flag(flag, flag_or(flags, flag, fallback), error);
      if (!d) return false;
      *target = *d;
    }
    for (const auto& [flag, fallback, target] :
         {std::tuple{"--node-failures", "0.5", &s.nodeFailures},
          std::tuple{"--zone-outages", "0.1", &s.zoneOutages},
          std::tuple{"--volume-losses", "0.2", &s.volumeLosses},
          std::tuple{"--store-outages", "0.2", &s.storeOutages},
          std::tuple{"--pod-deletions", "0.5", &s.podDeletions}}) {
      const auto r = rate_flag(flag, flag_or(flags, flag, fallback), error);
      if (!r) return false;
      *target = *r;
    }
    return true;
  }
};

}  // namespace

std::vector<EtcdHaCell> EtcdHaOptions::cells() const {
  std::vector<EtcdHaCell> out;
  for (DruidStorage storage : storages) {
    for (druid::DruidMode mode : modes) {
      for (int m : members) {
        for (int z : zones) out.push_back(EtcdHaCell{storage, mode, m, z});
      }
    }
  }
  return out;
}

std::unique_ptr<Study> make_etcd_ha_study() { return std::make_unique<EtcdHaStudy>(); }

}  // namespace hasim
