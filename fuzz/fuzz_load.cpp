// libFuzzer target: scenario and replay parsing (scripts/fuzz.sh builds and runs it).
//
// Every input goes to load_scenario_text and to load_replay_text. Whatever the bytes, the
// loaders must return, without crashing, leaking or tripping a sanitizer, either a value or
// errors that each name a JSON path ("$...") and say what is wrong. An accepted scenario is
// then built into a World and run for a bounded number of events, with its properties
// attached, so that what the loader lets through (huge durations, zero intervals, extreme
// rates) cannot crash the builder or the kernel either.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "properties/property.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"
#include "properties/replay.hpp"

namespace {

// Bounds that keep one input well under 10 ms even under ASan and UBSan: the parsers are the
// target; the run is only a smoke test of what they accept.
constexpr std::size_t kMaxNodesBuilt = 64;  // heartbeat wiring grows with nodes squared
constexpr std::size_t kMaxNodesRun = 16;
constexpr std::uint64_t kMaxEvents = 3'000;  // per input
constexpr int kMaxSteps = 2'000;             // run_until calls per input

void check_errors(const std::vector<hasim::ScenarioError>& errors) {
  for (const hasim::ScenarioError& e : errors) {
    // Every error names where it is and what is wrong.
    if (e.path.empty() || e.path[0] != '$' || e.message.empty()) std::abort();
  }
  (void)hasim::format_errors(errors, "fuzz");
}

// Runs `world` towards `end` in steps that shrink where events are dense, so a scenario with
// nanosecond timers stops after kMaxEvents instead of running for minutes.
hasim::TrueTime run_bounded(hasim::World& world, hasim::TrueTime end) {
  std::int64_t step = 1'000;  // 1 µs, doubled while events are sparse
  hasim::TrueTime reached{};
  std::uint64_t events = 0;
  for (int i = 0; i < kMaxSteps && reached < end && events < kMaxEvents; ++i) {
    const hasim::TrueTime target{reached.ns + std::min(step, end.ns - reached.ns)};
    const hasim::RunStats stats = world.run_until(target);
    reached = stats.end;
    if (stats.status != hasim::RunStatus::completed) break;
    const std::uint64_t ran = stats.events - events;
    events = stats.events;
    if (ran < 64 && step < (std::int64_t{1} << 50)) step *= 2;
    if (ran > 256 && step > 1) step /= 2;
  }
  return reached;
}

void exercise(const hasim::Scenario& scenario) {
  if (scenario.nodes.size() > kMaxNodesBuilt) return;
  std::unique_ptr<hasim::World> world = hasim::build_world(scenario, scenario.seed);
  if (scenario.nodes.size() > kMaxNodesRun) return;
  std::vector<std::unique_ptr<hasim::Property>> properties;
  for (const std::string& spec : scenario.properties) {
    properties.push_back(hasim::make_property(spec));  // the loader validated every spec
    world->trace().add_observer(properties.back().get());
  }
  const hasim::TrueTime end = run_bounded(*world, hasim::TrueTime{scenario.duration.ns});
  for (const auto& property : properties) {
    property->finish(end);
    (void)property->violation();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const hasim::LoadResult scenario = hasim::load_scenario_text(text, "fuzz");
  if (scenario.scenario.has_value() == !scenario.errors.empty()) std::abort();
  check_errors(scenario.errors);
  if (scenario.scenario) exercise(*scenario.scenario);

  const hasim::ReplayLoad replay = hasim::load_replay_text(text, "fuzz");
  if (replay.replay.has_value() == !replay.errors.empty()) std::abort();
  check_errors(replay.errors);
  if (replay.replay) exercise(replay.replay->scenario);
  return 0;
}
