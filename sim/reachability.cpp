#include "sim/reachability.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim {

Reachability::Reachability(std::size_t node_count) : node_count_(node_count), graph_(node_count) {
  rebuild();
}

void Reachability::rebuild() {
  for (std::size_t a = 0; a < node_count_; ++a) {
    for (std::size_t b = 0; b < node_count_; ++b) {
      if (!boost::edge(a, b, graph_).second) boost::add_edge(a, b, graph_);
    }
  }
  for (const auto& [id, edges] : cuts_) {
    for (const auto& [from, to] : edges) {
      if (boost::edge(from, to, graph_).second) boost::remove_edge(from, to, graph_);
    }
  }
}

std::uint64_t Reachability::add_cut(std::vector<DirectedEdge> edges) {
  for (const auto& [from, to] : edges) {
    HASIM_ASSERT(from < node_count_);
    HASIM_ASSERT(to < node_count_);
  }
  const std::uint64_t id = next_cut_id_++;
  cuts_.emplace(id, std::move(edges));
  rebuild();
  return id;
}

bool Reachability::remove_cut(std::uint64_t id) {
  if (cuts_.erase(id) == 0) return false;
  rebuild();
  return true;
}

void Reachability::remove_all_cuts() {
  cuts_.clear();
  rebuild();
}

bool Reachability::reachable(NodeId from, NodeId to) const {
  HASIM_ASSERT(from < node_count_);
  HASIM_ASSERT(to < node_count_);
  return boost::edge(from, to, graph_).second;
}

std::vector<DirectedEdge> Reachability::missing_edges() const {
  std::vector<DirectedEdge> missing;
  for (NodeId a = 0; a < node_count_; ++a) {
    for (NodeId b = 0; b < node_count_; ++b) {
      if (!reachable(a, b)) missing.emplace_back(a, b);
    }
  }
  return missing;
}

std::vector<DirectedEdge> Reachability::isolate(const std::vector<NodeId>& members,
                                                std::size_t node_count) {
  std::vector<DirectedEdge> edges;
  for (NodeId other = 0; other < node_count; ++other) {
    if (std::find(members.begin(), members.end(), other) != members.end()) continue;
    for (NodeId member : members) {
      edges.emplace_back(member, other);
      edges.emplace_back(other, member);
    }
  }
  return edges;
}

std::vector<DirectedEdge> Reachability::between_groups(
    const std::vector<std::vector<NodeId>>& groups) {
  std::vector<DirectedEdge> edges;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (std::size_t j = 0; j < groups.size(); ++j) {
      if (i == j) continue;
      for (NodeId a : groups[i]) {
        for (NodeId b : groups[j]) edges.emplace_back(a, b);
      }
    }
  }
  return edges;
}

std::vector<DirectedEdge> Reachability::one_way(const std::vector<NodeId>& from,
                                                const std::vector<NodeId>& to) {
  std::vector<DirectedEdge> edges;
  for (NodeId a : from) {
    for (NodeId b : to) {
      if (a != b) edges.emplace_back(a, b);
    }
  }
  return edges;
}

}  // namespace hasim
