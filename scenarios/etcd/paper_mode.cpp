#include "scenarios/etcd/paper_mode.hpp"

#include "scenarios/loader_internal.hpp"

namespace hasim::etcd_paper_mode {
namespace {

// The same ceiling as etcd's --election-timeout (server/embed/config.go).
constexpr Duration kMaxElectionTimeout = seconds(50);
// A raft member counts ticks in an int; keep B / tick far below that (and the simulation's
// tick events bounded: 50 s at 10 us is 5 million ticks per election).
constexpr Duration kMinTick = microseconds(10);

std::string dur(Duration d) { return format_duration(d); }

std::optional<std::pair<Duration, Duration>> read_range(JsonReader& r, const Json& section,
                                                        const std::string& path) {
  const std::string at = JsonReader::key_path(path, "electionTimeout");
  const Json* v = JsonReader::field(section, "electionTimeout");
  if (v == nullptr || !v->is_array() || v->size() != 2) {
    r.error(at, std::string(v == nullptr ? "missing" : "found " + JsonReader::describe(*v)) +
                    ": paper mode draws each election timeout uniformly from a range [A, B] "
                    "(the Raft paper's \"A-B ms\"); write e.g. \"electionTimeout\": "
                    "[\"150ms\", \"300ms\"]");
    return std::nullopt;
  }
  const auto low = r.duration((*v)[0], JsonReader::index_path(at, 0), DurationSign::positive);
  const auto high = r.duration((*v)[1], JsonReader::index_path(at, 1), DurationSign::positive);
  if (!low || !high) return std::nullopt;
  if (*high < *low) {
    r.error(at, "the range's upper end " + dur(*high) + " is below its lower end " + dur(*low) +
                    "; write [A, B] with A <= B");
    return std::nullopt;
  }
  if (*high > kMaxElectionTimeout) {
    r.error(JsonReader::index_path(at, 1),
            "the election timeout " + dur(*high) + " is longer than etcd's maximum, 50s");
    return std::nullopt;
  }
  return std::pair{*low, *high};
}

// A, B and A/2 must be whole numbers of ticks: raft counts ticks.
bool check_ticks(JsonReader& r, const std::string& path, Duration low, Duration high,
                 Duration tick) {
  const std::string at = JsonReader::key_path(path, "tick");
  if (tick < kMinTick || tick.ns * 2 > low.ns) {
    r.error(at, "the tick " + dur(tick) + " must be at least " + dur(kMinTick) +
                    " and at most half the minimum election timeout (" + dur(low) +
                    "/2, the heartbeat interval)");
    return false;
  }
  const std::pair<const char*, Duration> counted[] = {{"the minimum election timeout", low},
                                                      {"the maximum election timeout", high},
                                                      {"the heartbeat interval (A/2)", low / 2}};
  for (const auto& [what, value] : counted) {
    if (value.ns % tick.ns != 0 || low.ns % 2 != 0) {
      r.error(at, std::string(what) + " " + dur(value) + " is not a whole number of ticks of " +
                      dur(tick) + "; choose a tick that divides A, B and A/2, e.g. \"500us\"");
      return false;
    }
  }
  return true;
}

// "timerRule": "etcd" (etcd raft's, the default) or "paper" (the Raft paper's Figure 2).
bool read_timer_rule(JsonReader& r, const Json& section, const std::string& path,
                     etcd::EtcdConfig& config) {
  config.paperTimerRule = false;
  const Json* v = JsonReader::field(section, "timerRule");
  if (v == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "timerRule");
  const auto text = r.string(*v, at);
  if (!text) return false;
  if (*text == "etcd" || *text == "paper") {
    config.paperTimerRule = *text == "paper";
    return true;
  }
  r.error(at, "unknown timer rule " + JsonReader::describe(*v) +
                  "; use \"etcd\" (every new term restarts the election timer, the default) "
                  "or \"paper\" (only a leader's message or a granted vote does)");
  return false;
}

}  // namespace

std::optional<etcd::EtcdMode> read_mode(JsonReader& r, const Json& section,
                                        const std::string& path) {
  const Json* v = JsonReader::field(section, "mode");
  if (v == nullptr) return etcd::EtcdMode::etcd;
  const std::string at = JsonReader::key_path(path, "mode");
  const auto text = r.string(*v, at);
  if (!text) return std::nullopt;
  if (*text == "etcd") return etcd::EtcdMode::etcd;
  if (*text == "paper") return etcd::EtcdMode::paper;
  r.error(at, "unknown mode " + JsonReader::describe(*v) +
                  "; use \"etcd\" (etcd's own timing, the default) or \"paper\" (the Raft "
                  "paper's election experiment)");
  return std::nullopt;
}

bool read_paper_timing(JsonReader& r, const Json& section, const std::string& path,
                       etcd::EtcdConfig& config) {
  bool ok = true;
  for (const char* key : {"heartbeatInterval", "preVote", "checkQuorum"}) {
    if (JsonReader::field(section, key) == nullptr) continue;
    r.error(JsonReader::key_path(path, key),
            std::string("paper mode runs plain Raft as the Raft paper measured it: heartbeats "
                        "every A/2, no PreVote, no CheckQuorum; remove \"") +
                key + "\" or use \"mode\": \"etcd\"");
    ok = false;
  }
  const auto range = read_range(r, section, path);
  Duration tick = config.tick;
  ok = scenario_loader::read_duration_field(r, section, path, "tick", DurationSign::positive,
                                            tick) &&
       ok;
  if (!ok || !range) return false;
  if (!check_ticks(r, path, range->first, range->second, tick)) return false;
  config.mode = etcd::EtcdMode::paper;
  config.electionTimeout = range->first;
  config.electionTimeoutMax = range->second;
  config.heartbeatInterval = range->first / 2;
  config.tick = tick;
  config.preVote = false;
  config.checkQuorum = false;
  return read_timer_rule(r, section, path, config);
}

bool reject_paper_keys(JsonReader& r, const Json& section, const std::string& path) {
  bool ok = true;
  if (JsonReader::field(section, "tick") != nullptr) {
    r.error(JsonReader::key_path(path, "tick"),
            "\"tick\" sets paper mode's tick (etcd ticks once per heartbeatInterval); add "
            "\"mode\": \"paper\" or remove it");
    ok = false;
  }
  if (JsonReader::field(section, "timerRule") != nullptr) {
    r.error(JsonReader::key_path(path, "timerRule"),
            "\"timerRule\" chooses paper mode's timer rule (etcd always restarts the timer at "
            "a new term); add \"mode\": \"paper\" or remove it");
    ok = false;
  }
  const Json* election = JsonReader::field(section, "electionTimeout");
  if (election != nullptr && election->is_array()) {
    r.error(JsonReader::key_path(path, "electionTimeout"),
            "a range [A, B] is paper mode's election timeout; add \"mode\": \"paper\", or give "
            "etcd's --election-timeout as one duration, e.g. \"1000ms\"");
    ok = false;
  }
  return ok;
}

}  // namespace hasim::etcd_paper_mode
