#pragma once
// Go's strconv.Quote (what fmt's %q prints for a string or []byte): the entry formatter the
// raft transcripts use by default (rafttest/interaction_env.go defaultEntryFormatter, util.go
// DescribeEntry), so its escapes are part of the expected output.
#include <string>
#include <string_view>

namespace hasim::raft {

// `bytes` in double quotes, escaped as Go does: \" and \\; \a \b \f \n \r \t \v; other ASCII
// control bytes and DEL as \xNN; each byte of invalid UTF-8 as \xNN; a valid code point that
// Go's unicode.IsPrint rejects as \uNNNN or \UNNNNNNNN; everything else as it is.
std::string go_quote(std::string_view bytes);

// unicode.IsPrint: categories L, M, N, P, S and the ASCII space (Unicode 15.0.0 tables).
bool go_is_print(char32_t r);

}  // namespace hasim::raft
