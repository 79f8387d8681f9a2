#pragma once
// The `hasim` command. Exit codes: 0 every property held; 1 a property was violated;
// 2 bad input or usage; 3 a run was not reproducible (replay diverged, --determinism).
#include <iosfwd>

namespace hasim {

inline constexpr int kExitHeld = 0;
inline constexpr int kExitViolated = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNotReproducible = 3;

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace hasim
