#pragma once
// no-lost-write (the journal demo, models/journal/journal.hpp): every write a journal
// acknowledged is among what it recovers after any later restart. Checked at each
// "journal-recovered": the last recovered sequence number must reach the highest one
// acknowledged before. The causes name the acknowledgement and what took the write (the
// crash, power loss, pod deletion or disk loss of the journal's node before the restart).
#include <map>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class NoLostWrite final : public Property {
 public:
  explicit NoLostWrite(std::string spec) : Property(std::move(spec)) {}
  void on_event(const TraceEvent& event) override;

 private:
  struct Journal {
    std::int64_t acknowledged = 0;  // the highest sequence number acknowledged
    std::string ack;                // that acknowledgement, described
    std::string loss;               // the last event that can lose writes, described
  };
  void on_recovered(const TraceEvent& event, Journal& journal);

  std::map<std::string, Journal, std::less<>> journals_;  // by "node/journal"
  std::map<std::string, std::string, std::less<>> node_loss_;  // node -> its last power loss
};

}  // namespace hasim
