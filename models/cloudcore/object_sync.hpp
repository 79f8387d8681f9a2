#pragma once
// The resourceVersion bookkeeping of KubeEdge's reliable delivery, as pure functions:
//  - ObjectSync names (KE@v1.5.0:cloud/pkg/synccontroller/synccontroller.go
//    BuildObjectSyncName: "<nodeName>.<objectUID>");
//  - the dispatcher's gate (KE@v1.5.0:cloud/pkg/cloudhub/channelq/channelq.go
//    addMessageToQueue): an insert or update whose resourceVersion the node already
//    acknowledged is not queued;
//  - SyncController's comparison (KE@v1.5.0:cloud/pkg/synccontroller/objectsync.go
//    manageObject): object gone -> delete; newer -> update; status empty -> skip;
//  - the edge's rule that a stale version never replaces a newer one (the reliable-delivery
//    proposal's at-least-once contract: KE@v1.5.0:docs/proposals/reliable-message-delivery.md,
//    "the edge must cope with duplicates").
// ResourceVersions compare as integers, as CompareResourceVersion parses them as uint64.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/apiserver/object.hpp"
#include "models/cloudcore/messages.hpp"

namespace hasim::cloudcore {

// The message resource type of a delivered kind ("pod", "configmap", "secret").
std::string_view resource_type(api::Kind kind);
std::optional<api::Kind> resource_kind(std::string_view type);
bool is_delivered_kind(api::Kind kind);

std::string object_sync_name(std::string_view node, std::string_view uid);
// The node an ObjectSync is for, and the UID of the object it tracks.
std::string_view object_sync_node(const api::Object& sync);
std::string_view object_sync_uid(const api::Object& sync);
// The object an ObjectSync tracks (spec.objectKind, spec.objectName, its namespace).
api::ObjectKey object_sync_target(const api::Object& sync);
api::Object make_object_sync(std::string_view node, const api::Object& object);

// addMessageToQueue's gate for a message about an object: deletes and responses always go;
// an insert or update goes unless the node's ObjectSync already holds its resourceVersion or
// a newer one.
bool should_enqueue(Operation operation, std::uint64_t resource_version,
                    const api::Object* object_sync);

enum class SyncAction : std::uint8_t { none, update, delete_, skip_empty_status };
// manageObject for one ObjectSync: `object` is the informer's copy (nullptr: not found).
SyncAction compare_object_sync(const api::Object& object_sync, const api::Object* object);

// What the edge's MetaManager does with a resource message, given the version its database
// holds for the object (nullopt: none). A delete removes only the incarnation it names (its
// UID): SyncController's delete carries the ObjectSync's resourceVersion, which may be older
// than what the edge holds when an ACK was lost.
struct StoredVersion {
  std::uint64_t resource_version = 0;
  std::string uid;
};
enum class EdgeApply : std::uint8_t { store, duplicate, stale, remove, absent };
EdgeApply decide_edge_apply(Operation operation, const api::Object& object,
                            const std::optional<StoredVersion>& stored);
std::string_view to_string(EdgeApply apply);

}  // namespace hasim::cloudcore
