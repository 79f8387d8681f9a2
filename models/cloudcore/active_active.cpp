// CloudCore in active-active mode (v1.7+; models/cloudcore/cloudcore.hpp): no leader election,
// no readiness gate, no /readyz. Run (KE@v1.8.0:cloud/cmd/cloudcore/app/server.go) sleeps
// rand.Int31n(10) seconds, negotiates its tunnel port (tunnel_port.hpp) and panics on any
// error there, then registers and starts every module: each replica runs EdgeController,
// CloudHub and SyncController for every edge node, and serves whichever edges the load
// balancer sends it.
#include "models/apiserver/trace_kinds.hpp"
#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "models/cloudcore/tunnel_port.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {
namespace {

// "kubeedge/tunnelport" (modules.NamespaceSystem, modules.TunnelPort).
api::ObjectKey tunnel_port_key(const CloudCoreConfig& config) {
  return api::ObjectKey{api::Kind::config_map, config.pod_namespace, std::string(kTunnelPortName)};
}

}  // namespace

void CloudCore::start_active_active(Env& env) {
  HASIM_ASSERT(!is_hot_standby(config_.mode) && elector_ == nullptr);
  tunnel_tags_ = env.tag_space("tunnel-port");
  env.trace(api::trace_kind::kComponentStart, {{"component", "cloudcore"},
                                               {"identity", identity_},
                                               {"mode", std::string(to_string(config_.mode))},
                                               {"pod", config_.pod_name}});
  // "Negotiate TunnelPort for multi cloudcore instances": a whole number of seconds, 0-9.
  const auto bound = static_cast<std::uint64_t>(config_.tunnel_port_max_wait.ns / seconds(1).ns);
  HASIM_ASSERT(bound >= 1);
  env.set_timer(Duration{seconds(1).ns * static_cast<std::int64_t>(env.rng().below(bound))},
                tunnel_tags_.tag());
}

// NegotiateTunnelPort: Get the ConfigMap; the node's name stands for its IP (hostNetwork).
// (CreateNamespaceIfNeeded before it is not modelled: the namespace exists.)
void CloudCore::negotiate_tunnel_port(Env& env) {
  const std::string ip = config_.node;
  client_->request(env, client_->new_context(), api::Verb::get, tunnel_port_key(config_), nullptr,
                   [this, ip](Env& e, const api::Response& got) { write_tunnel_port(e, got, ip); });
}

void CloudCore::write_tunnel_port(Env& env, const api::Response& got, const std::string& ip) {
  if (got.status != api::Status::ok && got.status != api::Status::not_found) {
    return tunnel_port_result(env, std::nullopt, api::to_string(got.status));
  }
  std::optional<TunnelPortRecord> existing;
  if (got.status == api::Status::ok) {
    HASIM_ASSERT(got.object != nullptr);
    const auto& annotations = got.object->annotations;
    const auto it = annotations.find(std::string(kTunnelPortAnnotation));
    if (it == annotations.end()) return tunnel_port_result(env, std::nullopt, "no record");
    existing = parse_record(it->second);
    if (!existing.has_value()) return tunnel_port_result(env, std::nullopt, "bad record");
  }
  const TunnelPortPlan plan = plan_tunnel_port(existing, ip);
  if (plan.write == TunnelPortWrite::none) return tunnel_port_result(env, plan.port, "reused");
  auto object = std::make_shared<api::Object>();
  if (got.object != nullptr) *object = *got.object;  // Update carries the Get's resourceVersion
  object->key = tunnel_port_key(config_);
  object->annotations[std::string(kTunnelPortAnnotation)] = format_record(plan.record);
  const bool create = plan.write == TunnelPortWrite::create;
  const int port = plan.port;
  client_->request(env, client_->new_context(), create ? api::Verb::create : api::Verb::update,
                   object->key, object, [this, port](Env& e, const api::Response& written) {
                     if (!api::is_success(written.status)) {
                       return tunnel_port_result(e, std::nullopt, api::to_string(written.status));
                     }
                     tunnel_port_result(e, port, "negotiated");
                   });
}

void CloudCore::tunnel_port_result(Env& env, std::optional<int> port, std::string_view result) {
  if (shutting_down_) return;
  env.trace(trace_kind::kTunnelPort, {{"identity", identity_},
                                      {"port", std::int64_t{port.value_or(0)}},
                                      {"result", std::string(result)}});
  if (!port.has_value()) {
    // `if err != nil { panic(err) }`: the Go runtime exits 2; the kubelet restarts it.
    shutting_down_ = true;
    return env.exit(2);
  }
  HASIM_ASSERT(!tunnel_port_.has_value());
  tunnel_port_ = port;
  start_modules(env);  // registerModules, core.StartModules, the informers' Start
}

void CloudCore::update_node_status(Env& env, const std::string& node) {
  if (!tunnel_port_.has_value()) return;  // hot standby: no tunnel port negotiated
  const api::ObjectKey key{api::Kind::node, "", node};
  client_->request(env, client_->new_context(), api::Verb::get, key, nullptr,
                   [this, node](Env& e, const api::Response& got) {
                     if (got.status != api::Status::ok || got.object == nullptr) return;
                     auto updated = std::make_shared<api::Object>(*got.object);
                     // "getNode.Status.DaemonEndpoints.KubeletEndpoint.Port = uc.TunnelPort"
                     updated->kubelet_port = *tunnel_port_;
                     const int port = updated->kubelet_port;  // traced as written
                     client_->request(e, client_->new_context(), api::Verb::update, updated->key,
                                      updated, [node, port](Env& e2, const api::Response& done) {
                                        if (!api::is_success(done.status)) return;
                                        e2.trace(trace_kind::kNodeKubeletPort,
                                                 {{"edge", node}, {"port", std::int64_t{port}}});
                                      });
                   });
}

}  // namespace hasim::cloudcore
