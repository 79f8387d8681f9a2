#pragma once
// One container's liveness, readiness or startup probe as the kubelet runs it
// (pkg/kubelet/prober/worker.go, doProbe): what the results manager holds for the container,
// when a probe is sent at all, and when a liveness or startup failure asks for a restart.
// Pure: the caller ticks it every periodSeconds (after a random first delay when the kubelet
// has just started: first_delay), sends the probe when before() says so, feeds the outcome
// to after(), and kills the container when restart_needed() turns true.
//
// Pod readiness from the results (pkg/kubelet/status/generate.go) is `containers_ready`: a
// container with a readiness probe is ready when its result is Success; one without is ready
// once it runs and has started (a startup probe succeeded, or there is none).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster/statefulset_control.hpp"
#include "sim/time.hpp"

namespace hasim::cluster {

enum class ProbeType { Liveness, Readiness, Startup };
enum class ProbeResult { Unknown, Success, Failure };
std::string_view name(ProbeType type);
std::string_view name(ProbeResult result);

// v1.Probe's timing, with the API server's defaults.
struct ProbeSpec {
  std::int32_t initialDelaySeconds = 0;
  std::int32_t periodSeconds = 10;
  std::int32_t timeoutSeconds = 1;
  std::int32_t successThreshold = 1;  // must be 1 for liveness and startup
  std::int32_t failureThreshold = 3;
};

// What the worker reads of its container from the pod status (the status manager's copy).
struct ProbedContainer {
  std::string containerId;  // "" until the runtime created it
  bool running = false;
  bool terminated = false;  // a terminated state is recorded (not waiting)
  LocalTime startedAt{};    // State.Running.StartedAt, the kubelet's clock
  bool started = false;     // ContainerStatus.Started
};

struct ProbedPod {
  PodPhase phase = PodPhase::Running;
  bool deleting = false;  // deletionTimestamp set: graceful shutdown
  bool restartPolicyNever = false;
};

class ProbeWorker {
 public:
  ProbeWorker(ProbeType type, ProbeSpec spec);

  // Run's first wait: when the kubelet started less than a period ago, a random part of the
  // period (`unit` uniform in [0, 1)); otherwise none.
  Duration first_delay(bool kubeletStartedRecently, double unit) const;

  struct Before {
    bool keepGoing = true;  // false: the worker stops (pod terminated, shutdown, Never)
    bool probe = false;     // send the probe now and call after() with its outcome
  };
  // doProbe up to the probe itself, on one tick.
  Before before(const ProbedPod& pod, const ProbedContainer& container, LocalTime now);
  // doProbe after the probe: thresholds, the result, and the hold after a failure.
  void after(ProbeResult outcome);

  ProbeResult result() const { return result_; }  // the results manager's value
  const std::string& container_id() const { return containerId_; }
  // A liveness or startup failure reached its threshold: the kubelet kills the container;
  // the worker holds until it sees a new container ID.
  bool restart_needed() const;

 private:
  ProbeType type_;
  ProbeSpec spec_;
  std::string containerId_;
  ProbeResult initial_;
  ProbeResult result_ = ProbeResult::Unknown;
  ProbeResult lastResult_ = ProbeResult::Unknown;
  std::int32_t resultRun_ = 0;
  bool onHold_ = false;
};

// One container's readiness inputs, for containers_ready.
struct ContainerReadiness {
  bool running = false;
  bool started = false;
  bool hasReadinessProbe = false;
  ProbeResult readiness = ProbeResult::Unknown;
};
// The ContainersReady condition: every container ready (none: false).
bool containers_ready(const std::vector<ContainerReadiness>& containers);

}  // namespace hasim::cluster
