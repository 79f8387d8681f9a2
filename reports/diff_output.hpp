#pragma once
// What `hasim report diff` prints and writes: a Markdown summary (the verdict, the settings
// that differ, one table row per comparison with the changed ones first and in bold, and
// the statistics used) and the same as JSON (versioned, full-precision numbers).
#include <string>

#include "reports/diff.hpp"

namespace hasim {

// The diff JSON's format: bumped whenever its shape changes.
inline constexpr int kDiffFormatVersion = 1;

std::string diff_markdown(const DiffReport& report);
std::string diff_json(const DiffReport& report);

}  // namespace hasim
