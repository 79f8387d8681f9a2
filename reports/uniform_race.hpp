#pragma once
// The model behind KEP-4355's "about a 25% chance" of a skew violation in a 3-node upgrade,
// made explicit and solved exactly. The KEP gives no derivation; the reconstruction in
// ../shared/reference/coordinated-leader-election.md §11 matches its figure and its hint
// ("consider the case where the 2nd node upgraded has the lease") under these assumptions:
//   - the nodes are upgraded (or rolled back) one at a time, in order; a node's step takes
//     its kube-apiserver and its controllers down together and brings both back at the
//     target version before the next node's step starts;
//   - at the start one lease holder is uniform over the nodes;
//   - a leader on a downed node loses the lease, which goes uniformly at random to one of the
//     surviving electors (every other node, whatever its version);
//   - nobody preempts a live leader (plain leases).
// A violation is the no-skew rule: at some instant the leader's controller is newer than a
// serving kube-apiserver. The reports compare this exact value with the simulation, whose
// race is not uniform and whose steps overlap in time.
#include <cstdint>
#include <string>
#include <vector>

#include "reports/upgrade_trial.hpp"

namespace hasim {

// An exact probability numerator/denominator in lowest terms.
struct Fraction {
  std::uint64_t numerator = 0;
  std::uint64_t denominator = 1;
  double value() const;
  // "1/4", "0", "1"
  std::string str() const;
  bool operator==(const Fraction&) const = default;
};

// The smallest and largest control planes the exact model is solved for: up to here every
// result, including 1 - (1 - p)^2 with its squared denominator, fits in 64 bits.
inline constexpr int kUniformRaceMinNodes = 2;
inline constexpr int kUniformRaceMaxNodes = 10;

struct UniformRaceResult {
  // P(the leader of one lease violates skew at some point of the upgrade): the KEP's figure.
  Fraction one_lease;
  // by_step[k]: P(the first violation happens during node k's step (0-based)); sums to
  // one_lease.
  std::vector<Fraction> by_step;
  // P(either of two independent leases violates), 1 - (1 - p)^2: what a study that counts
  // kube-controller-manager and kube-scheduler together should compare against.
  Fraction two_leases;
};

// Solves the model exactly by propagating the leader's distribution over nodes step by step
// (a Markov chain whose only absorbing state is "violated"). nodes in [kUniformRaceMinNodes,
// kUniformRaceMaxNodes]. Upgrade: 3 nodes give exactly 1/4, 5 nodes 131/256. Rollback: 1 for
// every N, because once the first node comes back its old kube-apiserver serves while the
// leader (never preempted) runs the newer version somewhere else.
UniformRaceResult uniform_race(int nodes, UpgradeDirection direction);

// The upgrade's closed form, for cross-checking the chain: before step k (1-based) the
// leader is uniform over the N-k+1 nodes not yet upgraded; it is on node k with probability
// 1/(N-k+1) and then goes to one of the k-1 upgraded nodes with probability (k-1)/(N-1),
// which violates while an old kube-apiserver still serves (k < N). So
//   P(no violation) = prod_{k=2}^{N-1} (1 - (k-1) / ((N-k+1)(N-1)))
//                   = prod_{k=2}^{N-1} N(N-k) / ((N-k+1)(N-1))      (telescopes)
//                   = N^(N-2) / (N-1)^(N-1),
// e.g. 3/4 for N=3 and 125/256 for N=5. It tends to e/N, so bigger control planes violate
// more often under this model: about 1 - e/N.
Fraction uniform_race_upgrade_closed_form(int nodes);

// 1 - (1 - p)^k: some lease among k independent ones violates.
Fraction any_of_independent(Fraction p, int leases);

}  // namespace hasim
