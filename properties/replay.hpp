#pragma once
// Replay files: a scenario (embedded verbatim, with its concrete fault schedule), the seed,
// the hasim version that wrote it and the expected trace: hash, event count, checkpoint
// hashes every 1024 events and, optionally, the path of the full JSON Lines trace. `hasim
// replay` re-runs it and names the first differing event if the hash no longer matches.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/json_reader.hpp"
#include "scenarios/loader.hpp"
#include "properties/run.hpp"

namespace hasim {

// The replay format this hasim writes. Format 1 (before issue 11 part 5) ran the ideal store
// on a node named "etcd", and its trace hash prints that name: it still loads, with the store
// on "etcd" (LoadOptions::legacy_store_node), and replays exactly. Format 2 names it "store".
inline constexpr int kReplayFormat = 2;

struct Replay {
  std::string hasim_version;
  Json scenario_json;
  Scenario scenario;
  std::uint64_t seed = 0;
  // The event budget the recorded run stopped at (`hasim check --max-events`), if it did.
  std::optional<std::uint64_t> max_events;
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_events = 0;
  std::vector<std::uint64_t> checkpoints;
  std::string trace_file;  // relative to the replay file's folder, or absolute; may be empty
  std::vector<std::string> violated;  // property specs violated in the recorded run
};

Json make_replay(const Json& scenario_json, const RunResult& result, const std::string& trace_file);

struct ReplayLoad {
  std::optional<Replay> replay;
  std::vector<ScenarioError> errors;
  std::vector<ScenarioError> notes{};  // the embedded scenario's (LoadResult::notes)
};
ReplayLoad load_replay_file(const std::string& path);
ReplayLoad load_replay_text(std::string_view text, std::string_view source_name);

}  // namespace hasim
