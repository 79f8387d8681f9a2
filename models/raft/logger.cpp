// raft.Logger's shared parts (logger.hpp).
#include "models/raft/logger.hpp"

#include <array>
#include <cstdio>
#include <string>

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
  // Upstream panics: the caller that embeds raft decides (an etcd member dies of it).
  throw RaftPanic("raft panic: " + std::string(line));
}

DiscardLogger& discard_logger() {
  static DiscardLogger logger;
  return logger;
}

}  // namespace hasim::raft
