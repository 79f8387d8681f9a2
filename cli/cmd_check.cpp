// hasim check [SCENARIO] [--runs N] [--seed S] [--jobs J] [--out DIR] [--max-faults K]
//             [--kinds LIST] [--break-assumptions] [--max-shrink-steps N] [--stop-at-first]
//             [--guided] [--force] [--quiet]
#include <filesystem>
#include <ostream>

#include "cli/app.hpp"
#include "properties/check_system.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "hasim_builtin.hpp"
#include "reports/check_output.hpp"
#include "reports/output_dir.hpp"
#include "reports/progress.hpp"
#include "scenarios/loader.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

const std::vector<std::string> kFiles{"check.json", "replay.json", "trace.jsonl", "explanation.md",
                                      "timeline.html"};

// "crash,pause" -> choices; an unknown name is an error naming the known ones.
std::optional<std::vector<FaultChoice>> parse_kinds(const std::string& text, std::ostream& err) {
  std::vector<FaultChoice> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    const FaultChoiceDef* choice = find_fault_choice(name);
    if (choice == nullptr) {
      err << "hasim: --kinds: unknown fault kind \"" << name << "\""
          << did_you_mean(name, fault_choice_names()) << "; the kinds are "
          << join_words(fault_choice_names()) << "\n";
      return std::nullopt;
    }
    out.emplace_back(choice->name);
    start = comma + 1;
  }
  return out;
}

// The default output folder: the first free reports/out/check/NAME[-N], so repeated checks
// never overwrite each other. An explicit --out is used as given (refused if it has files,
// unless --force).
std::string default_out(const std::string& name) {
  const std::string base = "reports/out/check/" + name;
  std::error_code code;
  if (!std::filesystem::exists(base, code)) return base;
  for (int i = 2;; ++i) {
    const std::string candidate = base + "-" + std::to_string(i);
    if (!std::filesystem::exists(candidate, code)) return candidate;
  }
}

bool write_all(const std::string& dir,
               const std::vector<std::pair<std::string, std::string>>& files, std::ostream& err) {
  for (const auto& [name, contents] : files) {
    std::string error;
    if (!write_text_file(dir + "/" + name, contents, &error)) {
      err << "hasim: " << error << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int command_check(const CheckArgs& args, std::ostream& out, std::ostream& err) {
  const auto arg =
      load_scenario_arg(args.scenario, kBuiltinCheckScenarioName, kBuiltinCheckScenario, err);
  if (!arg) return kExitBadInput;
  if (args.runs < 1 || args.runs > 100'000'000) {
    err << "hasim: --runs must be between 1 and 100000000, found " << args.runs << "\n";
    return kExitBadInput;
  }
  if (args.max_faults < 1 || args.max_faults > 1000) {
    err << "hasim: --max-faults must be between 1 and 1000, found " << args.max_faults << "\n";
    return kExitBadInput;
  }
  if (args.max_shrink_steps < 0 || args.max_shrink_steps > 1'000'000) {
    err << "hasim: --max-shrink-steps must be between 0 and 1000000, found "
        << args.max_shrink_steps << "\n";
    return kExitBadInput;
  }
  if (args.max_events && *args.max_events < 1) {
    err << "hasim: --max-events must be at least 1, found 0\n";
    return kExitBadInput;
  }
  CheckOptions options;
  options.runs = args.runs;
  options.seed = args.seed;
  options.jobs = args.jobs == 0 ? default_jobs() : args.jobs;
  options.generate.max_faults = args.max_faults;
  options.within_assumptions = !args.break_assumptions;
  options.max_shrink_steps = args.max_shrink_steps;
  options.stop_at_first = args.stop_at_first;
  options.guided = args.guided;
  options.max_events = args.max_events;
  if (args.kinds) {
    auto kinds = parse_kinds(*args.kinds, err);
    if (!kinds) return kExitBadInput;
    options.generate.kinds = std::move(*kinds);
  }
  const Scenario& scenario = arg->scenario;
  const std::string dir = args.out.empty() ? default_out(scenario.name) : args.out;
  std::string error;
  if (!prepare_output_dir(dir, kFiles, args.force, &error)) {
    err << "hasim: " << error << "\n";
    return kExitBadInput;
  }

  ProgressBar progress(options.runs, "runs", progress_style(args.quiet), stderr, "check");
  options.progress = [&progress](std::uint64_t done, std::uint64_t) { progress.update(done); };
  const auto result = run_check(scenario, options, &error);
  progress.finish();
  if (!result) {
    err << "hasim: " << arg->source << ": " << error << "\n";
    return kExitBadInput;
  }
  out << "scenario    " << scenario.name << " (" << arg->source << ")\n"
      << check_summary_text(*result, options);
  std::vector<std::pair<std::string, std::string>> files{
      {"check.json", check_summary_json(*result, options, scenario.name).dump(2) + "\n"}};
  if (result->failure) {
    const std::string replay = dir + "/replay.json";
    files.emplace_back(
        "replay.json",
        check_replay(Json::parse(arg->text), *result->failure, "trace.jsonl").dump(2) + "\n");
    files.emplace_back("trace.jsonl", check_trace(*result->failure));
    files.emplace_back("explanation.md", check_explanation(*result, scenario.name, replay));
    files.emplace_back("timeline.html", check_timeline_html(*result, scenario.name));
  }
  if (!write_all(dir, files, err)) return kExitBadInput;
  out << "wrote       ";
  for (std::size_t i = 0; i < files.size(); ++i) {
    out << (i > 0 ? ", " : "") << dir << "/" << files[i].first;
  }
  out << "\n";
  if (!result->failure) {
    out << "verdict     no violation in " << result->runs << " runs\n";
    return kExitHeld;
  }
  out << "verdict     VIOLATED; reproduce with: hasim replay " << dir << "/replay.json\n";
  return kExitViolated;
}

}  // namespace hasim
