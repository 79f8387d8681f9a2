#pragma once
// single-leader: at no instant of true time do two processes act as leader for one lease.
// client-go promises no such thing (no fencing, "tolerates arbitrary clock skew but not
// skew rate"); it holds when clock rates differ by less than LD/RD, pauses and request
// hangs stay below the LD - RP - RD margin, and latency is small. A violation names both
// actors, the overlap, and whether both could still write through an apiserver during it
// (harmful) or the older one could not (harmless), with the events that led there.
#include <deque>
#include <vector>

#include "models/cluster/acting_leaders.hpp"
#include "properties/property.hpp"

namespace hasim {

class SingleLeader final : public Property {
 public:
  explicit SingleLeader(std::string spec) : Property(std::move(spec)) {}
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;
  std::vector<ViolationWindow> windows() const override;
  // After finish(): how many overlaps the run had, and how many of them were harmful.
  std::size_t overlaps() const { return overlaps_.size(); }
  std::size_t harmful_overlaps() const { return harmful_; }

 private:
  struct Overlap {
    std::string lease;
    Actor first;   // acting already
    Actor second;  // started while `first` acted
    TrueTime start{};
    TrueTime end{};
    bool open = true;
    std::uint64_t first_writes = 0;  // writes accepted by an apiserver during the overlap
    std::uint64_t second_writes = 0;
    std::vector<std::string> causes;
  };
  static std::string describe(const Overlap& overlap);

  ActingLeaders leaders_;
  std::vector<Overlap> overlaps_;
  std::deque<std::string> recent_;  // notable events, newest last
  std::size_t harmful_ = 0;
};

}  // namespace hasim
