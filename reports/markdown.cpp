#include "reports/markdown.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim {
namespace {

// Width in code points (UTF-8 continuation bytes do not count), so "µs" or "≤" pad right.
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string pad(const std::string& text, std::size_t width, Align align) {
  const std::size_t fill = width - std::min(width, display_width(text));
  return align == Align::right ? std::string(fill, ' ') + text : text + std::string(fill, ' ');
}

}  // namespace

std::string markdown_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::vector<Align>& align) {
  HASIM_ASSERT(!header.empty());
  const std::size_t columns = header.size();
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size() + 1);
  const auto escaped = [](const std::vector<std::string>& row) {
    std::vector<std::string> out;
    out.reserve(row.size());
    for (const std::string& cell : row) out.push_back(markdown_escape(cell));
    return out;
  };
  cells.push_back(escaped(header));
  for (const std::vector<std::string>& row : rows) {
    HASIM_ASSERT(row.size() == columns);
    cells.push_back(escaped(row));
  }
  // At least 3 wide: the delimiter row needs "---" (or "--:") in every column.
  std::vector<std::size_t> width(columns, 3);
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], display_width(row[c]));
  }
  const auto column_align = [&](std::size_t c) {
    return c < align.size() ? align[c] : Align::left;
  };
  const auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (std::size_t c = 0; c < columns; ++c)
      out += " " + pad(row[c], width[c], column_align(c)) + " |";
    return out + "\n";
  };
  std::string out = line(cells[0]);
  out += "|";
  for (std::size_t c = 0; c < columns; ++c) {
    out += column_align(c) == Align::right ? " " + std::string(width[c] - 1, '-') + ": |"
                                           : " " + std::string(width[c], '-') + " |";
  }
  out += "\n";
  for (std::size_t r = 1; r < cells.size(); ++r) out += line(cells[r]);
  return out;
}

}  // namespace hasim
