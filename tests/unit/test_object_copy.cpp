// Object's copy constructor copies member by member (object.cpp): every part, set or not,
// must come out equal to the original's.
#include <catch2/catch.hpp>

#include "models/apiserver/object.hpp"

namespace hasim::api {
namespace {

bool same(const Object& a, const Object& b) {
  return a.key == b.key && a.uid == b.uid && a.resourceVersion == b.resourceVersion &&
         a.creationTimestamp == b.creationTimestamp && a.labels == b.labels &&
         a.annotations == b.annotations && a.lease == b.lease && a.data == b.data &&
         a.candidate == b.candidate && a.pod == b.pod && a.pod_spec == b.pod_spec &&
         a.object_sync.objectKind == b.object_sync.objectKind &&
         a.object_sync.objectName == b.object_sync.objectName &&
         a.object_sync.objectResourceVersion == b.object_sync.objectResourceVersion &&
         a.kubelet_port == b.kubelet_port;
}

TEST_CASE("an Object's copy carries every member", "[object]") {
  Object full;
  full.key = ObjectKey{Kind::lease_candidate, "kube-system", "kube-scheduler-cp-1"};
  full.uid = "uid-1";
  full.resourceVersion = 42;
  full.creationTimestamp = LocalTime{7'000'000'000};
  full.labels = {{"a", "b"}};
  full.annotations = {{"c", "d"}};
  full.lease.holderIdentity = "cp-1";
  full.lease.leaseDurationSeconds = 15;
  full.lease.acquireTime = LocalTime{1};
  full.lease.renewTime = LocalTime{2};
  full.lease.leaseTransitions = 3;
  full.lease.strategy = "OldestEmulationVersion";
  full.lease.preferredHolder = "cp-2";
  full.data = {{"e", "f"}};
  full.candidate = LeaseCandidateSpec{"kube-scheduler",
                                      LocalTime{3},
                                      LocalTime{4},
                                      "1.32.0",
                                      "1.31.0",
                                      "OldestEmulationVersion",
                                      5};
  full.pod.readinessGates = {"gate"};
  full.pod.conditions = {{"Ready", "True"}};
  full.pod_spec = PodSpec{"node-1", {"cm"}, {"secret"}};
  full.object_sync = ObjectSyncSpec{"pod", "p", 9};
  full.kubelet_port = 10350;
  const Object copy = full;
  CHECK(same(copy, full));

  const Object empty;
  const Object empty_copy = empty;
  CHECK(same(empty_copy, empty));

  Object assigned = full;
  assigned = empty;  // assignment stays the implicit member-wise one
  CHECK(same(assigned, empty));
}

}  // namespace
}  // namespace hasim::api
