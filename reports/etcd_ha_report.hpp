#pragma once
// `hasim report etcd-ha` (issue 17 part 8): an etcd-druid-managed Etcd under a fault mix, over
// cells of (storage, mode, members, zones), each with its trials (reports/etcd_ha_trial.hpp):
// the probability of a quorum loss, of no recovery within the window, of an operator being
// needed and of acknowledged writes lost, the revisions lost, the time to recover (CDF) and
// the write unavailability, with 95% intervals. A study (reports/study.hpp): etcd-ha.json
// (versioned, every sample), etcd-ha.md (the cells side by side, findings computed from the
// numbers and the seed's own claims checked against them), etcd-ha.html (the same with CDF
// plots and a bar chart), the CSV files; shards and merge.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/etcd_ha_trial.hpp"
#include "reports/stats.hpp"
#include "reports/study.hpp"

namespace hasim {

struct EtcdHaOptions {
  EtcdHaSettings settings;
  std::vector<DruidStorage> storages{std::begin(kEtcdHaStorages), std::end(kEtcdHaStorages)};
  std::vector<druid::DruidMode> modes{std::begin(kEtcdHaModes), std::end(kEtcdHaModes)};
  std::vector<int> members{3, 5};
  std::vector<int> zones{1, 3};
  std::uint64_t trials = 1000;  // per cell
  std::uint64_t seed = 1;
  // storage-major, then mode, members, zones.
  std::vector<EtcdHaCell> cells() const;
};

struct EtcdHaCellResult {
  EtcdHaCell cell;
  std::uint64_t trials = 0;
  std::uint64_t quorum_lost = 0;
  std::uint64_t not_recovered = 0;
  std::uint64_t operator_needed = 0;  // the runbook ran, or writes still failed at the end
  std::uint64_t loss = 0;             // trials that lost acknowledged revisions
  std::uint64_t loss_not_permitted = 0;
  std::uint64_t loss_minority_volumes = 0;  // writes lost with at most half the members' data lost
  std::uint64_t loss_of_quorum_lost = 0;    // quorum-loss trials that lost writes
  std::uint64_t operator_of_quorum_lost = 0;
  std::vector<std::int64_t> revisions_lost;  // every trial
  std::vector<Duration> recovery;            // the longest outage of each quorum-loss trial
  std::vector<Duration> unavailable;         // every trial
};

struct EtcdHaResults {
  EtcdHaOptions options;
  std::vector<EtcdHaCellResult> cells;  // in options.cells() order
};

// Trial i of cell c (options.cells() order) at index c * trials + i.
EtcdHaResults summarize_etcd_ha(const EtcdHaOptions& options,
                                const std::vector<EtcdHaTrial>& trials);

// Sentences computed from the figures, and the seed's claims with whether the figures
// support them.
std::vector<std::string> etcd_ha_findings(const EtcdHaResults& results);
std::vector<std::string> etcd_ha_claims(const EtcdHaResults& results);

std::string etcd_ha_json(const EtcdHaResults& results);
std::string etcd_ha_markdown(const EtcdHaResults& results);
std::string etcd_ha_html(const EtcdHaResults& results);
Table etcd_ha_cell_table(const EtcdHaResults& results);

std::unique_ptr<Study> make_etcd_ha_study();

}  // namespace hasim
