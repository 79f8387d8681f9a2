#pragma once
// The compact form in which etcd members trace log entries (models/etcd/trace_kinds.hpp):
// what the raft-safety property needs of each entry (index, term, a hash of its payload) in
// few bytes, so a long run's trace stays short. "ents" is runs "TERM:HASH,HASH" separated
// by spaces; the indexes follow from "first".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::etcd {

// FNV-1a over an entry's type and data: equal payloads hash equal on every member.
std::uint64_t entry_payload_hash(const raft::Entry& entry);

std::string encode_trace_entries(const std::vector<raft::Entry>& entries);

struct TracedEntry {
  std::uint64_t index = 0;
  std::uint64_t term = 0;
  std::uint64_t payload = 0;
  bool operator==(const TracedEntry&) const = default;
};

// The inverse, with the first entry's index; nullopt if `text` is malformed.
std::optional<std::vector<TracedEntry>> decode_trace_entries(std::uint64_t first,
                                                             std::string_view text);
// The same into `out` (cleared first, its capacity reused: an observer decodes an event of
// every Ready); false if `text` is malformed, `out` then holding what came before the fault.
bool decode_trace_entries(std::uint64_t first, std::string_view text,
                          std::vector<TracedEntry>& out);

}  // namespace hasim::etcd
