#pragma once
// The trace: every observable step of a run as an event {t, node, proc, kind, ...fields}.
// The writer serialises each event to one JSON line, folds the line's bytes into a running
// 64-bit hash (FNV-1a over 64-bit words), optionally writes it to a file, and hands the
// structured event to observers (properties). The hash of a run is therefore the hash of its JSON
// Lines trace, byte for byte. Field order is the order the emitter gave; no pointers, no wall
// clock.
#include <array>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <map>
#include <vector>

#include "sim/time.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

using TraceValue = std::variant<std::int64_t, bool, std::string>;

struct TraceField {
  std::string_view key;  // a string literal (static storage)
  TraceValue value;
};

struct TraceEvent {
  TrueTime t;
  std::string_view node;  // "" for world-level events
  std::string_view proc;  // "" for node- or world-level events
  std::string_view kind;  // a string literal, e.g. "suspect", "crash"
  // The emitter's fields, borrowed for the duration of TraceWriter::record (a model's
  // initializer list lives until the end of its trace call): building an event copies no
  // field. An observer that keeps an event past on_event keeps a StoredTraceEvent.
  std::span<const TraceField> fields;

  const TraceValue* find(std::string_view key) const;
  std::string_view string_field(std::string_view key) const;  // "" if absent or not a string
  std::int64_t int_field(std::string_view key, std::int64_t fallback = 0) const;
};

// An event that owns its fields (tests and tools that keep events after on_event). Copies
// point their fields at their own storage.
struct StoredTraceEvent : TraceEvent {
  StoredTraceEvent(TrueTime at, std::string_view on_node, std::string_view of_proc,
                   std::string_view of_kind, std::vector<TraceField> stored);
  explicit StoredTraceEvent(const TraceEvent& event);
  StoredTraceEvent(const StoredTraceEvent& other);
  StoredTraceEvent& operator=(const StoredTraceEvent& other);
  ~StoredTraceEvent() = default;

 private:
  std::vector<TraceField> storage_;
};

class TraceObserver {
 public:
  virtual ~TraceObserver() = default;
  virtual void on_event(const TraceEvent& event) = 0;
  // False for a kind of event this observer ignores. A run that neither hashes nor writes its
  // trace (a Monte Carlo trial) skips building the events no observer wants: the per-message
  // events ("recv", the most frequent), and those a model asks about (Env::tracing) because
  // they are costly to build, such as etcd's persisted and applied entries. Must not change
  // during a run: the writer asks once for "recv".
  virtual bool wants(std::string_view kind) const {
    (void)kind;
    return true;
  }
};

// Running hash of a trace; also remembers the hash after every kCheckpointEvery events so
// a replay can narrow down where two traces first differ.
class TraceHash {
 public:
  static constexpr std::uint64_t kCheckpointEvery = 1024;
  void add_line(std::string_view line);
  std::uint64_t value() const { return hash_; }
  std::uint64_t events() const { return events_; }
  const std::vector<std::uint64_t>& checkpoints() const { return checkpoints_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t events_ = 0;
  std::vector<std::uint64_t> checkpoints_;
};

class TraceWriter {
 public:
  TraceWriter() = default;
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Also write JSON Lines to `path`. Returns false (with errno intact) if it cannot be opened.
  bool open_file(const std::string& path);
  void add_observer(TraceObserver* observer) {
    observers_.push_back(observer);
    observers_want_messages_ = observers_want_messages_ || observer->wants(trace_kind::kRecv);
    by_kind_.clear();
    recent_ = {};
  }
  // Keep every line in memory, up to `limit` lines (to name the first differing event).
  void capture_all(std::size_t limit) { capture_limit_ = limit; }
  const std::vector<std::string>& captured() const { return captured_; }

  void record(const TraceEvent& event);

  // A Monte Carlo trial reads the trace only through its observers: without a hash, a file or
  // a capture, events are not formatted at all (a fifth of a control-plane trial's time).
  void disable_hash() { hashing_ = false; }
  // Whether anything reads events of `kind` (TraceObserver::wants): the emitter may skip
  // building one when this is false. Skipped events are in no hash or file, since either
  // makes this true.
  bool wants(std::string_view kind) const;
  bool wants_messages() const { return recorded() || observers_want_messages_; }
  const TraceHash& hash() const;

 private:
  bool recorded() const { return hashing_ || file_ != nullptr || capture_limit_ != 0; }
  // The observers that want `kind`, in the order they were added. Each observer is handed
  // only the kinds it wants (TraceObserver::wants, fixed for a run), so a run with many
  // properties does not call each of them for every event.
  const std::vector<TraceObserver*>& observers_for(std::string_view kind) const;
  const std::vector<TraceObserver*>& observers_in_map(std::string_view kind) const;
  std::FILE* file_ = nullptr;
  TraceHash hash_;
  std::string line_;  // the line being formatted: kept at its high-water size (format_into)
  std::vector<TraceObserver*> observers_;
  // observers_for's cache, by kind; each entry keeps observers_'s order.
  mutable std::map<std::string, std::vector<TraceObserver*>, std::less<>> by_kind_;
  // In front of by_kind_: the last kinds looked up, keyed by the kind's characters' address
  // and length. Kinds are string literals, so each call site passes the same address every
  // time; a hit returns what the map would (a miss, e.g. the same text at another address,
  // just asks the map), so the address decides only how fast, never what. Map entries never
  // move, so the cached pointers stay valid until add_observer clears both.
  struct RecentKind {
    const char* data = nullptr;
    std::size_t size = 0;
    const std::vector<TraceObserver*>* observers = nullptr;
  };
  // Direct-mapped by the address: one probe per lookup. (A ring of 16 scanned in order cost
  // 54 instructions a lookup, 0.7% of the main job's, as trials cycle through ~20 kinds.)
  static constexpr std::size_t kRecentKinds = 64;
  static std::size_t recent_slot(const char* data, std::size_t size) {
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    return ((address >> 3) ^ (address >> 9) ^ size) % kRecentKinds;
  }
  mutable std::array<RecentKind, kRecentKinds> recent_{};
  std::vector<std::string> captured_;
  std::size_t capture_limit_ = 0;
  bool hashing_ = true;
  bool observers_want_messages_ = false;
};

// Serialises one event as a JSON object without the trailing newline.
void format_trace_line(const TraceEvent& event, std::string& out);
void append_json_string(std::string& out, std::string_view text);
std::string format_hash(std::uint64_t hash);  // 16 lower-case hex digits

}  // namespace hasim
