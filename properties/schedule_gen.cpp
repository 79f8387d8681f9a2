#include "properties/schedule_gen.hpp"

#include <algorithm>
#include <rapidcheck.h>

#include "properties/check_system.hpp"
#include "scenarios/fault_json.hpp"
#include "sim/assert.hpp"

namespace hasim {

Duration draw_duration(Duration low, Duration high) {
  HASIM_ASSERT(low <= high);
  const std::int64_t lo = low.ns / 1'000'000;
  const std::int64_t hi = high.ns / 1'000'000;
  return milliseconds(*rc::gen::inRange<std::int64_t>(lo, std::max(lo, hi) + 1));
}

const std::string& pick(const std::vector<std::string>& items) {
  HASIM_ASSERT(!items.empty());
  return items[*rc::gen::inRange<std::size_t>(0, items.size())];
}

std::vector<std::string> shuffled(std::vector<std::string> items) {
  for (std::size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[*rc::gen::inRange<std::size_t>(0, i)]);
  }
  return items;
}

std::vector<std::string> proper_subset(const std::vector<std::string>& items) {
  HASIM_ASSERT(items.size() >= 2);
  const std::vector<std::string> order = shuffled(items);
  const std::size_t size = *rc::gen::inRange<std::size_t>(1, items.size());
  std::vector<std::string> out;
  for (const std::string& item : items) {
    if (std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(size), item) !=
        order.begin() + static_cast<std::ptrdiff_t>(size)) {
      out.push_back(item);
    }
  }
  return out;
}

Duration draw_outage(const FaultSpace& space, const Intensity& intensity) {
  return draw_duration(seconds(1), intensity.scaled(seconds(1), space.max_outage));
}

FaultSpec draw_outage_fault(std::string kind, const std::vector<std::string>& targets,
                            const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = std::move(kind);
  f.targets = {pick(targets)};
  f.for_duration = draw_outage(space, intensity);
  return f;
}

namespace {

rc::Gen<Schedule> schedule_gen(const FaultSpace& space, const GenerateOptions& options) {
  return rc::gen::exec([space, options] {
    const std::vector<FaultChoice> menu = fault_menu(space, options.kinds);
    HASIM_ASSERT(!menu.empty());
    Schedule schedule;
    // Swarm: each kind on a coin flip; at least one.
    for (const FaultChoice& c : menu) {
      if (*rc::gen::arbitrary<bool>()) schedule.enabled.push_back(c);
    }
    if (schedule.enabled.empty()) schedule.enabled.push_back(pick(menu));
    std::vector<FaultChoice> faults;
    for (const FaultChoice& c : schedule.enabled) {
      const FaultChoiceDef* def = find_fault_choice(c);
      HASIM_ASSERT(def != nullptr && (def->draw != nullptr) != (def->redraw != nullptr));
      if (def->redraw != nullptr) {
        def->redraw(space, schedule);
      } else {
        faults.push_back(c);
      }
    }
    if (faults.empty()) return schedule;
    const Intensity intensity{*rc::gen::element(10, 30, 100)};
    const int count = *rc::gen::inRange(1, std::max(1, options.max_faults) + 1);
    const Duration last = space.duration * 3 / 4;
    const bool burst = *rc::gen::arbitrary<bool>() && last > minutes(1);
    const Duration window_start = burst ? draw_duration(Duration{}, last - minutes(1)) : Duration{};
    const Duration window_end = burst ? window_start + minutes(1) : last;
    for (int i = 0; i < count; ++i) {
      FaultSpec f = find_fault_choice(pick(faults))->draw(space, intensity);
      f.at = draw_duration(window_start, window_end);
      schedule.faults.push_back(std::move(f));
    }
    std::stable_sort(schedule.faults.begin(), schedule.faults.end(),
                     [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
    return schedule;
  });
}

}  // namespace

std::vector<FaultChoice> fault_menu(const FaultSpace& space,
                                    const std::vector<FaultChoice>& kinds) {
  std::vector<FaultChoice> menu;
  for (const FaultChoice& c : space.applicable) {
    if (kinds.empty() || std::find(kinds.begin(), kinds.end(), c) != kinds.end()) {
      menu.push_back(c);
    }
  }
  return menu;
}

Schedule generate_schedule(const FaultSpace& space, const GenerateOptions& options,
                           std::uint64_t seed) {
  return schedule_gen(space, options)(rc::Random(seed), rc::kNominalSize).value();
}

namespace {
const RedrawOps& redraw_ops(const Redraw& redraw) {
  const FaultChoiceDef* choice = find_fault_choice(redraw.choice);
  HASIM_ASSERT(choice != nullptr && choice->redraw_ops != nullptr);
  return *choice->redraw_ops;
}
}  // namespace

Scenario apply_schedule(Scenario scenario, const Schedule& schedule) {
  scenario.faults = schedule.faults;
  for (const Redraw& r : schedule.redraws) redraw_ops(r).apply(r.value, scenario);
  return scenario;
}

void write_schedule(const Schedule& schedule, Json& scenario) {
  scenario["faults"] = faults_to_json(schedule.faults);
  for (const Redraw& r : schedule.redraws) redraw_ops(r).write(r.value, scenario);
}

std::vector<std::string> describe_redraws(const Schedule& schedule) {
  std::vector<std::string> lines;
  for (const Redraw& r : schedule.redraws) lines.push_back(redraw_ops(r).describe(r.value));
  return lines;
}

}  // namespace hasim
