// The interaction handlers that touch a node's storage and state machine: the append and
// apply "threads" of async storage writes, compact and raft-log; and the conf change
// parsing the env needs (the command syntax "v2 l3 r1", and a conf change entry's bytes).
#include <charconv>
#include <limits>
#include <string>
#include <utility>

#include "models/raft/rafttest/interaction_env.hpp"
#include "models/raft/util.hpp"

namespace hasim::raft::rafttest {

EnvError InteractionEnv::handle_process_append_thread(const TestData& d) {
  return for_each_node(args::node_idxs(d), "processing append thread",
                       &InteractionEnv::process_append_thread);
}

// Runs the oldest MsgStorageAppend of the node's append thread: persist its hard state and
// entries (or snapshot), then release the responses it carries into the in-flight list.
EnvError InteractionEnv::process_append_thread(std::size_t idx) {
  Node& n = node(idx);
  if (n.appendWork.empty()) {
    output_.write("no append work to perform");
    return std::nullopt;
  }
  Message m = std::move(n.appendWork.front());
  n.appendWork.erase(n.appendWork.begin());
  std::vector<Message> resps = m.responses.take();
  output_.write("Processing:\n");
  output_.write(describe_message(m, nullptr) + "\n");
  const HardState st{m.term, m.vote, m.commit};
  const Snapshot snap = m.snapshot.value_or(Snapshot{});
  if (EnvError err = process_append(n, st, m.entries, snap)) return err;

  output_.write("Responses:\n");
  for (const Message& r : resps) output_.write(describe_message(r, nullptr) + "\n");
  messages_.insert(messages_.end(), resps.begin(), resps.end());
  return std::nullopt;
}

EnvError InteractionEnv::handle_process_apply_thread(const TestData& d) {
  return for_each_node(args::node_idxs(d), "processing apply thread",
                       &InteractionEnv::process_apply_thread);
}

// Runs the oldest MsgStorageApply of the node's apply thread: apply its entries, then
// release its responses.
EnvError InteractionEnv::process_apply_thread(std::size_t idx) {
  Node& n = node(idx);
  if (n.applyWork.empty()) {
    output_.write("no apply work to perform");
    return std::nullopt;
  }
  Message m = std::move(n.applyWork.front());
  n.applyWork.erase(n.applyWork.begin());
  std::vector<Message> resps = m.responses.take();
  output_.write("Processing:\n");
  output_.write(describe_message(m, nullptr) + "\n");
  if (EnvError err = process_apply(n, m.entries)) return err;

  output_.write("Responses:\n");
  for (const Message& r : resps) output_.write(describe_message(r, nullptr) + "\n");
  messages_.insert(messages_.end(), resps.begin(), resps.end());
  return std::nullopt;
}

// Persists a hard state (unless empty), then either a snapshot or entries, never both.
EnvError InteractionEnv::process_append(Node& n, const HardState& st,
                                        const std::vector<Entry>& ents, const Snapshot& snap) {
  if (!is_empty_hard_state(st)) {
    if (StorageError err = n.storage->set_hard_state(st); err != StorageError::Ok) {
      return std::string(error_text(err));
    }
  }
  if (!is_empty_snap(snap)) {
    if (!ents.empty()) return "can't apply snapshot and entries at the same time";
    if (StorageError err = n.storage->apply_snapshot(snap); err != StorageError::Ok) {
      return std::string(error_text(err));
    }
    return std::nullopt;
  }
  if (StorageError err = n.storage->append(ents); err != StorageError::Ok) {
    return std::string(error_text(err));
  }
  return std::nullopt;
}

// The env's state machine appends each entry's payload (a conf change's context) to the
// previous state and records the result, with the configuration after the entry, as a new
// snapshot in the node's History. Conf changes are applied to the RawNode on the way.
EnvError InteractionEnv::process_apply(Node& n, const std::vector<Entry>& ents) {
  for (const Entry& ent : ents) {
    std::string update;
    std::optional<ConfState> cs;
    if (ent.type == EntryType::EntryConfChange) {
      std::string err;
      std::optional<ConfChange> cc = unmarshal_conf_change(ent.data, &err);
      if (!cc) return err;
      update = cc->context;
      cs = n.rawNode->apply_conf_change(*cc);
    } else if (ent.type == EntryType::EntryConfChangeV2) {
      std::string err;
      std::optional<ConfChangeV2> cc = unmarshal_conf_change_v2(ent.data, &err);
      if (!cc) return err;
      cs = n.rawNode->apply_conf_change(*cc);
      update = cc->context;
    } else {
      update = ent.data;
    }
    const Snapshot& last = n.history.back();
    Snapshot snap;
    snap.data = last.data + update;
    snap.metadata.index = ent.index;
    snap.metadata.term = ent.term;
    snap.metadata.confState = cs ? std::move(*cs) : last.metadata.confState;
    n.history.push_back(std::move(snap));
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_compact(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  if (d.cmdArgs.size() < 2) throw TranscriptFatal(d.pos + ": compact needs a new first index");
  const std::optional<std::uint64_t> newFirstIndex = scan_uint64(d.cmdArgs[1].key);
  if (!newFirstIndex) {
    throw TranscriptFatal(d.pos + ": compact: \"" + d.cmdArgs[1].key + "\" is not an index");
  }
  return compact(idx, *newFirstIndex);
}

// Truncates the node's log so that newFirstIndex becomes its first index, then prints it.
EnvError InteractionEnv::compact(std::size_t idx, Index newFirstIndex) {
  if (StorageError err = node(idx).storage->compact(newFirstIndex); err != StorageError::Ok) {
    return std::string(error_text(err));
  }
  return raft_log(idx);
}

EnvError InteractionEnv::handle_raft_log(const TestData& d) {
  return raft_log(args::first_as_node_idx(d));
}

// The node's stored log, one entry a line.
EnvError InteractionEnv::raft_log(std::size_t idx) {
  SnapOverrideStorage& s = *node(idx).storage;
  const Result<Index> fi = s.first_index();
  if (fi.err != StorageError::Ok) return std::string(error_text(fi.err));
  const Result<Index> li = s.last_index();
  if (li.err != StorageError::Ok) return std::string(error_text(li.err));
  if (li.value < fi.value) {
    // What MemoryStorage reports with nothing after its snapshot.
    output_.write("log is empty: first index=" + std::to_string(fi.value) +
                  ", last index=" + std::to_string(li.value));
    return std::nullopt;
  }
  const Result<std::vector<Entry>> ents =
      s.entries(fi.value, li.value + 1, std::numeric_limits<std::uint64_t>::max());
  if (ents.err != StorageError::Ok) return std::string(error_text(ents.err));
  output_.write(describe_entries(ents.value, nullptr));
  return std::nullopt;
}

}  // namespace hasim::raft::rafttest
