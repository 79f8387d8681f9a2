// The generic study runner with the real studies: a single run, shards merged, any --jobs,
// all give the same bytes; foreign shards are refused; the registry; progress lines with an
// injected clock (no real sleeps); CSV.
#include <catch2/catch.hpp>
#include <cstdio>

#include "reports/csv.hpp"
#include "reports/progress.hpp"
#include "reports/studies.hpp"
#include "reports/study_runner.hpp"

using namespace hasim;

namespace {

// Small configurations of each study, so the real simulation runs in well under a second.
StudyArgs small_args(const std::string& study) {
  StudyArgs args;
  args.trials = 3;
  args.seed = 5;
  if (study == "upgrade-skew") {
    args.flags = {{"--modes", "lease,coordinated"}, {"--nodes", "3"}, {"--directions", "upgrade"}};
  }
  // Four cells of sixteen: one mode, both load balancers, two faults.
  if (study == "cloudcore") args.flags = {{"--modes", "v1.5"}, {"--faults", "crash,node-down"}};
  // Two cells of 10-minute trials: an etcd-ha trial simulates a whole Etcd under druid.
  if (study == "etcd-ha") {
    args.flags = {
        {"--storages", "persistent"}, {"--members", "3"}, {"--zones", "3"}, {"--window", "10m"}};
  }
  return args;
}

std::unique_ptr<Study> configured(const std::string& name) {
  auto study = find_study(name)->make();
  const auto problem = study->configure(small_args(name));
  INFO(problem.value_or(""));
  REQUIRE_FALSE(problem);
  return study;
}

std::vector<std::string> contents(const std::vector<ReportFile>& files) {
  std::vector<std::string> out;
  for (const ReportFile& f : files) out.push_back(f.contents);
  return out;
}

std::vector<std::string> single_run(const std::string& name, unsigned jobs) {
  auto study = configured(name);
  study->run_trials({0, study->total_trials()}, jobs, {});
  return contents(study_report(*study));
}

std::vector<std::string> shards(const std::string& name, std::uint64_t count) {
  std::vector<std::string> out;
  for (std::uint64_t i = 0; i < count; ++i) {
    out.push_back(run_study_shard(*configured(name), {i, count}, 2));
  }
  return out;
}

}  // namespace

TEST_CASE("every study: shards merged and any --jobs give a single run's bytes", "[study]") {
  for (const StudyEntry& entry : studies()) {
    INFO(entry.name);
    const std::vector<std::string> one = single_run(entry.name, 1);
    CHECK(single_run(entry.name, 2) == one);
    std::vector<std::string> texts = shards(entry.name, 2);
    std::swap(texts[0], texts[1]);
    std::string error;
    auto merged = merge_study_shards(texts, {"b.json", "a.json"}, &error);
    INFO(error);
    REQUIRE(merged);
    CHECK(merged->info().name == entry.name);
    CHECK(contents(study_report(*merged)) == one);
  }
}

TEST_CASE("merge refuses a shard of another study", "[study]") {
  const std::vector<std::string> skew = shards("upgrade-skew", 2);
  const std::vector<std::string> failover = shards("failover", 2);
  std::string error;
  CHECK_FALSE(merge_study_shards({skew[0], failover[1]}, {"s0.json", "f1.json"}, &error));
  CHECK_THAT(error, Catch::Contains("f1.json is a shard of failover but s0.json of upgrade-skew"));
  // The same study with other options (another seed) is another study too.
  StudyArgs args = small_args("failover");
  args.seed = 6;
  auto other = find_study("failover")->make();
  REQUIRE_FALSE(other->configure(args));
  const std::string foreign = run_study_shard(*other, {1, 2}, 1);
  CHECK_FALSE(merge_study_shards({failover[0], foreign}, {"f0.json", "x.json"}, &error));
  CHECK_THAT(error, Catch::Contains("belong to different studies"));
  CHECK_FALSE(merge_study_shards({failover[0]}, {"f0.json"}, &error));
  CHECK_THAT(error, Catch::Contains("missing 1 of 2 shards: 1/2"));
  CHECK_THAT(error, Catch::Contains("failover.shard-0-of-2.json"));
}

TEST_CASE("a hand-edited shard count or trial count costs nothing and is refused", "[study]") {
  std::string text = shards("failover", 1)[0];
  const auto replace = [&text](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  std::string error;
  SECTION("a huge shard count") {
    replace("\"count\": 1", "\"count\": 1000000000000000000");
    replace("\"end\": 9", "\"end\": 0");
    CHECK_FALSE(merge_study_shards({text}, {"f.json"}, &error));
    CHECK_THAT(error, Catch::Contains("missing 999999999999999999 of 1000000000000000000 shards: "
                                      "1/1000000000000000000, 2/"));
  }
  SECTION("a trial count that overflows") {
    replace("\"trialsPerFault\": 3", "\"trialsPerFault\": 9000000000000000000");
    CHECK_FALSE(merge_study_shards({text}, {"f.json"}, &error));
    CHECK_THAT(error, Catch::Contains("f.json: its options are not valid: --trials"));
  }
}

TEST_CASE("the registry lists each study once, with its own flags", "[study]") {
  const std::string list = study_list_text();
  CHECK_THAT(list, Catch::Contains("upgrade-skew"));
  CHECK_THAT(list, Catch::Contains("failover"));
  CHECK_THAT(list, Catch::Contains("raft-election"));
  CHECK(study_names() == "upgrade-skew, failover, raft-election, cloudcore, etcd-ha");
  CHECK(studies_owning_flag("--pause") == std::vector<std::string>{"failover"});
  CHECK(studies_owning_flag("--modes") ==
        std::vector<std::string>{"upgrade-skew", "cloudcore", "etcd-ha"});
  CHECK(studies_owning_flag("--trials").empty());  // generic, not a study's own
  CHECK(find_study("nosuch") == nullptr);
  for (const StudyEntry& entry : studies()) CHECK(entry.make()->info().name == entry.name);
}

TEST_CASE("the CSV files hold one row per cell and per trial", "[study]") {
  auto study = configured("upgrade-skew");
  study->run_trials({0, study->total_trials()}, 1, {});
  const std::vector<ReportFile> files = study_report(*study);
  REQUIRE(files.size() == 5);
  CHECK(files[3].name == "upgrade-skew.cells.csv");
  CHECK(files[3].contents.starts_with("cell,mode,direction,nodes,trials,violating,probability"));
  CHECK(files[4].contents.starts_with("cell,trial,seed,violated,kcmViolated,violationTimeNs"));
  std::size_t lines = 0;
  for (const char c : files[4].contents) lines += c == '\n' ? 1 : 0;
  CHECK(lines == 1 + 2 * 3);  // the header, then 2 cells x 3 trials
  CHECK_THAT(files[4].contents,
             Catch::Contains("\r\nlease/upgrade/3,0," + std::to_string(trial_seed(5, 0)) + ","));
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("plain") == "plain");
}

TEST_CASE("progress off a terminal: a line at most every 5 s, and a final one", "[study]") {
  using namespace std::chrono_literals;
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  auto now = std::chrono::steady_clock::time_point{};
  {
    ProgressBar bar(1000, "trials", ProgressStyle::lines, file, "upgrade-skew",
                    [&now] { return now; });
    bar.update(10);  // at 0 s: too early for a line
    now += 4s;
    bar.update(100);  // 4 s: still too early
    now += 1s;
    bar.update(250);  // 5 s: a line
    now += 2s;
    bar.update(300);  // 2 s after the last line: none
    now += 5s;
    bar.update(600);  // 12 s: a line
    now += 8s;
    bar.update(1000);  // done: the final line says so, at finish
    bar.finish();
    bar.update(1000);  // nothing after finish
  }
  std::rewind(file);
  char buffer[1024] = {};
  const std::size_t read = std::fread(buffer, 1, sizeof buffer - 1, file);
  std::fclose(file);
  CHECK(std::string(buffer, read) ==
        "upgrade-skew: 250/1000 trials (25.0%), 50/s, ETA 15s\n"
        "upgrade-skew: 600/1000 trials (60.0%), 50/s, ETA 8s\n"
        "upgrade-skew: 1000/1000 trials in 20s, 50/s\n");
}

TEST_CASE("progress styles: quiet is off", "[study]") {
  CHECK(progress_style(true) == ProgressStyle::off);
  CHECK(progress_style(false) != ProgressStyle::off);
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressBar bar(10, "runs", ProgressStyle::off, file, "check");
    CHECK_FALSE(bar.enabled());
    bar.update(10);
    bar.finish();
  }
  CHECK(std::ftell(file) == 0);
  std::fclose(file);
}
