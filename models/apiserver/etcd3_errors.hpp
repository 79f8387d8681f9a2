#pragma once
// How kube-apiserver's etcd client and storage layer classify the errors etcd answers with.
//  - gRPC codes of etcd's error texts: etcd api/v3rpc/rpctypes/error.go (ErrGRPC*).
//  - Which failed calls clientv3 retries: etcd client/v3/retry_interceptor.go (isSafeRetry,
//    isSafeRetryImmutableRPC, isSafeRetryMutableRPC) and client/v3/retry.go (Range is
//    repeatable; Put, DeleteRange, Txn and Compact are not).
//  - Storage errors: kubernetes staging/src/k8s.io/apiserver/pkg/storage/errors.go (the
//    ErrCode* codes), storage/etcd3/errors.go (interpretListError / interpretWatchError),
//    and the API status each becomes (apiserver pkg/storage/errors/storage.go Interpret*,
//    apimachinery api/errors).
#include <cstdint>
#include <string_view>

#include "models/apiserver/object.hpp"

namespace hasim::api {

// The gRPC status code a clientv3 call fails with, from the text the member answered.
enum class GrpcCode : std::uint8_t {
  ok,
  unavailable,          // no leader, leader changed, request timed out, stopped, unhealthy
  resource_exhausted,   // too many requests, database space exceeded
  out_of_range,         // required revision compacted / future revision
  failed_precondition,  // anything else etcd's server refuses with (not retried)
  invalid_argument,     // duplicate key, too many ops, empty key
  deadline_exceeded,    // the caller's context ended (the request deadline)
  unknown,              // texts passed through unmapped (raft proposal dropped)
};
std::string_view to_string(GrpcCode code);
GrpcCode grpc_code_of(std::string_view etcd_error);

// What a call fails with when its connection fails rather than the member answering: one
// sent over a connection that then closed may have reached the member (grpc-go
// ErrConnClosing); one the client could not send at all never did, and is the only failed
// write retry_interceptor.go isSafeRetryMutableRPC retries.
inline constexpr std::string_view kTransportClosing = "transport is closing";
inline constexpr std::string_view kNoConnection = "there is no connection available";

// Whether a write that failed with `etcd_error` may still have been (or be) applied: the
// member proposed it and lost track (a timeout, a leader change, a connection lost after it
// was sent), rather than refusing it before proposing (no leader, too many requests, no
// space, invalid, a dropped proposal, no connection). The history records the former as an
// unknown outcome, the latter as failed.
bool write_may_have_applied(std::string_view etcd_error);

// retry_interceptor.go isSafeRetry: an immutable RPC (Range) is retried on any Unavailable
// answer; a mutable one only when it surely never left the client ("there is no address
// available" / "no connection available"), which a reply from a member never is.
bool safe_to_retry(bool mutable_rpc, GrpcCode code);
bool safe_to_retry(bool mutable_rpc, GrpcCode code, std::string_view etcd_error);

// The storage layer's outcome of one operation (storage/errors.go ErrCode* and the errors
// store.go passes through from etcd unchanged).
enum class StorageError : std::uint8_t {
  none,
  key_not_found,      // ErrCodeKeyNotFound -> 404 NotFound
  key_exists,         // ErrCodeKeyExists (Create's compare failed) -> 409 AlreadyExists
  conflict,           // ErrCodeResourceVersionConflicts / a stale precondition -> 409 Conflict
  resource_expired,   // etcd ErrCompacted -> 410 Gone "too old resource version" (errors.go)
  rv_too_large,       // etcd ErrFutureRev -> ErrCodeResourceVersionTooLarge -> 504 Timeout
  timeout,            // "etcdserver: request timed out", or the request deadline passed
  unavailable,        // no leader, leader changed, every endpoint refused
  too_many_requests,  // "etcdserver: too many requests"
  internal,           // any other etcd error
};
std::string_view to_string(StorageError error);
StorageError storage_error_of(GrpcCode code, std::string_view etcd_error);

// The API status the client of kube-apiserver sees. Upstream, errors store.go passes through
// unchanged (timeouts, no leader, too many requests) reach ErrorToAPIStatus
// (apiserver pkg/endpoints/handlers/responsewriters/status.go) as code 500 with no reason
// and etcd's text as the message ("Error from server: etcdserver: request timed out");
// hasim's Status has no 500, so they map to the nearest retriable status (504 / 503).
Status api_status(StorageError error);

}  // namespace hasim::api
