#pragma once
// The journal demo system's scenario section, "journal" (scenarios/journal/system.cpp).
#include <string>
#include <string_view>
#include <vector>

#include "models/journal/journal.hpp"
#include "sim/disk.hpp"

namespace hasim {

// A write-ahead journal (models/journal/) on some nodes, each on its own volume "wal".
struct JournalSpec {
  static constexpr std::string_view kSection = "journal";
  std::vector<std::string> nodes;  // default: every node
  JournalConfig config;            // "interval", "ack"
  VolumeKind volume = VolumeKind::persistent;
  std::string disk;  // default: each node's first disk
};

}  // namespace hasim
