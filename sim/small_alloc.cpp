// Global operator new / delete for hasim's executables: small blocks (up to 1 KiB) come
// from per-thread free lists, larger ones from malloc.
//
// Why: a simulated request allocates a dozen small objects (the request, its callback, the
// message body, strings of a record, a pending entry) and frees them a few microseconds of
// simulated time later. glibc's malloc/free spent a fifth of a Monte Carlo trial's
// instructions on them (callgrind, bench_upgrade_skew); a free list is a few instructions
// each way. Memory is recycled, never returned: a run's footprint is its high-water mark.
// A thread's lists go to a shared pool when it exits and the next thread takes them, so a
// study that starts worker threads per cell does not grow.
//
// Addresses never influence a run (no pointer order in logic), so this changes speed only.
// Sanitizer builds keep the default allocator, whose checks they need.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define HASIM_DEFAULT_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HASIM_DEFAULT_ALLOCATOR 1
#endif

#if !defined(HASIM_DEFAULT_ALLOCATOR)

namespace {

constexpr std::size_t kGranule = 16;  // __STDCPP_DEFAULT_NEW_ALIGNMENT__ on x86-64
// Blocks of 16, 32, ..., 1024 bytes: up to 1 KiB because a shared api::Object (856 bytes
// with its control block) is made for every write and every copy a client edits, and malloc
// cost a coordinated trial 2-3% of its instructions (callgrind, stop 41).
constexpr std::size_t kClasses = 64;
constexpr std::size_t kHeader = 16;  // in front of every block: its class, or kLarge
constexpr std::uint32_t kLarge = 0xffffffffu;
constexpr std::uint32_t kMagic = 0x5a11a10c;
// Carved into blocks of one class at a time. The classes above 256 bytes are used by few
// objects, so their chunks are smaller: with 256 KiB chunks for all 64 classes, a 300-trial
// `hasim report upgrade-skew` peaked at 59 MB instead of 26 MB (stop 41), mostly chunks barely
// used; with 16 KiB ones, at 33 MB.
constexpr std::size_t kChunk = 256 * 1024;
constexpr std::size_t kLargeClassChunk = 16 * 1024;
constexpr std::size_t kSmallClasses = 16;  // blocks up to 256 bytes
std::size_t chunk_bytes(std::size_t c) { return c < kSmallClasses ? kChunk : kLargeClassChunk; }
static_assert(kGranule >= alignof(std::max_align_t));

struct Header {
  std::uint32_t size_class;
  std::uint32_t magic;  // catches a pointer this allocator did not hand out
  std::uint64_t unused;
};
static_assert(sizeof(Header) == kHeader);

struct FreeBlock {
  FreeBlock* next;
};

struct Lists {
  FreeBlock* heads[kClasses] = {};
};

// The pool exiting threads leave their blocks in. Touched only at thread start and exit.
std::mutex pool_mutex;
Lists pool;

void splice(Lists& into, Lists& from) {
  for (std::size_t c = 0; c < kClasses; ++c) {
    FreeBlock* block = from.heads[c];
    if (block == nullptr) continue;
    FreeBlock* tail = block;
    while (tail->next != nullptr) tail = tail->next;  // bounded: the blocks of one class
    tail->next = into.heads[c];
    into.heads[c] = block;
    from.heads[c] = nullptr;
  }
}

// Trivially destructible, so it stays usable while other thread-locals are destroyed.
struct Cache {
  Lists lists;
  bool adopted = false;
};
thread_local constinit Cache cache;

// Hands the thread's lists to the pool when the thread exits.
struct Donor {
  ~Donor() {
    const std::lock_guard<std::mutex> lock(pool_mutex);
    splice(pool, cache.lists);
  }
};
thread_local Donor donor;

void adopt() {
  cache.adopted = true;
  (void)&donor;  // constructs the donor, so the lists go back to the pool at exit
  const std::lock_guard<std::mutex> lock(pool_mutex);
  splice(cache.lists, pool);
}

// A new chunk cut into blocks of class `c`, threaded onto the class's list.
void refill(std::size_t c) {
  const std::size_t block = kHeader + (c + 1) * kGranule;
  const std::size_t bytes = chunk_bytes(c);
  char* chunk = static_cast<char*>(std::malloc(bytes));
  if (chunk == nullptr) throw std::bad_alloc();
  FreeBlock* head = cache.lists.heads[c];
  for (std::size_t at = 0; at + block <= bytes; at += block) {
    auto* free_block = reinterpret_cast<FreeBlock*>(chunk + at);
    free_block->next = head;
    head = free_block;
  }
  cache.lists.heads[c] = head;
}

void* allocate(std::size_t size) {
  if (size == 0) size = 1;
  if (size > kClasses * kGranule) {
    auto* header = static_cast<Header*>(std::malloc(kHeader + size));
    if (header == nullptr) throw std::bad_alloc();
    *header = Header{kLarge, kMagic, 0};
    return reinterpret_cast<char*>(header) + kHeader;
  }
  if (!cache.adopted) adopt();
  const std::size_t c = (size - 1) / kGranule;
  if (cache.lists.heads[c] == nullptr) refill(c);
  FreeBlock* block = cache.lists.heads[c];
  cache.lists.heads[c] = block->next;
  // The next block of this class, fetched now for the next allocation: reading a cold block's
  // link was 70% of this function's time, most of it waiting for memory (perf, a coordinated
  // study; callgrind counts instructions and never showed it). -2% of the study's CPU time.
  // (Cutting blocks from a chunk only as they are needed, instead of threading the whole chunk
  // onto the list at once, was no faster.)
  __builtin_prefetch(block->next);
  // The block's memory becomes a Header: a new object there, not a FreeBlock read as one.
  auto* header = ::new (static_cast<void*>(block)) Header{static_cast<std::uint32_t>(c), kMagic, 0};
  return reinterpret_cast<char*>(header) + kHeader;
}

void release(void* pointer) noexcept {
  if (pointer == nullptr) return;
  auto* header = reinterpret_cast<Header*>(static_cast<char*>(pointer) - kHeader);
  if (header->magic != kMagic) std::abort();  // not ours, or freed twice
  header->magic = 0;
  const std::uint32_t size_class = header->size_class;
  if (size_class == kLarge) return std::free(header);
  if (size_class >= kClasses) std::abort();
  // The header's memory becomes a FreeBlock, whose `next` overlays size_class, so the class
  // is read first. (Until stop 42 it was read after `next` was written: GCC kept the value
  // read before, as the types differ; clang -O2 read the new pointer's low half and crashed.)
  auto* block = ::new (static_cast<void*>(header)) FreeBlock{cache.lists.heads[size_class]};
  cache.lists.heads[size_class] = block;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* pointer) noexcept { release(pointer); }
void operator delete[](void* pointer) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { release(pointer); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { release(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { release(pointer); }

#endif  // !HASIM_DEFAULT_ALLOCATOR
