// hasim validate SCENARIO and hasim list.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/output.hpp"
#include "properties/catalog.hpp"
#include "properties/fault_space.hpp"
#include "reports/studies.hpp"
#include "sim/text.hpp"
#include "systems/registry.hpp"
#include "scenarios/loader.hpp"

namespace hasim {

int command_validate(const std::string& arg, std::ostream& out, std::ostream& err) {
  const ScenarioFile file = resolve_scenario_arg(arg);
  if (!file.error.empty()) {
    err << "hasim: " << file.error << "\n";
    return kExitBadInput;
  }
  const std::string& path = file.path;
  const LoadResult load = load_scenario_file(path);
  err << format_notes(load.notes, path);
  if (!load.scenario) {
    err << format_errors(load.errors, path);
    return kExitBadInput;
  }
  const Scenario& s = *load.scenario;
  out << path << ": ok: " << s.name << ", " << s.nodes.size() << " nodes, " << s.faults.size()
      << " faults, " << s.properties.size() << " properties, runs " << format_duration(s.duration)
      << " (seed " << s.seed << ")\n";
  return kExitHeld;
}

namespace {

// The built-in scenarios by name (what `hasim run NAME` takes), each with its description.
int list_scenarios(std::ostream& out, std::ostream& err) {
  const DataDirLookup data = find_data_dir(current_data_dir_inputs());
  if (data.dir.empty()) {
    err << "hasim: " << data.error << "\n";
    return kExitBadInput;
  }
  out << "Built-in scenarios (hasim run NAME; the files are in "
      << (data.dir / "scenarios").string() << "/):\n";
  for (const BuiltinScenario& scenario : builtin_scenarios(data.dir)) {
    const LoadResult load = load_scenario_file(scenario.file.string());
    out << "  " << scenario.name << "\n";
    if (load.scenario && !load.scenario->description.empty())
      out << "      " << load.scenario->description << "\n";
  }
  return kExitHeld;
}

}  // namespace

int command_list(std::ostream& out, std::ostream& err) {
  const int scenarios = list_scenarios(out, err);
  out << "\nSystems (systems/registry.cpp; \"section\" in a scenario):\n";
  for (const System& system : systems()) {
    out << "  " << system.name;
    if (!system.scenario->section.empty()) out << " (\"" << system.scenario->section << "\")";
    out << "\n      " << system.summary << "\n";
    std::vector<std::string> kinds;
    for (const FaultKind& kind : system.scenario->fault_kinds) kinds.emplace_back(kind.name);
    if (!kinds.empty()) out << "      fault kinds: " << join_words(kinds) << "\n";
    for (const RoleKind& role : system.scenario->roles) {
      out << "      role \"" << role.example << "\": " << role.meaning << "\n";
    }
  }
  out << "\nFault kinds hasim check draws (--kinds; each run enables a random subset):\n";
  for (const std::string& kind : fault_choice_names()) out << "  " << kind << "\n";
  out << "\nProperties (\"properties\" in a scenario):\n";
  for (const PropertyInfo& p : property_catalog()) {
    out << "  " << p.name;
    if (!p.argument.empty() && p.argument.front() == '[') {
      out << "[:" << p.argument.substr(1);  // "no-skew[:BOUND]": the bound may be left out
    } else if (!p.argument.empty()) {
      out << ":" << p.argument;
    }
    out << "\n      " << p.summary << "\n      assumes: " << p.assumes << "\n";
  }
  out << "\nStudies (hasim report STUDY; hasim report STUDY --help):\n" << study_list_text();
  return scenarios;
}

int command_fuzz_dictionary(std::ostream& out) {
  std::size_t n = 0;
  for (const std::string& word : scenario_dictionary()) {
    out << "registry_" << n++ << "=\"\\\"" << word << "\\\"\"\n";
  }
  return kExitHeld;
}

}  // namespace hasim
