#pragma once
// group-commit (the journal demo, models/journal/journal.hpp): a write never waits for its
// acknowledgement while its journal has no fsync in flight. When an fsync completes
// ("journal-synced", covering the writes up to "covers") and a later write has arrived
// ("journal-write" with a higher sequence number), the journal issues the next fsync at once
// ("journal-fsync" at the same instant, before anything else it does), as etcd's WAL syncs
// each batch of entries as soon as the one before it is on disk (etcd
// server/storage/wal/wal.go Save, called for every raft Ready). A journal that waits instead
// (for its next write, say) leaves acknowledged-to-be writes in the page cache for a whole
// write interval. Its restarts start it afresh ("journal-recovered": nothing arrived beyond
// what it read back).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class GroupCommit final : public Property {
 public:
  explicit GroupCommit(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  // A completed fsync that left a later write waiting: the next fsync is due at once.
  struct Owed {
    TrueTime at;
    std::int64_t covers = 0;
    std::string synced;  // the "journal-synced" event, described
  };
  struct Journal {
    std::int64_t arrived = 0;  // the last write that arrived
    std::optional<Owed> owes_sync;
  };

  std::map<std::string, Journal, std::less<>> journals_;  // by "node/journal"
};

}  // namespace hasim
