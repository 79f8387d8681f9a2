#pragma once
// CloudCore's delivery of objects to edge nodes, the part of the leader's modules that moves
// pods, ConfigMaps and Secrets (KE@v1.5.0):
//  - EdgeController downstream (cloud/pkg/edgecontroller/controller/downstream.go): informers
//    on pods, ConfigMaps and Secrets; a pod bound to an edge node goes to that node (insert /
//    update / delete by event type); a ConfigMap or Secret goes to the nodes the
//    LocationCache lists for it (those whose pods reference it, manager/location.go);
//  - EdgeController upstream (upstream.go queryConfigMap / querySecret): a query from the
//    edge is answered with a GET from the apiserver, sent as a response;
//  - CloudHub's channel queue and write loop (cloudhub/channelq/channelq.go,
//    cloudhub/handler/messagehandler.go MessageWriteLoop / sendMsg / saveSuccessPoint): one
//    NodeQueue per node; one message in flight per node, written again every 5s up to 4
//    times, then given up (forgotten); on the ACK, saveSuccessPoint records the
//    resourceVersion in the node's ObjectSync (Get, then UpdateStatus; Create first if it is
//    missing; a delete removes the ObjectSync) before the next message goes;
//  - SyncController (cloud/pkg/synccontroller/objectsync.go): every 5s, for each ObjectSync,
//    an update when the object is newer than status.objectResourceVersion, a delete when it
//    is gone.
// A queue outlives its node's session (the channel queue is per node, not per connection):
// what was queued goes out when the node connects again. SyncController's pass visits only
// the ObjectSyncs that differ from their object (an index kept from the informers' events),
// which sends exactly what visiting all of them would.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/apiserver/informer.hpp"
#include "models/cloudcore/node_queue.hpp"
#include "models/cloudcore/object_sync.hpp"

namespace hasim::cloudcore {

// How SyncController reads an ObjectSync's object. v1.5 reads its informer's lister: a
// missing object (or one with another UID) gets a delete naming the ObjectSync's UID. v1.7
// and v1.8 GET it live through the dynamic client (KE@v1.7.0:cloud/pkg/synccontroller/
// objectsync.go manageObject): NotFound is logged and nothing is sent, so a delete is never
// repaired; an object with another UID gets a delete carrying that other, current object
// (its UID and resourceVersion). hasim reads the informer's copy for both (the live GET's
// answer, without its request).
enum class SyncControllerRead : std::uint8_t { lister_v1_5, live_get_v1_7 };

struct DeliveryConfig {
  std::vector<std::string> edge_nodes;          // the nodes labelled as edge nodes
  Duration retry_interval = seconds(5);          // sendMsg's retryInterval
  int max_resends = 4;                           // `if retry == 4 { break LOOP }`
  Duration sync_period = seconds(5);             // SyncController's wait.Until period
  SyncControllerRead sync_read = SyncControllerRead::lister_v1_5;
};

class Delivery {
 public:
  Delivery(DeliveryConfig config, api::ApiClient& client, Env& env);
  // The modules start: the ObjectSync informer syncs first, then the others and
  // SyncController start (WaitForCacheSync before the handlers run).
  void start(Env& env);
  bool on_timer(Env& env, std::uint64_t tag);
  void on_session_open(Env& env, const std::string& node, ProcessId edge);
  void on_session_close(Env& env, const std::string& node);
  void on_ack(Env& env, const std::string& node, std::uint64_t parent_msg_id);
  void on_query(Env& env, const std::string& node, const api::ObjectKey& key);

 private:
  struct InFlight {
    QueuedMessage message;
    std::uint64_t msg_id = 0;
    int writes = 0;
    TimerId timer = 0;
  };
  struct NodeState {
    std::size_t index = 0;  // its retry timer's tag
    std::optional<ProcessId> edge;  // the session's peer, while connected here
    NodeQueue queue;
    std::optional<InFlight> in_flight;
    bool saving = false;  // saveSuccessPoint's API calls are running
  };
  void on_object(Env& env, api::WatchEventType type, const api::ObjectPtr& object);
  void on_object_sync(api::WatchEventType type, const api::ObjectPtr& sync);
  void dispatch(Env& env, const std::string& node, Operation operation, api::ObjectPtr object);
  void pump(Env& env, NodeState& node, const std::string& name);
  void write(Env& env, NodeState& node, const std::string& name);
  void on_retry(Env& env, const std::string& name);
  void save_success_point(Env& env, const std::string& name, const QueuedMessage& message);
  void update_status(Env& env, const std::string& name, const api::Response& got,
                     std::uint64_t resource_version);
  void create_failed(Env& env, const std::string& name, const api::ObjectKey& sync,
                     api::Status status);
  void saved(Env& env, const std::string& name);
  void sync_pass(Env& env);
  // SyncController's message for an ObjectSync that differs from its object (nullptr: none).
  api::ObjectPtr sync_message(const api::Object& sync, const api::ObjectPtr& object,
                              SyncAction action) const;
  // Whether an ObjectSync differs from its object, kept in unsynced_.
  void refresh(const api::ObjectKey& sync);
  void refresh(const api::Object& sync, const api::ObjectKey& target);
  const api::Informer& informer_for(api::Kind kind) const;

  DeliveryConfig config_;
  api::ApiClient& client_;
  TagSpace retry_tags_;
  TagSpace sync_tags_;
  api::Informer object_syncs_;
  api::Informer pods_;
  api::Informer config_maps_;
  api::Informer secrets_;
  std::map<std::string, NodeState, std::less<>> nodes_;
  std::vector<std::string> node_names_;  // by index
  // LocationCache: the edge nodes whose pods reference a ConfigMap or Secret.
  std::map<api::ObjectKey, std::set<std::string>> location_cache_;
  // SyncController's index: the ObjectSyncs of each object, and those that differ from it.
  std::map<api::ObjectKey, std::set<api::ObjectKey>> syncs_of_;
  std::set<api::ObjectKey> unsynced_;
  std::uint64_t next_msg_id_ = 1;
};

}  // namespace hasim::cloudcore
