// raft.Logger's shared parts (logger.hpp).
#include "models/raft/logger.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "sim/assert.hpp"

namespace hasim::raft {

std::string_view level_name(LogLevel level) {
  // rafttest/interaction_env_logger.go lvlNames.
  static constexpr std::array<std::string_view, 6> kNames = {"DEBUG", "INFO",  "WARN",
                                                             "ERROR", "FATAL", "NONE"};
  const auto i = static_cast<std::size_t>(level);
  HASIM_ASSERT(i < kNames.size());
  return kNames[i];
}

void Logger::panic(std::string_view line) {
  log(LogLevel::Fatal, line);
  // Upstream panics; hasim stops, saying why even when the logger keeps nothing.
  std::fprintf(stderr, "hasim: raft panic: %.*s\n", static_cast<int>(line.size()), line.data());
  std::abort();
}

DiscardLogger& discard_logger() {
  static DiscardLogger logger;
  return logger;
}

}  // namespace hasim::raft
