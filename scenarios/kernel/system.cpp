// The kernel as a registered system (scenarios/system.hpp): it has no section of its own
// (nodes, network, faults and properties are the core of every scenario) and contributes the
// fault kinds every system's processes and nodes can suffer.
#include "scenarios/kernel/faults.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

const ScenarioSystem& kernel_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "kernel";
    s.key_sets = {
        {"fault:crash", {"at", "kind", "for", "node", "nodes", "process", "role"}},
        {"fault:restart", {"at", "kind", "node", "nodes", "process", "role"}},
        {"fault:pause", {"at", "kind", "for", "node", "nodes", "process", "role"}},
        {"fault:resume", {"at", "kind", "node", "nodes", "process", "role"}},
        {"fault:node-down", {"at", "kind", "for", "node", "nodes", "role"}},
        {"fault:node-up", {"at", "kind", "node", "nodes"}},
        {"fault:clock-step", {"at", "kind", "node", "nodes", "by", "role"}},
        {"fault:clock-rate", {"at", "kind", "for", "node", "nodes", "drift", "rate", "role"}},
        {"fault:partition",
         {"at", "kind", "for", "isolate", "isolateZone", "groups", "from", "to", "role"}},
        {"fault:heal", {"at", "kind"}},
        {"fault:disk-loss", {"at", "kind", "for", "node", "nodes", "process", "role", "disk"}},
        {"fault:slow-disk", {"at", "kind", "for", "node", "nodes", "role", "disk", "factor"}},
        {"fault:disk-full", {"at", "kind", "for", "node", "nodes", "role", "disk"}},
        {"fault:pod-delete", {"at", "kind", "for", "process", "role"}},
        {"fault:drop-connections", {"at", "kind", "node", "nodes", "role"}},
        {"fault:terminate", {"at", "kind", "for", "process", "grace", "role"}},
    };
    s.fault_kinds = kernel_fault_kinds();
    s.trace_kinds.assign(trace_kind::kAll.begin(), trace_kind::kAll.end());
    s.dictionary = {"isolate", "groups", "oneway", "+50ppm", "-2s", "disks", "fsyncLatency",
                    "writeLatency", "capacity", "8Gi", "factor"};
    return s;
  }();
  return system;
}

}  // namespace hasim
