#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/commands.hpp"
#include "hasim_version.hpp"

namespace hasim {
namespace {
void add_version(CLI::App& app) {
  app.set_version_flag("--version", std::string("hasim ") + kVersion);
}
}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"hasim: deterministic simulation and verification of Kubernetes high availability"};
  app.require_subcommand(1);
  add_version(app);

  RunArgs run;
  CLI::App* run_command = app.add_subcommand("run", "Run a scenario once and check its properties");
  run_command->add_option("SCENARIO", run.scenario,
                          "scenario file (JSON) or built-in scenario name (`hasim list`); without "
                          "one, the built-in demo scenario");
  run_command->add_option("--seed", run.seed, "seed (overrides the scenario's)");
  run_command->add_option("--trace", run.trace, "write the JSON Lines trace to FILE");
  run_command->add_option("--replay-out", run.replay_out, "write a replay file to FILE");
  run_command->add_flag("--determinism", run.determinism, "run twice and compare the trace hashes");
  run_command->add_flag("--force", run.force, "overwrite existing output files");
  add_version(*run_command);

  std::string replay;
  CLI::App* replay_command =
      app.add_subcommand("replay", "Re-run a replay file and compare its trace");
  replay_command->add_option("REPLAY", replay, "replay file written by `hasim run --replay-out`")
      ->required();
  add_version(*replay_command);

  std::string validate;
  CLI::App* validate_command =
      app.add_subcommand("validate", "Check a scenario file without running it");
  validate_command->add_option("SCENARIO", validate, "scenario file (JSON) or built-in name")
      ->required();
  add_version(*validate_command);

  CheckArgs check;
  CLI::App* check_command = app.add_subcommand(
      "check", "Explore random fault schedules; shrink a violation to a minimal replay file");
  check_command->add_option("SCENARIO", check.scenario,
                            "scenario file (JSON); without one, the built-in 3-node control plane");
  check_command->add_option("--runs", check.runs, "runs, each with its own schedule (default 100)");
  check_command->add_option("--seed", check.seed, "base seed (default 1)");
  check_command->add_option("--jobs", check.jobs, "threads (default: one per hardware thread)");
  check_command->add_option(
      "--out", check.out, "output directory (default: the first free reports/out/check/NAME[-N])");
  check_command->add_option("--max-faults", check.max_faults,
                            "faults per run, at most (default 6)");
  check_command->add_option("--kinds", check.kinds,
                            "fault kinds to draw, comma-separated (default: every kind that "
                            "applies; `hasim list` names them)");
  check_command->add_flag("--break-assumptions", check.break_assumptions,
                          "draw faults beyond the properties' documented assumptions too "
                          "(longer pauses, slower apiservers, faster or slower clocks)");
  check_command->add_option("--max-shrink-steps", check.max_shrink_steps,
                            "candidate runs while shrinking, at most (default 1000)");
  check_command->add_flag("--stop-at-first", check.stop_at_first,
                          "stop at the first violating run (the same run a full check shrinks)");
  check_command->add_flag("--force", check.force, "overwrite existing output files");
  add_version(*check_command);
  ReportArgs report;
  CLI::App* report_command = app.add_subcommand(
      "report", "Run a Monte Carlo study and write JSON, Markdown and HTML reports");
  report_command->add_option("NAME", report.name, "report to run: upgrade-skew or failover")
      ->required();
  report_command->add_option("--trials", report.trials,
                             "trials per cell (default: upgrade-skew 10000, failover 1000)");
  report_command->add_option("--seed", report.seed, "base seed (default 1)");
  report_command->add_option("--jobs", report.jobs, "threads (default: one per hardware thread)");
  report_command->add_option("--out", report.out, "output directory (default reports/out/NAME)");
  report_command->add_flag("--force", report.force, "overwrite existing report files");
  report_command->add_option("--lease-duration", report.lease_duration, "LD (default 15s)");
  report_command->add_option("--renew-deadline", report.renew_deadline, "RD (default 10s)");
  report_command->add_option("--retry-period", report.retry_period, "RP (default 2s)");
  report_command->add_option("--shard", report.shard,
                             "upgrade-skew: run shard I of N (I/N, from 0) and write only its "
                             "trials, for `hasim merge`");
  report_command->add_option("--nodes", report.nodes,
                             "upgrade-skew: control-plane sizes (default 3,5)");
  report_command->add_option("--modes", report.modes,
                             "upgrade-skew: election modes (default lease,coordinated,mixed)");
  report_command->add_option("--directions", report.directions,
                             "upgrade-skew: upgrade and/or rollback (default upgrade,rollback)");
  report_command->add_option("--from", report.from, "upgrade-skew: old version (default 1.31.0)");
  report_command->add_option("--to", report.to, "upgrade-skew: new version (default 1.32.0)");
  report_command->add_option("--downtime", report.downtime,
                             "upgrade-skew: how long a node is down (default 30s..90s)");
  report_command->add_option("--gap", report.gap,
                             "upgrade-skew: wait before the next node (default 30s..60s)");
  report_command->add_option("--pause", report.pause, "failover: pause length (default 20s)");
  report_command->add_option("--partition", report.partition,
                             "failover: partition length (default 60s)");
  add_version(*report_command);

  MergeArgs merge;
  CLI::App* merge_command = app.add_subcommand(
      "merge", "Combine report shards (hasim report ... --shard I/N) into the full report");
  merge_command->add_option("SHARD", merge.shards, "shard files, one per shard, any order")
      ->required();
  merge_command->add_option("--out", merge.out, "output directory (default reports/out/NAME)");
  merge_command->add_flag("--force", merge.force, "overwrite existing report files");
  add_version(*merge_command);

  CLI::App* list_command =
      app.add_subcommand("list", "List example scenarios, faults, properties and reports");
  add_version(*list_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    const auto parsed = app.get_subcommands();
    out << (parsed.empty() ? app.help() : parsed.front()->help());
    return kExitHeld;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitHeld;
  } catch (const CLI::CallForVersion&) {
    out << "hasim " << kVersion << "\n";
    return kExitHeld;
  } catch (const CLI::ParseError& error) {
    err << "hasim: " << error.what() << "\n";
    err << "Run `hasim --help` or `hasim <command> --help` for usage.\n";
    return kExitBadInput;
  }
  if (*run_command) return command_run(run, out, err);
  if (*replay_command) return command_replay(replay, out, err);
  if (*validate_command) return command_validate(validate, out, err);
  if (*list_command) return command_list(out, err);
  if (*check_command) return command_check(check, out, err);
  if (*report_command) return command_report(report, out, err);
  if (*merge_command) return command_merge(merge, out, err);
  return kExitBadInput;
}

}  // namespace hasim
