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
