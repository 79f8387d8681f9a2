#include "reports/json_text.hpp"

#include <algorithm>

namespace hasim {
namespace {

using OrderedJson = nlohmann::ordered_json;

bool scalar_array(const OrderedJson& j) {
  return std::all_of(j.begin(), j.end(), [](const OrderedJson& e) { return e.is_primitive(); });
}

// Recursion is bounded by the document's depth, which this code builds (at most ~6).
void write_json(const OrderedJson& j, int depth, std::string& out) {
  const std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
  const std::string close(static_cast<std::size_t>(depth) * 2, ' ');
  if (j.is_object() && !j.empty()) {
    out += "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += pad + OrderedJson(it.key()).dump() + ": ";
      write_json(it.value(), depth + 1, out);
    }
    out += "\n" + close + "}";
  } else if (j.is_array() && !j.empty() && !scalar_array(j)) {
    out += "[\n";
    bool first = true;
    for (const OrderedJson& e : j) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      write_json(e, depth + 1, out);
    }
    out += "\n" + close + "]";
  } else {
    out += j.dump();
  }
}

}  // namespace

std::string json_text(const nlohmann::ordered_json& json) {
  std::string out;
  write_json(json, 0, out);
  return out + "\n";
}

}  // namespace hasim
