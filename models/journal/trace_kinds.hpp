#pragma once
// The kinds of trace event of the journal demo (models/journal/journal.hpp), declared once
// (see sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::journal::trace_kind {

// After a start: how many records the journal read back and the last sequence number.
inline constexpr std::string_view kRecovered = "journal-recovered";
// A write acknowledged to its client: from now on it must survive.
inline constexpr std::string_view kAck = "journal-ack";
// A write refused (its append failed, e.g. ENOSPC): never acknowledged.
inline constexpr std::string_view kRejected = "journal-rejected";
// A client write arrived and its append was issued.
inline constexpr std::string_view kWrite = "journal-write";
// An fsync was issued, covering the appends up to "covers".
inline constexpr std::string_view kFsync = "journal-fsync";
// That fsync completed; "written": the last write whose append had completed by then.
inline constexpr std::string_view kSynced = "journal-synced";

inline constexpr std::array kAll{kRecovered, kAck, kRejected, kWrite, kFsync, kSynced};

}  // namespace hasim::journal::trace_kind
