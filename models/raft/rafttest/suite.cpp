// Suite lookup by name and by a transcript's path.
#include "models/raft/rafttest/suite.hpp"

#include "models/raft/rafttest/interaction.hpp"

namespace hasim::raft::rafttest {

std::unique_ptr<TranscriptHandler> make_suite(std::string_view name) {
  if (name == "quorum") return make_quorum_suite();
  if (name == "confchange") return make_confchange_suite();
  if (name == "interaction") return make_interaction_suite();
  return nullptr;
}

std::string_view suite_for_path(std::string_view path) {
  // A directory component, not a substring of a longer name ("myquorum/testdata/").
  const auto under = [path](std::string_view dir) {
    // Bounded: each pass moves `at` forward.
    for (std::size_t at = path.find(dir); at != std::string_view::npos;
         at = path.find(dir, at + 1)) {
      if (at == 0 || path[at - 1] == '/') return true;
    }
    return false;
  };
  if (under("quorum/testdata/")) return "quorum";
  if (under("confchange/testdata/")) return "confchange";
  return "interaction";
}

}  // namespace hasim::raft::rafttest
