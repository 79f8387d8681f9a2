#include "models/election/identity.hpp"

#include <cstdint>

#include "sim/assert.hpp"

namespace hasim::election {
namespace {

// The low `digits` hex digits of `value`, lower case, zero-padded: printf's %0Nx for a value
// that fits. By hand because snprintf's format parsing was most of a component start's cost.
void append_hex(std::string& out, std::uint64_t value, int digits) {
  HASIM_ASSERT(digits > 0 && digits <= 16);
  HASIM_ASSERT(digits == 16 || value >> (4 * digits) == 0);  // fits: nothing is cut off
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
    out.push_back(kDigits[(value >> shift) & 0xf]);
  }
}

}  // namespace

std::string lock_identity(const std::string& hostname, Rng& rng) {
  // A version-4-shaped UUID: 8-4-4-4-12 hex digits, "4" leading the third group and the
  // fourth group's top bits 10 (the variant).
  const std::uint64_t a = rng.next_u64();
  const std::uint64_t b = rng.next_u64();
  std::string out;
  out.reserve(hostname.size() + 37);
  out.append(hostname).append(1, '_');
  append_hex(out, a >> 32, 8);
  out.push_back('-');
  append_hex(out, (a >> 16) & 0xffff, 4);
  out.append("-4");
  append_hex(out, a & 0xfff, 3);
  out.push_back('-');
  append_hex(out, ((b >> 48) & 0x3fff) | 0x8000, 4);
  out.push_back('-');
  append_hex(out, b & 0xffffffffffffULL, 12);
  HASIM_ASSERT(out.size() == hostname.size() + 37);
  return out;
}

}  // namespace hasim::election
