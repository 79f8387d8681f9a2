#pragma once
// The key interval of a Range, DeleteRange, Compare or Watch, as etcd's API carries it
// (api/etcdserverpb/rpc.proto): [key, range_end), where an empty range_end means the single
// key `key` and a range_end of one zero byte means every key >= key ("from key"; the server
// turns it into an unbounded end: server/etcdserver/txn/txn.go mkGteRange, and
// api/v3rpc/watch.go for watches). A prefix is a client-side interval: clientv3's
// GetPrefixRangeEnd, here prefix_range_end.
#include <string>
#include <string_view>

namespace hasim::etcd::mvcc {

inline constexpr std::string_view kFromKey{"\0", 1};

// The range_end that makes [prefix, end) every key starting with prefix: the prefix with
// its last byte below 0xff incremented and the bytes after dropped; all 0xff (or empty)
// gives "from key".
inline std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    const auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(kFromKey);
}

// Whether `candidate` falls in the interval (key, range_end) of the wire convention.
inline bool range_contains(std::string_view key, std::string_view range_end,
                           std::string_view candidate) {
  if (range_end.empty()) return candidate == key;
  if (candidate < key) return false;
  if (range_end == kFromKey) return true;
  return candidate < range_end;
}

}  // namespace hasim::etcd::mvcc
