#pragma once
// API objects as kube-apiserver keeps them in etcd: under the storage prefix "/registry",
// one key per object (k8s.io/apiserver/pkg/registry/generic/registry/store.go
// NamespaceKeyFunc / NoNamespaceKeyFunc: <prefix>/<resource>/<namespace>/<name>, or
// <prefix>/<resource>/<name> for cluster-scoped kinds), the value the object's encoding.
// Upstream encodes protobuf with a "k8s\0" magic prefix; hasim's encoding is its own, but
// deterministic and as long as the fields it carries, so that the database size and the
// quota grow with what is written. resourceVersion is not encoded: it is the key's
// mod_revision, which the reader sets (etcd3/store.go decode -> versioner.UpdateObject).
#include <optional>
#include <string>
#include <string_view>

#include "models/apiserver/object.hpp"

namespace hasim::api {

inline constexpr std::string_view kRegistryPrefix = "/registry/";

// "/registry/leases/kube-system/kube-scheduler", "/registry/minions/edge-1", ...
std::string etcd_key(const ObjectKey& key);
// The prefix a list of `kind` in `namespace_` ranges over ("" namespace: every namespace),
// ending in "/": "/registry/leases/kube-system/", "/registry/leases/".
std::string etcd_prefix(Kind kind, const std::string& namespace_);
// The inverse of etcd_key; nullopt for a key no kind maps to.
std::optional<ObjectKey> parse_etcd_key(std::string_view key);

// Every field of `object` but resourceVersion, in a deterministic byte string.
std::string encode_object(const Object& object);
// The inverse of encode_object (resourceVersion 0); nullopt for bytes it did not write.
std::optional<Object> decode_object(std::string_view bytes);

}  // namespace hasim::api
