#pragma once
// A scenario as plain data, after validation. The loader (scenarios/loader.hpp) turns JSON
// into this and rejects bad input with a message naming the JSON path; scenarios/build.hpp
// turns it into a World. Every field here has been checked: names resolve, durations are
// non-negative, ranges are ordered.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

struct ClockSpec {
  Duration offset{};                      // wall clock minus true time at start
  std::int64_t rate_ppb = 1'000'000'000;  // from "drift": "+50ppm" or "rate": 1.0005
};

struct NodeSpec {
  std::string name;  // unique, e.g. "n1"
  std::string zone;  // may be empty
  ClockSpec clock;
};

struct LinkSpec {
  std::string from;  // node names; the override applies to messages from -> to
  std::string to;
  std::optional<DurationDistribution> latency;
  std::optional<double> loss;
  std::optional<double> duplicate;
};

struct NetworkSpec {
  DurationDistribution latency = DurationDistribution::constant(milliseconds(1));
  DurationDistribution loopback_latency = DurationDistribution::constant(microseconds(100));
  double loss = 0.0;       // datagrams only; streams (TCP) lose only on connection drop
  double duplicate = 0.0;  // datagrams only
  std::vector<LinkSpec> links;
};

// The demo model: a heartbeat failure detector on every node (models/demo/).
struct HeartbeatSpec {
  Duration interval = seconds(1);
  Duration timeout = seconds(3);  // suspect a peer not heard from for this long (local time)
};

struct FaultSpec {
  enum class Kind {
    crash,
    restart,
    pause,
    resume,
    node_down,
    node_up,
    clock_step,
    clock_rate,
    partition,
    heal,
    disk_loss,
    drop_connections
  };
  enum class PartitionMode { isolate, groups, oneway };

  Kind kind = Kind::crash;
  Duration at{};
  std::optional<Duration> for_duration;  // undo after this long (restart, resume, heal, ...)
  // Targets: node names, or "node/process" names for process-level faults.
  std::vector<std::string> targets;
  // clock_step
  Duration step{};
  // clock_rate
  std::int64_t rate_ppb = 1'000'000'000;
  // partition
  PartitionMode partition_mode = PartitionMode::isolate;
  std::vector<std::vector<std::string>> groups;  // groups: cut between every pair of groups
  std::vector<std::string> from;                 // oneway: from -> to cut
  std::vector<std::string> to;
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration duration = minutes(10);
  std::vector<NodeSpec> nodes;
  NetworkSpec network;
  std::optional<HeartbeatSpec> heartbeat;
  std::vector<FaultSpec> faults;        // in file order; the kernel orders by (at, index)
  std::vector<std::string> properties;  // e.g. "detect-crash:10s"
};

std::string_view to_string(FaultSpec::Kind kind);

}  // namespace hasim
