// The confchange transcripts (etcd-io/raft confchange/testdata, driven upstream by
// confchange/datadriven_test.go): `simple`, `enter-joint [autoleave=BOOL]` and `leave-joint`
// apply changes to one tracker (MaxInflight 10) that lives for the whole transcript. The
// input lists changes: vN makes N a voter, lN a learner, rN removes N, uN updates N. Each
// command prints the new config and progress map, or the changer's error; the changer's last
// index starts at 0 and grows by one per command, so `next=` shows when a peer was added.
#include "models/raft/confchange.hpp"
#include "models/raft/rafttest/suite.hpp"
#include "sim/assert.hpp"

namespace hasim::raft::rafttest {
namespace {

// The changes of the input ("v1 l2 r3"), split at single spaces as upstream does (so a
// double space is an empty, unknown token). Returns an error text or "".
std::string parse_changes(std::string_view input, std::vector<ConfChangeSingle>& ccs) {
  if (input.empty()) return "";
  // Bounded: each pass consumes a token and its separator.
  while (true) {
    const std::size_t space = input.find(' ');
    const std::string_view tok = input.substr(0, space);
    if (tok.size() < 2) return "unknown token " + std::string(tok);
    ConfChangeSingle cc;
    switch (tok[0]) {
      case 'v': cc.type = ConfChangeType::ConfChangeAddNode; break;
      case 'l': cc.type = ConfChangeType::ConfChangeAddLearnerNode; break;
      case 'r': cc.type = ConfChangeType::ConfChangeRemoveNode; break;
      case 'u': cc.type = ConfChangeType::ConfChangeUpdateNode; break;
      default: return "unknown input: " + std::string(tok);
    }
    const std::optional<std::uint64_t> id = scan_uint64(tok.substr(1));
    if (!id) return "strconv.ParseUint: parsing \"" + std::string(tok.substr(1)) + "\": invalid syntax";
    cc.nodeId = *id;
    ccs.push_back(cc);
    if (space == std::string_view::npos) return "";
    input.remove_prefix(space + 1);
  }
}

class ConfChangeSuite final : public TranscriptHandler {
 public:
  std::string handle(const TestData& d) override {
    std::string out = run(d);
    ++lastIndex_;  // after every command, whatever its outcome (upstream's defer)
    return out;
  }

 private:
  std::string run(const TestData& d) {
    std::vector<ConfChangeSingle> ccs;
    if (std::string err = parse_changes(d.input, ccs); !err.empty()) return err;
    const Changer changer{tracker_, lastIndex_};
    ChangeResult result;
    if (d.cmd == "simple") {
      result = changer.simple(ccs);
    } else if (d.cmd == "enter-joint") {
      bool autoLeave = false;
      if (!d.cmdArgs.empty()) {
        const CmdArg* arg = d.arg("autoleave");
        const std::optional<bool> v =
            arg != nullptr && arg->vals.size() == 1 ? scan_bool(arg->vals[0]) : std::nullopt;
        if (!v) return "error: enter-joint takes autoleave=BOOL";
        autoLeave = *v;
      }
      result = changer.enter_joint(autoLeave, ccs);
    } else if (d.cmd == "leave-joint") {
      if (!ccs.empty()) return "this command takes no input\n";
      result = changer.leave_joint();
    } else {
      return "unknown command";
    }
    if (!result.ok()) return result.err + "\n";
    tracker_.config = std::move(result.cfg);
    tracker_.progress = std::move(result.progress);
    return tracker_.config.to_string() + "\n" + tracker_.progress.to_string();
  }

  ProgressTracker tracker_{10, 0};
  Index lastIndex_ = 0;
};

}  // namespace

std::unique_ptr<TranscriptHandler> make_confchange_suite() {
  return std::make_unique<ConfChangeSuite>();
}

}  // namespace hasim::raft::rafttest
