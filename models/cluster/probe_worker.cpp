#include "models/cluster/probe_worker.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::cluster {

std::string_view name(ProbeType type) {
  switch (type) {
    case ProbeType::Liveness:
      return "Liveness";
    case ProbeType::Readiness:
      return "Readiness";
    case ProbeType::Startup:
      return "Startup";
  }
  HASIM_ASSERT(false && "unknown probe type");
  return "";
}

std::string_view name(ProbeResult result) {
  switch (result) {
    case ProbeResult::Unknown:
      return "UNKNOWN";
    case ProbeResult::Success:
      return "Success";
    case ProbeResult::Failure:
      return "Failure";
  }
  HASIM_ASSERT(false && "unknown probe result");
  return "";
}

namespace {

// newWorker: a readiness probe starts as Failure (not ready until proven), a liveness probe
// as Success (alive until proven dead), a startup probe as Unknown.
ProbeResult initial_value(ProbeType type) {
  switch (type) {
    case ProbeType::Readiness:
      return ProbeResult::Failure;
    case ProbeType::Liveness:
      return ProbeResult::Success;
    case ProbeType::Startup:
      return ProbeResult::Unknown;
  }
  return ProbeResult::Unknown;
}

}  // namespace

ProbeWorker::ProbeWorker(ProbeType type, ProbeSpec spec)
    : type_(type), spec_(spec), initial_(initial_value(type)) {
  HASIM_ASSERT(spec_.periodSeconds >= 1 && spec_.timeoutSeconds >= 1);
  HASIM_ASSERT(spec_.initialDelaySeconds >= 0);
  HASIM_ASSERT(spec_.successThreshold >= 1 && spec_.failureThreshold >= 1);
  // API validation: liveness and startup probes need successThreshold 1.
  HASIM_ASSERT(type_ == ProbeType::Readiness || spec_.successThreshold == 1);
}

Duration ProbeWorker::first_delay(bool kubeletStartedRecently, double unit) const {
  HASIM_ASSERT(unit >= 0.0 && unit < 1.0);
  if (!kubeletStartedRecently) return Duration{};
  const Duration period = seconds(spec_.periodSeconds);
  return Duration{static_cast<std::int64_t>(unit * static_cast<double>(period.ns))};
}

ProbeWorker::Before ProbeWorker::before(const ProbedPod& pod, const ProbedContainer& container,
                                        LocalTime now) {
  if (pod.phase == PodPhase::Failed || pod.phase == PodPhase::Succeeded) return {false, false};
  if (container.containerId.empty()) return {true, false};  // not created yet, or deleted
  if (container.containerId != containerId_) {
    // A new container: its result starts over and probing resumes.
    containerId_ = container.containerId;
    result_ = initial_;
    onHold_ = false;
  }
  if (onHold_) return {true, false};
  if (!container.running) {
    result_ = ProbeResult::Failure;
    // Abort if the container will not be restarted.
    return {!container.terminated || !pod.restartPolicyNever, false};
  }
  if (pod.deleting && type_ != ProbeType::Readiness) {
    result_ = ProbeResult::Success;  // a quiet shutdown: no restart while terminating
    return {false, false};
  }
  // InitialDelaySeconds against whole seconds since the start (int32 of Seconds()).
  const std::int64_t elapsed = (now - container.startedAt).ns / 1'000'000'000;
  if (elapsed < spec_.initialDelaySeconds) return {true, false};
  // The startup probe runs until the container has started, the others only after.
  if (container.started == (type_ == ProbeType::Startup)) return {true, false};
  return {true, true};
}

void ProbeWorker::after(ProbeResult outcome) {
  if (lastResult_ == outcome) {
    ++resultRun_;
  } else {
    lastResult_ = outcome;
    resultRun_ = 1;
  }
  // Below its threshold a result leaves the published value alone.
  if ((outcome == ProbeResult::Failure && resultRun_ < spec_.failureThreshold) ||
      (outcome == ProbeResult::Success && resultRun_ < spec_.successThreshold)) {
    return;
  }
  result_ = outcome;
  if (type_ != ProbeType::Readiness && outcome == ProbeResult::Failure) {
    onHold_ = true;
    resultRun_ = 0;
  }
}

bool ProbeWorker::restart_needed() const {
  return type_ != ProbeType::Readiness && result_ == ProbeResult::Failure && onHold_;
}

bool containers_ready(const std::vector<ContainerReadiness>& containers) {
  if (containers.empty()) return false;
  return std::all_of(containers.begin(), containers.end(), [](const ContainerReadiness& c) {
    // prober_manager UpdatePodStatus: a container that does not run is not ready.
    if (!c.running) return false;
    if (c.hasReadinessProbe) return c.readiness == ProbeResult::Success;
    return c.started;
  });
}

}  // namespace hasim::cluster
