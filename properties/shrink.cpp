#include "properties/shrink.hpp"

#include <algorithm>

#include "properties/check_system.hpp"
#include "scenarios/system.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

constexpr std::int64_t kMs = 1'000'000;

class Shrinker {
 public:
  Shrinker(Schedule failing, const StillFails& still_fails, int max_steps)
      : best_(std::move(failing)), still_fails_(still_fails), max_steps_(max_steps) {}

  ShrinkResult run() {
    fewer_faults();
    for (std::size_t i = 0; i < best_.faults.size(); ++i) shorter(i);
    for (std::size_t i = 0; i < best_.faults.size(); ++i) earlier(i);
    for (std::size_t i = 0; i < best_.redraws.size(); ++i) redraw_earlier(i);
    return {best_, steps_, accepted_, steps_ >= max_steps_};
  }

 private:
  // Runs a candidate; keeps it if it still fails.
  bool attempt(const Schedule& candidate) {
    if (steps_ >= max_steps_) return false;
    ++steps_;
    if (!still_fails_(candidate)) return false;
    ++accepted_;
    best_ = candidate;
    return true;
  }

  void fewer_faults() {
    // Without a redraw: the scenario's own values (the upgrade's timing as written).
    for (std::size_t i = best_.redraws.size(); i-- > 0;) {
      Schedule candidate = best_;
      candidate.redraws.erase(candidate.redraws.begin() + static_cast<std::ptrdiff_t>(i));
      attempt(candidate);
    }
    // ddmin's complement step: try removing chunks of size n/2, n/4, ..., 1.
    std::size_t chunk = std::max<std::size_t>(1, best_.faults.size() / 2);
    while (!best_.faults.empty()) {
      bool removed = false;
      for (std::size_t start = 0; start < best_.faults.size();) {
        Schedule candidate = best_;
        const auto first = candidate.faults.begin() + static_cast<std::ptrdiff_t>(start);
        const std::size_t end = std::min(start + chunk, candidate.faults.size());
        candidate.faults.erase(first, candidate.faults.begin() + static_cast<std::ptrdiff_t>(end));
        if (attempt(candidate)) {
          removed = true;  // the same start now names the next chunk
        } else {
          start += chunk;
        }
        if (steps_ >= max_steps_) return;
      }
      if (chunk == 1 && !removed) return;
      if (!removed || chunk > 1) chunk = std::max<std::size_t>(1, chunk / 2);
    }
  }

  // The least value in [floor, current] (ms units) for which the schedule built by `with`
  // still fails; `current` fails.
  template <typename With>
  void least(std::int64_t floor, std::int64_t current, With with) {
    if (current <= floor) return;
    if (attempt(with(floor))) return;
    std::int64_t passing = floor;
    std::int64_t failing = current;
    while (failing - passing > 1 && steps_ < max_steps_) {
      const std::int64_t mid = passing + (failing - passing) / 2;
      if (attempt(with(mid))) {
        failing = mid;
      } else {
        passing = mid;
      }
    }
  }

  void shorter(std::size_t i) {
    const auto set = [this, i](auto field) {
      return [this, i, field](std::int64_t value) {
        Schedule candidate = best_;
        field(candidate.faults[i], value);
        return candidate;
      };
    };
    // best_ is replaced as candidates are kept: read it afresh, never through a reference.
    if (best_.faults[i].for_duration) {
      least(1, best_.faults[i].for_duration->ns / kMs,
            set([](FaultSpec& g, std::int64_t ms) { g.for_duration = milliseconds(ms); }));
    }
    // The kind's own magnitude (latency, clock step, clock-rate distance from 1), if any.
    if (const auto magnitude = fault_kind(best_.faults[i]).magnitude) {
      least(1, magnitude->get(best_.faults[i]),
            set([m = *magnitude](FaultSpec& g, std::int64_t value) { m.set(g, value); }));
    }
  }

  void earlier(std::size_t i) {
    least(0, best_.faults[i].at.ns / kMs, [this, i](std::int64_t ms) {
      Schedule candidate = best_;
      candidate.faults[i].at = milliseconds(ms);
      return candidate;
    });
  }

  void redraw_earlier(std::size_t i) {
    const RedrawOps& ops = *find_fault_choice(best_.redraws[i].choice)->redraw_ops;
    least(0, ops.start(best_.redraws[i].value).ns / kMs, [this, i, &ops](std::int64_t ms) {
      Schedule candidate = best_;
      ops.set_start(candidate.redraws[i].value, milliseconds(ms));
      return candidate;
    });
  }

  Schedule best_;
  const StillFails& still_fails_;
  int max_steps_;
  int steps_ = 0;
  int accepted_ = 0;
};

}  // namespace

ShrinkResult shrink_schedule(Schedule failing, const StillFails& still_fails, int max_steps) {
  HASIM_ASSERT(max_steps >= 0);
  ShrinkResult result = Shrinker(std::move(failing), still_fails, max_steps).run();
  // Faults keep the kernel's order: by time, then file order.
  std::stable_sort(result.minimal.faults.begin(), result.minimal.faults.end(),
                   [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
  return result;
}

}  // namespace hasim
