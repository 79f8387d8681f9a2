// The interaction handlers that create nodes and poke one node's RawNode (add-nodes,
// campaign, propose, propose-conf-change, ticks, leadership and status commands).
#include <string>
#include <utility>

#include "models/raft/rafttest/interaction_env.hpp"
#include "models/raft/status.hpp"
#include "models/raft/tracker.hpp"

namespace hasim::raft::rafttest {

namespace {

// One key=value argument of add-nodes applied to the config template or the bootstrap
// snapshot; an error for a bad read-only option. Unknown keys are ignored, as upstream does.
EnvError apply_add_nodes_arg(const std::string& key, const std::string& val, Config& cfg,
                             Snapshot& snap) {
  if (key == "voters") {
    snap.metadata.confState.voters.push_back(args::to_uint64(val));
  } else if (key == "learners") {
    snap.metadata.confState.learners.push_back(args::to_uint64(val));
  } else if (key == "inflight") {
    cfg.maxInflightMsgs = args::to_int(val);
  } else if (key == "index") {
    snap.metadata.index = args::to_uint64(val);
    cfg.applied = snap.metadata.index;
  } else if (key == "content") {
    snap.data = val;
  } else if (key == "async-storage-writes") {
    cfg.asyncStorageWrites = args::to_bool(val);
  } else if (key == "prevote") {
    cfg.preVote = args::to_bool(val);
  } else if (key == "checkquorum") {
    cfg.checkQuorum = args::to_bool(val);
  } else if (key == "max-committed-size-per-ready") {
    cfg.maxCommittedSizePerReady = args::to_uint64(val);
  } else if (key == "disable-conf-change-validation") {
    cfg.disableConfChangeValidation = args::to_bool(val);
  } else if (key == "read-only") {
    if (val == "safe") {
      cfg.readOnlyOption = ReadOnlyOption::ReadOnlySafe;
    } else if (val == "lease-based") {
      cfg.readOnlyOption = ReadOnlyOption::ReadOnlyLeaseBased;
    } else {
      return "invalid read-only option \"" + val + "\"";
    }
  } else if (key == "step-down-on-removal") {
    cfg.stepDownOnRemoval = args::to_bool(val);
  }
  return std::nullopt;
}

}  // namespace

EnvError InteractionEnv::handle_add_nodes(const TestData& d) {
  const int n = args::first_as_int(d);
  Snapshot snap;
  Config cfg = raft_config_stub();
  for (std::size_t a = 1; a < d.cmdArgs.size(); ++a) {
    for (const std::string& val : d.cmdArgs[a].vals) {
      if (EnvError err = apply_add_nodes_arg(d.cmdArgs[a].key, val, cfg, snap)) return err;
    }
  }
  return add_nodes(n, cfg, std::move(snap));
}

// Adds n nodes with consecutive IDs, all starting from snap (a bootstrap snapshot at term 1,
// or nothing at all when snap is empty) and using cfg as the template of their config.
EnvError InteractionEnv::add_nodes(int n, const Config& cfg, Snapshot snap) {
  const bool bootstrap = snap != Snapshot{};
  for (int i = 0; i < n; ++i) {
    const PeerId id = 1 + nodes_.size();
    auto storage = std::make_unique<SnapOverrideStorage>();
    // Asked for a snapshot, the storage answers with the state machine's latest state.
    // (While the RawNode is being built the node is not in nodes_ yet; then the storage's
    // own snapshot answers.)
    storage->snapshotOverride = [this, id, own = storage.get()]() -> Snapshot {
      if (id - 1 >= nodes_.size()) return own->MemoryStorage::snapshot().value;
      return nodes_[id - 1].history.back();
    };
    if (bootstrap) {
      // MemoryStorage cannot start from a snapshot at index 1, so neither can the env.
      if (snap.metadata.index <= 1) return "index must be specified as > 1 due to bootstrap";
      snap.metadata.term = 1;
      if (StorageError err = storage->apply_snapshot(snap); err != StorageError::Ok) {
        return std::string(error_text(err));
      }
      const Result<Index> fi = storage->first_index();
      if (fi.err != StorageError::Ok) return std::string(error_text(fi.err));
      if (const Index exp = snap.metadata.index + 1; fi.value != exp) {
        return "failed to establish first index " + std::to_string(exp) + "; got " +
               std::to_string(fi.value);
      }
    }
    Config nodeCfg = cfg;
    nodeCfg.id = id;
    nodeCfg.storage = storage.get();
    if (options_.onConfig) {
      options_.onConfig(nodeCfg);
      if (nodeCfg.id != id) return "OnConfig must not change the ID";
    }
    if (nodeCfg.logger != nullptr) return "OnConfig must not set Logger";
    nodeCfg.logger = &output_;
    // Upstream draws each node's election timeout at random; a per-node seed keeps the
    // draws independent and the run reproducible.
    if (nodeCfg.randomSeed == 0) nodeCfg.randomSeed = id;

    Node node;
    node.config = nodeCfg;
    node.history.push_back(snap);
    node.storage = std::move(storage);
    node.rawNode = std::make_unique<RawNode>(nodeCfg);
    nodes_.push_back(std::move(node));
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_campaign(const TestData& d) {
  return campaign(args::first_as_node_idx(d));
}

EnvError InteractionEnv::campaign(std::size_t idx) {
  if (RaftError err = node(idx).rawNode->campaign(); err != RaftError::Ok) {
    return std::string(error_text(err));
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_propose(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  if (d.cmdArgs.size() != 2 || !d.cmdArgs[1].vals.empty()) {
    throw TranscriptFatal(d.pos + ": expected exactly one key with no vals");
  }
  return propose(idx, d.cmdArgs[1].key);
}

EnvError InteractionEnv::propose(std::size_t idx, std::string data) {
  if (RaftError err = node(idx).rawNode->propose(std::move(data)); err != RaftError::Ok) {
    return std::string(error_text(err));
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_propose_conf_change(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  bool v1 = false;
  auto transition = ConfChangeTransition::ConfChangeTransitionAuto;
  for (std::size_t a = 1; a < d.cmdArgs.size(); ++a) {
    const CmdArg& arg = d.cmdArgs[a];
    for (const std::string& val : arg.vals) {
      if (arg.key == "v1") {
        if (val == "1" || val == "t" || val == "T" || val == "TRUE" || val == "true" ||
            val == "True") {
          v1 = true;
        } else if (val == "0" || val == "f" || val == "F" || val == "FALSE" || val == "false" ||
                   val == "False") {
          v1 = false;
        } else {
          return "strconv.ParseBool: parsing \"" + val + "\": invalid syntax";
        }
      } else if (arg.key == "transition") {
        if (val == "auto") {
          transition = ConfChangeTransition::ConfChangeTransitionAuto;
        } else if (val == "implicit") {
          transition = ConfChangeTransition::ConfChangeTransitionJointImplicit;
        } else if (val == "explicit") {
          transition = ConfChangeTransition::ConfChangeTransitionJointExplicit;
        } else {
          return "unknown transition " + val;
        }
      } else {
        return "unknown command " + arg.key;
      }
    }
  }
  std::string parseErr;
  std::optional<std::vector<ConfChangeSingle>> parsed = conf_changes_from_string(d.input, &parseErr);
  if (!parsed) return parseErr;
  if (!v1) {
    ConfChangeV2 cc;
    cc.transition = transition;
    cc.changes = std::move((*parsed));
    return propose_conf_change(idx, cc);
  }
  if ((*parsed).size() > 1 ||
      transition != ConfChangeTransition::ConfChangeTransitionAuto) {
    return "v1 conf change can only have one operation and no transition";
  }
  // Upstream reads the first change unchecked; with no change at all that is the zero value.
  ConfChange cc;
  if (!(*parsed).empty()) {
    cc.type = (*parsed)[0].type;
    cc.nodeId = (*parsed)[0].nodeId;
  }
  return propose_conf_change(idx, cc);
}

EnvError InteractionEnv::propose_conf_change(std::size_t idx, const ConfChangeI& cc) {
  if (RaftError err = node(idx).rawNode->propose_conf_change(cc); err != RaftError::Ok) {
    return std::string(error_text(err));
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_forget_leader(const TestData& d) {
  forget_leader(args::first_as_node_idx(d));
  return std::nullopt;
}

// Upstream ignores ForgetLeader's error (a leader, or a node without a leader, just
// declines); so does the env.
void InteractionEnv::forget_leader(std::size_t idx) {
  static_cast<void>(node(idx).rawNode->forget_leader());
}

EnvError InteractionEnv::handle_transfer_leadership(const TestData& d) {
  const std::uint64_t from = args::to_uint64(args::scan_arg(d, "from"));
  const std::uint64_t to = args::to_uint64(args::scan_arg(d, "to"));
  if (from == 0 || from > nodes_.size()) {
    throw TranscriptFatal(d.pos + ": expected valid \"from\" argument");
  }
  if (to == 0 || to > nodes_.size()) {
    throw TranscriptFatal(d.pos + ": expected valid \"to\" argument");
  }
  return transfer_leadership(from, to);
}

EnvError InteractionEnv::transfer_leadership(PeerId from, PeerId to) {
  node(from - 1).rawNode->transfer_leader(to);
  return std::nullopt;
}

EnvError InteractionEnv::handle_report_unreachable(const TestData& d) {
  const std::vector<std::size_t> idxs = args::node_idxs(d);
  if (idxs.size() != 2) {
    return "must specify exactly two node indexes: node on which to report, and reported node";
  }
  node(idxs[0]).rawNode->report_unreachable(node(idxs[1]).config.id);
  return std::nullopt;
}

EnvError InteractionEnv::handle_tick_election(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  return tick(idx, node(idx).config.electionTick);
}

EnvError InteractionEnv::handle_tick_heartbeat(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  return tick(idx, node(idx).config.heartbeatTick);
}

EnvError InteractionEnv::tick(std::size_t idx, int num) {
  for (int i = 0; i < num; ++i) node(idx).rawNode->tick();
  return std::nullopt;
}

// The drawn timeout is reset again whenever the node changes state.
EnvError InteractionEnv::handle_set_randomized_election_timeout(const TestData& d) {
  const std::size_t idx = args::first_as_node_idx(d);
  const int timeout = args::to_int(args::scan_arg(d, "timeout"));
  if (timeout == 0) throw TranscriptFatal(d.pos + ": timeout must not be zero");
  node(idx).rawNode->set_randomized_election_timeout(timeout);
  return std::nullopt;
}

// "<id>: <StateType> (Voter|Non-Voter) Term:<term> Lead:<lead>" for every node, each from
// its own view.
EnvError InteractionEnv::handle_raft_state() {
  for (const Node& n : nodes_) {
    const Status st = n.rawNode->status();
    const bool voter = st.config.voters.ids().count(st.basic.id) > 0;
    output_.write(std::to_string(st.basic.id) + ": " +
                  std::string(name(st.basic.softState.raftState)) +
                  (voter ? " (Voter)" : " (Non-Voter)") +
                  " Term:" + std::to_string(st.basic.hardState.term) +
                  " Lead:" + std::to_string(st.basic.softState.lead) + "\n");
  }
  return std::nullopt;
}

EnvError InteractionEnv::handle_status(const TestData& d) {
  return status(args::first_as_node_idx(d));
}

// The progress of every peer as the node sees it (empty unless the node leads).
EnvError InteractionEnv::status(std::size_t idx) {
  const Status st = node(idx).rawNode->status();
  output_.write(st.progress.to_string());
  return std::nullopt;
}

}  // namespace hasim::raft::rafttest
