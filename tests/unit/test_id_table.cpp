// IdTable (sim/id_table.hpp), the sorted-vector map of a process's pending timers, against
// std::map on random operations: same lookups, same contents in the same order.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <cstdint>
#include <map>
#include <vector>

#include "sim/id_table.hpp"

using hasim::IdTable;

namespace {

std::vector<std::pair<std::uint64_t, int>> contents(const IdTable<int>& table) {
  return {table.begin(), table.end()};
}

std::vector<std::pair<std::uint64_t, int>> contents(const std::map<std::uint64_t, int>& map) {
  return {map.begin(), map.end()};
}

}  // namespace

TEST_CASE("IdTable appends increasing ids and finds, erases and iterates in id order",
          "[id-table]") {
  IdTable<int> table;
  table.emplace(3, 30);
  table.emplace(7, 70);
  table.emplace(5, 50);  // below the last: inserted in order
  REQUIRE(table.size() == 3);
  CHECK(table.find(5)->second == 50);
  CHECK(table.find(4) == table.end());
  table.erase(table.find(3));
  CHECK(contents(table) == std::vector<std::pair<std::uint64_t, int>>{{5, 50}, {7, 70}});
  table.clear();
  CHECK(table.empty());
}

TEST_CASE("IdTable agrees with std::map on random operations", "[id-table][property]") {
  rc::prop("emplace, find, erase and iteration agree with std::map", [] {
    IdTable<int> table;
    std::map<std::uint64_t, int> reference;
    const auto ops = *rc::gen::container<std::vector<std::pair<int, std::uint64_t>>>(
        rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange<std::uint64_t>(0, 40)));
    int value = 0;
    for (const auto& [op, id] : ops) {
      if (op == 0 && !reference.contains(id)) {
        table.emplace(id, ++value);
        reference.emplace(id, value);
      } else if (op == 1) {
        const auto it = table.find(id);
        RC_ASSERT((it != table.end()) == reference.contains(id));
        if (it != table.end()) {
          RC_ASSERT(it->second == reference.at(id));
          table.erase(it);
          reference.erase(id);
        }
      }
      RC_ASSERT(contents(table) == contents(reference));
    }
  });
}
