#pragma once
// tracker.Inflights (etcd-io/raft tracker/inflights.go): the MsgApp messages a leader has
// sent to one follower and not yet seen acknowledged, each remembered by the last index it
// carried and its byte size. The leader stops sending (full()) at a count limit or, if one is
// set, a byte limit, and frees entries (free_le) as acknowledgements arrive.
//
// A ring buffer that grows on demand up to `size` slots, as upstream's does: a process with
// many followers need not allocate every window in full.
#include <cstdint>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

class Inflights {
 public:
  // The zero Inflights (upstream's zero value): no room at all, so always full().
  Inflights() = default;
  // NewInflights: at most `size` messages and, unless maxBytes is 0, about maxBytes bytes.
  // The byte limit is soft: one message may take the total from below maxBytes to above.
  Inflights(int size, std::uint64_t maxBytes);

  // An identical, independent copy (Inflights is a value here, so this is a copy).
  Inflights clone() const { return *this; }

  // Records a message whose last entry is `index`. The caller checked !full(); indexes of
  // consecutive calls must not decrease.
  void add(Index index, std::uint64_t bytes);
  // Frees every message whose last index is <= to.
  void free_le(Index to);
  // True if no further message may be sent now.
  bool full() const;
  // The number of messages in flight.
  int count() const { return count_; }
  // The bytes in flight.
  std::uint64_t bytes() const { return bytes_; }
  // Frees everything (upstream's unexported reset, used by Progress::reset_state).
  void reset();

  // The limits, and the slots allocated so far (for tests of the growth policy).
  int size() const { return size_; }
  std::uint64_t max_bytes() const { return maxBytes_; }
  std::size_t capacity() const { return buffer_.size(); }

 private:
  struct Inflight {
    Index index = 0;          // the last entry's index in the message
    std::uint64_t bytes = 0;  // the message's entries' total size
  };

  void grow();
  int wrap(int slot) const { return slot >= size_ ? slot - size_ : slot; }

  int start_ = 0;  // the slot of the oldest message
  int count_ = 0;
  std::uint64_t bytes_ = 0;
  int size_ = 0;
  std::uint64_t maxBytes_ = 0;
  std::vector<Inflight> buffer_;
};

}  // namespace hasim::raft
