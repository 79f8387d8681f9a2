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

namespace {

// strconv.ParseUint(text, 10, 64): the value, or Go's error text.
std::optional<std::uint64_t> parse_uint(std::string_view text, std::string& err) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && ec == std::errc::result_out_of_range &&
      text.find_first_not_of("0123456789") == std::string_view::npos) {
    err = "strconv.ParseUint: parsing \"" + std::string(text) + "\": value out of range";
    return std::nullopt;
  }
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    err = "strconv.ParseUint: parsing \"" + std::string(text) + "\": invalid syntax";
    return std::nullopt;
  }
  return value;
}

// Protobuf wire reading, enough for ConfChange and ConfChangeV2.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  bool varint(std::uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      const auto byte = static_cast<unsigned char>(data_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  bool bytes(std::string_view& out) {
    std::uint64_t len = 0;
    if (!varint(len) || len > data_.size() - pos_) return false;
    out = data_.substr(pos_, static_cast<std::size_t>(len));
    pos_ += static_cast<std::size_t>(len);
    return true;
  }

  // Reads the next key: field number and wire type.
  bool key(std::uint64_t& field, std::uint64_t& wireType) {
    std::uint64_t k = 0;
    if (!varint(k)) return false;
    field = k >> 3;
    wireType = k & 7;
    return field != 0;
  }

  // Skips a field of a wire type this reader was not asked about.
  bool skip(std::uint64_t wireType) {
    std::uint64_t ignored = 0;
    std::string_view ignoredBytes;
    switch (wireType) {
      case 0: return varint(ignored);
      case 1: return advance(8);
      case 2: return bytes(ignoredBytes);
      case 5: return advance(4);
      default: return false;
    }
  }

 private:
  bool advance(std::size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
};

std::optional<ConfChangeSingle> unmarshal_conf_change_single(std::string_view data) {
  WireReader r(data);
  ConfChangeSingle cc;
  std::uint64_t field = 0, wire = 0, v = 0;
  while (!r.done()) {
    if (!r.key(field, wire)) return std::nullopt;
    if (wire == 0 && (field == 1 || field == 2)) {
      if (!r.varint(v)) return std::nullopt;
      if (field == 1) cc.type = static_cast<ConfChangeType>(v);
      if (field == 2) cc.nodeId = v;
    } else if (!r.skip(wire)) {
      return std::nullopt;
    }
  }
  return cc;
}

}  // namespace

std::optional<ConfChange> unmarshal_conf_change(std::string_view data) {
  WireReader r(data);
  ConfChange cc;
  std::uint64_t field = 0, wire = 0, v = 0;
  while (!r.done()) {
    if (!r.key(field, wire)) return std::nullopt;
    std::string_view bytes;
    if (wire == 0 && field >= 1 && field <= 3) {
      if (!r.varint(v)) return std::nullopt;
      if (field == 1) cc.id = v;
      if (field == 2) cc.type = static_cast<ConfChangeType>(v);
      if (field == 3) cc.nodeId = v;
    } else if (wire == 2 && field == 4) {
      if (!r.bytes(bytes)) return std::nullopt;
      cc.context = std::string(bytes);
    } else if (!r.skip(wire)) {
      return std::nullopt;
    }
  }
  return cc;
}

std::optional<ConfChangeV2> unmarshal_conf_change_v2(std::string_view data) {
  WireReader r(data);
  ConfChangeV2 cc;
  std::uint64_t field = 0, wire = 0, v = 0;
  while (!r.done()) {
    if (!r.key(field, wire)) return std::nullopt;
    std::string_view bytes;
    if (wire == 0 && field == 1) {
      if (!r.varint(v)) return std::nullopt;
      cc.transition = static_cast<ConfChangeTransition>(v);
    } else if (wire == 2 && (field == 2 || field == 3)) {
      if (!r.bytes(bytes)) return std::nullopt;
      if (field == 3) {
        cc.context = std::string(bytes);
        continue;
      }
      std::optional<ConfChangeSingle> single = unmarshal_conf_change_single(bytes);
      if (!single) return std::nullopt;
      cc.changes.push_back(*single);
    } else if (!r.skip(wire)) {
      return std::nullopt;
    }
  }
  return cc;
}

// Space-separated tokens: v<id> adds a voter, l<id> a learner, r<id> removes, u<id> updates.
ParsedConfChanges conf_changes_from_string(std::string_view text) {
  ParsedConfChanges parsed;
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return parsed;
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view tok = text.substr(start, end - start);
    start = end + 1;
    if (tok.size() < 2) {
      parsed.err = "unknown token " + std::string(tok);
      return parsed;
    }
    ConfChangeSingle cc;
    switch (tok[0]) {
      case 'v': cc.type = ConfChangeType::ConfChangeAddNode; break;
      case 'l': cc.type = ConfChangeType::ConfChangeAddLearnerNode; break;
      case 'r': cc.type = ConfChangeType::ConfChangeRemoveNode; break;
      case 'u': cc.type = ConfChangeType::ConfChangeUpdateNode; break;
      default: parsed.err = "unknown input: " + std::string(tok); return parsed;
    }
    std::string err;
    const std::optional<std::uint64_t> id = parse_uint(tok.substr(1), err);
    if (!id) {
      parsed.err = err;
      return parsed;
    }
    cc.nodeId = *id;
    parsed.changes.push_back(cc);
  }
  return parsed;
}

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
  std::vector<Message> resps = std::move(m.responses);
  m.responses.clear();
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
  std::vector<Message> resps = std::move(m.responses);
  m.responses.clear();
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
    if (StorageError err = n.storage->set_hard_state(st); err != StorageError::None) {
      return std::string(error_text(err));
    }
  }
  if (!is_empty_snap(snap)) {
    if (!ents.empty()) return "can't apply snapshot and entries at the same time";
    if (StorageError err = n.storage->apply_snapshot(snap); err != StorageError::None) {
      return std::string(error_text(err));
    }
    return std::nullopt;
  }
  if (StorageError err = n.storage->append(ents); err != StorageError::None) {
    return std::string(error_text(err));
  }
  return std::nullopt;
}

// The env's state machine appends each entry's payload (a conf change's context) to the
// previous state and records the result, with the configuration after the entry, as a new
// snapshot in the node's History. Conf changes are applied to the RawNode on the way.
EnvError InteractionEnv::process_apply(Node& n, const std::vector<Entry>& ents) {
  constexpr std::string_view kBadWire = "proto: cannot parse invalid wire-format data";
  for (const Entry& ent : ents) {
    std::string update;
    std::optional<ConfState> cs;
    if (ent.type == EntryType::EntryConfChange) {
      std::optional<ConfChange> cc = unmarshal_conf_change(ent.data);
      if (!cc) return std::string(kBadWire);
      update = cc->context;
      cs = n.rawNode->apply_conf_change(*cc);
    } else if (ent.type == EntryType::EntryConfChangeV2) {
      std::optional<ConfChangeV2> cc = unmarshal_conf_change_v2(ent.data);
      if (!cc) return std::string(kBadWire);
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
  std::string err;
  const std::optional<std::uint64_t> newFirstIndex = parse_uint(d.cmdArgs[1].key, err);
  if (!newFirstIndex) return err;
  return compact(idx, *newFirstIndex);
}

// Truncates the node's log so that newFirstIndex becomes its first index, then prints it.
EnvError InteractionEnv::compact(std::size_t idx, Index newFirstIndex) {
  if (StorageError err = node(idx).storage->compact(newFirstIndex); err != StorageError::None) {
    return std::string(error_text(err));
  }
  return raft_log(idx);
}

EnvError InteractionEnv::handle_raft_log(const TestData& d) {
  return raft_log(args::first_as_node_idx(d));
}

// The node's stored log, one entry a line.
EnvError InteractionEnv::raft_log(std::size_t idx) {
  const SnapOverrideStorage& s = *node(idx).storage;
  const Result<Index> fi = s.first_index();
  if (fi.err != StorageError::None) return std::string(error_text(fi.err));
  const Result<Index> li = s.last_index();
  if (li.err != StorageError::None) return std::string(error_text(li.err));
  if (li.value < fi.value) {
    // What MemoryStorage reports with nothing after its snapshot.
    output_.write("log is empty: first index=" + std::to_string(fi.value) +
                  ", last index=" + std::to_string(li.value));
    return std::nullopt;
  }
  const Result<std::vector<Entry>> ents =
      s.entries(fi.value, li.value + 1, std::numeric_limits<std::uint64_t>::max());
  if (ents.err != StorageError::None) return std::string(error_text(ents.err));
  output_.write(describe_entries(ents.value, nullptr));
  return std::nullopt;
}

}  // namespace hasim::raft::rafttest
