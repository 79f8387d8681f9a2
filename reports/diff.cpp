#include "reports/diff.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "reports/studies.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using Json = nlohmann::ordered_json;

// Bad input found while reading: caught in diff_reports and returned as its message.
struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Settings are objects of values, a few levels deep; deeper ones compare as one value.
constexpr int kMaxSettingDepth = 8;
// Studies have tens of cells; cells are matched by name in quadratic time.
constexpr std::size_t kMaxCells = 10'000;

std::string quoted(const std::string& field) { return "\"" + field + "\""; }

// A member name as one token of a JSON pointer (RFC 6901: "~" and "/" escaped).
std::string pointer_token(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

const Json& field(const DiffInput& in, const Json& doc, const std::string& pointer) {
  const Json::json_pointer at(pointer);
  if (!doc.contains(at)) {
    throw Refusal(in.name + ": field " + quoted(pointer) +
                  " is missing; give a report JSON written by `hasim report` (NAME.json)");
  }
  return doc.at(at);
}

std::uint64_t count_field(const DiffInput& in, const Json& doc, const std::string& pointer) {
  const Json& v = field(in, doc, pointer);
  if (!v.is_number_unsigned()) {
    throw Refusal(in.name + ": field " + quoted(pointer) + " must be a whole number >= 0, not " +
                  v.dump());
  }
  return v.get<std::uint64_t>();
}

Json parse_report(const DiffInput& in) {
  Json doc = Json::parse(in.text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw Refusal(in.name + " is not a JSON object; give a report JSON written by `hasim report`");
  }
  return doc;
}

// The study whose report `doc` is, checked to be a whole report in this hasim's format.
StudyInfo study_of(const DiffInput& in, const Json& doc) {
  const Json& report = field(in, doc, "/report");
  const StudyEntry* entry = report.is_string() ? find_study(report.get<std::string>()) : nullptr;
  if (entry == nullptr) {
    throw Refusal(in.name + ": field \"report\" is " + report.dump() +
                  ", not a hasim study (the studies: " + study_names() + ")");
  }
  if (doc.contains("file") && doc.at("file") != "report") {
    throw Refusal(in.name + ": field \"file\" is " + doc.at("file").dump() +
                  ", not \"report\"; merge shards into a report first (`hasim merge SHARD...`)");
  }
  StudyInfo info = entry->make()->info();
  const Json& format = field(in, doc, "/formatVersion");
  if (!format.is_number_integer() || format.get<std::int64_t>() != info.format_version) {
    throw Refusal(in.name + ": field \"formatVersion\" is " + format.dump() +
                  ", this hasim reads " + info.name + " reports of format " +
                  std::to_string(info.format_version) + "; re-run the study with this hasim");
  }
  HASIM_ASSERT(!info.compared.cells.empty() && !info.compared.figures.empty());
  return info;
}

// (cell name, JSON pointer to the cell) in the report's order.
std::vector<std::pair<std::string, std::string>> cells_of(const DiffInput& in, const Json& doc,
                                                          const ComparedCells& layout) {
  const Json& cells = field(in, doc, layout.cells);
  if (cells.size() > kMaxCells) {
    throw Refusal(in.name + ": field " + quoted(layout.cells) + " has more than " +
                  std::to_string(kMaxCells) + " cells");
  }
  std::vector<std::pair<std::string, std::string>> out;
  if (layout.cell_name.empty()) {
    if (!cells.is_object())
      throw Refusal(in.name + ": field " + quoted(layout.cells) + " must be an object");
    for (auto it = cells.begin(); it != cells.end(); ++it) {
      out.emplace_back(it.key(), layout.cells + "/" + pointer_token(it.key()));
    }
    return out;
  }
  if (!cells.is_array())
    throw Refusal(in.name + ": field " + quoted(layout.cells) + " must be an array");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string at = layout.cells + "/" + std::to_string(i);
    const Json& name = field(in, doc, at + layout.cell_name);
    if (!name.is_string())
      throw Refusal(in.name + ": field " + quoted(at + layout.cell_name) + " must be a string");
    const std::string cell = name.get<std::string>();
    if (std::any_of(out.begin(), out.end(), [&](const auto& c) { return c.first == cell; })) {
      throw Refusal(in.name + ": cell " + quoted(cell) + " appears twice in " +
                    quoted(layout.cells));
    }
    out.emplace_back(cell, at);
  }
  return out;
}

// A figure's samples, those where `samples_where` is 1 if the figure names such an array.
std::vector<std::int64_t> samples_of(const DiffInput& in, const Json& doc, const std::string& cell,
                                     const ComparedFigure& figure) {
  const std::string at = cell + figure.samples;
  const Json& values = field(in, doc, at);
  if (!values.is_array() || values.size() > kMaxSamples) {
    throw Refusal(in.name + ": field " + quoted(at) + " must be an array of at most " +
                  std::to_string(kMaxSamples) + " samples");
  }
  const Json* where = nullptr;
  if (!figure.samples_where.empty()) {
    where = &field(in, doc, cell + figure.samples_where);
    if (!where->is_array() || where->size() != values.size()) {
      throw Refusal(in.name + ": field " + quoted(cell + figure.samples_where) +
                    " must be an array as long as " + quoted(at));
    }
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Json& v = values[i];
    if (!v.is_number_integer() || v.get<std::int64_t>() < -kMaxSampleMagnitude ||
        v.get<std::int64_t>() > kMaxSampleMagnitude) {
      throw Refusal(in.name + ": field " + quoted(at + "/" + std::to_string(i)) +
                    " must be a whole number of nanoseconds, not " + v.dump());
    }
    if (where != nullptr && (*where)[i] != 0 && (*where)[i] != 1) {
      throw Refusal(in.name + ": field " +
                    quoted(cell + figure.samples_where + "/" + std::to_string(i)) +
                    " must be 0 or 1, not " + (*where)[i].dump());
    }
    if (where == nullptr || (*where)[i] == 1) out.push_back(v.get<std::int64_t>());
  }
  return out;
}

std::int64_t median(std::vector<std::int64_t> samples) {
  HASIM_ASSERT(!samples.empty());
  std::sort(samples.begin(), samples.end());
  return samples[(samples.size() + 1) / 2 - 1];  // nearest rank, as the reports' p50
}

// A comparison read from both reports, before Holm's procedure sets its level.
struct Pending {
  DiffRow row;
  std::vector<std::int64_t> a;  // durations
  std::vector<std::int64_t> b;
};

struct Sides {
  const DiffInput& a;
  const Json& a_doc;
  const DiffInput& b;
  const Json& b_doc;
};

void read_counts(const DiffInput& in, const Json& doc, const std::string& cell,
                 const ComparedFigure& figure, std::uint64_t& successes, std::uint64_t& trials) {
  successes = count_field(in, doc, cell + figure.successes);
  trials = count_field(in, doc, cell + figure.trials);
  if (trials > kMaxTrials) {
    throw Refusal(in.name + ": field " + quoted(cell + figure.trials) + " is above " +
                  std::to_string(kMaxTrials) + " trials, more than diff compares");
  }
  if (successes > trials) {
    throw Refusal(in.name + ": field " + quoted(cell + figure.successes) + " exceeds " +
                  quoted(cell + figure.trials));
  }
}

// One figure of one cell from both reports (at a_at and b_at), with its p-value; nullopt,
// recorded in `uncompared`, when a side has nothing to compare.
std::optional<Pending> read_pair(const Sides& s, const std::string& cell, const std::string& a_at,
                                 const std::string& b_at, const ComparedFigure& figure,
                                 std::vector<Uncompared>& uncompared) {
  Pending p;
  DiffRow& r = p.row;
  r.cell = cell;
  r.figure = figure.name;
  r.meaning = figure.meaning;
  r.durations = figure.durations();
  if (r.durations) {
    p.a = samples_of(s.a, s.a_doc, a_at, figure);
    p.b = samples_of(s.b, s.b_doc, b_at, figure);
    r.a_count = p.a.size();
    r.b_count = p.b.size();
    if (p.a.empty() || p.b.empty()) {
      uncompared.push_back(
          {cell, figure.name, p.a.empty() ? "no samples in A" : "no samples in B"});
      return std::nullopt;
    }
    r.a_median = median(p.a);
    r.b_median = median(p.b);
    const MannWhitney test = mann_whitney(p.a, p.b);
    r.p = test.p;
    r.method = test.exact ? "Mann-Whitney U, exact" : "Mann-Whitney U, normal approximation";
    if (!test.exact && test.ties && std::min(p.a.size(), p.b.size()) < kExactBelow) {
      r.note = "small samples with ties: p is approximate";
    }
    return p;
  }
  read_counts(s.a, s.a_doc, a_at, figure, r.a_successes, r.a_trials);
  read_counts(s.b, s.b_doc, b_at, figure, r.b_successes, r.b_trials);
  if (r.a_trials == 0 || r.b_trials == 0) {
    uncompared.push_back(
        {cell, figure.name, r.a_trials == 0 ? "no trials in A" : "no trials in B"});
    return std::nullopt;
  }
  r.p = newcombe_p_value(r.a_successes, r.a_trials, r.b_successes, r.b_trials);
  r.method = "Newcombe hybrid score";
  return p;
}

// The difference and its interval at the level Holm tests the comparison at.
void set_difference(Pending& p, double alpha) {
  DiffRow& r = p.row;
  r.level = 1 - alpha;
  if (!r.durations) {
    r.difference = static_cast<double>(r.b_successes) / static_cast<double>(r.b_trials) -
                   static_cast<double>(r.a_successes) / static_cast<double>(r.a_trials);
    r.interval = newcombe_interval(r.a_successes, r.a_trials, r.b_successes, r.b_trials,
                                   normal_upper_quantile(alpha / 2));
    return;
  }
  const Shift shift = hodges_lehmann(p.a, p.b, alpha);
  r.difference = shift.estimate;
  r.interval = {static_cast<double>(shift.low), static_cast<double>(shift.high)};
  if (shift.clipped) {
    r.note += std::string(r.note.empty() ? "" : "; ") +
              "too few samples for this level: the interval is the range of differences";
  }
}

using Leaves = std::vector<std::pair<std::string, std::string>>;

// Objects walked to their values: (JSON pointer, value as JSON text), in the file's order.
void flatten(const Json& v, const std::string& path, int depth, Leaves& out) {
  if (v.is_object() && !v.empty() && depth < kMaxSettingDepth) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      flatten(it.value(), path + "/" + pointer_token(it.key()), depth + 1, out);
    }
    return;
  }
  out.emplace_back(path, v.dump());
}

std::vector<SettingChange> setting_changes(const Sides& s, const std::vector<std::string>& fields) {
  Leaves a;
  Leaves b;
  for (const std::string& f : fields) {
    const Json::json_pointer at(f);
    if (s.a_doc.contains(at)) flatten(s.a_doc.at(at), f, 0, a);
    if (s.b_doc.contains(at)) flatten(s.b_doc.at(at), f, 0, b);
  }
  auto find = [](const Leaves& leaves, const std::string& path) {
    return std::find_if(leaves.begin(), leaves.end(),
                        [&](const auto& l) { return l.first == path; });
  };
  std::vector<SettingChange> out;
  for (const auto& [path, value] : a) {
    const auto other = find(b, path);
    if (other == b.end()) {
      out.push_back({path, value, "(absent)"});
    } else if (other->second != value) {
      out.push_back({path, value, other->second});
    }
  }
  for (const auto& [path, value] : b) {
    if (find(a, path) == a.end()) out.push_back({path, "(absent)", value});
  }
  return out;
}

// Changed rows first, by adjusted p; the others keep their order.
void order_rows(std::vector<DiffRow>& rows) {
  const auto unchanged =
      std::stable_partition(rows.begin(), rows.end(), [](const DiffRow& r) { return r.changed; });
  std::stable_sort(rows.begin(), unchanged,
                   [](const DiffRow& x, const DiffRow& y) { return x.adjusted_p < y.adjusted_p; });
}

DiffReport compare(const Sides& s, const StudyInfo& info, double alpha) {
  DiffReport out;
  out.study = info.name;
  out.a_name = s.a.name;
  out.b_name = s.b.name;
  out.alpha = alpha;
  out.settings = setting_changes(s, info.compared.settings);
  const auto a_cells = cells_of(s.a, s.a_doc, info.compared);
  const auto b_cells = cells_of(s.b, s.b_doc, info.compared);
  auto find = [](const auto& cells, const std::string& name) {
    return std::find_if(cells.begin(), cells.end(), [&](const auto& c) { return c.first == name; });
  };
  std::vector<Pending> pending;
  for (const auto& [cell, a_at] : a_cells) {
    const auto b = find(b_cells, cell);
    if (b == b_cells.end()) {
      out.only_in_a.push_back(cell);
      continue;
    }
    for (const ComparedFigure& figure : info.compared.figures) {
      auto p = read_pair(s, cell, a_at, b->second, figure, out.uncompared);
      if (p) pending.push_back(std::move(*p));
    }
  }
  for (const auto& [cell, b_at] : b_cells) {
    if (find(a_cells, cell) == a_cells.end()) out.only_in_b.push_back(cell);
  }
  std::vector<double> p_values;
  for (const Pending& p : pending) p_values.push_back(p.row.p);
  const HolmResult holm_result = holm(p_values, alpha);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    set_difference(pending[i], holm_result.alpha[i]);
    DiffRow& r = pending[i].row;
    r.adjusted_p = holm_result.adjusted[i];
    r.changed = r.adjusted_p <= alpha;
    out.rows.push_back(std::move(r));
  }
  order_rows(out.rows);
  return out;
}

// Refuses two reports that differ in `pointer` (when both have it; study_of checks the rest).
void check_same(const Sides& s, const std::string& pointer, const std::string& fix) {
  const Json::json_pointer at(pointer);
  if (!s.a_doc.contains(at) || !s.b_doc.contains(at) || s.a_doc.at(at) == s.b_doc.at(at)) return;
  throw Refusal("field " + quoted(pointer.substr(1)) + ": " + s.a.name + " has " +
                s.a_doc.at(at).dump() + " but " + s.b.name + " has " + s.b_doc.at(at).dump() +
                "; " + fix);
}

}  // namespace

std::optional<DiffReport> diff_reports(const DiffInput& a, const DiffInput& b, double alpha,
                                       std::string* error) {
  HASIM_ASSERT(alpha > 0 && alpha < 1);
  HASIM_ASSERT(error != nullptr);
  try {
    const Json a_doc = parse_report(a);
    const Json b_doc = parse_report(b);
    const Sides sides{a, a_doc, b, b_doc};
    check_same(sides, "/report", "compare two reports of one study");
    check_same(sides, "/formatVersion",
               "the JSON formats differ; re-run the older study with this hasim");
    const StudyInfo info = study_of(a, a_doc);
    study_of(b, b_doc);
    return compare(sides, info, alpha);
  } catch (const Refusal& refusal) {
    *error = refusal.what();
    return std::nullopt;
  }
}

std::size_t DiffReport::changed() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.changed; }));
}

}  // namespace hasim
