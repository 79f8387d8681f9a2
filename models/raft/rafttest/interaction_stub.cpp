// TEMPORARY — delete at merge, when interaction_env.cpp (the real make_interaction_suite)
// lands. Until then it lets the quorum/confchange branch link: every interaction command
// answers "interaction suite not built yet", so interaction transcripts fail visibly.
#include "models/raft/rafttest/interaction.hpp"

namespace hasim::raft::rafttest {
namespace {

class InteractionStub final : public TranscriptHandler {
 public:
  std::string handle(const TestData&) override { return "interaction suite not built yet\n"; }
};

}  // namespace

std::unique_ptr<TranscriptHandler> make_interaction_suite() {
  return std::make_unique<InteractionStub>();
}

}  // namespace hasim::raft::rafttest
