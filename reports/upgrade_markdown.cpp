// upgrade-skew.md: the summary a reader of the KEP needs, printed by the command too.
#include "reports/upgrade_text.hpp"

#include "reports/markdown.hpp"

namespace hasim {
std::string upgrade_markdown(const UpgradeResults& r) {
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  std::string out = "# Version skew during node-by-node control-plane upgrades\n\n";
  out += settings_text(r.options) + "\n\n";
  out += std::string(kViolation) + "\n\n";
  out += "P(at least one violation) per upgrade, 95% interval:\n\n";
  for (const std::string& line : key_results(cells)) out += "- " + line + "\n";
  out += "\n## Skew violations\n\n";
  out += markdown_table(
      skew_header(), skew_rows(cells),
      {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right});
  out += "\n## Elections and write load\n\n";
  out += markdown_table(election_header(), election_rows(cells),
                        {Align::left, Align::right, Align::right, Align::right, Align::right,
                         Align::right, Align::right});
  out += "\n";
  for (const std::string& line : write_findings(cells)) out += "- " + line + "\n";
  out += "\n## Comparison with KEP-4355\n\n";
  out += "KEP-4355 (Motivation): " + std::string(kKepUpgrade) + " " + std::string(kKepRollback) +
         " The uniform-race model (every step takes a node's apiserver and controllers down "
         "together, a leader on a downed node loses the lease, the lease goes uniformly at "
         "random to a surviving elector, nobody preempts) reproduces the 25% exactly.\n\n";
  out += markdown_table(comparison_header(), comparison_rows(cells));
  out += "\n";
  for (const std::string& line : comparison_findings(cells)) out += "- " + line + "\n";
  out += "\nWhy the simulation can differ from the model:\n\n";
  for (const std::string& line : model_differences(r.options.settings)) out += "- " + line + "\n";
  out += "\n## Findings\n\n";
  for (const std::string& line : upgrade_findings()) out += "- " + line + "\n";
  out += "\n" + sample_title(r) + " (drawn in upgrade-skew.html).\n\n";
  out +=
      "Intervals are 95% Wilson intervals; quantiles are nearest-rank; every trial is in "
      "upgrade-skew.json. Reproduce: `" +
      upgrade_reproduce_command(r.options) + "`\n";
  return out;
}

}  // namespace hasim
