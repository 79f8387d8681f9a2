// `hasim check`: schedules round-trip through scenario JSON, generation is a pure function of
// the seed and stays within the assumptions when asked, shrinking follows its order, known
// weak configurations are found and shrunk to at most 2 faults whose replay reproduces the
// violation, and a correct configuration gives no false violation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "properties/check_system.hpp"
#include "reports/check_output.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "properties/replay.hpp"

using namespace hasim;

namespace {

struct Loaded {
  Json json;
  Scenario scenario;
};

// A scenario file as written, or with its own faults removed (so the generator must find the
// schedule itself).
Loaded load(const std::string& relative, bool keep_faults = false) {
  std::ifstream in(std::string(HASIM_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  Json json = Json::parse(text.str());
  if (!keep_faults) json.erase("faults");
  const LoadResult result = load_scenario_text(json.dump(), relative);
  INFO(format_errors(result.errors, relative));
  REQUIRE(result.scenario.has_value());
  return {json, *result.scenario};
}

bool violated(const RunResult& result, const std::string& property) {
  for (std::size_t i = 0; i < result.property_specs.size(); ++i) {
    if (result.property_specs[i] == property && result.violations[i]) return true;
  }
  return false;
}

// The replay file of the failure loads, re-runs to the recorded trace hash and violates the
// same property.
void require_replay_reproduces(const Json& scenario_json, const CheckFailure& failure) {
  const Json replay_json = check_replay(scenario_json, failure, "");
  const ReplayLoad replay = load_replay_text(replay_json.dump(), "replay.json");
  INFO(format_errors(replay.errors, "replay.json"));
  REQUIRE(replay.replay.has_value());
  CHECK(faults_to_json(replay.replay->scenario.faults) ==
        faults_to_json(failure.shrunk.minimal.faults));
  RunOptions options;
  options.seed = replay.replay->seed;
  const auto rerun = run_scenario(replay.replay->scenario, options);
  REQUIRE(rerun.has_value());
  CHECK(rerun->trace_hash == replay.replay->trace_hash);
  CHECK(violated(*rerun, failure.property));
}

CheckOptions options_with(std::uint64_t runs, std::vector<FaultChoice> kinds = {},
                          bool within = true) {
  CheckOptions options;
  options.runs = runs;
  options.jobs = 2;
  options.generate.kinds = std::move(kinds);
  options.within_assumptions = within;
  options.stop_at_first = true;  // a weak configuration needs only its first violation
  return options;
}

// Found within the runs, shrunk to at most 2 faults, and replayable.
const CheckFailure& require_found(const std::optional<CheckResult>& result, const Json& json,
                                  const std::string& property) {
  REQUIRE(result.has_value());
  REQUIRE(result->failure.has_value());
  const CheckFailure& failure = *result->failure;
  CHECK(failure.property == property);
  CHECK(failure.shrunk.minimal.faults.size() + failure.shrunk.minimal.redraws.size() <= 2);
  CHECK(failure.shrunk.minimal.faults.size() <= failure.original.faults.size());
  require_replay_reproduces(json, failure);
  return failure;
}

// The scenario with one property: what a search is about, so another property's violation
// (the control plane's eventually-leader after a controller-manager crash) does not end it.
Loaded only(const std::string& relative, const std::string& property) {
  Loaded loaded = load(relative);
  loaded.json["properties"] = Json::array({property});
  loaded.scenario.properties = {property};
  return loaded;
}

bool mentions(const std::vector<std::string>& sentences, const std::string& word) {
  for (const std::string& s : sentences) {
    if (s.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every generated schedule round-trips through scenario JSON", "[check]") {
  for (const char* file :
       {"scenarios/check/control-plane-3.json", "scenarios/upgrade/coordinated-upgrade-3.json"}) {
    const Loaded base = load(file);
    const FaultSpace space = fault_space(base.scenario, false);
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
      const Schedule schedule = generate_schedule(space, {}, seed);
      Json json = base.json;
      write_schedule(schedule, json);
      const LoadResult loaded = load_scenario_text(json.dump(), "generated");
      INFO(file << " seed " << seed << ": " << format_errors(loaded.errors, "generated"));
      REQUIRE(loaded.scenario.has_value());
      CHECK(faults_to_json(loaded.scenario->faults) == faults_to_json(schedule.faults));
      for (const Redraw& redraw : schedule.redraws) {
        const auto& a = std::any_cast<const UpgradeSpec&>(redraw.value);
        const UpgradeSpec& b = *loaded.scenario->section<hasim::UpgradeSpec>();
        CHECK((a.at == b.at && a.downtime == b.downtime && a.gap == b.gap &&
               a.startJitter == b.startJitter && a.canary == b.canary && a.stop == b.stop &&
               a.randomOrder == b.randomOrder && a.order == b.order));
      }
    }
  }
}

TEST_CASE("a schedule is a pure function of the seed, and swarm runs differ in kind", "[check]") {
  const Loaded base = load("scenarios/check/control-plane-3.json");
  const FaultSpace space = fault_space(base.scenario, true);
  CHECK(space.applicable.size() == 12);  // every kind but upgrade timing
  std::set<std::string> schedules;
  std::set<std::vector<FaultChoice>> swarms;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const Schedule a = generate_schedule(space, {}, seed);
    const Schedule b = generate_schedule(space, {}, seed);
    CHECK(faults_to_json(a.faults) == faults_to_json(b.faults));
    CHECK(a.enabled == b.enabled);
    CHECK(!a.faults.empty());
    CHECK(static_cast<int>(a.faults.size()) <= GenerateOptions{}.max_faults);
    for (const FaultSpec& f : a.faults) {
      CHECK(std::find(a.enabled.begin(), a.enabled.end(), *choice_of(f)) != a.enabled.end());
      CHECK(f.at < base.scenario.duration);
    }
    schedules.insert(faults_to_json(a.faults).dump());
    swarms.insert(a.enabled);
  }
  CHECK(schedules.size() == 60);
  CHECK(swarms.size() >= 40);  // 2^12 possible menus
}

TEST_CASE("within the assumptions, no generated fault breaks one; beyond, some do", "[check]") {
  for (const char* file :
       {"scenarios/check/control-plane-3.json", "scenarios/election/hung-renew-unbounded.json"}) {
    const Loaded base = load(file);
    const FaultSpace within = fault_space(base.scenario, true);
    const FaultSpace beyond = fault_space(base.scenario, false);
    int broken_beyond = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      const Scenario a = apply_schedule(base.scenario, generate_schedule(within, {}, seed));
      INFO(file << " seed " << seed);
      CHECK(broken_assumptions(a).empty());
      const Scenario b = apply_schedule(base.scenario, generate_schedule(beyond, {}, seed));
      if (!broken_assumptions(b).empty()) ++broken_beyond;
    }
    CHECK(broken_beyond > 30);
  }
}

TEST_CASE("a sole candidate's restart must fit in eventually-leader's bound", "[check]") {
  // One control-plane node: a crashed kube-controller-manager is its lease's only candidate;
  // it takes its own lease back leaseDuration + 2.2 x retryPeriod (19.4s) after it restarts,
  // and crashes closer than that add up. eventually-leader:25s leaves 5.6s of downtime.
  const Loaded base = load("scenarios/cloudcore/cloudcore-2156-v1.5.json");
  const auto crash = [](const char* at, Duration down) {
    FaultSpec f;
    f.kind = "crash";
    f.at = *parse_duration(at);
    f.for_duration = down;
    f.targets = {"cp-1/kube-controller-manager"};
    return f;
  };
  const auto broken_with = [&](std::vector<FaultSpec> faults) {
    Scenario s = base.scenario;
    s.faults = std::move(faults);
    return broken_assumptions(s);
  };
  CHECK(broken_with({crash("60s", seconds(5))}).empty());
  CHECK(mentions(broken_with({crash("60s", seconds(7))}), "the only kube-controller-manager"));
  CHECK(mentions(broken_with({crash("60s", milliseconds(1)), crash("68s", milliseconds(1))}),
                 "2 crashes from 1m0s"));
  CHECK(broken_with({crash("60s", milliseconds(1)), crash("90s", milliseconds(1))}).empty());
  const FaultSpace within = fault_space(base.scenario, true);
  REQUIRE(within.max_restart.count("cp-1/kube-controller-manager") == 1);
  CHECK(within.max_restart.at("cp-1/kube-controller-manager") == milliseconds(5599));
  CHECK(fault_space(base.scenario, false).max_restart.empty());
}

TEST_CASE("shrinking removes faults, then shortens them, then moves them earlier", "[check]") {
  // Synthetic: fails iff some pause lasts at least 3.5s and some partition starts by 100s.
  const auto fails = [](const Schedule& s) {
    bool pause = false, partition = false;
    for (const FaultSpec& f : s.faults) {
      if (f.kind == "pause" && *f.for_duration >= milliseconds(3500)) pause = true;
      if (f.kind == "partition" && f.at <= seconds(100)) partition = true;
    }
    return pause && partition;
  };
  Schedule failing;
  for (int i = 0; i < 8; ++i) {
    FaultSpec noise;
    noise.kind = "crash";
    noise.targets = {"cp-1/kube-scheduler"};
    noise.at = seconds(10 * i);
    noise.for_duration = seconds(5);
    failing.faults.push_back(noise);
  }
  FaultSpec pause;
  pause.kind = "pause";
  pause.targets = {"cp-1/kube-controller-manager"};
  pause.at = seconds(200);
  pause.for_duration = seconds(40);
  FaultSpec partition;
  partition.kind = "partition";
  partition.targets = {"cp-1"};
  partition.at = seconds(90);
  partition.for_duration = seconds(60);
  failing.faults.insert(failing.faults.begin() + 3, pause);
  failing.faults.push_back(partition);
  REQUIRE(fails(failing));

  const ShrinkResult shrunk = shrink_schedule(failing, fails, 1000);
  REQUIRE(shrunk.minimal.faults.size() == 2);
  CHECK(fails(shrunk.minimal));
  CHECK(!shrunk.exhausted);
  const FaultSpec& first = shrunk.minimal.faults[0];
  const FaultSpec& second = shrunk.minimal.faults[1];
  // Earliest: both at 0 (the pause's time never mattered, nor the partition's within 100s).
  CHECK(first.at == Duration{});
  CHECK(second.at == Duration{});
  const FaultSpec& p = first.kind == "pause" ? first : second;
  const FaultSpec& q = first.kind == "pause" ? second : first;
  CHECK(p.kind == "pause");
  CHECK(*p.for_duration == milliseconds(3500));  // shortest that still fails
  CHECK(q.kind == "partition");
  CHECK(*q.for_duration == milliseconds(1));

  const ShrinkResult limited = shrink_schedule(failing, fails, 5);
  CHECK(limited.steps == 5);
  CHECK(limited.exhausted);
  CHECK(fails(limited.minimal));
}

TEST_CASE("weak: a clock-rate ratio above LD/RD is found and shrunk", "[check][weak]") {
  const Loaded base = load("scenarios/election/clock-rate-above-ld-rd.json");
  const auto result = run_check(base.scenario, options_with(100));
  const CheckFailure& failure = require_found(result, base.json, "single-leader");
  CHECK(mentions(failure.broken_assumptions, "clock rates differing by 1.55"));
}

TEST_CASE("weak: a pause longer than LD - RP - RD is found and shrunk", "[check][weak]") {
  const Loaded base = load("scenarios/check/control-plane-3.json");
  const auto result =
      run_check(base.scenario, options_with(100, {"pause", "partition-isolate"}, false));
  const CheckFailure& failure = require_found(result, base.json, "single-leader");
  CHECK(mentions(failure.broken_assumptions, "a pause of"));
}

TEST_CASE("weak: a hung renew request (client-go up to 1.11) is found and shrunk",
          "[check][weak]") {
  const Loaded base = load("scenarios/election/hung-renew-unbounded.json");
  const auto result = run_check(base.scenario, options_with(100, {"apiserver-hang"}, false));
  const CheckFailure& failure = require_found(result, base.json, "single-leader");
  REQUIRE(failure.shrunk.minimal.faults.size() == 1);
  CHECK(failure.shrunk.minimal.faults[0].kind == "apiserver-hang");
  CHECK(mentions(failure.broken_assumptions, "renewRequests: unbounded"));
}

TEST_CASE("weak: an old-version node crashing during a coordinated upgrade breaks skew",
          "[check][weak][upgrade]") {
  // A finding of the CLE model: while the last old node is down, the election controller
  // elects a newer candidate; its old apiserver serves again before the leader is preempted.
  // No assumption is broken. Kept as scenarios/upgrade/coordinated-old-node-crash-3.json.
  const Loaded base = load("scenarios/upgrade/coordinated-old-node-crash-3.json");
  Scenario scenario = base.scenario;
  const auto result =
      run_check(scenario, options_with(100, {"crash", "node-down", "partition-isolate"}));
  const CheckFailure& failure = require_found(result, base.json, "no-skew");
  CHECK(failure.broken_assumptions.empty());
}

TEST_CASE("weak: kubeedge#2156, a v1.3 CloudCore leader crash, is found and shrunk",
          "[check][weak][cloudcore]") {
  // v1.3 never resets the readiness gate kubeedge.io/CloudCoreIsLeader: a leader whose
  // container crashes and restarts keeps its pod Ready, so the Service has two ready
  // endpoints once the standby leads. From the plain scenario (its own crash removed),
  // crashes alone find it; no assumption is broken.
  const Loaded base = only("scenarios/cloudcore/cloudcore-2156-v1.3.json", "single-serving");
  const auto result = run_check(base.scenario, options_with(100, {"crash"}));
  const CheckFailure& failure = require_found(result, base.json, "single-serving");
  CHECK(failure.broken_assumptions.empty());
  for (const FaultSpec& fault : failure.shrunk.minimal.faults) CHECK(fault.kind == "crash");
}

TEST_CASE("kubeedge#2156 is gone in v1.5: crashes never give two serving CloudCores",
          "[check][slow][cloudcore]") {
  // The same search over the v1.5 scenario (the gate patched False at start and on loss).
  const Loaded base = only("scenarios/cloudcore/cloudcore-2156-v1.5.json", "single-serving");
  CheckOptions options = options_with(200, {"crash"});
  options.stop_at_first = false;
  const auto result = run_check(base.scenario, options);
  REQUIRE(result.has_value());
  CHECK(result->violating_runs == 0);
  CHECK(result->faults_by_kind[fault_choice_index("crash")] > 0);
}

TEST_CASE("a correct configuration gives no false violation", "[check][slow]") {
  // Faults within the documented assumptions: every kind, swarm style, 200 runs; and the
  // unbounded renewals with no fault that can hold a request.
  const Loaded base = load("scenarios/check/control-plane-3.json");
  const auto result = run_check(base.scenario, options_with(200));
  REQUIRE(result.has_value());
  CHECK(result->violating_runs == 0);
  CHECK(result->incomplete_runs == 0);
  for (FaultChoice c : result->menu) CHECK(result->faults_by_kind[fault_choice_index(c)] > 0);
  const Loaded legacy = load("scenarios/election/hung-renew-unbounded.json");
  const auto legacy_result = run_check(legacy.scenario, options_with(100));
  REQUIRE(legacy_result.has_value());
  CHECK(legacy_result->violating_runs == 0);
}

TEST_CASE("a check gives the same answer for any number of jobs", "[check]") {
  const Loaded base = load("scenarios/election/clock-rate-above-ld-rd.json");
  CheckOptions one = options_with(40);
  one.jobs = 1;
  one.stop_at_first = false;
  CheckOptions two = options_with(40);
  two.stop_at_first = false;
  const auto a = run_check(base.scenario, one);
  const auto b = run_check(base.scenario, two);
  REQUIRE((a && b && a->failure && b->failure));
  CHECK(a->violating_runs == b->violating_runs);
  CHECK(a->failure->run == b->failure->run);
  CHECK(faults_to_json(a->failure->shrunk.minimal.faults) ==
        faults_to_json(b->failure->shrunk.minimal.faults));
  CHECK(a->failure->rerun.trace_hash == b->failure->rerun.trace_hash);
  CHECK(check_summary_json(*a, one, "x")["failure"] == check_summary_json(*b, two, "x")["failure"]);
  // Stopping at the first violation finds the same run.
  const auto c = run_check(base.scenario, options_with(40));
  REQUIRE((c && c->failure));
  CHECK(c->failure->run == a->failure->run);
  CHECK(c->runs < a->runs);
}

TEST_CASE("a scenario without properties, or no applicable kind, cannot be checked", "[check]") {
  Loaded base = load("scenarios/check/control-plane-3.json");
  std::string error;
  Scenario none = base.scenario;
  none.properties.clear();
  CHECK(!run_check(none, options_with(1), &error));
  CHECK(error.find("names no properties") != std::string::npos);
  CHECK(!run_check(base.scenario, options_with(1, {"upgrade-timing"}), &error));
  CHECK(error.find("can take") != std::string::npos);
}

TEST_CASE("each run has an event budget; a run that reaches it stops and is incomplete",
          "[check]") {
  const Loaded base = load("scenarios/check/control-plane-3.json");
  CheckOptions options;
  options.runs = 4;
  options.jobs = 2;
  options.max_shrink_steps = 0;
  options.max_events = 1000;  // far below a 10-minute control plane's
  const auto capped = run_check(base.scenario, options);
  REQUIRE(capped.has_value());
  CHECK(capped->event_budget == 1000);
  CHECK(capped->incomplete_runs == 4);

  // By default: 20 times the scenario's own run, and at least a million.
  options.max_events.reset();
  const auto plain = run_check(base.scenario, options);
  REQUIRE(plain.has_value());
  const auto own = run_scenario(base.scenario, RunOptions{});
  REQUIRE(own.has_value());
  CHECK(plain->event_budget ==
        std::max(kMinEventBudget, kDefaultEventBudgetFactor * own->stats.events));
  CHECK(plain->incomplete_runs == 0);
}

TEST_CASE("a run stopped at its event budget replays with the same budget", "[check][replay]") {
  const Loaded base = load("scenarios/check/control-plane-3.json");
  RunOptions options;
  options.max_events = 5000;
  const auto stopped = run_scenario(base.scenario, options);
  REQUIRE(stopped.has_value());
  CHECK(stopped->stats.status == RunStatus::event_limit);
  const Json replay = make_replay(base.json, *stopped, "");
  REQUIRE(replay.contains("maxEvents"));
  const ReplayLoad loaded = load_replay_text(replay.dump(), "replay");
  REQUIRE(loaded.replay.has_value());
  CHECK(loaded.replay->max_events == std::uint64_t{5000});
  RunOptions again;
  again.seed = loaded.replay->seed;
  again.max_events = loaded.replay->max_events;
  const auto rerun = run_scenario(loaded.replay->scenario, again);
  REQUIRE(rerun.has_value());
  CHECK(rerun->trace_hash == stopped->trace_hash);

  // A run that completed needs no budget to replay, and the file names none.
  const auto whole = run_scenario(base.scenario, RunOptions{});
  REQUIRE(whole.has_value());
  CHECK_FALSE(make_replay(base.json, *whole, "").contains("maxEvents"));

  Json zero = replay;
  zero["maxEvents"] = 0;
  const ReplayLoad bad = load_replay_text(zero.dump(), "replay");
  CHECK_FALSE(bad.replay.has_value());
  REQUIRE_FALSE(bad.errors.empty());
  CHECK(bad.errors[0].path == "$.maxEvents");
}
