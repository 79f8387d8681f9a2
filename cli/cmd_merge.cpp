// hasim merge SHARD... --out DIR: the full report from the shard files of one study (for
// example the pods of a Kubernetes Indexed Job), byte-identical to a single run. The study
// is the one the shards name; the checks are the generic study runner's.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "reports/study_runner.hpp"

namespace hasim {

int command_merge(const MergeArgs& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> texts;
  for (const std::string& path : args.shards) {
    auto text = read_text_file(path);
    if (!text) {
      err << "hasim merge: cannot read the shard file " << path
          << "; check the path (shards are written by `hasim report STUDY --shard I/N`)\n";
      return kExitBadInput;
    }
    texts.push_back(std::move(*text));
  }
  if (auto problem = merge_command(texts, args.shards, args.out, args.force, args.quiet, out)) {
    err << "hasim merge: " << *problem << "\n";
    return kExitBadInput;
  }
  return kExitHeld;
}

}  // namespace hasim
