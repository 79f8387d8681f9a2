#pragma once
// etcd-io/raft's datadriven transcripts, read where the shared conformance vectors live
// (shared/conformance/etcd-io-raft beside the source tree; never copied into the project).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/raft/rafttest/suite.hpp"

namespace hasim::test {

inline std::filesystem::path raft_conformance_dir() {
  return std::filesystem::path(HASIM_SOURCE_DIR) / ".." / "shared" / "conformance" / "etcd-io-raft";
}

// The .txt files of a testdata directory ("quorum/testdata", "testdata"), sorted by name.
inline std::vector<std::filesystem::path> raft_transcripts(const std::string& subdir) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = raft_conformance_dir() / subdir;
  std::error_code code;
  for (const auto& entry : std::filesystem::directory_iterator(dir, code)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string read_transcript(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs every transcript of `subdir` (there must be `count`) with a fresh handler of `suite`
// and checks that each passes; a failure shows the file and its diff.
inline void check_transcripts_pass(const std::string& subdir, const char* suite, std::size_t count) {
  const auto files = raft_transcripts(subdir);
  REQUIRE(files.size() == count);
  for (const auto& file : files) {
    INFO(file.string());
    const auto handler = hasim::raft::rafttest::make_suite(suite);
    REQUIRE(handler != nullptr);
    const auto result =
        hasim::raft::rafttest::run_transcript(file.string(), read_transcript(file), *handler);
    INFO(result.error << result.diff);
    CHECK(result.passed);
  }
}

}  // namespace hasim::test
