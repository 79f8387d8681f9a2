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

inline constexpr std::array kAll{kRecovered, kAck, kRejected};

}  // namespace hasim::journal::trace_kind
