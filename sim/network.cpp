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

// A link's parameters and random stream come into being the first time it is used or set:
// N x N of them up front cost 80 MB for 1,000 nodes that each talk to a few others. The
// stream is forked by the link's name, so when it is created does not change its draws.
Network::Link& Network::link_state(NodeId from, NodeId to) {
  HASIM_ASSERT(from < node_count_ && to < node_count_);
  const auto it = links_.find({from, to});
  if (it != links_.end()) return it->second;
  Link link{from == to ? loopback_ : remote_,
            root_.fork("net/" + node_names_[from] + "->" + node_names_[to])};
  return links_.emplace(std::pair{from, to}, std::move(link)).first->second;
}

void Network::set_link(NodeId from, NodeId to, LinkParams params) {
  HASIM_ASSERT(params.loss >= 0.0 && params.loss <= 1.0);
  HASIM_ASSERT(params.duplicate >= 0.0 && params.duplicate <= 1.0);
  link_state(from, to).params = std::move(params);
}

const LinkParams& Network::link(NodeId from, NodeId to) const {
  HASIM_ASSERT(from < node_count_ && to < node_count_);
  const auto it = links_.find({from, to});
  if (it != links_.end()) return it->second.params;
  return from == to ? loopback_ : remote_;
}

Network::Arrivals Network::plan_delivery(TrueTime now, const Flight& flight) {
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
  Connection& connection = connections_[{flight.from, flight.to}];
  HASIM_ASSERT(connection.epoch == flight.epoch);
  connection.open = true;
  TrueTime at = now + params.latency.sample(rng);
  if (at < connection.last_delivery) at = connection.last_delivery;  // TCP keeps order
  connection.last_delivery = at;
  arrivals.push_back(at);
  return arrivals;
}

std::uint64_t Network::connection_epoch(ProcessId from, ProcessId to) const {
  auto it = connections_.find({from, to});
  return it == connections_.end() ? 0 : it->second.epoch;
}

bool Network::drop_connection(ProcessId a, ProcessId b) {
  bool existed = false;
  for (const auto& key : {std::pair{a, b}, std::pair{b, a}}) {
    auto it = connections_.find(key);
    if (it == connections_.end() || !it->second.open) continue;
    existed = true;
    it->second.open = false;
    ++it->second.epoch;
    it->second.last_delivery = TrueTime{};
  }
  return existed;
}

std::vector<std::pair<ProcessId, ProcessId>> Network::open_connections() const {
  std::set<std::pair<ProcessId, ProcessId>> pairs;
  for (const auto& [key, connection] : connections_) {
    if (connection.open) pairs.insert(std::minmax(key.first, key.second));
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
