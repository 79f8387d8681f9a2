#pragma once
// disk-semantics (the kernel's disks, sim/disk.hpp, as the journal demo sees them): what a
// journal observes of its disk follows the semantics the disk promises, as Linux gives them
// to a process that writes and fsyncs:
//  (a) an fsync completes only after every append issued before it: at "journal-synced",
//      the last completed append ("written") reaches what the fsync covers ("covers"); the
//      device serves its queue in issue order;
//  (b) no append to a volume on the device succeeds while a disk-full fault holds on its
//      disk: a write acknowledged although its disk was full from before the write arrived
//      until the acknowledgement had its append accepted while full (ENOSPC was due). A
//      memory volume (tmpfs) costs no disk space and is exempt.
// The journal's disk and volume kind come from its "journal-recovered" event, the fault's
// span from the kernel's "disk-full" events: nothing is read from the disk model itself.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class DiskSemantics final : public Property {
 public:
  explicit DiskSemantics(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  struct Journal {
    std::string disk;    // "node/disk" of its volume
    bool device = true;  // not a memory volume
    std::map<std::int64_t, TrueTime> arrived;  // writes not yet acknowledged, by sequence
  };
  void on_journal_event(const TraceEvent& event, Journal& journal);
  void on_synced(const TraceEvent& event);
  void on_ack(const TraceEvent& event, Journal& journal);

  std::map<std::string, Journal, std::less<>> journals_;  // by "node/journal"
  std::map<std::string, TrueTime, std::less<>> full_since_;  // "node/disk" -> full since
};

}  // namespace hasim
