// hasim validate SCENARIO and hasim list.
#include <filesystem>
#include <ostream>
#include <set>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "properties/catalog.hpp"
#include "properties/fault_space.hpp"
#include "scenarios/loader.hpp"

namespace hasim {

int command_validate(const std::string& path, std::ostream& out, std::ostream& err) {
  const LoadResult load = load_scenario_file(path);
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

int command_list(std::ostream& out) {
  out << "Example scenarios (scenarios/examples/, scenarios/election/, scenarios/upgrade/, "
         "scenarios/check/):\n";
  std::set<std::string> names;  // sorted: directory order is not deterministic
  for (const char* folder : {"examples", "election", "upgrade", "check"}) {
    const std::filesystem::path dir =
        std::filesystem::path(HASIM_SOURCE_DIR) / "scenarios" / folder;
    std::error_code code;
    for (const auto& entry : std::filesystem::directory_iterator(dir, code)) {
      if (entry.path().extension() == ".json") names.insert(entry.path().string());
    }
  }
  for (const std::string& name : names) {
    const LoadResult load = load_scenario_file(name);
    out << "  " << name;
    if (load.scenario && !load.scenario->description.empty())
      out << "\n      " << load.scenario->description;
    out << "\n";
  }
  out << "\nFault kinds (\"kind\" in a scenario's faults):\n";
  for (const std::string& kind : fault_kind_names()) out << "  " << kind << "\n";
  out << "\nFault kinds hasim check draws (--kinds; each run enables a random subset):\n";
  for (const std::string& kind : fault_choice_names()) out << "  " << kind << "\n";
  out << "\nProperties (\"properties\" in a scenario):\n";
  for (const PropertyInfo& p : property_catalog()) {
    out << "  " << p.name << (p.argument.empty() ? "" : ":" + std::string(p.argument)) << "\n"
        << "      " << p.summary << "\n      assumes: " << p.assumes << "\n";
  }
  out << "\nReports (hasim report NAME):\n"
      << "  upgrade-skew\n      P(a node-by-node upgrade or rollback violates version skew) "
         "with leases, Coordinated\n      Leader Election and a mixed fleet, vs KEP-4355's "
         "25% and the uniform-race model;\n      --shard I/N and `hasim merge` split it "
         "across machines\n"
      << "  failover\n      time without a working leader after a leader crash, partition or "
         "pause, over trials, with dual-leader counts\n";
  return kExitHeld;
}

}  // namespace hasim
