// The journal demo's check half (properties/check_system.hpp): the one assumption
// no-lost-write rests on for a journal, that its volume survives what happens to it (the
// property itself, which also judges the etcd store, is registered with the etcd system:
// properties/no_lost_write.hpp); and disk-semantics and group-commit, which assume nothing.
#include "properties/journal/check.hpp"

#include <algorithm>

#include "properties/journal/disk_semantics.hpp"
#include "properties/journal/group_commit.hpp"
#include "scenarios/journal/spec.hpp"

namespace hasim {
namespace {

// What takes a volume of this kind with it, as a fault kind; empty: nothing but disk-loss.
std::vector<std::string> volume_killers(VolumeKind kind) {
  switch (kind) {
    case VolumeKind::persistent:
      return {"disk-loss"};
    case VolumeKind::ephemeral:
      return {"disk-loss", "pod-delete"};
    case VolumeKind::memory:
      return {"disk-loss", "pod-delete", "node-down"};
  }
  return {};
}

bool assumes_volume(const Scenario& scenario) {
  return scenario.section<JournalSpec>() != nullptr && names_property(scenario, "no-lost-write");
}

bool forbids(const Scenario& scenario, const FaultSpace&, const FaultChoiceDef& choice) {
  if (!assumes_volume(scenario)) return false;
  const auto killers = volume_killers(scenario.section<JournalSpec>()->volume);
  return std::find(killers.begin(), killers.end(), choice.name) != killers.end();
}

void broken(const Scenario& scenario, std::vector<std::string>& out) {
  if (!assumes_volume(scenario)) return;
  const VolumeKind kind = scenario.section<JournalSpec>()->volume;
  const auto killers = volume_killers(kind);
  for (const FaultSpec& fault : scenario.faults) {
    if (std::find(killers.begin(), killers.end(), fault.kind) == killers.end()) continue;
    out.push_back("a " + fault.kind + " at " + format_duration(fault.at) + " takes the " +
                  std::string(volume_kind_name(kind)) +
                  " journal volume with it, and no-lost-write assumes the volume survives "
                  "(nothing replicates the journal)");
  }
}

std::unique_ptr<Property> disk_semantics(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<DiskSemantics>(spec);
}

std::unique_ptr<Property> group_commit(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<GroupCommit>(spec);
}

}  // namespace

const CheckSystem& journal_check_system() {
  static const CheckSystem system{
      "journal",
      {
          {{"disk-semantics", "",
            "what a journal sees of its disk follows sim/disk.hpp: an fsync completes only "
            "after every append issued before it, and no append to a device volume succeeds "
            "while its disk is full",
            "nothing: it judges the kernel's disks"},
           disk_semantics},
          {{"group-commit", "",
            "a journal never leaves a write waiting for its acknowledgement without an fsync "
            "in flight: when one completes and a later write has arrived, the next is issued "
            "at once",
            "nothing: it judges the journal's own policy"},
           group_commit},
      },
      {},
      nullptr,
      forbids,
      broken,
  };
  return system;
}

}  // namespace hasim
