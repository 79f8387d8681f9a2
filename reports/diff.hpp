#pragma once
// `hasim report diff A.json B.json`: two reports of one study (two settings, two versions
// of hasim, or only two seeds) compared cell by cell, answering "did this change make
// upgrades riskier or failover slower?". What a study's JSON holds and which figures to
// compare is the study's own declaration (StudyInfo::compared); a comparison is one figure
// of one cell, identified by the study, the cell's name and the figure's name.
//
// Probabilities: Newcombe's hybrid score interval for the difference; durations: the
// Mann-Whitney U test with the Hodges-Lehmann shift and its interval (reports/diff_stats).
// Holm's procedure over every comparison made decides which changed, so comparing many
// cells does not manufacture changes; intervals are at the level Holm tests each at.
// Writers: reports/diff_output.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/diff_stats.hpp"

namespace hasim {

// A report file: the name it was given by (for messages) and its text.
struct DiffInput {
  std::string name;
  std::string text;
};

// One figure of one cell in both reports.
struct DiffRow {
  std::string cell;
  std::string figure;
  std::string meaning;
  bool durations = false;
  // A probability: successes out of trials, per side.
  std::uint64_t a_successes = 0;
  std::uint64_t a_trials = 0;
  std::uint64_t b_successes = 0;
  std::uint64_t b_trials = 0;
  // Durations: how many samples, and their medians (nearest rank, ns), per side.
  std::uint64_t a_count = 0;
  std::uint64_t b_count = 0;
  std::int64_t a_median = 0;
  std::int64_t b_median = 0;
  // B - A: a difference of probabilities, or the Hodges-Lehmann shift in ns.
  double difference = 0;
  DiffInterval interval;  // at `level`
  double level = 0;       // 1 - the alpha Holm tests this comparison at
  double p = 1;
  double adjusted_p = 1;  // Holm
  bool changed = false;   // adjusted_p <= the report's alpha
  std::string method;     // "Newcombe hybrid score", "Mann-Whitney U exact", ...
  std::string note;       // "" or what qualifies the result (ties, a clipped interval)
};

// A setting (a JSON leaf the study names) whose value differs between the reports.
struct SettingChange {
  std::string field;  // JSON pointer, "/settings/leaseDurationNs"
  std::string a;      // the values as JSON text; "(absent)" if one report lacks it
  std::string b;
};

// A figure of a cell in both reports that could not be compared (no samples on a side).
struct Uncompared {
  std::string cell;
  std::string figure;
  std::string reason;
};

struct DiffReport {
  std::string study;
  std::string a_name;
  std::string b_name;
  double alpha = 0.05;
  std::vector<SettingChange> settings;
  std::vector<std::string> only_in_a;  // cells, in their report's order
  std::vector<std::string> only_in_b;
  std::vector<Uncompared> uncompared;
  // Changed ones first (smallest adjusted p first), then the others in A's order of cells
  // and the study's order of figures.
  std::vector<DiffRow> rows;
  std::size_t changed() const;
};

// Compares two report texts. nullopt with a message in `error` (naming the file, the field
// and the fix) when a text is not JSON, not a report of a hasim study (a shard, say), when
// the two are of different studies or JSON format versions, or when a field the comparison
// needs is missing or malformed. 0 < alpha < 1.
std::optional<DiffReport> diff_reports(const DiffInput& a, const DiffInput& b, double alpha,
                                       std::string* error);

}  // namespace hasim
