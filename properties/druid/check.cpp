// etcd-druid's check half (properties/check_system.hpp). Its properties (status-truth,
// pdb-safe, no-superfluous-members, quorum-recovery over druid) and fault choices come with
// the next parts of issue 17; the system registers now so its scenarios load and run.
#include "properties/druid/check.hpp"

namespace hasim {

const CheckSystem& druid_check_system() {
  static const CheckSystem system{"etcd-druid", {}, {}};
  return system;
}

}  // namespace hasim
