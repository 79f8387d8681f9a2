#pragma once
// The kinds of trace event the kernel emits (sim/world.cpp, sim/world_faults.cpp), declared
// once: the emitters and the properties that match on them use these names, never a string
// of their own. Each model folder declares its kinds the same way, in its trace_kinds.hpp;
// tests/unit/test_trace_kinds.cpp checks that every kind in every scenario's trace is one of
// them. A kind is part of the trace text and so of its hash: never rename one.
#include <array>
#include <string_view>

namespace hasim::trace_kind {

// A process's life.
inline constexpr std::string_view kStart = "start";
inline constexpr std::string_view kCrash = "crash";
inline constexpr std::string_view kPause = "pause";
inline constexpr std::string_view kResume = "resume";
inline constexpr std::string_view kTerminate = "terminate";
inline constexpr std::string_view kExit = "exit";
// A stopped process placed on another node (a pod re-created elsewhere: World::move_process).
inline constexpr std::string_view kMove = "move";
// Messages.
inline constexpr std::string_view kRecv = "recv";
inline constexpr std::string_view kDrop = "drop";
inline constexpr std::string_view kDuplicate = "duplicate";
inline constexpr std::string_view kConnectionDrop = "connection-drop";
// Faults on nodes, clocks and the network.
inline constexpr std::string_view kNodeDown = "node-down";
inline constexpr std::string_view kNodeUp = "node-up";
inline constexpr std::string_view kClockStep = "clock-step";
inline constexpr std::string_view kClockRate = "clock-rate";
inline constexpr std::string_view kPartition = "partition";
inline constexpr std::string_view kHeal = "heal";
inline constexpr std::string_view kDiskLoss = "disk-loss";
inline constexpr std::string_view kDropConnections = "drop-connections";
// Disks (sim/world_disks.cpp): faults, what a power loss took, and failed operations.
inline constexpr std::string_view kSlowDisk = "slow-disk";
inline constexpr std::string_view kDiskFull = "disk-full";
inline constexpr std::string_view kPodDelete = "pod-delete";
inline constexpr std::string_view kUnsyncedLost = "unsynced-lost";
inline constexpr std::string_view kDiskError = "disk-error";
// Whom a fault aimed at a role hit when it fired, or that nobody held the role
// (scenarios/build.cpp).
inline constexpr std::string_view kRoleResolved = "role-resolved";
inline constexpr std::string_view kRoleUnresolved = "role-unresolved";

inline constexpr std::array kAll{
    kStart,        kCrash,         kPause,     kResume,         kTerminate, kExit,
    kRecv,         kDrop,          kDuplicate, kConnectionDrop, kNodeDown,  kNodeUp,
    kClockStep,    kClockRate,     kPartition, kHeal,           kDiskLoss,  kDropConnections,
    kSlowDisk,     kDiskFull,      kPodDelete, kUnsyncedLost,   kDiskError, kRoleResolved,
    kRoleUnresolved, kMove};

}  // namespace hasim::trace_kind
