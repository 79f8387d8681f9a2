#include "properties/skew_policy.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "properties/component_versions.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

constexpr std::string_view kApiserver = kApiserverComponent;


std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// Minor versions apart when the majors agree; a different major is always too far.
bool more_than_one_minor_apart(const election::SemVer& a, const election::SemVer& b) {
  if (a.major != b.major) return true;
  return (a.minor > b.minor ? a.minor - b.minor : b.minor - a.minor) > 1;
}

std::string named(const std::string& process, const std::string& version) {
  return process + " (" + version + ")";
}

}  // namespace

bool SkewPolicy::wants(std::string_view kind) const {
  return kind == api::trace_kind::kComponentStart || kind == trace_kind::kCrash ||
         kind == trace_kind::kExit || kind == api::trace_kind::kLeaseWrite;
}

void SkewPolicy::on_event(const TraceEvent& event) {
  HASIM_ASSERT(event.t >= last_seen_);
  last_seen_ = event.t;
  if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) {
    // Stopping can only remove a counterpart: no rule can start failing here, and the
    // violation window may end.
    running_.erase(process_of(event));
    maybe_close_window(event.t);
    return;
  }
  if (event.kind == api::trace_kind::kLeaseWrite) return check_candidate(event);
  if (event.kind != api::trace_kind::kComponentStart) return;
  const std::string_view component = event.string_field("component");
  if (component != kApiserver && !is_controller(component)) return;
  Running r;
  r.component = std::string(component);
  r.version = std::string(event.string_field("version"));
  r.emulation = std::string(event.string_field("emulation"));
  r.binary = parse_traced_version(r.version);
  r.apiservers = split_list(event.string_field("apiservers"));
  // Without the field a controller talks to its own node's kube-apiserver only (kubeadm's
  // local endpoint; models/cluster/component.cpp traces the list behind a load balancer).
  if (r.apiservers.empty() && is_controller(component)) {
    r.apiservers.push_back(std::string(event.node) + "/" + std::string(kApiserver));
  }
  r.cause = describe_event(event);
  r.identity = std::string(event.string_field("identity"));
  const std::string process = process_of(event);
  running_[process] = r;
  // A restart replaces the process's old entry, which may have been what violated.
  maybe_close_window(event.t);
  // Every rule relates the newcomer to what already runs: checking at each start is enough.
  if (std::optional<Finding> finding = check(process, r)) {
    if (!window_) window_ = open_window(event.t, finding->detail);
    violate(event.t, std::move(finding->detail), std::move(finding->causes));
  }
}

void SkewPolicy::finish(TrueTime end) { close_open_windows(end); }

// A LeaseCandidate's create or update by its own component (not the controller's ping, which
// keeps what an earlier incarnation published) against that running component. An instant:
// the next renewal may publish the right versions.
void SkewPolicy::check_candidate(const TraceEvent& event) {
  constexpr std::string_view kPrefix = "LeaseCandidate ";
  const std::string_view object = event.string_field("object");
  const std::string_view verb = event.string_field("verb");
  if (!object.starts_with(kPrefix) || (verb != "create" && verb != "update")) return;
  const std::string_view name = object.substr(object.find('/') + 1);
  if (event.string_field("user") != name) return;
  for (const auto& [process, r] : running_) {
    if (r.identity != name) continue;
    const std::string emulation = r.emulation.empty() ? r.version : r.emulation;
    const std::string_view binary = event.string_field("binary");
    const std::string_view published = event.string_field("emulation");
    if (binary == r.version && published == emulation) return;
    const std::string detail = "skew-policy: " + process + "'s LeaseCandidate publishes binary " +
                               std::string(binary) + " emulating " + std::string(published) +
                               ", but it runs " + r.version + " emulating " + emulation +
                               " (KEP-4355: the controller ranks candidates by what they publish)";
    close_window(open_window(event.t, detail), event.t);
    violate(event.t, detail, {r.cause, describe_event(event)});
    return;
  }
}

// The window lasts while some running component breaks a rule (bounded by the components).
void SkewPolicy::maybe_close_window(TrueTime now) {
  if (!window_) return;
  for (const auto& [process, r] : running_) {
    if (check(process, r)) return;
  }
  close_window(*window_, now);
  window_.reset();
}

std::optional<SkewPolicy::Finding> SkewPolicy::check(const std::string& process,
                                                     const Running& r) const {
  if (!r.emulation.empty() && election::compare(parse_traced_version(r.emulation), r.binary) > 0) {
    return Finding{"skew-policy: " + process + " emulates " + r.emulation +
                       ", above its binary " + r.version +
                       " (KEP-4330: --emulated-version is at most the binary version)",
                   {r.cause}};
  }
  return r.component == kApiserver ? check_apiserver(process, r) : check_client(process, r);
}

// A new kube-apiserver: within one minor of every serving one, and no client that may talk
// to it newer or more than one minor older.
std::optional<SkewPolicy::Finding> SkewPolicy::check_apiserver(const std::string& process,
                                                               const Running& r) const {
  HASIM_ASSERT(r.component == kApiserver);
  for (const auto& [other, o] : running_) {
    if (other == process) continue;
    if (o.component == kApiserver && more_than_one_minor_apart(r.binary, o.binary)) {
      return Finding{"skew-policy: kube-apiservers " + named(process, r.version) + " and " +
                         named(other, o.version) +
                         " serve at once more than one minor version apart (the policy: "
                         "newest and oldest within one minor)",
                     {o.cause, r.cause}};
    }
    if (!is_controller(o.component)) continue;
    for (const std::string& apiserver : o.apiservers) {
      if (apiserver != process) continue;
      if (std::optional<Finding> finding = check_client(other, o)) return finding;
    }
  }
  return std::nullopt;
}

// A kube-controller-manager or kube-scheduler against every serving kube-apiserver it may
// send requests to.
std::optional<SkewPolicy::Finding> SkewPolicy::check_client(const std::string& process,
                                                            const Running& r) const {
  HASIM_ASSERT(is_controller(r.component));
  for (const std::string& apiserver : r.apiservers) {
    const auto it = running_.find(apiserver);
    if (it == running_.end() || it->second.component != kApiserver) continue;
    const Running& a = it->second;
    const int order = election::compare(r.binary, a.binary);
    if (order <= 0 && !more_than_one_minor_apart(r.binary, a.binary)) continue;
    const std::string why =
        order > 0 ? " is newer than " : " is more than one minor version older than ";
    return Finding{"skew-policy: " + r.component + " " + named(process, r.version) + why +
                       named(apiserver, a.version) +
                       ", a kube-apiserver it communicates with (the policy: never newer, at "
                       "most one minor older)",
                   {a.cause, r.cause}};
  }
  return std::nullopt;
}

}  // namespace hasim
