#pragma once
// An operator's etcdctl, and a clientv3 program that fills the database, as a process on a
// node (scenarios/etcd/ops_faults.cpp puts one beside each member). Scenario actions post it
// an EtcdctlCommand; it talks to one member, its "endpoint", with the KV and Maintenance
// calls the real tools make (models/etcd/kv_api.hpp), each under a client deadline
// (etcdctl's --command-timeout, 5 s by default), and traces every answer ("etcdctl"):
//  - fill: Put after Put (the next once the last is answered, `every` later) of
//    value_size-byte values under `prefix` (keys prefix + 8-digit number: the put's
//    sequence number, or it modulo `keys`) until
//    `bytes` of values were written: the loop of etcd-io/etcd#5132's reproduction
//    (`while true; do ... | etcdctl put key || break; done`), which stops at NOSPACE; any
//    other failure (a timeout: the write may still land) moves on to the next key;
//  - compact: `etcdctl endpoint status` for the revision, then `etcdctl compact REV` with
//    REV = revision - keep (etcdctl/ctlv3/command/compaction_command.go);
//  - defrag: `etcdctl defrag` against the endpoint (defrag_command.go: Maintenance
//    Defragment);
//  - alarm-disarm: `etcdctl alarm disarm` (alarm_command.go -> clientv3 AlarmDisarm with no
//    member: AlarmList, then a DEACTIVATE for each alarm listed, one after another);
//  - snapshot-save: `etcdctl snapshot save NAME` (snapshot_command.go -> clientv3
//    snapshot.SaveWithVersion: Maintenance Snapshot against the one endpoint, the stream
//    written to a file renamed into place once complete): the member's backend lands in the
//    command's SnapshotStore under `name` (models/etcd/snapshot_restore.hpp), traced with
//    its revision and size ("snapshot" in the trace).
// A call whose deadline passes is traced "context deadline exceeded" and its late answer
// ignored; a closed connection ends the command.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/etcd/kv_api.hpp"
#include "models/etcd/snapshot_restore.hpp"
#include "sim/env.hpp"

namespace hasim::etcd {

enum class EtcdctlOp : std::uint8_t { fill, compact, defrag, alarm_disarm, snapshot_save };
std::string_view etcdctl_op_name(EtcdctlOp op);  // "fill", "compact", ...

inline constexpr std::string_view kFillPrefix = "/hasim/fill/";
inline constexpr std::string_view kDeadlineExceeded = "context deadline exceeded";
inline constexpr std::string_view kConnectionClosed =
    "rpc error: code = Unavailable desc = error reading from server: EOF";

struct EtcdctlCommand final : MessageBody {
  std::string_view type() const override { return "etcdctl-command"; }
  EtcdctlOp op = EtcdctlOp::defrag;
  std::string endpoint;  // the member's process, "n1/etcd"
  Duration timeout = seconds(5);
  // fill
  std::string prefix = std::string(kFillPrefix);
  std::int64_t bytes = 0;
  std::int64_t value_size = 0;
  Duration every{};
  // The distinct keys written over and over (put n goes to key n mod keys), as Kubernetes
  // updates its objects (each update a new revision of the same key); 0: every put a new key.
  std::int64_t keys = 0;
  // compact: the revisions kept below the current one (0: compact at the current revision)
  std::int64_t keep = 0;
  // snapshot-save: the file's name, and where it lands (shared with the world's actions)
  std::string name;
  std::shared_ptr<SnapshotStore> store;
};

class Etcdctl final : public Process {
 public:
  static constexpr std::size_t kMaxJobs = 1'000;  // commands running at once

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

 private:
  struct Job {
    EtcdctlCommand command;
    ProcessId endpoint = 0;
    std::uint64_t call = 0;      // the client_id of the call in flight, 0 when none
    std::string call_op;         // its name in the trace
    std::string key;             // a put's key
    LocalTime sent{};
    std::int64_t written = 0;    // fill: value bytes acknowledged
    std::int64_t puts = 0;       // fill: puts sent
    std::int64_t failed = 0;     // fill: puts that failed
    std::int64_t target = 0;     // compact: the revision compacted at
    std::vector<std::uint64_t> to_disarm;  // alarm-disarm: the members still to disarm
  };

  void start(Env& env, const EtcdctlCommand& command);
  void send(Env& env, std::uint64_t job, std::string op, std::shared_ptr<MessageBody> request);
  void answered(Env& env, std::uint64_t job, const std::string& error, const MessageBody& reply);
  void next(Env& env, std::uint64_t job);
  void next_put(Env& env, std::uint64_t job);
  void finish(Env& env, std::uint64_t job, std::string_view result);
  // "etcdctl": "op" (put, status, compact, defrag, alarm-list, alarm-disarm; fill's end),
  // "endpoint", "result", "took-ms" since the call went out, "key" (a put's), "revision"
  // (the reply header's; for compact, the revision compacted at), "member" (alarm-disarm's).
  void trace(Env& env, const Job& job, std::string_view op, std::string_view result,
             std::int64_t revision = 0, std::int64_t member = 0);
  std::shared_ptr<KvRequest> request(std::uint64_t job, KvOp op);
  void saved(Env& env, std::uint64_t job, const KvResponse& reply);

  TagSpace timers_;
  std::uint64_t nextJob_ = 0;
  std::uint64_t nextCall_ = 0;
  std::map<std::uint64_t, Job> jobs_;
};

}  // namespace hasim::etcd
