#include "models/cloudcore/service.hpp"

#include <iterator>

#include "sim/assert.hpp"

namespace hasim::cloudcore {

std::optional<std::string> ServiceEndpoints::pick(Rng& rng) const {
  if (ready_.empty()) return std::nullopt;
  auto it = ready_.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(rng.below(ready_.size())));
  return *it;
}

bool ServiceEndpoints::set_ready(const std::string& process, bool ready) {
  HASIM_ASSERT(!process.empty());
  if (!ready) return ready_.erase(process) > 0;
  HASIM_ASSERT(ready_.size() < kMaxEndpoints || ready_.contains(process));
  return ready_.insert(process).second;
}

}  // namespace hasim::cloudcore
