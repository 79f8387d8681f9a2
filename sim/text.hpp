#pragma once
// Word lists: joining them for messages and reports, and looking a word up in one.
#include <algorithm>
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

// Whether `word` is one of `words` (a short list: node names, keys, fault kinds).
inline bool is_listed(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

}  // namespace hasim
