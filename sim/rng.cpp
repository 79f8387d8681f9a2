#include "sim/rng.hpp"

#include <cmath>

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {
namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_name(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  std::uint64_t state = h ^ (seed * 0x9e3779b97f4a7c15ULL);
  return splitmix64(state);
}

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t state = seed;
  for (std::uint64_t& word : s_) word = splitmix64(state);
  // xoshiro must not start from the all-zero state; SplitMix64 cannot produce four zeros.
  HASIM_ASSERT((s_[0] | s_[1] | s_[2] | s_[3]) != 0);
}

Rng Rng::fork(std::string_view name) const { return Rng(hash_name(seed_, name)); }

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t bound) {
  HASIM_ASSERT(bound > 0);
  UInt128 m = static_cast<UInt128>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<UInt128>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Rng::uniform_int(std::int64_t low, std::int64_t high) {
  HASIM_ASSERT(low <= high);
  const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  if (span == UINT64_MAX) return static_cast<std::int64_t>(next_u64());
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + below(span + 1));
}

double Rng::unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform(double low, double high) {
  HASIM_ASSERT(low <= high);
  return low + (high - low) * unit();
}

bool Rng::bernoulli(double p) {
  HASIM_ASSERT(p >= 0.0 && p <= 1.0);
  if (p == 0.0) return false;  // draw nothing: a disabled fault must not consume randomness
  if (p == 1.0) return true;
  return unit() < p;
}

double Rng::exponential(double mean) {
  HASIM_ASSERT(mean >= 0.0);
  // 1 - unit() is in (0, 1], so the log is finite.
  return -mean * std::log(1.0 - unit());
}

double Rng::normal(double mean, double stddev) {
  HASIM_ASSERT(stddev >= 0.0);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const double u = 2.0 * unit() - 1.0;
    const double v = 2.0 * unit() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return mean + stddev * u * std::sqrt(-2.0 * std::log(s) / s);
  }
  HASIM_ASSERT(false && "polar method rejected 1000 times");
  return mean;
}

double Rng::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

}  // namespace hasim
