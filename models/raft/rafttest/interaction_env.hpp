#pragma once
// The interaction environment (etcd-io/raft rafttest/interaction_env*.go): a set of RawNodes
// driven by hand from a datadriven transcript. Each command of a transcript ("add-nodes 3
// voters=(1,2,3) index=10", "stabilize", "deliver-msgs 2 drop=(3)", ...) is one call of
// InteractionEnv::handle, which returns what the command printed. Upstream's transcripts
// compare that text byte for byte, so every line the environment writes follows upstream's
// wording and whitespace exactly.
//
// The environment plays the application of each node: it persists what a Ready asks to
// persist into the node's MemoryStorage, "applies" committed entries to a toy state machine
// that appends each entry's payload to the previous state (the node's History of
// snapshots), and keeps the in-flight messages in one list, delivered or dropped only when a
// command says so. With async storage writes the node's storage work (MsgStorageAppend /
// MsgStorageApply) waits in per-node queues until process-append-thread /
// process-apply-thread (or stabilize) runs it.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/config.hpp"
#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/rawnode.hpp"
#include "models/raft/storage.hpp"
#include "models/raft/rafttest/datadriven.hpp"

namespace hasim::raft::rafttest {

// The six levels of RedirectLogger, in threshold order; "NONE" silences everything.
inline constexpr int kLogLevelCount = 6;
std::string_view redirect_level_name(int level);  // "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "NONE"

// The environment's output buffer, which is also every node's raft Logger. Raft log lines
// at or above the threshold print as "LEVEL text\n"; at NONE nothing at all is written, not
// even the environment's own output (upstream overrides the builder's writes the same way).
class RedirectLogger final : public Logger {
 public:
  void log(LogLevel level, std::string_view line) override;

  // Environment output; dropped when quiet().
  void write(std::string_view text);
  bool quiet() const { return level_ == kLogLevelCount - 1; }

  int level() const { return level_; }
  void set_level(int level) { level_ = level; }

  // The raw buffer, bypassing the quiet check (withIndent moves text between buffers).
  std::string& buffer() { return buffer_; }
  const std::string& str() const { return buffer_; }
  void reset() { buffer_.clear(); }

 private:
  std::string buffer_;
  int level_ = 0;  // DEBUG, the zero value upstream starts with
};

// A MemoryStorage whose snapshot() is the node's latest History entry (upstream's
// snapOverrideStorage): MemoryStorage keeps whatever snapshot it was last given, while the
// environment's state machine produces a new one on every applied entry.
class SnapOverrideStorage final : public MemoryStorage {
 public:
  std::function<Snapshot()> snapshotOverride;
  Result<Snapshot> snapshot() override;
};

// One member of the group. RawNode and storage live on the heap so that the raft's pointer
// to its storage stays valid when the node vector grows.
struct Node {
  std::unique_ptr<SnapOverrideStorage> storage;
  std::unique_ptr<RawNode> rawNode;
  Config config;
  std::vector<Message> appendWork;  // MsgStorageAppend waiting for the append thread
  std::vector<Message> applyWork;   // MsgStorageApply waiting for the apply thread
  std::vector<Snapshot> history;    // the state machine after each applied entry
};

// deliver-msgs' per-recipient instruction.
struct Recipient {
  PeerId id = None;
  bool drop = false;
};

struct InteractionOpts {
  // Called on each new node's config before its RawNode is built; must not change the ID
  // or set a logger.
  std::function<void(Config&)> onConfig;
};

// A handler's error: upstream's err.Error() text, printed as the command's output.
using EnvError = std::optional<std::string>;

// What upstream reports through t.Fatal (a malformed command, not a raft outcome): the
// transcript is broken, so the run stops with this exception.
class TranscriptFatal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// raftConfigStub: ElectionTick 3, HeartbeatTick 1, no size or inflight limits.
Config raft_config_stub();


class InteractionEnv {
 public:
  explicit InteractionEnv(InteractionOpts opts = {});
  // The nodes' storages call back into the env, so it stays where it was built.
  InteractionEnv(const InteractionEnv&) = delete;
  InteractionEnv& operator=(const InteractionEnv&) = delete;

  // The datadriven entry point: runs one command and returns its output ("ok" if silent).
  std::string handle(const TestData& d);

  // Upstream's exported env methods; idx is a node index (ID - 1).
  EnvError add_nodes(int n, const Config& cfg, Snapshot snap);
  EnvError campaign(std::size_t idx);
  EnvError compact(std::size_t idx, Index newFirstIndex);
  std::size_t deliver_msgs(std::optional<MessageType> type, const std::vector<Recipient>& rs);
  EnvError process_ready(std::size_t idx);
  EnvError process_append_thread(std::size_t idx);
  EnvError process_apply_thread(std::size_t idx);
  EnvError log_level(std::string_view name);
  EnvError raft_log(std::size_t idx);
  EnvError stabilize(const std::vector<std::size_t>& idxs);
  EnvError status(std::size_t idx);
  EnvError tick(std::size_t idx, int num);
  EnvError propose(std::size_t idx, std::string data);
  EnvError propose_conf_change(std::size_t idx, const ConfChangeI& cc);
  void forget_leader(std::size_t idx);
  EnvError send_snapshot(std::size_t fromIdx, std::size_t toIdx);
  EnvError transfer_leadership(PeerId from, PeerId to);

  std::vector<Node>& nodes() { return nodes_; }
  std::vector<Message>& messages() { return messages_; }
  RedirectLogger& output() { return output_; }

 private:
  EnvError dispatch(const TestData& d);

  EnvError handle_add_nodes(const TestData& d);
  EnvError handle_campaign(const TestData& d);
  EnvError handle_compact(const TestData& d);
  EnvError handle_deliver_msgs(const TestData& d);
  EnvError handle_process_ready(const TestData& d);
  EnvError handle_process_append_thread(const TestData& d);
  EnvError handle_process_apply_thread(const TestData& d);
  EnvError handle_log_level(const TestData& d);
  EnvError handle_raft_log(const TestData& d);
  EnvError handle_raft_state();
  EnvError handle_set_randomized_election_timeout(const TestData& d);
  EnvError handle_stabilize(const TestData& d);
  EnvError handle_status(const TestData& d);
  EnvError handle_tick_election(const TestData& d);
  EnvError handle_tick_heartbeat(const TestData& d);
  EnvError handle_transfer_leadership(const TestData& d);
  EnvError handle_forget_leader(const TestData& d);
  EnvError handle_send_snapshot(const TestData& d);
  EnvError handle_propose(const TestData& d);
  EnvError handle_propose_conf_change(const TestData& d);
  EnvError handle_report_unreachable(const TestData& d);

  // Runs a per-node step for each index; with more than one index each gets a
  // "> N <what>" header and its output indented.
  EnvError for_each_node(const std::vector<std::size_t>& idxs, std::string_view what,
                         EnvError (InteractionEnv::*step)(std::size_t));
  // Stabilize's four phases; each returns whether it did any work.
  bool stabilize_ready(const std::vector<std::size_t>& idxs, EnvError& err);
  bool stabilize_deliver(const std::vector<std::size_t>& idxs);
  bool stabilize_append(const std::vector<std::size_t>& idxs, EnvError& err);
  bool stabilize_apply(const std::vector<std::size_t>& idxs);

  // Runs f with the output collected apart, then appends it indented by two spaces a line.
  void with_indent(const std::function<void()>& f);

  Node& node(std::size_t idx);
  EnvError process_append(Node& n, const HardState& st, const std::vector<Entry>& ents,
                          const Snapshot& snap);
  EnvError process_apply(Node& n, const std::vector<Entry>& ents);

  InteractionOpts options_;
  std::vector<Node> nodes_;
  std::vector<Message> messages_;  // in flight
  RedirectLogger output_;
};

// Argument helpers shared by the handler files (upstream's firstAsInt / nodeIdxs and the
// datadriven Scan conversions). Malformed input throws TranscriptFatal.
namespace args {
int first_as_int(const TestData& d);
std::size_t first_as_node_idx(const TestData& d);
std::vector<std::size_t> node_idxs(const TestData& d);
std::uint64_t to_uint64(std::string_view text);
int to_int(std::string_view text);
bool to_bool(std::string_view text);
// d.ScanArgs: the first value of the argument `key`; TranscriptFatal if absent.
std::string_view scan_arg(const TestData& d, std::string_view key);
}  // namespace args

}  // namespace hasim::raft::rafttest
