#pragma once
// raft.Logger (etcd-io/raft logger.go): where the raft core says what it does. The core
// formats each line itself (no printf verbs cross this interface); a logger decides what to
// keep. The interaction transcripts print these lines ("INFO 1 became leader at term 1"), so
// their text is part of raft's observable behaviour and follows upstream word for word.
#include <string>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace hasim::raft {

// What upstream's panic becomes: an exception the embedding process may catch to die as
// etcd does (a Go panic exits the process with status 2; its supervisor restarts it), e.g.
// a follower whose log an unsafe power loss truncated and that is asked to commit past it.
// Uncaught it ends the program with the panic's text, as upstream's does in tests.
struct RaftPanic : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// RedirectLogger's levels (rafttest/interaction_env_logger.go): 0 DEBUG .. 4 FATAL, 5 NONE (Off).
// Panic lines print as FATAL, as upstream's RedirectLogger does.
enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3, Fatal = 4, Off = 5 };

std::string_view level_name(LogLevel level);  // "DEBUG", "INFO", "WARN", "ERROR", "FATAL"

class Logger {
 public:
  virtual ~Logger() = default;
  // One line, without its trailing newline.
  virtual void log(LogLevel level, std::string_view line) = 0;

  void debug(std::string_view line) { log(LogLevel::Debug, line); }
  void info(std::string_view line) { log(LogLevel::Info, line); }
  void warning(std::string_view line) { log(LogLevel::Warning, line); }
  void error(std::string_view line) { log(LogLevel::Error, line); }
  // Fatalf/Panicf: logged at FATAL, then RaftPanic is thrown (a broken raft invariant:
  // a programmer error, or state an unsafe mode corrupted, as upstream's panic is).
  [[noreturn]] void panic(std::string_view line);  // throws RaftPanic
};

// A logger that keeps nothing (upstream's discardLogger).
class DiscardLogger final : public Logger {
 public:
  void log(LogLevel, std::string_view) override {}
};
DiscardLogger& discard_logger();

}  // namespace hasim::raft
