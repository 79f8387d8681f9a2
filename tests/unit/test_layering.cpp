// The layer order of the source tree, enforced over every `#include "folder/..."`:
//
//   sim <- models <- scenarios <- properties <- systems <- reports <- cli
//
// A folder may include its own layer and lower ones. properties/ sits above scenarios/ (a
// property may read a scenario's types; a scenario never names a property), and systems/ (the
// registry that ties a system's scenario section, build, faults and properties together) sits
// above both. Inside models/ each system's folder may include only the model folders listed in
// kModelDependencies. bench/ and fuzz/ may include anything, their own headers too. A known violation being
// removed would be listed, once, in kKnownExceptions (none today). The folder graph (models/
// split by system) must have no cycle.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Lowest first. A folder that does not exist yet (systems/) is skipped, not an error.
const std::vector<std::string> kLayers{"sim",     "models",  "scenarios", "properties",
                                       "systems", "reports", "cli"};
// Folders outside the order that may include any layer.
const std::vector<std::string> kUnrestricted{"bench", "fuzz"};

// models/X may include models/Y only if (X, Y) is here (or X == Y): what exists today.
const std::set<std::pair<std::string, std::string>> kModelDependencies{
    {"election", "apiserver"},
    {"cluster", "apiserver"},
    {"cluster", "election"},
    {"etcd", "raft"},  // an etcd member is one thin adapter around raft's RawNode
    // kube-apiserver's etcd3 storage layer speaks the members' KV messages (etcd3_store).
    {"apiserver", "etcd"},
    // CloudCore elects with client-go's LeaderElector over the apiserver client, and reuses
    // the components' lock factory and acting-leader trace kinds.
    {"cloudcore", "apiserver"},
    {"cloudcore", "election"},
    {"cloudcore", "cluster"},
    // etcd-druid's pods embed an etcd member (etcd-wrapper) and talk to kube-apiservers (the
    // member Leases).
    {"druid", "etcd"},
    {"druid", "apiserver"},
};

// (file, included path): violations being removed; delete a row when its include goes.
const std::set<std::pair<std::string, std::string>> kKnownExceptions{};

struct Include {
  std::string file;    // relative to the source root, e.g. "models/cluster/component.cpp"
  std::string target;  // e.g. "models/election/leader_elector.hpp"
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every quoted include of a project folder, from every source under `folders`, sorted.
std::vector<Include> includes_under(const std::vector<std::string>& folders) {
  const fs::path root(HASIM_SOURCE_DIR);
  const std::regex include(R"re(#include\s+"([a-z_]+/[^"]+)")re");
  std::set<fs::path> files;  // sorted, so failures are reported in a stable order
  for (const std::string& folder : folders) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const auto ext = entry.path().extension();
      if (ext == ".cpp" || ext == ".hpp" || ext == ".h") files.insert(entry.path());
    }
  }
  std::vector<Include> result;
  for (const fs::path& file : files) {
    const std::string text = read(file);
    const std::string relative = fs::relative(file, root).generic_string();
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      result.push_back(Include{relative, (*it)[1]});
    }
  }
  return result;
}

std::string top_folder(const std::string& path) { return path.substr(0, path.find('/')); }

// "models/election/x.hpp" -> "models/election"; any other path -> its top folder.
std::string unit_of(const std::string& path) {
  const std::string top = top_folder(path);
  if (top != "models") return top;
  const std::size_t second = path.find('/', top.size() + 1);
  return second == std::string::npos ? top : path.substr(0, second);
}

int layer_of(const std::string& folder) {
  for (std::size_t i = 0; i < kLayers.size(); ++i) {
    if (kLayers[i] == folder) return static_cast<int>(i);
  }
  return -1;
}

bool known_exception(const Include& include) {
  return kKnownExceptions.count({include.file, include.target}) == 1;
}

std::vector<std::string> all_folders() {
  std::vector<std::string> folders = kLayers;
  folders.insert(folders.end(), kUnrestricted.begin(), kUnrestricted.end());
  return folders;
}

// The first cycle found by depth-first search over `graph` ("a -> b -> a"), or "".
std::string find_cycle(const std::map<std::string, std::set<std::string>>& graph) {
  std::map<std::string, int> state;  // 0 unvisited, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::string cycle;
  std::function<void(const std::string&)> visit = [&](const std::string& node) {
    state[node] = 1;
    stack.push_back(node);
    const auto edges = graph.find(node);
    if (edges != graph.end()) {
      for (const std::string& next : edges->second) {
        if (!cycle.empty()) break;
        if (state[next] == 1) {
          for (auto it = std::find(stack.begin(), stack.end(), next); it != stack.end(); ++it)
            cycle += *it + " -> ";
          cycle += next;
        } else if (state[next] == 0) {
          visit(next);
        }
      }
    }
    stack.pop_back();
    state[node] = 2;
  };
  for (const auto& [node, edges] : graph) {
    if (state[node] == 0 && cycle.empty()) visit(node);
  }
  return cycle;
}

}  // namespace

TEST_CASE("every include goes to the folder's own layer or a lower one", "[layering]") {
  const std::vector<Include> includes = includes_under(all_folders());
  REQUIRE(includes.size() > 100);  // the scan found the tree
  for (const Include& include : includes) {
    const std::string from = top_folder(include.file);
    const std::string to = top_folder(include.target);
    INFO(include.file << " includes " << include.target);
    // Every include names a known layer, or is a bench/ or fuzz/ file's own folder's header
    // (bench/run_figures.hpp): nothing in the layers includes those.
    const bool own_unrestricted =
        from == to &&
        std::find(kUnrestricted.begin(), kUnrestricted.end(), to) != kUnrestricted.end();
    CHECK((layer_of(to) >= 0 || own_unrestricted));
    if (layer_of(from) < 0 || known_exception(include)) continue;  // bench/, fuzz/
    CHECK(layer_of(to) <= layer_of(from));
  }
}

TEST_CASE("a model includes only the models it is allowed to depend on", "[layering]") {
  for (const Include& include : includes_under({"models"})) {
    if (top_folder(include.target) != "models" || known_exception(include)) continue;
    const std::string from = unit_of(include.file).substr(std::string("models/").size());
    const std::string to = unit_of(include.target).substr(std::string("models/").size());
    INFO(include.file << " includes " << include.target);
    CHECK((from == to || kModelDependencies.count({from, to}) == 1));
  }
}

TEST_CASE("no include cycle between folders", "[layering]") {
  std::map<std::string, std::set<std::string>> graph;
  for (const Include& include : includes_under(all_folders())) {
    if (known_exception(include)) continue;
    const std::string from = unit_of(include.file);
    const std::string to = unit_of(include.target);
    if (from != to) graph[from].insert(to);
  }
  INFO("cycle: " << find_cycle(graph));
  CHECK(find_cycle(graph).empty());
}

TEST_CASE("every known layering exception still exists", "[layering]") {
  // A stale row is only a warning: the change that removes an include need not edit this file.
  std::set<std::pair<std::string, std::string>> seen;
  for (const Include& include : includes_under(all_folders())) {
    if (known_exception(include)) seen.insert({include.file, include.target});
  }
  for (const auto& exception : kKnownExceptions) {
    if (seen.count(exception) == 0) {
      WARN("stale layering exception, delete it: " << exception.first << " -> "
                                                   << exception.second);
    }
  }
}
