#include "reports/diff_output.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hasim_version.hpp"
#include "reports/json_text.hpp"
#include "reports/markdown.hpp"
#include "reports/stats.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using Json = nlohmann::ordered_json;

// "+1.234 s" or "-12.50 ms": durations in reports run from milliseconds (raft elections)
// to minutes (upgrades); the unit follows the largest magnitude the row shows, `scale`.
std::string format_time(double ns, double scale, bool sign) {
  const bool seconds = std::abs(scale) >= 1e9;
  std::string text = seconds ? format_fixed(std::abs(ns) / 1e9, 3) + " s"
                             : format_fixed(std::abs(ns) / 1e6, 2) + " ms";
  if (ns < 0 && text.find_first_not_of("0. ms") != std::string::npos) return "-" + text;
  return sign ? "+" + text : text;
}

// "+12.5 pp": a difference of probabilities in percentage points.
std::string format_points(double difference) {
  const std::string text = format_fixed(std::abs(difference) * 100, 1);
  if (difference < 0 && text != "0.0") return "-" + text;
  return "+" + text;
}

// "0.012", "3.2e-05", "<1e-12".
std::string format_p(double p) {
  if (p < 1e-12) return "<1e-12";
  if (p >= 0.001) return format_fixed(p, 3);
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, p, std::chars_format::scientific, 1);
  HASIM_ASSERT(result.ec == std::errc{});
  return std::string(buffer, result.ptr);
}

double probability(std::uint64_t successes, std::uint64_t trials) {
  return static_cast<double>(successes) / static_cast<double>(trials);
}

std::vector<std::string> row_cells(const DiffRow& r) {
  std::string a;
  std::string b;
  std::string difference;
  if (r.durations) {
    const double scale =
        std::max({std::abs(r.difference), std::abs(r.interval.low), std::abs(r.interval.high)});
    const double a_scale = static_cast<double>(std::max(r.a_median, r.b_median));
    a = format_time(static_cast<double>(r.a_median), a_scale, false) + " (" +
        std::to_string(r.a_count) + ")";
    b = format_time(static_cast<double>(r.b_median), a_scale, false) + " (" +
        std::to_string(r.b_count) + ")";
    difference = format_time(r.difference, scale, true) + " [" +
                 format_time(r.interval.low, scale, true) + ", " +
                 format_time(r.interval.high, scale, true) + "]";
  } else {
    a = std::to_string(r.a_successes) + "/" + std::to_string(r.a_trials) + " (" +
        format_probability(probability(r.a_successes, r.a_trials)) + ")";
    b = std::to_string(r.b_successes) + "/" + std::to_string(r.b_trials) + " (" +
        format_probability(probability(r.b_successes, r.b_trials)) + ")";
    difference = format_points(r.difference) + " pp [" + format_points(r.interval.low) + ", " +
                 format_points(r.interval.high) + "]";
  }
  const std::string changed = r.changed ? "**yes**" : "no";
  const std::string figure = r.changed ? "**" + r.figure + "**" : r.figure;
  return {r.cell,
          figure,
          a,
          b,
          difference,
          format_probability(r.level),
          format_p(r.p),
          format_p(r.adjusted_p),
          changed};
}

// "0.05": alpha as given, in the shortest text that reads back to it.
std::string format_alpha(double alpha) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, alpha);
  HASIM_ASSERT(result.ec == std::errc{});
  return std::string(buffer, result.ptr);
}

std::string verdict(const DiffReport& r) {
  const std::string over = "alpha " + format_alpha(r.alpha) + ", Holm-Bonferroni over " +
                           std::to_string(r.rows.size()) + " comparisons";
  if (r.changed() == 0) return "**No change** (" + over + ").";
  std::string names;
  for (const DiffRow& row : r.rows) {
    if (row.changed) names += (names.empty() ? "" : ", ") + row.cell + " " + row.figure;
  }
  return "**Changed: " + std::to_string(r.changed()) + " of " + std::to_string(r.rows.size()) +
         " comparisons** (" + over + "): " + names + ".";
}

// A setting's value, with the duration spelled out for a field in nanoseconds.
std::string setting_value(const std::string& field, const std::string& value) {
  const bool ns = field.size() > 2 && field.compare(field.size() - 2, 2, "Ns") == 0;
  std::int64_t v = 0;
  const auto parsed = std::from_chars(value.data(), value.data() + value.size(), v);
  if (!ns || parsed.ec != std::errc{} || parsed.ptr != value.data() + value.size()) return value;
  return value + " (" + format_duration(Duration{v}) + ")";
}

std::string lists_text(const DiffReport& r) {
  std::string out;
  auto list = [](const std::vector<std::string>& cells) {
    std::string text;
    for (const std::string& c : cells) text += (text.empty() ? "" : ", ") + c;
    return text;
  };
  if (!r.only_in_a.empty()) out += "- Cells only in A (not compared): " + list(r.only_in_a) + "\n";
  if (!r.only_in_b.empty()) out += "- Cells only in B (not compared): " + list(r.only_in_b) + "\n";
  for (const Uncompared& u : r.uncompared) {
    out += "- Not compared: " + u.cell + " " + u.figure + " (" + u.reason + ")\n";
  }
  for (const DiffRow& row : r.rows) {
    if (!row.note.empty()) out += "- " + row.cell + " " + row.figure + ": " + row.note + "\n";
  }
  return out.empty() ? out : out + "\n";
}

const char* kStatistics =
    "Each row compares one figure of one cell, B - A. Probabilities: successes/trials, the "
    "difference in percentage points (pp) with Newcombe's hybrid score interval (from the "
    "two Wilson intervals); p is the level at which that interval just reaches 0. "
    "Durations: median (samples) per side; the difference is the Hodges-Lehmann shift (the "
    "median of all differences b - a) with its distribution-free interval, and p is the "
    "Mann-Whitney U test's (exact for fewer than 50 samples a side without ties, else the "
    "normal approximation with the tie correction). Holm's step-down procedure over every "
    "comparison controls the chance of flagging any change that is not there at alpha; a "
    "row changed when its Holm-adjusted p is at most alpha. Each interval is at the level "
    "Holm tests its row at (1 - alpha / (comparisons - rank + 1), rank by p), so a changed "
    "row's interval excludes 0.\n";

}  // namespace

std::string diff_markdown(const DiffReport& r) {
  std::string out = "# hasim report diff: " + r.study + "\n\n";
  out += "A: " + markdown_escape(r.a_name) + "; B: " + markdown_escape(r.b_name) + "\n\n";
  out += verdict(r) + "\n\n";
  if (!r.settings.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const SettingChange& s : r.settings) {
      rows.push_back({s.field, setting_value(s.field, s.a), setting_value(s.field, s.b)});
    }
    out += "Settings that differ:\n\n" + markdown_table({"setting", "A", "B"}, rows) + "\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const DiffRow& row : r.rows) rows.push_back(row_cells(row));
  if (!rows.empty()) {
    const std::vector<Align> align{Align::left,  Align::left,  Align::right,
                                   Align::right, Align::right, Align::right,
                                   Align::right, Align::right, Align::left};
    out += markdown_table(
               {"cell", "figure", "A", "B", "B - A [interval]", "level", "p", "Holm p", "changed"},
               rows, align) +
           "\n";
  }
  out += lists_text(r);
  return out + kStatistics;
}

std::string diff_json(const DiffReport& r) {
  Json doc;
  doc["report"] = "diff";
  doc["formatVersion"] = kDiffFormatVersion;
  doc["hasimVersion"] = kVersion;
  doc["study"] = r.study;
  doc["a"] = r.a_name;
  doc["b"] = r.b_name;
  doc["alpha"] = r.alpha;
  doc["correction"] = "holm";
  doc["comparisons"] = r.rows.size();
  doc["changed"] = r.changed();
  doc["settingsChanged"] = Json::array();
  for (const SettingChange& s : r.settings) {
    doc["settingsChanged"].push_back({{"field", s.field},
                                      {"a", Json::parse(s.a, nullptr, false, true)},
                                      {"b", Json::parse(s.b, nullptr, false, true)}});
  }
  doc["onlyInA"] = r.only_in_a;
  doc["onlyInB"] = r.only_in_b;
  doc["notCompared"] = Json::array();
  for (const Uncompared& u : r.uncompared) {
    doc["notCompared"].push_back({{"cell", u.cell}, {"figure", u.figure}, {"reason", u.reason}});
  }
  doc["rows"] = Json::array();
  for (const DiffRow& row : r.rows) {
    Json j = {{"cell", row.cell}, {"figure", row.figure}, {"meaning", row.meaning}};
    if (row.durations) {
      j["kind"] = "durations";
      j["a"] = {{"samples", row.a_count}, {"medianNs", row.a_median}};
      j["b"] = {{"samples", row.b_count}, {"medianNs", row.b_median}};
      j["unit"] = "ns";
    } else {
      j["kind"] = "probability";
      j["a"] = {{"successes", row.a_successes}, {"trials", row.a_trials}};
      j["b"] = {{"successes", row.b_successes}, {"trials", row.b_trials}};
      j["unit"] = "probability";
    }
    j["difference"] = row.difference;
    j["interval"] = {row.interval.low, row.interval.high};
    j["level"] = row.level;
    j["p"] = row.p;
    j["adjustedP"] = row.adjusted_p;
    j["changed"] = row.changed;
    j["method"] = row.method;
    j["note"] = row.note;
    doc["rows"].push_back(std::move(j));
  }
  return json_text(doc);
}

}  // namespace hasim
