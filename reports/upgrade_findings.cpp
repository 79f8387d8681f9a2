// What hasim found beyond the upgrade-skew grid.
#include "reports/upgrade_report.hpp"

namespace hasim {
// What hasim found beyond the grid, each kept as a scenario whose verdict a test asserts.
// Facts about the models, not figures: the figures above come from the data.
std::vector<std::string> upgrade_findings() {
  return {
      "Faults during a coordinated upgrade can still break skew. RapidCheck, adding crash and "
      "partition faults to coordinated upgrades, shrank a counterexample to one fault: the "
      "last node still at the old version crashes for 19 s after the others were upgraded. "
      "While it is down its old candidates cannot ack the controller's ping, so the controller "
      "elects a new-version candidate, correctly at that moment, since no old apiserver serves "
      "either. When the node comes back, its old kube-apiserver serves at once, beside a "
      "new-version leader, until the controller has pinged the returning old candidates and "
      "preempted the leader (about 11 s). CLE bounds the window but cannot close it: "
      "scenarios/upgrade/coordinated-old-node-crash-3.json.",
      "A coordinated rollback violates in every trial, briefly: the first rolled-back node's "
      "older kube-apiserver serves the moment it starts, while the newer leader keeps acting "
      "until it is preempted through preferredHolder and gives up after renewDeadline "
      "(scenarios/upgrade/coordinated-rollback-3.json). The KEP's story 2 describes the "
      "preemption but not this window.",
      "A mixed fleet (the upgrade enables CLE) is no safer than leases: only coordinated, "
      "new-version components publish LeaseCandidates, so when an old lease-based leader's lease "
      "expires the controller hands it to a new-version candidate while old apiservers still "
      "serve (scenarios/upgrade/mixed-upgrade-3.json).",
      "Stale candidates keep the controller pinging. A component stopped by the upgrade leaves "
      "its LeaseCandidate behind (client-go does not delete it), unexpired for 30 minutes. After "
      "an upgrade the dead old-version candidates still rank best, so electionNeeded stays true "
      "and the controller pings every live candidate every 5 s per Lease until the garbage "
      "collector removes them (up to 30 minutes after the upgrade): two writes per live "
      "candidate per round, on top of the write load in the table above, which counts only the "
      "upgrade itself.",
  };
}

}  // namespace hasim
