#pragma once
// A study (`hasim report NAME`) as data: named cells (parameter points), a trial function
// (cell, seed) -> metrics, and writers. What every study shares is written once, in
// reports/study_runner: trials and per-trial seeds, threads (--jobs), shards (--shard I/N)
// and `hasim merge`, the validation of foreign shards, progress, and the CSV files. A new
// study derives from TrialStudy<Trial>, lists its own flags, cells and trial fields, and
// writes its JSON, Markdown and HTML; reports/studies.cpp registers it.
//
// Trial t of cell c runs with seed trial_seed(seed, c * trials + t) (reports/trials.hpp):
// the flattened index c * trials + t is what shards split, so a study split into shards and
// merged gives the same bytes as one run.
#include <cstdint>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reports/trials.hpp"
#include "sim/assert.hpp"

namespace hasim {

// One option of a study's own, e.g. failover's --pause. Values are text; the study parses
// them (and names the flag and the fix when it cannot).
struct StudyFlag {
  std::string name;  // "--pause"
  std::string help;  // "pause length (default 20s)"
};

// A figure `hasim report diff` compares between two reports of one study, read from each
// cell's object in the report JSON through JSON pointers relative to the cell: either a
// probability (successes out of trials) or a sample of durations (integer nanoseconds).
struct ComparedFigure {
  std::string name;       // "unavailable": with the cell's name, what identifies a comparison
  std::string meaning;    // "time without a working leader", for the reader
  std::string successes;  // a probability: "/dualLeaderTrials" ...
  std::string trials;     // ... out of "/trials"
  std::string samples;    // durations: every sample, "/unavailableSamplesNs"
  // Optional, for durations: a 0/1 array as long as `samples`; only samples where it is 1
  // count (upgrade-skew keeps violation times of every trial, 0 for the clean ones).
  std::string samples_where;
  bool durations() const { return !samples.empty(); }
};

// Where a study's report JSON keeps its cells and what `hasim report diff` compares there.
struct ComparedCells {
  // An object by cell name ("/faults"), or an array of objects whose member `cell_name`
  // ("/cell") names each cell.
  std::string cells;
  std::string cell_name;
  std::vector<ComparedFigure> figures;
  // JSON pointers (objects are walked to their values) shown when two reports differ in
  // them: what was changed between the runs.
  std::vector<std::string> settings;
};

struct StudyInfo {
  std::string name;     // "upgrade-skew": the command, the default folder, the file names
  std::string summary;  // one line, for `hasim report --list` and `hasim list`
  std::uint64_t default_trials = 1000;
  std::string trials_per;  // what --trials counts per: "cell", "fault"
  std::vector<StudyFlag> flags;
  // Bumped when a study's JSON or shard file changes shape: merge refuses other formats.
  int format_version = 1;
  ComparedCells compared;
};

// What the command line gave: --trials and --seed (the generic options that change results)
// and the study's own flags that were given, by name.
struct StudyArgs {
  std::optional<std::uint64_t> trials;
  std::uint64_t seed = 1;
  std::map<std::string, std::string> flags;
};

// A file a study writes, and its contents.
struct ReportFile {
  std::string name;
  std::string contents;
};

// A plain table (header + rows), for the CSV of per-cell figures.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// A configured study holding the trials run or read so far. Not thread-safe; run_trials
// runs trials on threads and joins them before it returns.
class Study {
 public:
  virtual ~Study() = default;
  virtual const StudyInfo& info() const = 0;

  // From the command line. nullopt when the study is ready to run, or a message naming the
  // flag and the fix.
  virtual std::optional<std::string> configure(const StudyArgs& args) = 0;
  // From a shard file's "options" (which options_json wrote). Throws std::exception on a
  // malformed object; the caller checks that options_json() reads back to it exactly.
  virtual void read_options(const nlohmann::json& options) = 0;
  // The options as JSON: every field that changes a result (trials, seed, cells,
  // settings), never --jobs. Two shards belong to one study iff these agree.
  virtual nlohmann::ordered_json options_json() const = 0;
  // What the simulation needs of the options (after read_options: a hand-edited shard).
  virtual std::optional<std::string> validate() const = 0;

  virtual std::uint64_t trials_per_cell() const = 0;
  virtual std::uint64_t seed() const = 0;
  virtual std::size_t cell_count() const = 0;
  virtual std::string cell_name(std::size_t cell) const = 0;
  std::uint64_t total_trials() const { return trials_per_cell() * cell_count(); }

  // Runs the trials of `range` (flattened indexes) on `jobs` threads and appends them.
  virtual void run_trials(TrialRange range, unsigned jobs, const TrialProgress& progress) = 0;
  // Every trial held, as one JSON array per field.
  virtual nlohmann::ordered_json trials_json() const = 0;
  // Appends `count` trials read from trials_json's layout. Throws std::exception if malformed.
  virtual void read_trials(const nlohmann::json& trials, std::uint64_t count) = 0;
  virtual std::size_t trials_held() const = 0;

  // Once every trial is held: the report files (JSON, Markdown, HTML) and the Markdown
  // summary printed on the terminal. The runner adds the CSV files.
  struct Report {
    std::string json;
    std::string markdown;
    std::string html;
  };
  virtual Report report() = 0;
  // Per-cell figures as plain values (NAME.cells.csv), and per-trial metrics
  // (NAME.trials.csv: cell, trial, seed, then these columns).
  virtual Table cell_table() const = 0;
  virtual std::vector<std::string> trial_columns() const = 0;
  virtual std::vector<std::string> trial_row(std::size_t index) const = 0;
};

// One metric of a trial as a whole number (nanoseconds, counts, 0/1 for flags), with the
// name it has in JSON and CSV. A table of these is how a study's trials go to shard files,
// into its report JSON, into CSV, and back.
template <typename Trial>
struct TrialField {
  std::string_view name;
  std::int64_t (*get)(const Trial&);
  void (*set)(Trial&, std::int64_t);
};

// trials[begin, end) as {field name: [values...]}, in the order of `fields`.
template <typename Trial>
nlohmann::ordered_json trial_fields_json(const std::vector<TrialField<Trial>>& fields,
                                         const std::vector<Trial>& trials, std::size_t begin,
                                         std::size_t end) {
  HASIM_ASSERT(begin <= end && end <= trials.size());
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const TrialField<Trial>& field : fields) {
    std::vector<std::int64_t> values;
    values.reserve(end - begin);
    for (std::size_t i = begin; i < end; ++i) values.push_back(field.get(trials[i]));
    out[std::string(field.name)] = std::move(values);
  }
  return out;
}

// Reads `count` trials back from trial_fields_json's layout; throws std::runtime_error
// naming the field when an array is missing or has another length.
template <typename Trial>
std::vector<Trial> trials_from_fields(const std::vector<TrialField<Trial>>& fields,
                                      const nlohmann::json& j, std::uint64_t count) {
  // Every array's length first, so a hand-edited count allocates nothing.
  for (const TrialField<Trial>& field : fields) {
    const nlohmann::json& a = j.at(std::string(field.name));
    if (!a.is_array() || a.size() != count) {
      throw std::runtime_error("\"trials." + std::string(field.name) + "\" must be an array of " +
                               std::to_string(count) + " values (the shard's range)");
    }
  }
  std::vector<Trial> trials(count);
  for (const TrialField<Trial>& field : fields) {
    const nlohmann::json& a = j.at(std::string(field.name));
    for (std::size_t i = 0; i < count; ++i) field.set(trials[i], a[i].get<std::int64_t>());
  }
  return trials;
}

// The trial-keeping half of a study: run, serialise and read trials through a field table.
// A study supplies run_trial (a pure function of the cell and the seed) and fields().
template <typename Trial>
class TrialStudy : public Study {
 public:
  void run_trials(TrialRange range, unsigned jobs, const TrialProgress& progress) override {
    HASIM_ASSERT(range.end <= total_trials() && jobs >= 1);
    prepare_trials();
    const std::uint64_t per_cell = trials_per_cell();
    const std::uint64_t base = seed();
    std::vector<Trial> more = hasim::run_trials<Trial>(
        range.begin, range.end, jobs,
        [&](std::uint64_t index) {
          return run_trial_in_cell(static_cast<std::size_t>(index / per_cell), index % per_cell,
                                   trial_seed(base, index));
        },
        progress);
    trials_.insert(trials_.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  nlohmann::ordered_json trials_json() const override {
    return trial_fields_json(fields(), trials_, 0, trials_.size());
  }
  void read_trials(const nlohmann::json& j, std::uint64_t count) override {
    std::vector<Trial> more = trials_from_fields(fields(), j, count);
    trials_.insert(trials_.end(), more.begin(), more.end());
  }
  std::size_t trials_held() const override { return trials_.size(); }
  std::vector<std::string> trial_columns() const override {
    std::vector<std::string> out;
    for (const TrialField<Trial>& f : fields()) out.emplace_back(f.name);
    return out;
  }
  std::vector<std::string> trial_row(std::size_t index) const override {
    std::vector<std::string> out;
    for (const TrialField<Trial>& f : fields())
      out.push_back(std::to_string(f.get(trials_[index])));
    return out;
  }
  const std::vector<Trial>& trials() const { return trials_; }

 protected:
  // Called once before trials run (e.g. to build each cell's scenario once).
  virtual void prepare_trials() {}
  virtual Trial run_trial(std::size_t cell, std::uint64_t seed) const = 0;
  // For a study whose cells run different shares of the trials (raft-election's 150-150
  // runs a tenth): `index` is the trial's index within its cell.
  virtual Trial run_trial_in_cell(std::size_t cell, std::uint64_t index, std::uint64_t seed) const {
    (void)index;
    return run_trial(cell, seed);
  }
  virtual const std::vector<TrialField<Trial>>& fields() const = 0;
  std::vector<Trial> trials_;
};

}  // namespace hasim
