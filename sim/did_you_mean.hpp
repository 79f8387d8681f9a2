#pragma once
// "did you mean ...?" suggestions for misspelt keys and names (Levenshtein distance).
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a distance of max(2, |word|/3), or "" if none is close.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hasim
