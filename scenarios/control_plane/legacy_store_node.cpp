// Old scenario files keep loading after issue 11 part 5 renamed the ideal store's node from
// "etcd" to "store" (real etcd members take the name "etcd" later). The rule: in a file with
// a "controlPlane", every node reference that says "etcd" means the store's node and is read
// as "store", with a note at its JSON path asking to rename it. Today's semantics are kept:
// a declared "etcd" node is the store (its zone and clock stay), a link or fault naming it
// hits the store, and "etcd" in controlPlane.nodes is refused as "store" would be. A file
// that also declares a node "store" has two names for one store and is refused.
//
// The references are the node names of the format as it was at the rename (a key added later
// cannot be in an old file): "nodes[].name", links' "from" and "to", "controlPlane.nodes",
// "upgrade.order", and the faults' "node", "nodes", "isolate", "groups", "from", "to" and the
// node of "process" ("etcd/kube-apiserver"). The parsed file is rewritten before anything
// reads it, so every reader and error message sees "store". (A replay file embeds the file as
// written and is read by this rule again when replayed.)
//
// A replay file of format 1 is not migrated: its trace hash was recorded with the store on
// "etcd", so it loads with the store there (LoadOptions::legacy_store_node).
#include <initializer_list>
#include <string>
#include <vector>

#include "scenarios/control_plane/control_plane.hpp"

namespace hasim::scenario_loader {
namespace {

// A node reference in the file: its JSON path and the string that holds it ("NODE", or
// "NODE/PROCESS" for a fault's "process"), and whether it declares the node or names it.
enum class Reference { declaration, name, process };
struct NodeReference {
  std::string path;
  Json* value;
  Reference kind = Reference::name;
};

Json* member(Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  const auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

void add_name(std::vector<NodeReference>& out, Json* value, const std::string& path,
              Reference kind = Reference::name) {
  if (value != nullptr && value->is_string()) out.push_back({path, value, kind});
}

// Every string of an array of node names (of arrays of them, when `depth` is 2).
void add_list(std::vector<NodeReference>& out, Json* value, const std::string& path,
              int depth = 1) {
  if (value == nullptr || !value->is_array()) return;
  for (std::size_t i = 0; i < value->size(); ++i) {
    const std::string at = JsonReader::index_path(path, i);
    if (depth > 1) {
      add_list(out, &(*value)[i], at, depth - 1);
    } else {
      add_name(out, &(*value)[i], at);
    }
  }
}

// `keys` of each object in the array `array` (at `path`), e.g. every node's "name".
void add_each(std::vector<NodeReference>& out, Json* array, const std::string& path,
              std::initializer_list<const char*> keys, Reference kind = Reference::name) {
  if (array == nullptr || !array->is_array()) return;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string at = JsonReader::index_path(path, i);
    for (const char* key : keys) {
      add_name(out, member(&(*array)[i], key), JsonReader::key_path(at, key), kind);
    }
  }
}

void add_fault_references(std::vector<NodeReference>& out, Json* fault, const std::string& at) {
  add_name(out, member(fault, "node"), JsonReader::key_path(at, "node"));
  add_name(out, member(fault, "process"), JsonReader::key_path(at, "process"), Reference::process);
  for (const char* key : {"nodes", "isolate", "from", "to"}) {
    add_list(out, member(fault, key), JsonReader::key_path(at, key));
  }
  add_list(out, member(fault, "groups"), JsonReader::key_path(at, "groups"), 2);
}

// Every place the file names a node, in file order, whatever it names.
std::vector<NodeReference> node_references(Json& doc) {
  std::vector<NodeReference> out;
  add_each(out, member(&doc, "nodes"), "$.nodes", {"name"}, Reference::declaration);
  add_each(out, member(member(&doc, "network"), "links"), "$.network.links", {"from", "to"});
  add_list(out, member(member(&doc, "controlPlane"), "nodes"), "$.controlPlane.nodes");
  add_list(out, member(member(&doc, "upgrade"), "order"), "$.upgrade.order");
  if (Json* faults = member(&doc, "faults"); faults != nullptr && faults->is_array()) {
    for (std::size_t i = 0; i < faults->size(); ++i) {
      add_fault_references(out, &(*faults)[i], JsonReader::index_path("$.faults", i));
    }
  }
  return out;
}

// The node a reference names: the whole string, or the part before '/' of a "process".
std::string node_of(const NodeReference& ref) {
  const std::string& text = ref.value->get_ref<const std::string&>();
  return ref.kind == Reference::process ? text.substr(0, text.find('/')) : text;
}

}  // namespace

void read_legacy_store_node(Context& c, Json& doc) {
  if (c.options.legacy_store_node) return;  // a replay of format 1: "etcd" is the store, as then
  const std::string old_name(kLegacyStoreNode);
  std::vector<NodeReference> old;
  std::string declared_store;  // the path of a node declared "store", if any
  for (const NodeReference& ref : node_references(doc)) {
    const std::string node = node_of(ref);
    if (node == old_name) old.push_back(ref);
    if (node == kStoreNode && ref.kind == Reference::declaration && declared_store.empty())
      declared_store = ref.path;
  }
  if (old.empty()) return;
  if (!declared_store.empty()) {
    c.reader.error(old.front().path,
                   "\"etcd\" is the ideal store's old node name, read as \"store\", but " +
                       declared_store +
                       " declares a node \"store\" too, so the file names the one store twice; "
                       "rename \"etcd\" to \"store\" everywhere (keeping one declaration), or "
                       "give the other node another name");
    return;
  }
  for (const NodeReference& ref : old) {
    ref.value->get_ref<std::string&>().replace(0, old_name.size(), kStoreNode);
    c.reader.note(ref.path,
                  "\"etcd\" is the ideal store's old node name, read as \"store\"; rename it "
                  "to \"store\"");
  }
}

}  // namespace hasim::scenario_loader
