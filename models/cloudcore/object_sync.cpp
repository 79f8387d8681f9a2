#include "models/cloudcore/object_sync.hpp"

#include "sim/assert.hpp"

namespace hasim::cloudcore {

std::string_view to_string(Operation operation) {
  switch (operation) {
    case Operation::insert:
      return "insert";
    case Operation::update:
      return "update";
    case Operation::delete_:
      return "delete";
    case Operation::response:
      return "response";
  }
  return "?";
}

std::string_view resource_type(api::Kind kind) {
  HASIM_ASSERT(is_delivered_kind(kind));
  if (kind == api::Kind::pod) return "pod";
  return kind == api::Kind::config_map ? "configmap" : "secret";
}

std::optional<api::Kind> resource_kind(std::string_view type) {
  if (type == "pod") return api::Kind::pod;
  if (type == "configmap") return api::Kind::config_map;
  if (type == "secret") return api::Kind::secret;
  return std::nullopt;
}

bool is_delivered_kind(api::Kind kind) {
  return kind == api::Kind::pod || kind == api::Kind::config_map || kind == api::Kind::secret;
}

std::string object_sync_name(std::string_view node, std::string_view uid) {
  HASIM_ASSERT(!node.empty() && !uid.empty() && uid.find('.') == std::string_view::npos);
  return std::string(node) + "." + std::string(uid);
}

// A node name may hold dots, a UID none: the node is what precedes the last one
// (synccontroller.go getNodeName).
std::string_view object_sync_node(const api::Object& sync) {
  HASIM_ASSERT(sync.key.kind == api::Kind::object_sync);
  const std::string_view name = sync.key.name;
  const auto dot = name.rfind('.');
  HASIM_ASSERT(dot != std::string_view::npos && dot > 0);
  return name.substr(0, dot);
}

std::string_view object_sync_uid(const api::Object& sync) {
  return std::string_view(sync.key.name).substr(object_sync_node(sync).size() + 1);
}

api::ObjectKey object_sync_target(const api::Object& sync) {
  HASIM_ASSERT(sync.key.kind == api::Kind::object_sync);
  const auto kind = resource_kind(sync.object_sync.objectKind);
  HASIM_ASSERT(kind.has_value());
  return api::ObjectKey{*kind, sync.key.namespace_, sync.object_sync.objectName};
}

api::Object make_object_sync(std::string_view node, const api::Object& object) {
  HASIM_ASSERT(is_delivered_kind(object.key.kind));
  api::Object sync;
  sync.key = api::ObjectKey{api::Kind::object_sync, object.key.namespace_,
                            object_sync_name(node, object.uid)};
  sync.object_sync.objectKind = std::string(resource_type(object.key.kind));
  sync.object_sync.objectName = object.key.name;
  return sync;
}

bool should_enqueue(Operation operation, std::uint64_t resource_version,
                    const api::Object* object_sync) {
  if (operation == Operation::delete_ || operation == Operation::response) return true;
  if (object_sync == nullptr) return true;
  const auto& acked = object_sync->object_sync.objectResourceVersion;
  return !acked.has_value() || resource_version > *acked;
}

SyncAction compare_object_sync(const api::Object& object_sync, const api::Object* object) {
  HASIM_ASSERT(object_sync.key.kind == api::Kind::object_sync);
  // An object of the same name but another UID is another object: the old one is gone.
  const bool gone = object == nullptr || object_sync_uid(object_sync) != object->uid;
  if (gone) return SyncAction::delete_;
  const auto& acked = object_sync.object_sync.objectResourceVersion;
  // "objectResourceVersion is empty": logged and skipped.
  if (!acked.has_value()) return SyncAction::skip_empty_status;
  return object->resourceVersion > *acked ? SyncAction::update : SyncAction::none;
}

EdgeApply decide_edge_apply(Operation operation, const api::Object& object,
                            const std::optional<StoredVersion>& stored) {
  if (operation == Operation::delete_) {
    if (!stored.has_value()) return EdgeApply::absent;
    // Another UID: the name now belongs to another incarnation, which this delete is not for.
    return stored->uid != object.uid ? EdgeApply::stale : EdgeApply::remove;
  }
  const std::uint64_t rv = object.resourceVersion;
  if (!stored.has_value() || rv > stored->resource_version) return EdgeApply::store;
  return rv == stored->resource_version ? EdgeApply::duplicate : EdgeApply::stale;
}

std::string_view to_string(EdgeApply apply) {
  switch (apply) {
    case EdgeApply::store:
      return "store";
    case EdgeApply::duplicate:
      return "duplicate";
    case EdgeApply::stale:
      return "stale";
    case EdgeApply::remove:
      return "remove";
    case EdgeApply::absent:
      return "absent";
  }
  return "?";
}

}  // namespace hasim::cloudcore
