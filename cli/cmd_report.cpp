// hasim report NAME: Monte Carlo studies written as JSON, Markdown and one HTML file.
#include <algorithm>
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "models/election/leader_elector.hpp"
#include "reports/failover_report.hpp"
#include "reports/output_dir.hpp"
#include "reports/progress.hpp"
#include "reports/upgrade_report.hpp"

namespace hasim {
namespace {

std::optional<Duration> flag_duration(const std::string& flag, const std::string& text,
                                      std::ostream& err) {
  std::string error;
  const auto d = parse_duration(text, &error);
  if (!d) {
    err << "hasim report: " << flag << " \"" << text << "\": " << error << "\n";
    return std::nullopt;
  }
  if (d->ns <= 0) {
    err << "hasim report: " << flag << " must be positive, e.g. \"15s\"\n";
    return std::nullopt;
  }
  return d;
}

// A flag another report owns: refuse it rather than ignore it, so nobody believes it took
// effect.
bool reject_foreign(const char* report, const char* flag, bool given, const char* owner,
                    std::ostream& err) {
  if (!given) return false;
  err << "hasim report " << report << ": " << flag << " applies to `hasim report " << owner
      << "` only; drop it\n";
  return true;
}

int report_failover(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  if (reject_foreign("failover", "--shard", args.shard.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--nodes", args.nodes.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--modes", args.modes.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--directions", args.directions.has_value(), "upgrade-skew",
                     err) ||
      reject_foreign("failover", "--from", args.from.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--to", args.to.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--downtime", args.downtime.has_value(), "upgrade-skew", err) ||
      reject_foreign("failover", "--gap", args.gap.has_value(), "upgrade-skew", err)) {
    return kExitBadInput;
  }
  FailoverOptions options;
  FailoverSettings& s = options.settings;
  const auto ld = flag_duration("--lease-duration", args.lease_duration, err);
  const auto rd = flag_duration("--renew-deadline", args.renew_deadline, err);
  const auto rp = flag_duration("--retry-period", args.retry_period, err);
  const auto pause = flag_duration("--pause", args.pause.value_or("20s"), err);
  const auto partition = flag_duration("--partition", args.partition.value_or("60s"), err);
  if (!ld || !rd || !rp || !pause || !partition) return kExitBadInput;
  s.leaseDuration = *ld;
  s.renewDeadline = *rd;
  s.retryPeriod = *rp;
  s.pause = *pause;
  s.partition = *partition;
  // Field by field: the config grows fields (CLE) that this check does not care about.
  election::LeaderElectionConfig config;
  config.leaseDuration = *ld;
  config.renewDeadline = *rd;
  config.retryPeriod = *rp;
  config.name = "failover";
  if (const auto problem = election::validate(config, "identity")) {
    err << "hasim report failover: " << *problem << " (client-go requires leaseDuration > "
        << "renewDeadline > 1.2 x retryPeriod > 0); adjust --lease-duration, "
        << "--renew-deadline or --retry-period\n";
    return kExitBadInput;
  }
  const std::uint64_t trials = args.trials.value_or(1000);
  if (trials == 0) {
    err << "hasim report failover: --trials must be at least 1\n";
    return kExitBadInput;
  }
  options.trials = trials;
  options.seed = args.seed;
  options.jobs = args.jobs == 0 ? default_jobs() : args.jobs;
  const std::string dir = args.out.empty() ? "reports/out/failover" : args.out;
  const std::vector<std::string> files{"failover.json", "failover.md", "failover.html"};
  std::string error;
  if (!prepare_output_dir(dir, files, args.force, &error)) {
    err << "hasim report failover: " << error << "\n";
    return kExitBadInput;
  }
  ProgressBar bar(options.trials * std::size(kFailoverFaults));
  const FailoverResults results =
      run_failover_study(options, [&bar](std::uint64_t done, std::uint64_t) { bar.update(done); });
  bar.finish();
  const std::string paths[] = {dir + "/" + files[0], dir + "/" + files[1], dir + "/" + files[2]};
  if (!write_text_file(paths[0], failover_json(results), &error) ||
      !write_text_file(paths[1], failover_markdown(results), &error) ||
      !write_text_file(paths[2], failover_html(results), &error)) {
    err << "hasim report failover: " << error << "\n";
    return kExitBadInput;
  }
  out << failover_markdown(results) << "\nwrote " << paths[0] << ", " << paths[1] << ", "
      << paths[2] << "\n";
  return kExitHeld;
}

// ---------------------------------------------------------------------------------------
// upgrade-skew

constexpr const char* kUpgradeWho = "hasim report upgrade-skew: ";

// "a,b,c" -> {"a", "b", "c"}; an empty item is an error the caller reports.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

// Reads a comma-separated list of names, each one of `allowed` (by its to_string).
template <typename Enum, std::size_t N>
std::optional<std::vector<Enum>> parse_names(const char* flag, const std::string& text,
                                             const Enum (&allowed)[N], std::ostream& err) {
  std::string choices;
  for (Enum e : allowed) choices += (choices.empty() ? "" : ",") + std::string(to_string(e));
  std::vector<Enum> values;
  for (const std::string& item : split_list(text)) {
    const auto it = std::find_if(std::begin(allowed), std::end(allowed),
                                 [&](Enum e) { return to_string(e) == item; });
    if (it == std::end(allowed)) {
      err << kUpgradeWho << flag << " \"" << text << "\": unknown value \"" << item
          << "\"; give a comma-separated list of " << choices << ", e.g. " << flag << " " << choices
          << "\n";
      return std::nullopt;
    }
    values.push_back(*it);
  }
  return values;
}

std::optional<std::vector<int>> parse_node_list(const std::string& text, std::ostream& err) {
  std::vector<int> nodes;
  for (const std::string& item : split_list(text)) {
    const bool digits =
        !item.empty() && item.size() <= 3 &&
        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      err << kUpgradeWho << "--nodes \"" << text << "\": \"" << item
          << "\" is not a node count; give a comma-separated list of whole numbers from "
          << kUpgradeMinNodes << " to " << kUpgradeMaxNodes << ", e.g. --nodes 3,5\n";
      return std::nullopt;
    }
    nodes.push_back(std::stoi(item));
  }
  return nodes;
}

std::optional<DurationDistribution> flag_distribution(const char* flag, const std::string& text,
                                                      std::ostream& err) {
  std::string error;
  auto d = parse_duration_distribution(text, &error);
  if (!d) {
    err << kUpgradeWho << flag << " \"" << text << "\": " << error
        << "; give a duration or a range, e.g. " << flag << " 30s..90s\n";
  }
  return d;
}

// Everything from the flags, checked; nullopt after a message on err.
std::optional<UpgradeOptions> upgrade_options(const ReportArgs& args, std::ostream& err) {
  UpgradeOptions o;
  UpgradeSettings& s = o.settings;
  const auto ld = flag_duration("--lease-duration", args.lease_duration, err);
  const auto rd = flag_duration("--renew-deadline", args.renew_deadline, err);
  const auto rp = flag_duration("--retry-period", args.retry_period, err);
  if (!ld || !rd || !rp) return std::nullopt;
  s.leaseDuration = *ld;
  s.renewDeadline = *rd;
  s.retryPeriod = *rp;
  if (args.from) s.old_version = *args.from;
  if (args.to) s.new_version = *args.to;
  if (args.downtime) {
    const auto d = flag_distribution("--downtime", *args.downtime, err);
    if (!d) return std::nullopt;
    s.upgrade.downtime = *d;
  }
  if (args.gap) {
    const auto d = flag_distribution("--gap", *args.gap, err);
    if (!d) return std::nullopt;
    s.upgrade.gap = *d;
  }
  constexpr ElectionMode kModes[] = {ElectionMode::lease, ElectionMode::coordinated,
                                     ElectionMode::mixed};
  constexpr UpgradeDirection kDirections[] = {UpgradeDirection::upgrade,
                                              UpgradeDirection::rollback};
  const auto modes =
      parse_names("--modes", args.modes.value_or("lease,coordinated,mixed"), kModes, err);
  if (!modes) return std::nullopt;
  const auto directions =
      parse_names("--directions", args.directions.value_or("upgrade,rollback"), kDirections, err);
  if (!directions) return std::nullopt;
  const auto nodes = parse_node_list(args.nodes.value_or("3,5"), err);
  if (!nodes) return std::nullopt;
  o.cells = upgrade_grid(*modes, *directions, *nodes);
  o.trials = args.trials.value_or(10000);
  o.seed = args.seed;
  o.jobs = args.jobs == 0 ? default_jobs() : args.jobs;
  if (args.shard) {
    std::string error;
    const auto shard = parse_shard(*args.shard, &error);
    if (!shard) {
      err << kUpgradeWho << "--shard: " << error << "\n";
      return std::nullopt;
    }
    o.shard = *shard;
  }
  if (const auto problem = validate_upgrade_options(o)) {
    err << kUpgradeWho << *problem << "\n";
    return std::nullopt;
  }
  return o;
}

int report_upgrade_skew(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  if (reject_foreign("upgrade-skew", "--pause", args.pause.has_value(), "failover", err) ||
      reject_foreign("upgrade-skew", "--partition", args.partition.has_value(), "failover", err)) {
    return kExitBadInput;
  }
  const auto options = upgrade_options(args, err);
  if (!options) return kExitBadInput;
  const std::string dir = args.out.empty() ? "reports/out/upgrade-skew" : args.out;
  const std::vector<std::string> files =
      args.shard ? std::vector{upgrade_shard_file_name(options->shard)} : upgrade_report_files();
  std::string error;
  if (!prepare_output_dir(dir, files, args.force, &error)) {
    err << kUpgradeWho << error << "\n";
    return kExitBadInput;
  }
  const UpgradeModel model = simulated_upgrade_model(options->settings, options->cells);
  const std::uint64_t total = options->trials * options->cells.size();
  const TrialRange range = trial_range(total, options->shard);
  ProgressBar bar(range.size());
  const auto progress = [&bar](std::uint64_t done, std::uint64_t) { bar.update(done); };

  if (args.shard) {
    const UpgradeShard shard = run_upgrade_shard(*options, model.trial, progress);
    bar.finish();
    const std::string path = dir + "/" + files[0];
    if (!write_text_file(path, upgrade_shard_json(shard), &error)) {
      err << kUpgradeWho << error << "\n";
      return kExitBadInput;
    }
    out << "upgrade-skew shard " << options->shard.index << "/" << options->shard.count
        << ": trials [" << range.begin << ", " << range.end << ") of " << total << "\n"
        << "wrote " << path << "\n"
        << "when all " << options->shard.count
        << " shards are done: hasim merge SHARD-FILES... --out DIR\n";
    return kExitHeld;
  }
  const UpgradeResults results = run_upgrade_study(*options, model, progress);
  bar.finish();
  const std::string markdown = upgrade_markdown(results);
  const std::string paths[] = {dir + "/" + files[0], dir + "/" + files[1], dir + "/" + files[2]};
  if (!write_text_file(paths[0], upgrade_json(results), &error) ||
      !write_text_file(paths[1], markdown, &error) ||
      !write_text_file(paths[2], upgrade_html(results), &error)) {
    err << kUpgradeWho << error << "\n";
    return kExitBadInput;
  }
  out << markdown << "\nwrote " << paths[0] << ", " << paths[1] << ", " << paths[2] << "\n";
  return kExitHeld;
}

}  // namespace

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  if (args.name == "upgrade-skew") return report_upgrade_skew(args, out, err);
  if (args.name == "failover") return report_failover(args, out, err);
  err << "hasim report: unknown report \"" << args.name
      << "\"; the reports are: upgrade-skew, failover\n";
  return kExitBadInput;
}

}  // namespace hasim
