// The control plane's check half (properties/check_system.hpp): the single-leader and
// eventually-leader properties, the apiserver fault choices, and the elections' timing
// (client-go's leaseDuration, renewDeadline, retryPeriod) that single-leader's assumption is
// made of, in numbers: what may stall one renewal must add up to less than LD - RP - RD.
#include "properties/control_plane/check.hpp"

#include <rapidcheck.h>

#include "models/apiserver/messages.hpp"
#include "properties/control_plane/connections_close.hpp"
#include "properties/control_plane/crashloop_backoff.hpp"
#include "properties/eventually_leader.hpp"
#include "properties/lease_protocol.hpp"
#include "properties/property.hpp"
#include "properties/single_leader.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/fault_text.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"

#include <algorithm>
#include <cmath>

namespace hasim {
namespace {

// One leader-election configuration the scenario runs (client-go's timing parameters).
struct ElectionBounds {
  std::string who;  // "kube-controller-manager", "kube-scheduler", "leader-election-controller"
  Duration leaseDuration;
  Duration renewDeadline;
  Duration retryPeriod;
  // renewRequests: unbounded (client-go up to 1.11): a hung renewal holds the leader until
  // the request returns, so a hang breaks the stall bound below.
  bool unbounded_requests = false;
  // LD - RP - RD: how long a leader may stall (pause, slow request) and still stop acting
  // before a challenger can take over.
  Duration margin() const { return leaseDuration - retryPeriod - renewDeadline; }
};

// What the control plane adds to the fault space.
struct ControlPlaneSpace {
  static constexpr std::string_view kSection = "controlPlane";
  std::vector<std::string> apiservers;  // nodes with a kube-apiserver
  std::vector<ElectionBounds> elections;
};

std::vector<ElectionBounds> elections_of(const Scenario& scenario) {
  std::vector<ElectionBounds> out;
  const ControlPlaneSpec* cp = scenario.section<ControlPlaneSpec>();
  if (cp == nullptr) return out;
  const auto add = [&out](std::string who, const ElectionSpec& e) {
    out.push_back({std::move(who), e.leaseDuration, e.renewDeadline, e.retryPeriod,
                   e.renewRequests == RenewRequestsMode::unbounded});
  };
  add("kube-controller-manager", cp->controllerManager);
  add("kube-scheduler", cp->scheduler);
  if (cp->election != ElectionMode::lease) {
    out.push_back({"leader-election-controller", cp->coordination.leaseDuration,
                   cp->coordination.renewDeadline, cp->coordination.retryPeriod, false});
  }
  return out;
}

const ElectionBounds* unbounded_election(const std::vector<ElectionBounds>& elections) {
  for (const ElectionBounds& e : elections) {
    if (e.unbounded_requests) return &e;
  }
  return nullptr;
}

// single-leader: what can stall one renewal -- a pause, API latency, clock-rate skew -- must
// add up to less than LD - RP - RD. Each gets a third of the tightest margin, so any one
// fault of each kind together stay inside it.
void narrow(const std::vector<ElectionBounds>& elections, FaultSpace& space) {
  for (const ElectionBounds& e : elections) {
    const Duration third = e.margin() / 3 - milliseconds(1);
    space.max_pause = std::min(space.max_pause, third);
    space.max_api_latency = std::min(space.max_api_latency, third);
    // Rates in [1/s, s] differ by at most s^2 = 1 + third/(RP + RD).
    const double q = 1.0 + static_cast<double>(std::max<std::int64_t>(0, third.ns)) /
                               static_cast<double>((e.retryPeriod + e.renewDeadline).ns);
    const double sq = std::sqrt(q);
    space.max_rate_ppb =
        std::min(space.max_rate_ppb, static_cast<std::int64_t>(std::floor(sq * 1e6 - 1)) * 1000);
    space.min_rate_ppb =
        std::max(space.min_rate_ppb, static_cast<std::int64_t>(std::ceil(1e6 / sq + 1)) * 1000);
  }
}

// The tightest eventually-leader bound the scenario names, if any.
std::optional<Duration> eventually_leader_bound(const Scenario& scenario) {
  std::optional<Duration> bound;
  for (const std::string& spec : scenario.properties) {
    const PropertySpecParts parts = split_property_spec(spec);
    if (parts.name != "eventually-leader" || !parts.bound) continue;
    if (!bound || *parts.bound < *bound) bound = parts.bound;
  }
  return bound;
}

// leaseDuration + the jittered retry (2.2 x RP, as eventually-leader's assumption says): how
// long a restarted sole candidate waits to take back its own crashed holder's lease.
Duration retake(const ElectionBounds& e) { return e.leaseDuration + e.retryPeriod * 11 / 5; }

// eventually-leader within its assumptions: with one control-plane node, each candidate's
// crash downtime stays below BOUND - retake (broken_restart below says why).
void narrow_restarts(const Scenario& scenario, const std::vector<ElectionBounds>& elections,
                     FaultSpace& space) {
  const ControlPlaneSpec* cp = scenario.section<ControlPlaneSpec>();
  const std::optional<Duration> bound = eventually_leader_bound(scenario);
  if (cp == nullptr || cp->nodes.size() != 1 || !bound) return;
  for (const ElectionBounds& e : elections) {
    const Duration cap = std::max(milliseconds(1), *bound - retake(e) - milliseconds(1));
    space.max_restart[cp->nodes[0] + "/" + e.who] = cap;
  }
}

void fill_space(const Scenario& scenario, FaultSpace& space) {
  const ControlPlaneSpec* cp = scenario.section<ControlPlaneSpec>();
  if (cp == nullptr) return;
  // The store stands for an external etcd that never loses quorum: its outages are
  // partitions (isolate "store"), not faults of a host.
  space.hosts.erase(std::remove(space.hosts.begin(), space.hosts.end(), cp->storeNode),
                    space.hosts.end());
  ControlPlaneSpace& facts = space.facts.set(ControlPlaneSpace{cp->nodes, elections_of(scenario)});
  if (!space.within_assumptions) return;
  narrow(facts.elections, space);
  narrow_restarts(scenario, facts.elections, space);
}

// Unbounded renewals wait for a request however long it takes: within the assumptions no
// fault may leave one unanswered.
bool forbids(const Scenario&, const FaultSpace& space, const FaultChoiceDef& choice) {
  const ControlPlaneSpace* facts = space.facts.get<ControlPlaneSpace>();
  return facts != nullptr && unbounded_election(facts->elections) != nullptr &&
         choice.holds_requests;
}

const std::vector<std::string>& apiservers(const FaultSpace& space) {
  static const std::vector<std::string> none;
  const ControlPlaneSpace* facts = space.facts.get<ControlPlaneSpace>();
  return facts != nullptr ? facts->apiservers : none;
}

bool has_apiservers(const FaultSpace& space) { return !apiservers(space).empty(); }
bool can_slow(const FaultSpace& space) {
  return has_apiservers(space) && space.max_api_latency >= milliseconds(1);
}

FaultSpec slow(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "apiserver-slow";
  f.targets = {pick(apiservers(space))};
  f.latency =
      draw_duration(milliseconds(1), intensity.scaled(milliseconds(1), space.max_api_latency));
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec hang(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "apiserver-hang";
  f.targets = {pick(apiservers(space))};
  const int which = *rc::gen::inRange(0, 3);
  if (which == 1) {
    f.verbs = {"update"};  // renewals: the kubernetes#44887 pattern
  } else if (which == 2) {
    const auto verb = api::kVerbs[*rc::gen::inRange<std::size_t>(0, std::size(api::kVerbs))];
    f.verbs = {std::string(api::to_string(verb))};
  }
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec unavailable(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("apiserver-unavailable", apiservers(space), space, intensity);
}

// renewRequests: unbounded: every fault that can hold a request breaks the assumption.
void broken_unbounded(const Scenario& scenario, const ElectionBounds& unbounded,
                      std::vector<std::string>& out) {
  for (const FaultSpec& fault : scenario.faults) {
    const auto choice = choice_of(fault);
    const FaultChoiceDef* def = choice ? find_fault_choice(*choice) : nullptr;
    if (def == nullptr || !def->holds_requests) continue;
    out.push_back("the " + describe_fault(fault) +
                  " can leave a request unanswered until kube-apiserver's request timeout, "
                  "while " +
                  unbounded.who +
                  " renews with renewRequests: unbounded (client-go up to 1.11), which "
                  "waits for it: every request must be answered within leaseDuration - "
                  "retryPeriod - renewDeadline = " +
                  format_duration(unbounded.margin()));
  }
}

// The longest pause and the largest API latency any fault brings, with whom.
struct Stalls {
  Duration pause{}, latency{};
  std::string pause_who, latency_who;
};

Stalls stalls_of(const Scenario& scenario) {
  Stalls s;
  for (const FaultSpec& fault : scenario.faults) {
    const std::string who = fault.targets.empty() ? "" : fault.targets.front();
    if (fault.kind == "pause" && fault.for_duration && *fault.for_duration > s.pause) {
      s.pause = *fault.for_duration;
      s.pause_who = who;
    }
    if (fault.kind == "apiserver-slow" && fault.latency > s.latency) {
      s.latency = fault.latency;
      s.latency_who = who;
    }
  }
  return s;
}

// The crashes of one process, in time order.
std::vector<const FaultSpec*> crashes_of(const Scenario& scenario, const std::string& process) {
  std::vector<const FaultSpec*> out;
  for (const FaultSpec& f : scenario.faults) {
    if (f.kind == "crash" && f.for_duration && f.targets.size() == 1 && f.targets[0] == process)
      out.push_back(&f);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FaultSpec* a, const FaultSpec* b) { return a->at < b->at; });
  return out;
}

// eventually-leader: with one control-plane node, a crashed candidate is its lease's only
// one, and its restart must wait out its own holder's lease from its first look: downtime +
// LD + the jittered retry (2.2 x RP, as the assumption says) must fit in BOUND. A crash
// before that wait is over starts it again, so crashes that close together count as one
// outage, from the first crash to the last restart's retake. With more nodes another
// candidate takes over while it is down.
void broken_restart(const Scenario& scenario, const std::vector<ElectionBounds>& elections,
                    std::vector<std::string>& out) {
  const ControlPlaneSpec* cp = scenario.section<ControlPlaneSpec>();
  const std::optional<Duration> bound = eventually_leader_bound(scenario);
  if (cp == nullptr || cp->nodes.size() != 1 || !bound) return;
  for (const ElectionBounds& e : elections) {
    const std::vector<const FaultSpec*> crashes = crashes_of(scenario, cp->nodes[0] + "/" + e.who);
    for (std::size_t first = 0, i = 0; i < crashes.size(); first = ++i) {
      Duration restart = crashes[i]->at + *crashes[i]->for_duration;
      while (i + 1 < crashes.size() && crashes[i + 1]->at < restart + retake(e)) {
        ++i;
        restart = std::max(restart, crashes[i]->at + *crashes[i]->for_duration);
      }
      const Duration outage = restart + retake(e) - crashes[first]->at;
      if (outage < *bound) continue;
      const std::string what =
          i == first ? "the " + describe_fault(*crashes[first]) + " keeps"
                     : std::to_string(i - first + 1) + " crashes from " +
                           format_duration(crashes[first]->at) +
                           ", each before the previous restart could take the lease back, keep";
      out.push_back(what + " the only " + e.who + " candidate from leading until " +
                    format_duration(restart) + " + leaseDuration + 2.2 x retryPeriod (" +
                    format_duration(retake(e)) + ", to take back its own lease): " +
                    format_duration(outage) + " without a leader, not less than "
                    "eventually-leader's bound " + format_duration(*bound));
      return;  // one sentence
    }
  }
}

// single-leader: a leader may act until RP + RD after its last renewal (wait.Until's RP,
// then the poll's RD), on its own clock; a challenger takes over LD after it saw that
// renewal, on its clock. A pause of the leader and the renewal's response latency add to
// the former. So pause + latency + (RP + RD) * (skew - 1) must stay below LD - RP - RD;
// with skew alone, below LD/(RP + RD) -- tighter than the LD/RD client-go documents.
void broken(const Scenario& scenario, std::vector<std::string>& out) {
  const std::vector<ElectionBounds> elections = elections_of(scenario);
  if (const ElectionBounds* unbounded = unbounded_election(elections))
    broken_unbounded(scenario, *unbounded, out);
  broken_restart(scenario, elections, out);
  const Stalls s = stalls_of(scenario);
  const RateSpread rates = rate_spread(scenario);
  const double skew = rates.ratio();
  for (const ElectionBounds& e : elections) {
    const Duration skew_cost{static_cast<std::int64_t>(
        static_cast<double>((e.retryPeriod + e.renewDeadline).ns) * (skew - 1.0))};
    const Duration total = s.pause + s.latency + skew_cost;
    if (total < e.margin()) continue;
    std::vector<std::string> parts;
    if (s.pause > Duration{})
      parts.push_back("a pause of " + format_duration(s.pause) + " (" + s.pause_who + ")");
    if (s.latency > Duration{}) {
      parts.push_back("API latency of " + format_duration(s.latency) + " (" + s.latency_who +
                      "'s kube-apiserver)");
    }
    if (skew_cost > Duration{}) {
      parts.push_back("clock rates differing by " +
                      rate_text(static_cast<std::int64_t>(skew * 1e9)) + "x (" + rates.high_who +
                      " at " + rate_text(rates.high) + ", " + rates.low_who + " at " +
                      rate_text(rates.low) + "), worth (retryPeriod + renewDeadline) x " +
                      rate_text(static_cast<std::int64_t>((skew - 1.0) * 1e9)) + " = " +
                      format_duration(skew_cost));
    }
    out.push_back("what can stall a renewal adds up to " + format_duration(total) +
                  ", not less than leaseDuration - retryPeriod - renewDeadline = " +
                  format_duration(e.margin()) + " of " + e.who + ": " + join_words(parts, " + "));
    break;  // one sentence: the first election whose margin it exhausts
  }
}

std::unique_ptr<Property> single_leader(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<SingleLeader>(spec);
}

std::unique_ptr<Property> eventually_leader(const std::string& spec,
                                            std::optional<Duration> bound) {
  HASIM_ASSERT(bound.has_value());
  return std::make_unique<EventuallyLeader>(spec, *bound);
}

std::unique_ptr<Property> lease_protocol(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<LeaseProtocol>(spec);
}

std::unique_ptr<Property> crashloop_backoff(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<CrashLoopBackoff>(spec);
}

std::unique_ptr<Property> connections_close(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<ConnectionsClose>(spec);
}

}  // namespace

const CheckSystem& control_plane_check_system() {
  static const CheckSystem system{
      "control-plane",
      {
          {{"single-leader", "",
            "at no instant of true time do two processes act as leader for one lease (acting: "
            "from OnStartedLeading until the leader's work stops); a violation says whether both "
            "could still write through an apiserver (harmful) or not (harmless)",
            "what can stall one renewal adds up to less than leaseDuration - retryPeriod - "
            "renewDeadline: a pause of the leader, the API latency of its renewal, and clock-rate "
            "skew, worth (retryPeriod + renewDeadline) x (fastest/slowest rate - 1) (so skew alone "
            "must stay below LD/(RP+RD), tighter than the LD/RD client-go documents); client-go "
            "has "
            "no fencing. With renewRequests: unbounded (client-go up to 1.11) also every request "
            "answered within that margin: no partition, hung apiserver or powered-off node"},
           single_leader},
          {{"eventually-leader", "BOUND",
            "once every partition, pause, node-down and apiserver fault has healed, some process "
            "acts as leader for each lease within BOUND",
            "at least one candidate per lease can run; BOUND covers a lease duration plus the "
            "retry jitter (about LD + 2.2*RP) and a kubelet restart if the leader exited"},
           eventually_leader},
          {{"lease-protocol", "",
            "every write to a Lease, LeaseCandidate or annotation lock, as kube-apiserver "
            "commits it: (a) an update is conditional on a resourceVersion its writer was "
            "served; (b) only the stored holder renews or releases; (c) a held record is taken "
            "over only after its taker observed it unchanged for leaseDuration on its own "
            "clock (the election controller: after renewTime + leaseDuration); (d) "
            "leaseTransitions rises by one when an elector becomes holder and never otherwise, "
            "and acquireTime changes only at a change of holder, and a release writes "
            "leaseDurationSeconds 1; (e) a Coordinated Leader "
            "Election candidate never makes itself holder; (f) no LeaseCandidate is deleted "
            "within its validity of its last renewal; (g) the election controller pings no "
            "candidate renewed within electionDuration",
            "all writers are client-go electors, the election controller or CLE candidates "
            "(no fallbackAfter, which is not upstream); the LeaseCandidate collector's wall "
            "clock runs less than 10 min ahead of a candidate's (its rule compares the two); "
            "the election controller's leaseTransitions are upstream's (left alone when it "
            "names a holder)"},
           lease_protocol},
          {{"crashloop-backoff", "",
            "the kubelet restarts a crashed or exited static-pod container no later than "
            "CrashLoopBackOff allows: at once the first time and once it has run for the "
            "back-off's reset time, else after the current back-off (doubling up to its max)",
            "nothing: it judges the kubelet"},
           crashloop_backoff},
          {{"connections-close", "",
            "when a process crashes or exits on a node that stays up, every running process "
            "it had a connection with receives the close (FIN) within 10 s, unless the "
            "connection is dropped first (a partition, drop-connections)",
            "nothing: it judges the kernel's connections (every control-plane message is on "
            "a TCP-like stream)"},
           connections_close},
      },
      {
          {"apiserver-slow", can_slow, slow,
           [](const FaultSpec& f) { return f.kind == "apiserver-slow"; }},
          {"apiserver-hang", has_apiservers, hang,
           [](const FaultSpec& f) { return f.kind == "apiserver-hang"; }, true},
          {"apiserver-unavailable", has_apiservers, unavailable,
           [](const FaultSpec& f) { return f.kind == "apiserver-unavailable"; }},
      },
      fill_space,
      forbids,
      broken,
  };
  return system;
}

}  // namespace hasim
