#pragma once
// A hand-driven Env for model unit tests: no World, no scheduler. The test owns time. Both
// clocks stand still until the test moves them (advance, set_now, set_monotonic, or a
// timer it fires), so every reading a model takes is a value the test chose. Timers are
// only recorded; the test fires them one at a time and hands the tag to the model itself.
// Everything is ordered (std::map), so a test run is a fixed sequence of steps.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/env.hpp"

namespace hasim::testing {

// One env.trace() call with its values rendered as text.
struct TraceLine {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> fields;  // in the order emitted

  // The value of `key`, or "" when the trace has no such field.
  std::string get(std::string_view key) const {
    for (const auto& [name, value] : fields) {
      if (name == key) return value;
    }
    return {};
  }
  // "kind key=value key=value"
  std::string str() const {
    std::string out = kind;
    for (const auto& [name, value] : fields) out += " " + name + "=" + value;
    return out;
  }
};

struct SentMessage {
  ProcessId to = 0;
  Message message;
  Transport transport = Transport::stream;
};

class FakeEnv final : public Env {
 public:
  using Fired = std::pair<TimerId, std::uint64_t>;  // (timer, tag)

  explicit FakeEnv(std::uint64_t seed, LocalTime wall = {}, LocalTime monotonic = {})
      : wall_(wall), monotonic_(monotonic), rng_(seed) {}

  // --- the clocks ---------------------------------------------------------------------------
  void advance(Duration d) {
    wall_ = wall_ + d;
    monotonic_ = monotonic_ + d;
  }
  void set_now(LocalTime wall) { wall_ = wall; }
  void set_monotonic(LocalTime monotonic) { monotonic_ = monotonic; }

  // --- timers -------------------------------------------------------------------------------
  // The earliest pending timer (ties in the order they were set), without firing it.
  std::optional<Fired> next_timer() const {
    if (timers_.empty()) return std::nullopt;
    return Fired{timers_.begin()->first.second, timers_.begin()->second};
  }
  std::optional<LocalTime> next_deadline() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first.first;
  }
  // Removes the earliest timer and moves both clocks to its deadline (never backwards: a
  // timer that fell due while a call moved the clocks fires at the current time).
  std::optional<Fired> advance_to_next_timer() {
    if (timers_.empty()) return std::nullopt;
    const auto it = timers_.begin();
    const auto [deadline, id] = it->first;
    const std::uint64_t tag = it->second;
    timers_.erase(it);
    deadlines_.erase(id);
    if (deadline > monotonic_) advance(deadline - monotonic_);
    return Fired{id, tag};
  }
  // Fires every timer due by the current monotonic time, including those the callback sets
  // with no delay. Returns how many fired.
  int fire_due(const std::function<void(TimerId, std::uint64_t)>& fire) {
    int fired = 0;
    while (!timers_.empty() && timers_.begin()->first.first <= monotonic_) {
      const auto [id, tag] = *advance_to_next_timer();
      fire(id, tag);
      ++fired;
    }
    return fired;
  }
  std::size_t pending_timers() const { return timers_.size(); }

  // --- what the model did -------------------------------------------------------------------
  std::vector<SentMessage> sent;
  std::vector<TraceLine> traces;
  std::vector<int> exits;
  std::map<std::string, ProcessId> processes;  // for process(); tests register names
  DurableStore store;

  std::vector<TraceLine> traces_of(std::string_view kind) const {
    std::vector<TraceLine> out;
    for (const TraceLine& line : traces) {
      if (line.kind == kind) out.push_back(line);
    }
    return out;
  }

  // --- Env ----------------------------------------------------------------------------------
  ProcessId self() const override { return self_; }
  ProcessId process(std::string_view qualified_name) const override {
    return processes.at(std::string(qualified_name));
  }
  LocalTime now() const override { return wall_; }
  LocalTime monotonic_now() const override { return monotonic_; }
  Rng& rng() override { return rng_; }
  void send(ProcessId to, Message message, Transport transport) override {
    sent.push_back({to, std::move(message), transport});
  }
  TagSpace tag_space(std::string_view name) override { return tags_.allocate(name); }
  TimerId set_timer(Duration after, std::uint64_t tag) override {
    const TimerId id = next_timer_id_++;
    const LocalTime deadline = monotonic_ + after;
    timers_.emplace(std::pair{deadline, id}, tag);
    deadlines_.emplace(id, deadline);
    return id;
  }
  bool cancel_timer(TimerId timer) override {
    const auto it = deadlines_.find(timer);
    if (it == deadlines_.end()) return false;
    timers_.erase({it->second, timer});
    deadlines_.erase(it);
    return true;
  }
  DurableStore& durable() override { return store; }
  void trace(std::string_view kind, std::initializer_list<TraceField> fields) override {
    TraceLine line{std::string(kind), {}};
    for (const TraceField& field : fields) {
      line.fields.emplace_back(std::string(field.key), render(field.value));
    }
    traces.push_back(std::move(line));
  }
  void exit(int code) override { exits.push_back(code); }

 private:
  static std::string render(const TraceValue& value) {
    if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
    if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
    return std::get<std::string>(value);
  }

  LocalTime wall_;
  LocalTime monotonic_;
  Rng rng_;
  ProcessId self_ = 1;
  TimerId next_timer_id_ = 1;
  TagAllocator tags_;
  std::map<std::pair<LocalTime, TimerId>, std::uint64_t> timers_;  // (deadline, id) -> tag
  std::map<TimerId, LocalTime> deadlines_;
};

}  // namespace hasim::testing
