// The etcd-ha study (`hasim report etcd-ha`, issue 17 part 8): its trial measures quorum loss,
// recovery, lost writes and the operator from the trace, is a pure function of its seed, the
// study gives the same bytes at any --jobs, its flags name the fix, and `hasim report diff`
// reads its JSON.
#include <catch2/catch.hpp>

#include "reports/diff.hpp"
#include "reports/etcd_ha_report.hpp"
#include "reports/study_runner.hpp"
#include "study_rig.hpp"

using namespace hasim;

namespace {

EtcdHaTrial ha_trial_of(const EtcdHaCell& cell, const EtcdHaSettings& settings,
                        std::uint64_t seed) {
  return run_etcd_ha_trial(etcd_ha_study_scenario(cell, settings), cell, settings, seed);
}

// Only zone outages, always at least one: a single-zone cluster loses every worker.
EtcdHaSettings zone_outages_only() {
  EtcdHaSettings s;
  s.nodeFailures = s.volumeLosses = s.storeOutages = s.podDeletions = 0;
  s.zoneOutages = 20;
  return s;
}

std::unique_ptr<Study> run_etcd_ha(std::map<std::string, std::string> flags, std::uint64_t trials,
                                   std::uint64_t seed, unsigned jobs) {
  return hasim::testing::run_study(make_etcd_ha_study, trials, seed, jobs, std::move(flags));
}

std::string ha_configure_error(std::map<std::string, std::string> flags) {
  return hasim::testing::configure_error(make_etcd_ha_study, std::move(flags));
}

const std::map<std::string, std::string> kSmall{{"--storages", "persistent"},
                                                {"--members", "3"},
                                                {"--zones", "1"},
                                                {"--zone-outages", "20"},
                                                {"--node-failures", "0"}};

}  // namespace

TEST_CASE("etcd-ha: a zone outage of the only zone loses the quorum; upstream's operator steps in",
          "[report][etcd-ha][etcd-ha-trials]") {
  const EtcdHaSettings settings = zone_outages_only();
  const EtcdHaCell upstream{DruidStorage::persistent, druid::DruidMode::upstream, 3, 1};
  const EtcdHaTrial a = ha_trial_of(upstream, settings, 5);
  CHECK(a == ha_trial_of(upstream, settings, 5));  // a function of its seed
  CHECK(a.faults >= 3);                            // every worker of the zone, at least once
  CHECK(a.quorum_lost);
  CHECK(a.longest_outage >= kEtcdHaQuorumLoss);
  CHECK(a.unavailable >= a.longest_outage);
  // The outage outlasts --operator-after: the on-call operator runs the runbook.
  CHECK(a.manual);
  const EtcdHaCell proposal{DruidStorage::persistent, druid::DruidMode::proposal, 3, 1};
  CHECK_FALSE(ha_trial_of(proposal, settings, 5).manual);  // no runbook in the proposal
}

TEST_CASE("etcd-ha: a quiet trial has no outage and loses nothing",
          "[report][etcd-ha][etcd-ha-trials]") {
  EtcdHaSettings s;
  s.nodeFailures = s.zoneOutages = s.volumeLosses = s.storeOutages = s.podDeletions = 0;
  s.window = minutes(10);
  const EtcdHaTrial t =
      ha_trial_of({DruidStorage::emptyDir, druid::DruidMode::proposal, 3, 3}, s, 1);
  CHECK(t.faults == 0);
  CHECK_FALSE(t.quorum_lost);
  CHECK(t.recovered);
  CHECK(t.unavailable == Duration{});
  CHECK(t.revisions_lost == 0);
}

TEST_CASE("the etcd-ha study is identical for one and two threads and writes its tables",
          "[report][etcd-ha][etcd-ha-trials]") {
  auto one = run_etcd_ha(kSmall, 2, 3, 1);
  const std::vector<ReportFile> files = study_report(*one);
  const std::vector<ReportFile> two = study_report(*run_etcd_ha(kSmall, 2, 3, 2));
  REQUIRE(files.size() == two.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    INFO(files[i].name);
    CHECK(files[i].contents == two[i].contents);
  }
  REQUIRE(one->cell_count() == 2);
  CHECK(one->cell_name(0) == "persistent/upstream/3/1-zone");
  CHECK(one->cell_name(1) == "persistent/proposal/3/1-zone");
  const std::string& md = files[1].contents;
  CHECK_THAT(md, Catch::Contains("## Findings") && Catch::Contains("## The seed's claims"));
  CHECK_THAT(md, Catch::Contains("operator needed"));
  CHECK_THAT(files[2].contents, Catch::Contains("<svg"));
  CHECK_THAT(files[0].contents, Catch::Contains("\"recoverySamplesNs\""));
}

TEST_CASE("etcd-ha's flags are checked and name the fix", "[report][etcd-ha]") {
  CHECK_THAT(ha_configure_error({{"--members", "4"}}),
             Catch::Contains("--members \"4\"") && Catch::Contains("1, 3, 5"));
  CHECK_THAT(ha_configure_error({{"--zones", "3,3"}}), Catch::Contains("--zones \"3,3\""));
  CHECK_THAT(ha_configure_error({{"--storages", "memory"}}),
             Catch::Contains("--storages") && Catch::Contains("persistent,ephemeral"));
  CHECK_THAT(ha_configure_error({{"--modes", "auto"}}), Catch::Contains("upstream,proposal"));
  CHECK_THAT(ha_configure_error({{"--node-failures", "-1"}}),
             Catch::Contains("--node-failures \"-1\"") && Catch::Contains("0.5"));
  CHECK_THAT(ha_configure_error({{"--window", "5m"}}), Catch::Contains("--window 5m"));
  CHECK_THAT(ha_configure_error({{"--operator-after", "soon"}}),
             Catch::Contains("--operator-after \"soon\""));
  CHECK(ha_configure_error({}).empty());
}

TEST_CASE("hasim report diff compares two etcd-ha reports cell by cell",
          "[report][etcd-ha][etcd-ha-trials]") {
  const std::string a = study_report(*run_etcd_ha(kSmall, 2, 1, 2))[0].contents;
  const std::string b = study_report(*run_etcd_ha(kSmall, 2, 2, 2))[0].contents;
  std::string error;
  const auto diff = diff_reports({"A.json", a}, {"B.json", b}, 0.05, &error);
  INFO(error);
  REQUIRE(diff);
  CHECK(diff->study == "etcd-ha");
  CHECK(diff->only_in_a.empty());
  // Two cells, each with four probabilities and one sample of durations.
  CHECK(diff->rows.size() + diff->uncompared.size() == 10);
}
