// hasim merge SHARD... --out DIR: the full report from the shard files of one study (for
// example the pods of a Kubernetes Indexed Job), byte-identical to a single run.
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "reports/output_dir.hpp"
#include "reports/upgrade_report.hpp"

namespace hasim {

int command_merge(const MergeArgs& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> texts;
  for (const std::string& path : args.shards) {
    auto text = read_text_file(path);
    if (!text) {
      err << "hasim merge: cannot read the shard file " << path
          << "; check the path (shards are written by `hasim report upgrade-skew --shard I/N`)\n";
      return kExitBadInput;
    }
    texts.push_back(std::move(*text));
  }
  // Only upgrade-skew runs as shards today; its reader names any other file's report.
  std::string error;
  auto merged = merge_upgrade_shards(texts, args.shards, &error);
  if (!merged) {
    err << "hasim merge: " << error << "\n";
    return kExitBadInput;
  }
  // A hand-edited shard could carry options the simulation cannot run.
  if (const auto problem = validate_upgrade_options(merged->options)) {
    err << "hasim merge: the shards' options are not valid: " << *problem << "\n";
    return kExitBadInput;
  }
  const std::string dir = args.out.empty() ? "reports/out/upgrade-skew" : args.out;
  const std::vector<std::string> files = upgrade_report_files();
  if (!prepare_output_dir(dir, files, args.force, &error)) {
    err << "hasim merge: " << error << "\n";
    return kExitBadInput;
  }
  // The sample timeline is not in the shards: it is one more simulation, rerun here from
  // the options exactly as a single run does.
  const UpgradeModel model = simulated_upgrade_model(merged->options.settings, {});
  const UpgradeResults results =
      complete_upgrade_study(merged->options, std::move(merged->trials), model.timeline);
  const std::string markdown = upgrade_markdown(results);
  const std::string paths[] = {dir + "/" + files[0], dir + "/" + files[1], dir + "/" + files[2]};
  if (!write_text_file(paths[0], upgrade_json(results), &error) ||
      !write_text_file(paths[1], markdown, &error) ||
      !write_text_file(paths[2], upgrade_html(results), &error)) {
    err << "hasim merge: " << error << "\n";
    return kExitBadInput;
  }
  out << markdown << "\nmerged " << args.shards.size() << " shards\nwrote " << paths[0] << ", "
      << paths[1] << ", " << paths[2] << "\n";
  return kExitHeld;
}

}  // namespace hasim
