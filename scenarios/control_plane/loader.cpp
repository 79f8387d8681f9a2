// "controlPlane": the control-plane nodes, their versions (strict semver, emulation at most
// the binary), the API server's behaviour, how components elect (lease, coordinated or mixed,
// with the Coordinated Leader Election settings), each component's leader election (validated
// as client-go's NewLeaderElector does) and the kubelet's restart back-off. Also adds the
// store's node ("store") that the rest of the file may name.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "models/election/leader_elector.hpp"
#include "models/election/coordinated_election.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "sim/assert.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim::scenario_loader {
namespace {

const std::vector<std::string>& lock_names() {
  static const std::vector<std::string> names(std::begin(election::kLockTypes),
                                              std::end(election::kLockTypes));
  return names;
}

// The settings as client-go's NewLeaderElector checks them, in its order; the first
// failure is reported (as NewLeaderElector returns it), at the key the user set.
// `note` is appended to each message (it says whose settings these are when that is not a
// component's).
void check_election(JsonReader& r, const Json& object, const std::string& path,
                    const ElectionSpec& e, std::string_view note = "") {
  auto given = [&](std::string_view key) { return JsonReader::field(object, key) != nullptr; };
  auto show = [&](std::string_view key, Duration d) {
    return std::string(key) + " " + short_duration(d) + (given(key) ? "" : " (the default)");
  };
  constexpr std::string_view kExample =
      "; e.g. the defaults leaseDuration \"15s\", renewDeadline \"10s\", retryPeriod \"2s\"";
  if (e.leaseDuration <= e.renewDeadline) {
    r.error(JsonReader::key_path(path, given("leaseDuration") || !given("renewDeadline")
                                           ? "leaseDuration"
                                           : "renewDeadline"),
            "leaseDuration must be greater than renewDeadline (client-go NewLeaderElector), "
            "but " +
                show("leaseDuration", e.leaseDuration) + " is not greater than " +
                show("renewDeadline", e.renewDeadline) +
                ": a leader that fails to renew keeps leading until renewDeadline, so the lease "
                "must outlast it; make leaseDuration longer or renewDeadline shorter" +
                std::string(kExample) + std::string(note));
    return;
  }
  const std::int64_t jittered = election::jittered(e.retryPeriod).ns;
  if (e.renewDeadline.ns <= jittered) {
    r.error(
        JsonReader::key_path(path, given("renewDeadline") || !given("retryPeriod") ? "renewDeadline"
                                                                                   : "retryPeriod"),
        "renewDeadline must be greater than retryPeriod*JitterFactor (client-go "
        "NewLeaderElector, JitterFactor 1.2), but " +
            show("renewDeadline", e.renewDeadline) + " is not greater than " +
            show("retryPeriod", e.retryPeriod) + " * 1.2 = " + short_duration(Duration{jittered}) +
            ": the leader must get at least one jittered retry in before its deadline; "
            "make renewDeadline longer or retryPeriod shorter" +
            std::string(kExample) + std::string(note));
    return;
  }
  const std::pair<std::string_view, Duration> positive[] = {{"leaseDuration", e.leaseDuration},
                                                            {"renewDeadline", e.renewDeadline},
                                                            {"retryPeriod", e.retryPeriod}};
  for (const auto& [key, d] : positive) {
    if (d.ns >= 1) continue;
    r.error(JsonReader::key_path(path, key),
            std::string(key) + " must be greater than zero (client-go NewLeaderElector), but " +
                show(key, d) + " is not; use e.g. \"" +
                (key == "leaseDuration"   ? "15s"
                 : key == "renewDeadline" ? "10s"
                                          : "2s") +
                "\"" + std::string(note));
    return;
  }
}

// "renewRequests": "bounded" (today's client-go) or "unbounded" (client-go up to 1.11, whose
// leader-election client had no timeout and whose renew poll waited for a hung try; see
// election::RenewRequests).
void read_renew_requests(JsonReader& r, const Json& object, const std::string& path,
                         ElectionSpec& e) {
  const Json* v = JsonReader::field(object, "renewRequests");
  if (v == nullptr) return;
  const std::string at = JsonReader::key_path(path, "renewRequests");
  const auto mode = r.string(*v, at);
  if (!mode) return;
  static const std::vector<std::string> kModes{"bounded", "unbounded"};
  if (*mode != kModes[0] && *mode != kModes[1]) {
    r.error(at, "unknown renewRequests \"" + *mode + "\"" + did_you_mean(*mode, kModes) +
                    "; use \"bounded\" (today's client-go: the HTTP client timeout, max(1s, "
                    "renewDeadline/2) unless clientTimeout is set, and renewDeadline cut off a "
                    "try in flight; the default) or \"unbounded\" (client-go up to 1.11, "
                    "kubernetes#44887: no client timeout, and the renew loop waits for a try "
                    "in flight past renewDeadline, so a hung renewal keeps the leader leading "
                    "until its request returns)");
    return;
  }
  e.renewRequests = *mode == kModes[1] ? RenewRequestsMode::unbounded : RenewRequestsMode::bounded;
  if (e.renewRequests == RenewRequestsMode::unbounded &&
      JsonReader::field(object, "clientTimeout") != nullptr) {
    r.error(JsonReader::key_path(path, "clientTimeout"),
            "clientTimeout sets the leader-election HTTP client timeout, but renewRequests "
            "\"unbounded\" models client-go up to 1.11, whose leader-election client had "
            "none (kubernetes#65094 added it in 1.12); remove clientTimeout, or use "
            "renewRequests \"bounded\" to keep it");
  }
}

void read_component(JsonReader& r, const Json& value, const std::string& path,
                    std::string_view name, ElectionSpec& e) {
  if (!r.object(value, path, keys("component"), "the " + std::string(name) + " settings")) {
    return;
  }
  const std::size_t before = r.error_count();
  // Read in any sign: NewLeaderElector's own checks say what is wrong with them.
  read_duration_field(r, value, path, "leaseDuration", DurationSign::any, e.leaseDuration);
  read_duration_field(r, value, path, "renewDeadline", DurationSign::any, e.renewDeadline);
  read_duration_field(r, value, path, "retryPeriod", DurationSign::any, e.retryPeriod);
  if (r.error_count() == before) check_election(r, value, path, e);
  read_bool_field(r, value, path, "releaseOnCancel", e.releaseOnCancel);
  for (const auto& [key, target] :
       {std::pair{"lock", &e.lock}, std::pair{"upgradeLock", &e.upgradeLock}}) {
    const Json* v = JsonReader::field(value, key);
    if (v == nullptr) continue;
    const std::string at = JsonReader::key_path(path, key);
    if (const auto lock = r.string(*v, at)) {
      const auto& names = lock_names();
      if (std::find(names.begin(), names.end(), *lock) != names.end()) {
        *target = *lock;
      } else {
        r.error(at, "unknown lock type \"" + *lock + "\"" + did_you_mean(*lock, names) +
                        "; the lock types are " + join_words(names) +
                        " (\"leases\" is the default)");
      }
    }
  }
  if (const Json* v = JsonReader::field(value, "clientTimeout")) {
    e.clientTimeout =
        r.duration(*v, JsonReader::key_path(path, "clientTimeout"), DurationSign::positive);
  }
  read_duration_field(r, value, path, "workInterval", DurationSign::non_negative, e.workInterval);
  read_renew_requests(r, value, path, e);
}

void read_components(JsonReader& r, const Json& value, const std::string& path,
                     ControlPlaneSpec& spec, bool upgrade) {
  if (!r.object(value, path, keys("components"), "the control-plane components")) return;
  const std::pair<std::string_view, ElectionSpec*> components[] = {
      {"kube-controller-manager", &spec.controllerManager}, {"kube-scheduler", &spec.scheduler}};
  for (const auto& [name, target] : components) {
    // Component names are fixed and readable, so the path keeps the dotted form.
    if (const Json* v = JsonReader::field(value, name)) {
      const std::string at = path + "." + std::string(name);
      read_component(r, *v, at, name, *target);
      if (!target->upgradeLock.empty() && (!upgrade || spec.election != ElectionMode::lease)) {
        r.error(JsonReader::key_path(at, "upgradeLock"),
                std::string("upgradeLock is the lock this component uses once the upgrade has "
                            "replaced its binary with upgrade.to's (a lock migration such as "
                            "endpointsleases to leases), so it needs an \"upgrade\" and "
                            "\"election\": \"lease\" (Coordinated Leader Election elects "
                            "on Leases only)") +
                    (upgrade ? "" : "; add an \"upgrade\"") +
                    (spec.election == ElectionMode::lease ? "" : "; set \"election\": \"lease\"") +
                    ", or remove upgradeLock");
      }
      if (target->renewRequests == RenewRequestsMode::unbounded &&
          spec.election != ElectionMode::lease) {
        r.error(JsonReader::key_path(at, "renewRequests"),
                "renewRequests \"unbounded\" models client-go up to 1.11, which predates "
                "Coordinated Leader Election (KEP-4355), but \"election\" is \"" +
                    std::string(to_string(spec.election)) +
                    "\"; set controlPlane \"election\": \"lease\", or remove "
                    "renewRequests");
      }
    }
  }
}

void read_kubelet(JsonReader& r, const Json& value, const std::string& path, KubeletSpec& k) {
  if (!r.object(value, path, keys("kubelet"), "the kubelet")) return;
  read_bool_field(r, value, path, "restart", k.restart);
  bool ok = read_duration_field(r, value, path, "backoff", DurationSign::positive, k.backoff);
  ok =
      read_duration_field(r, value, path, "maxBackoff", DurationSign::positive, k.maxBackoff) && ok;
  read_duration_field(r, value, path, "resetAfter", DurationSign::positive, k.resetAfter);
  if (ok && k.maxBackoff < k.backoff) {
    const bool max_given = JsonReader::field(value, "maxBackoff") != nullptr;
    auto show = [&](std::string_view key, Duration d) {
      return std::string(key) + " " + short_duration(d) +
             (JsonReader::field(value, key) == nullptr ? " (the default)" : "");
    };
    r.error(JsonReader::key_path(path, max_given ? "maxBackoff" : "backoff"),
            show("maxBackoff", k.maxBackoff) + " is below " + show("backoff", k.backoff) +
                ": the back-off starts at backoff and doubles up to maxBackoff; make maxBackoff "
                "at least backoff, e.g. backoff \"10s\" with maxBackoff \"5m\"");
  }
}

// controlPlane.loadBalancerHealthCheck (load_balancer.hpp): haproxy's inter, fall and rise.
void read_lb_health(JsonReader& r, const Json& value, const std::string& path,
                    LoadBalancerHealthSpec& h) {
  if (!r.object(value, path, keys("loadBalancerHealthCheck"), "the load balancer's health check")) {
    return;
  }
  read_bool_field(r, value, path, "enabled", h.enabled);
  read_duration_field(r, value, path, "interval", DurationSign::positive, h.interval);
  for (const auto& [key, field] : {std::pair{"fall", &h.fall}, std::pair{"rise", &h.rise}}) {
    const Json* v = JsonReader::field(value, key);
    if (v == nullptr) continue;
    if (auto n = r.integer(*v, JsonReader::key_path(path, key), 1, 100)) *field = static_cast<int>(*n);
  }
}

// "nodes", or every declared node but the store. Nullopt if they are not known.
std::optional<std::vector<std::string>> read_cp_nodes(Context& c, const Json& object,
                                                      const std::string& path) {
  JsonReader& r = c.reader;
  const std::string store = store_node_name(c);
  const Json* v = JsonReader::field(object, "nodes");
  if (v == nullptr) {
    if (!c.nodes.known) return std::nullopt;
    std::vector<std::string> nodes;
    for (const std::string& name : c.nodes.names) {
      if (name != store) nodes.push_back(name);
    }
    if (nodes.empty()) {
      r.error(path, "the control plane has no nodes: by default it runs on every node but \"" +
                        store +
                        "\" (the ideal store's), and there is no other node; add nodes such as "
                        "{\"name\": \"cp-1\"} to \"nodes\"");
      return std::nullopt;
    }
    return nodes;
  }
  const std::string at = JsonReader::key_path(path, "nodes");
  auto list = r.string_list(*v, at, "control-plane node names");
  if (!list) return std::nullopt;
  bool ok = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string item = JsonReader::index_path(at, i);
    if ((*list)[i] == store) {
      r.error(item, "\"" + store +
                        "\" is the ideal store's node and cannot also be a control-plane node; "
                        "remove it from the list, or name the control-plane node differently");
      ok = false;
    } else {
      ok = check_node(c, (*list)[i], item) && ok;
    }
  }
  if (!ok || !c.nodes.known) return std::nullopt;
  return list;
}

// "coordination": how Coordinated Leader Election (KEP-4355) elects.
void read_coordination(JsonReader& r, const Json& value, const std::string& path,
                       CoordinationSpec& spec) {
  if (!r.object(value, path, keys("coordination"), "the coordinated leader election settings")) {
    return;
  }
  if (const Json* v = JsonReader::field(value, "strategy")) {
    const std::string at = JsonReader::key_path(path, "strategy");
    if (const auto strategy = r.string(*v, at)) {
      static const std::vector<std::string> kStrategies{
          std::string(election::kOldestEmulationVersion), "priority"};
      if (*strategy == kStrategies[0] || *strategy == kStrategies[1]) {
        spec.priority = *strategy == kStrategies[1];
      } else {
        r.error(at, "unknown strategy \"" + *strategy + "\"" +
                        did_you_mean(*strategy, kStrategies) +
                        "; use \"OldestEmulationVersion\" (upstream's only built-in strategy: "
                        "the lowest emulation version leads, then the lowest binary version, then "
                        "the oldest candidate; the default) or \"priority\" (the Priority field "
                        "proposed in KEP-4355 PR #5357, not upstream: the highest priority leads, "
                        "OldestEmulationVersion decides among equals)");
      }
    }
  }
  if (const Json* v = JsonReader::field(value, "fallbackAfter")) {
    spec.fallbackAfter =
        r.duration(*v, JsonReader::key_path(path, "fallbackAfter"), DurationSign::positive);
  }
  read_duration_field(r, value, path, "candidateRenewInterval", DurationSign::positive,
                      spec.candidateRenewInterval);
  // The election controller runs inside each kube-apiserver under a classic client-go
  // LeaderElector (RunWithLeaderElection) timed by these flags, so NewLeaderElector's checks
  // apply; read in any sign so that they say what is wrong.
  const std::size_t before = r.error_count();
  read_duration_field(r, value, path, "leaseDuration", DurationSign::any, spec.leaseDuration);
  read_duration_field(r, value, path, "renewDeadline", DurationSign::any, spec.renewDeadline);
  read_duration_field(r, value, path, "retryPeriod", DurationSign::any, spec.retryPeriod);
  if (r.error_count() != before) return;
  ElectionSpec timings;
  timings.leaseDuration = spec.leaseDuration;
  timings.renewDeadline = spec.renewDeadline;
  timings.retryPeriod = spec.retryPeriod;
  check_election(r, value, path, timings,
                 " (these are kube-apiserver's --coordinated-leadership-lease-duration, "
                 "-renew-deadline and -retry-period: the timings of the leader election the "
                 "apiservers hold among themselves for the election controller)");
}

// "election": "lease" | "coordinated" | "mixed" into `mode`; false if given and invalid.
bool read_election_mode(JsonReader& r, const Json& value, const std::string& path,
                        ElectionMode& mode) {
  const auto text = r.string(value, path);
  if (!text) return false;
  const std::vector<std::string>& names = election_mode_names();
  const auto it = std::find(names.begin(), names.end(), *text);
  if (it != names.end()) {
    mode = static_cast<ElectionMode>(it - names.begin());
    return true;
  }
  r.error(path, "unknown election mode \"" + *text + "\"" + did_you_mean(*text, names) +
                    "; use \"lease\" (client-go's race for the Lease, no election controller; "
                    "the default), \"coordinated\" (KEP-4355 Coordinated Leader Election: each "
                    "component publishes a LeaseCandidate and the kube-apiservers' election "
                    "controller picks the leader) or \"mixed\" (during an upgrade, instances at "
                    "the newer version are coordinated and the older ones lease-based)");
  return false;
}

}  // namespace

std::string neighbour_minor(const election::SemVer& v, bool up) {
  if (!up && v.minor == 0) return "";
  return std::to_string(v.major) + "." + std::to_string(up ? v.minor + 1 : v.minor - 1) + ".0";
}

std::optional<election::SemVer> read_version(JsonReader& r, const Json& value,
                                             const std::string& path, std::string& target) {
  const auto text = r.string(value, path);
  if (!text) return std::nullopt;
  if (auto parsed = election::parse_semver(*text)) {
    target = *text;
    return parsed;
  }
  // ParseTolerant is what the election controller applies; strict Parse is what API
  // validation of a LeaseCandidate demands, so a scenario must already be in that form.
  const auto tolerant = election::parse_semver_tolerant(*text);
  const std::string found = JsonReader::describe(value);
  if (tolerant && !text->empty() && (text->front() == 'v' || text->front() == 'V')) {
    r.error(path,
            "expected a Kubernetes version MAJOR.MINOR.PATCH without a leading \"v\", found " +
                found + "; write \"" + election::to_string(*tolerant) + "\"");
  } else if (tolerant) {
    r.error(path,
            "expected a Kubernetes version MAJOR.MINOR.PATCH in strict semver (all three "
            "parts, no leading zeros or spaces), found " +
                found + "; write \"" + election::to_string(*tolerant) + "\"");
  } else {
    r.error(path,
            "expected a Kubernetes version MAJOR.MINOR.PATCH in strict semver, such as "
            "\"1.31.0\" or \"1.32.0-rc.1\" (no leading \"v\", no leading zeros), found " +
                found);
  }
  return std::nullopt;
}

std::string store_node_name(const Context& c) {
  return std::string(c.options.legacy_store_node ? kLegacyStoreNode : kStoreNode);
}

void add_store_node(Context& c, const Json& section) {
  // A control plane on etcd members has no ideal store, and so no node for it.
  if (stands_on_raft_etcd(c, section)) return;
  const std::string store = store_node_name(c);
  if (c.nodes.zone_of.count(store) == 0) {
    c.scenario.nodes.push_back(store_node_spec(store));
    c.nodes.names.push_back(store);
    c.nodes.zone_of.emplace(store, "");
    c.nodes.disks_of[store] = {std::string(kDefaultDisk)};
  }
  // A declared store node keeps its zone and clock, and takes the store's stream name.
  for (NodeSpec& node : c.scenario.nodes) {
    if (node.name == store) node.stream_name = std::string(kLegacyStoreNode);
  }
}

void read_control_plane(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  ControlPlaneNotes& notes = c.notes.set(ControlPlaneNotes{});
  if (!r.object(value, path, keys("controlPlane"), "the control plane")) {
    add_store_node(c, value);
    return;
  }
  ControlPlaneSpec spec;
  spec.scheduler.releaseOnCancel = true;  // kube-scheduler sets ReleaseOnCancel; KCM does not
  spec.storeNode = store_node_name(c);
  notes.nodes = read_cp_nodes(c, value, path);
  if (notes.nodes) spec.nodes = *notes.nodes;
  add_store_node(c, value);
  read_cp_etcd(c, value, path, spec);

  const Json* version = JsonReader::field(value, "version");
  notes.version = election::parse_semver(spec.version);  // the default
  HASIM_ASSERT(notes.version.has_value());
  if (version != nullptr) {
    notes.version = read_version(r, *version, JsonReader::key_path(path, "version"), spec.version);
  }
  if (const Json* v = JsonReader::field(value, "emulationVersion")) {
    const std::string at = JsonReader::key_path(path, "emulationVersion");
    notes.emulation_version = read_version(r, *v, at, spec.emulationVersion);
    if (notes.emulation_version && notes.version &&
        election::compare(*notes.emulation_version, *notes.version) > 0) {
      r.error(at, "emulationVersion " + spec.emulationVersion +
                      " is newer than the binary version " + spec.version +
                      (version == nullptr ? " (the default \"version\")" : "") +
                      ": a component can emulate only its own version or an older one "
                      "(LeaseCandidate validation rejects an emulationVersion above the "
                      "binaryVersion); lower emulationVersion, raise \"version\", or leave "
                      "emulationVersion out to emulate the binary version");
    }
  }
  const Json* election_json = JsonReader::field(value, "election");
  bool election_ok = true;
  if (election_json != nullptr) {
    election_ok = read_election_mode(r, *election_json, JsonReader::key_path(path, "election"),
                                     spec.election);
  }
  if (election_ok && spec.election == ElectionMode::mixed && !c.has("upgrade")) {
    std::string example = "\"1.32.0\"";
    if (notes.version) example = "\"" + neighbour_minor(*notes.version, true) + "\"";
    r.error(JsonReader::key_path(path, "election"),
            "election \"mixed\" needs an \"upgrade\": in mixed mode the instances whose binary "
            "is the newer of the two versions (controlPlane.version and upgrade.to) elect "
            "coordinated and the older ones lease-based, so without an upgrade there is only one "
            "version; add \"upgrade\": {\"to\": " +
                example +
                "}, or use \"lease\" or \"coordinated\" for a control plane at one version");
  }
  if (const Json* v = JsonReader::field(value, "coordination")) {
    const std::string at = JsonReader::key_path(path, "coordination");
    read_coordination(r, *v, at, spec.coordination);
    if (election_ok && spec.election == ElectionMode::lease) {
      r.error(at, std::string("coordination settings take effect only with Coordinated Leader "
                              "Election, but \"election\" is \"lease\"") +
                      (election_json == nullptr ? " (the default)" : "") +
                      "; set \"election\": \"coordinated\" (or \"mixed\" with an upgrade), or "
                      "remove \"coordination\"");
    }
  }
  if (const Json* v = JsonReader::field(value, "access")) {
    const std::string at = JsonReader::key_path(path, "access");
    if (const auto access = r.string(*v, at)) {
      static const std::vector<std::string> kAccess{"local", "loadBalancer"};
      if (*access == "local" || *access == "loadBalancer") {
        spec.loadBalancer = *access == "loadBalancer";
      } else {
        r.error(at, "unknown access \"" + *access + "\"" + did_you_mean(*access, kAccess) +
                        "; use \"local\" (each component talks to the kube-apiserver on its own "
                        "node, the default) or \"loadBalancer\" (to any kube-apiserver through "
                        "a load balancer)");
      }
    }
  }
  if (const Json* v = JsonReader::field(value, "loadBalancerHealthCheck")) {
    const std::string at = JsonReader::key_path(path, "loadBalancerHealthCheck");
    read_lb_health(r, *v, at, spec.loadBalancerHealthCheck);
    if (!spec.loadBalancer) {
      r.error(at, "a load balancer health check needs \"access\": \"loadBalancer\" (with "
                  "\"local\" access, the default, each component talks to its own node's "
                  "kube-apiserver and no balancer checks anything); set \"access\": "
                  "\"loadBalancer\" or remove \"loadBalancerHealthCheck\"");
    }
  }
  read_duration_field(r, value, path, "requestTimeout", DurationSign::positive,
                      spec.requestTimeout);
  if (const Json* v = JsonReader::field(value, "apiserverLatency")) {
    if (auto d = r.distribution(*v, JsonReader::key_path(path, "apiserverLatency"))) {
      spec.apiserverLatency = *d;
    }
  }
  if (const Json* v = JsonReader::field(value, "watchLag")) {
    if (auto d = r.distribution(*v, JsonReader::key_path(path, "watchLag"))) spec.watchLag = *d;
  }
  if (const Json* v = JsonReader::field(value, "components")) {
    read_components(r, *v, JsonReader::key_path(path, "components"), spec, c.has("upgrade"));
  }
  if (const Json* v = JsonReader::field(value, "kubelet")) {
    read_kubelet(r, *v, JsonReader::key_path(path, "kubelet"), spec.kubelet);
  }
  c.scenario.sections.set(std::move(spec));
}

}  // namespace hasim::scenario_loader

namespace hasim {
namespace {

// In the order of ElectionMode; the values of "controlPlane.election".
constexpr std::array<std::string_view, 3> kElectionModeNames{"lease", "coordinated", "mixed"};
static_assert(kElectionModeNames.size() == static_cast<std::size_t>(ElectionMode::mixed) + 1);

}  // namespace

NodeSpec store_node_spec(std::string_view name) {
  // Issue 11 part 5 renamed the store's node from "etcd" to "store"; its random streams keep
  // the old name, so every seed draws exactly what it drew before the rename.
  return NodeSpec{std::string(name), "", {}, {}, std::string(kLegacyStoreNode)};
}

std::string_view to_string(ElectionMode mode) {
  const auto index = static_cast<std::size_t>(mode);
  return index < kElectionModeNames.size() ? kElectionModeNames[index] : "unknown";
}

const std::vector<std::string>& election_mode_names() {
  static const std::vector<std::string> names(kElectionModeNames.begin(), kElectionModeNames.end());
  return names;
}

}  // namespace hasim
