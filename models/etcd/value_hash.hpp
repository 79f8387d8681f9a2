#pragma once
// How an etcd client's history names a written value: its 64-bit FNV-1a hash as 16 hex
// digits (the "value" of etcd-call and etcd-call-end, models/apiserver/trace_kinds.hpp), so
// a history stays small whatever the values' size. Every client that traces its calls
// (kube-apiserver's etcd client, druid's Service writer) names values this way.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/fnv.hpp"

namespace hasim::etcd {

inline std::string value_hash(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::uint64_t h = fnv1a(kFnvOffset, bytes);
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(h >> (4 * i)) & 0xf];
  return out;
}

}  // namespace hasim::etcd
