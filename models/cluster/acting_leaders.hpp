#pragma once
// Who acts as leader for which lease, from the trace (the single-leader monitor's notion of
// leader, and the "leader" fault-target role). Acting starts at a component's
// "acting-start" (OnStartedLeading) and lasts until its work stops: "acting-end" (the leading
// context is done), or the process exits or crashes. A paused leader still acts: it resumes
// with its old belief.
#include <map>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace hasim {

struct Actor {
  std::string process;  // "node/proc"
  std::string identity;
  std::string version;  // binary version
  TrueTime since{};
  std::string component;  // "kube-controller-manager", "kube-scheduler"; "" if not traced
  // --emulated-version (KEP-4330 compatibility versions); the binary version when the
  // acting-start names none, as a component without the flag emulates its own version.
  std::string emulation;
};

struct ActingChange {
  bool started = false;  // false: ended
  std::string lease;
  Actor actor;
};

class ActingLeaders {
 public:
  // Updates the state from one event and says what changed.
  std::vector<ActingChange> observe(const TraceEvent& event);
  // The kinds observe() reads (component-start, acting-start, acting-end, crash, exit): an
  // observer built on it asks only for these (TraceObserver::wants), so that a trial that
  // neither hashes nor writes its trace skips building the rest.
  static bool wants(std::string_view kind);
  // lease -> acting process -> actor
  const std::map<std::string, std::map<std::string, Actor>>& acting() const { return acting_; }
  // Every lease some component campaigns for, with when it was first seen (component-starts
  // that name no lease, such as kube-apiserver's, add none).
  const std::map<std::string, TrueTime>& leases() const { return leases_; }

 private:
  std::map<std::string, std::map<std::string, Actor>> acting_;
  std::map<std::string, TrueTime> leases_;
};

std::string process_of(const TraceEvent& event);  // "node/proc"

// Fault and election events worth showing as causes of a violation.
bool is_notable(const TraceEvent& event);

}  // namespace hasim
