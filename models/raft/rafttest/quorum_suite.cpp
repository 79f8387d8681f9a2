// The quorum transcripts (etcd-io/raft quorum/testdata, driven upstream by
// quorum/datadriven_test.go): `committed` prints a config's describe() table and committed
// index, `vote` a vote result. Arguments:
//   cfg=(ids)     the (incoming) majority config
//   cfgj=(ids)    a second majority joined to it; cfgj=zero joins the empty config
//   idx=(...)     acknowledged indexes, one per distinct voter of cfg then cfgj, _ = none
//   votes=(...)   y, n or _ per distinct voter, in the same order
// Each case is also recomputed in ways that must agree (the naive computation, joining the
// empty or the same config, swapping the halves, lowering an index that is not decisive);
// a disagreement is printed, as upstream's harness does.
#include <algorithm>

#include "models/raft/quorum.hpp"
#include "models/raft/rafttest/suite.hpp"
#include "sim/assert.hpp"

namespace hasim::raft::rafttest {
namespace {

// The parsed arguments. `inputs` holds idx (0 = "_") for committed, or the votes for vote
// (upstream's encoding: 0 "_", 1 no, 2 yes).
struct QuorumArgs {
  bool joint = false;
  std::vector<PeerId> ids;
  std::vector<PeerId> idsj;
  std::vector<Index> idxs;
  std::vector<Index> votes;
};

// Parses one value of an argument; returns an error text or "".
std::string parse_value(const std::string& key, const CmdArg& arg, const std::string& val,
                        QuorumArgs& out) {
  const std::optional<std::uint64_t> n = scan_uint64(val);
  if (key == "cfg" || (key == "cfgj" && val != "zero")) {
    if (!n) return "error: cannot parse " + key + " value \"" + val + "\"";
    (key == "cfg" ? out.ids : out.idsj).push_back(*n);
  } else if (key == "cfgj") {
    if (arg.vals.size() != 1) return "error: cannot mix 'zero' into configuration";
  } else if (key == "idx") {
    if (val == "_") {
      out.idxs.push_back(0);  // a placeholder, dropped from the lookup below
    } else if (!n || *n == 0) {
      return "error: idx \"" + val + "\" must be a positive index (or _)";
    } else {
      out.idxs.push_back(*n);
    }
  } else if (key == "votes") {
    if (val != "y" && val != "n" && val != "_") return "error: unknown vote: " + val;
    out.votes.push_back(val == "y" ? 2 : val == "n" ? 1 : 0);
  } else {
    return "error: unknown arg " + key;
  }
  if (key == "cfgj") out.joint = true;
  return "";
}

// Upstream's makeLookuper: the values, in order, to the distinct voters of ids then idsj
// (a voter in both halves takes one value); zero values (placeholders) are then dropped.
std::map<PeerId, Index> make_lookup(const std::vector<Index>& values, const QuorumArgs& args) {
  std::map<PeerId, Index> lookup;
  std::size_t next = 0;
  std::vector<PeerId> order = args.ids;
  order.insert(order.end(), args.idsj.begin(), args.idsj.end());
  for (const PeerId id : order) {
    if (lookup.contains(id) || next >= values.size()) continue;
    lookup[id] = values[next++];
  }
  std::erase_if(lookup, [](const auto& entry) { return entry.second == 0; });
  return lookup;
}

// Go's %v of the voter set (a map[uint64]struct{}) and of the inputs ([]Index).
std::string mismatch(const std::set<PeerId>& voters, const std::vector<Index>& input) {
  std::string out = "error: mismatched input (explicit or _) for voters map[";
  for (const PeerId id : voters) out += (id == *voters.begin() ? "" : " ") + std::to_string(id) + ":{}";
  out += "]: [";
  for (std::size_t i = 0; i < input.size(); ++i) out += (i > 0 ? " " : "") + index_to_string(input[i]);
  return out + "]";
}

// `l` with voter id's index replaced by idx (upstream's overlay; only voters of c).
MapAckIndexer overlay(const MajorityConfig& c, const AckedIndexer& l, PeerId id, Index idx) {
  MapAckIndexer out;
  for (const PeerId voter : c) {
    if (voter == id) {
      out.map()[voter] = idx;
    } else if (const std::optional<Index> acked = l.acked_index(voter)) {
      out.map()[voter] = *acked;
    }
  }
  return out;
}

std::string committed_majority(const MajorityConfig& c, const MapAckIndexer& l) {
  const Index idx = c.committed_index(l);
  std::string out = c.describe(l);
  const auto differs = [&out, idx](Index other, std::string_view how) {
    if (other != idx) out += index_to_string(other) + " <-- " + std::string(how) + "\n";
  };
  differs(naive_committed_index(c, l), "via alternative computation");
  differs(JointConfig(c, MajorityConfig{}).committed_index(l), "via zero-joint quorum");
  differs(JointConfig(c, c).committed_index(l), "via self-joint quorum");
  // Lowering an index that is already below the committed one must not change it. (Upstream
  // prints these two without a newline; kept.)
  for (const PeerId id : c) {
    const Index iidx = l.acked_index(id).value_or(0);
    if (!(idx > iidx && iidx > 0)) continue;
    if (const Index a = c.committed_index(overlay(c, l, id, iidx - 1)); a != idx) {
      out += index_to_string(a) + " <-- overlaying " + std::to_string(id) + "->" + std::to_string(iidx);
    }
    if (const Index a = c.committed_index(overlay(c, l, id, 0)); a != idx) {
      out += index_to_string(a) + " <-- overlaying " + std::to_string(id) + "->0";
    }
  }
  return out + index_to_string(idx) + "\n";
}

std::string committed(const QuorumArgs& args, const MajorityConfig& c, const MajorityConfig& cj) {
  const MapAckIndexer l(make_lookup(args.idxs, args));
  if (!args.joint) return committed_majority(c, l);
  const JointConfig cc(c, cj);
  std::string out = cc.describe(l);
  const Index idx = cc.committed_index(l);
  if (const Index a = JointConfig(cj, c).committed_index(l); a != idx) {
    out += index_to_string(a) + " <-- via symmetry\n";
  }
  return out + index_to_string(idx) + "\n";
}

std::string vote(const QuorumArgs& args, const MajorityConfig& c, const MajorityConfig& cj) {
  VoteMap votes;
  for (const auto& [id, v] : make_lookup(args.votes, args)) votes[id] = v != 1;
  if (!args.joint) return std::string(name(c.vote_result(votes))) + "\n";
  const VoteResult r = JointConfig(c, cj).vote_result(votes);
  std::string out;
  if (const VoteResult a = JointConfig(cj, c).vote_result(votes); a != r) {
    out += std::string(name(a)) + " <-- via symmetry\n";
  }
  return out + std::string(name(r)) + "\n";
}

class QuorumSuite final : public TranscriptHandler {
 public:
  std::string handle(const TestData& d) override {
    if (d.cmd != "committed" && d.cmd != "vote") return "unknown command: " + d.cmd;
    QuorumArgs args;
    for (const CmdArg& arg : d.cmdArgs) {
      for (const std::string& val : arg.vals) {
        if (std::string err = parse_value(arg.key, arg, val, args); !err.empty()) return err;
      }
    }
    const MajorityConfig c(std::set<PeerId>(args.ids.begin(), args.ids.end()));
    const MajorityConfig cj(std::set<PeerId>(args.idsj.begin(), args.idsj.end()));
    const std::vector<Index>& input = d.cmd == "vote" ? args.votes : args.idxs;
    const std::set<PeerId> voters = JointConfig(c, cj).ids();
    if (voters.size() != input.size()) return mismatch(voters, input);
    return d.cmd == "committed" ? committed(args, c, cj) : vote(args, c, cj);
  }
};

}  // namespace

std::unique_ptr<TranscriptHandler> make_quorum_suite() { return std::make_unique<QuorumSuite>(); }

}  // namespace hasim::raft::rafttest
