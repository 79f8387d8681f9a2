#pragma once
// lease-protocol: every write to an election object (a Lease, a LeaseCandidate, the record of
// an Endpoints or ConfigMap annotation lock), as kube-apiserver committed it, follows the
// protocol client-go and KEP-4355 rely on. Nothing fences a Lease; these rules are all there is:
//   (a) an update is conditional on a resourceVersion its writer was served (a get, a list, a
//       watch event, the answer to its own write): never a blind (unconditional) update;
//   (b) a renewal (holder unchanged) or a release (holder emptied) comes from the stored
//       holder; only the election controller rewrites a Lease held by someone else without
//       taking it (preferredHolder, strategy);
//   (c) a writer takes a held record over only after it has been served that same record
//       (client-go's observedRawRecord bytes) for leaseDuration on its own monotonic clock
//       (tryAcquireOrRenew in client-go tools/leaderelection/leaderelection.go); the election
//       controller only once the record's renewTime + leaseDurationSeconds is strictly before
//       its clock, the rule it uses (isLeaseExpired, Before: pkg/controlplane/controller/
//       leaderelection/leaderelection_controller.go), judged on the renewTime it writes (its
//       clock, truncated to the microsecond as a MicroTime);
//   (d) leaseTransitions rises by exactly one when a client-go elector becomes holder, and
//       acquireTime changes then; neither changes at a renewal, nor leaseTransitions at a release
//       (which writes acquireTime = now) or when the election controller names a holder
//       (upstream's reconcileElectionStep leaves it alone and clears acquireTime); a release
//       writes leaseDurationSeconds 1, as client-go's release() does (LeaseDurationSeconds: 1,
//       so that a client that does not treat an empty holder as free waits 1 s, not a lease);
//   (e) under Coordinated Leader Election a candidate never makes itself holder (no create, no
//       acquire, no takeover): tryCoordinatedRenew only renews, the controller elects;
//   (f) the LeaseCandidate garbage collector (every 30 min) deletes no candidate renewed within
//       its 30 min validity, less kGcClockAllowance for wall-clock skew: upstream compares the
//       candidate's renewTime with the collector's wall clock;
//   (g) the election controller pings only a candidate that has not renewed within
//       electionDuration (5s) of the ping, by the renewTime it holds and its own clock (the
//       pingTime it writes): a fresh candidate counts as acked (reconcileElectionStep), and a
//       needless ping delays the election by a round trip to every candidate;
//   (h) under OldestEmulationVersion the election controller elects, among the candidates it
//       counted as acked (the versions it read, as its cle-elect event lists them), one with
//       the lowest emulation version and, among those, the lowest binary version
//       (pickBestLeaderOldestEmulationVersion and compare in pkg/controlplane/controller/
//       leaderelection/election.go); only the creationTimestamp tie-break is not judged.
// A snapshot restore (etcd-snapshot-restore, from a snapshot etcdctl saved) takes the store
// back to the snapshot's revision: the monitor keeps, per saved snapshot, each object's last
// write at or below that revision, and on the restore stored objects become those (see
// lease_protocol_restore.cpp).
// From the trace: lease-write and lease-read (models/apiserver/lease_trace.hpp), clock-rate
// (each node's clock rate, for (c)), component-start (coordinated candidates) and
// cle-controller-start (the controller's identity). A writer's node is the first half of its
// identity (hostname_UUID). State is per object, per (writer, object) and per node.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/election/record.hpp"
#include "properties/property.hpp"
#include "sim/clock.hpp"

namespace hasim {

// How far ahead of a candidate's wall clock the collector's may run before (f) calls a
// deletion it makes early: the upstream rule compares two nodes' wall clocks.
inline constexpr Duration kGcClockAllowance = minutes(10);

class LeaseProtocol final : public Property {
 public:
  explicit LeaseProtocol(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override { return kind != trace_kind::kRecv; }
  void on_event(const TraceEvent& event) override;

  // One committed write, as lease-write reports it.
  struct Write {
    TrueTime t{};
    std::string user;
    std::string verb;  // "create", "update", "delete"
    std::string object;
    std::uint64_t rv = 0;
    std::uint64_t precondition = 0;
    bool has_record = false;  // a Lease or an annotation lock
    election::LeaderElectionRecord record;
    std::string raw;  // the bytes an elector compares (observedRawRecord)
    bool candidate = false;  // a LeaseCandidate
    std::int64_t renew = 0;  // a LeaseCandidate's renewTime (kNilTime if unset)
    std::int64_t ping = 0;   // ... and its pingTime (kNilTime if unset)
  };

 private:
  struct Stored {
    std::uint64_t rv = 0;
    bool has_record = false;
    election::LeaderElectionRecord record;
    std::string raw;
    std::int64_t renew = 0;    // a LeaseCandidate's renewTime
    std::int64_t ping = 0;     // ... and its pingTime
    TrueTime renewed_at{};     // ... and when its last renewal was committed
  };
  // What a writer was served of one object.
  struct Seen {
    std::uint64_t max_rv = 0;  // the newest resourceVersion it was served
    std::string raw;           // the record it was last served, and since when (its clock)
    LocalTime since{};
    bool observed = false;
  };
  using SeenKey = std::pair<std::string, std::string>;  // (writer, object)

  void on_read(const TraceEvent& event);
  void on_write(const Write& w);
  void check_conditional(const Write& w);
  void check_record(const Write& w, const Stored& before);
  void check_holder_change(const Write& w, const Stored& before);
  void check_takeover(const Write& w, const Stored& before);
  void check_counters(const Write& w, const Stored& before);
  void check_coordinated(const Write& w, const std::string& before_holder);
  void check_gc(const Write& w, const Stored& before);
  void check_ping(const Write& w, const Stored& before);
  void check_ranking(const TraceEvent& event);
  void store(const Write& w);
  // Snapshots and restores (lease_protocol_restore.cpp).
  void on_snapshot_saved(const TraceEvent& event);
  void on_restore(const TraceEvent& event);
  void track_snapshots(const Write& w);
  LocalTime monotonic_of(const std::string& writer, TrueTime t) const;
  void fail(const Write& w, std::string rule, std::string detail);

  std::map<std::string, Stored> objects_;
  std::map<SeenKey, Seen> seen_;
  std::map<std::string, LocalClock> clocks_;  // by node, from clock-rate events
  std::set<std::string> controllers_;         // election controller identities
  std::set<std::string> coordinated_;         // components running as CLE candidates
  std::deque<std::string> recent_;            // the last writes, newest last
  // A saved snapshot's election objects: each one's last write at or below `revision`. It
  // follows writes traced after the save (an apiserver learns of a commit after the member
  // the snapshot came from applied it) until the first restore, which ends the old history.
  struct Snapshot {
    std::uint64_t revision = 0;
    std::map<std::string, Stored> objects;
    std::set<std::string> unknown;  // last written above `revision` when it was saved
    bool sealed = false;
  };
  std::map<std::string, Snapshot> snapshots_;  // by the name etcdctl saved it under
  // The last restore (time, snapshot): one restore is traced once per member.
  std::optional<std::pair<TrueTime, std::string>> restored_;
  // Objects a restore brought back at a version the monitor does not know (see Snapshot):
  // their next write is judged without a stored record or a served version.
  std::set<std::string> unknown_;
  static constexpr std::size_t kRecentWrites = 12;
};

// A lease-write event as a Write (for tests and the monitor).
LeaseProtocol::Write parse_lease_write(const TraceEvent& event);

}  // namespace hasim
