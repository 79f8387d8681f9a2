// The linearizability checkers (properties/linearizability) on a generated history of the
// etcd store (issue 13, part 9): 100,000 operations from 10 clients over 4 keys, 1% failed,
// linearizable by construction. Prints, for the online checker (fed event by event, as
// `no-lost-write` runs it) and then the offline reference: wall time, operations per second,
// and the process's peak resident memory after it (the history itself included: see the
// first line; the online checker runs first so its figure is not the offline one's).
// Wall-clock time is measured here only.
//
//   bench_linearizability [OPERATIONS [CLIENTS [KEYS [UNKNOWN_PER_MILLE [online]]]]]
//
// (default 100000 10 4 0). `online` skips the offline reference: on one key its cache holds
// a bitset of every operation per entry (100,000 operations on one key took 9 GB).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/run_figures.hpp"
#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/history_gen.hpp"

namespace {

using namespace hasim::linearizability;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print(const char* how, double seconds, std::size_t operations, const Verdict& verdict) {
  std::printf("  %-8s %.3f s wall, %.0f operations/s, peak RSS %.1f MB: %s\n", how, seconds,
              static_cast<double>(operations) / seconds, hasim::bench::peak_rss_mb(),
              describe(verdict).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  HistoryShape shape;
  shape.operations = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 100'000;
  shape.clients = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 10;
  shape.keys = argc > 3 ? static_cast<std::uint32_t>(std::atoi(argv[3])) : 4;
  shape.fail_permille = 10;
  shape.unknown_permille = argc > 4 ? static_cast<std::uint32_t>(std::atoi(argv[4])) : 0;
  if (shape.clients < 1 || shape.keys < 1) {
    std::fprintf(stderr,
                 "usage: bench_linearizability [OPERATIONS [CLIENTS [KEYS "
                 "[UNKNOWN_PER_MILLE [online]]]]]\n");
    return 2;
  }
  hasim::Rng rng(1);
  const History history = generate_history(shape, rng);
  std::printf("%u operations, %u clients, %u keys; history built, peak RSS %.1f MB\n",
              shape.operations, shape.clients, shape.keys, hasim::bench::peak_rss_mb());
  auto start = std::chrono::steady_clock::now();
  OnlineChecker checker;
  std::size_t open_max = 0;
  for (const Event& event : checker_events(history)) {
    const Operation& op = history.operations[event.id];
    event.is_return ? checker.complete(op) : checker.invoke(op);
    open_max = std::max(open_max, checker.open_operations());
  }
  print("online", seconds_since(start), history.operations.size(), checker.verdict());
  std::printf(
      "           at most %zu operations open, %zu configurations on one key; %zu held "
      "at the end\n",
      open_max, checker.peak_configurations(), checker.configurations());
  if (argc > 5 && std::string(argv[5]) == "online") {
    return checker.verdict().kind == VerdictKind::linearizable ? 0 : 1;
  }
  start = std::chrono::steady_clock::now();
  const Verdict offline = check_offline(history);
  print("offline", seconds_since(start), history.operations.size(), offline);
  const bool agree = offline.kind == checker.verdict().kind;
  return agree && offline.kind == VerdictKind::linearizable ? 0 : 1;
}
