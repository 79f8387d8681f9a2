#pragma once
// resourcelock.LeaderElectionRecord: what a lock stores, whatever its kind. Electors compare
// it as bytes (observedRawRecord) and never trust its timestamps (client-go package doc:
// they "only use the fact that they changed"), so the exact byte form matters only for
// equality. It follows json.Marshal of the Go struct, where metav1.Time encodes as RFC 3339
// with whole seconds: two renewals within one wall-clock second serialize identically.
#include <optional>
#include <string>
#include <string_view>

#include "models/apiserver/object.hpp"
#include "sim/time.hpp"

namespace hasim::election {

struct LeaderElectionRecord {
  std::string holderIdentity;  // empty: nobody holds it; anyone may take it at once
  int leaseDurationSeconds = 0;
  std::optional<LocalTime> acquireTime;  // wall clock of the writer; nullopt = Go zero time
  std::optional<LocalTime> renewTime;
  int leaderTransitions = 0;
  std::string strategy;         // CoordinatedLeaseStrategy (KEP-4355)
  std::string preferredHolder;  // "end of term" marker set by the CLE controller
  bool operator==(const LeaderElectionRecord&) const = default;
};

// json.Marshal(record): field order of the Go struct, times as RFC 3339 seconds (UTC) of the
// writer's wall clock, counted from 2026-01-01T00:00:00Z at LocalTime 0.
std::string marshal(const LeaderElectionRecord& record);
// marshal(a) == marshal(b), without the text: the fields equal, the times to the second.
// Electors compare every record they read with the one they observed, and a renewal changes
// the text each time, so marshalling was 3% of a lease-upgrade trial (stop 42).
bool marshal_equal(const LeaderElectionRecord& a, const LeaderElectionRecord& b);
// json.Unmarshal for the annotation locks; nullopt if the text is not a record.
std::optional<LeaderElectionRecord> unmarshal(std::string_view text);
std::string format_rfc3339_seconds(LocalTime wall);

// LeaderElectionRecordToLeaseSpec / LeaseSpecToLeaderElectionRecord (leaselock.go): every
// field becomes a pointer, except strategy and preferredHolder, which are set only when not
// empty; nil pointers read back as zero values.
api::LeaseSpec to_lease_spec(const LeaderElectionRecord& record);
LeaderElectionRecord from_lease_spec(const api::LeaseSpec& spec);

}  // namespace hasim::election
