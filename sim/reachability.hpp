#pragma once
// Who can send to whom: a directed graph over nodes (Boost.Graph adjacency matrix), the full
// mesh minus every active cut. A cut is a set of directed edges removed by one partition
// fault; healing removes that cut (or all cuts) and the graph is rebuilt. Reachability is
// direct (cluster networks do not relay), so "a can reach b" is exactly "edge a->b exists".
#include <boost/graph/adjacency_matrix.hpp>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/env.hpp"

namespace hasim {

using DirectedEdge = std::pair<NodeId, NodeId>;

class Reachability {
 public:
  explicit Reachability(std::size_t node_count);

  // Returns the id of the new cut; `edges` may be empty (a partition with no effect).
  std::uint64_t add_cut(std::vector<DirectedEdge> edges);
  bool remove_cut(std::uint64_t id);
  void remove_all_cuts();

  bool reachable(NodeId from, NodeId to) const;
  std::size_t node_count() const { return node_count_; }
  std::size_t active_cuts() const { return cuts_.size(); }
  // Directed edges currently missing, ordered by (from, to).
  std::vector<DirectedEdge> missing_edges() const;

  // Cut constructors. Isolate: both directions between `members` and everyone else.
  static std::vector<DirectedEdge> isolate(const std::vector<NodeId>& members,
                                           std::size_t node_count);
  // Groups: both directions between every pair of nodes in different groups; nodes in no
  // group keep all their links.
  static std::vector<DirectedEdge> between_groups(const std::vector<std::vector<NodeId>>& groups);
  // One way: `from` nodes cannot send to `to` nodes; the reverse direction still works.
  static std::vector<DirectedEdge> one_way(const std::vector<NodeId>& from,
                                           const std::vector<NodeId>& to);

 private:
  using Graph = boost::adjacency_matrix<boost::directedS>;
  void rebuild();

  std::size_t node_count_;
  Graph graph_;
  std::map<std::uint64_t, std::vector<DirectedEdge>> cuts_;
  std::uint64_t next_cut_id_ = 1;
};

}  // namespace hasim
