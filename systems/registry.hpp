#pragma once
// The system registry: every modelled system, registered once, in one explicit list
// (registry.cpp). A system is its scenario half (scenarios/system.hpp: section, build, fault
// kinds) and its check half (properties/check_system.hpp: properties, fault choices,
// assumptions). The rest of hasim walks the list; nothing else names a system.
//
// Adding a system: write its halves in its own folders (models/NAME/, scenarios/NAME/,
// properties/NAME/), add one line to the list, and its section to scenarios/schema.json.
#include <string_view>
#include <vector>

#include "properties/check_system.hpp"
#include "scenarios/system.hpp"

namespace hasim {

struct System {
  std::string_view name;
  std::string_view summary;  // one line, for `hasim list`
  const ScenarioSystem* scenario;
  const CheckSystem* check;
};

// In registry order: the order sections are read and built, processes numbered and fault
// choices offered, so it is part of every trace; append new systems at the end.
const std::vector<System>& systems();

}  // namespace hasim
