#pragma once
// no-skew: at no instant of true time does an acting kube-controller-manager or kube-scheduler
// leader run a newer version than some serving kube-apiserver. This is the version-skew
// policy (https://kubernetes.io/releases/version-skew-policy/: kube-controller-manager and
// kube-scheduler must not be newer than the kube-apiserver instances they communicate with)
// that KEP-4355 Coordinated Leader Election exists to uphold during upgrades: the new
// controllers may only lead once no old apiserver is left. The one inequality covers the
// rollback mirror too (old apiservers come back while a new leader still acts).
//
// "Version" is the emulation version (KEP-4330 compatibility versions), which is the binary
// version when the component was not started with --emulated-version; versions compare as
// the election controller compares them (blang/semver ParseTolerant + Compare, so
// "1.32.0-rc.1" < "1.32.0").
//
// From the trace:
//   serving apiserver  component-start {component: "kube-apiserver", version, emulation} until
//                      its process exits or crashes (node-down and disk-loss crash it too);
//   acting leader      acting-start {lease, identity, component, version, emulation} until
//                      acting-end or its process's exit or crash (ActingLeaders);
//   why elected        the last cle-elect {lease, holder, reason} for the lease before the
//                      acting-start, when it names the leader's identity.
// Unlike single-leader it does not stop at the first violation: it keeps every interval in
// which a leader was too new (for the reports: how often, how long, how soon), and reports
// the first one as the violation.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/election/semver.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "properties/property.hpp"

namespace hasim {

class NoSkew final : public Property {
 public:
  // Versions and leaders only: what on_event reads.
  bool wants(std::string_view kind) const override;
  // One serving kube-apiserver an interval's leader was newer than.
  struct OlderApiserver {
    std::string process;  // "node/kube-apiserver"
    std::string version;  // its emulation version
    bool operator==(const OlderApiserver&) const = default;
  };
  // A stretch of true time in which one acting leader was newer than at least one serving
  // kube-apiserver.
  struct SkewInterval {
    std::string component;  // "kube-controller-manager" or "kube-scheduler"
    std::string lease;
    Actor leader;  // process, identity, binary version, emulation version, acting since
    // Every older apiserver that served during the interval, in the order they were first
    // seen violated; each newest-first would hide the others, so all are kept.
    std::vector<OlderApiserver> apiservers;
    TrueTime start{};
    TrueTime end{};
    bool open = true;        // not ended yet
    bool until_end = false;  // closed by finish(): it lasted until the end of the run
    std::string why;         // why the leader leads, a clause for the sentence
    std::vector<std::string> causes;
  };

  // `bound` (no-skew:BOUND): only an interval longer than it is a violation.
  NoSkew(std::string spec, std::optional<Duration> bound)
      : Property(std::move(spec)), bound_(bound) {}
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;
  std::vector<ViolationWindow> windows() const override;

  // Every interval so far, in the order they started (all closed after finish()).
  const std::vector<SkewInterval>& intervals() const { return intervals_; }
  std::size_t violation_count() const { return intervals_.size(); }
  // Time during which at least one acting leader was too new: the union of the intervals,
  // so a KCM and a scheduler violating at once count once. Open intervals count up to the
  // last event seen (finish() closes them at the end of the run).
  Duration total_violation_time() const;
  // When the first interval started; nullopt if there was none.
  std::optional<TrueTime> first_violation() const;
  // The sentence the violation carries, for one interval.
  static std::string describe(const SkewInterval& interval);

 private:
  struct Serving {
    std::string version;  // emulation version as traced
    election::SemVer parsed;
    TrueTime since{};
    std::string cause;  // its component-start, described
  };
  struct LeaderInfo {
    Actor actor;
    std::optional<election::SemVer> parsed;  // nullopt: no version traced, never compared
    std::string why;
    std::vector<std::string> causes;  // its acting-start, the cle-elect that chose it
  };
  struct Election {
    std::string holder;
    std::string reason;
    std::string process;  // the kube-apiserver whose election controller decided
    std::string cause;
  };
  using LeaderKey = std::pair<std::string, std::string>;  // (lease, process)

  void on_acting_change(const ActingChange& change, const TraceEvent& event);
  // After `event` changed who serves or leads: closes, opens or extends the interval of every
  // acting leader at its time.
  void reevaluate(const TraceEvent& event);

  std::optional<Duration> bound_;
  ActingLeaders leaders_;
  std::map<std::string, Serving> serving_;         // kube-apiservers by process
  std::map<LeaderKey, LeaderInfo> leader_info_;    // acting KCM and scheduler leaders
  std::map<LeaderKey, std::size_t> open_;          // -> index in intervals_
  std::map<std::string, Election> last_election_;  // lease -> the last cle-elect
  std::vector<SkewInterval> intervals_;
  TrueTime last_seen_{};
};

}  // namespace hasim
