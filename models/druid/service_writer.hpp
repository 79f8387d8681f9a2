#pragma once
// A client application writing to the Etcd through its client Service: one Put every
// 1/rate s (keys "/registry/hasim/<n mod kKeys>", 100-byte values, each distinct, as
// Kubernetes updates its objects over and over), each to one ready member picked for the
// call (kube-proxy), under clientv3's 5 s request deadline, without retries. It gives the
// backups their events, and traces each call as kube-apiserver's etcd client does
// (etcd-call, etcd-call-end: models/apiserver/trace_kinds.hpp), so no-lost-write reads its
// history and the revisions acknowledged to it.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/env.hpp"

namespace hasim::druid {

struct ServiceWriterConfig {
  std::int64_t rate = 1;  // Puts per second
  std::function<std::vector<ProcessId>()> serviceEndpoints;
  std::string client;  // the writer's process, "cp-1/etcd-client", as its calls name it
};

class ServiceWriter final : public Process {
 public:
  static constexpr std::int64_t kKeys = 100;
  static constexpr std::size_t kMaxInFlight = 10'000;  // a bound of the model
  explicit ServiceWriter(ServiceWriterConfig config);
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

 private:
  void put(Env& env);
  void trace_end(Env& env, std::uint64_t id, std::string_view outcome, std::int64_t revision,
                 std::string_view error);
  ServiceWriterConfig config_;
  TagSpace tags_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, TimerId> inFlight_;  // by client_id: the deadline's timer
};

}  // namespace hasim::druid
