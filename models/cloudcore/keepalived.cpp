#include "models/cloudcore/keepalived.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {

Keepalived::Keepalived(KeepalivedConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.priority >= 1 && config_.priority <= 254);
  HASIM_ASSERT(config_.fall >= 1 && config_.rise >= 1 && config_.advert_interval.ns > 0);
}

void Keepalived::on_start(Env& env) {
  tags_ = env.tag_space("keepalived");
  if (config_.initial_master) {
    become_master(env);
  } else {
    become_backup(env);
  }
  check(env);
}

void Keepalived::check(Env& env) {
  // The script runs every interval; one still running when the next is due counts as failed
  // (its timeout is the interval).
  env.set_timer(config_.check_interval, tags_.tag(kCheck));
  if (check_pending_) check_result(env, false);
  check_pending_ = true;
  env.send(env.process(config_.cloudcore), std::make_shared<ReadyzRequest>());
}

void Keepalived::check_result(Env& env, bool ok) {
  HASIM_ASSERT(check_pending_);
  check_pending_ = false;
  successes_ = ok ? successes_ + 1 : 0;
  failures_ = ok ? 0 : failures_ + 1;
  const bool was = script_ok_;
  if (!script_ok_ && successes_ >= config_.rise) script_ok_ = true;
  if (script_ok_ && failures_ >= config_.fall) script_ok_ = false;
  if (was == script_ok_) return;
  env.trace(trace_kind::kVrrpScript, {{"ok", script_ok_}, {"priority", std::int64_t{effective_priority()}}});
  if (master_) advertise(env);  // the new priority goes out at once
}

void Keepalived::become_master(Env& env) {
  master_ = true;
  env.trace(trace_kind::kVrrpMaster, {{"priority", std::int64_t{effective_priority()}}});
  advertise(env);
}

void Keepalived::become_backup(Env& env) {
  const bool was = master_;
  master_ = false;
  if (was) env.trace(trace_kind::kVrrpBackup, {{"priority", std::int64_t{effective_priority()}}});
  arm_master_down(env);
}

void Keepalived::advertise(Env& env) {
  HASIM_ASSERT(master_);
  for (const std::string& peer : config_.peers) {
    auto advert = std::make_shared<VrrpAdvert>();
    advert->priority = effective_priority();
    advert->node = config_.node;
    env.send(env.process(peer), std::move(advert), Transport::datagram);  // multicast
  }
  if (vrrp_timer_.has_value()) env.cancel_timer(*vrrp_timer_);
  vrrp_timer_ = env.set_timer(config_.advert_interval, tags_.tag(kAdvert));
}

void Keepalived::arm_master_down(Env& env) {
  // Master_Down_Interval = 3 x Advertisement_Interval + Skew_Time, where
  // Skew_Time = (256 - Priority) / 256 x Advertisement_Interval.
  const std::int64_t advert = config_.advert_interval.ns;
  const Duration down{3 * advert + (256 - config_.priority) * (advert / 256)};
  if (vrrp_timer_.has_value()) env.cancel_timer(*vrrp_timer_);
  vrrp_timer_ = env.set_timer(down, tags_.tag(kMasterDown));
}

void Keepalived::on_advert(Env& env, const VrrpAdvert& advert) {
  const int mine = effective_priority();
  const bool higher = advert.priority > mine || (advert.priority == mine && advert.node > config_.node);
  if (master_) {
    if (higher) become_backup(env);
    return;
  }
  // BACKUP, preempting: only an advertisement at least as good as us holds us back.
  if (advert.priority >= mine) arm_master_down(env);
}

void Keepalived::on_message(Env& env, ProcessId from, const Message& message) {
  if (const auto* advert = message_as<VrrpAdvert>(*message)) {
    return on_advert(env, *advert);
  }
  if (!check_pending_ || from != env.process(config_.cloudcore)) return;
  if (const auto* readyz = message_as<ReadyzResponse>(*message)) {
    return check_result(env, readyz->ok);
  }
  if (message_as<ConnectionClosed>(*message) != nullptr) check_result(env, false);
}

void Keepalived::on_timer(Env& env, TimerId /*timer*/, std::uint64_t tag) {
  HASIM_ASSERT(tags_.owns(tag));
  switch (tags_.local(tag)) {
    case kCheck:
      return check(env);
    case kAdvert:
      vrrp_timer_.reset();
      return advertise(env);
    case kMasterDown:
      vrrp_timer_.reset();
      return become_master(env);
    default:
      HASIM_ASSERT(false && "unknown keepalived timer");
  }
}

}  // namespace hasim::cloudcore
