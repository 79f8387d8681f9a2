#pragma once
// Timer tags, handed out by the kernel. A timer's 64-bit tag (returned to Process::on_timer)
// is a tag space in the top byte and the owner's own value in the low 56 bits. Each timer
// owner inside a process (its REST client, an elector, an informer, a work queue) gets its
// own space from Env::tag_space, so owners never collide and no model picks a byte by hand.
// Spaces are numbered 1, 2, ... in the order a process incarnation asks for them (a restart
// starts again at 1, as the new incarnation builds its owners again); space 0 is never handed
// out, so a default TagSpace is "none". A tag never appears in a trace.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sim/assert.hpp"

namespace hasim {

class TagSpace {
 public:
  static constexpr unsigned kShift = 56;
  static constexpr std::uint64_t kMask = 0xffULL << kShift;
  static constexpr std::uint64_t kLocalLimit = 1ULL << kShift;  // local values are below it

  TagSpace() = default;  // none
  bool valid() const { return base_ != 0; }
  // The tag for the owner's value `local`.
  std::uint64_t tag(std::uint64_t local = 0) const {
    HASIM_ASSERT(valid() && local < kLocalLimit);
    return base_ | local;
  }
  bool owns(std::uint64_t tag) const { return valid() && (tag & kMask) == base_; }
  std::uint64_t local(std::uint64_t tag) const {
    HASIM_ASSERT(owns(tag));
    return tag & ~kMask;
  }
  bool operator==(const TagSpace&) const = default;

 private:
  friend class TagAllocator;
  explicit TagSpace(std::uint64_t index) : base_(index << kShift) {}
  std::uint64_t base_ = 0;
};

// One process incarnation's spaces, by name. Asking twice for one name, or for more than 255
// spaces, is a programmer error: two owners would share tags.
class TagAllocator {
 public:
  static constexpr std::size_t kCapacity = 255;
  TagSpace allocate(std::string_view name) {
    HASIM_ASSERT(!name.empty());
    HASIM_ASSERT(!spaces_.contains(name));     // a second allocation of the same space
    HASIM_ASSERT(spaces_.size() < kCapacity);  // exhausted
    const TagSpace space(spaces_.size() + 1);
    spaces_.emplace(std::string(name), space);
    return space;
  }
  std::size_t allocated() const { return spaces_.size(); }

 private:
  std::map<std::string, TagSpace, std::less<>> spaces_;
};

}  // namespace hasim
