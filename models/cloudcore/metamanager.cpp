#include "models/cloudcore/metamanager.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {
namespace {

// Records are lines: "meta", kind, namespace, name as the key; resourceVersion, UID and one
// "kind/name" per reference as the value. Generated names hold no newline.
constexpr std::string_view kPrefix = "meta\n";

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::size_t stop = end == std::string_view::npos ? text.size() : end;
    out.emplace_back(text.substr(start, stop - start));
    start = stop + 1;
  }
  return out;
}

}  // namespace

MetaManager::MetaManager(DurableStore& store) : store_(store) {
  for (auto it = store_.entries.lower_bound(std::string(kPrefix));
       it != store_.entries.end() && it->first.starts_with(kPrefix); ++it) {
    const auto key = lines(it->first);
    const auto value = lines(it->second);
    HASIM_ASSERT(key.size() == 4 && value.size() >= 2);
    const api::ObjectKey object{static_cast<api::Kind>(std::stoi(key[1])), key[2], key[3]};
    Entry entry{StoredVersion{std::stoull(value[0]), value[1]}, {}};
    for (std::size_t i = 2; i < value.size(); ++i) {
      const auto slash = value[i].find('/');
      entry.references.push_back(api::ObjectKey{
          static_cast<api::Kind>(std::stoi(value[i].substr(0, slash))), object.namespace_,
          value[i].substr(slash + 1)});
    }
    objects_.emplace(object, std::move(entry));
  }
  recompute_missing();
}

std::string MetaManager::record_key(const api::ObjectKey& key) {
  return std::string(kPrefix) + std::to_string(static_cast<int>(key.kind)) + "\n" +
         key.namespace_ + "\n" + key.name;
}

void MetaManager::persist(const api::ObjectKey& key, const Entry& entry) {
  std::string value = std::to_string(entry.version.resource_version) + "\n" + entry.version.uid;
  for (const api::ObjectKey& ref : entry.references) {
    value += "\n" + std::to_string(static_cast<int>(ref.kind)) + "/" + ref.name;
  }
  store_.entries[record_key(key)] = std::move(value);
}

EdgeApply MetaManager::apply(Env& env, const ResourceMessage& message) {
  HASIM_ASSERT(message.object != nullptr && is_delivered_kind(message.object->key.kind));
  const api::Object& object = *message.object;
  const auto it = objects_.find(object.key);
  const std::optional<StoredVersion> stored =
      it == objects_.end() ? std::nullopt : std::optional{it->second.version};
  const EdgeApply result = decide_edge_apply(message.operation, object, stored);
  if (result == EdgeApply::store) {
    Entry entry{StoredVersion{object.resourceVersion, object.uid}, {}};
    for (const std::string& name : object.pod_spec.configMaps) {
      entry.references.push_back(api::ObjectKey{api::Kind::config_map, object.key.namespace_, name});
    }
    for (const std::string& name : object.pod_spec.secrets) {
      entry.references.push_back(api::ObjectKey{api::Kind::secret, object.key.namespace_, name});
    }
    persist(object.key, entry);
    const bool new_pod = object.key.kind == api::Kind::pod && it == objects_.end();
    objects_.insert_or_assign(object.key, std::move(entry));
    // Only a pod's references can add to what is missing; anything stored can remove from it.
    if (object.key.kind == api::Kind::pod && !new_pod) {
      recompute_missing();  // its references may have changed
    } else {
      missing_.erase(object.key);
      for (const api::ObjectKey& ref : objects_.at(object.key).references) {
        if (!objects_.contains(ref)) missing_.insert(ref);
      }
    }
  } else if (result == EdgeApply::remove) {
    store_.entries.erase(record_key(object.key));
    objects_.erase(it);
    recompute_missing();
  }
  env.trace(trace_kind::kEdgeStoreApply,
            {{"object", api::describe(object.key)},
             {"operation", std::string(to_string(message.operation))},
             {"rv", static_cast<std::int64_t>(object.resourceVersion)},
             {"result", std::string(to_string(result))}});
  return result;
}

void MetaManager::recompute_missing() {
  missing_.clear();
  for (const auto& [key, entry] : objects_) {
    for (const api::ObjectKey& ref : entry.references) {
      if (!objects_.contains(ref)) missing_.insert(ref);
    }
  }
}

}  // namespace hasim::cloudcore
