// hasim report NAME: Monte Carlo studies written as JSON, Markdown and one HTML file.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "models/election/leader_elector.hpp"
#include "reports/failover_report.hpp"
#include "reports/output_dir.hpp"
#include "reports/progress.hpp"

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

int report_failover(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  FailoverOptions options;
  FailoverSettings& s = options.settings;
  const auto ld = flag_duration("--lease-duration", args.lease_duration, err);
  const auto rd = flag_duration("--renew-deadline", args.renew_deadline, err);
  const auto rp = flag_duration("--retry-period", args.retry_period, err);
  const auto pause = flag_duration("--pause", args.pause, err);
  const auto partition = flag_duration("--partition", args.partition, err);
  if (!ld || !rd || !rp || !pause || !partition) return kExitBadInput;
  s.leaseDuration = *ld;
  s.renewDeadline = *rd;
  s.retryPeriod = *rp;
  s.pause = *pause;
  s.partition = *partition;
  election::LeaderElectionConfig config{*ld, *rd, *rp, false, "failover", false};
  if (const auto problem = election::validate(config, "identity")) {
    err << "hasim report failover: " << *problem << " (client-go requires leaseDuration > "
        << "renewDeadline > 1.2 x retryPeriod > 0); adjust --lease-duration, "
        << "--renew-deadline or --retry-period\n";
    return kExitBadInput;
  }
  if (args.trials == 0) {
    err << "hasim report failover: --trials must be at least 1\n";
    return kExitBadInput;
  }
  options.trials = args.trials;
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

}  // namespace

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  if (args.name == "failover") return report_failover(args, out, err);
  err << "hasim report: unknown report \"" << args.name << "\"; the reports are: failover\n";
  return kExitBadInput;
}

}  // namespace hasim
