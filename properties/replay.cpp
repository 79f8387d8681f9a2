#include "properties/replay.hpp"

#include <fstream>
#include <sstream>

#include "hasim_version.hpp"

namespace hasim {
namespace {

std::optional<std::uint64_t> parse_hash(const std::string& text) {
  if (text.size() != 16) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<std::uint64_t>(digit);
  }
  return value;
}

const std::vector<std::string> kReplayKeys{"replayFormat", "hasimVersion", "seed", "scenario",
                                           "expected", "maxEvents"};
const std::vector<std::string> kExpectedKeys{"traceHash", "traceEvents", "checkpoints",
                                             "traceFile", "violated",   "resolvedRoles"};

std::optional<std::uint64_t> read_hash(JsonReader& reader, const Json& value,
                                       const std::string& path) {
  const auto text = reader.string(value, path);
  if (!text) return std::nullopt;
  const auto hash = parse_hash(*text);
  if (!hash)
    reader.error(path, "expected 16 lower-case hex digits (a trace hash), found \"" + *text + "\"");
  return hash;
}

void read_expected(JsonReader& reader, const Json& expected, Replay& replay) {
  const std::string path = "$.expected";
  if (!reader.object(expected, path, kExpectedKeys, "the expected trace")) return;
  if (const Json* hash = reader.required(expected, path, "traceHash", "\"0123456789abcdef\"")) {
    replay.trace_hash = read_hash(reader, *hash, path + ".traceHash").value_or(0);
  }
  if (const Json* events = reader.required(expected, path, "traceEvents", "1234")) {
    replay.trace_events = reader.unsigned_integer(*events, path + ".traceEvents").value_or(0);
  }
  if (const Json* checkpoints = JsonReader::field(expected, "checkpoints")) {
    const std::string at = path + ".checkpoints";
    if (reader.array(*checkpoints, at, "[\"0123456789abcdef\"]")) {
      for (std::size_t i = 0; i < checkpoints->size(); ++i) {
        const auto hash = read_hash(reader, (*checkpoints)[i], JsonReader::index_path(at, i));
        if (hash) replay.checkpoints.push_back(*hash);
      }
    }
  }
  if (const Json* file = JsonReader::field(expected, "traceFile")) {
    replay.trace_file = reader.string(*file, path + ".traceFile").value_or("");
  }
  if (const Json* violated = JsonReader::field(expected, "violated")) {
    const std::string at = path + ".violated";
    if (reader.array(*violated, at, "[\"no-false-suspicion\"]")) {
      for (std::size_t i = 0; i < violated->size(); ++i) {
        if (auto spec = reader.string((*violated)[i], JsonReader::index_path(at, i))) {
          replay.violated.push_back(*spec);
        }
      }
    }
  }
}

}  // namespace

Json make_replay(const Json& scenario_json, const RunResult& result,
                 const std::string& trace_file) {
  Json checkpoints = Json::array();
  for (std::uint64_t hash : result.checkpoints) checkpoints.push_back(format_hash(hash));
  Json violated = Json::array();
  for (std::size_t i = 0; i < result.property_specs.size(); ++i) {
    if (result.violations[i]) violated.push_back(result.property_specs[i]);
  }
  Json expected{{"traceHash", format_hash(result.trace_hash)},
                {"traceEvents", result.trace_events},
                {"violated", violated},
                {"checkpoints", checkpoints}};
  if (!trace_file.empty()) expected["traceFile"] = trace_file;
  // Whom each role-aimed fault hit, for the reader; the trace hash already pins it.
  if (!result.resolved_roles.empty()) {
    Json roles = Json::array();
    for (const ResolvedRole& r : result.resolved_roles) {
      roles.push_back({{"at", format_duration(Duration{r.at.ns})},
                       {"fault", r.fault},
                       {"role", r.role},
                       {"process", r.process}});
    }
    expected["resolvedRoles"] = roles;
  }
  Json replay{{"replayFormat", kReplayFormat},
              {"hasimVersion", kVersion},
              {"seed", result.seed},
              {"scenario", scenario_json},
              {"expected", expected}};
  // Only a run that stopped at its budget needs it to be replayed the same.
  if (result.max_events && result.stats.status == RunStatus::event_limit) {
    replay["maxEvents"] = *result.max_events;
  }
  return replay;
}

ReplayLoad load_replay_text(std::string_view text, std::string_view source_name) {
  ReplayLoad load;
  if (auto problem = check_json_text(text)) {
    load.errors.push_back({"$", *problem});
    return load;
  }
  Json document = Json::parse(text.begin(), text.end(), nullptr, false);
  if (document.is_discarded()) {
    load.errors.push_back(
        {"$", "not valid JSON; a replay file is written by `hasim run --replay-out`"});
    return load;
  }
  JsonReader reader;
  Replay replay;
  LoadOptions options;
  if (reader.object(document, "$", kReplayKeys, "a replay file")) {
    if (const Json* format = reader.required(document, "$", "replayFormat", "2")) {
      const auto value = reader.integer(*format, "$.replayFormat", 1, 1000);
      if (value && *value > kReplayFormat) {
        reader.error("$.replayFormat", "this hasim reads replay formats 1 to " +
                                           std::to_string(kReplayFormat) + ", found " +
                                           std::to_string(*value) +
                                           "; replay it with the hasim that wrote it");
      }
      // Format 1 recorded its trace hash with the ideal store on node "etcd".
      options.legacy_store_node = value == 1;
    }
    if (const Json* version = reader.required(document, "$", "hasimVersion", "\"0.1.0\"")) {
      replay.hasim_version = reader.string(*version, "$.hasimVersion").value_or("");
    }
    if (const Json* seed = reader.required(document, "$", "seed", "1")) {
      replay.seed = reader.unsigned_integer(*seed, "$.seed").value_or(0);
    }
    if (const Json* budget = JsonReader::field(document, "maxEvents")) {
      replay.max_events = reader.unsigned_integer(*budget, "$.maxEvents");
      if (replay.max_events == std::uint64_t{0}) {
        reader.error("$.maxEvents", "must be at least 1 (the events the recorded run stopped at)");
      }
    }
    if (const Json* expected = reader.required(document, "$", "expected", "{...}")) {
      read_expected(reader, *expected, replay);
    }
  }
  for (const JsonError& error : reader.errors()) load.errors.push_back({error.path, error.message});
  const Json* scenario = document.is_object() ? JsonReader::field(document, "scenario") : nullptr;
  if (scenario == nullptr) {
    load.errors.push_back({"$.scenario", "missing: a replay file embeds the scenario it ran"});
    return load;
  }
  LoadResult inner = load_scenario_text(scenario->dump(), source_name, options);
  for (ScenarioError& error : inner.errors) {
    load.errors.push_back({"$.scenario" + error.path.substr(1), std::move(error.message)});
  }
  for (ScenarioError& note : inner.notes) {
    load.notes.push_back({"$.scenario" + note.path.substr(1), std::move(note.message)});
  }
  if (!load.errors.empty()) return load;
  replay.scenario_json = *scenario;
  replay.scenario = std::move(*inner.scenario);
  load.replay = std::move(replay);
  return load;
}

ReplayLoad load_replay_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ReplayLoad{std::nullopt, {{"$", "cannot read the replay file " + path}}};
  std::ostringstream text;
  text << in.rdbuf();
  return load_replay_text(text.str(), path);
}

}  // namespace hasim
