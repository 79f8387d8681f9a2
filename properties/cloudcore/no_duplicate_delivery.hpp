#pragma once
// no-duplicate-delivery (KubeEdge CloudCore delivery, models/cloudcore/delivery.hpp): no edge
// node is sent a version of an object it already holds. KubeEdge promises at-least-once
// delivery (KE@v1.5.0:docs/proposals/reliable-message-delivery.md), so a violation is a
// duplicate the edge copes with, not a loss: it shows where delivery did work twice, e.g. in
// active-active (v1.7+) when an edge moves between replicas that both send what their queues
// hold for it, or when two replicas race to create the same ObjectSync. Each duplicate is
// counted; the first is reported with the CloudCore that sent the version first and the one
// that sent it again (an edge's CloudCore is the one it last connected to).
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "properties/property.hpp"

namespace hasim {

class NoDuplicateDelivery final : public Property {
 public:
  explicit NoDuplicateDelivery(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  struct Stored {
    std::int64_t rv = 0;
    std::string from;  // "node/cloudcore"
    TrueTime at{};
  };
  std::map<std::string, std::string, std::less<>> connected_to_;  // edge -> its CloudCore
  std::map<std::pair<std::string, std::string>, Stored> stored_;  // (edge, object)
  std::size_t duplicates_ = 0;
  std::string first_;  // the first duplicate, described
  TrueTime first_at_{};
  std::string first_event_;
};

}  // namespace hasim
