// "network": default latency, loss and duplication, and per-link overrides.
#include <map>
#include <utility>

#include "scenarios/loader_internal.hpp"

namespace hasim::scenario_loader {
namespace {

using Link = std::pair<std::string, std::string>;

void read_link(Context& c, const Json& value, const std::string& path,
               std::map<Link, std::string>& defined_at) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("link"), "a link")) return;
  const std::size_t before = r.error_count();
  LinkSpec link;
  for (const char* end : {"from", "to"}) {
    const Json* v = r.required(value, path, end, "\"n1\"");
    if (v == nullptr) continue;
    const std::string at = JsonReader::key_path(path, end);
    if (auto name = r.string(*v, at)) {
      check_node(c, *name, at);
      (std::string_view(end) == "from" ? link.from : link.to) = *name;
    }
  }
  if (r.error_count() == before && link.from == link.to) {
    r.error(JsonReader::key_path(path, "to"),
            "a link joins two different nodes, but \"from\" and \"to\" are both \"" + link.from +
                "\"; set \"loopbackLatency\" in \"network\" for messages a node sends itself");
  }
  if (const Json* v = JsonReader::field(value, "latency")) {
    link.latency = r.distribution(*v, JsonReader::key_path(path, "latency"));
  }
  if (const Json* v = JsonReader::field(value, "loss")) {
    link.loss = r.probability(*v, JsonReader::key_path(path, "loss"));
  }
  if (const Json* v = JsonReader::field(value, "duplicate")) {
    link.duplicate = r.probability(*v, JsonReader::key_path(path, "duplicate"));
  }
  bool symmetric = false;
  if (const Json* v = JsonReader::field(value, "symmetric")) {
    symmetric = r.boolean(*v, JsonReader::key_path(path, "symmetric")).value_or(false);
  }
  if (r.error_count() != before) return;

  std::vector<LinkSpec> added{link};
  if (symmetric) {
    LinkSpec reverse = link;
    std::swap(reverse.from, reverse.to);
    added.push_back(std::move(reverse));
  }
  for (LinkSpec& spec : added) {
    const auto [it, fresh] = defined_at.emplace(Link{spec.from, spec.to}, path);
    if (!fresh) {
      r.error(path, "the link from \"" + spec.from + "\" to \"" + spec.to +
                        "\" is already set by " + it->second +
                        "; merge the two entries (\"symmetric\": true covers both directions)");
      return;
    }
  }
  for (LinkSpec& spec : added) c.scenario.network.links.push_back(std::move(spec));
}

}  // namespace

void read_network(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("network"), "the network")) return;
  NetworkSpec& network = c.scenario.network;
  if (const Json* v = JsonReader::field(value, "latency")) {
    if (auto d = r.distribution(*v, JsonReader::key_path(path, "latency"))) network.latency = *d;
  }
  if (const Json* v = JsonReader::field(value, "loopbackLatency")) {
    if (auto d = r.distribution(*v, JsonReader::key_path(path, "loopbackLatency"))) {
      network.loopback_latency = *d;
    }
  }
  if (const Json* v = JsonReader::field(value, "loss")) {
    if (auto p = r.probability(*v, JsonReader::key_path(path, "loss"))) network.loss = *p;
  }
  if (const Json* v = JsonReader::field(value, "duplicate")) {
    if (auto p = r.probability(*v, JsonReader::key_path(path, "duplicate"))) network.duplicate = *p;
  }
  if (const Json* v = JsonReader::field(value, "links")) {
    const std::string at = JsonReader::key_path(path, "links");
    if (!r.array(*v, at, "[{\"from\": \"n1\", \"to\": \"n2\", \"latency\": \"50ms\"}]")) return;
    std::map<Link, std::string> defined_at;
    for (std::size_t i = 0; i < v->size(); ++i) {
      read_link(c, (*v)[i], JsonReader::index_path(at, i), defined_at);
    }
  }
}

}  // namespace hasim::scenario_loader
