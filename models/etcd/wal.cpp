#include "models/etcd/wal.hpp"

#include <algorithm>

namespace hasim::etcd {
namespace {

// Record layout: a type byte, then fields as LEB128 varints and length-prefixed strings
// (the shape of protobuf's wire format, which etcd's walpb records use).
constexpr char kEntry = 'E';
constexpr char kState = 'H';
constexpr char kMarker = 'M';
constexpr char kSnap = 'S';
constexpr char kMetadata = 'D';

void put(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void put(std::string& out, std::string_view bytes) {
  put(out, bytes.size());
  out.append(bytes);
}

void put(std::string& out, const std::vector<raft::PeerId>& ids) {
  put(out, ids.size());
  for (raft::PeerId id : ids) put(out, id);
}

// An entry's and a HardState's record bytes (encode(WalRecord) below), written straight into
// `out`: WalEncoder frames the entries and states of every Ready without making a WalRecord.
void put_entry(std::string& out, const raft::Entry& entry) {
  out.push_back(kEntry);
  put(out, entry.term);
  put(out, entry.index);
  put(out, static_cast<std::uint64_t>(entry.type));
  put(out, entry.data);
}

void put_state(std::string& out, const raft::HardState& state) {
  out.push_back(kState);
  put(out, state.term);
  put(out, state.vote);
  put(out, state.commit);
}

// A record's fixed fields (a type byte, up to four varints) or a frame's length, built on
// the stack: WalEncoder appends them whole instead of a byte at a time.
struct Head {
  char bytes[1 + 4 * 10] = {};  // a varint takes at most 10 bytes
  std::size_t size = 0;
  void byte(char c) {
    HASIM_ASSERT(size < sizeof bytes);
    bytes[size++] = c;
  }
  void varint(std::uint64_t value) {
    HASIM_ASSERT(size + 10 <= sizeof bytes);
    while (value >= 0x80) {
      bytes[size++] = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    bytes[size++] = static_cast<char>(value);
  }
  std::string_view view() const { return {bytes, size}; }
};

// Reads fields in order; any malformed or short field makes the whole read fail.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && pos_ == bytes_.size(); }

  std::uint64_t u64() {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) break;
      const auto byte = static_cast<unsigned char>(bytes_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    ok_ = false;
    return 0;
  }
  std::string str() {
    const std::uint64_t size = u64();
    if (!ok_ || size > bytes_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string out(bytes_.substr(pos_, size));
    pos_ += size;
    return out;
  }
  std::vector<raft::PeerId> ids() {
    const std::uint64_t count = u64();
    std::vector<raft::PeerId> out;
    if (!ok_ || count > bytes_.size() - pos_) {  // each id takes at least a byte
      ok_ = false;
      return out;
    }
    for (std::uint64_t i = 0; i < count && ok_; ++i) out.push_back(u64());
    return out;
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace

std::string wal_segment_name(std::uint64_t segment) { return "wal-" + std::to_string(segment); }

WalRecord entry_record(const raft::Entry& entry) {
  WalRecord r;
  r.type = WalRecord::Type::entry;
  r.entry = entry;
  return r;
}

WalRecord state_record(const raft::HardState& state) {
  WalRecord r;
  r.type = WalRecord::Type::state;
  r.state = state;
  return r;
}

WalRecord marker_record(const WalSnapshotMarker& marker) {
  WalRecord r;
  r.type = WalRecord::Type::snapshot;
  r.marker = marker;
  return r;
}

WalRecord metadata_record(std::uint64_t cluster) {
  HASIM_ASSERT(cluster != 0);
  WalRecord r;
  r.type = WalRecord::Type::metadata;
  r.cluster = cluster;
  return r;
}

std::string encode(const WalRecord& record) {
  std::string out;
  switch (record.type) {
    case WalRecord::Type::entry:
      put_entry(out, record.entry);
      break;
    case WalRecord::Type::state:
      put_state(out, record.state);
      break;
    case WalRecord::Type::snapshot:
      out.push_back(kMarker);
      put(out, record.marker.index);
      put(out, record.marker.term);
      put(out, record.marker.install ? 1 : 0);
      put(out, record.marker.start);
      break;
    case WalRecord::Type::metadata:
      out.push_back(kMetadata);
      put(out, record.cluster);
      break;
  }
  return out;
}

std::optional<WalRecord> decode_wal_record(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  Reader in(bytes.substr(1));
  WalRecord r;
  switch (bytes.front()) {
    case kEntry: {
      r.type = WalRecord::Type::entry;
      r.entry.term = in.u64();
      r.entry.index = in.u64();
      const std::uint64_t type = in.u64();
      if (type > static_cast<std::uint64_t>(raft::EntryType::EntryConfChangeV2))
        return std::nullopt;
      r.entry.type = static_cast<raft::EntryType>(type);
      r.entry.data = in.str();
      break;
    }
    case kState:
      r.type = WalRecord::Type::state;
      r.state.term = in.u64();
      r.state.vote = in.u64();
      r.state.commit = in.u64();
      break;
    case kMarker: {
      r.type = WalRecord::Type::snapshot;
      r.marker.index = in.u64();
      r.marker.term = in.u64();
      const std::uint64_t install = in.u64();
      if (install > 1) return std::nullopt;
      r.marker.install = install == 1;
      r.marker.start = in.u64();
      break;
    }
    case kMetadata:
      r.type = WalRecord::Type::metadata;
      r.cluster = in.u64();
      break;
    default:
      return std::nullopt;
  }
  if (!in.done()) return std::nullopt;
  return r;
}

void WalEncoder::encode(const WalRecord& record) {
  const std::string bytes = etcd::encode(record);
  HASIM_ASSERT(!bytes.empty());
  put(buffer_, std::string_view(bytes));
}

// The same frames as encode(entry_record(entry)) and encode(state_record(state)) (the
// bytes of put_entry and put_state behind their length), appended straight to the buffer:
// no record, no intermediate string.
void WalEncoder::encode(const raft::Entry& entry) {
  Head head;
  head.byte(kEntry);
  head.varint(entry.term);
  head.varint(entry.index);
  head.varint(static_cast<std::uint64_t>(entry.type));
  head.varint(entry.data.size());
  Head frame;
  frame.varint(head.size + entry.data.size());
  buffer_.append(frame.view());
  buffer_.append(head.view());
  buffer_.append(entry.data);
}

void WalEncoder::encode(const raft::HardState& state) {
  Head head;
  head.byte(kState);
  head.varint(state.term);
  head.varint(state.vote);
  head.varint(state.commit);
  Head frame;
  frame.varint(head.size);
  buffer_.append(frame.view());
  buffer_.append(head.view());
}

std::string WalEncoder::flush() {
  // Copied out at its exact size, so that buffer_ keeps its capacity for the next Save's
  // frames (handing buffer_ itself out made every Save grow a new one a few times).
  std::string out(buffer_);
  buffer_.clear();
  HASIM_ASSERT(buffer_.empty());
  return out;
}

std::optional<std::vector<WalRecord>> decode_wal_write(std::string_view bytes) {
  Reader in(bytes);
  std::vector<WalRecord> out;
  // Each frame takes at least two bytes (its length and a type byte).
  for (std::size_t i = 0; i < bytes.size() && !in.done(); ++i) {
    const std::string frame = in.str();
    if (!in.ok()) return std::nullopt;
    auto record = decode_wal_record(frame);
    if (!record) return std::nullopt;
    out.push_back(std::move(*record));
  }
  if (!in.done() || out.empty()) return std::nullopt;
  return out;
}

std::string encode(const SnapRecord& record) {
  const raft::SnapshotMetadata& m = record.snapshot.metadata;
  std::string out(1, kSnap);
  put(out, m.index);
  put(out, m.term);
  put(out, m.confState.voters);
  put(out, m.confState.learners);
  put(out, m.confState.votersOutgoing);
  put(out, m.confState.learnersNext);
  put(out, m.confState.autoLeave ? 1 : 0);
  put(out, record.firstSegment);
  put(out, record.snapshot.data);
  return out;
}

raft::Index peek_snap_index(std::string_view bytes) {
  if (bytes.empty() || bytes.front() != kSnap) return 0;
  Reader in(bytes.substr(1));
  return in.u64();
}

std::optional<SnapRecord> decode_snap_record(std::string_view bytes) {
  if (bytes.empty() || bytes.front() != kSnap) return std::nullopt;
  Reader in(bytes.substr(1));
  SnapRecord r;
  raft::SnapshotMetadata& m = r.snapshot.metadata;
  m.index = in.u64();
  m.term = in.u64();
  m.confState.voters = in.ids();
  m.confState.learners = in.ids();
  m.confState.votersOutgoing = in.ids();
  m.confState.learnersNext = in.ids();
  const std::uint64_t autoLeave = in.u64();
  if (autoLeave > 1) return std::nullopt;
  m.confState.autoLeave = autoLeave == 1;
  r.firstSegment = in.u64();
  r.snapshot.data = in.str();
  if (!in.done()) return std::nullopt;
  return r;
}

namespace {

// One record of the replay. Entries at or below the snapshot are in it already; a later
// entry replaces the suffix from its index on (wal.go ReadAll). An entry that would leave a
// gap cannot follow what survived (only an unsafe, unsynced run loses records in between):
// it and what follows it in this file are not the log.
void replay_record(const WalRecord& r, raft::Index snapIndex, Replayed& out, bool& found,
                   const SnapRecord& snap) {
  switch (r.type) {
    case WalRecord::Type::entry: {
      const raft::Entry& e = r.entry;
      if (e.index <= snapIndex || e.index - snapIndex - 1 > out.entries.size()) return;
      out.entries.resize(e.index - snapIndex - 1);
      out.entries.push_back(e);
      return;
    }
    case WalRecord::Type::state:
      out.state = r.state;
      return;
    case WalRecord::Type::snapshot:
      if (r.marker.index == snap.snapshot.metadata.index &&
          r.marker.term == snap.snapshot.metadata.term) {
        found = true;
      }
      // raft discarded its whole log when it installed a snapshot (raft.go restore).
      if (r.marker.install) out.entries.clear();
      return;
    case WalRecord::Type::metadata:
      out.cluster = r.cluster;  // wal.go ReadAll: every segment's metadata must agree
      return;
  }
}

}  // namespace

std::optional<Replayed> replay_records(
    const SnapRecord& snap, bool bootstrap,
    const std::vector<const std::vector<std::string>*>& segments) {
  Replayed out;
  out.snapshot = snap.snapshot;
  out.firstSegment = snap.firstSegment;
  out.lastSegment = snap.firstSegment + (segments.empty() ? 0 : segments.size() - 1);
  const raft::Index snapIndex = snap.snapshot.metadata.index;
  bool found = bootstrap;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    raft::Index start = 0;
    for (const std::string& bytes : *segments[s]) {
      const auto records = decode_wal_write(bytes);
      HASIM_ASSERT(records.has_value());  // the member wrote it; the disk never corrupts one
      for (const WalRecord& record : *records) {
        if (start == 0 && record.type == WalRecord::Type::snapshot) start = record.marker.start;
        replay_record(record, snapIndex, out, found, snap);
      }
    }
    out.segmentStarts.push_back(start);
  }
  if (!found) return std::nullopt;
  // etcd never writes a HardState whose commit its WAL does not hold; a replay that found
  // one anyway (records lost in between, only without fsync) commits what it holds.
  const raft::Index last = snapIndex + out.entries.size();
  out.state.commit = std::min(std::max(out.state.commit, snapIndex), last);
  return out;
}

void load(const Replayed& replayed, raft::MemoryStorage& storage) {
  // A standby member's "bootstrap" snapshot is empty: MemoryStorage starts there already.
  if (!raft::is_empty_snap(replayed.snapshot)) {
    HASIM_ASSERT(storage.apply_snapshot(replayed.snapshot) == raft::StorageError::Ok);
  }
  if (!raft::is_empty_hard_state(replayed.state)) {
    HASIM_ASSERT(storage.set_hard_state(replayed.state) == raft::StorageError::Ok);
  }
  if (!replayed.entries.empty()) {
    HASIM_ASSERT(storage.append(replayed.entries) == raft::StorageError::Ok);
  }
}

}  // namespace hasim::etcd
