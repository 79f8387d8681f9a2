#pragma once
// no-lost-write, one property over every store a scenario's clients write to: the journal
// demo's (properties/journal/no_lost_write.hpp: a restarted journal recovers every write it
// acknowledged) and the etcd store's (properties/etcd_store/no_lost_write.hpp: the client
// history kube-apiservers see is linearizable). Issue 13 names the etcd check no-lost-write,
// and property names are one vocabulary across systems (tests/unit/test_registry.cpp), so
// one name reads both: each half judges only its own events and holds when there are none,
// and the first violation of either is the property's. A third half follows etcd-druid's
// restores (properties/druid/restore_loss.hpp): it notes what each lost and whether that was
// permitted, and the etcd history starts over with the restored cluster.
#include "properties/druid/restore_loss.hpp"
#include "properties/etcd_store/no_lost_write.hpp"
#include "properties/journal/no_lost_write.hpp"
#include "properties/property.hpp"

namespace hasim {

class StoreNoLostWrite final : public Property {
 public:
  explicit StoreNoLostWrite(std::string spec, linearizability::Limits limits = {});
  bool wants(std::string_view kind) const override {
    return journal_.wants(kind) || etcd_.wants(kind) || druid_.wants(kind);
  }
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;
  const EtcdNoLostWrite& etcd() const { return etcd_; }

 private:
  void adopt(const Property& half);

  NoLostWrite journal_;
  EtcdNoLostWrite etcd_;
  DruidRestoreLoss druid_;  // after etcd_, whose acknowledged writes it reads
};

}  // namespace hasim
