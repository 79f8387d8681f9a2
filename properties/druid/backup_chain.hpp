#pragma once
// backup-chain (etcd-druid, issue 17): the object store always holds a restorable chain.
// etcd-backup-restore restores the latest full snapshot, then applies each delta after it in
// order, and after each delta checks that etcd's revision is the delta's last revision
// (pkg/snapshot/restorer/restorer.go applySnashotsToEtcd: "mismatched event revision while
// applying delta snapshot"). So every delta the store accepts must start exactly one revision
// after the last revision of the snapshot saved before it: a gap (revisions in no snapshot)
// or an overlap (revisions applied twice) makes every later restore fail.
//
// Followed from druid-br-snapshot events with outcome "saved" (the store accepted the
// object), whichever sidecar led: a full snapshot starts a new chain at its revision; a delta
// extends it. A delta saved before any full snapshot is itself a violation (nothing to apply
// it to). The violation names both snapshots; it holds until the next full snapshot.
// The garbage collector's deletes (druid-br-gc-delete) must leave the latest chain alone: a
// deleted latest full snapshot, or a delta after it, is a violation until the next full one.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class BackupChain final : public Property {
 public:
  explicit BackupChain(std::string spec);
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  static constexpr std::size_t kNoWindow = static_cast<std::size_t>(-1);
  std::optional<std::int64_t> last_;  // the chain's last revision; none before a full one
  std::string lastSnapshot_;          // "Full 0-26 by etcd-main-0 at 25.7s", for messages
  std::size_t window_ = kNoWindow;    // open while the chain is broken
  std::set<std::string> chain_;       // the names of the latest chain's snapshots
  std::size_t gcWindow_ = kNoWindow;  // open while GC has cut the latest chain
  void on_delete(const TraceEvent& event);
};

}  // namespace hasim
