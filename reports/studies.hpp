#pragma once
// The studies `hasim report` runs, in one explicit list (reports/studies.cpp). Adding a
// study adds one line there; the command line, shards, merge and `hasim list` follow.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reports/study.hpp"

namespace hasim {

struct StudyEntry {
  std::string name;
  std::function<std::unique_ptr<Study>()> make;
};

// Every study, in the order `hasim report --list` shows them.
const std::vector<StudyEntry>& studies();
// nullptr if no study has that name.
const StudyEntry* find_study(std::string_view name);
// "upgrade-skew, failover"
std::string study_names();
// One line per study, "  NAME  summary", for `hasim report --list` and `hasim list`.
std::string study_list_text();
// The studies that declare `flag` (e.g. "--pause" -> {"failover"}; "--modes" -> {"upgrade-skew",
// "cloudcore"}), in registry order; none for a flag no study declares.
std::vector<std::string> studies_owning_flag(std::string_view flag);

}  // namespace hasim
