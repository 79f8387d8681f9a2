#pragma once
// Deterministic random streams. One root seed; every consumer forks a stream named by its
// purpose ("net", "faults", "node-2/kcm"), so adding a consumer never shifts what another
// one draws. The generator is xoshiro256** seeded through SplitMix64; stream seeds are a
// hash of (parent seed, name). Distributions are our own (never std::*_distribution, whose
// results differ between standard libraries) and use only +,-,*,/, sqrt, log and exp.
#include <cstdint>
#include <string_view>

#include "sim/time.hpp"

namespace hasim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // A child stream named by purpose. Depends only on this stream's seed and the name,
  // never on how much has been drawn from this stream.
  Rng fork(std::string_view name) const;
  std::uint64_t seed() const { return seed_; }

  std::uint64_t next_u64();
  // Uniform in [0, bound), unbiased (Lemire's method with rejection). bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform integer in [low, high], inclusive.
  std::int64_t uniform_int(std::int64_t low, std::int64_t high);
  // Uniform double in [0, 1) with 53 random bits.
  double unit();
  double uniform(double low, double high);
  bool bernoulli(double p);
  double exponential(double mean);
  // Marsaglia's polar method; the second variate is discarded so state stays one generator.
  double normal(double mean, double stddev);
  double lognormal(double mu, double sigma);

 private:
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

// 64-bit FNV-1a of a string then SplitMix64 finalisation; used to derive stream seeds.
std::uint64_t hash_name(std::uint64_t seed, std::string_view name);
std::uint64_t splitmix64(std::uint64_t& state);

}  // namespace hasim
