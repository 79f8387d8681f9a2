// The interaction handlers that move work between nodes: process-ready, deliver-msgs,
// stabilize and send-snapshot.
#include <stdexcept>
#include <string>
#include <utility>

#include "models/raft/rafttest/interaction_env.hpp"
#include "models/raft/util.hpp"

namespace hasim::raft::rafttest {

namespace {

// Messages that need reliable delivery (to itself, or to/from a storage thread) are never
// dropped.
bool is_local_msg(const Message& msg) {
  return msg.from == msg.to || is_local_msg_target(msg.from) || is_local_msg_target(msg.to);
}

// splitMsgs: the messages for `to` (of `type`, or of any type), in their order, and the
// rest, in theirs.
std::pair<std::vector<Message>, std::vector<Message>> split_msgs(
    const std::vector<Message>& msgs, PeerId to, std::optional<MessageType> type, bool drop) {
  std::pair<std::vector<Message>, std::vector<Message>> split;
  for (const Message& msg : msgs) {
    const bool mine =
        msg.to == to && !(drop && is_local_msg(msg)) && (!type || msg.type == *type);
    (mine ? split.first : split.second).push_back(msg);
  }
  return split;
}

std::optional<MessageType> message_type_named(std::string_view text) {
  for (int i = 0; i < kMessageTypeCount; ++i) {
    const auto type = static_cast<MessageType>(i);
    if (name(type) == text) return type;
  }
  return std::nullopt;
}

[[noreturn]] void env_panic(const std::string& what) { throw std::logic_error(what); }

}  // namespace

EnvError InteractionEnv::handle_process_ready(const TestData& d) {
  return for_each_node(args::node_idxs(d), "handling Ready", &InteractionEnv::process_ready);
}

// Ready handling as an application does it: persist, apply, send (or, with async storage
// writes, hand the storage messages to the node's storage threads), advance.
EnvError InteractionEnv::process_ready(std::size_t idx) {
  Node& n = node(idx);
  const Ready rd = n.rawNode->ready();
  output_.write(describe_ready(rd, nullptr));

  const bool async = n.config.asyncStorageWrites;
  if (!async) {
    const HardState st = rd.hardState.value_or(HardState{});
    const Snapshot snap = rd.snapshot.value_or(Snapshot{});
    if (EnvError err = process_append(n, st, rd.entries, snap)) return err;
    if (EnvError err = process_apply(n, rd.committedEntries)) return err;
  }
  for (const Message& m : rd.messages) {
    if (!is_local_msg_target(m.to)) {
      messages_.push_back(m);
      continue;
    }
    if (!async) env_panic("unexpected local msg target");
    if (m.type == MessageType::MsgStorageAppend) {
      n.appendWork.push_back(m);
    } else if (m.type == MessageType::MsgStorageApply) {
      n.applyWork.push_back(m);
    } else {
      env_panic("unexpected message type " + std::string(name(m.type)));
    }
  }
  if (!async) n.rawNode->advance(rd);
  return std::nullopt;
}

EnvError InteractionEnv::handle_deliver_msgs(const TestData& d) {
  std::optional<MessageType> type;
  std::vector<Recipient> rs;
  for (const CmdArg& arg : d.cmdArgs) {
    if (arg.vals.empty()) rs.push_back({args::to_uint64(arg.key), false});
    for (const std::string& val : arg.vals) {
      if (arg.key == "drop") {
        const PeerId id = args::to_uint64(val);
        for (const Recipient& r : rs) {
          if (r.id == id) {
            throw TranscriptFatal(d.pos + ": can't both deliver and drop msgs to " +
                                  std::to_string(id));
          }
        }
        rs.push_back({id, true});
      } else if (arg.key == "type") {
        type = message_type_named(val);
        if (!type) throw TranscriptFatal(d.pos + ": unknown message type " + val);
      }
    }
  }
  if (deliver_msgs(type, rs) == 0) output_.write("no messages\n");
  return std::nullopt;
}

// For each recipient in turn, takes its messages (of `type`, if given) out of the in-flight
// list and steps them into it, or drops them. Returns how many were handled.
std::size_t InteractionEnv::deliver_msgs(std::optional<MessageType> type,
                                         const std::vector<Recipient>& rs) {
  std::size_t handled = 0;
  for (const Recipient& r : rs) {
    auto [msgs, rest] = split_msgs(messages_, r.id, type, r.drop);
    messages_ = std::move(rest);
    handled += msgs.size();
    for (Message& msg : msgs) {
      if (r.drop) output_.write("dropped: ");
      output_.write(describe_message(msg, nullptr) + "\n");
      // A dropped message may be for a node that does not exist yet.
      if (r.drop) continue;
      const std::size_t toIdx = msg.to - 1;
      if (RaftError err = node(toIdx).rawNode->step(std::move(msg)); err != RaftError::Ok) {
        output_.write(std::string(error_text(err)) + "\n");
      }
    }
  }
  return handled;
}

EnvError InteractionEnv::handle_stabilize(const TestData& d) {
  const std::vector<std::size_t> idxs = args::node_idxs(d);  // skips key=value arguments
  const int oldLevel = output_.level();
  for (const CmdArg& arg : d.cmdArgs) {
    if (arg.key != "log-level") continue;
    for (const std::string& val : arg.vals) {
      if (EnvError err = log_level(val)) {
        output_.set_level(oldLevel);
        return err;
      }
    }
  }
  EnvError err = stabilize(idxs);
  output_.set_level(oldLevel);
  return err;
}

// Runs Ready handling, message delivery and the storage threads on the given nodes (all if
// none given) until none of them has anything left to do.
EnvError InteractionEnv::stabilize(const std::vector<std::size_t>& idxs) {
  std::vector<std::size_t> all = idxs;
  if (all.empty()) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) all.push_back(i);
  }
  for (std::size_t idx : all) node(idx);  // a missing node is a broken transcript
  for (;;) {
    EnvError err;
    bool busy = stabilize_ready(all, err);
    if (err) return err;
    busy = stabilize_deliver(all) || busy;
    busy = stabilize_append(all, err) || busy;
    if (err) return err;
    busy = stabilize_apply(all) || busy;
    if (!busy) return std::nullopt;
  }
}

bool InteractionEnv::stabilize_ready(const std::vector<std::size_t>& idxs, EnvError& err) {
  bool busy = false;
  for (const std::size_t idx : idxs) {
    if (!nodes_[idx].rawNode->has_ready()) continue;
    output_.write("> " + std::to_string(idx + 1) + " handling Ready\n");
    with_indent([&] { err = process_ready(idx); });
    if (err) return true;
    busy = true;
  }
  return busy;
}

bool InteractionEnv::stabilize_deliver(const std::vector<std::size_t>& idxs) {
  bool busy = false;
  for (const std::size_t idx : idxs) {
    const PeerId id = nodes_[idx].config.id;
    // Only to decide on the header; deliver_msgs splits again.
    if (split_msgs(messages_, id, std::nullopt, false).first.empty()) continue;
    output_.write("> " + std::to_string(id) + " receiving messages\n");
    with_indent([&] { deliver_msgs(std::nullopt, {Recipient{id, false}}); });
    busy = true;
  }
  return busy;
}

bool InteractionEnv::stabilize_append(const std::vector<std::size_t>& idxs, EnvError& err) {
  bool busy = false;
  for (const std::size_t idx : idxs) {
    if (nodes_[idx].appendWork.empty()) continue;
    output_.write("> " + std::to_string(idx + 1) + " processing append thread\n");
    while (!nodes_[idx].appendWork.empty()) {
      with_indent([&] { err = process_append_thread(idx); });
      if (err) return true;
    }
    busy = true;
  }
  return busy;
}

// Upstream ignores the apply thread's errors here.
bool InteractionEnv::stabilize_apply(const std::vector<std::size_t>& idxs) {
  bool busy = false;
  for (const std::size_t idx : idxs) {
    if (nodes_[idx].applyWork.empty()) continue;
    output_.write("> " + std::to_string(idx + 1) + " processing apply thread\n");
    while (!nodes_[idx].applyWork.empty()) {
      with_indent([&] { static_cast<void>(process_apply_thread(idx)); });
    }
    busy = true;
  }
  return busy;
}

// Upstream's Handle drops send-snapshot's error; so does this.
EnvError InteractionEnv::handle_send_snapshot(const TestData& d) {
  const std::vector<std::size_t> idxs = args::node_idxs(d);
  if (idxs.size() != 2) throw TranscriptFatal(d.pos + ": send-snapshot needs two node ids");
  static_cast<void>(send_snapshot(idxs[0], idxs[1]));
  return std::nullopt;
}

// Queues a MsgSnap carrying the sender's latest snapshot at the sender's term; it is
// delivered like any other message.
EnvError InteractionEnv::send_snapshot(std::size_t fromIdx, std::size_t toIdx) {
  Node& from = node(fromIdx);
  Result<Snapshot> snap = from.storage->snapshot();
  if (snap.err != StorageError::Ok) return std::string(error_text(snap.err));
  Message msg;
  msg.type = MessageType::MsgSnap;
  msg.term = from.rawNode->basic_status().hardState.term;
  msg.from = fromIdx + 1;
  msg.to = toIdx + 1;
  msg.snapshot = std::move(snap.value);
  messages_.push_back(msg);
  output_.write(describe_message(msg, nullptr));
  return std::nullopt;
}

}  // namespace hasim::raft::rafttest
