// Lookups over the registered systems (the list is systems/registry.cpp).
#include "scenarios/system.hpp"

#include <set>

#include "scenarios/loader.hpp"
#include "sim/assert.hpp"

namespace hasim {

const FaultKind* find_fault_kind(std::string_view name) {
  for (const ScenarioSystem* system : scenario_systems()) {
    for (const FaultKind& kind : system->fault_kinds) {
      if (kind.name == name) return &kind;
    }
  }
  return nullptr;
}

const FaultKind& fault_kind(const FaultSpec& spec) {
  const FaultKind* kind = find_fault_kind(spec.kind);
  HASIM_ASSERT(kind != nullptr);  // the loader (or the generator) named a registered kind
  return *kind;
}

const std::vector<std::string>& fault_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    std::set<std::string_view> seen;
    for (const ScenarioSystem* system : scenario_systems()) {
      for (const FaultKind& kind : system->fault_kinds) {
        HASIM_ASSERT(seen.insert(kind.name).second);  // one kind, one system
        out.emplace_back(kind.name);
      }
    }
    return out;
  }();
  return names;
}

const RoleKind* find_role_kind(std::string_view role) {
  const std::string_view name = role.substr(0, role.find(':'));
  for (const ScenarioSystem* system : scenario_systems()) {
    for (const RoleKind& kind : system->roles) {
      if (kind.name == name) return &kind;
    }
  }
  return nullptr;
}

std::vector<std::string> role_kind_names() {
  std::vector<std::string> out;
  for (const ScenarioSystem* system : scenario_systems()) {
    for (const RoleKind& kind : system->roles) out.emplace_back(kind.name);
  }
  return out;
}

std::vector<std::string> scenario_dictionary() {
  std::set<std::string> words;  // sorted, unique: the file is stable
  for (const KeySet& set : scenario_key_sets()) {
    words.insert(set.keys.begin(), set.keys.end());
  }
  for (const ScenarioSystem* system : scenario_systems()) {
    if (!system->section.empty()) words.emplace(system->section);
    words.insert(system->dictionary.begin(), system->dictionary.end());
    for (const FaultKind& kind : system->fault_kinds) words.emplace(kind.name);
    for (const RoleKind& role : system->roles) words.emplace(role.example);
  }
  return {words.begin(), words.end()};
}

}  // namespace hasim
