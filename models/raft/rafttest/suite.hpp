#pragma once
// The transcript suites: which handler runs a transcript of etcd-io/raft's tests.
//   quorum      quorum/testdata (committed, vote)             quorum_suite.cpp
//   confchange  confchange/testdata (simple, enter-joint, ...) confchange_suite.cpp
//   interaction testdata (the InteractionEnv commands)         interaction.hpp
#include <memory>
#include <string_view>

#include "models/raft/rafttest/datadriven.hpp"

namespace hasim::raft::rafttest {

// A fresh handler of the named suite ("quorum", "confchange" or "interaction"); nullptr for
// any other name.
std::unique_ptr<TranscriptHandler> make_suite(std::string_view name);

// The suite a transcript belongs to, by where it lives: under a quorum/testdata directory,
// "quorum"; under confchange/testdata, "confchange"; anything else, "interaction".
std::string_view suite_for_path(std::string_view path);

// The two suites of this directory (suite.cpp's make_suite dispatches to them).
std::unique_ptr<TranscriptHandler> make_quorum_suite();
std::unique_ptr<TranscriptHandler> make_confchange_suite();

}  // namespace hasim::raft::rafttest
