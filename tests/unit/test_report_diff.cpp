// hasim report diff: the statistics against published values and against naive routines on
// random inputs (reports/diff_stats), then reading, matching and refusing report files
// (reports/diff) and the command end to end on small failover runs.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/app.hpp"
#include "reports/diff.hpp"
#include "reports/diff_output.hpp"
#include "reports/diff_stats.hpp"
#include "reports/stats.hpp"
#include "reports/studies.hpp"
#include "reports/study_runner.hpp"

using namespace hasim;
namespace fs = std::filesystem;

namespace {

using Samples = std::vector<std::int64_t>;

void check_newcombe(std::uint64_t xa, std::uint64_t na, std::uint64_t xb, std::uint64_t nb,
                    double low, double high) {
  // Newcombe's examples are p1 - p2; here the difference is B - A, so B is his first.
  const DiffInterval i = newcombe_interval(xa, na, xb, nb, kZ95);
  INFO(xb << "/" << nb << " - " << xa << "/" << na << ": [" << i.low << ", " << i.high << "]");
  CHECK(i.low == Approx(low).margin(5e-5));
  CHECK(i.high == Approx(high).margin(5e-5));
}

// U by its definition: pairs with b > a, ties counted half.
double naive_u(const Samples& a, const Samples& b) {
  double u = 0;
  for (std::int64_t x : a) {
    for (std::int64_t y : b) u += y > x ? 1.0 : y == x ? 0.5 : 0.0;
  }
  return u;
}

Samples all_differences(const Samples& a, const Samples& b) {
  Samples d;
  for (std::int64_t x : a) {
    for (std::int64_t y : b) d.push_back(y - x);
  }
  std::sort(d.begin(), d.end());
  return d;
}

// P(U <= u) by listing every way to place m of the ranks 0..m+n-1 in A.
std::vector<double> enumerated_cdf(std::size_t m, std::size_t n) {
  std::vector<double> counts(m * n + 1, 0.0);
  const std::size_t total = m + n;
  double ways = 0;
  for (std::uint32_t mask = 0; mask < (1u << total); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != m) continue;
    std::size_t u = 0;  // pairs with the B rank above the A rank
    for (std::size_t i = 0; i < total; ++i) {
      if (!(mask >> i & 1u)) continue;
      for (std::size_t j = i + 1; j < total; ++j) u += (mask >> j & 1u) ? 0 : 1;
    }
    counts[u] += 1;
    ways += 1;
  }
  std::vector<double> cdf;
  double running = 0;
  for (double c : counts) cdf.push_back(running += c / ways);
  return cdf;
}

rc::Gen<Samples> small_samples(std::size_t max_size, std::int64_t max_value) {
  return rc::gen::withSize([=](int) {
    return rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, max_size + 1), [=](std::size_t n) {
      return rc::gen::container<Samples>(n,
                                         rc::gen::inRange<std::int64_t>(-max_value, max_value + 1));
    });
  });
}

}  // namespace

TEST_CASE("Newcombe's hybrid score interval matches Newcombe (1998), Table II, method 10",
          "[report-diff]") {
  check_newcombe(48, 80, 56, 70, 0.0524, 0.3339);
  check_newcombe(3, 10, 9, 10, 0.1705, 0.8090);
  check_newcombe(2, 7, 6, 7, 0.0582, 0.8062);
  check_newcombe(0, 29, 5, 56, -0.0381, 0.1926);
  check_newcombe(0, 20, 0, 10, -0.1611, 0.2775);
  check_newcombe(0, 10, 0, 10, -0.2775, 0.2775);
  check_newcombe(0, 20, 10, 10, 0.6791, 1.0000);
  check_newcombe(0, 10, 10, 10, 0.6075, 1.0000);
}

TEST_CASE("the normal quantile inverts the tail", "[report-diff]") {
  CHECK(normal_upper_quantile(0.025) == Approx(kZ95).epsilon(1e-12));
  CHECK(normal_upper_quantile(0.005) == Approx(2.5758293035489004).epsilon(1e-12));
  CHECK(normal_upper_quantile(0.5) == Approx(0).margin(1e-12));
  CHECK(normal_upper_tail(normal_upper_quantile(1e-9)) == Approx(1e-9).epsilon(1e-9));
}

TEST_CASE("the Newcombe p-value is where the interval reaches 0", "[report-diff]") {
  rc::prop("interval at 1 - p just touches 0", [] {
    const auto na = *rc::gen::inRange<std::uint64_t>(1, 300);
    const auto nb = *rc::gen::inRange<std::uint64_t>(1, 300);
    const auto xa = *rc::gen::inRange<std::uint64_t>(0, na + 1);
    const auto xb = *rc::gen::inRange<std::uint64_t>(0, nb + 1);
    const double p = newcombe_p_value(xa, na, xb, nb);
    RC_ASSERT(p > 0.0);
    RC_ASSERT(p <= 1.0);
    if (xa * nb == xb * na) RC_SUCCEED("equal proportions: p = 1");
    RC_ASSERT(p < 1.0);
    if (p < 1e-10) RC_SUCCEED("beyond the checked range");
    const double z = normal_upper_quantile(p / 2);
    const DiffInterval narrower = newcombe_interval(xa, na, xb, nb, z * (1 - 1e-6));
    const DiffInterval wider = newcombe_interval(xa, na, xb, nb, z * (1 + 1e-6));
    const bool b_higher = xb * na > xa * nb;
    const bool narrower_excludes = b_higher ? narrower.low > 0 : narrower.high < 0;
    const bool wider_includes = b_higher ? wider.low <= 0 : wider.high >= 0;
    RC_ASSERT(narrower_excludes);
    RC_ASSERT(wider_includes);
  });
}

TEST_CASE("Mann-Whitney on R's wilcox.test example (Hollander and Wolfe, permeability)",
          "[report-diff]") {
  // Permeability constants (x100) of the human chorioamnion: at term (B) against 12-26
  // weeks (A). R: W = 35, two-sided exact p = 0.2544; location shift 0.305, 95% CI
  // [-0.15, 0.76].
  const Samples term{80, 83, 189, 104, 145, 138, 191, 164, 73, 146};
  const Samples early{115, 88, 90, 74, 121};
  const MannWhitney test = mann_whitney(early, term);
  CHECK(test.exact);
  CHECK_FALSE(test.ties);
  CHECK(test.u == 35);
  CHECK(test.p == Approx(0.2544122544122544).epsilon(1e-12));
  const Shift shift = hodges_lehmann(early, term, 0.05);
  CHECK(shift.estimate == 30.5);
  CHECK(shift.low == -15);
  CHECK(shift.high == 76);
  CHECK_FALSE(shift.clipped);
}

TEST_CASE("Mann-Whitney's normal approximation corrects for ties", "[report-diff]") {
  // scipy.stats.mannwhitneyu(b, a, method='asymptotic', use_continuity=True): U = 94.5,
  // p = 0.005625214779700691.
  const Samples a{1, 2, 2, 3, 3, 3, 4, 5, 5, 6};
  const Samples b{3, 4, 4, 5, 6, 6, 7, 7, 8, 9, 9};
  const MannWhitney test = mann_whitney(a, b);
  CHECK_FALSE(test.exact);
  CHECK(test.ties);
  CHECK(test.u == 94.5);
  CHECK(test.p == Approx(0.005625214779700691).epsilon(1e-9));
  const Samples same(60, 7);
  CHECK(mann_whitney(same, same).p == 1.0);
}

TEST_CASE("U from ranks equals U from counting pairs", "[report-diff]") {
  rc::prop("rank sum vs pairs", [] {
    const Samples a = *small_samples(70, 5);
    const Samples b = *small_samples(70, 5);
    const MannWhitney test = mann_whitney(a, b);
    RC_ASSERT(test.u == naive_u(a, b));
    RC_ASSERT(test.p > 0.0);
    RC_ASSERT(test.p <= 1.0);
  });
}

TEST_CASE("the exact distribution of U equals enumeration", "[report-diff]") {
  for (std::size_t m = 1; m <= 6; ++m) {
    for (std::size_t n = 1; n <= 6; ++n) {
      const std::vector<double> fast = mann_whitney_exact_cdf(m, n);
      const std::vector<double> slow = enumerated_cdf(m, n);
      REQUIRE(fast.size() == slow.size());
      for (std::size_t u = 0; u < fast.size(); ++u) {
        INFO("m " << m << " n " << n << " u " << u);
        CHECK(fast[u] == Approx(slow[u]).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("the k-th pairwise difference and the shift equal sorting all differences",
          "[report-diff]") {
  rc::prop("bisection vs sort", [] {
    Samples a = *small_samples(40, 1000);
    Samples b = *small_samples(40, 1000);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const Samples d = all_differences(a, b);
    const auto k = *rc::gen::inRange<std::uint64_t>(1, d.size() + 1);
    RC_ASSERT(kth_pairwise_difference(a, b, k) == d[k - 1]);
    RC_ASSERT(pairs_at_most(a, b, d[k - 1]) >= k);
    const double median =
        d.size() % 2 == 1
            ? static_cast<double>(d[d.size() / 2])
            : (static_cast<double>(d[d.size() / 2 - 1]) + static_cast<double>(d[d.size() / 2])) / 2;
    const Shift shift = hodges_lehmann(a, b, 0.05);
    RC_ASSERT(shift.estimate == median);
    RC_ASSERT(shift.low <= shift.estimate);
    RC_ASSERT(shift.estimate <= shift.high);
  });
}

TEST_CASE("Holm adjusts step-down and tests the smallest p hardest", "[report-diff]") {
  const HolmResult h = holm({0.01, 0.04, 0.03, 0.005}, 0.05);
  const std::vector<double> adjusted{0.03, 0.06, 0.06, 0.02};
  const std::vector<double> alpha{0.05 / 3, 0.05, 0.05 / 2, 0.05 / 4};
  for (std::size_t i = 0; i < adjusted.size(); ++i) {
    CHECK(h.adjusted[i] == Approx(adjusted[i]));
    CHECK(h.alpha[i] == Approx(alpha[i]));
  }
  CHECK(holm({0.9, 0.8}, 0.05).adjusted == std::vector<double>{1.0, 1.0});
}

namespace {

using Json = nlohmann::ordered_json;

// A report as `hasim report STUDY --trials N --seed S FLAGS...` writes it (its JSON text).
std::string study_json(const std::string& name, std::uint64_t trials, std::uint64_t seed,
                       const std::map<std::string, std::string>& flags = {}) {
  auto study = find_study(name)->make();
  StudyArgs args;
  args.trials = trials;
  args.seed = seed;
  args.flags = flags;
  REQUIRE_FALSE(study->configure(args));
  study->run_trials({0, study->total_trials()}, 2, {});
  return study_report(*study)[0].contents;
}

DiffReport diff_of(const std::string& a, const std::string& b, double alpha = 0.05) {
  std::string error;
  auto report = diff_reports({"A.json", a}, {"B.json", b}, alpha, &error);
  INFO(error);
  REQUIRE(report);
  return *report;
}

std::string refusal(const std::string& a, const std::string& b) {
  std::string error;
  CHECK_FALSE(diff_reports({"A.json", a}, {"B.json", b}, 0.05, &error));
  return error;
}

// A failover report reduced to what diff reads, with the given crash cell.
std::string failover_doc(std::uint64_t trials, std::uint64_t dual, const Samples& unavailable) {
  Json cell = {{"trials", trials},
               {"dualLeaderTrials", dual},
               {"harmfulTrials", 0},
               {"notRecovered", 0},
               {"unavailableSamplesNs", unavailable}};
  return Json{{"report", "failover"}, {"formatVersion", 1}, {"faults", {{"crash", cell}}}}.dump();
}

const std::string& small_failover() {
  static const std::string text = study_json("failover", 12, 1);
  return text;
}

std::string edited(const std::string& text, const std::function<void(Json&)>& edit) {
  Json doc = Json::parse(text);
  edit(doc);
  return doc.dump();
}

// A scratch directory next to the test binary, unique to this process.
struct Scratch {
  fs::path path;
  Scratch() {
    std::error_code code;
    fs::path base = fs::read_symlink("/proc/self/exe", code).parent_path();
    if (code || base.empty()) base = fs::temp_directory_path();
    path = base / ("report-diff-test-" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "hasim");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("identical reports give no change", "[report-diff]") {
  const DiffReport same = diff_of(small_failover(), small_failover());
  CHECK(same.changed() == 0);
  CHECK(same.rows.size() == 12);
  for (const DiffRow& r : same.rows) CHECK(r.p == 1.0);
  CHECK(same.settings.empty());
  rc::prop("any report against itself", [] {
    const Samples samples = *small_samples(80, 1'000'000'000);
    const auto trials = *rc::gen::inRange<std::uint64_t>(1, 500);
    const auto dual = *rc::gen::inRange<std::uint64_t>(0, trials + 1);
    const std::string doc = failover_doc(trials, dual, samples);
    const DiffReport r = diff_of(doc, doc);
    RC_ASSERT(r.changed() == 0u);
    RC_ASSERT(r.rows.size() == 4u);
    for (const DiffRow& row : r.rows) RC_ASSERT(row.p == 1.0);
  });
}

TEST_CASE("diff matches cells by name and lists the ones in one report only", "[report-diff]") {
  const std::string without_pause = edited(small_failover(), [](Json& d) {
    d["faults"].erase("pause");
    d["seed"] = 9;
  });
  const DiffReport r = diff_of(small_failover(), without_pause);
  CHECK(r.only_in_a == std::vector<std::string>{"pause"});
  CHECK(r.only_in_b.empty());
  CHECK(r.rows.size() == 8);
  REQUIRE(r.settings.size() == 1);
  CHECK(r.settings[0].field == "/seed");
  CHECK(r.settings[0].b == "9");
  const DiffReport empty = diff_of(failover_doc(10, 0, {}), failover_doc(10, 0, {5, 6}));
  REQUIRE(empty.uncompared.size() == 1);
  CHECK(empty.uncompared[0].reason == "no samples in A");
  CHECK(diff_markdown(r).find("Cells only in A (not compared): pause") != std::string::npos);
}

TEST_CASE("diff refuses what is not two reports of one study, naming the field", "[report-diff]") {
  const std::string& f = small_failover();
  CHECK_THAT(refusal("[1]", f), Catch::Contains("A.json is not a JSON object"));
  CHECK_THAT(refusal(f, edited(f, [](Json& d) { d["report"] = "raft-election"; })),
             Catch::Contains("field \"report\": A.json has \"failover\""));
  CHECK_THAT(refusal(f, edited(f, [](Json& d) { d["formatVersion"] = 2; })),
             Catch::Contains("field \"formatVersion\""));
  CHECK_THAT(refusal(edited(f, [](Json& d) { d["formatVersion"] = 2; }),
                     edited(f, [](Json& d) { d["formatVersion"] = 2; })),
             Catch::Contains("this hasim reads failover reports of format 1"));
  CHECK_THAT(refusal(f, edited(f, [](Json& d) { d["file"] = "shard"; })),
             Catch::Contains("hasim merge"));
  const std::string nope = edited(f, [](Json& d) { d["report"] = "nope"; });
  CHECK_THAT(refusal(nope, nope),
             Catch::Contains("A.json: field \"report\" is \"nope\", not a hasim study"));
  CHECK_THAT(
      refusal(f, edited(f, [](Json& d) { d["faults"]["crash"].erase("unavailableSamplesNs"); })),
      Catch::Contains("B.json: field \"/faults/crash/unavailableSamplesNs\" is missing"));
  CHECK_THAT(
      refusal(f, edited(f, [](Json& d) { d["faults"]["pause"]["unavailableSamplesNs"][0] = 1.5; })),
      Catch::Contains("\"/faults/pause/unavailableSamplesNs/0\" must be a whole number"));
  CHECK_THAT(refusal(f, edited(f, [](Json& d) { d["faults"]["crash"]["dualLeaderTrials"] = 99; })),
             Catch::Contains("\"/faults/crash/dualLeaderTrials\" exceeds"));
}

TEST_CASE("hasim report diff: other seeds exit 0, a shorter pause exits 1 naming its cell",
          "[report-diff]") {
  const Scratch dir;
  const std::string a = dir.write("a.json", study_json("failover", 40, 1));
  const std::string b = dir.write("b.json", study_json("failover", 40, 2));
  const std::string c = dir.write("c.json", study_json("failover", 40, 3, {{"--pause", "10s"}}));
  const CliResult quiet = cli({"report", "diff", a, b});
  INFO(quiet.out << quiet.err);
  CHECK(quiet.code == kExitHeld);
  CHECK_THAT(quiet.out, Catch::Contains("**No change**"));

  const CliResult changed = cli({"report", "diff", a, c, "--format", "json"});
  CHECK(changed.code == kExitViolated);
  const Json doc = Json::parse(changed.out);
  CHECK(doc["changed"].get<int>() > 0);
  for (const Json& row : doc["rows"]) {
    INFO(row.dump());
    CHECK(row["changed"].get<bool>() ==
          (row["cell"] == "pause" && row["figure"] != "notRecovered"));
  }
  CHECK(doc["rows"][0]["cell"] == "pause");
  CHECK(doc["settingsChanged"].size() == 2);  // the seed and the pause

  CHECK(cli({"report", "diff", a, c, "--out", (dir.path / "out").string()}).code == kExitViolated);
  CHECK(fs::exists(dir.path / "out" / "diff.md"));
  CHECK(fs::exists(dir.path / "out" / "diff.json"));
  const CliResult again = cli({"report", "diff", a, c, "--out", (dir.path / "out").string()});
  CHECK(again.code == kExitBadInput);
  CHECK_THAT(again.err, Catch::Contains("--force"));
}

TEST_CASE("hasim report diff exits 2 on bad input", "[report-diff]") {
  const Scratch dir;
  const std::string a = dir.write("a.json", small_failover());
  const std::string r = dir.write("r.json", study_json("raft-election", 10, 1));
  const CliResult studies = cli({"report", "diff", a, r});
  CHECK(studies.code == kExitBadInput);
  CHECK_THAT(studies.err, Catch::Contains("field \"report\""));
  CHECK(cli({"report", "diff", a, (dir.path / "missing.json").string()}).code == kExitBadInput);
  const CliResult alpha = cli({"report", "diff", a, a, "--alpha", "0"});
  CHECK(alpha.code == kExitBadInput);
  CHECK_THAT(alpha.err, Catch::Contains("--alpha"));
  CHECK(cli({"report", "diff", a, a, "--format", "html"}).code == kExitBadInput);
}

TEST_CASE("diff reads every study's report: raft-election lines, upgrade-skew cells",
          "[report-diff]") {
  const DiffReport raft =
      diff_of(study_json("raft-election", 20, 1), study_json("raft-election", 20, 2));
  CHECK(raft.changed() == 0);
  CHECK(raft.rows.size() == 27);  // 14 lines x 2 figures, less 150-150's empty downtime
  REQUIRE(raft.uncompared.size() == 1);
  CHECK(raft.uncompared[0].cell == "150-150");

  const std::map<std::string, std::string> one_cell{
      {"--nodes", "3"}, {"--modes", "lease"}, {"--directions", "upgrade"}};
  std::map<std::string, std::string> two_cells = one_cell;
  two_cells["--directions"] = "upgrade,rollback";
  const DiffReport upgrade = diff_of(study_json("upgrade-skew", 30, 1, one_cell),
                                     study_json("upgrade-skew", 30, 2, two_cells));
  CHECK(upgrade.changed() == 0);
  CHECK(upgrade.only_in_b == std::vector<std::string>{"lease/rollback/3"});
  CHECK(upgrade.rows.size() == 3);
}
