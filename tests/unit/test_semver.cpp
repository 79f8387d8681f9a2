// Semantic versions as Coordinated Leader Election reads them: blang/semver v4's Parse (API
// validation), ParseTolerant (the election controller) and Compare. Reference:
// shared/reference/coordinated-leader-election.md §5; pre-release order from semver 2.0.0 §11.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/election/semver.hpp"

using namespace hasim::election;

namespace {

SemVer version(std::uint64_t major, std::uint64_t minor, std::uint64_t patch,
               std::vector<std::string> pre = {}) {
  return SemVer{major, minor, patch, std::move(pre)};
}

SemVer strict(std::string_view text) {
  const std::optional<SemVer> parsed = parse_semver(text);
  INFO("parse_semver(\"" << std::string(text) << "\")");
  REQUIRE(parsed.has_value());
  return *parsed;
}

}  // namespace

TEST_CASE("parse_semver accepts MAJOR.MINOR.PATCH with pre-release and build", "[semver]") {
  CHECK(parse_semver("1.20.0") == version(1, 20, 0));
  CHECK(parse_semver("0.0.0") == version(0, 0, 0));
  CHECK(parse_semver("1.31.0-rc.1") == version(1, 31, 0, {"rc", "1"}));
  CHECK(parse_semver("1.2.3-alpha-1.x-y") == version(1, 2, 3, {"alpha-1", "x-y"}));
  // Build metadata is validated and dropped.
  CHECK(parse_semver("1.2.3+build.5") == version(1, 2, 3));
  CHECK(parse_semver("1.2.3-rc.1+sha.abc") == version(1, 2, 3, {"rc", "1"}));
  // The first '+' ends the pre-release: a '-' after it belongs to the build.
  CHECK(parse_semver("1.2.3+b-1") == version(1, 2, 3));
  CHECK(parse_semver("18446744073709551615.0.0") == version(18446744073709551615ULL, 0, 0));
  CHECK(parse_semver("1.2.3-18446744073709551615") == version(1, 2, 3, {"18446744073709551615"}));
  // "0" alone is not a leading zero, and an alphanumeric identifier may start with zeros.
  CHECK(parse_semver("1.2.3-0.0a") == version(1, 2, 3, {"0", "0a"}));
}

TEST_CASE("parse_semver rejects what strict Parse rejects", "[semver]") {
  for (const char* text : {
           "",         // empty
           "v1.2.3",   // leading v
           "1.2",      // two parts
           "1",        // one part
           "1.2.3.4",  // the fourth part lands in the patch: "3.4"
           "01.2.3",
           "1.02.3",
           "1.2.03",    // leading zeros in numeric parts
           "1.2.3-01",  // leading zero in a numeric pre-release identifier
           "1.2.3-rc..1",
           "1.2.3-",
           "1.2.3-rc.",  // empty pre-release identifiers
           "1.2.3+",
           "1.2.3+a..b",  // empty build identifiers
           "1.2.3-rc_1",
           "1.2.3+b_1",  // characters outside [0-9A-Za-z-]
           " 1.2.3",
           "1.2.3 ",  // no trimming in strict mode
           "1..3",
           ".2.3",
           "1.2.",  // empty numbers
           "-1.2.3",
           "+1.2.3",
           "1.-2.3",                      // signs are not digits
           "18446744073709551616.0.0",    // major overflows uint64
           "0.18446744073709551616.0",    // minor overflows
           "0.0.18446744073709551616",    // patch overflows
           "1.2.3-18446744073709551616",  // numeric pre-release overflows
           "xyz",
           "1.2.x",
           "1.2.3-é",
       }) {
    INFO("text \"" << text << "\"");
    CHECK_FALSE(parse_semver(text).has_value());
  }
}

TEST_CASE("parse_semver_tolerant normalises like ParseTolerant", "[semver]") {
  CHECK(parse_semver_tolerant("1.20") == version(1, 20, 0));
  CHECK(parse_semver_tolerant("1") == version(1, 0, 0));
  CHECK(parse_semver_tolerant("v1.20.0") == version(1, 20, 0));
  CHECK(parse_semver_tolerant("V1.20.0") == version(1, 20, 0));
  CHECK(parse_semver_tolerant("v1.20") == version(1, 20, 0));
  CHECK(parse_semver_tolerant(" 1.2.3 ") == version(1, 2, 3));
  CHECK(parse_semver_tolerant("\t1.2.3\n") == version(1, 2, 3));
  // Go's TrimSpace trims Unicode spaces too (NBSP, ideographic space).
  CHECK(parse_semver_tolerant("\xC2\xA0"
                              "1.2.3\xE3\x80\x80") == version(1, 2, 3));
  // Leading zeros of each dot part are stripped; the third part keeps its suffixes.
  CHECK(parse_semver_tolerant("01.2.3") == version(1, 2, 3));
  CHECK(parse_semver_tolerant("01.002.0003") == version(1, 2, 3));
  CHECK(parse_semver_tolerant("00.00.00") == version(0, 0, 0));
  CHECK(parse_semver_tolerant("1.2.03-rc.1") == version(1, 2, 3, {"rc", "1"}));
  CHECK(parse_semver_tolerant("1.2.00-rc") == version(1, 2, 0, {"rc"}));
  CHECK(parse_semver_tolerant("1.2.3-rc.1+build") == version(1, 2, 3, {"rc", "1"}));
  CHECK_FALSE(parse_semver("01.2.3").has_value());  // the strict parser still refuses it
}

TEST_CASE("parse_semver_tolerant errors", "[semver]") {
  for (const char* text : {
           "",           // nothing left after trimming
           "   ",        //
           "xyz",        // "xyz.0.0"
           "v",          // ".0.0"
           "vv1.2.3",    // only one "v" is dropped
           "v 1.2.3",    // trimming happens before the "v" goes
           "1.2-rc",     // a short form cannot carry a pre-release
           "1-rc",       //
           "1.2+build",  // or build metadata
           "1.2.3-01",   // pre-release identifiers keep their strict rules
           "1.2.3.4",    //
           "1.2.3-",     //
       }) {
    INFO("text \"" << text << "\"");
    CHECK_FALSE(parse_semver_tolerant(text).has_value());
  }
}

TEST_CASE("compare orders numeric parts numerically", "[semver]") {
  CHECK(compare(strict("1.20.0"), strict("1.20.0")) == 0);
  CHECK(compare(strict("1.9.0"), strict("1.10.0")) == -1);
  CHECK(compare(strict("1.10.0"), strict("1.9.0")) == 1);
  CHECK(compare(strict("2.0.0"), strict("1.99.99")) == 1);
  CHECK(compare(strict("1.2.3"), strict("1.2.4")) == -1);
  CHECK(compare(strict("18446744073709551615.0.0"), strict("18446744073709551614.0.0")) == 1);
  CHECK(compare(SemVer{}, strict("0.0.0")) == 0);
}

TEST_CASE("compare follows semver 2.0.0 pre-release precedence", "[semver]") {
  // semver.org §11's chain, strictly increasing.
  const std::vector<std::string> chain = {
      "1.0.0-alpha",  "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
      "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",       "1.0.0",
  };
  for (std::size_t i = 0; i < chain.size(); ++i) {
    for (std::size_t j = 0; j < chain.size(); ++j) {
      INFO(chain[i] << " vs " << chain[j]);
      const int expected = i < j ? -1 : (i > j ? 1 : 0);
      CHECK(compare(strict(chain[i]), strict(chain[j])) == expected);
    }
  }
  // Numeric identifiers rank below alphanumeric ones, whatever the characters.
  CHECK(compare(strict("1.0.0-999"), strict("1.0.0-0a")) == -1);
  CHECK(compare(strict("1.0.0-A"), strict("1.0.0-a")) == -1);  // byte order: 'A' < 'a'
  CHECK(compare(strict("1.0.0-rc.1"), strict("1.0.0-rc.1")) == 0);
  // A pre-release only matters between equal MAJOR.MINOR.PATCH.
  CHECK(compare(strict("1.0.1-alpha"), strict("1.0.0")) == 1);
  // Hand-built identifiers with leading zeros still compare by value.
  CHECK(compare(version(1, 0, 0, {"010"}), version(1, 0, 0, {"9"})) == 1);
}

TEST_CASE("compare ignores build metadata", "[semver]") {
  CHECK(compare(strict("1.0.0+a"), strict("1.0.0+b")) == 0);
  CHECK(compare(strict("1.0.0+zzz"), strict("1.0.0")) == 0);
  CHECK(compare(strict("1.0.0-rc.1+x"), strict("1.0.0-rc.1+y.2")) == 0);
  CHECK(strict("1.0.0+a") == strict("1.0.0"));
}

TEST_CASE("to_string writes the version without build metadata", "[semver]") {
  CHECK(to_string(version(1, 31, 0)) == "1.31.0");
  CHECK(to_string(version(1, 31, 0, {"rc", "1"})) == "1.31.0-rc.1");
  CHECK(to_string(strict("1.2.3-beta.11+sha.1")) == "1.2.3-beta.11");
  CHECK(to_string(SemVer{}) == "0.0.0");
  for (const char* text : {"0.0.0", "1.2.3", "1.0.0-alpha.beta", "10.20.30-rc.1.x-y"}) {
    CHECK(to_string(strict(text)) == text);
  }
}
