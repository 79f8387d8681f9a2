#pragma once
// Joining words for messages and reports.
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

// "a, b, c" (or with another separator); "" for no words.
inline std::string join_words(const std::vector<std::string>& words,
                              std::string_view separator = ", ") {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += separator;
    out += word;
  }
  return out;
}

}  // namespace hasim
