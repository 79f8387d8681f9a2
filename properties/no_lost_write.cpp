#include "properties/no_lost_write.hpp"

namespace hasim {

StoreNoLostWrite::StoreNoLostWrite(std::string spec, linearizability::Limits limits)
    : Property(spec), journal_(spec), etcd_(spec, limits), druid_(spec, etcd_) {}

void StoreNoLostWrite::on_event(const TraceEvent& event) {
  if (journal_.wants(event.kind)) journal_.on_event(event);
  if (etcd_.wants(event.kind)) etcd_.on_event(event);
  if (druid_.wants(event.kind)) {
    const std::size_t restores = druid_.restores();
    druid_.on_event(event);
    if (druid_.restores() != restores) etcd_.new_history(event.t);
  }
  adopt(journal_);
  adopt(etcd_);
  adopt(druid_);
  adopt_notes(druid_);
}

void StoreNoLostWrite::finish(TrueTime end) {
  journal_.finish(end);
  etcd_.finish(end);
  adopt(journal_);
  adopt(etcd_);
  adopt(druid_);
}

// Property::violate keeps the first violation recorded: the earlier half's, event by event.
void StoreNoLostWrite::adopt(const Property& half) {
  if (violation().has_value() || !half.violation().has_value()) return;
  const Violation& v = *half.violation();
  violate(v.at, v.detail, v.causes);
}

}  // namespace hasim
