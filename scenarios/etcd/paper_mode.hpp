#pragma once
// The etcd section's "mode" key and paper mode's timing keys (scenarios/etcd/system.cpp):
//   "etcd": { "mode": "paper", "electionTimeout": ["150ms", "300ms"], "tick": "500us" }
// Paper mode is the Raft paper's election experiment (extended version §9.3, Figure 16):
// election timeouts uniform in [A, B], heartbeats every A/2, no PreVote, no CheckQuorum
// (models/etcd/member.hpp EtcdMode). Its keys are read here, apart from etcd's own.
#include <optional>
#include <string>

#include "models/etcd/member.hpp"
#include "scenarios/json_reader.hpp"

namespace hasim::etcd_paper_mode {

// "mode": "etcd" (the default) or "paper"; nullopt (and an error) for anything else.
std::optional<etcd::EtcdMode> read_mode(JsonReader& r, const Json& section,
                                        const std::string& path);

// Paper mode's timing: electionTimeout [A, B] and tick; sets heartbeatInterval = A/2,
// preVote and checkQuorum off. Refuses etcd's own timing keys (heartbeatInterval, preVote,
// checkQuorum) naming the field. False after an error.
bool read_paper_timing(JsonReader& r, const Json& section, const std::string& path,
                       etcd::EtcdConfig& config);

// In etcd mode: false (and an error naming the field and the fix) if the section uses a
// paper-mode key: "tick", or a range for "electionTimeout".
bool reject_paper_keys(JsonReader& r, const Json& section, const std::string& path);

}  // namespace hasim::etcd_paper_mode
