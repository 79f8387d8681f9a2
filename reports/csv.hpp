#pragma once
// CSV (RFC 4180) for spreadsheets and data tools: a header line, one line per row, fields
// quoted only when they hold a comma, a quote or a line break, lines ending in CRLF as the
// RFC says.
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

std::string csv_field(std::string_view text);
// Every row has the header's size.
std::string csv_table(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);

}  // namespace hasim
