#pragma once
// The interaction suite: etcd-io/raft's rafttest.InteractionEnv (add-nodes, campaign,
// stabilize, deliver-msgs, process-ready, ...) over hasim's raft port, for the transcripts in
// etcd-io/raft's testdata/. Defined by interaction_env.cpp.
#include <memory>

#include "models/raft/rafttest/datadriven.hpp"

namespace hasim::raft::rafttest {

std::unique_ptr<TranscriptHandler> make_interaction_suite();

}  // namespace hasim::raft::rafttest
