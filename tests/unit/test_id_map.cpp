// IdMap (sim/id_map.hpp) against std::map on random programs of inserts (ids only grow),
// finds, erasures and predicate erasures: the same contents, in the same order, after every
// step.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/id_map.hpp"

using hasim::IdMap;

namespace {

std::vector<std::pair<std::uint64_t, std::string>> contents(const IdMap<std::string>& map) {
  return {map.begin(), map.end()};
}

std::vector<std::pair<std::uint64_t, std::string>> contents(
    const std::map<std::uint64_t, std::string>& map) {
  return {map.begin(), map.end()};
}

}  // namespace

TEST_CASE("IdMap finds, erases and iterates as std::map does", "[id-map]") {
  IdMap<std::string> map;
  map.insert(3, "c");
  map.insert(7, "g");
  map.insert(9, "i");
  CHECK(map.size() == 3);
  CHECK(map.contains(7));
  CHECK_FALSE(map.contains(8));
  REQUIRE(map.find(9) != map.end());
  CHECK(map.find(9)->second == "i");
  CHECK(map.find(4) == map.end());
  CHECK(map.erase(std::uint64_t{7}) == 1);
  CHECK(map.erase(std::uint64_t{7}) == 0);
  map.insert(10, "j");
  CHECK(contents(map) ==
        std::vector<std::pair<std::uint64_t, std::string>>{{3, "c"}, {9, "i"}, {10, "j"}});
}

TEST_CASE("IdMap agrees with std::map on random programs", "[id-map]") {
  rc::prop("the same contents in the same order after every step", [] {
    const auto steps = *rc::gen::container<std::vector<std::pair<int, int>>>(
        rc::gen::pair(rc::gen::inRange(0, 4), rc::gen::inRange(0, 40)));
    IdMap<std::string> map;
    std::map<std::uint64_t, std::string> model;
    std::uint64_t next = 1;
    for (const auto& [op, arg] : steps) {
      const auto id = static_cast<std::uint64_t>(arg);
      switch (op) {
        case 0:  // insert: the next id, a gap of arg/8 ids after the last
          next += static_cast<std::uint64_t>(arg / 8);
          map.insert(next, std::to_string(next));
          model.emplace(next, std::to_string(next));
          ++next;
          break;
        case 1:
          RC_ASSERT(map.contains(id) == model.contains(id));
          RC_ASSERT((map.find(id) == map.end()) == (model.find(id) == model.end()));
          break;
        case 2:
          RC_ASSERT(map.erase(id) == model.erase(id));
          break;
        default:  // erase every id divisible by arg + 2
          map.erase_if([arg](const auto& entry) { return entry.first % (arg + 2) == 0; });
          std::erase_if(model, [arg](const auto& entry) { return entry.first % (arg + 2) == 0; });
          break;
      }
      RC_ASSERT(contents(map) == contents(model));
    }
  });
}
