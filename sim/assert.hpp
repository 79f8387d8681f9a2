#pragma once
// Always-on invariant checks (TIGER_STYLE): a failed assertion is a programmer error, so
// hasim stops at once with the condition and its place. NDEBUG does not remove these.
#include <cstdio>
#include <cstdlib>

namespace hasim::detail {
[[noreturn]] inline void assert_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "hasim: assertion failed: %s (%s:%d)\n", condition, file, line);
  std::abort();
}
}  // namespace hasim::detail

#define HASIM_ASSERT(condition)                                       \
  do {                                                                \
    if (!(condition)) [[unlikely]]                                    \
      ::hasim::detail::assert_failed(#condition, __FILE__, __LINE__); \
  } while (false)
