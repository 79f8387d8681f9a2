#pragma once
// FNV-1a (64-bit), byte by byte: the small, stable hash hasim uses where a value must be
// the same on every machine and run (payload and prefix hashes of logs, state-machine
// digests). Not for anything adversarial.
#include <cstdint>
#include <string_view>

namespace hasim {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

inline std::uint64_t fnv1a_byte(std::uint64_t hash, unsigned char byte) {
  return (hash ^ byte) * kFnvPrime;
}

inline std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (char c : bytes) hash = fnv1a_byte(hash, static_cast<unsigned char>(c));
  return hash;
}

// The word's 8 bytes, least significant first.
inline std::uint64_t fnv1a_word(std::uint64_t hash, std::uint64_t word) {
  for (int i = 0; i < 8; ++i) hash = fnv1a_byte(hash, static_cast<unsigned char>(word >> (8 * i)));
  return hash;
}

}  // namespace hasim
