#include "sim/trace.hpp"

#include <algorithm>
#include <cinttypes>

#include "sim/assert.hpp"

namespace hasim {

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

StoredTraceEvent::StoredTraceEvent(TrueTime at, std::string_view on_node,
                                   std::string_view of_proc, std::string_view of_kind,
                                   std::vector<TraceField> stored)
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
  // and still a bijection per step, so any change in one word changes the hash.
  std::size_t i = 0;
  for (; i + 8 <= line.size(); i += 8) {
    std::uint64_t word = 0;
    for (std::size_t b = 0; b < 8; ++b) {
      word |= static_cast<std::uint64_t>(static_cast<unsigned char>(line[i + b])) << (8 * b);
    }
    hash_ ^= word;
    hash_ *= 0x100000001b3ULL;
  }
  for (; i < line.size(); ++i) {
    hash_ ^= static_cast<unsigned char>(line[i]);
    hash_ *= 0x100000001b3ULL;
  }
  hash_ ^= '\n';
  hash_ *= 0x100000001b3ULL;
  ++events_;
  if (events_ % kCheckpointEvery == 0) checkpoints_.push_back(hash_);
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  // Names and identities rarely need escaping: copy clean text in one go.
  const bool clean = std::all_of(text.begin(), text.end(), [](char c) {
    return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  });
  if (clean) {
    out.append(text);
    out.push_back('"');
    return;
  }
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void format_trace_line(const TraceEvent& event, std::string& out) {
  out.clear();
  out += "{\"t\":";
  out += std::to_string(event.t.ns);
  if (!event.node.empty()) {
    out += ",\"node\":";
    append_json_string(out, event.node);
  }
  if (!event.proc.empty()) {
    out += ",\"proc\":";
    append_json_string(out, event.proc);
  }
  out += ",\"kind\":";
  append_json_string(out, event.kind);
  for (const TraceField& field : event.fields) {
    out.push_back(',');
    append_json_string(out, field.key);
    out.push_back(':');
    if (const auto* number = std::get_if<std::int64_t>(&field.value)) {
      out += std::to_string(*number);
    } else if (const auto* flag = std::get_if<bool>(&field.value)) {
      out += *flag ? "true" : "false";
    } else {
      append_json_string(out, std::get<std::string>(field.value));
    }
  }
  out.push_back('}');
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
  format_trace_line(event, line_);
  if (hashing_) hash_.add_line(line_);
  if (file_ != nullptr) {
    std::fwrite(line_.data(), 1, line_.size(), file_);
    std::fputc('\n', file_);
  }
  if (captured_.size() < capture_limit_) captured_.push_back(line_);
  for (TraceObserver* observer : observers_for(event.kind)) observer->on_event(event);
}

}  // namespace hasim
