// "nodes" and the node references of the rest of the file; clocks and their rates.
#include <algorithm>
#include <cmath>
#include <map>

#include "scenarios/loader_internal.hpp"
#include "sim/clock.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim::scenario_loader {
namespace {

// Room for KubeEdge's 1,000 edge nodes beside the control plane and CloudCore hosts.
constexpr std::int64_t kMaxNodes = 2000;

ClockSpec read_clock(JsonReader& r, const Json& value, const std::string& path) {
  ClockSpec clock;
  if (!r.object(value, path, keys("clock"), "a node's clock")) return clock;
  if (const Json* v = JsonReader::field(value, "offset")) {
    if (auto d = r.duration(*v, JsonReader::key_path(path, "offset"), DurationSign::any)) {
      clock.offset = *d;
    }
  }
  bool given = false;
  if (auto rate = read_rate(r, value, path, given)) clock.rate_ppb = *rate;
  return clock;
}

// "8Gi", "500Mi", "100G", or a whole number of bytes: Kubernetes' quantity suffixes.
std::optional<std::uint64_t> read_capacity(JsonReader& r, const Json& value,
                                           const std::string& path) {
  static const std::vector<std::pair<std::string, std::uint64_t>> suffixes{
      {"Ki", 1ULL << 10}, {"Mi", 1ULL << 20}, {"Gi", 1ULL << 30}, {"Ti", 1ULL << 40},
      {"k", 1000ULL},     {"M", 1000'000ULL}, {"G", 1000'000'000ULL}, {"T", 1000'000'000'000ULL}};
  const std::string example = "e.g. \"8Gi\", \"500Mi\" or 1048576 (bytes)";
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > 0) {
    return value.get<std::uint64_t>();
  }
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  std::size_t digits = 0;
  std::uint64_t number = 0;
  while (digits < text.size() && digits < 7 && text[digits] >= '0' && text[digits] <= '9') {
    number = number * 10 + static_cast<std::uint64_t>(text[digits++] - '0');
  }
  for (const auto& [suffix, unit] : suffixes) {
    if (digits > 0 && number > 0 && text.substr(digits) == suffix) return number * unit;
  }
  r.error(path, "expected a positive capacity, " + example + ", found " +
                    JsonReader::describe(value));
  return std::nullopt;
}

DiskSpec read_disk(JsonReader& r, const Json& value, const std::string& path) {
  DiskSpec disk;
  if (!r.object(value, path, keys("disk"), "a disk")) return disk;
  if (const Json* name = r.required(value, path, "name", "\"ssd\"")) {
    const std::string at = JsonReader::key_path(path, "name");
    if (auto s = r.string(*name, at)) {
      check_name(r, *s, at, "a disk name");
      disk.name = *s;
    }
  }
  const std::pair<const char*, DurationDistribution*> latencies[] = {
      {"writeLatency", &disk.params.write_latency}, {"fsyncLatency", &disk.params.fsync_latency}};
  for (const auto& [key, target] : latencies) {
    if (const Json* v = JsonReader::field(value, key)) {
      if (auto d = r.distribution(*v, JsonReader::key_path(path, key))) *target = *d;
    }
  }
  if (const Json* v = JsonReader::field(value, "capacity")) {
    if (auto bytes = read_capacity(r, *v, JsonReader::key_path(path, "capacity"))) {
      disk.params.capacity_bytes = *bytes;
    }
  }
  return disk;
}

std::vector<DiskSpec> read_disks(JsonReader& r, const Json& value, const std::string& path) {
  std::vector<DiskSpec> disks;
  if (!r.array(value, path, "[{\"name\": \"ssd\", \"fsyncLatency\": \"2ms\"}]")) return disks;
  if (value.empty() || value.size() > 16) {
    r.error(path, "expected 1 to 16 disks, found " + std::to_string(value.size()) +
                      "; leave \"disks\" out for one default disk named \"disk\"");
    return disks;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = JsonReader::index_path(path, i);
    DiskSpec disk = read_disk(r, value[i], at);
    for (const DiskSpec& earlier : disks) {
      if (!disk.name.empty() && earlier.name == disk.name) {
        r.error(JsonReader::key_path(at, "name"),
                "disk name \"" + disk.name + "\" is already used on this node; disk names "
                "must be unique per node");
      }
    }
    disks.push_back(std::move(disk));
  }
  return disks;
}

}  // namespace

void check_name(JsonReader& r, const std::string& name, const std::string& path,
                std::string_view what) {
  if (name.empty()) {
    r.error(path, std::string(what) + " must not be empty; use e.g. \"demo-1\"");
  } else if (!is_valid_name(name)) {
    r.error(path, std::string(what) + " \"" + name +
                      "\" may contain only letters, digits, '.', '_' and '-'; use e.g. \"" +
                      "demo-1\"");
  }
}

void read_nodes(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  const std::size_t before = r.error_count();
  std::vector<NodeSpec>& nodes = c.scenario.nodes;
  if (value.is_number()) {
    if (auto n = r.integer(value, path, 1, kMaxNodes)) {
      for (std::int64_t i = 1; i <= *n; ++i) nodes.push_back({"n" + std::to_string(i), "", {}, {}});
    }
  } else if (!value.is_array()) {
    r.error(path,
            "expected a node count such as 3 or an array of nodes such as "
            "[{\"name\": \"n1\", \"zone\": \"a\"}], found " +
                JsonReader::describe(value));
  } else if (value.empty() || value.size() > static_cast<std::size_t>(kMaxNodes)) {
    r.error(path, "expected 1 to 2000 nodes, found " + std::to_string(value.size()) +
                      "; list at least one node, e.g. [{\"name\": \"n1\"}]");
  } else {
    std::map<std::string, std::size_t, std::less<>> first_use;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string at = JsonReader::index_path(path, i);
      if (!r.object(value[i], at, keys("node"), "a node")) continue;
      NodeSpec node;
      if (const Json* name = r.required(value[i], at, "name", "\"n1\"")) {
        const std::string name_path = JsonReader::key_path(at, "name");
        if (auto s = r.string(*name, name_path)) {
          check_name(r, *s, name_path, "a node name");
          const auto [it, fresh] = first_use.emplace(*s, i);
          if (!fresh) {
            r.error(name_path, "node name \"" + *s + "\" is already used by " +
                                   JsonReader::index_path(path, it->second) +
                                   "; node names must be unique");
          }
          node.name = *s;
        }
      }
      if (const Json* zone = JsonReader::field(value[i], "zone")) {
        if (auto s = r.string(*zone, JsonReader::key_path(at, "zone"))) node.zone = *s;
      }
      if (const Json* clock = JsonReader::field(value[i], "clock")) {
        node.clock = read_clock(r, *clock, JsonReader::key_path(at, "clock"));
      }
      if (const Json* disks = JsonReader::field(value[i], "disks")) {
        node.disks = read_disks(r, *disks, JsonReader::key_path(at, "disks"));
      }
      nodes.push_back(std::move(node));
    }
  }
  c.nodes.known = r.error_count() == before && !nodes.empty();
  for (const NodeSpec& node : nodes) {
    c.nodes.names.push_back(node.name);
    c.nodes.zone_of.emplace(node.name, node.zone);
    std::vector<std::string>& disks = c.nodes.disks_of[node.name];
    for (const DiskSpec& disk : node_disks(node)) disks.push_back(disk.name);
  }
}

bool check_disk(Context& c, const std::vector<std::string>& nodes, const std::string& disk,
                const std::string& path) {
  if (!c.nodes.known) return true;
  for (const std::string& node : nodes) {
    const auto it = c.nodes.disks_of.find(node);
    if (it == c.nodes.disks_of.end()) continue;  // an unknown node is reported elsewhere
    const std::vector<std::string>& disks = it->second;
    if (std::find(disks.begin(), disks.end(), disk) != disks.end()) continue;
    c.reader.error(path, "node \"" + node + "\" has no disk \"" + disk + "\"" +
                             did_you_mean(disk, disks) + "; its disks are " +
                             join_quoted(disks, " and ") +
                             " (a node without \"disks\" has one disk named \"disk\")");
    return false;
  }
  return true;
}

bool is_valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (const char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

bool check_node(Context& c, const std::string& name, const std::string& path) {
  if (!c.nodes.known || c.nodes.zone_of.count(name) > 0) return true;
  const std::vector<std::string>& names = c.nodes.names;
  std::string known;
  for (std::size_t i = 0; i < names.size() && i < 10; ++i) known += (i ? ", " : "") + names[i];
  if (names.size() > 10) known += ", ... (" + std::to_string(names.size()) + " in all)";
  c.reader.error(path, "unknown node \"" + name + "\"" + did_you_mean(name, names) +
                           "; the nodes are " + known);
  return false;
}

std::optional<std::vector<std::string>> read_node_list(Context& c, const Json& value,
                                                       const std::string& path) {
  auto list = c.reader.string_list(value, path, "node names");
  if (!list) return std::nullopt;
  bool ok = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    ok = check_node(c, (*list)[i], JsonReader::index_path(path, i)) && ok;
  }
  if (!ok) return std::nullopt;
  return list;
}

std::optional<std::int64_t> read_rate(JsonReader& r, const Json& object, const std::string& path,
                                      bool& given) {
  const Json* drift = JsonReader::field(object, "drift");
  const Json* rate = JsonReader::field(object, "rate");
  given = drift != nullptr || rate != nullptr;
  if (drift != nullptr && rate != nullptr) {
    r.error(JsonReader::key_path(path, "rate"),
            "give either \"drift\" or \"rate\", not both: they are two ways to say how fast the "
            "clock runs; e.g. \"drift\": \"+50ppm\" is \"rate\": 1.00005");
    return std::nullopt;
  }
  if (drift != nullptr) {
    const std::string at = JsonReader::key_path(path, "drift");
    const std::string text = drift->is_string() ? drift->get<std::string>() : "";
    std::size_t pos = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
    const std::size_t digits_start = pos;
    std::int64_t ppm = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - digits_start < 7) {
      ppm = ppm * 10 + (text[pos++] - '0');
    }
    if (pos == digits_start || text.substr(pos) != "ppm" || ppm >= 1'000'000) {
      r.error(at,
              "expected a drift such as \"+50ppm\" or \"-20ppm\" (whole parts per million, "
              "less than 1000000 either way), found " +
                  JsonReader::describe(*drift));
      return std::nullopt;
    }
    return rate_from_ppm(text[0] == '-' ? -ppm : ppm);
  }
  if (rate != nullptr) {
    const std::string at = JsonReader::key_path(path, "rate");
    const auto value = r.number(*rate, at);
    if (!value) return std::nullopt;
    const std::int64_t ppb = *value > 0.0 && *value <= 1000.0 ? std::llround(*value * 1e9) : 0;
    if (ppb <= 0) {
      r.error(at,
              "expected a rate above 0 and at most 1000 (local seconds per true second, "
              "e.g. 1.00005 or 2.5), found " +
                  JsonReader::describe(*rate));
      return std::nullopt;
    }
    return ppb;
  }
  return std::nullopt;
}

bool read_duration_field(JsonReader& r, const Json& object, const std::string& path,
                         std::string_view key, DurationSign sign, Duration& target) {
  const Json* v = JsonReader::field(object, key);
  if (v == nullptr) return true;
  const auto d = r.duration(*v, JsonReader::key_path(path, key), sign);
  if (d) target = *d;
  return d.has_value();
}

bool read_bool_field(JsonReader& r, const Json& object, const std::string& path,
                     std::string_view key, bool& target) {
  const Json* v = JsonReader::field(object, key);
  if (v == nullptr) return true;
  const auto b = r.boolean(*v, JsonReader::key_path(path, key));
  if (b) target = *b;
  return b.has_value();
}

}  // namespace hasim::scenario_loader
