#include "reports/raft_election_trial.hpp"

#include <algorithm>
#include <map>

#include "models/etcd/member.hpp"
#include "models/etcd/raft_roles.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "reports/stats.hpp"
#include "scenarios/build.hpp"
#include "scenarios/etcd/spec.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

std::string node_name(std::size_t member) { return "n" + std::to_string(member); }
std::string etcd_process(std::size_t member) { return node_name(member) + "/etcd"; }

// Entries in a trace "ents" text: runs "TERM:HASH,HASH,..." separated by spaces.
std::int64_t entry_count(std::string_view ents) {
  return static_cast<std::int64_t>(std::count(ents.begin(), ents.end(), ',') +
                                   std::count(ents.begin(), ents.end(), ':'));
}

// Reads the trace: who leads (and since when), each member's last log index, and the
// arrivals of heartbeats. Armed with the leader and the two lagging followers, it sets up the
// unequal logs at the instant both of those have just received one heartbeat broadcast
// (see arm()).
class ElectionWatch final : public TraceObserver {
 public:
  explicit ElectionWatch(World& world) : world_(world) {}

  void on_event(const TraceEvent& e) override {
    roles_.observe(e);
    if (e.proc != "etcd") return;
    if (e.kind == etcd::trace_kind::kState && e.string_field("state") == "StateLeader") {
      leaders_.push_back({e.t, e.int_field("term")});
    } else if (e.kind == etcd::trace_kind::kPersist) {
      const std::int64_t n = entry_count(e.string_field("ents"));
      if (n > 0) last_[e.int_field("member")] = e.int_field("first") + n - 1;
    } else if (armed_ && e.kind == trace_kind::kRecv && e.string_field("msg") == "MsgHeartbeat") {
      heartbeat(e);
    }
  }

  // Unequal logs (the paper: "the servers in each trial had different log lengths, so some
  // candidates were not eligible"). At one instant, when followers c and d have both just
  // received the same heartbeat broadcast (so nothing else is in flight to them):
  //  1. c and d can no longer reach the leader (a one-way cut): the leader never hears that
  //     they lag, so it never repairs their logs before it crashes (etcd raft sends missing
  //     entries on a heartbeat response);
  //  2. the leader takes one proposal and sends it to all four followers;
  //  3. 1 ns later c's and d's connections drop, losing that append and nothing else.
  // The leader's heartbeats still reach c and d, so their timers stay in step with the
  // others'. With the leader gone, c and d (one entry short) cannot collect three votes:
  // two of the four survivors are ineligible, as in the paper's worst case.
  void arm(std::size_t leader, std::size_t c, std::size_t d, Duration spread) {
    leader_ = leader;
    c_ = c;
    d_ = d;
    spread_ = spread;
    armed_ = true;
  }
  std::optional<TrueTime> fired() const { return fired_; }
  std::optional<std::string> leader() const { return roles_.leader(); }
  std::int64_t term_of(const std::string& process) const {
    const auto it = roles_.all().find(process);
    return it == roles_.all().end() ? 0 : it->second.term;
  }
  std::int64_t last_index(std::size_t member) const {
    const auto it = last_.find(static_cast<std::int64_t>(member));
    return it == last_.end() ? 0 : it->second;
  }
  // The first leader elected at or after `after` in a term above `term`.
  std::optional<std::pair<TrueTime, std::int64_t>> leader_after(TrueTime after,
                                                                std::int64_t term) const {
    for (const auto& [t, leader_term] : leaders_) {
      if (t >= after && leader_term > term) return std::pair{t, leader_term};
    }
    return std::nullopt;
  }

 private:
  void heartbeat(const TraceEvent& e) {
    const std::string node(e.node);
    if (node == node_name(c_)) last_c_ = e.t;
    if (node == node_name(d_)) last_d_ = e.t;
    if (!last_c_ || !last_d_) return;
    // One broadcast's arrivals differ by at most the latency's spread; two broadcasts' by
    // at least the heartbeat interval minus it.
    const Duration apart = *last_c_ > *last_d_ ? *last_c_ - *last_d_ : *last_d_ - *last_c_;
    if (apart > spread_) return;
    armed_ = false;
    fired_ = e.t;
    World& w = world_;
    const NodeId leader_node = *w.find_node(node_name(leader_));
    const NodeId c_node = *w.find_node(node_name(c_));
    const NodeId d_node = *w.find_node(node_name(d_));
    const ProcessId leader_process = *w.find_process(etcd_process(leader_));
    const raft::PeerId id = leader_;
    // Scheduled, not done here: this runs inside a delivery's trace.
    w.at(e.t, [&w, leader_node, c_node, d_node, leader_process, id] {
      w.partition({{c_node, leader_node}, {d_node, leader_node}});
      raft::Message prop;
      prop.type = raft::MessageType::MsgProp;
      prop.from = id;
      prop.to = id;
      raft::Entry entry;
      entry.data = "paper-unequal-logs";
      prop.entries.push_back(entry);
      w.post(leader_process, std::make_shared<etcd::RaftMessage>(std::move(prop)));
    });
    w.at(e.t + Duration{1}, [&w, c_node, d_node] {
      w.drop_connections(c_node);
      w.drop_connections(d_node);
    });
  }

  World& world_;
  etcd::RaftRoles roles_;
  std::vector<std::pair<TrueTime, std::int64_t>> leaders_;  // (when, term), in trace order
  std::map<std::int64_t, std::int64_t> last_;               // member -> last log index
  bool armed_ = false;
  std::size_t leader_ = 0, c_ = 0, d_ = 0;
  Duration spread_{};
  std::optional<TrueTime> last_c_, last_d_, fired_;
};

std::size_t member_of(const std::string& process) {
  // "nK/etcd"
  return static_cast<std::size_t>(std::stoul(process.substr(1, process.find('/') - 1)));
}

// Runs in steps until `done` or `limit`; the steps only bound how far past the answer the
// world runs (the answer's time comes from the trace, not from the step). Returns where it
// stopped.
template <typename Done>
TrueTime run_while_not(World& world, TrueTime from, TrueTime limit, Duration step, Done done) {
  HASIM_ASSERT(step.ns > 0);
  TrueTime at = from;
  while (at < limit && !done()) {
    at = std::min(limit, at + step);
    const RunStats stats = world.run_until(at);
    HASIM_ASSERT(stats.status == RunStatus::completed);
  }
  return at;
}

// Campaign at once: a MsgTimeoutNow (upstream's leader-transfer message) makes member 1
// campaign at 1 ms instead of after a first election timeout, so the warm-up does not wait
// out 150-150's split votes before there is a leader to crash.
void campaign_member_one(World& world) {
  const ProcessId first = *world.find_process(etcd_process(1));
  World* w = &world;
  world.at(TrueTime{milliseconds(1).ns}, [w, first] {
    raft::Message m;
    m.type = raft::MessageType::MsgTimeoutNow;
    m.from = 2;
    m.to = 1;
    w->post(first, std::make_shared<etcd::RaftMessage>(std::move(m)));
  });
}

std::pair<std::size_t, std::size_t> lagging_pair(std::size_t leader, std::size_t members) {
  std::vector<std::size_t> followers;
  for (std::size_t m = 1; m <= members; ++m) {
    if (m != leader) followers.push_back(m);
  }
  HASIM_ASSERT(followers.size() >= 2);
  return {followers[followers.size() - 2], followers.back()};
}

// Crashes the leader at `crash_at` (or, if an election is under way then, which 12-24's
// timing allows, as soon as there is one) and measures until a new one is elected.
RaftElectionTrial crash_and_measure(World& world, ElectionWatch& watch, std::size_t members,
                                    TrueTime crash_at, Duration horizon, Duration step) {
  world.run_until(crash_at);
  crash_at = run_while_not(world, crash_at, crash_at + seconds(60), step,
                           [&] { return watch.leader().has_value(); });
  HASIM_ASSERT(watch.leader().has_value());
  const std::size_t leader = member_of(*watch.leader());
  RaftElectionTrial trial;
  trial.ran = true;
  const std::int64_t term = watch.term_of(etcd_process(leader));
  const std::int64_t leader_last = watch.last_index(leader);
  for (std::size_t m = 1; m <= members; ++m) {
    if (m != leader && watch.last_index(m) < leader_last) ++trial.lagging;
  }
  world.crash(*world.find_process(etcd_process(leader)));
  world.heal_all();
  run_while_not(world, crash_at, crash_at + horizon, step,
                [&] { return watch.leader_after(crash_at, term).has_value(); });
  if (const auto next = watch.leader_after(crash_at, term)) {
    trial.elected = true;
    trial.downtime = next->first - crash_at;
    trial.terms = next->second - term;
  }
  return trial;
}

RaftElectionTrial paper_trial(const Scenario& scenario, const RaftElectionCell& cell,
                              std::uint64_t seed) {
  auto world = build_world(scenario, seed);
  ElectionWatch watch(*world);
  world->trace().add_observer(&watch);
  campaign_member_one(*world);
  const Duration heartbeat = cell.low / 2;
  TrueTime t{(cell.high * 4 + milliseconds(100)).ns};
  world->run_until(t);
  // 12-24 may still be settling (its timeouts are close to the broadcast time).
  t = run_while_not(*world, t, t + seconds(60), cell.high,
                    [&] { return watch.leader().has_value(); });
  HASIM_ASSERT(watch.leader().has_value());
  const std::size_t leader = member_of(*watch.leader());
  const auto [c, d] = lagging_pair(leader, cell.members);
  watch.arm(leader, c, d, kPaperLatencyHigh - kPaperLatencyLow);
  t = run_while_not(*world, t, t + seconds(10), heartbeat,
                    [&] { return watch.fired().has_value(); });
  // Not fired: the leader changed before c and d heard it (12-24 can); crash_and_measure
  // then crashes whoever leads, and the trial's "lagging" says the logs were not set up.
  // Two clean heartbeat intervals after the set-up, then a crash at a uniform instant
  // within one interval. Every etcd raft heartbeat is one broadcast to all followers at one
  // instant, so the last one before the crash is the paper's synchronised broadcast, and an
  // instant uniform over one heartbeat period is uniform within the interval after it.
  Rng rng = Rng(seed).fork("raft-election-crash");
  const TrueTime crash_at = watch.fired().value_or(t) + heartbeat * 2 +
                            Duration{static_cast<std::int64_t>(rng.below(heartbeat.ns))};
  return crash_and_measure(*world, watch, cell.members, crash_at, kPaperHorizon, heartbeat);
}

RaftElectionTrial etcd_trial(const Scenario& scenario, const RaftElectionCell& cell,
                             std::uint64_t seed) {
  auto world = build_world(scenario, seed);
  ElectionWatch watch(*world);
  world->trace().add_observer(&watch);
  // etcd's start-up tick advance elects a first leader within about 1.2 s.
  TrueTime t{seconds(3).ns};
  world->run_until(t);
  t = run_while_not(*world, t, t + seconds(60), seconds(1),
                    [&] { return watch.leader().has_value(); });
  HASIM_ASSERT(watch.leader().has_value());
  Rng rng = Rng(seed).fork("raft-election-crash");
  const Duration heartbeat = milliseconds(100);
  const TrueTime crash_at = t + Duration{static_cast<std::int64_t>(rng.below(heartbeat.ns))};
  return crash_and_measure(*world, watch, cell.members, crash_at, kEtcdHorizon, heartbeat);
}

}  // namespace

const std::vector<RaftElectionCell>& raft_election_cells() {
  static const std::vector<RaftElectionCell> cells = [] {
    std::vector<RaftElectionCell> out;
    const auto paper = [&out](int low, int high, bool top, bool bottom, std::uint64_t divisor) {
      RaftElectionCell c;
      c.name = std::to_string(low) + "-" + std::to_string(high);
      c.low = milliseconds(low);
      c.high = milliseconds(high);
      c.top = top;
      c.bottom = bottom;
      c.divisor = divisor;
      out.push_back(c);
    };
    paper(150, 150, true, false, 10);
    for (int high : {151, 155, 175, 200}) paper(150, high, true, false, 1);
    paper(150, 300, true, true, 1);
    for (int low : {12, 25, 50, 100}) paper(low, low * 2, false, true, 1);
    for (std::size_t members : {3, 5}) {
      for (bool preVote : {true, false}) {
        RaftElectionCell c;
        c.name = "etcd-" + std::to_string(members) + (preVote ? "-prevote" : "-no-prevote");
        c.paper = false;
        c.members = members;
        c.preVote = preVote;
        out.push_back(c);
      }
    }
    return out;
  }();
  return cells;
}

Scenario raft_election_scenario(const RaftElectionCell& cell, bool paperTimerRule) {
  Scenario scenario;
  scenario.name = "raft-election-" + cell.name;
  scenario.duration = seconds(3600);
  EtcdSpec spec;
  for (std::size_t m = 1; m <= cell.members; ++m) {
    NodeSpec node{node_name(m), "", {}, {}};
    if (cell.paper) {
      DiskParams disk;
      disk.fsync_latency = DurationDistribution::constant(kPaperFsync);
      node.disks.push_back(DiskSpec{std::string(kDefaultDisk), disk});
    }
    scenario.nodes.push_back(node);
    spec.members.push_back(node_name(m));
  }
  if (cell.paper) {
    scenario.network.latency = DurationDistribution::uniform(kPaperLatencyLow, kPaperLatencyHigh);
    etcd::EtcdConfig& c = spec.config;
    c.mode = etcd::EtcdMode::paper;
    c.electionTimeout = cell.low;
    c.electionTimeoutMax = cell.high;
    c.heartbeatInterval = cell.low / 2;
    c.tick = kPaperTick;
    c.preVote = false;
    c.checkQuorum = false;
    c.paperTimerRule = paperTimerRule;
  } else {
    // Loopback-like: members on one host or one rack, 50-150 us one way; the disk is the
    // default datacenter SSD (2 ms fsync).
    scenario.network.latency = DurationDistribution::uniform(microseconds(50), microseconds(150));
    spec.config.preVote = cell.preVote;
  }
  scenario.sections.set(spec);
  return scenario;
}

RaftElectionTrial run_raft_election_trial(const Scenario& scenario, const RaftElectionCell& cell,
                                          std::uint64_t seed) {
  return cell.paper ? paper_trial(scenario, cell, seed) : etcd_trial(scenario, cell, seed);
}

BroadcastTime paper_broadcast_time(std::uint64_t samples) {
  HASIM_ASSERT(samples > 0);
  Rng rng = Rng(1).fork("raft-election-broadcast");
  const DurationDistribution latency =
      DurationDistribution::uniform(kPaperLatencyLow, kPaperLatencyHigh);
  std::vector<Duration> broadcasts;
  for (std::uint64_t i = 0; i < samples; ++i) {
    Duration slowest{};
    for (int follower = 0; follower < 4; ++follower) {
      slowest = std::max(slowest, latency.sample(rng) + kPaperFsync + latency.sample(rng));
    }
    broadcasts.push_back(slowest);
  }
  const DurationSummary s = summarize_durations(broadcasts);
  return {s.mean, s.p50, s.p99};
}

}  // namespace hasim
