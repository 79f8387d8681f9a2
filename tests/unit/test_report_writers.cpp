// Report writers: SVG charts (well-formed, escaped, deterministic, correct steps and axis
// ticks), the self-contained HTML page, Markdown tables, and the output directory's
// refusal to overwrite without --force.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/html.hpp"
#include "reports/markdown.hpp"
#include "reports/output_dir.hpp"
#include "reports/svg.hpp"
#include "sim/rng.hpp"

using namespace hasim;
using namespace hasim::literals;
namespace fs = std::filesystem;

namespace {

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}
bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// A small XML well-formedness check: tags nest and close, attribute values are quoted,
// every '&' starts a known entity, and there is exactly one root element. Returns "" if
// the markup passes, else what is wrong.
std::string xml_problem(const std::string& xml) {
  std::size_t i = 0;
  const auto at = [&] { return " at offset " + std::to_string(i); };
  const auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':';
  };
  const auto skip_space = [&] {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
  };
  const auto read_name = [&] {
    const std::size_t from = i;
    if (i < xml.size() && std::isalpha(static_cast<unsigned char>(xml[i]))) {
      while (i < xml.size() && is_name_char(xml[i])) ++i;
    }
    return xml.substr(from, i - from);
  };
  const auto entity_ok = [&] {  // at '&'; advances past the entity
    static const std::array<std::string_view, 5> kNamed{"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    for (const std::string_view e : kNamed) {
      if (xml.compare(i, e.size(), e) == 0) {
        i += e.size();
        return true;
      }
    }
    return false;
  };
  std::vector<std::string> open;
  int roots = 0;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!entity_ok()) return "bare &" + at();
    } else if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) {
        return "text outside the root" + at();
      }
      ++i;
    } else if (i + 1 < xml.size() && xml[i + 1] == '/') {
      i += 2;
      const std::string name = read_name();
      skip_space();
      if (i >= xml.size() || xml[i] != '>') return "bad closing tag" + at();
      ++i;
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">" + at();
      open.pop_back();
    } else {
      ++i;
      const std::string name = read_name();
      if (name.empty()) return "bad tag name" + at();
      if (open.empty()) ++roots;
      for (;;) {
        skip_space();
        if (i >= xml.size()) return "unterminated <" + name + ">";
        if (xml.compare(i, 2, "/>") == 0) {
          i += 2;
          break;
        }
        if (xml[i] == '>') {
          ++i;
          open.push_back(name);
          break;
        }
        if (read_name().empty()) return "bad attribute in <" + name + ">" + at();
        skip_space();
        if (i >= xml.size() || xml[i] != '=') return "attribute without value" + at();
        ++i;
        skip_space();
        if (i >= xml.size() || (xml[i] != '"' && xml[i] != '\'')) {
          return "unquoted attribute value" + at();
        }
        const char quote = xml[i++];
        while (i < xml.size() && xml[i] != quote) {
          if (xml[i] == '<') return "< in attribute value" + at();
          if (xml[i] == '&') {
            if (!entity_ok()) return "bare & in attribute value" + at();
          } else {
            ++i;
          }
        }
        if (i >= xml.size()) return "unterminated attribute value";
        ++i;
      }
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

std::vector<Duration> seconds_list(std::initializer_list<std::int64_t> values) {
  std::vector<Duration> out;
  for (const std::int64_t v : values) out.push_back(seconds(v));
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scratch directory next to the test binary (that is, in the build directory), unique
// to this process and emptied before and after use.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code code;
    fs::path base = fs::read_symlink("/proc/self/exe", code).parent_path();
    if (code || base.empty()) base = fs::temp_directory_path();
    path_ = base / ("report-test-" + std::to_string(getpid()));
    fs::remove_all(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

TEST_CASE("the XML check used below rejects broken markup", "[report][svg]") {
  CHECK(xml_problem("<svg><g></g><rect x=\"1\"/></svg>").empty());
  CHECK_FALSE(xml_problem("<svg><g></svg>").empty());
  CHECK_FALSE(xml_problem("<svg>a & b</svg>").empty());
  CHECK_FALSE(xml_problem("<svg>a <b</svg>").empty());
  CHECK_FALSE(xml_problem("<svg x=1></svg>").empty());
  CHECK_FALSE(xml_problem("<svg></svg><svg></svg>").empty());
}

TEST_CASE("xml_escape escapes markup and replaces characters XML cannot hold", "[report][svg]") {
  CHECK(xml_escape("a<b & c>\"d'") == "a&lt;b &amp; c&gt;&quot;d&#39;");
  CHECK(xml_escape(std::string("bell\x07!")) == "bell\xEF\xBF\xBD!");
  CHECK(xml_escape("tab\tand µs") == "tab\tand µs");
}

TEST_CASE("svg_cdf_plot draws well-formed, escaped, deterministic step lines", "[report][svg]") {
  PlotOptions options;
  options.title = "Leaderless time <after crash> & restart";
  const std::vector<CdfSeries> series{
      {"leases <default> & \"fast\"", "", seconds_list({1, 2, 2, 10})},
      {"CLE", "#123456", seconds_list({3, 4, 5})},
  };
  const std::string svg = svg_cdf_plot(series, options);
  INFO(svg);
  CHECK(starts_with(svg, "<svg "));
  CHECK(ends_with(svg, "</svg>"));
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains("leases &lt;default&gt; &amp; &quot;fast&quot;"));
  CHECK_THAT(svg, Catch::Contains("Leaderless time &lt;after crash&gt; &amp; restart"));
  CHECK_THAT(svg, !Catch::Contains("<default>"));
  CHECK_THAT(svg, Catch::Contains("stroke=\"#123456\""));
  CHECK_THAT(svg, Catch::Contains(palette_colour(0)));
  CHECK(occurrences(svg, "<path ") == 2);
  // 0..10 s gives round ticks every 2 s, labelled in seconds.
  for (const char* tick :
       {">0</text>", ">2</text>", ">4</text>", ">6</text>", ">8</text>", ">10</text>"}) {
    CHECK_THAT(svg, Catch::Contains(tick));
  }
  for (const char* tick : {">0.25</text>", ">0.5</text>", ">0.75</text>", ">1</text>"}) {
    CHECK_THAT(svg, Catch::Contains(tick));
  }
  CHECK_THAT(svg, Catch::Contains(">seconds</text>"));
  CHECK_THAT(svg, !Catch::Contains("http"));  // inline SVG needs no namespace, fetches nothing
  CHECK(svg_cdf_plot(series, options) == svg);
  auto changed = series;
  changed[1].sorted.back() = seconds(6);
  CHECK(svg_cdf_plot(changed, options) != svg);
}

TEST_CASE("svg_cdf_plot steps up at each sample, right-continuously", "[report][svg]") {
  // Default 720x360 frame: x from 64 to 704 px, y from 312 (fraction 0) to 36 (fraction 1);
  // the axis is 0..10 s. Half the samples are 0 s, so the curve starts at 0.5 and rises to
  // 1 at 10 s.
  const std::string svg = svg_cdf_plot({{"x", "", seconds_list({0, 10})}}, {});
  CHECK_THAT(svg, Catch::Contains("d=\"M64 312V174H704V36\""));
}

TEST_CASE("svg_cdf_plot keeps its path small for many trials", "[report][svg]") {
  Rng rng(7);
  std::vector<Duration> samples;
  for (int i = 0; i < 100'000; ++i)
    samples.push_back(nanoseconds(rng.uniform_int(0, 30'000'000'000)));
  std::sort(samples.begin(), samples.end());
  const std::string svg = svg_cdf_plot({{"many", "", samples}}, {});
  CHECK(xml_problem(svg).empty());
  CHECK(svg.size() < 200'000);  // one step per tenth of a pixel at most, not per sample
}

TEST_CASE("svg_cdf_plot copes with no samples", "[report][svg]") {
  const std::string svg = svg_cdf_plot({{"empty", "", {}}}, {});
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains("empty (no samples)"));
  CHECK(occurrences(svg, "<path ") == 0);
  CHECK(xml_problem(svg_cdf_plot({}, {})).empty());
}

TEST_CASE("svg_bar_chart groups bars, draws whiskers and escapes labels", "[report][svg]") {
  const std::vector<Bar> bars{
      {"3 nodes", "lease", 0.25, wilson_interval(25, 100)},
      {"3 nodes", "CLE <fallback>", 0.05, wilson_interval(5, 100)},
      {"5 <nodes> & more", "lease", 0.10, wilson_interval(10, 100)},
  };
  PlotOptions options;
  options.title = "P(skew violation)";
  const std::string svg = svg_bar_chart(bars, options);
  INFO(svg);
  CHECK(starts_with(svg, "<svg "));
  CHECK(ends_with(svg, "</svg>"));
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains("5 &lt;nodes&gt; &amp; more"));
  CHECK_THAT(svg, Catch::Contains("CLE &lt;fallback&gt;"));
  CHECK_THAT(svg, !Catch::Contains("<fallback>"));
  // The legend names each group once; the tooltip gives the value and its interval.
  CHECK(occurrences(svg, ">lease</text>") == 1);
  CHECK(occurrences(svg, ">CLE &lt;fallback&gt;</text>") == 1);
  CHECK_THAT(svg, Catch::Contains("3 nodes · lease: 25.0% [17.5%, 34.3%]"));
  // Highest whisker 34.3%: the axis ends at 40% in steps of 10%.
  CHECK_THAT(svg, Catch::Contains(">40%</text>"));
  CHECK_THAT(svg, Catch::Contains(">10%</text>"));
  CHECK_THAT(svg, !Catch::Contains(">50%</text>"));
  // Three bars with three whiskers of three lines each.
  CHECK(occurrences(svg, "stroke=\"#111\"") == 9);
  CHECK(svg_bar_chart(bars, options) == svg);
}

TEST_CASE("svg_bar_chart scales the axis so rare events stay visible", "[report][svg]") {
  const std::string svg = svg_bar_chart({{"upgrade", "", 0.0, wilson_interval(0, 10'000)}}, {});
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains(">0.04%</text>"));  // upper bound 0.038%
  CHECK_THAT(svg, !Catch::Contains(">100%</text>"));
  const std::string empty = svg_bar_chart({}, {});
  CHECK(xml_problem(empty).empty());
  CHECK_THAT(empty, Catch::Contains("no data"));
}

TEST_CASE("svg_bar_chart slants labels that do not fit", "[report][svg]") {
  std::vector<Bar> bars;
  for (int i = 0; i < 30; ++i) {
    bars.push_back({"cell with a long name " + std::to_string(i), "", 0.5, {0.4, 0.6}});
  }
  const std::string svg = svg_bar_chart(bars, {});
  CHECK(xml_problem(svg).empty());
  CHECK(occurrences(svg, "rotate(-45") == 30);
}

TEST_CASE("svg_timeline draws lanes, clipped segments and markers", "[report][svg]") {
  const std::vector<TimelineLane> lanes{
      {"n1 <kcm>",
       {{TrueTime{0}, TrueTime{30'000'000'000}, "leader v1.30 & up", "#0072B2"},
        {TrueTime{200'000'000'000}, TrueTime{300'000'000'000}, "outside", ""}},
       {{TrueTime{45'000'000'000}, "crash <n1>", "#D55E00"}}},
      {"n2/kcm", {{TrueTime{50'000'000'000}, TrueTime{500'000'000'000}, "leader v1.31", ""}}, {}},
  };
  PlotOptions options;
  options.title = "Who led when";
  const std::string svg = svg_timeline(lanes, TrueTime{0}, TrueTime{120'000'000'000}, options);
  INFO(svg);
  CHECK(starts_with(svg, "<svg "));
  CHECK(ends_with(svg, "</svg>"));
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains("n1 &lt;kcm&gt;"));
  CHECK_THAT(svg, Catch::Contains("leader v1.30 &amp; up"));
  CHECK_THAT(svg, Catch::Contains("crash &lt;n1&gt;"));
  CHECK_THAT(svg, !Catch::Contains("outside"));  // wholly after the end: not drawn
  // A segment running past the end is clipped at the right edge (704 px) but keeps its
  // true times in the tooltip.
  CHECK_THAT(svg, Catch::Contains("leader v1.31 (50s to 8m20s)"));
  // 0..2 min: ticks every 50 s, labelled as durations since the start.
  CHECK_THAT(svg, Catch::Contains(">50s</text>"));
  CHECK_THAT(svg, Catch::Contains(">1m40s</text>"));
  CHECK(svg == svg_timeline(lanes, TrueTime{0}, TrueTime{120'000'000'000}, options));
}

TEST_CASE("svg_document makes a standalone SVG file", "[report][svg]") {
  const std::string doc = svg_document(svg_bar_chart({}, {}));
  CHECK(starts_with(doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  CHECK_THAT(doc, Catch::Contains("xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(ends_with(doc, "</svg>\n"));
}

TEST_CASE("HtmlReport builds one self-contained, escaped page", "[report][html]") {
  HtmlReport report("Failover <report> & co");
  report.add_heading(2, "Leaderless time");
  report.add_paragraph("<script>alert('x')</script> & friends");
  report.add_raw(svg_cdf_plot({{"leases", "", seconds_list({1, 2, 3})}}, {}));
  report.add_table({"cell", "P(violation)"}, {{"<b>3 nodes</b>", "25.3%"}});
  report.add_note("Intervals are 95% Wilson score intervals.");
  const std::string html = report.str();
  INFO(html);
  CHECK(starts_with(html, "<!DOCTYPE html>\n<html lang=\"en\">"));
  CHECK(ends_with(html, "</html>\n"));
  CHECK_THAT(html, Catch::Contains("<meta charset=\"utf-8\">"));
  CHECK_THAT(html, Catch::Contains("<title>Failover &lt;report&gt; &amp; co</title>"));
  CHECK_THAT(html, Catch::Contains("<h1>Failover &lt;report&gt; &amp; co</h1>"));
  CHECK_THAT(html, Catch::Contains("<h2>Leaderless time</h2>"));
  CHECK_THAT(html,
             Catch::Contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; friends"));
  CHECK_THAT(html, Catch::Contains("<th>P(violation)</th>"));
  CHECK_THAT(html, Catch::Contains("<td>&lt;b&gt;3 nodes&lt;/b&gt;</td>"));
  CHECK_THAT(html, Catch::Contains("class=\"note\">Intervals are 95% Wilson score intervals."));
  CHECK_THAT(html, Catch::Contains("<svg "));
  CHECK_THAT(html, Catch::Contains("<style>"));
  // Nothing to fetch: no links, no scripts, and a policy forbidding network access.
  CHECK_THAT(html, !Catch::Contains("http://"));
  CHECK_THAT(html, !Catch::Contains("https://"));
  CHECK_THAT(html, !Catch::Contains("<script"));
  CHECK_THAT(html, !Catch::Contains("<link"));
  CHECK_THAT(html, !Catch::Contains("url("));
  CHECK_THAT(html, Catch::Contains("default-src 'none'"));
  CHECK(html_escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
}

TEST_CASE("markdown_table aligns pipes and escapes cells", "[report][markdown]") {
  const std::string table =
      markdown_table({"cell", "p"}, {{"a|b", "25.3%"}, {"µs", "1%"}}, {Align::left, Align::right});
  CHECK(table ==
        "| cell |     p |\n"
        "| ---- | ----: |\n"
        "| a\\|b | 25.3% |\n"
        "| µs   |    1% |\n");
  CHECK(markdown_table({"x"}, {}) == "| x   |\n| --- |\n");
  CHECK(markdown_escape("a|b\\c\nd") == "a\\|b\\\\c d");
}

TEST_CASE("prepare_output_dir refuses to overwrite without --force", "[report][output]") {
  ScratchDir scratch;
  const std::string dir = (scratch.path() / "nested" / "out").string();
  const std::vector<std::string> files{"report.html", "report.json"};
  std::string error;

  REQUIRE(prepare_output_dir(dir, files, false, &error));  // creates parents
  CHECK(fs::is_directory(dir));

  const std::string html = (fs::path(dir) / "report.html").string();
  REQUIRE(write_text_file(html, "<p>one</p>", &error));
  CHECK(read_file(html) == "<p>one</p>");
  CHECK_FALSE(fs::exists(html + ".partial"));

  CHECK_FALSE(prepare_output_dir(dir, files, false, &error));
  CHECK_THAT(error, Catch::Contains("report.html") && Catch::Contains("already exists") &&
                        Catch::Contains("use --force to overwrite"));
  CHECK_THAT(error, !Catch::Contains("report.json"));

  REQUIRE(write_text_file((fs::path(dir) / "report.json").string(), "{}", &error));
  CHECK_FALSE(prepare_output_dir(dir, files, false, &error));
  CHECK_THAT(error,
             Catch::Contains("report.html and ") && Catch::Contains("report.json already exist"));

  error.clear();
  CHECK(prepare_output_dir(dir, files, true, &error));
  CHECK(error.empty());
  REQUIRE(write_text_file(html, "<p>two</p>", &error));
  CHECK(read_file(html) == "<p>two</p>");

  // Files the report does not write do not matter.
  CHECK(prepare_output_dir(dir, {"report.md"}, false, &error));
}

TEST_CASE("prepare_output_dir and write_text_file report what they cannot do", "[report][output]") {
  ScratchDir scratch;
  fs::create_directories(scratch.path());
  std::string error;

  const std::string file = (scratch.path() / "plain-file").string();
  REQUIRE(write_text_file(file, "x", &error));
  CHECK_FALSE(prepare_output_dir(file, {"report.html"}, true, &error));
  CHECK_THAT(error, Catch::Contains("plain-file") && Catch::Contains("not a directory"));

  fs::create_directories(scratch.path() / "report.html");
  CHECK_FALSE(prepare_output_dir(scratch.path().string(), {"report.html"}, true, &error));
  CHECK_THAT(error, Catch::Contains("is a directory"));

  const std::string missing = (scratch.path() / "no-such-dir" / "report.md").string();
  CHECK_FALSE(write_text_file(missing, "x", &error));
  CHECK_THAT(error, Catch::Contains(missing));
}
