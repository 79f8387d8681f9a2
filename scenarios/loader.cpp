#include "scenarios/loader.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"
#include "sim/assert.hpp"
#include "sim/clock.hpp"
#include "sim/int128.hpp"

namespace hasim {
namespace {

using namespace scenario_loader;

constexpr std::size_t kMaxDepth = 64;  // a valid scenario nests about 6 levels deep
constexpr std::uintmax_t kMaxFileBytes = 64u << 20;

std::string line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // count characters, not UTF-8 continuation bytes
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's parser is iterative, but its dump(), copies and comparisons recurse, so absurd
// nesting would overflow the stack. And it takes a NUL byte for the end of the input: a valid
// document followed by NUL and anything at all would be read without a word.
std::optional<std::string> check_nesting(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\0') {
      return "the file contains a NUL byte at " + line_column(text, i) +
             ", where a JSON parser stops reading; a scenario is UTF-8 text, so the file is "
             "corrupted or not a scenario (remove the NUL bytes)";
    }
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > kMaxDepth) {
        return "the JSON nests deeper than " + std::to_string(kMaxDepth) + " levels at " +
               line_column(text, i) +
               "; a scenario needs only a few levels, so look for "
               "unclosed brackets";
      }
    } else if ((ch == '}' || ch == ']') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::string parse_error_message(std::string_view text, const Json::exception& e) {
  std::string detail = e.what();
  if (const auto pos = detail.find("] "); pos != std::string::npos) detail.erase(0, pos + 2);
  if (const auto pos = detail.find("column "); pos != std::string::npos) {
    const auto colon = detail.find(": ", pos);
    if (colon != std::string::npos) detail.erase(0, colon + 2);
  }
  if (const auto* pe = dynamic_cast<const Json::parse_error*>(&e)) {
    const std::size_t offset = pe->byte > 0 ? std::min(pe->byte - 1, text.size()) : 0;
    const std::size_t before = text.find_last_not_of(" \t\r\n", offset == 0 ? 0 : offset - 1);
    std::string hint =
        "; look for a missing or extra comma, quote or bracket just before that point";
    if (detail.find("invalid literal") != std::string::npos) {
      hint = "; text such as names and durations must be in double quotes, e.g. \"10m\"";
    } else if (offset > 0 && offset < text.size() && (text[offset] == '}' || text[offset] == ']') &&
               before != std::string_view::npos && text[before] == ',') {
      hint = "; JSON allows no comma after the last item, so remove the one at " +
             line_column(text, before);
    }
    return "the file is not valid JSON: at " + line_column(text, offset) + ": " + detail + hint;
  }
  return "the file is not valid JSON: " + detail +
         "; numbers must fit in a 64-bit floating-point value (at most about 1.8e308)";
}

void read_properties(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.array(value, path, "[\"detect-crash:10s\", \"no-false-suspicion\"]")) return;
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = JsonReader::index_path(path, i);
    const auto spec = r.string(value[i], at);
    if (!spec) continue;
    if (auto problem = validate_property_spec(*spec)) {
      r.error(at, *problem);
    } else if (!seen.insert(*spec).second) {
      r.error(at, "property \"" + *spec + "\" is listed twice; list it once");
    } else {
      c.scenario.properties.push_back(*spec);
    }
  }
}

// How far from true time 0 a node's wall clock may read, either way: 1,000,000h (about 114
// years). With every duration at most kMaxScenarioDuration, a reading plus a few durations
// (a lease's renewTime plus its leaseDuration, a timer) stays within 64-bit nanoseconds.
constexpr std::int64_t kMaxClockReadingNs = 3'600'000'000'000'000'000;
constexpr std::int64_t kNsPerHour = 3'600'000'000'000;

std::string hours_text(Int128 ns) {
  return std::to_string(static_cast<long long>(ns / kNsPerHour)) + "h";
}

std::string rate_text(std::int64_t rate_ppb) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(rate_ppb) / kRatePerfect);
  return buffer;
}

// A node's wall clock reads at most |offset| + its clock steps + its fastest rate times the
// run's duration; checked once the rest of the file is valid (the steps and rates are known).
void check_clock_range(Context& c) {
  JsonReader& r = c.reader;
  if (r.failed() || !c.duration) return;
  const auto magnitude = [](Duration d) { return d.ns < 0 ? -static_cast<Int128>(d.ns) : d.ns; };
  for (std::size_t i = 0; i < c.scenario.nodes.size(); ++i) {
    const NodeSpec& node = c.scenario.nodes[i];
    Int128 steps = 0;
    std::int64_t rate = node.clock.rate_ppb;
    std::string step_path;  // the largest step's "by"
    Int128 largest_step = -1;
    for (std::size_t k = 0; k < c.scenario.faults.size(); ++k) {
      const FaultSpec& f = c.scenario.faults[k];
      if (std::find(f.targets.begin(), f.targets.end(), node.name) == f.targets.end()) continue;
      if (f.kind == "clock-step") {
        steps += magnitude(f.step);
        if (magnitude(f.step) > largest_step) {
          largest_step = magnitude(f.step);
          step_path = JsonReader::index_path("$.faults", k) + ".by";
        }
      }
      if (f.kind == "clock-rate") rate = std::max(rate, f.rate_ppb);
    }
    const Int128 offset = magnitude(node.clock.offset);
    const Int128 run = static_cast<Int128>(rate) * c.duration->ns / kRatePerfect;
    if (offset + steps + run <= kMaxClockReadingNs) continue;
    // The offset is at most kMaxScenarioDuration, so the steps or the rate carried it past.
    r.error(steps >= run ? step_path : "$.duration",
            "the wall clock of node \"" + node.name + "\" could read about " +
                hours_text(offset + steps + run) + " by the end of the run (offset " +
                short_duration(node.clock.offset) + ", clock steps adding up to " +
                hours_text(steps) + ", and its fastest rate " + rate_text(rate) +
                " over the duration " + short_duration(*c.duration) + " making " + hours_text(run) +
                "), beyond the 1000000h (about 114 years) a clock may read so that timers and "
                "leases fit 64-bit nanoseconds; shorten \"duration\", slow the clock (\"rate\", "
                "\"drift\" or clock-rate faults) or use a smaller offset or smaller clock steps");
  }
}

void read_scenario(Context& c, Json& doc) {
  JsonReader& r = c.reader;
  if (!doc.is_object()) {
    r.error("$", "expected the scenario to be a JSON object, found " + JsonReader::describe(doc) +
                     "; a scenario looks like {\"name\": \"demo\", \"duration\": \"10m\", "
                     "\"nodes\": 3}");
    return;
  }
  r.object(doc, "$", keys("scenario"), "the scenario");
  for (const ScenarioSystem* system : scenario_systems()) {
    if (!system->section.empty() && JsonReader::field(doc, system->section) != nullptr)
      c.present.emplace(system->section);
  }
  // Older forms of the file into today's, before anything reads it.
  for (const ScenarioSystem* system : scenario_systems()) {
    if (system->migrate != nullptr && c.has(system->section)) system->migrate(c, doc);
  }
  Scenario& s = c.scenario;
  if (const Json* v = JsonReader::field(doc, "$schema")) r.string(*v, "$.$schema");
  if (const Json* v = r.required(doc, "$", "name", "\"demo-heartbeat\"")) {
    if (auto name = r.string(*v, "$.name")) {
      check_name(r, *name, "$.name", "the scenario name");
      s.name = *name;
    }
  }
  if (const Json* v = JsonReader::field(doc, "description")) {
    if (auto text = r.string(*v, "$.description")) s.description = *text;
  }
  if (const Json* v = JsonReader::field(doc, "seed")) {
    if (auto seed = r.unsigned_integer(*v, "$.seed")) s.seed = *seed;
  }
  if (const Json* v = r.required(doc, "$", "duration", "\"10m\"")) {
    c.duration = r.duration(*v, "$.duration", DurationSign::positive);
    if (c.duration) s.duration = *c.duration;
  }
  if (const Json* v = r.required(doc, "$", "nodes", "3")) read_nodes(c, *v, "$.nodes");
  // Nodes a section adds (the store's), so links and faults may name them.
  for (const ScenarioSystem* system : scenario_systems()) {
    if (system->add_nodes == nullptr || !c.has(system->section)) continue;
    system->add_nodes(c, doc[std::string(system->section)]);
  }
  if (const Json* v = JsonReader::field(doc, "network")) read_network(c, *v, "$.network");
  // Sections in registry order: a system reads after those it builds on.
  for (const ScenarioSystem* system : scenario_systems()) {
    if (system->read == nullptr || !c.has(system->section)) continue;
    const std::string key(system->section);
    system->read(c, doc[key], "$." + key);
  }
  if (const Json* v = JsonReader::field(doc, "faults")) read_faults(c, *v, "$.faults");
  if (const Json* v = JsonReader::field(doc, "properties")) read_properties(c, *v, "$.properties");
  for (const ScenarioSystem* system : scenario_systems()) {
    if (system->cross_check != nullptr && c.has(system->section)) system->cross_check(c);
  }
  check_clock_range(c);
}

}  // namespace

std::optional<std::string> check_json_text(std::string_view text) { return check_nesting(text); }

LoadResult load_scenario_text(std::string_view json_text, std::string_view /*source_name*/,
                              const LoadOptions& options) {
  LoadResult result;
  if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    result.errors.push_back({"$",
                             "the file is empty; a scenario is a JSON object such as "
                             "{\"name\": \"demo\", \"duration\": \"10m\", \"nodes\": 3}"});
    return result;
  }
  if (auto problem = check_nesting(json_text)) {
    result.errors.push_back({"$", *problem});
    return result;
  }
  JsonReader reader;
  Scenario scenario;
  try {
    Json doc = Json::parse(json_text);
    Context context{reader, scenario, {}, {}, {}, {}, options};
    read_scenario(context, doc);
  } catch (const Json::exception& e) {
    reader.error("$", parse_error_message(json_text, e));
  } catch (const std::exception& e) {
    reader.error("$", std::string("could not read the scenario: ") + e.what());
  }
  for (JsonError& e : reader.errors()) {
    result.errors.push_back({std::move(e.path), std::move(e.message)});
  }
  for (JsonError& e : reader.notes()) {
    result.notes.push_back({std::move(e.path), std::move(e.message)});
  }
  if (result.errors.empty()) result.scenario = std::move(scenario);
  return result;
}

LoadResult load_scenario_file(const std::string& path) {
  LoadResult result;
  auto fail = [&](std::string message) {
    result.errors.push_back({"$", std::move(message)});
    return result;
  };
  try {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
      return fail("cannot read the scenario file: it does not exist; check the path");
    }
    if (std::filesystem::is_directory(status)) {
      return fail("cannot read the scenario file: it is a directory; name a .json file in it");
    }
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxFileBytes) {
      return fail("the scenario file is " + std::to_string(size) +
                  " bytes, more than the 64 MiB a scenario may have");
    }
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad()) {
      return fail(
          "cannot read the scenario file: permission denied or I/O error; check that "
          "it is a readable file");
    }
    return load_scenario_text(text, path);
  } catch (const std::exception& e) {
    return fail(std::string("cannot read the scenario file: ") + e.what());
  }
}

namespace {
std::string format_lines(const std::vector<ScenarioError>& items, std::string_view source_name,
                         std::string_view label) {
  std::string out;
  for (const ScenarioError& e : items) {
    out += std::string(source_name) + ": " + e.path + ": " + std::string(label) + e.message + "\n";
  }
  return out;
}
}  // namespace

std::string format_errors(const std::vector<ScenarioError>& errors, std::string_view source_name) {
  return format_lines(errors, source_name, "");
}

std::string format_notes(const std::vector<ScenarioError>& notes, std::string_view source_name) {
  return format_lines(notes, source_name, "note: ");
}

const std::vector<KeySet>& scenario_key_sets() {
  static const std::vector<KeySet> sets = [] {
    std::vector<std::string> top{"$schema",  "name",  "description", "seed",
                                 "duration", "nodes", "network"};
    std::vector<std::string> any_fault;  // "fault": every key of every kind, first seen first
    std::vector<KeySet> systems;
    for (const ScenarioSystem* system : scenario_systems()) {
      if (!system->section.empty()) top.emplace_back(system->section);
      for (const KeySet& set : system->key_sets) {
        systems.push_back(set);
        if (set.name.rfind("fault:", 0) != 0) continue;
        for (const std::string& key : set.keys) {
          if (std::find(any_fault.begin(), any_fault.end(), key) == any_fault.end())
            any_fault.push_back(key);
        }
      }
    }
    top.insert(top.end(), {"faults", "properties"});
    std::vector<KeySet> out{
        {"scenario", top},
        {"node", {"name", "zone", "clock", "disks"}},
        {"disk", {"name", "writeLatency", "fsyncLatency", "capacity"}},
        {"clock", {"offset", "drift", "rate"}},
        {"network", {"latency", "loopbackLatency", "loss", "duplicate", "links"}},
        {"link", {"from", "to", "latency", "loss", "duplicate", "symmetric"}},
        {"fault", any_fault},
    };
    out.insert(out.end(), systems.begin(), systems.end());
    for (const KeySet& set : distribution_key_sets()) out.push_back(set);
    return out;
  }();
  return sets;
}

namespace scenario_loader {

const std::vector<std::string>& keys(std::string_view name) {
  for (const KeySet& set : scenario_key_sets()) {
    if (set.name == name) return set.keys;
  }
  HASIM_ASSERT(false && "unknown key set");
  static const std::vector<std::string> none;
  return none;
}

}  // namespace scenario_loader
}  // namespace hasim
