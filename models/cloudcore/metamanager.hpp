#pragma once
// EdgeCore's MetaManager, the part that keeps what the cloud sent (KE@v1.5.0:edge/pkg/
// metamanager/process.go): a resource message is written to the node's local database, then
// answered with a response (the ACK) carrying the cloud message's id. The database is SQLite
// on the node's disk, committed before the ACK: it survives EdgeCore restarts (here the
// process's DurableStore). Each object keeps its resourceVersion and UID, so a stale version
// never replaces a newer one (object_sync.hpp decide_edge_apply). Pods reference ConfigMaps
// and Secrets; one the database lacks is queried from the cloud (edged asks MetaManager,
// which asks the cloud remotely), and asked again at each heartbeat while it is missing, as
// edged's pod worker retries.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/cloudcore/messages.hpp"
#include "models/cloudcore/object_sync.hpp"

namespace hasim::cloudcore {

class MetaManager {
 public:
  // Loads the database the store holds (empty on a fresh node).
  explicit MetaManager(DurableStore& store);
  // Applies a resource message; returns what it did (traced by the caller's Env).
  EdgeApply apply(Env& env, const ResourceMessage& message);
  // The ConfigMaps and Secrets the stored pods reference and the database lacks.
  const std::set<api::ObjectKey>& missing() const { return missing_; }
  std::size_t size() const { return objects_.size(); }

 private:
  struct Entry {
    StoredVersion version;
    std::vector<api::ObjectKey> references;  // a pod's ConfigMaps and Secrets
  };
  static std::string record_key(const api::ObjectKey& key);
  void persist(const api::ObjectKey& key, const Entry& entry);
  void recompute_missing();

  DurableStore& store_;
  std::map<api::ObjectKey, Entry> objects_;
  std::set<api::ObjectKey> missing_;
};

}  // namespace hasim::cloudcore
