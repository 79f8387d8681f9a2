// entryID and logSlice (types.hpp; etcd-io/raft types.go).
#include "models/raft/types.hpp"

#include "models/raft/strcat.hpp"

namespace hasim::raft {

std::string to_string(const EntryID& id) {
  return text::cat("{term:", id.term, " index:", id.index, "}");
}

EntryID LogSlice::last_entry_id() const {
  if (entries.empty()) return prev;
  return pb_entry_id(entries.back());
}

std::optional<std::string> LogSlice::valid() const {
  EntryID last = prev;
  for (const Entry& entry : entries) {
    const EntryID id = pb_entry_id(entry);
    if (id.term < last.term || id.index != last.index + 1) {
      return text::cat("leader term ", term, ": entries ", to_string(last), " and ", to_string(id),
                       " not consistent");
    }
    last = id;
  }
  if (term < last.term) {
    return text::cat("leader term ", term, ": entry ", to_string(last), " has a newer term");
  }
  return std::nullopt;
}

}  // namespace hasim::raft
