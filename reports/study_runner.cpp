#include "reports/study_runner.hpp"

#include <map>
#include <ostream>

#include "hasim_version.hpp"
#include "reports/csv.hpp"
#include "reports/json_text.hpp"
#include "reports/output_dir.hpp"
#include "reports/progress.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// A shard file's envelope, checked against itself; the trials are read later, in order.
struct ShardFile {
  std::unique_ptr<Study> study;  // options read, no trials
  std::string hasim_version;
  std::string options_text;  // canonical: two shards agree iff these are equal
  ShardSpec shard;
  TrialRange range;
  Json trials;
};

std::string shard_text(ShardSpec s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

// The study named by a shard's "report", with its format checked.
std::unique_ptr<Study> shard_study(const Json& doc, std::string* problem, const StudyMaker& make) {
  const std::string report = doc.value("report", "");
  auto study = make(report);
  if (!study) {
    *problem = "not a file of any hasim study (\"report\" is \"" + report + "\"; the studies are " +
               study_names() + ")";
    return nullptr;
  }
  if (doc.value("file", "") != "shard") {
    *problem = "not a shard file (write shards with `hasim report " + report + " --shard I/N`)";
    return nullptr;
  }
  const int format = doc.at("formatVersion").get<int>();
  if (format != study->info().format_version) {
    *problem = "format version " + std::to_string(format) + ", this hasim reads " +
               std::to_string(study->info().format_version) + "; re-run the shard with this hasim";
    return nullptr;
  }
  return study;
}

// Everything a shard file says about itself, checked; nullopt with `problem` otherwise.
std::optional<ShardFile> read_shard(std::string_view text, std::string* problem,
                                    const StudyMaker& make) {
  const Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    *problem = "not a JSON object";
    return std::nullopt;
  }
  try {
    ShardFile file;
    file.study = shard_study(doc, problem, make);
    if (!file.study) return std::nullopt;
    file.hasim_version = doc.at("hasimVersion").get<std::string>();
    file.study->read_options(doc.at("options"));
    // Round trip: anything this hasim does not know (or reads differently) would silently
    // change the study, so the options must read back to exactly what was written.
    file.options_text = file.study->options_json().dump();
    if (Json::parse(file.options_text) != doc.at("options")) {
      *problem = "its options do not read back exactly (written by another hasim?)";
      return std::nullopt;
    }
    // A hand-edited shard could carry options the simulation cannot run (or whose trial
    // count overflows); nothing below may trust them before this.
    if (auto invalid = file.study->validate()) {
      *problem = "its options are not valid: " + *invalid;
      return std::nullopt;
    }
    file.shard.index = doc.at("shard").at("index").get<std::uint64_t>();
    file.shard.count = doc.at("shard").at("count").get<std::uint64_t>();
    if (file.shard.count == 0 || file.shard.index >= file.shard.count) {
      *problem = "bad shard " + shard_text(file.shard);
      return std::nullopt;
    }
    file.range.begin = doc.at("range").at("begin").get<std::uint64_t>();
    file.range.end = doc.at("range").at("end").get<std::uint64_t>();
    const TrialRange expected = trial_range(file.study->total_trials(), file.shard);
    if (file.range != expected) {
      *problem = "its range [" + std::to_string(file.range.begin) + ", " +
                 std::to_string(file.range.end) + ") is not shard " + shard_text(file.shard) +
                 "'s [" + std::to_string(expected.begin) + ", " + std::to_string(expected.end) +
                 ")";
      return std::nullopt;
    }
    file.trials = doc.at("trials");
    return file;
  } catch (const std::exception& e) {
    *problem = std::string("malformed shard: ") + e.what();
    return std::nullopt;
  }
}

// Checks that file i belongs with file 0 (same study, hasim, options and split) and is not
// a shard already seen; records it in `owner`.
std::optional<std::string> check_belongs(const std::vector<ShardFile>& files, std::size_t i,
                                         const std::vector<std::string>& names,
                                         std::map<std::uint64_t, std::size_t>& owner) {
  const ShardFile& first = files.front();
  const ShardFile& f = files[i];
  const std::string& study = first.study->info().name;
  if (f.study->info().name != study) {
    return names[i] + " is a shard of " + f.study->info().name + " but " + names[0] + " of " +
           study + "; merge the shards of one study";
  }
  if (f.hasim_version != first.hasim_version) {
    return names[i] + " was written by hasim " + f.hasim_version + " but " + names[0] +
           " by hasim " + first.hasim_version + "; run every shard with the same hasim";
  }
  if (f.options_text != first.options_text) {
    return names[i] + " and " + names[0] +
           " belong to different studies (their options differ: trials, seed, cells or "
           "settings); merge shards of one `hasim report " +
           study + "` invocation";
  }
  const std::uint64_t count = first.shard.count;
  if (f.shard.count != count) {
    return names[i] + " is one of " + std::to_string(f.shard.count) + " shards but " + names[0] +
           " one of " + std::to_string(count) + "; merge shards split the same way";
  }
  if (owner.contains(f.shard.index)) {
    return names[i] + " and " + names[owner.at(f.shard.index)] + " are both shard " +
           shard_text(f.shard) + "; give each shard exactly once";
  }
  owner[f.shard.index] = i;
  return std::nullopt;
}

// Every shard index of [0, count) given once. A map, not a vector of count slots, and a
// scan bounded by the files given, so a hand-edited huge count costs nothing.
std::optional<std::string> check_complete(const std::map<std::uint64_t, std::size_t>& owner,
                                          std::uint64_t count, const std::string& study) {
  HASIM_ASSERT(owner.size() <= count);
  const std::uint64_t missing_count = count - owner.size();
  if (missing_count == 0) return std::nullopt;
  std::string missing;
  std::size_t listed = 0;
  for (std::uint64_t s = 0; s < count && listed < 10; ++s) {
    if (owner.contains(s)) continue;
    missing += (missing.empty() ? "" : ", ") + shard_text({s, count});
    ++listed;
  }
  return "missing " + std::to_string(missing_count) + " of " + std::to_string(count) +
         " shards: " + missing + (missing_count > 10 ? ", ..." : "") + "; give every shard file (" +
         study_shard_file_name(study, {0, count}) + " to " +
         study_shard_file_name(study, {count - 1, count}) + ")";
}

std::string csv_of_trials(const Study& study) {
  std::vector<std::string> header{"cell", "trial", "seed"};
  for (std::string& column : study.trial_columns()) header.push_back(std::move(column));
  std::vector<std::vector<std::string>> rows;
  rows.reserve(study.trials_held());
  const std::uint64_t per_cell = study.trials_per_cell();
  for (std::size_t i = 0; i < study.trials_held(); ++i) {
    std::vector<std::string> row{study.cell_name(i / per_cell), std::to_string(i % per_cell),
                                 std::to_string(trial_seed(study.seed(), i))};
    for (std::string& value : study.trial_row(i)) row.push_back(std::move(value));
    rows.push_back(std::move(row));
  }
  return csv_table(header, rows);
}

std::optional<std::string> write_files(const std::string& dir, const std::vector<ReportFile>& files,
                                       std::string* wrote) {
  std::string error;
  for (const ReportFile& file : files) {
    const std::string path = dir + "/" + file.name;
    if (!write_text_file(path, file.contents, &error)) return error;
    *wrote += (wrote->empty() ? "" : ", ") + path;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> study_report_files(const std::string& name) {
  return {name + ".json", name + ".md", name + ".html", name + ".cells.csv", name + ".trials.csv"};
}

std::string study_shard_file_name(const std::string& name, ShardSpec shard) {
  return name + ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) +
         ".json";
}

std::string run_study_shard(Study& study, ShardSpec shard, unsigned jobs,
                            const TrialProgress& progress) {
  HASIM_ASSERT(study.trials_held() == 0);
  const TrialRange range = trial_range(study.total_trials(), shard);
  study.run_trials(range, jobs, progress);
  HASIM_ASSERT(study.trials_held() == range.size());
  OrderedJson doc;
  doc["report"] = study.info().name;
  doc["file"] = "shard";
  doc["formatVersion"] = study.info().format_version;
  doc["hasimVersion"] = kVersion;
  doc["options"] = study.options_json();
  doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
  doc["range"] = {{"begin", range.begin}, {"end", range.end}};
  doc["trials"] = study.trials_json();
  return json_text(doc);
}

std::vector<ReportFile> study_report(Study& study) {
  HASIM_ASSERT(study.trials_held() == study.total_trials());
  const std::vector<std::string> names = study_report_files(study.info().name);
  Study::Report report = study.report();
  const Table cells = study.cell_table();
  return {{names[0], std::move(report.json)},
          {names[1], std::move(report.markdown)},
          {names[2], std::move(report.html)},
          {names[3], csv_table(cells.header, cells.rows)},
          {names[4], csv_of_trials(study)}};
}

std::unique_ptr<Study> merge_study_shards(const std::vector<std::string>& texts,
                                          const std::vector<std::string>& names, std::string* error,
                                          const StudyMaker& make) {
  HASIM_ASSERT(texts.size() == names.size() && error != nullptr);
  const StudyMaker by_name = make ? make : [](const std::string& name) -> std::unique_ptr<Study> {
    const StudyEntry* entry = find_study(name);
    return entry == nullptr ? nullptr : entry->make();
  };
  if (texts.empty()) {
    *error = "no shard files given";
    return nullptr;
  }
  std::vector<ShardFile> files;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string problem;
    auto file = read_shard(texts[i], &problem, by_name);
    if (!file) {
      *error = names[i] + ": " + problem;
      return nullptr;
    }
    files.push_back(std::move(*file));
  }
  std::map<std::uint64_t, std::size_t> owner;  // shard index -> file
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (auto problem = check_belongs(files, i, names, owner)) {
      *error = *problem;
      return nullptr;
    }
  }
  if (auto problem =
          check_complete(owner, files.front().shard.count, files.front().study->info().name)) {
    *error = *problem;
    return nullptr;
  }
  std::unique_ptr<Study> merged = std::move(files.front().study);
  for (const auto& [index, i] : owner) {  // in shard order
    try {
      merged->read_trials(files[i].trials, files[i].range.size());
    } catch (const std::exception& e) {
      *error = names[i] + ": malformed shard: " + e.what();
      return nullptr;
    }
  }
  HASIM_ASSERT(merged->trials_held() == merged->total_trials());
  return merged;
}

std::optional<std::string> run_study_command(const StudyEntry& entry,
                                             const StudyRunOptions& options, std::ostream& out) {
  const auto study = entry.make();
  const std::string& name = study->info().name;
  if (auto problem = study->configure(options.args)) return problem;
  ShardSpec shard;
  if (options.shard) {
    std::string error;
    const auto parsed = parse_shard(*options.shard, &error);
    if (!parsed) return "--shard: " + error;
    shard = *parsed;
  }
  const std::string dir = options.out.empty() ? "reports/out/" + name : options.out;
  const std::vector<std::string> file_names =
      options.shard ? std::vector{study_shard_file_name(name, shard)} : study_report_files(name);
  std::string error;
  if (!prepare_output_dir(dir, file_names, options.force, &error)) return error;
  const unsigned jobs = options.jobs == 0 ? default_jobs() : options.jobs;
  const TrialRange range = trial_range(study->total_trials(), shard);
  ProgressBar bar(range.size(), "trials", progress_style(options.quiet), stderr, name);
  const auto progress = [&bar](std::uint64_t done, std::uint64_t) { bar.update(done); };
  std::string wrote;
  if (options.shard) {
    const std::string text = run_study_shard(*study, shard, jobs, progress);
    bar.finish();
    if (auto problem = write_files(dir, {{file_names[0], text}}, &wrote)) return problem;
    out << name << " shard " << shard_text(shard) << ": trials [" << range.begin << ", "
        << range.end << ") of " << study->total_trials() << "\nwrote " << wrote << "\nwhen all "
        << shard.count << " shards are done: hasim merge SHARD-FILES... --out DIR\n";
    return std::nullopt;
  }
  study->run_trials(range, jobs, progress);
  bar.finish();
  const std::vector<ReportFile> files = study_report(*study);
  if (auto problem = write_files(dir, files, &wrote)) return problem;
  out << files[1].contents << "\nwrote " << wrote << "\n";
  return std::nullopt;
}

std::optional<std::string> merge_command(const std::vector<std::string>& texts,
                                         const std::vector<std::string>& names,
                                         const std::string& out_dir, bool force, bool quiet,
                                         std::ostream& out) {
  ProgressBar bar(texts.size(), "shards", progress_style(quiet), stderr, "merge");
  std::string error;
  auto study = merge_study_shards(texts, names, &error);
  if (!study) return error;
  bar.update(texts.size());
  // A hand-edited shard could carry options the simulation cannot run.
  if (auto problem = study->validate()) return "the shards' options are not valid: " + *problem;
  const std::string& name = study->info().name;
  const std::string dir = out_dir.empty() ? "reports/out/" + name : out_dir;
  if (!prepare_output_dir(dir, study_report_files(name), force, &error)) return error;
  const std::vector<ReportFile> files = study_report(*study);
  bar.finish();
  std::string wrote;
  if (auto problem = write_files(dir, files, &wrote)) return problem;
  out << files[1].contents << "\nmerged " << texts.size() << " shards\nwrote " << wrote << "\n";
  return std::nullopt;
}

}  // namespace hasim
