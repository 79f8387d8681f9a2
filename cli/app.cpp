#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/commands.hpp"
#include "reports/studies.hpp"
#include "hasim_version.hpp"

namespace hasim {
namespace {
void add_version(CLI::App& app) {
  app.set_version_flag("--version", std::string("hasim ") + kVersion);
}

// The subcommand whose --help was asked for: `hasim report upgrade-skew --help` shows the
// study's options, not the report command's.
const CLI::App& deepest_parsed(const CLI::App& app) {
  const CLI::App* at = &app;
  // Bounded by the command tree's depth (3).
  for (int depth = 0; depth < 8; ++depth) {
    const auto parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
  }
  return *at;
}

CLI::App* add_run_command(CLI::App& app, RunArgs& run) {
  CLI::App* run_command = app.add_subcommand("run", "Run a scenario once and check its properties");
  run_command->add_option("SCENARIO", run.scenario,
                          "scenario file (JSON) or built-in scenario name (`hasim list`); without "
                          "one, the built-in demo scenario");
  run_command->add_option("--seed", run.seed, "seed (overrides the scenario's)");
  run_command->add_option("--trace", run.trace, "write the JSON Lines trace to FILE");
  run_command->add_option("--replay-out", run.replay_out, "write a replay file to FILE");
  run_command->add_option("--history", run.history,
                          "write the etcd store's client history (every etcd call of the "
                          "kube-apiservers) to FILE as hasim-history JSON, which maps onto "
                          "Porcupine's and Jepsen's histories");
  run_command->add_flag("--determinism", run.determinism, "run twice and compare the trace hashes");
  run_command->add_flag("--force", run.force, "overwrite existing output files");
  add_version(*run_command);
  return run_command;
}

CLI::App* add_check_command(CLI::App& app, CheckArgs& check) {
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
  check_command->add_option("--max-events", check.max_events,
                            "events per run, at most: a run that reaches it stops and counts as "
                            "incomplete (default: 20 times the scenario's own run, at least "
                            "1000000)");
  check_command->add_flag("--stop-at-first", check.stop_at_first,
                          "stop at the first violating run (the same run a full check shrinks)");
  check_command->add_flag("--guided", check.guided,
                          "coverage-guided: most runs mutate a run kept for new behaviour, "
                          "aiming faults at moments of its trace (finds faults that must land "
                          "in narrow windows the system opens)");
  check_command->add_flag("--force", check.force, "overwrite existing output files");
  check_command->add_flag("--quiet", check.quiet, "no progress on stderr");
  add_version(*check_command);
  return check_command;
}

// One subcommand per study (`hasim report STUDY`): the options every study takes, then the
// study's own flags, declared by the study (StudyInfo::flags). A flag of another study is
// unknown here; report_extras_ok names the study that has it.
std::vector<CLI::App*> add_study_commands(CLI::App& report_command, ReportArgs& report) {
  std::vector<CLI::App*> commands;
  for (const StudyEntry& entry : studies()) {
    const auto study = entry.make();
    const StudyInfo& info = study->info();
    CLI::App* sub = report_command.add_subcommand(info.name, info.summary);
    StudyRunOptions& o = report.options;
    sub->add_option(
        "--trials", o.args.trials,
        "trials per " + info.trials_per + " (default " + std::to_string(info.default_trials) + ")");
    sub->add_option("--seed", o.args.seed, "base seed (default 1)");
    sub->add_option("--jobs", o.jobs, "threads (default: one per hardware thread)");
    sub->add_option("--out", o.out, "output directory (default reports/out/" + info.name + ")");
    sub->add_flag("--force", o.force, "overwrite existing report files");
    sub->add_option("--shard", o.shard,
                    "run shard I of N (I/N, from 0) and write only its trials, for `hasim merge`");
    sub->add_flag("--quiet", o.quiet, "no progress on stderr");
    for (const StudyFlag& flag : info.flags) {
      const std::string name = flag.name;
      sub->add_option_function<std::string>(
          name, [&o, name](const std::string& value) { o.args.flags[name] = value; }, flag.help);
    }
    sub->allow_extras();  // other studies' flags: named by report_extras_ok
    sub->callback([&report, name = info.name] { report.study = name; });
    add_version(*sub);
    commands.push_back(sub);
  }
  return commands;
}

CLI::App* add_diff_command(CLI::App& report_command, ReportDiffArgs& diff) {
  CLI::App* sub = report_command.add_subcommand(
      "diff", "Compare two reports of one study cell by cell; exit 1 if any cell changed");
  sub->add_option("A", diff.a, "the first report JSON (e.g. reports/out/failover/failover.json)")
      ->required();
  sub->add_option("B", diff.b, "the second report JSON, of the same study")->required();
  sub->add_option("--alpha", diff.alpha,
                  "chance of flagging any change that is not there, over all cells (default "
                  "0.05)");
  sub->add_option("--out", diff.out, "also write diff.md and diff.json into this directory");
  sub->add_flag("--force", diff.force, "overwrite them");
  sub->add_option("--format", diff.format, "what to print: md (default) or json")
      ->check(CLI::IsMember({"md", "json"}));
  add_version(*sub);
  return sub;
}

// Arguments no parser took: an unknown study name is left for command_report; a flag of
// another study is named with the study that has it.
bool report_extras_ok(const CLI::App& report_command, const std::vector<CLI::App*>& studies,
                      ReportArgs& report, std::ostream& err) {
  for (const CLI::App* sub : studies) {
    if (!*sub || sub->remaining().empty()) continue;
    const std::string arg = sub->remaining().front();
    const std::string flag = arg.substr(0, arg.find('='));
    const std::vector<std::string> owners = studies_owning_flag(flag);
    if (!owners.empty()) {
      std::string where;
      for (const std::string& owner : owners) {
        where += (where.empty() ? "`hasim report " : " or `hasim report ") + owner + "`";
      }
      err << "hasim report " << report.study << ": " << flag << " applies to " << where
          << " only, not to " << report.study << "; drop it\n";
    } else {
      err << "hasim report " << report.study << ": unexpected argument \"" << arg
          << "\"; `hasim report " << report.study << " --help` lists the options\n";
    }
    return false;
  }
  const auto extras = report_command.remaining();
  if (!extras.empty() && report.study.empty()) report.study = extras.front();
  return true;
}
}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"hasim: deterministic simulation and verification of Kubernetes high availability"};
  app.require_subcommand(1);
  add_version(app);

  RunArgs run;
  CLI::App* run_command = add_run_command(app, run);

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
  CLI::App* check_command = add_check_command(app, check);
  ReportArgs report;
  CLI::App* report_command = app.add_subcommand(
      "report", "Run a study (Monte Carlo) and write JSON, Markdown, HTML and CSV reports");
  report_command->add_flag("--list", report.list, "list the studies");
  report_command->allow_extras();  // an unknown study name: named by command_report
  add_version(*report_command);
  const std::vector<CLI::App*> study_commands = add_study_commands(*report_command, report);
  ReportDiffArgs diff;
  CLI::App* diff_command = add_diff_command(*report_command, diff);
  MergeArgs merge;
  CLI::App* merge_command = app.add_subcommand(
      "merge", "Combine report shards (hasim report ... --shard I/N) into the full report");
  merge_command->add_option("SHARD", merge.shards, "shard files, one per shard, any order")
      ->required();
  merge_command->add_option("--out", merge.out, "output directory (default reports/out/NAME)");
  merge_command->add_flag("--force", merge.force, "overwrite existing report files");
  merge_command->add_flag("--quiet", merge.quiet, "no progress on stderr");
  add_version(*merge_command);

  RaftTranscriptArgs raft_transcript;
  CLI::App* raft_command = app.add_subcommand("raft", "The etcd-io/raft port (models/raft)");
  raft_command->require_subcommand(1);
  add_version(*raft_command);
  CLI::App* transcript_command = raft_command->add_subcommand(
      "transcript", "Run etcd-io/raft datadriven transcripts; PASS/FAIL with a diff per file");
  transcript_command->add_option("FILE", raft_transcript.files, "transcript files (.txt)")
      ->required();
  transcript_command->add_flag("--rewrite", raft_transcript.rewrite,
                               "write the actual outputs back into the files");
  transcript_command
      ->add_option("--suite", raft_transcript.suite,
                   "command set: auto (by the file's directory, the default), interaction, "
                   "confchange or quorum")
      ->check(CLI::IsMember({"auto", "interaction", "confchange", "quorum"}));
  add_version(*transcript_command);

  CLI::App* list_command = app.add_subcommand(
      "list", "List built-in scenarios, systems, fault kinds, properties and studies");
  bool fuzz_dictionary = false;
  list_command->add_flag("--fuzz-dictionary", fuzz_dictionary,
                         "print the registry's scenario words as a libFuzzer dictionary");
  add_version(*list_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << deepest_parsed(app).help();
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
  if (*list_command) {
    return fuzz_dictionary ? command_fuzz_dictionary(out) : command_list(out, err);
  }
  if (*check_command) return command_check(check, out, err);
  if (*diff_command) return command_report_diff(diff, out, err);
  if (*report_command) {
    if (!report_extras_ok(*report_command, study_commands, report, err)) return kExitBadInput;
    return command_report(report, out, err);
  }
  if (*merge_command) return command_merge(merge, out, err);
  if (*transcript_command) return command_raft_transcript(raft_transcript, out, err);
  return kExitBadInput;
}

}  // namespace hasim
