#pragma once
// edge-converges:BOUND (KubeEdge CloudCore delivery, models/cloudcore/delivery.hpp): once
// faults have healed, every edge node's local store equals what the cloud wants on it within
// BOUND: each pod bound to it at the cloud's resourceVersion, each ConfigMap and Secret its
// pods reference (or it holds) at the cloud's resourceVersion, nothing the cloud deleted or
// moved away. Each (edge node, object) that differs starts a clock when it starts to differ;
// it must agree again within BOUND of that instant or of the last fault's healing, whichever
// is later. A store that replaces a version by an older one (a stale overwrite) is a
// violation at once. The cloud's wants come from the workload's trace events
// ("edge-workload"), the stores from MetaManager's ("metamanager-apply").
// Assumes what hot standby v1.5 needs to deliver: an edge never silently unreachable for the
// whole resend window (5 writes, 25s) of a new object, since a message given up is lost
// until the object changes again.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/faults_in_force.hpp"
#include "properties/property.hpp"

namespace hasim {

class EdgeConverges final : public Property {
 public:
  EdgeConverges(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

  // For a study's convergence time (reports/cloudcore_trial.cpp): how many (edge node, object)
  // pairs differ now, and when the last difference ended (meaningful while none differs; the
  // run's start if none ever did).
  std::size_t differing() const { return differs_.size(); }
  TrueTime agreeing_since() const { return agreeing_since_; }

 private:
  // Edge nodes and objects ("Pod default/x") by a number: the maps below compare integers.
  using Id = std::uint32_t;
  using Key = std::pair<Id, Id>;  // (edge node, object)
  struct CloudObject {
    bool exists = false;
    std::int64_t rv = 0;
    Id node = 0;                  // a pod's edge node
    std::vector<Id> references;   // a pod's ConfigMaps and Secrets
  };
  Id id(std::string_view name);
  void on_workload(const TraceEvent& event);
  void on_apply(const TraceEvent& event);
  void reference(const CloudObject& pod, int delta);
  void recheck(Id edge, Id object, TrueTime now);
  bool consistent(Id edge, Id object) const;
  void check(TrueTime now);
  std::string explain(const Key& key) const;

  Duration bound_;
  FaultsInForce faults_;
  std::map<std::string, Id, std::less<>> ids_;
  std::vector<std::string> names_;     // by id
  std::vector<bool> is_pod_;           // by id
  std::vector<CloudObject> cloud_;     // by object id
  std::map<Key, std::int64_t> stores_;  // what each edge holds, at which resourceVersion
  // (object, edge): how many of the edge's pods reference the ConfigMap or Secret.
  std::map<std::pair<Id, Id>, int> referenced_;
  std::map<Id, std::set<Id>> held_by_;  // the edges holding a ConfigMap or Secret
  std::map<Key, TrueTime> differs_;     // since when
  std::set<std::pair<TrueTime, Key>> by_since_;
  TrueTime agreeing_since_{};
};

}  // namespace hasim
