#pragma once
// Tiny scripted models for kernel tests: a Scripted process performs planned actions at
// planned local times and traces everything it receives, so a test can read exact true
// times off the trace.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/env.hpp"
#include "sim/world.hpp"

namespace hasim::testing {

struct Ping final : MessageBody {
  explicit Ping(std::int64_t n_) : n(n_) {}
  std::string_view type() const override { return "Ping"; }
  std::int64_t n;
};

// One planned step: after `after` of local monotonic time from start, run `action`.
struct Step {
  Duration after;
  std::function<void(Env&)> action;
};

class Scripted final : public Process {
 public:
  explicit Scripted(std::vector<Step> steps) : steps_(std::move(steps)) {}
  void on_start(Env& env) override {
    for (std::size_t i = 0; i < steps_.size(); ++i) env.set_timer(steps_[i].after, i);
  }
  void on_message(Env& env, ProcessId from, const Message& message) override {
    // A peer that stopped closes its connections; these models only count pings.
    if (dynamic_cast<const ConnectionClosed*>(message.get()) != nullptr) return;
    const auto& ping = static_cast<const Ping&>(*message);
    ++received_;
    env.trace("got", {{"n", ping.n},
                      {"from", static_cast<std::int64_t>(from)},
                      {"mono_ns", env.monotonic_now().ns}});
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    env.trace("step", {{"tag", static_cast<std::int64_t>(tag)},
                       {"mono_ns", env.monotonic_now().ns},
                       {"wall_ns", env.now().ns},
                       {"received", received_}});
    steps_.at(tag).action(env);
  }

 private:
  std::vector<Step> steps_;
  std::int64_t received_ = 0;  // volatile: lost on crash
};

inline ProcessFactory scripted(std::vector<Step> steps) {
  return [steps] { return std::make_unique<Scripted>(steps); };
}
inline std::function<void(Env&)> nothing() {
  return [](Env&) {};
}

// Collects trace events of one kind (true times and fields) for assertions.
class Collector final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override { events.emplace_back(event); }
  std::vector<StoredTraceEvent> of_kind(std::string_view kind) const {
    std::vector<StoredTraceEvent> out;
    for (const StoredTraceEvent& e : events) {
      if (e.kind == kind) out.push_back(e);
    }
    return out;
  }
  std::vector<StoredTraceEvent> events;
};

inline std::vector<NodeSetup> plain_nodes(std::size_t count) {
  std::vector<NodeSetup> nodes;
  for (std::size_t i = 1; i <= count; ++i)
    nodes.push_back({"n" + std::to_string(i), "", LocalClock()});
  return nodes;
}

inline WorldOptions constant_latency(Duration latency) {
  WorldOptions options;
  options.remote.latency = DurationDistribution::constant(latency);
  options.loopback.latency = DurationDistribution::constant(latency);
  return options;
}

}  // namespace hasim::testing
