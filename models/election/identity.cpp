#include "models/election/identity.hpp"

#include <cstdio>

namespace hasim::election {

std::string lock_identity(const std::string& hostname, Rng& rng) {
  // A version-4-shaped UUID.
  const std::uint64_t a = rng.next_u64();
  const std::uint64_t b = rng.next_u64();
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>((b >> 48) & 0x3fff) | 0x8000,
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return hostname + "_" + text;
}

}  // namespace hasim::election
