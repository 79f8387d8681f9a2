#include "cli/output.hpp"

#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/app.hpp"
#include "scenarios/loader.hpp"

namespace hasim {

std::optional<std::string> read_text_file(const std::string& path) {
  std::error_code code;
  if (std::filesystem::is_directory(path, code)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<ScenarioArg> load_scenario_arg(const std::string& path, const char* builtin_name,
                                             const char* builtin_text, std::ostream& err) {
  const std::string source = path.empty() ? builtin_name : path;
  const auto text = path.empty() ? std::optional<std::string>(builtin_text) : read_text_file(path);
  if (!text) {
    err << "hasim: cannot read the scenario file " << path << "\n";
    return std::nullopt;
  }
  LoadResult load = load_scenario_text(*text, source);
  err << format_notes(load.notes, source);
  if (!load.scenario) {
    err << format_errors(load.errors, source);
    return std::nullopt;
  }
  return ScenarioArg{source, *text, std::move(*load.scenario)};
}

bool may_write(const std::string& path, bool force, std::ostream& err) {
  std::error_code code;
  if (force || !std::filesystem::exists(path, code)) return true;
  err << "hasim: " << path << " already exists; pass --force to overwrite it\n";
  return false;
}

std::string with_thousands(std::uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

namespace {
std::string rate(double value) {
  char buffer[32];
  if (value >= 1e6) {
    std::snprintf(buffer, sizeof buffer, "%.2f M", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(buffer, sizeof buffer, "%.1f k", value / 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  }
  return buffer;
}

// Each window of a property with more than an instant to show: start, end, length; a long
// run's list is cut after a few (the summary line has the totals).
void print_windows(std::ostream& out, const std::vector<ViolationWindow>& windows) {
  constexpr std::size_t kShown = 5;
  const bool instants = std::all_of(windows.begin(), windows.end(),
                                    [](const ViolationWindow& w) { return w.start == w.end; });
  if (instants) return;
  for (std::size_t i = 0; i < windows.size() && i < kShown; ++i) {
    const ViolationWindow& w = windows[i];
    out << "            window t=" << format_seconds(w.start.ns)
        << "s to t=" << format_seconds(w.end.ns) << "s (" << format_duration(w.end - w.start)
        << ")\n";
  }
  if (windows.size() > kShown) {
    out << "            ... " << windows.size() - kShown << " more windows\n";
  }
}
}  // namespace

void print_summary(const Scenario& scenario, const RunResult& result, std::ostream& out) {
  const double wall = result.wall_seconds > 1e-9 ? result.wall_seconds : 1e-9;
  const double simulated_s = static_cast<double>(result.simulated.ns) / 1e9;
  char wall_text[32];
  std::snprintf(wall_text, sizeof wall_text, "%.3f s", result.wall_seconds);
  out << "scenario    " << scenario.name << " (seed " << result.seed << ")\n";
  out << "simulated   " << format_duration(result.simulated) << "\n";
  out << "events      " << with_thousands(result.stats.events) << " in " << wall_text << " wall ("
      << rate(static_cast<double>(result.stats.events) / wall) << " events/s, "
      << with_thousands(static_cast<std::uint64_t>(simulated_s / wall)) << "x real time)\n";
  if (result.stats.status != RunStatus::completed) {
    out << "STOPPED     " << result.stats.problem << "\n";
  }
  out << "properties\n";
  for (std::size_t i = 0; i < result.property_specs.size(); ++i) {
    const auto& violation = result.violations[i];
    const std::vector<ViolationWindow>& windows = result.windows[i];
    out << (violation ? "  VIOLATED  " : "  held      ") << result.property_specs[i];
    // A bounded property (no-skew:BOUND) can hold with windows under its bound.
    if (!windows.empty()) out << " (" << describe_windows(summarize(windows)) << ")";
    out << "\n";
    print_windows(out, windows);
    for (const std::string& note : result.notes[i]) out << "            note: " << note << "\n";
    if (!violation) continue;
    out << "            at t=" << format_seconds(violation->at.ns) << "s: " << violation->detail
        << "\n";
    for (const std::string& cause : violation->causes)
      out << "            cause: " << cause << "\n";
  }
  if (result.property_specs.empty()) out << "  (none named in the scenario)\n";
  out << "trace       " << with_thousands(result.trace_events) << " events, hash "
      << format_hash(result.trace_hash) << "\n";
  const std::size_t violated = result.violated_count();
  out << "verdict     "
      << (violated == 0 ? std::string("all properties held")
                        : std::to_string(violated) + " of " +
                              std::to_string(result.property_specs.size()) + " properties violated")
      << "\n";
}

int verdict_exit_code(const RunResult& result) {
  return result.all_held() ? kExitHeld : kExitViolated;
}

}  // namespace hasim
