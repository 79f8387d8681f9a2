// What both checkers share: verdict names and the one-line description of a verdict.
#include "properties/linearizability/checker.hpp"

#include <array>

#include "sim/assert.hpp"

namespace hasim::linearizability {

std::string_view verdict_kind_name(VerdictKind kind) {
  constexpr std::array<std::string_view, 3> kNames{"linearizable", "illegal", "gave-up"};
  const auto index = static_cast<std::size_t>(kind);
  HASIM_ASSERT(index < kNames.size());
  return kNames[index];
}

std::string describe(const Verdict& verdict) {
  if (verdict.kind == VerdictKind::linearizable) {
    return "linearizable (" + std::to_string(verdict.keys.size()) + " keys)";
  }
  HASIM_ASSERT(!verdict.key.empty());
  std::string text = std::string(verdict_kind_name(verdict.kind)) + " on key " + verdict.key;
  if (verdict.time_ns != 0) text += " at " + std::to_string(verdict.time_ns) + " ns";
  return text + ": " + verdict.detail;
}

}  // namespace hasim::linearizability
