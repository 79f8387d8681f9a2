#include "models/raft/rafttest/interaction_env.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include "models/raft/rafttest/interaction.hpp"

namespace hasim::raft::rafttest {

namespace {

constexpr std::array<std::string_view, kLogLevelCount> kLevelNames = {"DEBUG", "INFO",  "WARN",
                                                                      "ERROR", "FATAL", "NONE"};

// One command name and the member that handles it.
struct Command {
  std::string_view name;
  EnvError (InteractionEnv::*handler)(const TestData&);
};

}  // namespace

std::string_view redirect_level_name(int level) {
  return kLevelNames.at(static_cast<std::size_t>(level));
}

void RedirectLogger::log(LogLevel level, std::string_view line) {
  const int lvl = static_cast<int>(level);
  if (level_ > lvl) return;
  // Upstream prints through the builder's Write, which is silent under NONE; NONE is also
  // the highest threshold, so the check above already covers it.
  write(redirect_level_name(lvl));
  write(" ");
  write(line);
  if (line.empty() || line.back() != '\n') write("\n");
}

void RedirectLogger::write(std::string_view text) {
  if (quiet()) return;
  buffer_.append(text);
}

Result<Snapshot> SnapOverrideStorage::snapshot() {
  if (!snapshotOverride) return MemoryStorage::snapshot();
  Result<Snapshot> result;
  result.value = snapshotOverride();
  result.err = StorageError::Ok;
  return result;
}

Config raft_config_stub() {
  Config cfg;
  cfg.electionTick = 3;
  cfg.heartbeatTick = 1;
  cfg.maxSizePerMsg = std::numeric_limits<std::uint64_t>::max();
  cfg.maxInflightMsgs = std::numeric_limits<std::int32_t>::max();
  return cfg;
}

InteractionEnv::InteractionEnv(InteractionOpts opts) : options_(std::move(opts)) {}

Node& InteractionEnv::node(std::size_t idx) {
  if (idx >= nodes_.size()) {
    throw TranscriptFatal("no node with id " + std::to_string(idx + 1));
  }
  return nodes_[idx];
}

void InteractionEnv::with_indent(const std::function<void()>& f) {
  std::string orig = std::move(output_.buffer());
  output_.buffer().clear();
  f();
  std::string inner = std::move(output_.buffer());
  output_.buffer() = std::move(orig);
  // As bufio.Scanner's ScanLines: split at '\n', drop one trailing '\r', and keep a final
  // line that has no newline.
  std::size_t start = 0;
  while (start < inner.size()) {
    std::size_t end = inner.find('\n', start);
    const std::size_t next = end == std::string::npos ? inner.size() : end + 1;
    if (end == std::string::npos) end = inner.size();
    std::string_view line(inner.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    output_.buffer().append("  ").append(line).append("\n");
    start = next;
  }
}

std::string InteractionEnv::handle(const TestData& d) {
  output_.reset();
  EnvError err = dispatch(d);
  // The NONE level silences all output, the handler's too, but an error always shows.
  if (err) {
    if (output_.quiet()) return *err;
    output_.write(*err);
  }
  if (output_.str().empty()) return "ok";
  return output_.str();
}

EnvError InteractionEnv::dispatch(const TestData& d) {
  static constexpr std::array<Command, 21> kCommands = {{
      {"add-nodes", &InteractionEnv::handle_add_nodes},
      {"campaign", &InteractionEnv::handle_campaign},
      {"compact", &InteractionEnv::handle_compact},
      {"deliver-msgs", &InteractionEnv::handle_deliver_msgs},
      {"process-ready", &InteractionEnv::handle_process_ready},
      {"process-append-thread", &InteractionEnv::handle_process_append_thread},
      {"process-apply-thread", &InteractionEnv::handle_process_apply_thread},
      {"log-level", &InteractionEnv::handle_log_level},
      {"raft-log", &InteractionEnv::handle_raft_log},
      {"set-randomized-election-timeout",
       &InteractionEnv::handle_set_randomized_election_timeout},
      {"stabilize", &InteractionEnv::handle_stabilize},
      {"status", &InteractionEnv::handle_status},
      {"tick-election", &InteractionEnv::handle_tick_election},
      {"tick-heartbeat", &InteractionEnv::handle_tick_heartbeat},
      {"transfer-leadership", &InteractionEnv::handle_transfer_leadership},
      {"forget-leader", &InteractionEnv::handle_forget_leader},
      {"send-snapshot", &InteractionEnv::handle_send_snapshot},
      {"propose", &InteractionEnv::handle_propose},
      {"propose-conf-change", &InteractionEnv::handle_propose_conf_change},
      {"report-unreachable", &InteractionEnv::handle_report_unreachable},
      {"_breakpoint", nullptr},  // a place to stop a debugger; does nothing
  }};
  if (d.cmd == "raft-state") return handle_raft_state();
  for (const Command& command : kCommands) {
    if (command.name != d.cmd) continue;
    if (command.handler == nullptr) return std::nullopt;
    return (this->*command.handler)(d);
  }
  return "unknown command";
}

EnvError InteractionEnv::for_each_node(const std::vector<std::size_t>& idxs,
                                       std::string_view what,
                                       EnvError (InteractionEnv::*step)(std::size_t)) {
  for (const std::size_t idx : idxs) {
    EnvError err;
    if (idxs.size() > 1) {
      output_.write("> " + std::to_string(idx + 1) + " " + std::string(what) + "\n");
      with_indent([&] { err = (this->*step)(idx); });
    } else {
      err = (this->*step)(idx);
    }
    if (err) return err;
  }
  return std::nullopt;
}

EnvError InteractionEnv::log_level(std::string_view name) {
  auto equal_fold = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
  };
  for (int i = 0; i < kLogLevelCount; ++i) {
    if (equal_fold(redirect_level_name(i), name)) {
      output_.set_level(i);
      return std::nullopt;
    }
  }
  return "log levels must be either of [DEBUG INFO WARN ERROR FATAL NONE]";
}

EnvError InteractionEnv::handle_log_level(const TestData& d) {
  if (d.cmdArgs.empty()) throw TranscriptFatal(d.pos + ": log-level needs a level");
  return log_level(d.cmdArgs[0].key);
}

namespace args {

namespace {
[[noreturn]] void fatal(std::string what) { throw TranscriptFatal(std::move(what)); }
}  // namespace

std::uint64_t to_uint64(std::string_view text) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    fatal("strconv.ParseUint: parsing \"" + std::string(text) + "\": invalid syntax");
  }
  return value;
}

int to_int(std::string_view text) {
  int value = 0;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    fatal("strconv.Atoi: parsing \"" + std::string(text) + "\": invalid syntax");
  }
  return value;
}

bool to_bool(std::string_view text) {
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == yes) return true;
  }
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == no) return false;
  }
  fatal("strconv.ParseBool: parsing \"" + std::string(text) + "\": invalid syntax");
}

int first_as_int(const TestData& d) {
  if (d.cmdArgs.empty()) fatal(d.pos + ": " + d.cmd + " needs a node id");
  return to_int(d.cmdArgs[0].key);
}

std::size_t first_as_node_idx(const TestData& d) {
  const int n = first_as_int(d);
  if (n < 1) fatal(d.pos + ": node ids start at 1");
  return static_cast<std::size_t>(n - 1);
}

std::vector<std::size_t> node_idxs(const TestData& d) {
  std::vector<std::size_t> idxs;
  for (const CmdArg& arg : d.cmdArgs) {
    if (!arg.vals.empty()) continue;  // key=value arguments are not node ids
    const int n = to_int(arg.key);
    if (n < 1) fatal(d.pos + ": node ids start at 1");
    idxs.push_back(static_cast<std::size_t>(n - 1));
  }
  return idxs;
}

std::string_view scan_arg(const TestData& d, std::string_view key) {
  for (const CmdArg& arg : d.cmdArgs) {
    if (arg.key != key) continue;
    if (arg.vals.empty()) fatal(d.pos + ": argument " + std::string(key) + " has no value");
    return arg.vals[0];
  }
  fatal(d.pos + ": missing argument: " + std::string(key));
}

}  // namespace args

namespace {

// The datadriven suite: one environment per transcript file.
class InteractionSuite final : public TranscriptHandler {
 public:
  std::string handle(const TestData& d) override { return env_.handle(d); }

 private:
  InteractionEnv env_;
};

}  // namespace

std::unique_ptr<TranscriptHandler> make_interaction_suite() {
  return std::make_unique<InteractionSuite>();
}

}  // namespace hasim::raft::rafttest
