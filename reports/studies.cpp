#include "reports/studies.hpp"

#include <algorithm>

#include "reports/cloudcore_report.hpp"
#include "reports/etcd_ha_report.hpp"
#include "reports/failover_report.hpp"
#include "reports/raft_election_report.hpp"
#include "reports/upgrade_study.hpp"

namespace hasim {

const std::vector<StudyEntry>& studies() {
  static const std::vector<StudyEntry> list{
      {"upgrade-skew", [] { return make_upgrade_skew_study(); }},
      {"failover", [] { return make_failover_study(); }},
      {"raft-election", [] { return make_raft_election_study(); }},
      {"cloudcore", [] { return make_cloudcore_study(); }},
      {"etcd-ha", [] { return make_etcd_ha_study(); }},
  };
  return list;
}

const StudyEntry* find_study(std::string_view name) {
  for (const StudyEntry& entry : studies()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string study_names() {
  std::string out;
  for (const StudyEntry& entry : studies()) out += (out.empty() ? "" : ", ") + entry.name;
  return out;
}

std::string study_list_text() {
  std::size_t width = 0;
  for (const StudyEntry& entry : studies()) width = std::max(width, entry.name.size());
  std::string out;
  for (const StudyEntry& entry : studies()) {
    const auto study = entry.make();
    HASIM_ASSERT(study->info().name == entry.name);
    out += "  " + entry.name + std::string(width - entry.name.size() + 2, ' ') +
           study->info().summary + "\n";
  }
  return out;
}

std::vector<std::string> studies_owning_flag(std::string_view flag) {
  std::vector<std::string> owners;
  for (const StudyEntry& entry : studies()) {
    for (const StudyFlag& f : entry.make()->info().flags) {
      if (f.name == flag) owners.push_back(entry.name);
    }
  }
  return owners;
}

}  // namespace hasim
