#pragma once
// The online checker's configurations (online_checker.cpp): which open operations of one key
// a configuration has linearized, as a fixed-width bitset over the key's slots, and the
// antichain that keeps only configurations no other one dominates. Internal to
// properties/linearizability.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "properties/linearizability/register_model.hpp"
#include "sim/assert.hpp"

namespace hasim::linearizability::online {

inline constexpr std::size_t kSlotWords = 4;
inline constexpr std::size_t kSlotsMax = 64 * kSlotWords;  // open operations one key can track
using Slots = std::array<std::uint64_t, kSlotWords>;

inline bool has(const Slots& bits, std::size_t slot) {
  return ((bits[slot / 64] >> (slot % 64)) & 1u) != 0;
}
inline void set_bit(Slots& bits, std::size_t slot) {
  bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
}
inline void clear_bit(Slots& bits, std::size_t slot) {
  bits[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

// A model state plus which open operations (by slot) it has already linearized.
struct Config {
  Slots linearized{};
  RegisterState state;
  auto operator<=>(const Config&) const = default;
};

inline Slots masked(const Slots& bits, const Slots& mask) {
  Slots out{};
  for (std::size_t w = 0; w < kSlotWords; ++w) out[w] = bits[w] & mask[w];
  return out;
}

inline bool subset(const Slots& small, const Slots& large) {
  for (std::size_t w = 0; w < kSlotWords; ++w) {
    if ((small[w] & ~large[w]) != 0) return false;
  }
  return true;
}

// Linearizes at once every open read (`reads`, by slot: the operation when it is open, known
// and reads_only, else nullptr) that is legal in c's state and leaves it exactly as it is. A
// partial-order reduction, and exact: any order that places such a read r later (at state t,
// which r narrows to t') can place it here instead, and the order without the later r ends
// in t, which covers t' (covers, register_model.hpp: successors keep the relation); r is
// open, so here is inside its interval. Without it, k open reads that observed one state (a
// burst of list-watch gets, compares that all failed on one new mod_revision) make up to
// 2^k configurations that differ only in which of them were linearized yet.
inline void absorb_reads(Config& c, const std::vector<const ModelOp*>& reads) {
  for (std::size_t slot = 0; slot < reads.size(); ++slot) {
    if (reads[slot] == nullptr || has(c.linearized, slot)) continue;
    const Successors next = step(c.state, *reads[slot]);
    if (next.count == 1 && next.states[0] == c.state) set_bit(c.linearized, slot);
  }
}

// Configurations of which none dominates another. `a` dominates `b` when a's state covers
// b's (register_model.hpp), they linearized the same open ok operations, and a linearized
// no unknown operation b did not: a can do all b can, leaving its extra unknown operations
// without effect (they may never have happened). Keeping only the undominated ones is what
// stops unknown outcomes from doubling the configurations each (the antichain idea of
// De Wulf, Doyen, Henzinger & Raskin, CAV 2006, applied to Lowe's configurations).
class Antichain {
 public:
  explicit Antichain(const Slots& unknown) : unknown_(unknown) {
    for (std::size_t w = 0; w < kSlotWords; ++w) known_[w] = ~unknown[w];
  }

  // False when a member dominates `c`; else the members `c` dominates leave and `c` joins.
  bool insert(const Config& c) {
    std::vector<Config>& group = groups_[{masked(c.linearized, known_), c.state.value}];
    for (const Config& m : group) {
      if (dominates(m, c)) return false;
    }
    const auto gone = std::erase_if(group, [&](const Config& m) { return dominates(c, m); });
    size_ = size_ - gone + 1;
    group.push_back(c);
    return true;
  }
  std::size_t size() const { return size_; }
  std::vector<Config> sorted() const {
    std::vector<Config> all;
    for (const auto& [group_key, group] : groups_)
      all.insert(all.end(), group.begin(), group.end());
    std::sort(all.begin(), all.end());
    HASIM_ASSERT(all.size() == size_);
    return all;
  }

 private:
  bool dominates(const Config& a, const Config& b) const {
    if (!covers(a.state, b.state)) return false;
    return subset(masked(a.linearized, unknown_), masked(b.linearized, unknown_));
  }
  Slots unknown_;
  Slots known_{};
  std::map<std::pair<Slots, ValueId>, std::vector<Config>> groups_;
  std::size_t size_ = 0;
};

}  // namespace hasim::linearizability::online
