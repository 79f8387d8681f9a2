#pragma once
// The KV store's share of a member's raft snapshot. etcd sends the whole bbolt file with a
// snapshot (etcdserver/api/snap, server.go applySnapshot: the receiver opens it as its new
// backend and rebuilds the index from it: mvcc kvstore.go restore). hasim writes the
// backend's records, the revisions, the file size and the NOSPACE alarms, deterministically
// (records in revision order), and rebuilds the tree index from the records as restore does.
//
// Layout: the tag byte 'S', then current revision, compact revision, db size (8 bytes
// big-endian each), the alarmed member count and ids, the record count and each record:
// main, sub, tombstone (1 byte), key, create, mod, version, value, lease (strings as a
// 4-byte length and the bytes).
#include <string>
#include <string_view>

#include "models/etcd/mvcc/apply.hpp"
#include "models/etcd/mvcc/kv_store.hpp"

namespace hasim::etcd {

// A store nobody changed: a snapshot carries none of it.
bool store_empty(const mvcc::KvStore& store, const mvcc::Applier& applier);
std::string encode_store(const mvcc::KvStore& store, const mvcc::Applier& applier);
// Replaces the store and the alarms; false (and nothing changed) if data is malformed.
bool decode_store(std::string_view data, mvcc::KvStore& store, mvcc::Applier& applier);

}  // namespace hasim::etcd
