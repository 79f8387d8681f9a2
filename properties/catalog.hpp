#pragma once
// The properties a scenario may name, with their argument and the assumptions they rest on,
// from every registered system (properties/check_system.hpp). A spec is "name" or "name:ARG"
// (ARG a duration bound where the property takes one).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/system.hpp"

namespace hasim {

struct PropertyInfo {
  std::string_view name;
  std::string_view argument;  // "" if none, else e.g. "BOUND" (a duration); "[BOUND]": optional
  std::string_view summary;
  std::string_view assumes;
};

const std::vector<PropertyInfo>& property_catalog();

// validate_property_spec (declared in scenarios/system.hpp, for the loader) is defined with
// the catalog: nullopt if `spec` names a known property with a well-formed argument,
// otherwise an error sentence (with a did-you-mean when a known name is close).

}  // namespace hasim
