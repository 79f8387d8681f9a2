#include "sim/network.hpp"

#include <algorithm>
#include <set>

#include "sim/assert.hpp"

namespace hasim {

Network::Network(const std::vector<std::string>& node_names, LinkParams remote, LinkParams loopback,
                 const Rng& root)
    : node_count_(node_names.size()), reachability_(node_names.size()) {
  HASIM_ASSERT(node_count_ > 0);
  links_.reserve(node_count_ * node_count_);
  link_rngs_.reserve(node_count_ * node_count_);
  for (std::size_t from = 0; from < node_count_; ++from) {
    for (std::size_t to = 0; to < node_count_; ++to) {
      links_.push_back(from == to ? loopback : remote);
      link_rngs_.push_back(root.fork("net/" + node_names[from] + "->" + node_names[to]));
    }
  }
}

void Network::set_link(NodeId from, NodeId to, LinkParams params) {
  HASIM_ASSERT(from < node_count_ && to < node_count_);
  HASIM_ASSERT(params.loss >= 0.0 && params.loss <= 1.0);
  HASIM_ASSERT(params.duplicate >= 0.0 && params.duplicate <= 1.0);
  links_[index(from, to)] = params;
}

const LinkParams& Network::link(NodeId from, NodeId to) const { return links_[index(from, to)]; }

Network::Arrivals Network::plan_delivery(TrueTime now, const Flight& flight) {
  const LinkParams& params = links_[index(flight.from_node, flight.to_node)];
  Rng& rng = link_rngs_[index(flight.from_node, flight.to_node)];
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
