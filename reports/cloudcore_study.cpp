// The cloudcore study as a Study (reports/study.hpp): its flags, its cells (fault x load
// balancer x mode), its trial and the fields each trial reports. Seeds, threads, shards,
// merge, progress and CSV are the generic runner's; the writers are cloudcore_report.cpp and
// cloudcore_json.cpp.
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "reports/cloudcore_report.hpp"
#include "reports/cell_study.hpp"
#include "reports/study_flags.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// The default --trials: 16 cells x 100 trials take 17-26 s on two shared cores, 16 s of CPU
// (README): well under a minute, with intervals of about +-10 points on a probability.
constexpr std::uint64_t kDefaultTrials = 100;
constexpr int kMaxEdges = 100;

const std::vector<TrialField<CloudCoreTrial>>& cloudcore_fields() {
  using T = CloudCoreTrial;
  using I = std::int64_t;
  static const std::vector<TrialField<T>> fields{
      {"served", [](const T& t) -> I { return t.served; }, [](T& t, I v) { t.served = v != 0; }},
      {"servedAfterNs", [](const T& t) { return t.served_after.ns; },
       [](T& t, I v) { t.served_after = Duration{v}; }},
      {"converged", [](const T& t) -> I { return t.converged; },
       [](T& t, I v) { t.converged = v != 0; }},
      {"convergedAfterNs", [](const T& t) { return t.converged_after.ns; },
       [](T& t, I v) { t.converged_after = Duration{v}; }},
      {"resent", [](const T& t) { return t.resent; }, [](T& t, I v) { t.resent = v; }},
      {"duplicated", [](const T& t) { return t.duplicated; }, [](T& t, I v) { t.duplicated = v; }},
      {"givenUp", [](const T& t) { return t.dropped; }, [](T& t, I v) { t.dropped = v; }},
      {"dualServing", [](const T& t) -> I { return t.dual_serving; },
       [](T& t, I v) { t.dual_serving = v != 0; }},
      {"dualServingNs", [](const T& t) { return t.dual_serving_time.ns; },
       [](T& t, I v) { t.dual_serving_time = Duration{v}; }},
      {"dualServingBefore", [](const T& t) -> I { return t.dual_serving_before; },
       [](T& t, I v) { t.dual_serving_before = v != 0; }},
  };
  return fields;
}

// What `hasim report diff` compares in cloudcore.json, per cell.
ComparedCells compared_cells() {
  ComparedCells c;
  c.cells = "/cells";
  c.cell_name = "/cell";
  c.figures = {
      {"servedAgain", "time until every edge is served by the new leader", "", "",
       "/servedSamplesNs", ""},
      {"converged", "time until every edge store equals the cloud's", "", "", "/convergedSamplesNs",
       ""},
      {"dualServing", "P(two CloudCores served at once)", "/dualServingTrials", "/trials", "", ""},
      {"notServed", "P(edges not served again within the horizon)", "/notServed", "/trials", "",
       ""},
      {"notConverged", "P(an edge store not converged within the horizon)", "/notConverged",
       "/trials", "", ""}};
  c.settings = {"/hasimVersion", "/seed", "/trialsPerCell", "/settings"};
  return c;
}

template <typename Enum, std::size_t N>
std::vector<std::string> names_of(const std::vector<Enum>& values, const Enum (&)[N]) {
  std::vector<std::string> out;
  for (Enum e : values) out.emplace_back(to_string(e));
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// A list flag of names, each allowed at most once (a cell's name must be unique).
template <typename Enum, std::size_t N>
std::optional<std::vector<Enum>> unique_names(const std::string& flag, const std::string& text,
                                              const Enum (&allowed)[N], std::string* error) {
  auto values = names_flag(flag, text, allowed, error);
  if (!values) return std::nullopt;
  std::set<Enum> seen;
  for (Enum e : *values) {
    if (!seen.insert(e).second) {
      *error = flag + " \"" + text + "\": \"" + std::string(to_string(e)) +
               "\" is given twice; name each at most once";
      return std::nullopt;
    }
  }
  return values;
}

std::optional<int> edges_flag(const std::string& text, std::string* error) {
  int edges = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), edges);
  if (ec != std::errc{} || end != text.data() + text.size() || edges < 1 || edges > kMaxEdges) {
    *error = "--edges \"" + text + "\": give a whole number of edge nodes from 1 to " +
             std::to_string(kMaxEdges) + ", e.g. --edges 3";
    return std::nullopt;
  }
  return edges;
}

class CloudCoreStudy final
    : public CellScenarioStudy<CloudCoreOptions, CloudCoreCell, CloudCoreTrial> {
 public:
  const StudyInfo& info() const override {
    static const StudyInfo info{
        "cloudcore",
        "KubeEdge CloudCore hot standby: time until edges are served and converged after the "
        "leader fails, resends, dual serving; readiness gate vs keepalived, v1.3 vs v1.5",
        kDefaultTrials,
        "cell; the default 16 cells x 100 trials take 17-26 s on 2 cores (16 s of CPU)",
        {{"--modes",
          "CloudCore modes (default v1.3,v1.5,v1.7+; v1.7+ runs behind the Service only)"},
         {"--load-balancers", "load balancers (default service,keepalived)"},
         {"--faults",
          "faults on the leader (default crash,crash-restart,apiserver-partition,node-down)"},
         {"--edges", "edge nodes (default 3)"},
         {"--partition", "how long apiserver-partition cuts the leader off (default 2m)"},
         {"--node-down", "how long node-down keeps the leader's node off (default 2m)"},
         {"--horizon", "how long a trial runs after the fault (default 5m)"}},
        1,
        compared_cells()};
    return info;
  }

  std::optional<std::string> configure(const StudyArgs& args) override {
    std::string error;
    if (!read_cells(args.flags, &error) || !read_durations(args.flags, &error)) return error;
    const auto edges = edges_flag(flag_or(args.flags, "--edges", "3"), &error);
    if (!edges) return error;
    options_.settings.edges = *edges;
    options_.trials = args.trials.value_or(info().default_trials);
    options_.seed = args.seed;
    return validate();
  }

  void read_options(const Json& j) override {
    options_.trials = j.at("trialsPerCell").get<std::uint64_t>();
    options_.seed = j.at("seed").get<std::uint64_t>();
    std::map<std::string, std::string> flags;
    for (const auto& [key, flag] :
         {std::pair{"modes", "--modes"}, std::pair{"loadBalancers", "--load-balancers"},
          std::pair{"faults", "--faults"}}) {
      flags[flag] = joined(j.at(key).get<std::vector<std::string>>());
    }
    std::string error;
    if (!read_cells(flags, &error)) throw std::runtime_error(error);
    const Json& s = j.at("settings");
    CloudCoreSettings& c = options_.settings;
    c.edges = s.at("edges").get<int>();
    c.partition = Duration{s.at("partitionNs").get<std::int64_t>()};
    c.node_down = Duration{s.at("nodeDownNs").get<std::int64_t>()};
    c.horizon = Duration{s.at("horizonNs").get<std::int64_t>()};
  }

  OrderedJson options_json() const override {
    const CloudCoreSettings& s = options_.settings;
    return {{"trialsPerCell", options_.trials},
            {"seed", options_.seed},
            {"faults", names_of(options_.faults, kCloudCoreFaults)},
            {"loadBalancers", names_of(options_.balancers, kCloudLoadBalancers)},
            {"modes", names_of(options_.modes, kCloudCoreStudyModes)},
            {"settings",
             {{"edges", s.edges},
              {"partitionNs", s.partition.ns},
              {"nodeDownNs", s.node_down.ns},
              {"horizonNs", s.horizon.ns}}}};
  }

  std::optional<std::string> validate() const override {
    const CloudCoreSettings& s = options_.settings;
    if (options_.trials == 0) return "--trials must be at least 1";
    if (options_.trials > std::numeric_limits<std::uint64_t>::max() / 64) {
      return "--trials " + std::to_string(options_.trials) + " is too many; use fewer trials";
    }
    if (s.edges < 1 || s.edges > kMaxEdges) return "--edges must be from 1 to 100";
    if (s.partition.ns <= 0 || s.node_down.ns <= 0) {
      return "--partition and --node-down must be positive";
    }
    // The fault must be over well before the end, so recovery has time to show.
    if (s.horizon < std::max(s.partition, s.node_down) + minutes(1) || s.horizon > hours(1)) {
      return "--horizon " + format_duration(s.horizon) +
             " must be at least 1m longer than --partition and --node-down and at most 1h; "
             "e.g. --horizon 5m";
    }
    if (options_.faults.empty() || options_.balancers.empty() || options_.modes.empty()) {
      return "--faults, --load-balancers and --modes each need at least one value";
    }
    if (options_.cells().empty()) {
      return "no cell to run: --modes v1.7+ runs behind the Service only (keepalived's check "
             "needs /readyz, which v1.7 removed); add service to --load-balancers";
    }
    return std::nullopt;
  }

  Report report() override {
    const CloudCoreResults r = summarize_cloudcore(options_, trials_);
    return {cloudcore_json(r), cloudcore_markdown(r), cloudcore_html(r)};
  }
  Table cell_table() const override {
    return cloudcore_cell_table(summarize_cloudcore(options_, trials_));
  }

 protected:
  Scenario cell_scenario(const CloudCoreCell& cell) const override {
    return cloudcore_study_scenario(cell, options_.settings);
  }
  CloudCoreTrial cell_trial(const Scenario& scenario, const CloudCoreCell& cell,
                            std::uint64_t seed) const override {
    return run_cloudcore_trial(scenario, cell, options_.settings, seed);
  }
  const std::vector<TrialField<CloudCoreTrial>>& fields() const override {
    return cloudcore_fields();
  }

 private:
  bool read_cells(const std::map<std::string, std::string>& flags, std::string* error) {
    const auto modes = unique_names("--modes", flag_or(flags, "--modes", "v1.3,v1.5,v1.7+"),
                                    kCloudCoreStudyModes, error);
    if (!modes) return false;
    const auto balancers =
        unique_names("--load-balancers", flag_or(flags, "--load-balancers", "service,keepalived"),
                     kCloudLoadBalancers, error);
    if (!balancers) return false;
    const auto faults = unique_names(
        "--faults", flag_or(flags, "--faults", "crash,crash-restart,apiserver-partition,node-down"),
        kCloudCoreFaults, error);
    if (!faults) return false;
    options_.modes = *modes;
    options_.balancers = *balancers;
    options_.faults = *faults;
    return true;
  }
  bool read_durations(const std::map<std::string, std::string>& flags, std::string* error) {
    CloudCoreSettings& s = options_.settings;
    for (const auto& [flag, fallback, target] : {std::tuple{"--partition", "2m", &s.partition},
                                                 std::tuple{"--node-down", "2m", &s.node_down},
                                                 std::tuple{"--horizon", "5m", &s.horizon}}) {
      const auto d = positive_duration_flag(flag, flag_or(flags, flag, fallback), error);
      if (!d) return false;
      *target = *d;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Study> make_cloudcore_study() { return std::make_unique<CloudCoreStudy>(); }

}  // namespace hasim
