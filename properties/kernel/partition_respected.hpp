#pragma once
// partition-respected (the kernel's network): no message is delivered across a directed edge
// that a partition in force cuts. The cut is derived from the partition's own definition as
// its trace event states it (scenarios/kernel/faults.cpp): "isolate" (every edge between a
// member and a non-member, both directions), "groups" (every edge between two different
// groups, both directions), "from"/"to" (one way: from a sender to a receiver), and only for
// a partition without a shape (the studies' hand-made cuts) its "edges" list. It is not read
// from the kernel's reachability graph, so a kernel that builds the wrong cut, or heals a
// cut that is still in force, shows as a "recv" across it. A "heal" ends the cut it names,
// or every cut ("all").
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/property.hpp"

namespace hasim {

class PartitionRespected final : public Property {
 public:
  explicit PartitionRespected(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

  // One partition's cut, as its definition says.
  struct Cut {
    enum class Shape { isolate, groups, oneway, edges };
    Shape shape = Shape::edges;
    // isolate: {members}; groups: one set per group; oneway: {from, to}; edges: unused.
    std::vector<std::set<std::string, std::less<>>> sets;
    std::set<std::pair<std::string, std::string>, std::less<>> edges;  // Shape::edges
    std::string event;  // the partition event, described

    bool severs(std::string_view from, std::string_view to) const;
  };
  // Parses a "partition" event's shape fields (or its "edges" list).
  static Cut cut_of(const TraceEvent& event);

 private:
  void on_recv(const TraceEvent& event);

  std::map<std::int64_t, Cut> cuts_;  // by the partition's cut id
};

}  // namespace hasim
