#include "properties/no_skew.hpp"

#include <algorithm>

#include "models/apiserver/trace_kinds.hpp"
#include "properties/component_versions.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

constexpr std::string_view kApiserver = kApiserverComponent;

// The emulation version an event names: "emulation", else "version" (a component started
// without --emulated-version emulates its binary version); "" if it names neither.
std::string emulation_of(const TraceEvent& event) {
  const std::string_view emulation = event.string_field("emulation");
  return std::string(emulation.empty() ? event.string_field("version") : emulation);
}

election::SemVer parse_version(const std::string& text) { return parse_traced_version(text); }

std::string at(TrueTime t) { return "t=" + format_seconds(t.ns) + "s"; }

std::string version_clause(const Actor& actor) {
  if (actor.emulation == actor.version) return "version " + actor.version;
  return "emulation version " + actor.emulation + " on binary " + actor.version;
}

}  // namespace

bool NoSkew::wants(std::string_view kind) const {
  return kind == election::trace_kind::kCleElect || ActingLeaders::wants(kind);
}

void NoSkew::on_event(const TraceEvent& event) {
  HASIM_ASSERT(event.t >= last_seen_);
  last_seen_ = event.t;
  if (event.kind == election::trace_kind::kCleElect) {
    // The election controller names a leader (creating the Lease or taking it over). Only
    // the last decision per lease matters: an acting-start it names was its doing.
    last_election_[std::string(event.string_field("lease"))] = Election{
        std::string(event.string_field("holder")), std::string(event.string_field("reason")),
        process_of(event), describe_event(event)};
    return;
  }
  bool changed = false;
  if (event.kind == api::trace_kind::kComponentStart &&
      event.string_field("component") == kApiserver) {
    const std::string version = emulation_of(event);
    if (!version.empty()) {
      serving_[process_of(event)] =
          Serving{version, parse_version(version), event.t, describe_event(event)};
      changed = true;
    }
  } else if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) {
    // A kube-apiserver serves until its process stops; node-down and disk-loss crash it.
    changed = serving_.erase(process_of(event)) > 0;
  }
  for (const ActingChange& change : leaders_.observe(event)) {
    on_acting_change(change, event);
    changed = true;
  }
  if (changed) reevaluate(event);
}

void NoSkew::on_acting_change(const ActingChange& change, const TraceEvent& event) {
  const LeaderKey key{change.lease, change.actor.process};
  if (!change.started) {
    leader_info_.erase(key);  // reevaluate() closes its interval
    return;
  }
  if (!is_controller(change.actor.component)) return;
  LeaderInfo info;
  info.actor = change.actor;
  if (!change.actor.emulation.empty()) info.parsed = parse_version(change.actor.emulation);
  const auto election = last_election_.find(change.lease);
  if (election != last_election_.end() && election->second.holder == change.actor.identity) {
    info.why = "elected by the election controller on " + election->second.process;
    if (!election->second.reason.empty()) info.why += ": " + election->second.reason;
    info.causes.push_back(election->second.cause);
  } else {
    info.why = "acquired the Lease itself (lease-based election)";
  }
  info.causes.push_back(describe_event(event));
  leader_info_[key] = std::move(info);
}

void NoSkew::reevaluate(const TraceEvent& event) {
  const TrueTime now = event.t;
  // The serving apiservers `info`'s leader is newer than, in process order.
  auto older_than = [this](const LeaderInfo& info) {
    std::vector<std::string> older;
    if (!info.parsed) return older;
    for (const auto& [process, server] : serving_) {
      if (election::compare(*info.parsed, server.parsed) > 0) older.push_back(process);
    }
    return older;
  };
  for (auto it = open_.begin(); it != open_.end();) {
    const auto info = leader_info_.find(it->first);
    if (info != leader_info_.end() && !older_than(info->second).empty()) {
      ++it;
      continue;
    }
    // The leader stopped acting, or the last older apiserver stopped serving.
    SkewInterval& interval = intervals_[it->second];
    HASIM_ASSERT(interval.open && interval.start <= now);
    interval.open = false;
    interval.end = now;
    interval.causes.push_back(describe_event(event));
    it = open_.erase(it);
  }
  for (const auto& [key, info] : leader_info_) {
    const std::vector<std::string> older = older_than(info);
    if (older.empty()) continue;
    auto found = open_.find(key);
    const bool opening = found == open_.end();
    if (opening) {
      SkewInterval interval;
      interval.component = info.actor.component;
      interval.lease = key.first;
      interval.leader = info.actor;
      interval.start = now;
      interval.end = now;
      interval.why = info.why;
      found = open_.emplace(key, intervals_.size()).first;
      intervals_.push_back(std::move(interval));
    }
    SkewInterval& interval = intervals_[found->second];
    // Causes in time order: in an upgrade the old apiservers started before the leader's
    // acting-start; in a rollback an old apiserver's start is what opened the interval.
    std::vector<std::string> before;
    std::vector<std::string> after;
    for (const std::string& process : older) {
      const Serving& server = serving_.at(process);
      const OlderApiserver apiserver{process, server.version};
      if (std::find(interval.apiservers.begin(), interval.apiservers.end(), apiserver) !=
          interval.apiservers.end()) {
        continue;
      }
      interval.apiservers.push_back(apiserver);
      (opening && server.since <= info.actor.since ? before : after).push_back(server.cause);
    }
    if (opening) {
      interval.causes = std::move(before);
      interval.causes.insert(interval.causes.end(), info.causes.begin(), info.causes.end());
    }
    interval.causes.insert(interval.causes.end(), after.begin(), after.end());
  }
}

void NoSkew::finish(TrueTime end) {
  HASIM_ASSERT(end >= last_seen_);
  for (const auto& [key, index] : open_) {
    SkewInterval& interval = intervals_[index];
    interval.open = false;
    interval.until_end = true;
    interval.end = end;
  }
  open_.clear();
  last_seen_ = end;
  // The first interval, or with a bound the first one longer than it, is the violation.
  const auto reported = std::find_if(intervals_.begin(), intervals_.end(),
                                     [this](const SkewInterval& interval) {
                                       return !bound_ || interval.end - interval.start > *bound_;
                                     });
  if (reported == intervals_.end()) return;
  std::string detail = describe(*reported);
  if (bound_) detail += " That is longer than the bound " + format_duration(*bound_) + ".";
  if (intervals_.size() > 1) {
    detail += " This run had " + std::to_string(intervals_.size()) + " skew violations, " +
              format_duration(total_violation_time()) + " of true time in all.";
  }
  violate(bound_ ? reported->start + *bound_ : reported->start, std::move(detail),
          reported->causes);
}

std::vector<ViolationWindow> NoSkew::windows() const {
  std::vector<ViolationWindow> out;
  out.reserve(intervals_.size());
  for (const SkewInterval& interval : intervals_) {
    out.push_back({interval.start, interval.open ? last_seen_ : interval.end, describe(interval)});
  }
  return out;
}

Duration NoSkew::total_violation_time() const {
  // Intervals are appended as they open, so their starts never decrease.
  Duration total{};
  bool have = false;
  TrueTime from{};
  TrueTime to{};
  for (const SkewInterval& interval : intervals_) {
    const TrueTime end = interval.open ? last_seen_ : interval.end;
    HASIM_ASSERT(!have || interval.start >= from);
    if (have && interval.start <= to) {
      to = std::max(to, end);
      continue;
    }
    if (have) total = total + (to - from);
    have = true;
    from = interval.start;
    to = end;
  }
  if (have) total = total + (to - from);
  return total;
}

std::optional<TrueTime> NoSkew::first_violation() const {
  if (intervals_.empty()) return std::nullopt;
  return intervals_.front().start;
}

std::string NoSkew::describe(const SkewInterval& interval) {
  std::string apiservers;
  for (std::size_t i = 0; i < interval.apiservers.size(); ++i) {
    if (i > 0) apiservers += i + 1 == interval.apiservers.size() ? " and " : ", ";
    apiservers += interval.apiservers[i].process + " at " + interval.apiservers[i].version;
  }
  const bool several = interval.apiservers.size() > 1;
  std::string out = "The " + interval.component + " leader " + interval.leader.process + " (" +
                    interval.leader.identity + ", " + version_clause(interval.leader) + ", Lease " +
                    interval.lease + ") acted while the older kube-apiserver" +
                    (several ? "s " : " ") + apiservers + (several ? " were" : " was") +
                    " still serving, from " + at(interval.start);
  const Duration length = interval.end - interval.start;
  if (interval.until_end) {
    out += " until the end of the run (" + at(interval.end) + ", " + format_duration(length) + ")";
  } else {
    out += " to " + at(interval.end) + " (" + format_duration(length) + ")";
  }
  out +=
      ", against the version-skew policy (a controller must not be newer than any "
      "kube-apiserver it may talk to); how it became leader: " +
      interval.why + ".";
  return out;
}

}  // namespace hasim
