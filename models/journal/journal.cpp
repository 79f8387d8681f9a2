#include "models/journal/journal.hpp"

#include <charconv>

#include "models/journal/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// Appends not yet covered by an fsync, at most: a journal that cannot sync this much is
// wedged (a disk slowed a million-fold), and the bound keeps its memory finite.
constexpr std::size_t kMaxUnsynced = 1'000'000;

std::int64_t sequence_of(const std::string& record) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(record.data(), record.data() + record.size(), value);
  HASIM_ASSERT(error == std::errc() && end == record.data() + record.size());
  return value;
}

}  // namespace

void Journal::on_start(Env& env) {
  HASIM_ASSERT(config_.interval.ns > 0);
  tags_ = env.tag_space("journal");
  const std::vector<std::string>& records = env.read(kVolume, kFile);
  const std::int64_t last = records.empty() ? 0 : sequence_of(records.back());
  // Sequence numbers only grow within what survived: a prefix of the appends, in order.
  HASIM_ASSERT(records.size() <= 1 || sequence_of(records[records.size() - 2]) < last);
  next_ = last + 1;
  issued_ = last;
  sync_covers_ = last;
  written_ = last;
  env.trace(journal::trace_kind::kRecovered,
            {{"records", static_cast<std::int64_t>(records.size())},
             {"last", last},
             {"disk", config_.disk},
             {"volume", std::string(volume_kind_name(config_.volume))}});
  env.set_timer(config_.interval, tags_.tag());
}

void Journal::on_timer(Env& env, TimerId, std::uint64_t tag) {
  HASIM_ASSERT(tags_.owns(tag));
  const std::int64_t sequence = next_++;
  env.append(kVolume, kFile, std::to_string(sequence), static_cast<std::uint64_t>(sequence));
  env.trace(journal::trace_kind::kWrite, {{"seq", sequence}});
  issued_ = sequence;
  if (!syncing_) sync(env);
  env.set_timer(config_.interval, tags_.tag());
}

void Journal::on_io(Env& env, const IoCompletion& io) {
  if (io.op == IoOp::fsync) {
    HASIM_ASSERT(syncing_);
    syncing_ = false;
    env.trace(journal::trace_kind::kSynced, {{"covers", sync_covers_}, {"written", written_}});
    // FIFO service: every append the fsync covers has completed before it.
    while (!unsynced_.empty() && unsynced_.front() <= sync_covers_) {
      if (config_.ack == JournalAck::after_fsync) acknowledge(env, unsynced_.front());
      unsynced_.pop_front();
    }
    if (issued_ > sync_covers_) sync(env);  // appends arrived while it ran: the next group
    return;
  }
  const auto sequence = static_cast<std::int64_t>(io.tag);
  written_ = sequence;
  if (io.status != IoStatus::ok) {
    env.trace(journal::trace_kind::kRejected,
              {{"seq", sequence}, {"error", std::string(io_status_name(io.status))}});
    return;
  }
  HASIM_ASSERT(unsynced_.size() < kMaxUnsynced);
  HASIM_ASSERT(unsynced_.empty() || unsynced_.back() < sequence);
  unsynced_.push_back(sequence);
  if (config_.ack == JournalAck::after_write) acknowledge(env, sequence);
}

void Journal::sync(Env& env) {
  HASIM_ASSERT(!syncing_ && issued_ > sync_covers_);
  syncing_ = true;
  sync_covers_ = issued_;
  env.fsync(kVolume, kFile, static_cast<std::uint64_t>(sync_covers_));
  env.trace(journal::trace_kind::kFsync, {{"covers", sync_covers_}});
}

void Journal::acknowledge(Env& env, std::int64_t sequence) {
  env.trace(journal::trace_kind::kAck, {{"seq", sequence}});
}

}  // namespace hasim
