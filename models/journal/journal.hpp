#pragma once
// Demo model for the kernel's disks: a write-ahead journal, the smallest model that
// persists, as etcd's WAL does under every raft member. Each `interval` (local monotonic
// time) a client write arrives; the journal appends it as a record to the file "journal" on
// its volume "wal". Acknowledgement follows one of two policies:
//  - after-fsync (etcd: raft's must-sync entries are on disk before the leader counts its
//    own vote or a follower answers MsgApp): a group commit; one fsync at a time covers every
//    append issued before it, and its completion acknowledges those that succeeded;
//  - after-write: acknowledged as soon as the append is in the page cache. The classic bug
//    (a database with fsync off): a power loss takes acknowledged writes with it.
// Either way the journal keeps fsyncing behind its appends. An append that fails (ENOSPC)
// rejects that write. On start it reads the journal back and traces what it recovered; the
// next write continues after the last recovered sequence number.
//
// Property no-lost-write (properties/journal/): a restarted journal recovers every write it
// acknowledged. Holds under crashes, power losses and pod deletion with a persistent volume
// in after-fsync mode; not after a disk loss, not for an emptyDir whose pod is deleted, not
// for a memory volume after a power loss, and not in after-write mode.
#include <cstdint>
#include <deque>
#include <string>

#include "sim/env.hpp"

namespace hasim {

enum class JournalAck { after_fsync, after_write };

struct JournalConfig {
  Duration interval = milliseconds(100);  // one client write per interval
  JournalAck ack = JournalAck::after_fsync;
  // Where its volume "wal" lives, as its pod spec says: traced at each start for the
  // properties that judge its disk (properties/journal/disk_semantics.hpp); decides nothing.
  std::string disk;
  VolumeKind volume = VolumeKind::persistent;
};

class Journal final : public Process {
 public:
  static constexpr std::string_view kVolume = "wal";
  static constexpr std::string_view kFile = "journal";

  explicit Journal(JournalConfig config) : config_(config) {}

  void on_start(Env& env) override;
  void on_message(Env&, ProcessId, const Message&) override {}
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_io(Env& env, const IoCompletion& io) override;

 private:
  void sync(Env& env);
  void acknowledge(Env& env, std::int64_t sequence);

  JournalConfig config_;
  TagSpace tags_;
  std::int64_t next_ = 1;           // the next write's sequence number
  std::int64_t issued_ = 0;         // the last sequence number appended
  std::int64_t sync_covers_ = 0;    // the fsync in flight covers appends up to this one
  std::int64_t written_ = 0;        // the last append completed (with or without an error)
  bool syncing_ = false;
  std::deque<std::int64_t> unsynced_;  // appended OK, not yet covered by a completed fsync
};

}  // namespace hasim
