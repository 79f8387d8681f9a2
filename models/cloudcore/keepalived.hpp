#pragma once
// keepalived in front of the CloudCores, as KubeEdge's HA guide configures it
// (KE@v1.5.0:build/cloud/ha/README.md): on each CloudCore host a VRRP instance (MASTER with
// priority 100 on one host, BACKUP 99 on the others, advert_int 1) and a vrrp_script that
// curls https://127.0.0.1:10002/readyz every 2s (fall 2, rise 2, weight 2: while the check
// passes, the priority is 2 higher). VRRP as RFC 3768 runs it (keepalived's vrrp.c): a MASTER
// sends an advertisement every advert_int and steps down on one with a higher priority (ties:
// the higher address; here the node name); a BACKUP becomes MASTER when no advertisement
// came for Master_Down_Interval = 3 x advert_int + (256 - priority) / 256 x advert_int, and,
// preempting, ignores advertisements of a lower priority than its own. The host that became
// MASTER last holds the VIP (its gratuitous ARP is the last one the edges' network saw).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/env.hpp"

namespace hasim::cloudcore {

struct KeepalivedConfig {
  std::string node;
  std::string cloudcore;           // "node/cloudcore": what /readyz reaches on 127.0.0.1
  std::vector<std::string> peers;  // the other hosts' "node/keepalived"
  int priority = 99;
  bool initial_master = false;  // "state MASTER"
  Duration check_interval = seconds(2);
  int fall = 2;
  int rise = 2;
  int weight = 2;
  Duration advert_interval = seconds(1);
};

// curl /readyz and its answer (a standby has no HTTPS server: connection refused).
struct ReadyzRequest final : MessageBody {
  std::string_view type() const override { return "ReadyzRequest"; }
};
struct ReadyzResponse final : MessageBody {
  bool ok = false;  // HTTP 200
  std::string_view type() const override { return "ReadyzResponse"; }
};
struct VrrpAdvert final : MessageBody {
  int priority = 0;
  std::string node;
  std::string_view type() const override { return "VrrpAdvert"; }
};

class Keepalived final : public Process {
 public:
  explicit Keepalived(KeepalivedConfig config);
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

  int effective_priority() const { return config_.priority + (script_ok_ ? config_.weight : 0); }
  bool master() const { return master_; }

 private:
  enum Tag : std::uint64_t { kCheck, kAdvert, kMasterDown };
  void check(Env& env);
  void check_result(Env& env, bool ok);
  void become_master(Env& env);
  void become_backup(Env& env);
  void advertise(Env& env);
  void arm_master_down(Env& env);
  void on_advert(Env& env, const VrrpAdvert& advert);

  KeepalivedConfig config_;
  TagSpace tags_;
  bool master_ = false;
  bool script_ok_ = false;  // a script starts failed: `rise` passes make it good
  int successes_ = 0;
  int failures_ = 0;
  bool check_pending_ = false;
  std::optional<TimerId> vrrp_timer_;  // advert (MASTER) or Master_Down (BACKUP)
};

}  // namespace hasim::cloudcore
