#include "models/cloudcore/delivery.hpp"

#include "models/cloudcore/object_sync.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {
namespace {

constexpr std::uint64_t kSyncTick = 1;

api::InformerConfig all_of(api::Kind kind, Env& env, std::string_view name) {
  return api::InformerConfig{kind, {}, {}, env.tag_space(name)};
}

std::string describe_object(const api::Object& object) { return api::describe(object.key); }

}  // namespace

Delivery::Delivery(DeliveryConfig config, api::ApiClient& client, Env& env)
    : config_(std::move(config)),
      client_(client),
      retry_tags_(env.tag_space("cloudhub-ack")),
      sync_tags_(env.tag_space("synccontroller")),
      object_syncs_(all_of(api::Kind::object_sync, env, "objectsync-informer"), client,
                    [this](Env&, api::WatchEventType type, const api::ObjectPtr&,
                           const api::ObjectPtr& sync) { on_object_sync(type, sync); }),
      pods_(all_of(api::Kind::pod, env, "pod-informer"), client,
            [this](Env& e, api::WatchEventType type, const api::ObjectPtr&,
                   const api::ObjectPtr& object) { on_object(e, type, object); }),
      config_maps_(all_of(api::Kind::config_map, env, "configmap-informer"), client,
                   [this](Env& e, api::WatchEventType type, const api::ObjectPtr&,
                          const api::ObjectPtr& object) { on_object(e, type, object); }),
      secrets_(all_of(api::Kind::secret, env, "secret-informer"), client,
               [this](Env& e, api::WatchEventType type, const api::ObjectPtr&,
                      const api::ObjectPtr& object) { on_object(e, type, object); }) {
  HASIM_ASSERT(config_.max_resends >= 0 && config_.retry_interval.ns > 0);
  for (const std::string& node : config_.edge_nodes) {
    NodeState state;
    state.index = node_names_.size();
    const bool inserted = nodes_.emplace(node, std::move(state)).second;
    HASIM_ASSERT(inserted);  // edge node names are distinct
    node_names_.push_back(node);
  }
}

void Delivery::start(Env& env) {
  object_syncs_.run(env, [this](Env& e) {
    pods_.run(e);
    config_maps_.run(e);
    secrets_.run(e);
    e.set_timer(config_.sync_period, sync_tags_.tag(kSyncTick));
  });
}

bool Delivery::on_timer(Env& env, std::uint64_t tag) {
  for (api::Informer* informer : {&object_syncs_, &pods_, &config_maps_, &secrets_}) {
    if (informer->on_timer(env, tag)) return true;
  }
  if (sync_tags_.owns(tag)) {
    sync_pass(env);
    env.set_timer(config_.sync_period, sync_tags_.tag(kSyncTick));
    return true;
  }
  if (!retry_tags_.owns(tag)) return false;
  const std::uint64_t index = retry_tags_.local(tag);
  HASIM_ASSERT(index < node_names_.size());
  on_retry(env, node_names_[index]);
  return true;
}

const api::Informer& Delivery::informer_for(api::Kind kind) const {
  HASIM_ASSERT(is_delivered_kind(kind));
  if (kind == api::Kind::pod) return pods_;
  return kind == api::Kind::config_map ? config_maps_ : secrets_;
}

// downstream.go syncPod / syncConfigMap / syncSecret: the event type is the operation.
void Delivery::on_object(Env& env, api::WatchEventType type, const api::ObjectPtr& object) {
  HASIM_ASSERT(object != nullptr && is_delivered_kind(object->key.kind));
  const Operation operation = type == api::WatchEventType::added      ? Operation::insert
                              : type == api::WatchEventType::modified ? Operation::update
                                                                      : Operation::delete_;
  if (const auto it = syncs_of_.find(object->key); it != syncs_of_.end()) {
    for (const api::ObjectKey& sync : it->second) refresh(sync);
  }
  if (object->key.kind != api::Kind::pod) {
    const auto it = location_cache_.find(object->key);
    if (it == location_cache_.end()) return;
    const std::set<std::string> nodes = it->second;
    if (operation == Operation::delete_) location_cache_.erase(it);  // DeleteConfigMap
    for (const std::string& node : nodes) dispatch(env, node, operation, object);
    return;
  }
  const std::string& node = object->pod_spec.nodeName;
  if (!nodes_.contains(node)) return;  // not bound to an edge node
  if (operation != Operation::delete_) {  // LocationCache.AddOrUpdatePod
    for (const std::string& name : object->pod_spec.configMaps) {
      location_cache_[api::ObjectKey{api::Kind::config_map, object->key.namespace_, name}]
          .insert(node);
    }
    for (const std::string& name : object->pod_spec.secrets) {
      location_cache_[api::ObjectKey{api::Kind::secret, object->key.namespace_, name}].insert(node);
    }
  }
  dispatch(env, node, operation, object);
}

void Delivery::on_object_sync(api::WatchEventType type, const api::ObjectPtr& sync) {
  HASIM_ASSERT(sync != nullptr);
  const api::ObjectKey target = object_sync_target(*sync);
  if (type == api::WatchEventType::deleted) {
    const auto it = syncs_of_.find(target);
    if (it != syncs_of_.end() && (it->second.erase(sync->key), it->second.empty())) {
      syncs_of_.erase(it);
    }
    unsynced_.erase(sync->key);
    return;
  }
  syncs_of_[target].insert(sync->key);
  refresh(*sync, target);
}

void Delivery::refresh(const api::ObjectKey& key) {
  const api::ObjectPtr sync = object_syncs_.get(key);
  if (sync == nullptr) return (void)unsynced_.erase(key);
  refresh(*sync, object_sync_target(*sync));
}

void Delivery::refresh(const api::Object& sync, const api::ObjectKey& target) {
  const api::ObjectPtr object = informer_for(target.kind).get(target);
  if (compare_object_sync(sync, object.get()) == SyncAction::none) {
    unsynced_.erase(sync.key);
  } else {
    unsynced_.insert(sync.key);
  }
}

// SyncController's manageObject over every ObjectSync; those in sync send nothing.
void Delivery::sync_pass(Env& env) {
  const std::vector<api::ObjectKey> keys(unsynced_.begin(), unsynced_.end());
  for (const api::ObjectKey& key : keys) {
    const api::ObjectPtr sync = object_syncs_.get(key);
    HASIM_ASSERT(sync != nullptr);
    const api::ObjectKey target = object_sync_target(*sync);
    const api::ObjectPtr object = informer_for(target.kind).get(target);
    const SyncAction action = compare_object_sync(*sync, object.get());
    const std::string node(object_sync_node(*sync));
    if (action == SyncAction::skip_empty_status || !nodes_.contains(node)) continue;
    HASIM_ASSERT(action != SyncAction::none);
    api::ObjectPtr message = sync_message(*sync, object, action);
    if (message == nullptr) continue;
    env.trace(trace_kind::kSyncControllerSend,
              {{"edge", node},
               {"object", describe_object(*message)},
               {"operation", std::string(to_string(action == SyncAction::delete_
                                                         ? Operation::delete_
                                                         : Operation::update))}});
    dispatch(env, node, action == SyncAction::delete_ ? Operation::delete_ : Operation::update,
             std::move(message));
  }
}

api::ObjectPtr Delivery::sync_message(const api::Object& sync, const api::ObjectPtr& object,
                                      SyncAction action) const {
  if (action != SyncAction::delete_) return object;
  if (config_.sync_read == SyncControllerRead::live_get_v1_7) {
    // The live GET's NotFound: "failed to get obj", return. Another UID: the delete's
    // content is the object the GET returned.
    return object;
  }
  // The delete names the object by the ObjectSync: its name, namespace and UID.
  auto gone = std::make_shared<api::Object>();
  gone->key = object_sync_target(sync);
  gone->uid = std::string(object_sync_uid(sync));
  gone->resourceVersion = sync.object_sync.objectResourceVersion.value_or(0);
  return gone;
}

// channelq DispatchMessage -> addMessageToQueue, then the node's write loop.
void Delivery::dispatch(Env& env, const std::string& node, Operation operation,
                        api::ObjectPtr object) {
  const auto it = nodes_.find(node);
  HASIM_ASSERT(it != nodes_.end() && object != nullptr);
  const api::ObjectKey sync{api::Kind::object_sync, object->key.namespace_,
                            object_sync_name(node, object->uid)};
  if (!should_enqueue(operation, object->resourceVersion, object_syncs_.get(sync).get())) return;
  it->second.queue.add(operation, std::move(object));
  pump(env, it->second, node);
}

void Delivery::on_session_open(Env& env, const std::string& node, ProcessId edge) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.edge = edge;
  pump(env, it->second, node);
}

void Delivery::on_session_close(Env& env, const std::string& node) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  NodeState& state = it->second;
  state.edge.reset();
  if (!state.in_flight.has_value()) return;
  // The next write fails on the closed connection: sendMsg returns the error and the key
  // goes back to the queue (AddRateLimited), to be sent on the node's next session.
  env.cancel_timer(state.in_flight->timer);
  state.queue.requeue(std::move(state.in_flight->message));
  state.in_flight.reset();
}

void Delivery::pump(Env& env, NodeState& node, const std::string& name) {
  if (!node.edge.has_value() || node.in_flight.has_value() || node.saving) return;
  auto message = node.queue.pop();
  if (!message.has_value()) return;
  node.in_flight = InFlight{std::move(*message), next_msg_id_++, 0, 0};
  write(env, node, name);
}

void Delivery::write(Env& env, NodeState& node, const std::string& name) {
  HASIM_ASSERT(node.in_flight.has_value() && node.edge.has_value());
  InFlight& flight = *node.in_flight;
  ++flight.writes;
  auto out = std::make_shared<ResourceMessage>();
  out->msg_id = flight.msg_id;
  out->operation = flight.message.operation;
  out->object = flight.message.object;
  env.send(*node.edge, std::move(out));
  flight.timer = env.set_timer(config_.retry_interval, retry_tags_.tag(node.index));
  if (flight.writes == 1) return;
  env.trace(trace_kind::kMessageResend,
            {{"edge", name},
             {"object", describe_object(*flight.message.object)},
             {"operation", std::string(to_string(flight.message.operation))},
             {"write", std::int64_t{flight.writes}}});
}

void Delivery::on_retry(Env& env, const std::string& name) {
  NodeState& node = nodes_.at(name);
  HASIM_ASSERT(node.in_flight.has_value() && node.edge.has_value());
  if (node.in_flight->writes <= config_.max_resends) return write(env, node, name);
  // "if retry == 4 { break LOOP }": the message is forgotten, the loop takes the next.
  env.trace(trace_kind::kMessageDropped,
            {{"edge", name},
             {"object", describe_object(*node.in_flight->message.object)},
             {"operation", std::string(to_string(node.in_flight->message.operation))}});
  node.in_flight.reset();
  pump(env, node, name);
}

void Delivery::on_ack(Env& env, const std::string& name, std::uint64_t parent_msg_id) {
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  NodeState& node = it->second;
  // MessageAcks holds a channel only for the message in flight; a late ACK finds none.
  if (!node.in_flight.has_value() || node.in_flight->msg_id != parent_msg_id) return;
  env.cancel_timer(node.in_flight->timer);
  const QueuedMessage message = std::move(node.in_flight->message);
  node.in_flight.reset();
  node.saving = true;
  save_success_point(env, name, message);
}

void Delivery::on_query(Env& env, const std::string& node, const api::ObjectKey& key) {
  HASIM_ASSERT(key.kind == api::Kind::config_map || key.kind == api::Kind::secret);
  if (!nodes_.contains(node)) return;
  // queryConfigMap / querySecret: a GET through the kube client, the answer as a response.
  client_.request(env, client_.new_context(), api::Verb::get, key, nullptr,
                  [this, node](Env& e, const api::Response& got) {
                    if (got.status != api::Status::ok || got.object == nullptr) return;
                    dispatch(e, node, Operation::response, got.object);
                  });
}

}  // namespace hasim::cloudcore

namespace hasim::cloudcore {

// saveSuccessPoint: a delete removes the node's ObjectSync; anything else records the
// message's resourceVersion in it, creating it first when the Get finds none. Each step's
// failure is only logged; the write loop goes on either way.
void Delivery::save_success_point(Env& env, const std::string& name,
                                  const QueuedMessage& message) {
  const api::Object& object = *message.object;
  const api::ObjectKey sync{api::Kind::object_sync, object.key.namespace_,
                            object_sync_name(name, object.uid)};
  const std::uint64_t rv = object.resourceVersion;
  if (message.operation == Operation::delete_) {
    return client_.request(env, client_.new_context(), api::Verb::delete_, sync, nullptr,
                           [this, name](Env& e, const api::Response&) { saved(e, name); });
  }
  auto created = std::make_shared<api::Object>(make_object_sync(name, object));
  client_.request(env, client_.new_context(), api::Verb::get, sync, nullptr,
                  [this, name, sync, rv, created](Env& e, const api::Response& got) {
                    if (got.status == api::Status::ok) return update_status(e, name, got, rv);
                    if (got.status != api::Status::not_found) return saved(e, name);
                    client_.request(e, client_.new_context(), api::Verb::create, sync, created,
                                    [this, name, sync, rv](Env& e2, const api::Response& made) {
                                      if (!api::is_success(made.status)) {
                                        return create_failed(e2, name, sync, made.status);
                                      }
                                      // The created object's status is not written: Get it,
                                      // then UpdateStatus.
                                      client_.request(e2, client_.new_context(), api::Verb::get,
                                                      sync, nullptr,
                                                      [this, name, rv](Env& e3,
                                                                       const api::Response& again) {
                                                        update_status(e3, name, again, rv);
                                                      });
                                    });
                  });
}

// "Failed to create objectSync": logged, and saveSuccessPoint returns without a status. With
// several replicas (v1.7+) this is the creation race: another replica's Create came first
// (AlreadyExists), and the status is whatever that replica writes next.
void Delivery::create_failed(Env& env, const std::string& name, const api::ObjectKey& sync,
                             api::Status status) {
  env.trace(trace_kind::kObjectSyncCreateFailed,
            {{"edge", name},
             {"objectsync", api::describe(sync)},
             {"result", std::string(api::to_string(status))}});
  saved(env, name);
}

// UpdateStatus with the resourceVersion the Get returned (a conflict is only logged).
void Delivery::update_status(Env& env, const std::string& name, const api::Response& got,
                             std::uint64_t resource_version) {
  if (got.status != api::Status::ok || got.object == nullptr) return saved(env, name);
  auto status = std::make_shared<api::Object>(*got.object);
  status->object_sync.objectResourceVersion = resource_version;
  client_.request(env, client_.new_context(), api::Verb::update, status->key, status,
                  [this, name](Env& e, const api::Response&) { saved(e, name); });
}

void Delivery::saved(Env& env, const std::string& name) {
  NodeState& node = nodes_.at(name);
  HASIM_ASSERT(node.saving && !node.in_flight.has_value());
  node.saving = false;
  pump(env, node, name);
}

}  // namespace hasim::cloudcore
