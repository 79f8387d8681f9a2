#include "reports/uniform_race.hpp"

#include <limits>

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {
namespace {

UInt128 gcd(UInt128 a, UInt128 b) {
  while (b != 0) {
    const UInt128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// Exact non-negative rationals in 128 bits, reduced after every operation. The model's
// denominators divide N * (N-1)^N, inside 64 bits for N <= 10, so products of two of them
// never overflow 128 bits.
struct Rational {
  UInt128 num = 0;
  UInt128 den = 1;

  static Rational make(UInt128 n, UInt128 d) {
    HASIM_ASSERT(d != 0);
    if (n == 0) return {0, 1};
    const UInt128 g = gcd(n, d);
    return {n / g, d / g};
  }
  Rational operator+(const Rational& o) const {
    const UInt128 g = gcd(den, o.den);
    return make(num * (o.den / g) + o.num * (den / g), den / g * o.den);
  }
  Rational operator-(const Rational& o) const {
    const UInt128 g = gcd(den, o.den);
    const UInt128 a = num * (o.den / g);
    const UInt128 b = o.num * (den / g);
    HASIM_ASSERT(a >= b);  // probabilities only: never negative
    return make(a - b, den / g * o.den);
  }
  Rational operator*(const Rational& o) const {
    if (num == 0 || o.num == 0) return {0, 1};
    // Cross-reduce first so intermediate products stay small.
    const UInt128 g1 = gcd(num, o.den);
    const UInt128 g2 = gcd(o.num, den);
    return make((num / g1) * (o.num / g2), (den / g2) * (o.den / g1));
  }
  Fraction fraction() const {
    constexpr UInt128 kMax = std::numeric_limits<std::uint64_t>::max();
    HASIM_ASSERT(num <= kMax && den <= kMax);
    return {static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den)};
  }
};

Rational rational(Fraction f) { return Rational::make(f.numerator, f.denominator); }

// Versions are 0 (older) and 1 (newer): all the model needs is their order.
struct ControlPlane {
  std::vector<int> version;  // of node i's kube-apiserver and controllers alike
  std::vector<bool> up;

  // no-skew: the leader's controller is newer than some serving kube-apiserver.
  bool violates(int leader) const {
    for (std::size_t i = 0; i < version.size(); ++i) {
      if (up[i] && version[static_cast<std::size_t>(leader)] > version[i]) return true;
    }
    return false;
  }
};

}  // namespace

double Fraction::value() const {
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::string Fraction::str() const {
  if (numerator == 0) return "0";
  if (numerator == denominator) return "1";
  return std::to_string(numerator) + "/" + std::to_string(denominator);
}

UniformRaceResult uniform_race(int nodes, UpgradeDirection direction) {
  HASIM_ASSERT(nodes >= kUniformRaceMinNodes && nodes <= kUniformRaceMaxNodes);
  const auto n = static_cast<std::size_t>(nodes);
  const int from = direction == UpgradeDirection::upgrade ? 0 : 1;
  const int to = 1 - from;
  ControlPlane cp{std::vector<int>(n, from), std::vector<bool>(n, true)};
  // leader[i]: P(no violation yet and node i holds the lease).
  std::vector<Rational> leader(n, Rational::make(1, n));
  UniformRaceResult result;
  Rational violated;
  // Bounded: one pass per node, each over at most N x N transitions.
  for (std::size_t k = 0; k < n; ++k) {
    Rational violated_now;
    // Node k goes down: its leader loses the lease to one of the N-1 others, uniformly.
    cp.up[k] = false;
    std::vector<Rational> next(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i != k) next[i] = next[i] + leader[i];
    }
    const Rational share = leader[k] * Rational::make(1, n - 1);
    for (std::size_t j = 0; j < n; ++j) {
      if (j != k) next[j] = next[j] + share;
    }
    // The lease moved (or stayed) while node k is down: check every holder.
    for (std::size_t i = 0; i < n; ++i) {
      if (next[i].num != 0 && cp.violates(static_cast<int>(i))) {
        violated_now = violated_now + next[i];
        next[i] = {0, 1};
      }
    }
    // Node k comes back at the target version; no preemption, so the holder stays.
    cp.version[k] = to;
    cp.up[k] = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (next[i].num != 0 && cp.violates(static_cast<int>(i))) {
        violated_now = violated_now + next[i];
        next[i] = {0, 1};
      }
    }
    leader = std::move(next);
    result.by_step.push_back(violated_now.fraction());
    violated = violated + violated_now;
  }
  // Conservation: what did not violate is still somewhere.
  Rational remaining;
  for (const Rational& p : leader) remaining = remaining + p;
  HASIM_ASSERT((remaining + violated).num == 1 && (remaining + violated).den == 1);
  result.one_lease = violated.fraction();
  result.two_leases = any_of_independent(result.one_lease, 2);
  return result;
}

Fraction uniform_race_upgrade_closed_form(int nodes) {
  HASIM_ASSERT(nodes >= kUniformRaceMinNodes && nodes <= kUniformRaceMaxNodes);
  const auto n = static_cast<UInt128>(nodes);
  UInt128 num = 1;  // N^(N-2)
  UInt128 den = 1;  // (N-1)^(N-1)
  for (UInt128 i = 0; i + 2 < n; ++i) num *= n;
  for (UInt128 i = 0; i + 1 < n; ++i) den *= n - 1;
  return (Rational::make(1, 1) - Rational::make(num, den)).fraction();
}

Fraction any_of_independent(Fraction p, int leases) {
  HASIM_ASSERT(leases >= 1 && leases <= 8);
  const Rational q = Rational::make(1, 1) - rational(p);
  Rational none = Rational::make(1, 1);
  for (int i = 0; i < leases; ++i) none = none * q;
  return (Rational::make(1, 1) - none).fraction();
}

}  // namespace hasim
