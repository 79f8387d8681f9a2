// The in-flight MsgApp window; upstream: tracker/inflights.go.
#include "models/raft/inflights.hpp"

#include "sim/assert.hpp"

namespace hasim::raft {

Inflights::Inflights(int size, std::uint64_t maxBytes) : size_(size), maxBytes_(maxBytes) {
  HASIM_ASSERT(size >= 0);
}

void Inflights::add(Index index, std::uint64_t bytes) {
  // Upstream panics here too: adding to a full window is a caller bug.
  HASIM_ASSERT(!full());
  HASIM_ASSERT(count_ < size_);
  const int next = wrap(start_ + count_);
  if (static_cast<std::size_t>(next) >= buffer_.size()) grow();
  HASIM_ASSERT(static_cast<std::size_t>(next) < buffer_.size());
  buffer_[static_cast<std::size_t>(next)] = Inflight{index, bytes};
  ++count_;
  bytes_ += bytes;
}

// Doubles the buffer (from 1), never past `size` slots. Occupied slots keep their positions:
// a wrapped window only exists once the buffer has reached its full size.
void Inflights::grow() {
  std::size_t grown = buffer_.size() * 2;
  if (grown == 0) {
    grown = 1;
  } else if (grown > static_cast<std::size_t>(size_)) {
    grown = static_cast<std::size_t>(size_);
  }
  HASIM_ASSERT(grown > buffer_.size());
  buffer_.resize(grown);
}

void Inflights::free_le(Index to) {
  if (count_ == 0 || to < buffer_[static_cast<std::size_t>(start_)].index) return;
  int slot = start_;
  int freed = 0;
  std::uint64_t freedBytes = 0;
  // Bounded by count_: the window is ordered by index, so stop at the first larger one.
  for (; freed < count_; ++freed) {
    const Inflight& in = buffer_[static_cast<std::size_t>(slot)];
    if (to < in.index) break;
    freedBytes += in.bytes;
    slot = wrap(slot + 1);
  }
  HASIM_ASSERT(freedBytes <= bytes_);
  count_ -= freed;
  bytes_ -= freedBytes;
  start_ = slot;
  // An empty window restarts at slot 0 so that the buffer does not grow needlessly.
  if (count_ == 0) start_ = 0;
}

bool Inflights::full() const {
  return count_ == size_ || (maxBytes_ != 0 && bytes_ >= maxBytes_);
}

void Inflights::reset() {
  start_ = 0;
  count_ = 0;
  bytes_ = 0;
}

}  // namespace hasim::raft
