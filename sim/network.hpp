#pragma once
// Message transport between processes on nodes. Per directed node pair ("link"): a latency
// distribution, a loss and a duplication probability, and its own random stream
// ("net/<from>-><to>") so traffic on one link never shifts the draws of another.
//
// Streams (TCP) are FIFO per directed process pair: a message is delivered no earlier than
// the one sent before it on the same connection. A connection has an epoch; dropping it
// (crash, partition, drop-connections fault) bumps the epoch and every message still in
// flight on the old epoch is lost on arrival. Loss and duplication apply to datagrams only.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/assert.hpp"
#include "sim/distribution.hpp"
#include "sim/env.hpp"
#include "sim/reachability.hpp"

namespace hasim {

struct LinkParams {
  DurationDistribution latency = DurationDistribution::constant(milliseconds(1));
  double loss = 0.0;
  double duplicate = 0.0;
};

// A stream connection's index in the Network (stable: connections are never removed), or none
// yet.
inline constexpr std::uint32_t kNoConnection = 0xffffffffu;

struct Flight {
  ProcessId from = 0;
  ProcessId to = 0;
  NodeId from_node = 0;
  NodeId to_node = 0;
  Transport transport = Transport::stream;
  // The stream's connection, set when the send is planned: the delivery reads its epoch
  // without looking the pair up again.
  std::uint32_t connection = kNoConnection;
  std::uint64_t epoch = 0;  // the stream connection's epoch at send time
  Message message;
};

class Network {
 public:
  // Every link starts with `remote` parameters; a node's link to itself with `loopback`.
  // `node_names` name only the links' random streams ("net/A->B"): the World passes each
  // node's stream name (NodeSetup::stream_name).
  Network(const std::vector<std::string>& node_names, LinkParams remote, LinkParams loopback,
          const Rng& root);

  void set_link(NodeId from, NodeId to, LinkParams params);
  const LinkParams& link(NodeId from, NodeId to) const;
  Reachability& reachability() { return reachability_; }
  const Reachability& reachability() const { return reachability_; }

  // When the copies of one message arrive: none if lost, two if a datagram is duplicated.
  // Held inline: every message sent asks for one, so it must not allocate.
  struct Arrivals {
    std::array<TrueTime, 2> at{};
    std::size_t count = 0;
    void push_back(TrueTime t) {
      HASIM_ASSERT(count < at.size());
      at[count++] = t;
    }
    bool empty() const { return count == 0; }
    std::size_t size() const { return count; }
    TrueTime operator[](std::size_t i) const {
      HASIM_ASSERT(i < count);
      return at[i];
    }
  };
  // Draws when copies of a message sent at `now` arrive. Stream sends keep FIFO order per
  // connection, which is opened here if new and noted in flight.connection.
  Arrivals plan_delivery(TrueTime now, Flight& flight);

  // The connection from -> to, or kNoConnection if none was opened yet.
  std::uint32_t find_connection(ProcessId from, ProcessId to) const;
  // A connection's epoch; 0 for kNoConnection (as for a connection never dropped).
  std::uint64_t epoch_of(std::uint32_t connection) const;
  // Drops the connection between two processes (both directions). True if it existed.
  bool drop_connection(ProcessId a, ProcessId b);
  // Process pairs with an open connection, ordered; each pair once, lower id first.
  std::vector<std::pair<ProcessId, ProcessId>> open_connections() const;

  // In-flight storage: a stable index to carry in a scheduler event.
  std::uint64_t store(Flight flight);
  Flight take(std::uint64_t index);

 private:
  struct Connection {
    std::uint64_t epoch = 0;
    TrueTime last_delivery{};  // FIFO: the next message arrives no earlier than this
    bool open = false;
  };
  struct Link {
    LinkParams params;
    Rng rng;
  };
  // Per-pair state looked up on every send and delivery: rows by the first id, each a vector
  // sorted by the second id (a node or process talks to a few others). Cheaper than a map of
  // pairs, and walking rows then columns visits the pairs in the same (first, second) order.
  template <typename Value>
  struct PairTable {
    static constexpr std::size_t kScanLimit = 8;
    std::vector<std::vector<std::pair<std::uint32_t, Value>>> rows;
    const Value* find(std::uint32_t a, std::uint32_t b) const;
    Value* find(std::uint32_t a, std::uint32_t b) {
      return const_cast<Value*>(static_cast<const PairTable&>(*this).find(a, b));
    }
    Value& insert(std::uint32_t a, std::uint32_t b, Value value);  // b not yet in row a
  };
  Link& link_state(NodeId from, NodeId to);

  std::size_t node_count_;
  std::vector<std::string> node_names_;  // the links' stream names
  LinkParams remote_;
  LinkParams loopback_;
  Rng root_;
  PairTable<Link> links_;  // those used or set so far
  Reachability reachability_;
  // Per pair, the index of its Connection in connection_pool_, where it stays: a Flight keeps
  // the index from its send to its delivery.
  PairTable<std::uint32_t> connections_;
  std::vector<Connection> connection_pool_;
  std::vector<Flight> flights_;
  std::vector<std::uint64_t> free_;
};

template <typename Value>
const Value* Network::PairTable<Value>::find(std::uint32_t a, std::uint32_t b) const {
  if (a >= rows.size()) return nullptr;
  const auto& row = rows[a];
  // A row holds the few peers one endpoint talks to: a scan beats a binary search there.
  if (row.size() <= kScanLimit) {
    for (const auto& cell : row) {
      if (cell.first == b) return &cell.second;
    }
    return nullptr;
  }
  const auto it =
      std::lower_bound(row.begin(), row.end(), b,
                       [](const auto& cell, std::uint32_t key) { return cell.first < key; });
  return it != row.end() && it->first == b ? &it->second : nullptr;
}

// Inline: asked on every send and delivery.
inline std::uint32_t Network::find_connection(ProcessId from, ProcessId to) const {
  const std::uint32_t* index = connections_.find(from, to);
  return index == nullptr ? kNoConnection : *index;
}

inline std::uint64_t Network::epoch_of(std::uint32_t connection) const {
  if (connection == kNoConnection) return 0;
  HASIM_ASSERT(connection < connection_pool_.size());
  return connection_pool_[connection].epoch;
}

}  // namespace hasim
