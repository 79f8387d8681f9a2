#include "properties/kernel/partition_respected.hpp"

#include <variant>

#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

// "a,b,c" -> {a, b, c}; bounded by the text's length.
std::set<std::string, std::less<>> split_names(std::string_view text, char separator) {
  std::set<std::string, std::less<>> names;
  while (!text.empty()) {
    const std::size_t end = text.find(separator);
    const std::string_view name = text.substr(0, end);
    if (!name.empty()) names.emplace(name);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return names;
}

// The node of a qualified process name "node/process".
std::string_view node_of(std::string_view qualified) {
  return qualified.substr(0, qualified.find('/'));
}

}  // namespace

bool PartitionRespected::Cut::severs(std::string_view from, std::string_view to) const {
  if (from == to) return false;  // a node always reaches itself
  switch (shape) {
    case Shape::isolate:
      return sets.front().contains(from) != sets.front().contains(to);
    case Shape::groups: {
      std::size_t from_group = sets.size();
      std::size_t to_group = sets.size();
      for (std::size_t i = 0; i < sets.size(); ++i) {
        if (sets[i].contains(from)) from_group = i;
        if (sets[i].contains(to)) to_group = i;
      }
      // Nodes in no group keep all their links.
      return from_group < sets.size() && to_group < sets.size() && from_group != to_group;
    }
    case Shape::oneway:
      return sets[0].contains(from) && sets[1].contains(to);
    case Shape::edges:
      return edges.contains(std::pair<std::string, std::string>(from, to));
  }
  return false;
}

PartitionRespected::Cut PartitionRespected::cut_of(const TraceEvent& event) {
  HASIM_ASSERT(event.kind == trace_kind::kPartition);
  Cut cut;
  if (event.find("isolate") != nullptr) {
    cut.shape = Cut::Shape::isolate;
    cut.sets.push_back(split_names(event.string_field("isolate"), ','));
  } else if (event.find("groups") != nullptr) {
    cut.shape = Cut::Shape::groups;
    for (const std::string& group : split_names(event.string_field("groups"), '|')) {
      cut.sets.push_back(split_names(group, ','));
    }
  } else if (event.find("to") != nullptr) {
    cut.shape = Cut::Shape::oneway;
    cut.sets.push_back(split_names(event.string_field("from"), ','));
    cut.sets.push_back(split_names(event.string_field("to"), ','));
  } else {
    // "a->b c->d": a cut given edge by edge.
    for (const std::string& edge : split_names(event.string_field("edges"), ' ')) {
      const std::size_t arrow = edge.find("->");
      HASIM_ASSERT(arrow != std::string::npos);
      cut.edges.emplace(edge.substr(0, arrow), edge.substr(arrow + 2));
    }
  }
  HASIM_ASSERT(cut.shape == Cut::Shape::edges || !cut.sets.empty());
  return cut;
}

bool PartitionRespected::wants(std::string_view kind) const {
  return kind == trace_kind::kPartition || kind == trace_kind::kHeal || kind == trace_kind::kRecv;
}

void PartitionRespected::on_event(const TraceEvent& event) {
  if (event.kind == trace_kind::kPartition) {
    Cut cut = cut_of(event);
    cut.event = describe_event(event);
    cuts_[event.int_field("cut")] = std::move(cut);
  } else if (event.kind == trace_kind::kHeal) {
    const TraceValue* which = event.find("cut");
    HASIM_ASSERT(which != nullptr);
    if (std::holds_alternative<std::int64_t>(*which)) {
      cuts_.erase(std::get<std::int64_t>(*which));
    } else {
      cuts_.clear();  // "all"
    }
  } else if (event.kind == trace_kind::kRecv) {
    on_recv(event);
  }
}

void PartitionRespected::on_recv(const TraceEvent& event) {
  const std::string_view from = node_of(event.string_field("from"));
  for (const auto& [id, cut] : cuts_) {
    if (!cut.severs(from, event.node)) continue;
    violate(event.t,
            std::string(event.node) + "/" +
                std::string(event.proc) + " received " + std::string(event.string_field("msg")) +
                " from " + std::string(event.string_field("from")) + " across partition " +
                std::to_string(id) + ", which cuts " + std::string(from) + "->" +
                std::string(event.node) + " and is still in force",
            {cut.event, describe_event(event)});
    return;
  }
}

}  // namespace hasim
