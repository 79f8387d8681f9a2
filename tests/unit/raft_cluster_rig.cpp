#include "raft_cluster_rig.hpp"

#include <utility>

#include "models/etcd/trace_entries.hpp"
#include "sim/assert.hpp"

namespace hasim::testing {

using namespace hasim::raft;

namespace {

constexpr Index kBootstrapIndex = 2;  // MemoryStorage wants a bootstrap snapshot above 1
constexpr std::size_t kSettleRounds = 1000;

raft_safety::LogEntry observed(const Entry& e) { return {e.index, e.term, etcd::entry_payload_hash(e)}; }

std::vector<raft_safety::LogEntry> observed(const std::vector<Entry>& entries) {
  std::vector<raft_safety::LogEntry> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) out.push_back(observed(e));
  return out;
}

}  // namespace

void showValue(const RaftStep& step, std::ostream& os) {
  static constexpr const char* kNames[] = {"tick",   "deliver", "drop",      "duplicate",
                                           "crash",  "restart", "partition", "heal",
                                           "propose", "sync",   "compact"};
  os << kNames[static_cast<int>(step.kind)] << "(" << step.a << "," << step.b << ")";
}

RaftClusterRig::RaftClusterRig(RaftClusterOptions options) : options_(options) {
  HASIM_ASSERT(options_.members >= 1 && options_.members <= 7);
  ConfState cs;
  for (int i = 1; i <= options_.members; ++i) cs.voters.push_back(static_cast<PeerId>(i));
  members_.resize(static_cast<std::size_t>(options_.members));
  for (std::size_t i = 0; i < members_.size(); ++i) {
    Member& m = members_[i];
    m.id = i + 1;
    m.disk.snapshot.metadata = SnapshotMetadata{cs, kBootstrapIndex, 1};
    start(m);
  }
}

RaftClusterRig::~RaftClusterRig() = default;

void RaftClusterRig::start(Member& m) {
  HASIM_ASSERT(!m.node);
  m.storage = std::make_unique<MemoryStorage>();
  HASIM_ASSERT(m.storage->apply_snapshot(m.disk.snapshot) == StorageError::Ok);
  HASIM_ASSERT(m.storage->append(m.disk.entries) == StorageError::Ok);
  HASIM_ASSERT(m.storage->set_hard_state(m.disk.hardState) == StorageError::Ok);
  Config c;
  c.id = m.id;
  c.electionTick = options_.electionTick;
  c.heartbeatTick = 1;
  c.storage = m.storage.get();
  c.applied = m.disk.snapshot.metadata.index;  // the state machine restarts from the snapshot
  c.maxSizePerMsg = 4096;
  c.maxInflightMsgs = 64;
  c.preVote = options_.preVote;
  c.checkQuorum = options_.checkQuorum;
  c.randomSeed = options_.seed * 1000003 + m.restarts;
  m.node = std::make_unique<RawNode>(c);
  m.leads = false;
  const SnapshotMetadata& meta = m.disk.snapshot.metadata;
  checker_.on_restart(m.id, meta.index, meta.term, observed(m.disk.entries));
}

int RaftClusterRig::leaders() const {
  int count = 0;
  for (const Member& m : members_) {
    if (m.node && m.node->basic_status().softState.raftState == StateType::StateLeader) ++count;
  }
  return count;
}

void RaftClusterRig::write_disk(Disk& disk, const Pending& p) const {
  if (p.snapshot) {
    disk.snapshot = *p.snapshot;
    disk.entries.clear();
  }
  if (!p.entries.empty()) {
    const Index first = p.entries.front().index;
    const Index base = disk.snapshot.metadata.index;
    HASIM_ASSERT(first > base && first <= base + disk.entries.size() + 1);
    disk.entries.resize(first - base - 1);
    disk.entries.insert(disk.entries.end(), p.entries.begin(), p.entries.end());
  }
  if (p.hardState) disk.hardState = *p.hardState;
}

void RaftClusterRig::persist(Member& m, const Ready& rd) {
  Pending p;
  p.snapshot = rd.snapshot;
  p.entries = rd.entries;
  p.hardState = rd.hardState;
  // The page cache: what raft reads back at once.
  if (rd.snapshot) {
    HASIM_ASSERT(m.storage->apply_snapshot(*rd.snapshot) == StorageError::Ok);
    checker_.on_snapshot(m.id, rd.snapshot->metadata.index, rd.snapshot->metadata.term);
  }
  HASIM_ASSERT(m.storage->append(rd.entries) == StorageError::Ok);
  checker_.on_append(m.id, observed(rd.entries));
  if (rd.hardState) {
    HASIM_ASSERT(m.storage->set_hard_state(*rd.hardState) == StorageError::Ok);
    checker_.on_commit(m.id, rd.hardState->commit, rd.hardState->term);
  }
  if (options_.ackBeforeFsync) {
    m.unsynced.push_back(std::move(p));
  } else {
    write_disk(m.disk, p);
  }
}

void RaftClusterRig::sync(Member& m) {
  for (const Pending& p : m.unsynced) write_disk(m.disk, p);
  m.unsynced.clear();
}

void RaftClusterRig::process_ready(Member& m) {
  Ready rd = m.node->ready();
  // Role first: a Ready that both steps a leader down and truncates its log (it learned of
  // a newer leader) is a follower's overwrite, not a leader's.
  if (rd.softState) {
    const bool leads = rd.softState->raftState == StateType::StateLeader;
    if (leads && !m.leads) {
      checker_.on_leader(m.id, m.node->basic_status().hardState.term);
      ++elections_;
    }
    if (!leads && m.leads) checker_.on_step_down(m.id);
    m.leads = leads;
  }
  persist(m, rd);
  for (const Entry& e : rd.committedEntries) checker_.on_apply(m.id, observed(e));
  applies_ += rd.committedEntries.size();
  for (Message& msg : rd.messages) network_.push_back(std::move(msg));
  m.node->advance(rd);
}

void RaftClusterRig::settle() {
  for (std::size_t round = 0; round < kSettleRounds; ++round) {
    bool any = false;
    for (Member& m : members_) {
      if (m.node && m.node->has_ready()) {
        process_ready(m);
        any = true;
      }
    }
    if (!any) return;
  }
  HASIM_ASSERT(false && "raft did not settle");
}

void RaftClusterRig::deliver(std::size_t position, bool keep) {
  if (network_.empty()) return;
  position %= network_.size();
  Message msg = network_[position];
  if (!keep) network_.erase(network_.begin() + static_cast<std::ptrdiff_t>(position));
  Member& to = members_[msg.to - 1];
  const bool split = ((partition_ >> (msg.from - 1)) & 1U) != ((partition_ >> (msg.to - 1)) & 1U);
  if (!to.node || split) return;
  (void)to.node->step(std::move(msg));
}

void RaftClusterRig::compact(Member& m) {
  if (!m.node || !m.unsynced.empty()) return;
  const Index applied = m.node->basic_status().applied;
  const Index first = m.storage->first_index().value;
  if (applied < first) return;
  const ConfState cs = m.disk.snapshot.metadata.confState;  // no conf changes in this rig
  Result<Snapshot> snap = m.storage->create_snapshot(applied, &cs, "state@" + std::to_string(applied));
  if (snap.err != StorageError::Ok) return;
  HASIM_ASSERT(m.storage->compact(applied) == StorageError::Ok);
  // The disk compacts the same way (etcd saves the snapshot, then releases the WAL).
  const Index base = m.disk.snapshot.metadata.index;
  HASIM_ASSERT(applied >= base && applied - base <= m.disk.entries.size());
  m.disk.entries.erase(m.disk.entries.begin(),
                       m.disk.entries.begin() + static_cast<std::ptrdiff_t>(applied - base));
  m.disk.snapshot = snap.value;
}

void RaftClusterRig::run(const RaftStep& step) {
  Member* m = members_.empty() ? nullptr : &members_[step.a % members_.size()];
  switch (step.kind) {
    case RaftStepKind::tick:
      if (m->node) m->node->tick();
      break;
    case RaftStepKind::deliver:
      deliver(step.a, false);
      break;
    case RaftStepKind::drop:
      if (!network_.empty()) {
        network_.erase(network_.begin() + static_cast<std::ptrdiff_t>(step.a % network_.size()));
      }
      break;
    case RaftStepKind::duplicate:
      deliver(step.a, true);
      break;
    case RaftStepKind::crash:
      m->node.reset();
      m->storage.reset();
      m->unsynced.clear();  // what never reached the disk is gone
      ++m->restarts;
      break;
    case RaftStepKind::restart:
      if (!m->node) start(*m);
      break;
    case RaftStepKind::partition:
      partition_ = step.b & ((1U << members_.size()) - 1);
      break;
    case RaftStepKind::heal:
      partition_ = 0;
      break;
    case RaftStepKind::propose:
      if (m->node) (void)m->node->propose("v" + std::to_string(++proposals_));
      break;
    case RaftStepKind::sync:
      sync(*m);
      break;
    case RaftStepKind::compact:
      compact(*m);
      break;
  }
  settle();
}

}  // namespace hasim::testing
