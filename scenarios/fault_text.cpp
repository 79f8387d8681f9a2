#include "scenarios/fault_text.hpp"

#include <cstdio>

#include "sim/text.hpp"

namespace hasim {
namespace {

using Kind = FaultSpec::Kind;

std::string rate_text(std::int64_t rate_ppb) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6f", static_cast<double>(rate_ppb) / 1e9);
  return buffer;
}

}  // namespace

std::string describe_fault(const FaultSpec& f) {
  const std::string target = join_words(f.targets);
  std::string what;
  switch (f.kind) {
    case Kind::partition:
      switch (f.partition_mode) {
        case FaultSpec::PartitionMode::isolate:
          what = "partition isolating " + target;
          break;
        case FaultSpec::PartitionMode::groups: {
          std::vector<std::string> groups;
          for (const auto& g : f.groups) groups.push_back("{" + join_words(g) + "}");
          what = "partition splitting " + join_words(groups, " | ");
          break;
        }
        case FaultSpec::PartitionMode::oneway:
          what =
              "one-way partition from {" + join_words(f.from) + "} to {" + join_words(f.to) + "}";
          break;
      }
      break;
    case Kind::clock_step:
      what = "clock step of " + target + " by " + format_duration(f.step);
      break;
    case Kind::clock_rate:
      what = "clock of " + target + " running at rate " + rate_text(f.rate_ppb);
      break;
    case Kind::apiserver_slow:
      what = "kube-apiserver on " + target + " adding " + format_duration(f.latency) +
             " to each request";
      break;
    case Kind::apiserver_hang:
      what = "kube-apiserver on " + target + " hanging " +
             (f.verbs.empty() ? std::string("every request") : join_words(f.verbs) + " requests");
      break;
    case Kind::apiserver_unavailable:
      what = "kube-apiserver on " + target + " answering 503";
      break;
    default:
      what = std::string(to_string(f.kind)) + " of " + target;
      break;
  }
  what += " at " + format_duration(f.at);
  if (f.for_duration) what += " for " + format_duration(*f.for_duration);
  return what;
}

}  // namespace hasim
