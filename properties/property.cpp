#include "properties/property.hpp"

#include "properties/check_system.hpp"
#include "sim/assert.hpp"

namespace hasim {

void Property::violate(TrueTime at, std::string detail, std::vector<std::string> causes) {
  if (violation_) return;
  violation_ = Violation{spec_, at, std::move(detail), std::move(causes)};
}

std::string describe_event(const TraceEvent& event) {
  std::string out = "t=" + format_seconds(event.t.ns) + "s ";
  if (!event.node.empty()) out += std::string(event.node);
  if (!event.proc.empty()) out += "/" + std::string(event.proc);
  out += " " + std::string(event.kind);
  for (const TraceField& field : event.fields) {
    out += " " + std::string(field.key) + "=";
    if (const auto* text = std::get_if<std::string>(&field.value)) {
      out += *text;
    } else if (const auto* number = std::get_if<std::int64_t>(&field.value)) {
      out += std::to_string(*number);
    } else {
      out += std::get<bool>(field.value) ? "true" : "false";
    }
  }
  return out;
}

std::unique_ptr<Property> make_property(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  std::optional<Duration> bound;
  if (colon != std::string_view::npos) bound = parse_duration(spec.substr(colon + 1));
  for (const CheckSystem* system : check_systems()) {
    for (const PropertyDef& p : system->properties) {
      if (p.info.name == name) return p.make(std::string(spec), bound);
    }
  }
  HASIM_ASSERT(false && "make_property called with an unvalidated spec");
  return nullptr;
}

}  // namespace hasim
