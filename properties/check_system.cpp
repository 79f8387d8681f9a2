// Lookups over the registered systems' check halves (the list is systems/registry.cpp).
#include "properties/check_system.hpp"

#include <set>

#include "sim/assert.hpp"

namespace hasim {

// The registry is fixed at start-up, so the list is built once: `hasim check` looks choices
// up for every fault of every run.
const std::vector<const FaultChoiceDef*>& fault_choices() {
  static const std::vector<const FaultChoiceDef*> list = [] {
    std::vector<const FaultChoiceDef*> out;
    std::set<std::string_view> seen;
    for (const CheckSystem* system : check_systems()) {
      for (const FaultChoiceDef& choice : system->choices) {
        HASIM_ASSERT(seen.insert(choice.name).second);  // one choice, one system
        out.push_back(&choice);
      }
    }
    return out;
  }();
  return list;
}

const FaultChoiceDef* find_fault_choice(std::string_view name) {
  for (const CheckSystem* system : check_systems()) {
    for (const FaultChoiceDef& choice : system->choices) {
      if (choice.name == name) return &choice;
    }
  }
  return nullptr;
}

std::size_t fault_choice_index(std::string_view name) {
  const auto& choices = fault_choices();
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i]->name == name) return i;
  }
  HASIM_ASSERT(false && "unregistered fault choice");
  return choices.size();
}

}  // namespace hasim
