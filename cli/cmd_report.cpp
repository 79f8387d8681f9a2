// hasim report STUDY ...: a study from the registry (reports/studies), run by the generic
// study runner (reports/study_runner), which writes JSON, Markdown, HTML and CSV.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "reports/studies.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim {

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err) {
  if (args.list) {
    out << "studies (hasim report STUDY [--trials N] ..., hasim report STUDY --help):\n"
        << study_list_text()
        << "and: hasim report diff A.json B.json  compares two reports of one study\n";
    return kExitHeld;
  }
  if (args.study.empty()) {
    err << "hasim report: give a study to run, e.g. `hasim report upgrade-skew`; the studies:\n"
        << study_list_text();
    return kExitBadInput;
  }
  const StudyEntry* entry = find_study(args.study);
  if (entry == nullptr) {
    std::vector<std::string> names;
    for (const StudyEntry& e : studies()) names.push_back(e.name);
    err << "hasim report: unknown report \"" << args.study << "\""
        << did_you_mean(args.study, names) << "; the studies are " << study_names()
        << " (hasim report --list)\n";
    return kExitBadInput;
  }
  if (auto problem = run_study_command(*entry, args.options, out)) {
    err << "hasim report " << entry->name << ": " << *problem << "\n";
    return kExitBadInput;
  }
  return kExitHeld;
}

}  // namespace hasim
