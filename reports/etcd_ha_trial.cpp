#include "reports/etcd_ha_trial.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "models/apiserver/trace_kinds.hpp"
#include "models/druid/trace_kinds.hpp"
#include "properties/property.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"
#include "sim/assert.hpp"
#include "sim/rng.hpp"

namespace hasim {
namespace {

using OJson = nlohmann::ordered_json;

constexpr std::string_view kWriter = "etcd-client";
constexpr const char* kZones[] = {"a", "b", "c"};
// A Poisson draw's bound: far beyond any mean the study accepts (StudyFlag checks <= 20).
constexpr int kMaxEventsPerKind = 200;

// The writer's calls as a user of the Etcd sees them: an outage runs from the invocation of
// a failed put invoked after the last success completed, to the completion of the next
// successful one. Restores: every acknowledged revision above the restored one is lost.
class WriteWatch final : public TraceObserver {
 public:
  bool wants(std::string_view kind) const override {
    return kind == api::trace_kind::kEtcdCall || kind == api::trace_kind::kEtcdCallEnd ||
           kind == druid::trace_kind::kRestore || kind == druid::trace_kind::kRunbook;
  }
  void on_event(const TraceEvent& e) override {
    if (e.kind == druid::trace_kind::kRunbook) {
      manual_ = true;
    } else if (e.kind == druid::trace_kind::kRestore) {
      if (e.string_field("outcome") != "restored") return;
      const std::int64_t restored = e.int_field("revision");
      lost_ += std::max<std::int64_t>(0, acknowledged_ - restored);
      acknowledged_ = restored;  // the history starts over from the restored revision
    } else if (e.kind == api::trace_kind::kEtcdCall) {
      if (e.string_field("client").find(kWriter) == std::string_view::npos) return;
      HASIM_ASSERT(invoked_.size() < 100'000);  // the writer's deadline bounds what is open
      invoked_[e.int_field("call")] = e.t;
    } else {
      end_call(e);
    }
  }
  // Closes an outage still open at `end` and returns every outage.
  const std::vector<std::pair<TrueTime, TrueTime>>& finish(TrueTime end) {
    if (open_) outages_.emplace_back(*open_, end);
    open_.reset();
    return outages_;
  }
  bool open() const { return open_.has_value(); }
  std::int64_t lost() const { return lost_; }
  bool manual() const { return manual_; }

 private:
  void end_call(const TraceEvent& e) {
    const auto it = invoked_.find(e.int_field("call"));
    if (e.string_field("client").find(kWriter) == std::string_view::npos) return;
    if (it == invoked_.end()) return;
    const TrueTime invoked = it->second;
    invoked_.erase(it);
    if (e.string_field("outcome") == "ok") {
      acknowledged_ = std::max(acknowledged_, e.int_field("revision"));
      last_success_ = e.t;
      if (open_) outages_.emplace_back(*open_, e.t);
      open_.reset();
      return;
    }
    // A put that completed after this one was invoked shows the Etcd still took writes then.
    if (!open_ && invoked >= last_success_) open_ = invoked;
  }

  std::map<std::int64_t, TrueTime> invoked_;
  std::optional<TrueTime> open_;
  TrueTime last_success_{};
  std::vector<std::pair<TrueTime, TrueTime>> outages_;
  std::int64_t acknowledged_ = 0;
  std::int64_t lost_ = 0;
  bool manual_ = false;
};

std::string worker_name(int index) { return "w-" + std::to_string(index + 1); }

// Members round-robin over the zones, then one spare per zone: a pod whose node is gone for
// good (evicted after the NotReady toleration) has somewhere to go in its own zone.
std::vector<std::pair<std::string, std::string>> workers(const EtcdHaCell& cell) {
  std::vector<std::pair<std::string, std::string>> out;
  const int count = cell.members + cell.zones;
  for (int i = 0; i < count; ++i) out.emplace_back(worker_name(i), kZones[i % cell.zones]);
  return out;
}

OJson scenario_json(const EtcdHaCell& cell, const EtcdHaSettings& settings) {
  OJson nodes = OJson::array(
      {{{"name", "cp-1"}, {"zone", "control"}}, {{"name", "s3"}, {"zone", "control"}}});
  OJson names = OJson::array();
  for (const auto& [name, zone] : workers(cell)) {
    nodes.push_back({{"name", name}, {"zone", zone}});
    names.push_back(name);
  }
  OJson druid = {{"replicas", cell.members},
                 {"workers", names},
                 {"antiAffinity", "hostname"},
                 {"storage", std::string(cell.storage == DruidStorage::persistent ? "persistent"
                                                                                  : "emptyDir")},
                 {"mode", std::string(to_string(cell.mode))},
                 {"backup", {{"storeNode", "s3"}, {"deltaSnapshotPeriod", "5m"}}},
                 {"writeRate", settings.writeRate}};
  std::string name = "etcd-ha-" + cell.name();
  std::replace(name.begin(), name.end(), '/', '_');
  return {{"name", name},
          {"seed", 1},
          {"duration", format_duration(settings.window)},
          {"nodes", nodes},
          {"network", {{"latency", "1ms"}}},
          {"controlPlane", {{"nodes", {"cp-1"}}, {"version", "1.31.0"}}},
          {"etcdDruid", druid},
          {"faults", OJson::array()},
          {"properties", {"no-lost-write"}}};
}

// Knuth's method: the count of events of a Poisson process with `mean` per window.
int poisson(Rng& rng, double mean) {
  HASIM_ASSERT(mean >= 0.0 && mean <= 20.0);
  const double limit = std::exp(-mean);
  double product = rng.unit();
  int count = 0;
  while (product > limit && count < kMaxEventsPerKind) {
    ++count;
    product *= rng.unit();
  }
  return count;
}

std::string pod_name(int ordinal) { return "etcd-main-" + std::to_string(ordinal); }

// The trial's faults, each kind from its own stream (a rate changed for one kind leaves the
// others' draws as they were).
OJson draw_faults(const EtcdHaCell& cell, const EtcdHaSettings& s, std::uint64_t seed) {
  const Rng root = Rng(seed).fork("etcd-ha-faults");
  const auto all = workers(cell);
  const std::int64_t span = (s.window - kEtcdHaSettle - kEtcdHaWarmUp).ns;
  HASIM_ASSERT(span > 0);
  OJson faults = OJson::array();
  auto at = [&](Rng& rng) {
    return format_duration(kEtcdHaWarmUp + Duration{static_cast<std::int64_t>(rng.below(span))});
  };
  Rng nodes = root.fork("node-failures");
  for (int n = poisson(nodes, s.nodeFailures); n > 0; --n) {
    const std::string when = at(nodes);
    faults.push_back({{"at", when},
                      {"kind", "node-down"},
                      {"node", all[nodes.below(all.size())].first},
                      {"for", format_duration(s.nodeDown)}});
  }
  Rng zones = root.fork("zone-outages");
  for (int n = poisson(zones, s.zoneOutages); n > 0; --n) {
    const std::string when = at(zones);
    const std::string zone = kZones[zones.below(static_cast<std::uint64_t>(cell.zones))];
    for (const auto& [name, z] : all) {
      if (z != zone) continue;
      faults.push_back({{"at", when},
                        {"kind", "node-down"},
                        {"node", name},
                        {"for", format_duration(s.zoneDown)}});
    }
  }
  const bool persistent = cell.storage == DruidStorage::persistent;
  Rng volumes = root.fork("volume-losses");
  for (int n = poisson(volumes, s.volumeLosses); n > 0; --n) {
    const std::string when = at(volumes);
    faults.push_back({{"at", when},
                      {"kind", persistent ? "druid-volume-loss" : "druid-pod-delete"},
                      {"pod", pod_name(static_cast<int>(volumes.below(cell.members)))}});
  }
  Rng store = root.fork("store-outages");
  for (int n = poisson(store, s.storeOutages); n > 0; --n) {
    const std::string when = at(store);
    faults.push_back(
        {{"at", when}, {"kind", "druid-backup-store-down"}, {"for", format_duration(s.storeDown)}});
  }
  Rng pods = root.fork("pod-deletions");
  for (int n = poisson(pods, s.podDeletions); n > 0; --n) {
    const std::string when = at(pods);
    faults.push_back({{"at", when},
                      {"kind", "druid-pod-delete"},
                      {"pod", pod_name(static_cast<int>(pods.below(cell.members)))}});
  }
  return faults;
}

Scenario load(const OJson& doc) {
  LoadResult loaded = load_scenario_text(doc.dump(), "etcd-ha study");
  if (!loaded.errors.empty()) {
    // A bug in scenario_json or draw_faults, never the user's input: say what was found.
    std::fputs(format_errors(loaded.errors, "etcd-ha study").c_str(), stderr);
  }
  HASIM_ASSERT(loaded.errors.empty() && loaded.scenario.has_value());
  return std::move(*loaded.scenario);
}

}  // namespace

std::string_view to_string(DruidStorage storage) {
  return storage == DruidStorage::persistent ? "persistent" : "ephemeral";
}

std::string_view to_string(druid::DruidMode mode) {
  return mode == druid::DruidMode::upstream ? "upstream" : "proposal";
}

std::string EtcdHaCell::name() const {
  return std::string(to_string(storage)) + "/" + std::string(to_string(mode)) + "/" +
         std::to_string(members) + "/" + std::to_string(zones) + (zones == 1 ? "-zone" : "-zones");
}

Scenario etcd_ha_study_scenario(const EtcdHaCell& cell, const EtcdHaSettings& settings) {
  HASIM_ASSERT(cell.members >= 1 && cell.zones >= 1 && cell.zones <= 3);
  return load(scenario_json(cell, settings));
}

EtcdHaTrial run_etcd_ha_trial(const Scenario& base, const EtcdHaCell& cell,
                              const EtcdHaSettings& settings, std::uint64_t seed,
                              TraceObserver* watcher) {
  OJson doc = scenario_json(cell, settings);
  OJson faults = draw_faults(cell, settings, seed);
  const std::int64_t drawn = static_cast<std::int64_t>(faults.size());
  if (cell.mode == druid::DruidMode::upstream) {
    faults.push_back({{"at", "0s"},
                      {"kind", "druid-quorum-loss-runbook"},
                      {"afterReadyFalse", format_duration(settings.operatorAfter)}});
  }
  doc["faults"] = faults;
  const Scenario scenario =
      drawn == 0 && cell.mode == druid::DruidMode::proposal ? base : load(doc);
  auto world = build_world(scenario, seed);
  world->trace().disable_hash();
  WriteWatch writes;
  std::unique_ptr<Property> no_lost_write = make_property("no-lost-write");
  world->trace().add_observer(&writes);
  world->trace().add_observer(no_lost_write.get());
  if (watcher != nullptr) world->trace().add_observer(watcher);
  const TrueTime end{settings.window.ns};
  world->run_until(end);
  no_lost_write->finish(end);
  EtcdHaTrial trial;
  trial.faults = drawn;
  std::set<std::string> lost;
  for (const OJson& f : faults) {
    const std::string kind = f.at("kind");
    trial.store_outage = trial.store_outage || kind == "druid-backup-store-down";
    const bool data = kind == "druid-volume-loss" ||
                      (kind == "druid-pod-delete" && cell.storage == DruidStorage::emptyDir);
    if (data) lost.insert(f.at("pod").get<std::string>());
  }
  trial.volumes_lost = static_cast<std::int64_t>(lost.size());
  trial.recovered = !writes.open();
  // The writer starts with the Etcd: the bootstrap's first seconds are not an outage.
  for (const auto& [from, to] : writes.finish(end)) {
    const TrueTime start = std::max(from, TrueTime{kEtcdHaWarmUp.ns});
    if (to <= start) continue;
    const Duration length = to - start;
    trial.unavailable = trial.unavailable + length;
    trial.longest_outage = std::max(trial.longest_outage, length);
  }
  trial.quorum_lost = trial.longest_outage >= kEtcdHaQuorumLoss;
  trial.revisions_lost = writes.lost();
  trial.loss_not_permitted = no_lost_write->violation().has_value();
  trial.manual = writes.manual();
  HASIM_ASSERT(trial.unavailable <= settings.window && trial.revisions_lost >= 0);
  return trial;
}

}  // namespace hasim
