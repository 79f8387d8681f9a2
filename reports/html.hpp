#pragma once
// One self-contained HTML5 report file: inline style, inline SVG charts, no scripts and no
// external resources of any kind, so it opens offline, can be attached to an issue or
// archived next to its JSON, and renders the same years later. A Content-Security-Policy
// meta tag makes the browser refuse any network fetch should one ever slip in.
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

// Escapes text for HTML element content and quoted attribute values (& < > " ').
std::string html_escape(std::string_view text);

class HtmlReport {
 public:
  explicit HtmlReport(std::string title);

  // <h1>..<h6>; level in [1, 6]. The title is already the page's <h1>.
  void add_heading(int level, std::string_view text);
  // A paragraph of plain text (escaped).
  void add_paragraph(std::string_view text);
  // Trusted markup inserted as is, e.g. a chart from reports/svg.hpp.
  void add_raw(std::string_view html);
  // A table of plain-text cells (escaped). Every row has as many cells as the header.
  void add_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);
  // A set-off remark: how to read a chart, what an interval means, a caveat (escaped).
  void add_note(std::string_view text);

  // The whole document.
  std::string str() const;

 private:
  std::string title_;
  std::string body_;
};

}  // namespace hasim
