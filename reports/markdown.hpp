#pragma once
// Markdown for report summaries (GitHub-flavoured tables), readable both rendered and as
// plain text in a terminal or a diff, which is why the pipes are aligned.
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

// Makes text safe inside a table cell: "|" would end the cell and a backslash could escape
// the next character, so both get a backslash; a line break would end the row, so it
// becomes a space.
std::string markdown_escape(std::string_view text);

enum class Align { left, right };

// A table with a header row, escaped cells (markdown_escape) padded so the pipes line up,
// and one line per row, ending in a newline. `align` gives each column's alignment (missing
// entries are left); numbers read best right-aligned. Every row has the header's size.
std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::vector<Align>& align = {});

}  // namespace hasim
