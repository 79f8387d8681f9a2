#include "models/cluster/drain.hpp"

#include "sim/assert.hpp"

namespace hasim::cluster {

DrainSelection select_drain_pods(const std::vector<DrainCandidate>& pods,
                                 const DrainOptions& options) {
  DrainSelection out;
  for (const DrainCandidate& pod : pods) {
    if (pod.daemonSet) {
      if (options.ignoreDaemonSets)
        out.ignored.push_back(pod.name);
      else
        out.refused.emplace_back(pod.name,
                                 "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)");
      continue;
    }
    if (pod.mirror) {
      out.ignored.push_back(pod.name);
      continue;
    }
    // The local-storage and unreplicated filters let a finished pod through.
    if (!pod.terminal && pod.emptyDir && !options.deleteEmptyDirData) {
      out.refused.emplace_back(pod.name,
                               "Pods with local storage (use --delete-emptydir-data to override)");
      continue;
    }
    if (!pod.terminal && !pod.controller && !options.force) {
      out.refused.emplace_back(pod.name, "Pods declare no controller (use --force to override)");
      continue;
    }
    out.evict.push_back(pod.name);
  }
  HASIM_ASSERT(out.evict.size() + out.ignored.size() + out.refused.size() == pods.size());
  return out;
}

PodEvictionLoop::Step PodEvictionLoop::fail(std::string why) {
  finished_ = true;
  failure_ = std::move(why);
  return {Next::Failed, {}};
}

PodEvictionLoop::Step PodEvictionLoop::next_try(LocalTime now) {
  HASIM_ASSERT(!finished_);
  // Each try first looks at the global context.
  if (past_deadline(now)) return fail("global timeout reached");
  ++attempts_;
  return {Next::Evict, {}};
}

PodEvictionLoop::Step PodEvictionLoop::on_eviction(EvictionResponse response) {
  HASIM_ASSERT(!finished_ && attempts_ > 0);
  switch (response) {
    case EvictionResponse::Accepted:
      return {Next::PollAfter, Duration{}};  // waitForDelete polls immediately
    case EvictionResponse::NotFound:
      finished_ = true;
      return {Next::Done, {}};
    case EvictionResponse::TooManyRequests:
      // "error when evicting pod (will retry after 5s)": next_try after the pause.
      return {Next::EvictAfter, kEvictionRetry};
    case EvictionResponse::OtherError:
      return fail("error when evicting pod");
  }
  HASIM_ASSERT(false && "unknown eviction response");
  return {};
}

PodEvictionLoop::Step PodEvictionLoop::on_poll(bool gone, LocalTime now) {
  HASIM_ASSERT(!finished_);
  if (gone) {
    finished_ = true;
    return {Next::Done, {}};
  }
  if (past_deadline(now))
    return fail("error when waiting for pod terminating: global timeout reached");
  return {Next::PollAfter, kDeletePoll};
}

}  // namespace hasim::cluster
