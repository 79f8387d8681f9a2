#include "sim/trace.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/assert.hpp"

namespace hasim {

namespace {

// JSON needs an escape for '"', '\\' and control characters (below 0x20).
constexpr std::array<bool, 256> kNeedsEscape = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[static_cast<std::size_t>(c)] = true;
  table['"'] = true;
  table['\\'] = true;
  return table;
}();

// Whether any byte of `word` (8 or 4 bytes) needs an escape: below 0x20, '"' or '\\'. The
// classic "has a zero byte" bit trick on word - 0x20.., word ^ '"'.. and word ^ '\\'..; a
// borrow can flag a byte above a flagged one, never a word with none, and a flagged word is
// then read byte by byte, so a false alarm costs time only.
template <typename Word>
constexpr bool word_needs_escape(Word word) {
  constexpr Word kOnes = static_cast<Word>(0x0101010101010101ULL);
  constexpr Word kHigh = static_cast<Word>(0x8080808080808080ULL);
  const auto has_zero = [](Word v) { return ((v - kOnes) & ~v & kHigh) != 0; };
  const bool below_space = ((word - kOnes * 0x20) & ~word & kHigh) != 0;
  return below_space || has_zero(word ^ (kOnes * '"')) || has_zero(word ^ (kOnes * '\\'));
}

template <typename Word>
Word load(const char* at) {
  Word word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

// Whether any of the 16 bytes at `at` needs an escape. With SSE2 (every x86-64): three byte
// compares and one mask; elsewhere two word checks.
inline bool block_needs_escape(const char* at) {
#if defined(__SSE2__)
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  const __m128i control =
      _mm_cmpeq_epi8(_mm_max_epu8(bytes, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
  const __m128i quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'));
  return _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) != 0;
#else
  return word_needs_escape(load<std::uint64_t>(at)) ||
         word_needs_escape(load<std::uint64_t>(at + 8));
#endif
}

// Writes one line into a buffer the caller has sized for the worst case (line_bound), so no
// write checks capacity: the trace is formatted on every event of a hashed run.
class LineWriter {
 public:
  explicit LineWriter(char* out) : start_(out), at_(out) {}

  void raw(std::string_view text) {
    std::memcpy(at_, text.data(), text.size());
    at_ += text.size();
  }
  // A literal: its length is known here, so the copy is a few inline stores, not a call.
  template <std::size_t N>
  void literal(const char (&text)[N]) {
    std::memcpy(at_, text, N - 1);
    at_ += N - 1;
  }
  void put(char c) { *at_++ = c; }
  void integer(std::int64_t value) {
    // The decimal text std::to_string gives; 20 characters hold any int64.
    const auto [end, error] = std::to_chars(at_, at_ + 20, value);
    HASIM_ASSERT(error == std::errc());
    at_ = end;
  }
  // A JSON string: quoted, with '"', '\\' and control characters escaped.
  void string(std::string_view text) {
    put('"');
    if (!copied_clean(text)) {
      for (char c : text) {
        if (kNeedsEscape[static_cast<unsigned char>(c)]) {
          escaped(c);
        } else {
          put(c);
        }
      }
    }
    put('"');
  }
  std::size_t size() const { return static_cast<std::size_t>(at_ - start_); }

 private:
  void escaped(char c) {
    switch (c) {
      case '"':
        return literal("\\\"");
      case '\\':
        return literal("\\\\");
      case '\n':
        return literal("\\n");
      case '\t':
        return literal("\\t");
      case '\r':
        return literal("\\r");
      default:
        if (static_cast<unsigned char>(c) >= 0x20) return put(c);
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
        raw(buffer);
    }
  }

  // Copies `text` and returns true if no byte of it needs an escape (names and identities
  // rarely do); otherwise writes nothing and returns false. Whole words are checked and
  // copied at once; the last, partial word overlaps the one before it, as memcpy does.
  bool copied_clean(std::string_view text) {
    const char* from = text.data();
    const std::size_t n = text.size();
    if (n >= 16) {
      for (std::size_t i = 0; i + 16 <= n; i += 16) {
        if (block_needs_escape(from + i)) return false;
      }
      if (block_needs_escape(from + n - 16)) return false;
      std::memcpy(at_, from, n);
    } else if (n >= 8) {
      if (word_needs_escape(load<std::uint64_t>(from))) return false;
      if (word_needs_escape(load<std::uint64_t>(from + n - 8))) return false;
      std::memcpy(at_, from, n);
    } else if (n >= 4) {
      const auto head = load<std::uint32_t>(from);
      const auto tail = load<std::uint32_t>(from + n - 4);
      if (word_needs_escape(head) || word_needs_escape(tail)) return false;
      std::memcpy(at_, &head, 4);
      std::memcpy(at_ + n - 4, &tail, 4);
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        if (kNeedsEscape[static_cast<unsigned char>(from[i])]) return false;
      }
      for (std::size_t i = 0; i < n; ++i) at_[i] = from[i];
    }
    at_ += n;
    return true;
  }

  char* start_;
  char* at_;
};

// The longest a string can grow as JSON: quotes, and "\u00XX" for each byte.
constexpr std::size_t json_bound(std::string_view text) { return 2 + 6 * text.size(); }

std::size_t line_bound(const TraceEvent& event) {
  // {"t":INT ,"node": ,"proc": ,"kind": } with a 20-character integer.
  std::size_t bound = 64 + json_bound(event.node) + json_bound(event.proc) + json_bound(event.kind);
  for (const TraceField& field : event.fields) {
    bound += 2 + json_bound(field.key);
    const auto* text = std::get_if<std::string>(&field.value);
    bound += text == nullptr ? 20 : json_bound(*text);
  }
  return bound;
}

}  // namespace

const TraceValue* TraceEvent::find(std::string_view key) const {
  for (const TraceField& field : fields) {
    if (field.key == key) return &field.value;
  }
  return nullptr;
}

std::string_view TraceEvent::string_field(std::string_view key) const {
  const TraceValue* value = find(key);
  if (value == nullptr) return {};
  const auto* text = std::get_if<std::string>(value);
  return text == nullptr ? std::string_view() : std::string_view(*text);
}

std::int64_t TraceEvent::int_field(std::string_view key, std::int64_t fallback) const {
  const TraceValue* value = find(key);
  if (value == nullptr) return fallback;
  const auto* number = std::get_if<std::int64_t>(value);
  return number == nullptr ? fallback : *number;
}

StoredTraceEvent::StoredTraceEvent(TrueTime at, std::string_view on_node, std::string_view of_proc,
                                   std::string_view of_kind, std::vector<TraceField> stored)
    : TraceEvent{at, on_node, of_proc, of_kind, {}}, storage_(std::move(stored)) {
  this->fields = storage_;
}

StoredTraceEvent::StoredTraceEvent(const TraceEvent& event)
    : TraceEvent{event.t, event.node, event.proc, event.kind, {}},
      storage_(event.fields.begin(), event.fields.end()) {
  fields = storage_;
}

StoredTraceEvent::StoredTraceEvent(const StoredTraceEvent& other)
    : StoredTraceEvent(static_cast<const TraceEvent&>(other)) {}

StoredTraceEvent& StoredTraceEvent::operator=(const StoredTraceEvent& other) {
  if (this == &other) return *this;
  static_cast<TraceEvent&>(*this) = other;
  storage_ = other.storage_;
  fields = storage_;
  return *this;
}

void TraceHash::add_line(std::string_view line) {
  // FNV-1a over little-endian 64-bit words, then the remaining bytes one at a time: eight
  // times fewer multiplications than byte-wise FNV-1a (hashing is on every event's path),
  // and still a bijection per step, so any change in one word changes the hash. The word is
  // one unaligned load: the bytes in little-endian order, which is the machine's (asserted
  // at compile time), so the hash is the same as assembling the word byte by byte.
  static_assert(std::endian::native == std::endian::little);
  std::uint64_t hash = hash_;
  std::size_t i = 0;
  for (; i + 8 <= line.size(); i += 8) {
    hash ^= load<std::uint64_t>(line.data() + i);
    hash *= 0x100000001b3ULL;
  }
  for (; i < line.size(); ++i) {
    hash ^= static_cast<unsigned char>(line[i]);
    hash *= 0x100000001b3ULL;
  }
  hash ^= '\n';
  hash *= 0x100000001b3ULL;
  hash_ = hash;
  ++events_;
  if (events_ % kCheckpointEvery == 0) checkpoints_.push_back(hash_);
}

void append_json_string(std::string& out, std::string_view text) {
  const std::size_t before = out.size();
  out.resize(before + json_bound(text));
  LineWriter writer(out.data() + before);
  writer.string(text);
  out.resize(before + writer.size());
}

namespace {

// Formats into `buffer`, growing it to the event's bound if needed but never shrinking it (the
// writer's buffer keeps its high-water size, so no event pays for zero-filling it), and
// returns the line's length.
std::size_t format_into(const TraceEvent& event, std::string& buffer) {
  const std::size_t bound = line_bound(event);
  if (buffer.size() < bound) buffer.resize(bound);
  LineWriter writer(buffer.data());
  writer.literal("{\"t\":");
  writer.integer(event.t.ns);
  if (!event.node.empty()) {
    writer.literal(",\"node\":");
    writer.string(event.node);
  }
  if (!event.proc.empty()) {
    writer.literal(",\"proc\":");
    writer.string(event.proc);
  }
  writer.literal(",\"kind\":");
  writer.string(event.kind);
  for (const TraceField& field : event.fields) {
    writer.put(',');
    writer.string(field.key);
    writer.put(':');
    if (const auto* number = std::get_if<std::int64_t>(&field.value)) {
      writer.integer(*number);
    } else if (const auto* flag = std::get_if<bool>(&field.value)) {
      if (*flag) {
        writer.literal("true");
      } else {
        writer.literal("false");
      }
    } else {
      writer.string(std::get<std::string>(field.value));
    }
  }
  writer.put('}');
  HASIM_ASSERT(writer.size() <= bound);
  return writer.size();
}

}  // namespace

void format_trace_line(const TraceEvent& event, std::string& out) {
  out.resize(format_into(event, out));
}

std::string format_hash(std::uint64_t hash) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, hash);
  return buffer;
}

TraceWriter::~TraceWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

bool TraceWriter::open_file(const std::string& path) {
  HASIM_ASSERT(file_ == nullptr);
  file_ = std::fopen(path.c_str(), "w");
  return file_ != nullptr;
}

const TraceHash& TraceWriter::hash() const {
  HASIM_ASSERT(hashing_);
  return hash_;
}

const std::vector<TraceObserver*>& TraceWriter::observers_for(std::string_view kind) const {
  RecentKind& recent = recent_[recent_slot(kind.data(), kind.size())];
  if (recent.data == kind.data() && recent.size == kind.size()) return *recent.observers;
  const std::vector<TraceObserver*>& found = observers_in_map(kind);
  recent = RecentKind{kind.data(), kind.size(), &found};
  return found;
}

const std::vector<TraceObserver*>& TraceWriter::observers_in_map(std::string_view kind) const {
  const auto it = by_kind_.find(kind);
  if (it != by_kind_.end()) return it->second;
  std::vector<TraceObserver*> wanting;
  for (TraceObserver* observer : observers_) {
    if (observer->wants(kind)) wanting.push_back(observer);
  }
  HASIM_ASSERT(by_kind_.size() < 100'000);  // kinds are a fixed vocabulary
  return by_kind_.emplace(std::string(kind), std::move(wanting)).first->second;
}

bool TraceWriter::wants(std::string_view kind) const {
  return recorded() || !observers_for(kind).empty();
}

void TraceWriter::record(const TraceEvent& event) {
  if (!hashing_ && file_ == nullptr && capture_limit_ == 0) {
    for (TraceObserver* observer : observers_for(event.kind)) observer->on_event(event);
    return;
  }
  // Format first: format_into may grow line_ and move its characters.
  const std::size_t length = format_into(event, line_);
  const std::string_view line(line_.data(), length);
  if (hashing_) hash_.add_line(line);
  if (file_ != nullptr) {
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
  }
  if (captured_.size() < capture_limit_) captured_.emplace_back(line);
  for (TraceObserver* observer : observers_for(event.kind)) observer->on_event(event);
}

}  // namespace hasim
