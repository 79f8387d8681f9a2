// etcd-io/raft's own interaction transcripts (28 files, read from shared/conformance; never
// copied) and the project's raft transcripts (tests/raft/), byte for byte, through the
// interaction environment that drives RawNodes (models/raft/rafttest/).
#include <catch2/catch.hpp>

#include <filesystem>

#include "raft_conformance_files.hpp"

TEST_CASE("the upstream interaction transcripts pass byte for byte", "[raft]") {
  hasim::test::check_transcripts_pass("testdata", "interaction", 28);
}

TEST_CASE("the project's raft transcripts pass byte for byte", "[raft]") {
  const std::filesystem::path dir = std::filesystem::path(HASIM_SOURCE_DIR) / "tests" / "raft";
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt") continue;
    ++count;
    INFO(entry.path().string());
    const auto handler = hasim::raft::rafttest::make_suite("interaction");
    const auto result = hasim::raft::rafttest::run_transcript(
        entry.path().string(), hasim::test::read_transcript(entry.path()), *handler);
    INFO(result.error << result.diff);
    CHECK(result.passed);
  }
  CHECK(count >= 8);
}
