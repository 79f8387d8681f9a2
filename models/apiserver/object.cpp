#include "models/apiserver/object.hpp"

namespace hasim::api {

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::lease:
      return "Lease";
    case Kind::endpoints:
      return "Endpoints";
    case Kind::config_map:
      return "ConfigMap";
    case Kind::lease_candidate:
      return "LeaseCandidate";
    case Kind::pod:
      return "Pod";
    case Kind::secret:
      return "Secret";
    case Kind::object_sync:
      return "ObjectSync";
    case Kind::node:
      return "Node";
    case Kind::etcd:
      return "Etcd";
  }
  return "?";
}

std::string describe(const ObjectKey& key) {
  // One allocation: the apiserver describes the object of every write it traces.
  const std::string_view kind = to_string(key.kind);
  std::string out;
  out.reserve(kind.size() + key.namespace_.size() + key.name.size() + 2);
  out.append(kind).append(1, ' ').append(key.namespace_).append(1, '/').append(key.name);
  return out;
}

namespace {
// An empty string or container is left default-constructed rather than copied.
template <typename T>
void copy_set(T& to, const T& from) {
  if (!from.empty()) to = from;
}
}  // namespace

// Every member, as the implicit copy would; the sizes below fail to compile when a member is
// added, so that it is added here too.
Object::Object(const Object& o)
    : key(o.key),
      resourceVersion(o.resourceVersion),
      creationTimestamp(o.creationTimestamp),
      lease(o.lease),
      kubelet_port(o.kubelet_port) {
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8  // the sizes of this toolchain's layout
  static_assert(sizeof(Object) == 840 && sizeof(LeaseCandidateSpec) == 168 &&
                    sizeof(PodReadiness) == 72 && sizeof(PodSpec) == 80 &&
                    sizeof(ObjectSyncSpec) == 80 && sizeof(LeaseSpec) == 168,
                "a member was added: copy it in Object(const Object&)");
#endif
  copy_set(uid, o.uid);
  copy_set(labels, o.labels);
  copy_set(annotations, o.annotations);
  copy_set(data, o.data);
  copy_set(candidate.leaseName, o.candidate.leaseName);
  candidate.pingTime = o.candidate.pingTime;
  candidate.renewTime = o.candidate.renewTime;
  copy_set(candidate.binaryVersion, o.candidate.binaryVersion);
  copy_set(candidate.emulationVersion, o.candidate.emulationVersion);
  copy_set(candidate.strategy, o.candidate.strategy);
  candidate.priority = o.candidate.priority;
  copy_set(pod.readinessGates, o.pod.readinessGates);
  copy_set(pod.conditions, o.pod.conditions);
  copy_set(pod_spec.nodeName, o.pod_spec.nodeName);
  copy_set(pod_spec.configMaps, o.pod_spec.configMaps);
  copy_set(pod_spec.secrets, o.pod_spec.secrets);
  copy_set(object_sync.objectKind, o.object_sync.objectKind);
  copy_set(object_sync.objectName, o.object_sync.objectName);
  object_sync.objectResourceVersion = o.object_sync.objectResourceVersion;
}

namespace {
// Floor division, so times before the epoch truncate the same way as after it.
LocalTime floor_to(LocalTime time, std::int64_t unit_ns) {
  std::int64_t units = time.ns / unit_ns;
  if (time.ns % unit_ns < 0) --units;
  return LocalTime{units * unit_ns};
}
}  // namespace

LocalTime micro_time(LocalTime time) { return floor_to(time, 1'000); }
LocalTime whole_seconds(LocalTime time) { return floor_to(time, 1'000'000'000); }

bool is_success(Status status) { return status == Status::ok || status == Status::created; }

std::string_view to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "200 OK";
    case Status::created:
      return "201 Created";
    case Status::not_found:
      return "404 NotFound";
    case Status::conflict:
      return "409 Conflict";
    case Status::already_exists:
      return "409 AlreadyExists";
    case Status::gone:
      return "410 Gone";
    case Status::unavailable:
      return "503 ServiceUnavailable";
    case Status::connection_reset:
      return "connection reset";
    case Status::timeout:
      return "504 Timeout";
    case Status::client_timeout:
      return "client timeout";
    case Status::context_canceled:
      return "context canceled";
    case Status::not_initialized:
      return "not initialized";
  }
  return "?";
}

}  // namespace hasim::api
