#include "properties/schedule_gen.hpp"

#include <algorithm>
#include <rapidcheck.h>

#include "models/apiserver/messages.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using Kind = FaultSpec::Kind;

// Everything is drawn on a millisecond grid: schedules read well and shrink in whole ms.
Duration draw(Duration low, Duration high) {
  HASIM_ASSERT(low <= high);
  const std::int64_t lo = low.ns / 1'000'000;
  const std::int64_t hi = high.ns / 1'000'000;
  return milliseconds(*rc::gen::inRange<std::int64_t>(lo, std::max(lo, hi) + 1));
}

template <typename T>
const T& pick(const std::vector<T>& items) {
  HASIM_ASSERT(!items.empty());
  return items[*rc::gen::inRange<std::size_t>(0, items.size())];
}

std::vector<std::string> shuffled(std::vector<std::string> items) {
  for (std::size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[*rc::gen::inRange<std::size_t>(0, i)]);
  }
  return items;
}

// A non-empty proper subset, in the space's order (a partition must leave someone out).
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

struct Intensity {
  int percent = 100;  // outages up to this share of the envelope's range
  Duration scaled(Duration low, Duration high) const {
    return low + Duration{(high - low).ns / 100 * percent};
  }
};

Duration outage(const FaultSpace& space, const Intensity& intensity) {
  return draw(seconds(1), intensity.scaled(seconds(1), space.max_outage));
}

FaultSpec draw_fault(const FaultSpace& space, FaultChoice choice, const Intensity& intensity) {
  FaultSpec f;
  switch (choice) {
    case FaultChoice::crash:
      f.kind = Kind::crash;
      f.targets = {pick(space.processes)};
      f.for_duration = outage(space, intensity);
      break;
    case FaultChoice::pause:
      f.kind = Kind::pause;
      f.targets = {pick(space.processes)};
      f.for_duration = draw(milliseconds(10), intensity.scaled(milliseconds(10), space.max_pause));
      break;
    case FaultChoice::node_down:
      f.kind = Kind::node_down;
      f.targets = {pick(space.hosts)};
      f.for_duration = outage(space, intensity);
      break;
    case FaultChoice::partition_isolate:
      f.kind = Kind::partition;
      f.partition_mode = FaultSpec::PartitionMode::isolate;
      f.targets = proper_subset(space.nodes);
      f.for_duration = outage(space, intensity);
      break;
    case FaultChoice::partition_groups: {
      f.kind = Kind::partition;
      f.partition_mode = FaultSpec::PartitionMode::groups;
      const std::vector<std::string> side = proper_subset(space.nodes);
      std::vector<std::string> rest;
      for (const std::string& n : space.nodes) {
        if (std::find(side.begin(), side.end(), n) == side.end()) rest.push_back(n);
      }
      f.groups = {side, rest};
      f.for_duration = outage(space, intensity);
      break;
    }
    case FaultChoice::partition_oneway: {
      f.kind = Kind::partition;
      f.partition_mode = FaultSpec::PartitionMode::oneway;
      const std::vector<std::string> order = shuffled(space.nodes);
      const std::size_t senders = *rc::gen::inRange<std::size_t>(1, order.size());
      const std::size_t receivers = *rc::gen::inRange<std::size_t>(1, order.size() - senders + 1);
      f.from.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(senders));
      f.to.assign(order.begin() + static_cast<std::ptrdiff_t>(senders),
                  order.begin() + static_cast<std::ptrdiff_t>(senders + receivers));
      std::sort(f.from.begin(), f.from.end());
      std::sort(f.to.begin(), f.to.end());
      f.for_duration = outage(space, intensity);
      break;
    }
    case FaultChoice::clock_step: {
      f.kind = Kind::clock_step;
      f.targets = {pick(space.hosts)};
      const Duration size =
          draw(milliseconds(1), intensity.scaled(milliseconds(1), space.max_clock_step));
      f.step = *rc::gen::arbitrary<bool>() ? size : Duration{} - size;
      break;
    }
    case FaultChoice::clock_rate:
      f.kind = Kind::clock_rate;
      f.targets = {pick(space.hosts)};
      f.rate_ppb = *rc::gen::inRange<std::int64_t>(space.min_rate_ppb / 1000,
                                                   space.max_rate_ppb / 1000 + 1) *
                   1000;
      f.for_duration = draw(seconds(10), intensity.scaled(seconds(10), minutes(5)));
      break;
    case FaultChoice::apiserver_slow:
      f.kind = Kind::apiserver_slow;
      f.targets = {pick(space.control_plane)};
      f.latency = draw(milliseconds(1), intensity.scaled(milliseconds(1), space.max_api_latency));
      f.for_duration = outage(space, intensity);
      break;
    case FaultChoice::apiserver_hang: {
      f.kind = Kind::apiserver_hang;
      f.targets = {pick(space.control_plane)};
      const int which = *rc::gen::inRange(0, 3);
      if (which == 1) {
        f.verbs = {"update"};  // renewals: the kubernetes#44887 pattern
      } else if (which == 2) {
        f.verbs = {std::string(api::to_string(
            pick(std::vector<api::Verb>(std::begin(api::kVerbs), std::end(api::kVerbs)))))};
      }
      f.for_duration = outage(space, intensity);
      break;
    }
    case FaultChoice::apiserver_unavailable:
      f.kind = Kind::apiserver_unavailable;
      f.targets = {pick(space.control_plane)};
      f.for_duration = outage(space, intensity);
      break;
    case FaultChoice::drop_connections:
      f.kind = Kind::drop_connections;
      f.targets = {pick(space.hosts)};
      break;
    case FaultChoice::upgrade_timing:
      HASIM_ASSERT(false);  // drawn by draw_upgrade
      break;
  }
  return f;
}

UpgradeSpec draw_upgrade(const FaultSpace& space) {
  HASIM_ASSERT(space.upgrade.has_value());
  UpgradeSpec u = *space.upgrade;
  u.at = draw(Duration{}, space.duration / 4);
  u.order.clear();
  u.randomOrder = *rc::gen::inRange(0, 3) == 0;
  u.downtime = DurationDistribution::constant(draw(seconds(1), minutes(2)));
  u.gap = DurationDistribution::constant(draw(Duration{}, seconds(90)));
  const Duration jitter = draw(Duration{}, seconds(30));
  u.startJitter = DurationDistribution::uniform(Duration{}, jitter);
  u.canary = *rc::gen::arbitrary<bool>() ? draw(Duration{}, minutes(2)) : Duration{};
  u.stop =
      *rc::gen::inRange(0, 4) == 0 ? UpgradeSpec::Stop::power_off : UpgradeSpec::Stop::terminate;
  return u;
}

rc::Gen<Schedule> schedule_gen(const FaultSpace& space, const GenerateOptions& options) {
  return rc::gen::exec([space, options] {
    const std::vector<FaultChoice> menu = fault_menu(space, options.kinds);
    HASIM_ASSERT(!menu.empty());
    Schedule schedule;
    // Swarm: each kind on a coin flip; at least one.
    for (FaultChoice c : menu) {
      if (*rc::gen::arbitrary<bool>()) schedule.enabled.push_back(c);
    }
    if (schedule.enabled.empty()) schedule.enabled.push_back(pick(menu));
    std::vector<FaultChoice> faults;
    for (FaultChoice c : schedule.enabled) {
      if (c == FaultChoice::upgrade_timing) {
        schedule.upgrade = draw_upgrade(space);
      } else {
        faults.push_back(c);
      }
    }
    if (faults.empty()) return schedule;
    const Intensity intensity{*rc::gen::element(10, 30, 100)};
    const int count = *rc::gen::inRange(1, std::max(1, options.max_faults) + 1);
    const Duration last = space.duration * 3 / 4;
    const bool burst = *rc::gen::arbitrary<bool>() && last > minutes(1);
    const Duration window_start = burst ? draw(Duration{}, last - minutes(1)) : Duration{};
    const Duration window_end = burst ? window_start + minutes(1) : last;
    for (int i = 0; i < count; ++i) {
      FaultSpec f = draw_fault(space, pick(faults), intensity);
      f.at = draw(window_start, window_end);
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
  for (FaultChoice c : space.applicable) {
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

Scenario apply_schedule(Scenario scenario, const Schedule& schedule) {
  scenario.faults = schedule.faults;
  if (schedule.upgrade) scenario.upgrade = schedule.upgrade;
  return scenario;
}

}  // namespace hasim
