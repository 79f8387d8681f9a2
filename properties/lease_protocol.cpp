#include "properties/lease_protocol.hpp"

#include "models/apiserver/lease_trace.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "models/election/coordinated_election.hpp"
#include "models/election/resource_lock.hpp"
#include "models/election/semver.hpp"
#include "models/election/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
static_assert(api::kLeaderAnnotation == election::kLeaderAnnotation);

namespace {

std::string seconds_of(Duration d) { return format_duration(d); }

std::optional<LocalTime> time_field(const TraceEvent& event, std::string_view key) {
  const std::int64_t ns = event.int_field(key, api::kNilTime);
  if (ns == api::kNilTime) return std::nullopt;
  return LocalTime{ns};
}

// LeaseSpecToLeaderElectionRecord (client-go resourcelock/leaselock.go) over the traced spec.
election::LeaderElectionRecord lease_record(const TraceEvent& event) {
  election::LeaderElectionRecord r;
  r.holderIdentity = std::string(event.string_field("holder"));
  r.leaseDurationSeconds = static_cast<int>(event.int_field("lds"));
  r.acquireTime = time_field(event, "acquire");
  r.renewTime = time_field(event, "renew");
  r.leaderTransitions = static_cast<int>(event.int_field("transitions"));
  r.strategy = std::string(event.string_field("strategy"));
  r.preferredHolder = std::string(event.string_field("preferred"));
  return r;
}

// The node a writer runs on: client-go identities are hostname_UUID, and a hasim hostname is
// its node's name (cluster::ComponentConfig::node, RunWithLeaderElectionConfig::hostname).
std::string node_of(const std::string& identity) {
  return identity.substr(0, identity.rfind('_'));
}

std::string holder_text(const std::string& holder) {
  return holder.empty() ? std::string("nobody") : holder;
}
}  // namespace

LeaseProtocol::Write parse_lease_write(const TraceEvent& event) {
  HASIM_ASSERT(event.kind == api::trace_kind::kLeaseWrite);
  HASIM_ASSERT(event.int_field("rv") > 0);
  LeaseProtocol::Write w;
  w.t = event.t;
  w.user = std::string(event.string_field("user"));
  w.verb = std::string(event.string_field("verb"));
  w.object = std::string(event.string_field("object"));
  w.rv = static_cast<std::uint64_t>(event.int_field("rv"));
  w.precondition = static_cast<std::uint64_t>(event.int_field("precondition"));
  if (event.find("holder") != nullptr) {
    w.has_record = true;
    w.record = lease_record(event);
    w.raw = election::marshal(w.record);
  } else if (event.find("record") != nullptr) {
    // The annotation locks hand back the annotation's bytes as they are (resourcelock's
    // Get); a missing or unreadable one is a zero record.
    w.has_record = true;
    w.raw = std::string(event.string_field("record"));
    w.record = election::unmarshal(w.raw).value_or(election::LeaderElectionRecord{});
  } else {
    w.candidate = true;
    w.renew = event.int_field("renew", api::kNilTime);
    w.ping = event.int_field("ping", api::kNilTime);
  }
  return w;
}

void LeaseProtocol::on_event(const TraceEvent& event) {
  if (event.kind == api::trace_kind::kLeaseRead) return on_read(event);
  if (event.kind == api::trace_kind::kLeaseWrite) {
    const Write w = parse_lease_write(event);
    recent_.push_back(describe_event(event));
    if (recent_.size() > kRecentWrites) recent_.pop_front();
    return on_write(w);
  }
  if (event.kind == trace_kind::kClockRate) {
    const std::string node(event.node);
    clocks_.try_emplace(node).first->second.set_rate(event.t, event.int_field("rate_ppb"));
    return;
  }
  if (event.kind == api::trace_kind::kComponentStart) {
    const TraceValue* coordinated = event.find("coordinated");
    if (coordinated != nullptr && std::get<bool>(*coordinated))
      coordinated_.insert(std::string(event.string_field("identity")));
    return;
  }
  if (event.kind == etcd::trace_kind::kEtcdctl) return on_snapshot_saved(event);
  if (event.kind == etcd::trace_kind::kSnapshotRestore) return on_restore(event);
  if (event.kind == election::trace_kind::kCleControllerStart)
    controllers_.insert(std::string(event.string_field("identity")));
  if (event.kind == election::trace_kind::kCleElect) check_ranking(event);
}

LocalTime LeaseProtocol::monotonic_of(const std::string& writer, TrueTime t) const {
  const auto it = clocks_.find(node_of(writer));
  if (it == clocks_.end()) return LocalTime{t.ns};  // a perfect clock: no rate was traced
  return it->second.monotonic(t);
}

// What the writer was served: its newest resourceVersion (a), and the record it observed and
// since when on its own clock (c). client-go restarts its observation clock only when the
// record's bytes change (observedRawRecord), and only from a read of the live object; a
// watch event may be older than what the monitor holds, so it moves only the version.
void LeaseProtocol::on_read(const TraceEvent& event) {
  const std::string user(event.string_field("user"));
  const std::string object(event.string_field("object"));
  const auto rv = static_cast<std::uint64_t>(event.int_field("rv"));
  HASIM_ASSERT(rv > 0);  // a stored object has a resourceVersion
  Seen& seen = seen_[{user, object}];
  seen.max_rv = std::max(seen.max_rv, rv);
  const auto it = objects_.find(object);
  if (it == objects_.end() || it->second.rv != rv || !it->second.has_record) return;
  if (seen.observed && seen.raw == it->second.raw) return;
  seen.observed = true;
  seen.raw = it->second.raw;
  seen.since = monotonic_of(user, event.t);
}

void LeaseProtocol::on_write(const Write& w) {
  if (violation().has_value()) return;  // the first violation is the one reported
  const auto it = objects_.find(w.object);
  if (w.verb == "update") check_conditional(w);
  if (it != objects_.end()) {
    if (w.has_record && it->second.has_record && w.verb != "delete") check_record(w, it->second);
    if (w.candidate && w.verb == "delete") check_gc(w, it->second);
    if (w.candidate && w.verb == "update") check_ping(w, it->second);
  }
  if (w.has_record && w.verb == "create") check_coordinated(w, "");
  store(w);
  if (!snapshots_.empty()) track_snapshots(w);
}

void LeaseProtocol::store(const Write& w) {
  if (!unknown_.empty()) unknown_.erase(w.object);
  Seen& seen = seen_[{w.user, w.object}];
  seen.max_rv = std::max(seen.max_rv, w.rv);  // the answer to its own write
  if (w.verb == "delete") {
    objects_.erase(w.object);
    return;
  }
  auto [it, created] = objects_.try_emplace(w.object);
  Stored& s = it->second;
  if (w.candidate && (created || w.verb == "create" || s.renew != w.renew)) s.renewed_at = w.t;
  s.rv = w.rv;
  s.has_record = w.has_record;
  s.record = w.record;
  s.raw = w.raw;
  s.renew = w.renew;
  s.ping = w.ping;
  HASIM_ASSERT(objects_.at(w.object).rv == w.rv);
}

void LeaseProtocol::fail(const Write& w, std::string rule, std::string detail) {
  std::vector<std::string> causes(recent_.begin(), recent_.end());
  violate(w.t, rule + " " + w.object + ": " + detail, std::move(causes));
}

// (a) Optimistic concurrency is the only mutual exclusion a Lease has: an update carries the
// resourceVersion its writer read (client-go's lock Update sends the object from its Get;
// the controllers, from their informers), and the apiserver refuses it if the object moved.
void LeaseProtocol::check_conditional(const Write& w) {
  if (unknown_.contains(w.object)) return;  // restored at a version the monitor never saw
  if (w.precondition == 0) {
    return fail(w, "(a) blind update of", w.user + " updated it without a resourceVersion (rv " +
                                              std::to_string(w.rv) + "): nothing stops it from " +
                                              "overwriting a write it never saw");
  }
  const auto it = seen_.find({w.user, w.object});
  const std::uint64_t served = it == seen_.end() ? 0 : it->second.max_rv;
  if (served == w.precondition) return;
  fail(w, "(a) update of", w.user + " made its update conditional on resourceVersion " +
                               std::to_string(w.precondition) +
                               ", which it was never served (the newest it was served: " +
                               std::to_string(served) + ")");
}

// (b)-(e) over a Lease or lock record that existed before this write.
void LeaseProtocol::check_record(const Write& w, const Stored& before) {
  check_holder_change(w, before);
  if (violation().has_value()) return;
  check_counters(w, before);
  if (violation().has_value()) return;
  check_coordinated(w, before.record.holderIdentity);
}

// (b) and (c): who may write what over the stored holder.
void LeaseProtocol::check_holder_change(const Write& w, const Stored& before) {
  const std::string& was = before.record.holderIdentity;
  const std::string& now = w.record.holderIdentity;
  // The election controller (its identity is also its kube-apiserver's elector's, for the
  // leader-election-controller Lease) names holders and ends terms; it never empties a held
  // Lease, so a release is judged as any elector's.
  const bool releases = now.empty() && !was.empty();
  const bool controller = controllers_.contains(w.user) && now != w.user && !releases;
  if (now == w.user && was != w.user && !was.empty()) return check_takeover(w, before);
  if (controller && !was.empty() && was != now && !now.empty()) return check_takeover(w, before);
  if (controller) return;  // end of term (preferredHolder) or the strategy: not a renewal
  if (!now.empty() && now != w.user && now != was) {
    return fail(w, "(e) holder set by a non-controller in",
                w.user + " named " + now + " holder (was " + holder_text(was) +
                    "); only the election controller names a holder other than itself");
  }
  if (now == w.user || was == w.user) return;  // an acquisition of an empty lease, a renewal
  // or a release by the holder
  fail(w, now.empty() ? "(b) release by a non-holder of" : "(b) renewal by a non-holder of",
       w.user + " wrote it while " + holder_text(was) +
           " held it (stored holder); client-go renews and releases only its own lease");
}

// (c) A takeover of a held record. client-go (tryAcquireOrRenew): only once
// observedTime + leaseDurationSeconds has passed on the elector's monotonic clock, where
// observedTime is when it last saw the record's bytes change. The election controller
// (reconcileElectionStep): once renewTime + leaseDurationSeconds is before its own clock,
// which is the renewTime it writes.
void LeaseProtocol::check_takeover(const Write& w, const Stored& before) {
  const election::LeaderElectionRecord& old = before.record;
  HASIM_ASSERT(!old.holderIdentity.empty() && old.holderIdentity != w.record.holderIdentity);
  const Duration ld = seconds(old.leaseDurationSeconds);
  if (w.record.holderIdentity != w.user) {
    if (!old.renewTime.has_value() || !w.record.renewTime.has_value()) return;
    // isLeaseExpired is strict (renewTime + leaseDuration Before now), and the controller
    // writes renewTime = now as a MicroTime: the earliest it may write is the first
    // microsecond at or after renewTime + leaseDuration + 1ns, truncated.
    if (*w.record.renewTime >= api::micro_time(*old.renewTime + ld + Duration{1})) return;
    return fail(w, "(c) early election in",
                w.user + " (election controller) gave it to " + w.record.holderIdentity +
                    " at renewTime " + format_seconds(w.record.renewTime->ns) + "s while " +
                    old.holderIdentity + "'s renewal at " + format_seconds(old.renewTime->ns) +
                    "s was valid for " + seconds_of(ld));
  }
  const auto it = seen_.find({w.user, w.object});
  const bool observed = it != seen_.end() && it->second.observed && it->second.raw == before.raw;
  const Duration held =
      observed ? Duration{monotonic_of(w.user, w.t).ns - it->second.since.ns} : Duration{};
  if (observed && held >= ld) return;
  fail(w, "(c) early takeover of",
       w.user + " took it from " + old.holderIdentity + " having observed that record for " +
           (observed ? seconds_of(held) : std::string("no time at all")) +
           " on its own clock, less than its leaseDurationSeconds " + seconds_of(ld));
}

// (d) leaseTransitions and acquireTime (client-go tryAcquireOrRenew and release; the election
// controller leaves leaseTransitions alone and clears acquireTime when it names a holder).
void LeaseProtocol::check_counters(const Write& w, const Stored& before) {
  const election::LeaderElectionRecord& old = before.record;
  const election::LeaderElectionRecord& now = w.record;
  const bool changed = !now.holderIdentity.empty() && now.holderIdentity != old.holderIdentity;
  const bool by_elector = changed && now.holderIdentity == w.user;
  const int expected = old.leaderTransitions + (by_elector ? 1 : 0);
  if (now.leaderTransitions != expected) {
    return fail(w, "(d) leaseTransitions in",
                "went from " + std::to_string(old.leaderTransitions) + " to " +
                    std::to_string(now.leaderTransitions) + " as " + w.user + " wrote holder " +
                    holder_text(now.holderIdentity) + " over " +
                    holder_text(old.holderIdentity) + "; expected " + std::to_string(expected));
  }
  const bool released = now.holderIdentity.empty() && !old.holderIdentity.empty();
  if (released && now.leaseDurationSeconds != 1) {
    return fail(w, "(d) leaseDurationSeconds in",
                w.user + " released it with leaseDurationSeconds " +
                    std::to_string(now.leaseDurationSeconds) + "; client-go's release() writes 1");
  }
  const bool moved = now.acquireTime != old.acquireTime;
  if (!changed && !released && moved) {
    return fail(w, "(d) acquireTime in", w.user + " changed it while " +
                                             holder_text(old.holderIdentity) +
                                             " stayed holder (a renewal keeps acquireTime)");
  }
  // A Lease keeps microseconds; the annotation locks whole seconds, where a takeover within
  // the second of the last acquisition writes the same text.
  const bool micro = w.object.starts_with("Lease ");
  if (by_elector && micro && !moved) {
    fail(w, "(d) acquireTime in", w.user + " took it over from " +
                                      holder_text(old.holderIdentity) +
                                      " without setting acquireTime");
  }
}

// (e) KEP-4355: a coordinated candidate (tryCoordinatedRenew) never creates, acquires or takes
// over its Lease; the election controller names the holder.
void LeaseProtocol::check_coordinated(const Write& w, const std::string& before_holder) {
  if (!coordinated_.contains(w.user)) return;
  if (w.record.holderIdentity != w.user || before_holder == w.user) return;
  fail(w, "(e) coordinated candidate took",
       w.user + " (a Coordinated Leader Election candidate) made itself holder (was " +
           holder_text(before_holder) + ", verb " + w.verb +
           "); under OldestEmulationVersion only the election controller sets the holder");
}

// (f) The LeaseCandidate GC (pkg/controlplane/controller/leaderelection/
// leasecandidategc_controller.go) deletes candidates whose renewTime is older than 30 min.
void LeaseProtocol::check_gc(const Write& w, const Stored& before) {
  const Duration age = w.t - before.renewed_at;
  if (age >= election::kLeaseCandidateValidDuration - kGcClockAllowance) return;
  fail(w, "(f) live LeaseCandidate deleted:",
       w.user + " deleted it " + seconds_of(age) + " after its last renewal, within its " +
           seconds_of(election::kLeaseCandidateValidDuration) + " validity (less " +
           seconds_of(kGcClockAllowance) + " for clock skew)");
}

// (g) The election controller's ping (reconcileElectionStep, step 3: it sets pingTime on the
// candidates it needs an ack from) skips a candidate whose renewTime + electionDuration is
// after its own clock, the pingTime it writes: that candidate is acked already.
void LeaseProtocol::check_ping(const Write& w, const Stored& before) {
  if (!controllers_.contains(w.user) || w.ping == before.ping || w.ping == api::kNilTime) return;
  if (before.renew == api::kNilTime) return;
  const Duration since{w.ping - before.renew};
  if (since >= election::kElectionDuration) return;
  fail(w, "(g) needless ping of",
       w.user + " (election controller) pinged it " + seconds_of(since) +
           " after its renewTime, within electionDuration " +
           seconds_of(election::kElectionDuration) + ": a candidate that fresh is acked");
}

// (h) The election controller's choice under OldestEmulationVersion (election.go: compare
// ranks by emulation version, then binary version, then creationTimestamp;
// pickBestLeaderOldestEmulationVersion keeps the best). Judged over the candidates the
// controller itself counted as acked, with the versions it read (the cle-elect event's
// "acked: NAME (EMULATION/BINARY), ...; STRATEGY"), so a candidate whose newer version the
// controller had not yet seen is judged as the controller saw it. The KEP's proposed priority
// ("priority, then ...", not upstream) ranks differently and is not judged.
void LeaseProtocol::check_ranking(const TraceEvent& event) {
  if (violation().has_value()) return;
  const std::string holder(event.string_field("holder"));
  const std::string_view reason = event.string_field("reason");
  constexpr std::string_view kAcked = "; acked: ";
  const std::string suffix = "; " + std::string(election::kOldestEmulationVersion);
  const std::size_t from = reason.find(kAcked);
  if (holder.empty() || from == std::string_view::npos || !reason.ends_with(suffix)) return;
  const std::string_view list =
      reason.substr(from + kAcked.size(), reason.size() - suffix.size() - from - kAcked.size());
  if (list.find("priority, then") != std::string_view::npos) return;
  struct Ranked {
    std::string name, text;
    election::SemVer emulation, binary;
  };
  std::vector<Ranked> acked;
  std::size_t at = 0;
  while (at < list.size()) {
    std::size_t end = list.find("), ", at);
    if (end == std::string_view::npos) end = list.size() - 1;
    const std::string_view item = list.substr(at, end + 1 - at);  // "NAME (E/B)"
    at = end + 3;
    const std::size_t open = item.find(" (");
    const std::size_t slash = item.find('/', open);
    if (open == std::string_view::npos || slash == std::string_view::npos || !item.ends_with(")"))
      return;  // not the controller's format: nothing to judge
    const auto emulation = election::parse_semver_tolerant(item.substr(open + 2, slash - open - 2));
    const auto binary =
        election::parse_semver_tolerant(item.substr(slash + 1, item.size() - slash - 2));
    // Unparseable versions are skipped by the picker's pre-filter (validForOEV).
    if (!emulation || !binary) continue;
    acked.push_back({std::string(item.substr(0, open)), std::string(item), *emulation, *binary});
  }
  const Ranked* chosen = nullptr;
  for (const Ranked& r : acked) {
    if (r.name == holder) chosen = &r;
  }
  if (chosen == nullptr) return;
  for (const Ranked& r : acked) {
    int c = election::compare(r.emulation, chosen->emulation);
    if (c == 0) c = election::compare(r.binary, chosen->binary);
    if (c >= 0) continue;
    std::vector<std::string> causes(recent_.begin(), recent_.end());
    violate(event.t, "(h) election of " + std::string(event.string_field("lease")) + ": " +
                         std::string(event.node) + "'s election controller chose " +
                         chosen->text + " over " + r.text +
                         ", which it had acked and which ranks before it under "
                         "OldestEmulationVersion (lowest emulation version, then lowest "
                         "binary version)",
            std::move(causes));
    return;
  }
}

}  // namespace hasim
