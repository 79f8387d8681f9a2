#include "properties/catalog.hpp"

#include "sim/did_you_mean.hpp"
#include "sim/time.hpp"

namespace hasim {

const std::vector<PropertyInfo>& property_catalog() {
  static const std::vector<PropertyInfo> catalog{
      {"detect-crash", "BOUND",
       "every running peer suspects a crashed or downed process within BOUND (true time) "
       "of the crash, unless it restarts first",
       "the heartbeat model runs; nothing else (a partition only makes suspicion come sooner)"},
      {"no-false-suspicion", "",
       "a detector suspects a peer only if, within its timeout before, the peer stopped or "
       "paused, a message from the peer to it was dropped, or the detector itself was paused",
       "one-way latency below timeout - interval, equal clock rates"},
      {"single-leader", "",
       "at no instant of true time do two processes act as leader for one lease (acting: "
       "from OnStartedLeading until the leader's work stops); a violation says whether both "
       "could still write through an apiserver (harmful) or not (harmless)",
       "what can stall one renewal adds up to less than leaseDuration - retryPeriod - "
       "renewDeadline: a pause of the leader, the API latency of its renewal, and clock-rate "
       "skew, worth (retryPeriod + renewDeadline) x (fastest/slowest rate - 1) (so skew alone "
       "must stay below LD/(RP+RD), tighter than the LD/RD client-go documents); client-go has "
       "no fencing. With renewRequests: unbounded (client-go up to 1.11) also every request "
       "answered within that margin: no partition, hung apiserver or powered-off node"},
      {"no-skew", "",
       "at no instant of true time does an acting kube-controller-manager or kube-scheduler "
       "leader run a newer (emulation) version than some serving kube-apiserver (the "
       "version-skew policy; covers upgrades and rollbacks); every violating interval is "
       "kept, with why the leader was elected",
       "components trace their versions at start; a kube-apiserver serves from its start "
       "until its process stops (a paused or cut-off one still counts as serving)"},
      {"eventually-leader", "BOUND",
       "once every partition, pause, node-down and apiserver fault has healed, some process "
       "acts as leader for each lease within BOUND",
       "at least one candidate per lease can run; BOUND covers a lease duration plus the "
       "retry jitter (about LD + 2.2*RP) and a kubelet restart if the leader exited"},
  };
  return catalog;
}

std::optional<std::string> validate_property_spec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const PropertyInfo* info = nullptr;
  std::vector<std::string> names;
  for (const PropertyInfo& p : property_catalog()) {
    names.emplace_back(p.name);
    if (p.name == name) info = &p;
  }
  if (info == nullptr) {
    return "unknown property \"" + std::string(name) + "\"" + did_you_mean(name, names) +
           "; `hasim list` shows the known properties";
  }
  if (info->argument.empty()) {
    if (colon != std::string_view::npos) {
      return "property \"" + std::string(name) + "\" takes no argument; write \"" +
             std::string(name) + "\"";
    }
    return std::nullopt;
  }
  if (colon == std::string_view::npos) {
    return "property \"" + std::string(name) + "\" needs a bound, e.g. \"" + std::string(name) +
           ":10s\"";
  }
  std::string error;
  const auto bound = parse_duration(spec.substr(colon + 1), &error);
  if (!bound) return "bound of \"" + std::string(spec) + "\": " + error;
  if (bound->ns <= 0) return "bound of \"" + std::string(spec) + "\" must be positive";
  return std::nullopt;
}

}  // namespace hasim
