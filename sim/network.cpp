#include "sim/network.hpp"

#include <algorithm>
#include <set>

#include "sim/assert.hpp"

namespace hasim {

Network::Network(const std::vector<std::string>& node_names, LinkParams remote, LinkParams loopback,
                 const Rng& root)
    : node_count_(node_names.size()),
      node_names_(node_names),
      remote_(std::move(remote)),
      loopback_(std::move(loopback)),
      root_(root),
      reachability_(node_names.size()) {
  HASIM_ASSERT(node_count_ > 0);
}

template <typename Value>
Value& Network::PairTable<Value>::insert(std::uint32_t a, std::uint32_t b, Value value) {
  HASIM_ASSERT(find(a, b) == nullptr);
  if (a >= rows.size()) rows.resize(a + 1);
  auto& row = rows[a];
  const auto it =
      std::lower_bound(row.begin(), row.end(), b,
                       [](const auto& cell, std::uint32_t key) { return cell.first < key; });
  return row.insert(it, std::pair{b, std::move(value)})->second;
}

// A link's parameters and random stream come into being the first time it is used or set:
// N x N of them up front cost 80 MB for 1,000 nodes that each talk to a few others. The
// stream is forked by the link's name, so when it is created does not change its draws.
Network::Link& Network::link_state(NodeId from, NodeId to) {
  HASIM_ASSERT(from < node_count_ && to < node_count_);
  if (Link* link = links_.find(from, to)) return *link;
  Link link{from == to ? loopback_ : remote_,
            root_.fork("net/" + node_names_[from] + "->" + node_names_[to])};
  return links_.insert(from, to, std::move(link));
}

void Network::set_link(NodeId from, NodeId to, LinkParams params) {
  HASIM_ASSERT(params.loss >= 0.0 && params.loss <= 1.0);
  HASIM_ASSERT(params.duplicate >= 0.0 && params.duplicate <= 1.0);
  link_state(from, to).params = std::move(params);
}

const LinkParams& Network::link(NodeId from, NodeId to) const {
  HASIM_ASSERT(from < node_count_ && to < node_count_);
  if (const Link* link = links_.find(from, to)) return link->params;
  return from == to ? loopback_ : remote_;
}

Network::Arrivals Network::plan_delivery(TrueTime now, Flight& flight) {
  Link& link = link_state(flight.from_node, flight.to_node);
  const LinkParams& params = link.params;
  Rng& rng = link.rng;
  Arrivals arrivals;
  if (flight.transport == Transport::datagram) {
    if (rng.bernoulli(params.loss)) return arrivals;
    arrivals.push_back(now + params.latency.sample(rng));
    if (rng.bernoulli(params.duplicate)) arrivals.push_back(now + params.latency.sample(rng));
    return arrivals;
  }
  if (flight.connection == kNoConnection)
    flight.connection = find_connection(flight.from, flight.to);
  if (flight.connection == kNoConnection) {
    HASIM_ASSERT(connection_pool_.size() < kNoConnection);
    flight.connection = static_cast<std::uint32_t>(connection_pool_.size());
    connection_pool_.emplace_back();
    connections_.insert(flight.from, flight.to, flight.connection);
  }
  HASIM_ASSERT(flight.connection < connection_pool_.size());
  Connection& connection = connection_pool_[flight.connection];
  HASIM_ASSERT(connection.epoch == flight.epoch);
  connection.open = true;
  TrueTime at = now + params.latency.sample(rng);
  if (at < connection.last_delivery) at = connection.last_delivery;  // TCP keeps order
  connection.last_delivery = at;
  arrivals.push_back(at);
  return arrivals;
}

bool Network::drop_connection(ProcessId a, ProcessId b) {
  bool existed = false;
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const std::uint32_t index = find_connection(from, to);
    if (index == kNoConnection) continue;
    Connection* connection = &connection_pool_[index];
    if (!connection->open) continue;
    existed = true;
    connection->open = false;
    ++connection->epoch;
    connection->last_delivery = TrueTime{};
  }
  return existed;
}

std::vector<std::pair<ProcessId, ProcessId>> Network::open_connections() const {
  std::set<std::pair<ProcessId, ProcessId>> pairs;
  for (std::size_t from = 0; from < connections_.rows.size(); ++from) {
    for (const auto& [to, index] : connections_.rows[from]) {
      if (connection_pool_[index].open) pairs.insert(std::minmax(static_cast<ProcessId>(from), to));
    }
  }
  return {pairs.begin(), pairs.end()};
}

std::uint64_t Network::store(Flight flight) {
  if (!free_.empty()) {
    const std::uint64_t slot = free_.back();
    free_.pop_back();
    flights_[slot] = std::move(flight);
    return slot;
  }
  flights_.push_back(std::move(flight));
  return flights_.size() - 1;
}

Flight Network::take(std::uint64_t slot) {
  HASIM_ASSERT(slot < flights_.size());
  Flight flight = std::move(flights_[slot]);
  HASIM_ASSERT(flight.message != nullptr);
  flights_[slot].message.reset();
  free_.push_back(slot);
  return flight;
}

}  // namespace hasim
