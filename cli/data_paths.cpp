// Finding hasim's data: see data_paths.hpp.
#include "cli/data_paths.hpp"

#include <sys/auxv.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "sim/did_you_mean.hpp"

// CMake defines both for this file; the fallbacks keep other builds (fuzzing, tools) working.
#ifndef HASIM_INSTALL_DATA_REL
#define HASIM_INSTALL_DATA_REL "../share/hasim"
#endif
#ifndef HASIM_SOURCE_DIR
#define HASIM_SOURCE_DIR ""
#endif

namespace hasim {
namespace fs = std::filesystem;

namespace {

bool holds_scenarios(const fs::path& dir) {
  std::error_code code;
  return !dir.empty() && fs::is_directory(dir / "scenarios", code);
}

// "scenarios/election/leader-crash.json" -> "election/leader-crash": a path copied from the
// README, or a name with its extension, means the same built-in scenario.
std::string normalized_name(std::string name) {
  if (name.starts_with("scenarios/")) name.erase(0, 10);
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  return name;
}

std::string short_name(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// Up to five names close to NAME: within the edit distance "did you mean" uses (on the full or
// the short name), or containing it ("crash" finds every crash scenario); closest first.
std::vector<std::string> close_names(const std::string& name,
                                     const std::vector<BuiltinScenario>& scenarios) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const BuiltinScenario& s : scenarios) {
    const std::size_t distance =
        std::min(edit_distance(name, s.name), edit_distance(name, short_name(s.name)));
    const bool contains = name.size() >= 3 && s.name.find(name) != std::string::npos;
    if (distance <= limit || contains) ranked.emplace_back(contains ? 0 : distance, s.name);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) names.push_back(ranked[i].second);
  return names;
}

// This program's file: /proc/self/exe, or where /proc is not mounted (a bare chroot, some
// containers) the path execve was given, from the auxiliary vector, resolved against the
// working directory, which hasim never changes. Empty if neither is known.
fs::path executable_path() {
  std::error_code code;
  fs::path path = fs::read_symlink("/proc/self/exe", code);
  if (!code) return path;
  const auto* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  if (execfn == nullptr) return {};
  path = fs::weakly_canonical(execfn, code);
  return code ? fs::path() : path;
}

}  // namespace

DataDirInputs current_data_dir_inputs() {
  DataDirInputs inputs;
  const char* env = std::getenv("HASIM_DATA_DIR");
  if (env != nullptr && *env != '\0') inputs.env = env;
  inputs.executable = executable_path();
  inputs.install_data = HASIM_INSTALL_DATA_REL;
  inputs.source_dir = HASIM_SOURCE_DIR;
  return inputs;
}

DataDirLookup find_data_dir(const DataDirInputs& inputs) {
  if (inputs.env) {
    if (holds_scenarios(*inputs.env)) return {*inputs.env, ""};
    return {{},
            "$HASIM_DATA_DIR is \"" + *inputs.env +
                "\", which has no scenarios/ folder; set it to the folder that holds hasim's "
                "scenarios/ (PREFIX/share/hasim for an installed hasim), or unset it"};
  }
  fs::path installed;
  if (!inputs.executable.empty())
    installed = (inputs.executable.parent_path() / inputs.install_data).lexically_normal();
  if (holds_scenarios(installed)) return {installed, ""};
  if (holds_scenarios(inputs.source_dir)) return {inputs.source_dir, ""};
  return {{},
          "hasim's scenarios/ folder is neither in " +
              (installed.empty() ? std::string("share/hasim beside the executable")
                                 : installed.string()) +
              " nor in the source tree " + inputs.source_dir.string() +
              "; install hasim with `cmake --install` (or its .deb), or set $HASIM_DATA_DIR to "
              "the folder that holds scenarios/"};
}

std::vector<BuiltinScenario> builtin_scenarios(const fs::path& data_dir) {
  std::vector<BuiltinScenario> scenarios;
  const fs::path root = data_dir / "scenarios";
  std::error_code code;
  for (auto it = fs::recursive_directory_iterator(root, code);
       !code && it != fs::recursive_directory_iterator(); it.increment(code)) {
    const fs::path& file = it->path();
    if (file.extension() != ".json" || file.filename() == "schema.json") continue;
    if (!it->is_regular_file(code)) continue;
    std::string name = file.lexically_relative(root).replace_extension().generic_string();
    scenarios.push_back({std::move(name), file});
  }
  std::sort(scenarios.begin(), scenarios.end(),
            [](const BuiltinScenario& a, const BuiltinScenario& b) { return a.name < b.name; });
  return scenarios;
}

NameMatch match_scenario_name(const std::string& name,
                              const std::vector<BuiltinScenario>& scenarios) {
  const std::string wanted = normalized_name(name);
  std::vector<const BuiltinScenario*> found;
  for (const BuiltinScenario& s : scenarios) {
    if (s.name == wanted) return {s, ""};
    if (short_name(s.name) == wanted) found.push_back(&s);
  }
  if (found.size() == 1) return {*found.front(), ""};
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const BuiltinScenario* s : found) names.push_back(s->name);
    return {std::nullopt, "\"" + name + "\" names " + std::to_string(names.size()) +
                              " built-in scenarios: " + joined(names) +
                              "; give the full name, e.g. " + names.front()};
  }
  const std::vector<std::string> close = close_names(wanted, scenarios);
  return {std::nullopt, "no scenario file or built-in scenario \"" + name + "\"" +
                            (close.empty() ? "" : " (close names: " + joined(close) + ")") +
                            "; give a scenario file's path, or a name `hasim list` shows"};
}

ScenarioFile resolve_scenario_arg(const std::string& arg) {
  // An existing file, and anything spelt as a path from "/", "." or "..", is a path: the
  // loader then reports a missing file as such.
  std::error_code code;
  if (arg.empty() || fs::exists(arg, code) || arg.starts_with('/') || arg.starts_with('.'))
    return {arg, ""};
  const DataDirLookup data = find_data_dir(current_data_dir_inputs());
  if (data.dir.empty())
    return {"", "no scenario file \"" + arg +
                    "\", and no built-in scenarios to look the name up in: " + data.error};
  const NameMatch match = match_scenario_name(arg, builtin_scenarios(data.dir));
  if (!match.scenario) return {"", match.error};
  return {match.scenario->file.string(), ""};
}

}  // namespace hasim
