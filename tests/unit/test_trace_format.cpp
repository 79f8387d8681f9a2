// The trace line writer and hash (sim/trace.cpp) are tuned for speed: a bounded raw writer
// and word loads. Each is cross-checked here against a naive version written for clarity, on
// random input, since every golden trace hash depends on their exact bytes.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace hasim {
namespace {

std::string naive_json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::uint64_t naive_hash(const std::vector<std::string>& lines) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const std::string& line : lines) {
    std::size_t i = 0;
    for (; i + 8 <= line.size(); i += 8) {
      std::uint64_t word = 0;
      for (std::size_t b = 0; b < 8; ++b) {
        word |= std::uint64_t{static_cast<unsigned char>(line[i + b])} << (8 * b);
      }
      hash = (hash ^ word) * 0x100000001b3ULL;
    }
    for (; i < line.size(); ++i) hash = (hash ^ static_cast<unsigned char>(line[i])) * 0x100000001b3ULL;
    hash = (hash ^ '\n') * 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

TEST_CASE("a trace line is the JSON a naive writer gives", "[trace-format]") {
  const TraceField fields[] = {{"n", std::int64_t{-9223372036854775807LL - 1}},
                               {"ok", true},
                               {"no", false},
                               {"s", std::string("a\"b\\c\nd\te\rf\x01g\x1f")}};
  const TraceEvent event{TrueTime{1234567890123}, "cp-1", "kube-apiserver", "lease-write", fields};
  std::string line = "left over";
  format_trace_line(event, line);
  CHECK(line ==
        "{\"t\":1234567890123,\"node\":\"cp-1\",\"proc\":\"kube-apiserver\",\"kind\":"
        "\"lease-write\",\"n\":-9223372036854775808,\"ok\":true,\"no\":false,"
        "\"s\":\"a\\\"b\\\\c\\nd\\te\\rf\\u0001g\\u001f\"}");
  const TraceEvent world{TrueTime{0}, "", "", "start", {}};
  format_trace_line(world, line);
  CHECK(line == "{\"t\":0,\"kind\":\"start\"}");

  // Every length around the writer's 4-, 8- and 16-byte blocks, with the byte that needs an
  // escape at every position (and none).
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t at = 0; at <= n; ++at) {
      for (const char special : {'"', '\\', '\x1f', '\x7f', '\xc3'}) {
        std::string text(n, 'a');
        if (at < n) text[at] = special;
        std::string out;
        append_json_string(out, text);
        CHECK(out == naive_json_string(text));
      }
    }
  }

  rc::prop("escaping equals the naive escaper on any bytes", [](const std::string& text) {
    std::string out = "x";
    append_json_string(out, text);
    RC_ASSERT(out == "x" + naive_json_string(text));
    const TraceField field{"v", text};
    std::string formatted;
    format_trace_line(TraceEvent{TrueTime{7}, text, "", "k", {&field, 1}}, formatted);
    RC_ASSERT(formatted == "{\"t\":7" + (text.empty() ? "" : ",\"node\":" + naive_json_string(text)) +
                               ",\"kind\":\"k\",\"v\":" + naive_json_string(text) + "}");
  });
}

TEST_CASE("the trace hash equals FNV-1a over byte-assembled words", "[trace-format]") {
  rc::prop("any lines", [](const std::vector<std::string>& lines) {
    TraceHash hash;
    for (const std::string& line : lines) hash.add_line(line);
    RC_ASSERT(hash.value() == naive_hash(lines));
    RC_ASSERT(hash.events() == lines.size());
  });
}

}  // namespace hasim
