#include "models/raft/read_only.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::raft {

namespace {
constexpr std::size_t kCtxBytes = 8;  // binary.LittleEndian.PutUint64

std::uint64_t decode_position(const std::string& ctx) {
  HASIM_ASSERT(ctx.size() >= kCtxBytes);
  std::uint64_t value = 0;
  for (std::size_t i = kCtxBytes; i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(ctx[i]);
  }
  return value;
}
}  // namespace

void ReadOnly::add_request(Index commitIndex, Message req) {
  unconfirmedReads.push_back(ReadIndexRequest{std::move(req), commitIndex});
}

void ReadOnly::recv_ack(PeerId from, const std::string& ctx) {
  // An empty context is a heartbeat sent while no read waited: it confirms nothing.
  if (ctx.empty()) return;
  std::uint64_t& acked = acks[from];
  acked = std::max(acked, decode_position(ctx));
}

std::optional<Index> ReadOnly::acked_index(PeerId voterID) const {
  auto it = acks.find(voterID);
  if (it == acks.end()) return std::nullopt;
  return it->second;
}

std::vector<ReadIndexRequest> ReadOnly::maybe_advance(const JointConfig& c) {
  // The positions acknowledged by a quorum: the "committed index" of the ack counters.
  const std::uint64_t newConfirmedReads = c.committed_index(*this);
  if (newConfirmedReads <= confirmedReads) return {};
  const std::uint64_t count = newConfirmedReads - confirmedReads;
  HASIM_ASSERT(count <= unconfirmedReads.size());
  std::vector<ReadIndexRequest> confirmed(
      std::make_move_iterator(unconfirmedReads.begin()),
      std::make_move_iterator(unconfirmedReads.begin() + static_cast<std::ptrdiff_t>(count)));
  unconfirmedReads.erase(unconfirmedReads.begin(),
                         unconfirmedReads.begin() + static_cast<std::ptrdiff_t>(count));
  confirmedReads = newConfirmedReads;
  return confirmed;
}

std::string ReadOnly::heartbeat_ctx() const {
  if (unconfirmedReads.empty()) return {};
  std::uint64_t position = confirmedReads + unconfirmedReads.size();
  std::string ctx(kCtxBytes, '\0');
  for (std::size_t i = 0; i < kCtxBytes; ++i) {
    ctx[i] = static_cast<char>(position & 0xff);
    position >>= 8;
  }
  return ctx;
}

}  // namespace hasim::raft
