#pragma once
// What a store's history check knows of the writes acknowledged to clients since the store
// last started over: read by a property that judges what a restore lost (the etcd history,
// properties/etcd_store/no_lost_write.hpp; the restores, properties/druid/restore_loss.hpp).
#include <cstdint>
#include <string>

namespace hasim {

class AcknowledgedWrites {
 public:
  virtual ~AcknowledgedWrites() = default;
  virtual std::int64_t acknowledged_revision() const = 0;  // 0: none
  virtual std::string acknowledged_by() const = 0;         // the call, described
};

}  // namespace hasim
