#pragma once
// A scenario's system sections ("controlPlane", "upgrade", "heartbeat", ...), each the
// validated spec of one registered system (scenarios/system.hpp), held by value so that a
// copied Scenario can be changed without touching the original. The core Scenario does not
// know the spec types: a system's own header defines its spec with
//   static constexpr std::string_view kSection = "controlPlane";
// and reads it back with scenario.section<Spec>(). Adding a system adds no field here.
#include <any>
#include <map>
#include <string>
#include <string_view>

#include "sim/assert.hpp"

namespace hasim {

class Sections {
 public:
  template <typename Spec>
  const Spec* get() const {
    const auto it = specs_.find(Spec::kSection);
    if (it == specs_.end()) return nullptr;
    const Spec* spec = std::any_cast<Spec>(&it->second);
    HASIM_ASSERT(spec != nullptr);  // one spec type per section name
    return spec;
  }
  template <typename Spec>
  Spec* get() {
    return const_cast<Spec*>(static_cast<const Sections&>(*this).get<Spec>());
  }
  template <typename Spec>
  Spec& set(Spec spec) {
    auto& slot = specs_[std::string(Spec::kSection)];
    slot = std::move(spec);
    return *std::any_cast<Spec>(&slot);
  }
  template <typename Spec>
  void erase() {
    specs_.erase(std::string(Spec::kSection));
  }
  bool has(std::string_view section) const { return specs_.find(section) != specs_.end(); }

 private:
  std::map<std::string, std::any, std::less<>> specs_;  // ordered: never iterated by hash
};

}  // namespace hasim
