#include "models/etcd/trace_entries.hpp"

#include "sim/fnv.hpp"

#include <charconv>

namespace hasim::etcd {
namespace {

// 16 hex digits, built on the stack and appended at once (a persist or apply event of every
// Ready carries these).
void put_hex(std::string& out, std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char digits[16];
  for (int i = 0; i < 16; ++i) digits[i] = kDigits[(value >> (60 - 4 * i)) & 0xf];
  out.append(digits, sizeof digits);
}

// The decimal digits std::to_string gives, without its temporary string.
void put_decimal(std::string& out, std::uint64_t value) {
  char digits[20];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  (void)error;  // 20 digits hold any 64-bit value
  out.append(digits, end);
}

std::optional<std::uint64_t> parse(std::string_view text, int base) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::uint64_t entry_payload_hash(const raft::Entry& entry) {
  return fnv1a(fnv1a_byte(kFnvOffset, static_cast<unsigned char>(entry.type)), entry.data);
}

std::string encode_trace_entries(const std::vector<raft::Entry>& entries) {
  std::string out;
  out.reserve(entries.size() * 17 + 8);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].term != entries[i - 1].term) {
      if (i != 0) out.push_back(' ');
      put_decimal(out, entries[i].term);
      out.push_back(':');
    } else {
      out.push_back(',');
    }
    put_hex(out, entry_payload_hash(entries[i]));
  }
  return out;
}

std::optional<std::vector<TracedEntry>> decode_trace_entries(std::uint64_t first,
                                                             std::string_view text) {
  std::vector<TracedEntry> out;
  if (!decode_trace_entries(first, text, out)) return std::nullopt;
  return out;
}

bool decode_trace_entries(std::uint64_t first, std::string_view text,
                          std::vector<TracedEntry>& out) {
  out.clear();
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view run = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    const std::size_t colon = run.find(':');
    if (colon == std::string_view::npos) return false;
    const auto term = parse(run.substr(0, colon), 10);
    if (!term) return false;
    std::string_view hashes = run.substr(colon + 1);
    while (true) {
      const std::size_t comma = hashes.find(',');
      const auto hash = parse(hashes.substr(0, comma), 16);
      if (!hash) return false;
      out.push_back(TracedEntry{first + out.size(), *term, *hash});
      if (comma == std::string_view::npos) break;
      hashes = hashes.substr(comma + 1);
    }
  }
  return true;
}

}  // namespace hasim::etcd
