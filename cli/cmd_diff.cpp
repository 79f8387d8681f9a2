// hasim report diff A.json B.json: two reports of one study compared cell by cell
// (reports/diff); prints the Markdown summary (or the JSON) and, with --out, writes both.
// Exit 0 when nothing changed, 1 when some comparison changed, 2 on bad input, so a CI job
// can fail on a setting or a version that made upgrades riskier or failover slower.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "reports/diff_output.hpp"
#include "reports/output_dir.hpp"

namespace hasim {

int command_report_diff(const ReportDiffArgs& args, std::ostream& out, std::ostream& err) {
  if (!(args.alpha > 0 && args.alpha < 1)) {
    err << "hasim report diff: --alpha must lie strictly between 0 and 1 (e.g. 0.05), not "
        << args.alpha << "\n";
    return kExitBadInput;
  }
  std::vector<DiffInput> inputs;
  for (const std::string& path : {args.a, args.b}) {
    auto text = read_text_file(path);
    if (!text) {
      err << "hasim report diff: cannot read " << path
          << "; give two report JSON files written by `hasim report STUDY` (NAME.json)\n";
      return kExitBadInput;
    }
    inputs.push_back({path, std::move(*text)});
  }
  std::string error;
  const auto report = diff_reports(inputs[0], inputs[1], args.alpha, &error);
  if (!report) {
    err << "hasim report diff: " << error << "\n";
    return kExitBadInput;
  }
  const std::vector<std::pair<std::string, std::string>> files{{"diff.md", diff_markdown(*report)},
                                                               {"diff.json", diff_json(*report)}};
  if (!args.out.empty()) {
    if (!prepare_output_dir(args.out, {files[0].first, files[1].first}, args.force, &error)) {
      err << "hasim report diff: " << error << "\n";
      return kExitBadInput;
    }
    for (const auto& [name, contents] : files) {
      if (!write_text_file(args.out + "/" + name, contents, &error)) {
        err << "hasim report diff: " << error << "\n";
        return kExitBadInput;
      }
    }
  }
  out << (args.format == "json" ? files[1].second : files[0].second);
  if (!args.out.empty()) {
    out << "\nwrote " << args.out << "/diff.md, " << args.out << "/diff.json\n";
  }
  return report->changed() > 0 ? kExitViolated : kExitHeld;
}

}  // namespace hasim
