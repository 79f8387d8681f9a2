#pragma once
// InternalRaftRequest as raft entry data (etcd marshals the protobuf into Entry.Data:
// server/etcdserver/v3_server.go processInternalRaftRequestOnce; the apply loop unmarshals
// it). hasim's encoding is its own: deterministic, compact, and shaped like the message.
//
// Layout: the tag byte 'K' (so an entry of another kind is told apart), then fields in
// declaration order: integers as 8 bytes big-endian (two's complement for int64), enums and
// booleans as one byte, strings as a 4-byte big-endian length and the bytes, lists as a
// 4-byte count and the items. Only the member of the request's type is written. A nested
// txn is written in place, at most kMaxTxnDepth deep. Decoding refuses short, long or
// malformed data (an unknown enum value, a nested txn too deep) as a whole.
#include <optional>
#include <string>
#include <string_view>

#include "models/etcd/mvcc/rpc.hpp"

namespace hasim::etcd::mvcc {

inline constexpr char kRequestTag = 'K';

std::string encode_request(const InternalRaftRequest& request);
std::optional<InternalRaftRequest> decode_request(std::string_view data);

}  // namespace hasim::etcd::mvcc
