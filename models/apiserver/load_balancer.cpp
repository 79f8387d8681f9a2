#include "models/apiserver/load_balancer.hpp"

#include "sim/assert.hpp"

namespace hasim::api {

LoadBalancerHealth::LoadBalancerHealth(std::vector<std::string> backends, HealthCheckConfig config)
    : config_(config) {
  HASIM_ASSERT(!backends.empty());
  HASIM_ASSERT(config_.interval.ns > 0 && config_.fall >= 1 && config_.rise >= 1);
  for (std::string& name : backends) backends_.push_back(Backend{std::move(name), true, 0});
}

std::optional<bool> LoadBalancerHealth::observe(std::size_t backend, bool passed) {
  Backend& b = backends_.at(backend);
  if (passed == b.up) {
    b.streak = 0;
    return std::nullopt;
  }
  ++b.streak;
  const int needed = b.up ? config_.fall : config_.rise;
  HASIM_ASSERT(b.streak <= needed);
  if (b.streak < needed) return std::nullopt;
  b.up = passed;
  b.streak = 0;
  return b.up;
}

std::optional<std::size_t> LoadBalancerHealth::find(std::string_view name) const {
  for (std::size_t i = 0; i < backends_.size(); ++i) {
    if (backends_[i].name == name) return i;
  }
  return std::nullopt;
}

}  // namespace hasim::api
