#include "models/apiserver/etcd3_errors.hpp"

#include "models/etcd/kv_api.hpp"
#include "models/etcd/mvcc/rpc.hpp"
#include "sim/assert.hpp"

namespace hasim::api {

std::string_view to_string(GrpcCode code) {
  switch (code) {
    case GrpcCode::ok:
      return "OK";
    case GrpcCode::unavailable:
      return "Unavailable";
    case GrpcCode::resource_exhausted:
      return "ResourceExhausted";
    case GrpcCode::out_of_range:
      return "OutOfRange";
    case GrpcCode::failed_precondition:
      return "FailedPrecondition";
    case GrpcCode::invalid_argument:
      return "InvalidArgument";
    case GrpcCode::deadline_exceeded:
      return "DeadlineExceeded";
    case GrpcCode::unknown:
      return "Unknown";
  }
  HASIM_ASSERT(false);
  return "";
}

// rpctypes/error.go: each ErrGRPC* error's code. The texts come from hasim's member
// (models/etcd/kv_api.hpp kv_error, mvcc/rpc.hpp grpc_error_text).
GrpcCode grpc_code_of(std::string_view e) {
  using etcd::mvcc::grpc_error_text;
  using etcd::mvcc::ServerError;
  namespace kv = etcd::kv_error;
  if (e.empty()) return GrpcCode::ok;
  if (e == kv::kTimeout || e == kv::kTimeoutLeaderFail || e == kv::kLeaderChanged ||
      e == kv::kNoLeader || e == kTransportClosing || e == kNoConnection) {
    return GrpcCode::unavailable;
  }
  if (e == kv::kTooManyRequests || e == grpc_error_text(ServerError::no_space)) {
    return GrpcCode::resource_exhausted;
  }
  if (e == grpc_error_text(ServerError::compacted) ||
      e == grpc_error_text(ServerError::future_rev)) {
    return GrpcCode::out_of_range;
  }
  if (e == grpc_error_text(ServerError::duplicate_key) ||
      e == grpc_error_text(ServerError::too_many_ops) ||
      e == grpc_error_text(ServerError::empty_key)) {
    return GrpcCode::invalid_argument;
  }
  if (e == kv::kProposalDropped) return GrpcCode::unknown;  // not an rpctypes error
  return GrpcCode::failed_precondition;
}

bool write_may_have_applied(std::string_view e) {
  namespace kv = etcd::kv_error;
  // Refused before a proposal existed (v3rpc interceptors, quota.go, v3_server.go
  // processInternalRaftRequestOnce, raft's ErrProposalDropped) or never sent; anything else,
  // an unrecognised text included, may have been applied.
  if (e == kv::kNoLeader || e == kv::kTooManyRequests || e == kv::kProposalDropped ||
      e == kNoConnection) {
    return false;
  }
  const GrpcCode code = grpc_code_of(e);
  return code != GrpcCode::resource_exhausted && code != GrpcCode::invalid_argument &&
         code != GrpcCode::out_of_range;
}

bool safe_to_retry(bool mutable_rpc, GrpcCode code, std::string_view etcd_error) {
  if (mutable_rpc && code == GrpcCode::unavailable && etcd_error == kNoConnection) return true;
  return safe_to_retry(mutable_rpc, code);
}

bool safe_to_retry(bool mutable_rpc, GrpcCode code) {
  if (code == GrpcCode::deadline_exceeded) return false;  // isContextError: never retried
  if (mutable_rpc) return false;  // a member answered, so the request may have been applied
  return code == GrpcCode::unavailable;
}

std::string_view to_string(StorageError error) {
  switch (error) {
    case StorageError::none:
      return "ok";
    case StorageError::key_not_found:
      return "key-not-found";
    case StorageError::key_exists:
      return "key-exists";
    case StorageError::conflict:
      return "conflict";
    case StorageError::resource_expired:
      return "resource-expired";
    case StorageError::rv_too_large:
      return "resource-version-too-large";
    case StorageError::timeout:
      return "timeout";
    case StorageError::unavailable:
      return "unavailable";
    case StorageError::too_many_requests:
      return "too-many-requests";
    case StorageError::internal:
      return "internal";
  }
  HASIM_ASSERT(false);
  return "";
}

StorageError storage_error_of(GrpcCode code, std::string_view e) {
  using etcd::mvcc::grpc_error_text;
  using etcd::mvcc::ServerError;
  namespace kv = etcd::kv_error;
  if (code == GrpcCode::ok) return StorageError::none;
  if (code == GrpcCode::deadline_exceeded) return StorageError::timeout;
  if (e == kv::kTimeout || e == kv::kTimeoutLeaderFail) return StorageError::timeout;
  if (code == GrpcCode::unavailable) return StorageError::unavailable;
  if (e == kv::kTooManyRequests) return StorageError::too_many_requests;
  if (e == grpc_error_text(ServerError::compacted)) return StorageError::resource_expired;
  if (e == grpc_error_text(ServerError::future_rev)) return StorageError::rv_too_large;
  return StorageError::internal;
}

Status api_status(StorageError error) {
  switch (error) {
    case StorageError::none:
      return Status::ok;
    case StorageError::key_not_found:
      return Status::not_found;
    case StorageError::key_exists:
      return Status::already_exists;
    case StorageError::conflict:
      return Status::conflict;
    case StorageError::resource_expired:
      return Status::gone;
    case StorageError::rv_too_large:
      return Status::timeout;
    case StorageError::timeout:
      return Status::timeout;
    case StorageError::unavailable:
    case StorageError::too_many_requests:
    case StorageError::internal:
      return Status::unavailable;
  }
  HASIM_ASSERT(false);
  return Status::unavailable;
}

}  // namespace hasim::api
