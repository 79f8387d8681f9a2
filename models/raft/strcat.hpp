#pragma once
// Building raft's log lines: upstream formats them with Printf verbs; here the pieces are
// joined by hand, integers in decimal (Go's %d and %v of an integer).
#include <charconv>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

namespace hasim::raft::text {

inline void append(std::string& out, std::string_view piece) { out += piece; }
inline void append(std::string& out, const char* piece) { out += piece; }
inline void append(std::string& out, const std::string& piece) { out += piece; }
inline void append(std::string& out, char piece) { out += piece; }
inline void append(std::string& out, bool piece) { out += piece ? "true" : "false"; }
template <std::integral Int>
requires(!std::same_as<Int, bool> && !std::same_as<Int, char>) void append(std::string& out,
                                                                           Int piece) {
  out += std::to_string(piece);
}

// Go's %x of an unsigned integer (lower-case hex, no prefix): how raft prints member IDs.
inline std::string hex(std::uint64_t value) {
  char buffer[16];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, 16);
  return std::string(buffer, result.ptr);
}

// cat("index ", 5, " term ", 2) == "index 5 term 2".
template <typename... Pieces>
std::string cat(const Pieces&... pieces) {
  std::string out;
  (append(out, pieces), ...);
  return out;
}

}  // namespace hasim::raft::text
