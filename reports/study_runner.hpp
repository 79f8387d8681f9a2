#pragma once
// What every study shares, written once: `hasim report NAME` (a whole run or one shard) and
// `hasim merge` (shards back into the report, byte-identical to one run), with the checks
// that shards belong together, the output folder rule, progress and the CSV files.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reports/studies.hpp"
#include "reports/study.hpp"

namespace hasim {

// The options every study takes, besides its own flags (StudyArgs::flags).
struct StudyRunOptions {
  StudyArgs args;
  unsigned jobs = 0;                 // 0: one per hardware thread; never changes a result
  std::string out;                   // default reports/out/NAME
  bool force = false;                // overwrite existing files
  std::optional<std::string> shard;  // "I/N"
  bool quiet = false;                // no progress on stderr
};

// NAME.json, NAME.md, NAME.html, NAME.cells.csv, NAME.trials.csv
std::vector<std::string> study_report_files(const std::string& name);
// NAME.shard-I-of-N.json
std::string study_shard_file_name(const std::string& name, ShardSpec shard);

// Runs `study` (configured) over `range` and returns its shard file.
std::string run_study_shard(Study& study, ShardSpec shard, unsigned jobs,
                            const TrialProgress& progress = {});
// Every file of the report, once the study holds every trial: JSON, Markdown, HTML, CSVs.
// The Markdown (files[1]) is also what the command prints.
std::vector<ReportFile> study_report(Study& study);

// Reads shard files (texts, labelled by `names` in messages) into a new study holding every
// trial in order. nullptr with a message in `error` (naming the file, the problem and the
// fix) if a file is not a shard, or the shards come from other studies, options, hasim
// versions or splits, or one is missing or given twice.
// `make` builds an empty study by name (default: the registry's; tests inject fakes) and
// returns nullptr for an unknown name.
using StudyMaker = std::function<std::unique_ptr<Study>(const std::string& name)>;
std::unique_ptr<Study> merge_study_shards(const std::vector<std::string>& texts,
                                          const std::vector<std::string>& names, std::string* error,
                                          const StudyMaker& make = {});

// `hasim report NAME ...`: configures, runs with progress on stderr, writes the files into
// the output folder and prints the summary (or, for a shard, what it wrote) on `out`.
// nullopt on success, else a message naming the problem and the fix (exit 2).
std::optional<std::string> run_study_command(const StudyEntry& entry,
                                             const StudyRunOptions& options, std::ostream& out);

// `hasim merge SHARD... [--out DIR] [--force] [--quiet]` on the shard files' texts (named
// by `names`): writes the report into `out_dir` (default reports/out/NAME) and prints it.
std::optional<std::string> merge_command(const std::vector<std::string>& texts,
                                         const std::vector<std::string>& names,
                                         const std::string& out_dir, bool force, bool quiet,
                                         std::ostream& out);

}  // namespace hasim
