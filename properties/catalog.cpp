#include "properties/catalog.hpp"

#include "properties/check_system.hpp"

#include "sim/did_you_mean.hpp"
#include "sim/time.hpp"

namespace hasim {

const std::vector<PropertyInfo>& property_catalog() {
  static const std::vector<PropertyInfo> catalog = [] {
    std::vector<PropertyInfo> out;
    for (const CheckSystem* system : check_systems()) {
      for (const PropertyDef& p : system->properties) out.push_back(p.info);
    }
    return out;
  }();
  return catalog;
}

std::optional<std::string> validate_property_spec(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const PropertyInfo* info = nullptr;
  std::vector<std::string> names;
  for (const PropertyInfo& p : property_catalog()) {
    names.emplace_back(p.name);
    if (p.name == name) info = &p;
  }
  if (info == nullptr) {
    return "unknown property \"" + std::string(name) + "\"" + did_you_mean(name, names) +
           "; `hasim list` shows the known properties";
  }
  if (info->argument.empty()) {
    if (colon != std::string_view::npos) {
      return "property \"" + std::string(name) + "\" takes no argument; write \"" +
             std::string(name) + "\"";
    }
    return std::nullopt;
  }
  if (colon == std::string_view::npos) {
    if (info->argument.front() == '[') return std::nullopt;  // an optional bound, left out
    return "property \"" + std::string(name) + "\" needs a bound, e.g. \"" + std::string(name) +
           ":10s\"";
  }
  std::string error;
  const auto bound = parse_duration(spec.substr(colon + 1), &error);
  if (!bound) return "bound of \"" + std::string(spec) + "\": " + error;
  if (bound->ns <= 0) return "bound of \"" + std::string(spec) + "\" must be positive";
  return std::nullopt;
}

}  // namespace hasim
