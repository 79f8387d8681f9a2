// The upgrade-skew study's machinery with a fake model (the real simulation has its own
// tests): the grid and seeds, identical bytes for any --jobs and for merged shards, merge's
// refusals, the summaries, and what the three files contain.
#include <catch2/catch.hpp>

#include "reports/study_runner.hpp"
#include "reports/upgrade_report.hpp"
#include "reports/upgrade_study.hpp"
#include "sim/rng.hpp"

using namespace hasim;

namespace {

// A stand-in for run_upgrade_trial: every field a pure function of (cell, seed), with
// violation rates that differ by mode and direction like the real thing might.
UpgradeTrial fake_trial(const UpgradeCell& cell, std::uint64_t seed) {
  std::uint64_t state = seed;
  const std::uint64_t a = splitmix64(state);
  const std::uint64_t b = splitmix64(state);
  const bool lease = cell.mode == ElectionMode::lease;
  const bool rollback = cell.direction == UpgradeDirection::rollback;
  const std::uint64_t percent = lease ? (rollback ? 100 : 25) : (rollback ? 40 : 0);
  UpgradeTrial t;
  t.violated = a % 100 < percent;
  if (t.violated) {
    t.violation_time = milliseconds(static_cast<std::int64_t>(500 + b % 30'000));
    t.first_violation = seconds(60) + milliseconds(static_cast<std::int64_t>(b % 100'000));
  }
  t.leader_changes = 1 + (a >> 8) % 4;
  t.lease_writes = 200 + (a >> 16) % 50;
  t.candidate_writes = lease ? 0 : 20 + (a >> 24) % 10;
  t.upgrade_duration = minutes(cell.nodes) + seconds(static_cast<std::int64_t>((b >> 8) % 60));
  t.leaders_at_end = (b >> 16) % 20 != 0;
  return t;
}

UpgradeTimeline fake_timeline(const UpgradeCell& cell, std::uint64_t seed) {
  UpgradeTimeline timeline;
  timeline.start = TrueTime{0};
  timeline.end = TrueTime{minutes(5).ns};
  for (int n = 1; n <= cell.nodes; ++n) {
    TimelineLane lane;
    lane.label = "cp-" + std::to_string(n) + " kube-apiserver";
    lane.segments.push_back({TrueTime{0}, TrueTime{minutes(n).ns}, "v1.31.0", ""});
    lane.segments.push_back({TrueTime{minutes(n).ns}, timeline.end, "v1.32.0", ""});
    lane.markers.push_back({TrueTime{minutes(n).ns}, "seed " + std::to_string(seed % 1000), ""});
    timeline.lanes.push_back(lane);
  }
  return timeline;
}

UpgradeModel fake_factory(const UpgradeSettings&, const std::vector<UpgradeCell>&) {
  return {fake_trial, fake_timeline};
}

std::unique_ptr<Study> fake_study(const UpgradeOptions& options,
                                  UpgradeModelFactory factory = fake_factory) {
  return make_upgrade_skew_study(options, std::move(factory));
}

UpgradeOptions small_options() {
  UpgradeOptions options;
  options.trials = 40;
  options.seed = 11;
  return options;
}

struct Files {
  std::string json, markdown, html, cells_csv, trials_csv;
  bool operator==(const Files&) const = default;
};

Files render(Study& study) {
  const std::vector<ReportFile> f = study_report(study);
  REQUIRE(f.size() == 5);
  return {f[0].contents, f[1].contents, f[2].contents, f[3].contents, f[4].contents};
}

Files single_run(const UpgradeOptions& options, unsigned jobs) {
  auto study = fake_study(options);
  study->run_trials({0, study->total_trials()}, jobs, {});
  return render(*study);
}

// The trials a study holds, in order.
const std::vector<UpgradeTrial>& trials_of(const Study& study) {
  const auto* typed = dynamic_cast<const TrialStudy<UpgradeTrial>*>(&study);
  REQUIRE(typed != nullptr);
  return typed->trials();
}

UpgradeResults run_upgrade_study(const UpgradeOptions& options, UpgradeModelFactory factory) {
  auto study = fake_study(options, factory);
  study->run_trials({0, study->total_trials()}, 1, {});
  return complete_upgrade_study(options, trials_of(*study), factory({}, {}).timeline);
}

std::vector<std::string> shard_texts(const UpgradeOptions& options, std::uint64_t count) {
  std::vector<std::string> texts;
  for (std::uint64_t i = 0; i < count; ++i) {
    texts.push_back(run_study_shard(*fake_study(options), {i, count}, 1));
  }
  return texts;
}

std::vector<std::string> names(std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back("s" + std::to_string(i) + ".json");
  return out;
}

std::unique_ptr<Study> merge(const std::vector<std::string>& texts,
                             const std::vector<std::string>& labels, std::string* error) {
  return merge_study_shards(texts, labels, error, [](const std::string& name) {
    return name == "upgrade-skew" ? make_upgrade_skew_study(fake_factory) : nullptr;
  });
}

}  // namespace

TEST_CASE("the default grid has 12 cells, lease/upgrade/3 first", "[upgrade-report]") {
  const std::vector<UpgradeCell> cells = default_upgrade_cells();
  REQUIRE(cells.size() == 12);
  CHECK(cells.front() == UpgradeCell{ElectionMode::lease, UpgradeDirection::upgrade, 3});
  CHECK(cells[1] == UpgradeCell{ElectionMode::lease, UpgradeDirection::upgrade, 5});
  CHECK(cells[2] == UpgradeCell{ElectionMode::lease, UpgradeDirection::rollback, 3});
  CHECK(cells.back() == UpgradeCell{ElectionMode::mixed, UpgradeDirection::rollback, 5});
  // The flags' order does not change the cells (and so the seeds).
  CHECK(upgrade_grid({ElectionMode::coordinated, ElectionMode::lease}, {UpgradeDirection::rollback},
                     {5, 3, 5}) == upgrade_grid({ElectionMode::lease, ElectionMode::coordinated},
                                                {UpgradeDirection::rollback}, {3, 5}));
}

TEST_CASE("trial t of cell c runs with trial_seed(seed, c * trials + t)", "[upgrade-report]") {
  UpgradeOptions options = small_options();
  options.trials = 3;
  options.cells = {{ElectionMode::lease, UpgradeDirection::upgrade, 3},
                   {ElectionMode::coordinated, UpgradeDirection::rollback, 5}};
  std::vector<std::pair<UpgradeCell, std::uint64_t>> calls;
  auto study = fake_study(options, [&](const UpgradeSettings&, const std::vector<UpgradeCell>&) {
    return UpgradeModel{[&](const UpgradeCell& c, std::uint64_t s) {
                          calls.emplace_back(c, s);
                          return UpgradeTrial{};
                        },
                        fake_timeline};
  });
  study->run_trials({0, study->total_trials()}, 1, {});
  CHECK(study->total_trials() == 6);
  REQUIRE(calls.size() == 6);  // one thread: in order
  for (std::uint64_t i = 0; i < 6; ++i) {
    CHECK(calls[i].first == options.cells[i / 3]);
    CHECK(calls[i].second == trial_seed(11, i));
  }
}

TEST_CASE("the study is byte-identical for one and two threads", "[upgrade-report]") {
  UpgradeOptions options = small_options();
  const Files one = single_run(options, 1);
  const Files two = single_run(options, 2);
  CHECK(one == two);
  options.seed = 12;
  CHECK(single_run(options, 1).json != one.json);
}

TEST_CASE("three merged shards are byte-identical to a single run", "[upgrade-report]") {
  const UpgradeOptions options = small_options();
  const Files single = single_run(options, 2);
  // Any order of the files: merge puts the trials back in index order.
  std::vector<std::string> texts = shard_texts(options, 3);
  std::swap(texts[0], texts[2]);
  std::string error;
  auto merged = merge(texts, names(3), &error);
  INFO(error);
  REQUIRE(merged);
  const Files from_shards = render(*merged);
  CHECK(from_shards.json == single.json);
  CHECK(from_shards.markdown == single.markdown);
  CHECK(from_shards.html == single.html);
  CHECK(from_shards == single);
}

TEST_CASE("more shards than trials still merge to the single run", "[upgrade-report]") {
  UpgradeOptions options = small_options();
  options.trials = 1;
  options.cells = {{ElectionMode::lease, UpgradeDirection::rollback, 3}};
  const Files single = single_run(options, 1);
  std::string error;
  auto merged = merge(shard_texts(options, 4), names(4), &error);
  REQUIRE(merged);
  CHECK(render(*merged) == single);
}

TEST_CASE("a shard file reads back to exactly what was written", "[upgrade-report]") {
  UpgradeOptions options = small_options();
  options.settings.upgrade.downtime = DurationDistribution::lognormal(seconds(40), seconds(80));
  options.settings.upgrade.order = {"cp-3", "cp-1", "cp-2"};
  options.settings.upgrade.stop = UpgradeSpec::Stop::power_off;
  auto written = fake_study(options);
  const std::string text = run_study_shard(*written, {0, 1}, 1);
  std::string error;
  const auto back = merge({text}, names(1), &error);
  INFO(error);
  REQUIRE(back);
  CHECK(back->options_json().dump() == upgrade_options_json(options));
  const std::vector<UpgradeTrial>& a_trials = trials_of(*written);
  const std::vector<UpgradeTrial>& b_trials = trials_of(*back);
  REQUIRE(a_trials.size() == b_trials.size());
  for (std::size_t i = 0; i < a_trials.size(); ++i) {
    const UpgradeTrial& a = a_trials[i];
    const UpgradeTrial& b = b_trials[i];
    CHECK(a.violated == b.violated);
    CHECK(a.kcm_violated == b.kcm_violated);
    CHECK(a.violation_time == b.violation_time);
    CHECK(a.first_violation == b.first_violation);
    CHECK(a.leader_changes == b.leader_changes);
    CHECK(a.lease_writes == b.lease_writes);
    CHECK(a.candidate_writes == b.candidate_writes);
    CHECK(a.upgrade_duration == b.upgrade_duration);
    CHECK(a.leaders_at_end == b.leaders_at_end);
  }
}

TEST_CASE("merge refuses shards that do not belong together", "[upgrade-report]") {
  const UpgradeOptions options = small_options();
  const std::vector<std::string> three = shard_texts(options, 3);
  std::string error;

  SECTION("a missing shard is named") {
    CHECK_FALSE(merge({three[0], three[2]}, names(2), &error));
    CHECK_THAT(error, Catch::Contains("missing 1 of 3 shards: 1/3"));
  }
  SECTION("a shard given twice is named with both files") {
    CHECK_FALSE(merge({three[0], three[1], three[1]}, names(3), &error));
    CHECK_THAT(error, Catch::Contains("s2.json and s1.json are both shard 1/3"));
  }
  SECTION("a shard of another split") {
    const std::vector<std::string> two = shard_texts(options, 2);
    CHECK_FALSE(merge({three[0], three[1], two[1]}, names(3), &error));
    CHECK_THAT(error, Catch::Contains("one of 2 shards"));
  }
  SECTION("a shard of another study") {
    UpgradeOptions other = options;
    other.seed = 99;
    const std::vector<std::string> foreign = shard_texts(other, 3);
    CHECK_FALSE(merge({three[0], three[1], foreign[2]}, names(3), &error));
    CHECK_THAT(error, Catch::Contains("belong to different studies"));
  }
  SECTION("a shard of another hasim version") {
    std::string edited = three[2];
    const std::size_t at = edited.find("\"hasimVersion\": \"");
    REQUIRE(at != std::string::npos);
    edited.insert(at + 17, "9");
    CHECK_FALSE(merge({three[0], three[1], edited}, names(3), &error));
    CHECK_THAT(error, Catch::Contains("written by hasim 9"));
  }
  SECTION("not a shard at all") {
    CHECK_FALSE(merge({"{\"report\": \"nosuch\"}"}, {"f.json"}, &error));
    CHECK_THAT(error, Catch::Contains("f.json: not a file of any hasim study"));
    CHECK_FALSE(
        merge({"{\"report\": \"upgrade-skew\", \"file\": \"report\"}"}, {"r.json"}, &error));
    CHECK_THAT(error, Catch::Contains("r.json: not a shard file"));
    CHECK_FALSE(merge({"[1, 2"}, {"g.json"}, &error));
    CHECK_THAT(error, Catch::Contains("g.json: not a JSON object"));
  }
  SECTION("a truncated trial array") {
    std::string edited = three[0];
    const std::size_t at = edited.find("\"violated\": [");
    REQUIRE(at != std::string::npos);
    edited.erase(at + 13, 2);  // the first value and its comma
    CHECK_FALSE(merge({edited, three[1], three[2]}, names(3), &error));
    CHECK_THAT(error, Catch::Contains("must be an array of"));
  }
}

TEST_CASE("summaries: Wilson intervals, nearest-rank times, write rates", "[upgrade-report]") {
  UpgradeOptions options;
  options.trials = 4;
  options.cells = {{ElectionMode::lease, UpgradeDirection::upgrade, 3}};
  int calls = 0;
  const UpgradeTrialFn trial = [&calls](const UpgradeCell&, std::uint64_t) {
    ++calls;
    UpgradeTrial t;
    t.violated = calls % 2 == 0;  // trials 1 and 3 violate
    if (t.violated) {
      t.violation_time = seconds(calls);  // 2s and 4s
      t.first_violation = seconds(100 + calls);
    }
    t.leader_changes = 3;
    t.lease_writes = 10;
    t.candidate_writes = 5;
    t.upgrade_duration = seconds(30);
    t.leaders_at_end = calls != 4;
    return t;
  };
  const UpgradeResults r =
      run_upgrade_study(options, [&](const UpgradeSettings&, const std::vector<UpgradeCell>&) {
        return UpgradeModel{trial, fake_timeline};
      });
  // The sample is the first violating trial.
  CHECK(r.sample.cell == 0);
  CHECK(r.sample.trial == 1);
  CHECK(r.sample.seed == trial_seed(1, 1));
  const std::vector<UpgradeCellSummary> cells = summarize_upgrade(r);
  REQUIRE(cells.size() == 1);
  const UpgradeCellSummary& s = cells[0];
  CHECK(s.violating == 2);
  CHECK(s.probability == 0.5);
  CHECK(s.interval == wilson_interval(2, 4));
  CHECK(s.violation_time.mean == seconds(3));
  CHECK(s.violation_time.p99 == seconds(4));
  CHECK(s.violation_time_all.mean == milliseconds(1500));
  CHECK(s.first_violation.p50 == seconds(102));
  CHECK(s.mean(s.leader_changes) == 3.0);
  CHECK(s.writes_per_second() == 0.5);  // 60 writes in 120 s
  CHECK(s.leaders_at_end == 3);
}

TEST_CASE("no violation anywhere: the sample is trial 0 of the first cell", "[upgrade-report]") {
  UpgradeOptions options = small_options();
  options.cells = {{ElectionMode::coordinated, UpgradeDirection::upgrade, 3}};
  const UpgradeResults r = run_upgrade_study(options, fake_factory);
  CHECK(r.sample.cell == 0);
  CHECK(r.sample.trial == 0);
  const std::string md = upgrade_markdown(r);
  CHECK_THAT(md, Catch::Contains("no trial violated skew"));
  CHECK_THAT(md, Catch::Contains("held in every trial"));
}

TEST_CASE("the report files say what a reader of the KEP needs", "[upgrade-report]") {
  const UpgradeResults r = run_upgrade_study(small_options(), fake_factory);
  const std::string json = upgrade_json(r);
  CHECK_THAT(json, Catch::Contains("\"report\": \"upgrade-skew\""));
  CHECK_THAT(json, Catch::Contains("\"formatVersion\": 1"));
  CHECK_THAT(json, Catch::Contains("\"oneLease\": \"1/4\""));
  CHECK_THAT(json, Catch::Contains("\"oneLease\": \"131/256\""));
  CHECK_THAT(json, Catch::Contains("\"violated\": ["));  // every trial
  CHECK(json.find("\"jobs\"") == std::string::npos);     // never in a result

  const std::string md = upgrade_markdown(r);
  CHECK_THAT(md, Catch::Contains("## Comparison with KEP-4355"));
  CHECK_THAT(md, Catch::Contains("| lease/upgrade/3"));
  CHECK_THAT(md, Catch::Contains("1/4 = 25.0%"));
  CHECK_THAT(md, Catch::Contains("7/16 = 43.8%"));
  CHECK_THAT(md, Catch::Contains("hasim report upgrade-skew --trials 40 --seed 11"));

  const std::string html = upgrade_html(r);
  CHECK_THAT(html, Catch::Contains("<svg"));
  CHECK_THAT(html, Catch::Contains("95% Wilson intervals"));  // the bar chart's title
  CHECK_THAT(html, Catch::Contains("lease: total violation time"));
  CHECK_THAT(html, Catch::Contains("cp-3 kube-apiserver"));  // the sample timeline
  CHECK_THAT(html, Catch::Contains("How to read"));
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
}

TEST_CASE("option checks name the flag and the fix", "[upgrade-report]") {
  UpgradeOptions options;
  CHECK_FALSE(validate_upgrade_options(options));
  options.trials = 0;
  CHECK_THAT(*validate_upgrade_options(options), Catch::Contains("--trials"));
  options = UpgradeOptions{};
  options.cells = upgrade_grid({ElectionMode::lease}, {UpgradeDirection::upgrade}, {1});
  CHECK_THAT(*validate_upgrade_options(options), Catch::Contains("--nodes 1"));
  options = UpgradeOptions{};
  options.settings.old_version = "1.32";
  CHECK_THAT(*validate_upgrade_options(options), Catch::Contains("--from \"1.32\""));
  options = UpgradeOptions{};
  options.settings.old_version = "1.33.0";
  CHECK_THAT(*validate_upgrade_options(options), Catch::Contains("must be older than --to"));
  options = UpgradeOptions{};
  options.settings.renewDeadline = seconds(20);
  CHECK_THAT(*validate_upgrade_options(options), Catch::Contains("--lease-duration"));
}

TEST_CASE("shard file names follow the Indexed Job's numbering", "[upgrade-report]") {
  CHECK(study_shard_file_name("upgrade-skew", {2, 8}) == "upgrade-skew.shard-2-of-8.json");
  CHECK(study_report_files("upgrade-skew") ==
        std::vector<std::string>{"upgrade-skew.json", "upgrade-skew.md", "upgrade-skew.html",
                                 "upgrade-skew.cells.csv", "upgrade-skew.trials.csv"});
}
