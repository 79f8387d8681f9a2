#include "reports/csv.hpp"

#include "sim/assert.hpp"

namespace hasim {
namespace {

void append_row(const std::vector<std::string>& row, std::string& out) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(row[i]);
  }
  out += "\r\n";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_table(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  append_row(header, out);
  for (const std::vector<std::string>& row : rows) {
    HASIM_ASSERT(row.size() == header.size());
    append_row(row, out);
  }
  return out;
}

}  // namespace hasim
