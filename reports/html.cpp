#include "reports/html.hpp"

#include "reports/svg.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// Readable defaults: a measure of about 70 characters for text, bordered tables with
// tabular digits so columns of numbers line up, charts that shrink on narrow screens.
// Only locally installed fonts are named; nothing is fetched.
constexpr std::string_view kStyle =
    R"(body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  line-height: 1.5; color: #222; background: #fff; max-width: 64rem; margin: 2rem auto; padding: 0 1rem; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.6em 0 0.5em; }
p, .note { max-width: 48rem; }
.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 1rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #bbb; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tbody tr:nth-child(even) { background: #fafafa; }
svg { display: block; max-width: 100%; height: auto; margin: 1rem 0; }
.note { border-left: 4px solid #999; background: #f6f6f6; padding: 0.5rem 0.8rem; color: #444; }
)";

}  // namespace

// HTML5 text and attribute values need the same five escapes as XML; sharing xml_escape also
// keeps control characters out of the page.
std::string html_escape(std::string_view text) { return xml_escape(text); }

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::add_heading(int level, std::string_view text) {
  HASIM_ASSERT(level >= 1 && level <= 6);
  const std::string tag = "h" + std::to_string(level);
  body_ += "<" + tag + ">" + html_escape(text) + "</" + tag + ">\n";
}

void HtmlReport::add_paragraph(std::string_view text) {
  body_ += "<p>" + html_escape(text) + "</p>\n";
}

void HtmlReport::add_raw(std::string_view html) {
  body_ += html;
  body_ += "\n";
}

void HtmlReport::add_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows) {
  body_ += "<div class=\"table\"><table>\n";
  if (!header.empty()) {
    body_ += "<thead><tr>";
    for (const std::string& cell : header) body_ += "<th>" + html_escape(cell) + "</th>";
    body_ += "</tr></thead>\n";
  }
  body_ += "<tbody>\n";
  for (const std::vector<std::string>& row : rows) {
    HASIM_ASSERT(header.empty() || row.size() == header.size());
    body_ += "<tr>";
    for (const std::string& cell : row) body_ += "<td>" + html_escape(cell) + "</td>";
    body_ += "</tr>\n";
  }
  body_ += "</tbody></table></div>\n";
}

void HtmlReport::add_note(std::string_view text) {
  body_ += "<p class=\"note\">" + html_escape(text) + "</p>\n";
}

std::string HtmlReport::str() const {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\">\n";
  out += "<title>" + html_escape(title_) + "</title>\n";
  out += "<style>\n";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(title_) + "</h1>\n";
  out += body_;
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace hasim
