#pragma once
// Report and shard JSON as text: objects indented, arrays of plain values on one line.
// Every trial is in these files, and one number per line would make a 10,000-trial report
// tens of megabytes.
#include <nlohmann/json.hpp>
#include <string>

namespace hasim {

std::string json_text(const nlohmann::ordered_json& json);

}  // namespace hasim
