// How kube-apiserver keeps API objects in etcd (models/apiserver/object_codec.hpp): the keys
// under /registry with upstream's resource prefixes, parsed back exactly; and the values'
// encoding, which round-trips every field but resourceVersion and rejects any byte string the
// encoder would not have written.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/object_codec.hpp"

using namespace hasim;
using namespace hasim::api;
using namespace std::string_literals;

namespace {

// Object has no operator==; every field but resourceVersion, which the codec leaves out.
bool same_but_revision(const Object& a, const Object& b) {
  return a.key == b.key && a.uid == b.uid && a.creationTimestamp == b.creationTimestamp &&
         a.labels == b.labels && a.annotations == b.annotations && a.lease == b.lease &&
         a.data == b.data && a.candidate == b.candidate && a.pod == b.pod &&
         a.pod_spec == b.pod_spec && a.object_sync == b.object_sync &&
         a.kubelet_port == b.kubelet_port;
}

bool round_trips(const Object& object) {
  const std::optional<Object> back = decode_object(encode_object(object));
  return back.has_value() && back->resourceVersion == 0 && same_but_revision(*back, object);
}

std::string magic() { return std::string("h\x01", 2); }

// ---- Generators (drawn inside a property) ----

template <typename T>
std::optional<T> draw_optional(const rc::Gen<T>& gen) {
  if (!*rc::gen::arbitrary<bool>()) return std::nullopt;
  return *gen;
}

std::optional<LocalTime> draw_time() {
  return draw_optional(rc::gen::map(rc::gen::arbitrary<std::int64_t>(),
                                    [](std::int64_t ns) { return LocalTime{ns}; }));
}

Object draw_object() {
  Object o;
  o.key.kind = static_cast<Kind>(*rc::gen::inRange(0, 9));
  o.key.namespace_ = *rc::gen::arbitrary<std::string>();
  o.key.name = *rc::gen::arbitrary<std::string>();
  o.uid = *rc::gen::arbitrary<std::string>();
  o.resourceVersion = *rc::gen::arbitrary<std::uint64_t>();
  o.creationTimestamp = LocalTime{*rc::gen::arbitrary<std::int64_t>()};
  o.labels = *rc::gen::arbitrary<std::map<std::string, std::string>>();
  o.annotations = *rc::gen::arbitrary<std::map<std::string, std::string>>();
  o.lease.holderIdentity = draw_optional(rc::gen::arbitrary<std::string>());
  o.lease.leaseDurationSeconds = draw_optional(rc::gen::arbitrary<std::int32_t>());
  o.lease.acquireTime = draw_time();
  o.lease.renewTime = draw_time();
  o.lease.leaseTransitions = draw_optional(rc::gen::arbitrary<std::int32_t>());
  o.lease.strategy = draw_optional(rc::gen::arbitrary<std::string>());
  o.lease.preferredHolder = draw_optional(rc::gen::arbitrary<std::string>());
  o.data = *rc::gen::arbitrary<std::map<std::string, std::string>>();
  o.candidate.leaseName = *rc::gen::arbitrary<std::string>();
  o.candidate.pingTime = draw_time();
  o.candidate.renewTime = draw_time();
  o.candidate.binaryVersion = *rc::gen::arbitrary<std::string>();
  o.candidate.emulationVersion = *rc::gen::arbitrary<std::string>();
  o.candidate.strategy = *rc::gen::arbitrary<std::string>();
  o.candidate.priority = draw_optional(rc::gen::arbitrary<std::int32_t>());
  o.pod.readinessGates = *rc::gen::arbitrary<std::vector<std::string>>();
  o.pod.conditions = *rc::gen::arbitrary<std::map<std::string, std::string>>();
  o.pod_spec.nodeName = *rc::gen::arbitrary<std::string>();
  o.pod_spec.configMaps = *rc::gen::arbitrary<std::vector<std::string>>();
  o.pod_spec.secrets = *rc::gen::arbitrary<std::vector<std::string>>();
  o.object_sync.objectKind = *rc::gen::arbitrary<std::string>();
  o.object_sync.objectName = *rc::gen::arbitrary<std::string>();
  o.object_sync.objectResourceVersion = draw_optional(rc::gen::arbitrary<std::uint64_t>());
  o.kubelet_port = *rc::gen::arbitrary<int>();
  return o;
}

// A path segment: what a Kubernetes name or namespace may be (no "/", not empty).
rc::Gen<std::string> gen_segment() {
  return rc::gen::nonEmpty(
      rc::gen::container<std::string>(rc::gen::element('a', 'z', '0', '-', '.', '_')));
}

// ---- Hand-built objects, one per kind ----

Object lease() {
  Object o;
  o.key = {Kind::lease, "kube-system", "kube-scheduler"};
  o.uid = "0b5e9c1a";
  o.resourceVersion = 42;
  o.creationTimestamp = LocalTime{1'700'000'000'000'000'000};
  o.lease.holderIdentity = "cp-1_4f2a";
  o.lease.leaseDurationSeconds = 15;
  o.lease.acquireTime = LocalTime{-1'500'000};  // before the epoch: a skewed clock
  o.lease.renewTime = LocalTime{1'700'000'012'000'001'000};
  o.lease.leaseTransitions = 0;  // set to zero is not unset
  o.lease.strategy = "OldestEmulationVersion";
  o.lease.preferredHolder = "";
  return o;
}

Object endpoints() {
  Object o;
  o.key = {Kind::endpoints, "kube-system", "kube-controller-manager"};
  o.annotations["control-plane.alpha.kubernetes.io/leader"] =
      R"({"holderIdentity":"cp-2","leaseDurationSeconds":15})";
  o.labels["app"] = "kcm";
  o.labels[""] = "";
  return o;
}

Object config_map() {
  Object o;
  o.key = {Kind::config_map, "kubeedge", "tunnel-port"};
  o.data["cloudcore-0"] = "10351";
  o.data["cloudcore-1"] = "10352";
  o.data[std::string("nul\0key", 7)] = std::string("\0\xff", 2);
  return o;
}

Object lease_candidate() {
  Object o;
  o.key = {Kind::lease_candidate, "kube-system", "kube-scheduler-cp-3"};
  o.candidate.leaseName = "kube-scheduler";
  o.candidate.pingTime = LocalTime{0};
  o.candidate.renewTime = LocalTime{123'456'000};
  o.candidate.binaryVersion = "1.33.0";
  o.candidate.emulationVersion = "1.32.0";
  o.candidate.strategy = "OldestEmulationVersion";
  o.candidate.priority = 3;
  return o;
}

Object pod() {
  Object o;
  o.key = {Kind::pod, "kubeedge", "cloudcore-7d9f"};
  o.pod.readinessGates = {"kubeedge.io/CloudCoreIsLeader", ""};
  o.pod.conditions = {{"Ready", "False"}, {"kubeedge.io/CloudCoreIsLeader", "Unknown"}};
  o.pod_spec.nodeName = "edge-1";
  o.pod_spec.configMaps = {"app-config", "app-config"};
  o.pod_spec.secrets = {"tls"};
  return o;
}

Object secret() {
  Object o;
  o.key = {Kind::secret, "default", "tls"};
  o.data["tls.crt"] = std::string(300, 'c');  // a length of two varint bytes
  return o;
}

Object object_sync() {
  Object o;
  o.key = {Kind::object_sync, "default", "edge-1.0b5e9c1a"};
  o.object_sync.objectKind = "configmap";
  o.object_sync.objectName = "app-config";
  o.object_sync.objectResourceVersion = std::uint64_t{18'446'744'073'709'551'615u};
  return o;
}

Object node() {
  Object o;
  o.key = {Kind::node, "", "edge-1"};
  o.kubelet_port = -10350;  // not meaningful, but an int: the sign must survive
  return o;
}

std::vector<Object> one_of_each_kind() {
  return {lease(), endpoints(), config_map(),  lease_candidate(),
          pod(),   secret(),    object_sync(), node()};
}

}  // namespace

TEST_CASE("etcd keys use kube-apiserver's resource prefixes", "[object-codec]") {
  struct Example {
    ObjectKey key;
    std::string etcd;
  };
  const std::vector<Example> examples{
      {{Kind::lease, "kube-system", "kube-scheduler"},
       "/registry/leases/kube-system/kube-scheduler"},
      {{Kind::endpoints, "kube-system", "kcm"}, "/registry/services/endpoints/kube-system/kcm"},
      {{Kind::config_map, "kubeedge", "tunnel"}, "/registry/configmaps/kubeedge/tunnel"},
      {{Kind::lease_candidate, "kube-system", "ks-1"},
       "/registry/leasecandidates/kube-system/ks-1"},
      {{Kind::pod, "kubeedge", "cloudcore-0"}, "/registry/pods/kubeedge/cloudcore-0"},
      {{Kind::secret, "default", "tls"}, "/registry/secrets/default/tls"},
      {{Kind::object_sync, "default", "edge-1.uid"},
       "/registry/reliablesyncs.kubeedge.io/objectsyncs/default/edge-1.uid"},
      {{Kind::node, "", "edge-1"}, "/registry/minions/edge-1"},
  };
  for (const Example& example : examples) {
    CAPTURE(example.etcd);
    CHECK(etcd_key(example.key) == example.etcd);
    CHECK(parse_etcd_key(example.etcd) == std::optional<ObjectKey>(example.key));
  }
}

TEST_CASE("etcd prefixes end in a slash and cover exactly their keys", "[object-codec]") {
  CHECK(etcd_prefix(Kind::lease, "kube-system") == "/registry/leases/kube-system/");
  CHECK(etcd_prefix(Kind::lease, "") == "/registry/leases/");
  CHECK(etcd_prefix(Kind::endpoints, "") == "/registry/services/endpoints/");
  CHECK(etcd_prefix(Kind::object_sync, "ns") ==
        "/registry/reliablesyncs.kubeedge.io/objectsyncs/ns/");
  CHECK(etcd_prefix(Kind::node, "") == "/registry/minions/");
  // Namespace "kube" must not range over "kube-system".
  CHECK_FALSE(
      etcd_key({Kind::lease, "kube-system", "x"}).starts_with(etcd_prefix(Kind::lease, "kube")));
  CHECK(etcd_key({Kind::lease, "kube-system", "x"})
            .starts_with(etcd_prefix(Kind::lease, "kube-system")));
}

TEST_CASE("parse_etcd_key rejects keys no kind maps to", "[object-codec]") {
  const std::vector<std::string> rejected{
      "",
      "/registry/",
      "/registry",
      "registry/leases/ns/a",
      "/registry/leases/ns",      // a namespaced kind without a name
      "/registry/leases/ns/",     // empty name
      "/registry/leases//a",      // empty namespace
      "/registry/leases/ns/a/b",  // a name with a slash
      "/registry/leases/",
      "/registry/leases",
      "/registry/leasesx/ns/a",
      "/registry/services/ns/a",         // services/specs is not modelled
      "/registry/services/endpoints/a",  // endpoints are namespaced
      "/registry/services/endpointsx/ns/a",
      "/registry/objectsyncs/ns/a",  // a CR's prefix has its group
      "/registry/minions/ns/a",      // nodes are cluster-scoped
      "/registry/minions/",
      "/registry/nodes/edge-1",  // nodes are stored as minions
      "/registry/endpoints/ns/a",
      "/other/leases/ns/a",
      "//registry/leases/ns/a",
  };
  for (const std::string& key : rejected) {
    CAPTURE(key);
    CHECK_FALSE(parse_etcd_key(key).has_value());
  }
}

TEST_CASE("etcd keys parse back to themselves", "[object-codec]") {
  rc::prop("etcd_key then parse_etcd_key", [] {
    ObjectKey key;
    key.kind = static_cast<Kind>(*rc::gen::inRange(0, 9));
    key.name = *gen_segment();
    if (key.kind != Kind::node) key.namespace_ = *gen_segment();
    const std::string etcd = etcd_key(key);
    RC_ASSERT(etcd.starts_with(etcd_prefix(key.kind, key.namespace_)));
    RC_ASSERT(etcd.starts_with(etcd_prefix(key.kind, "")));
    RC_ASSERT(parse_etcd_key(etcd) == std::optional<ObjectKey>(key));
  });
  rc::prop("parse_etcd_key then etcd_key", [] {
    const std::string resource = *rc::gen::element<std::string>(
        "leases", "services/endpoints", "services", "minions", "reliablesyncs.kubeedge.io", "pods",
        "configmaps", "secrets", "leasecandidates", "druid.gardener.cloud", "");
    const std::string rest = *rc::gen::container<std::string>(rc::gen::element('a', '/'));
    const std::string etcd = "/registry/" + resource + "/" + rest;
    const std::optional<ObjectKey> key = parse_etcd_key(etcd);
    if (key) RC_ASSERT(etcd_key(*key) == etcd);
  });
}

TEST_CASE("objects of every kind round-trip", "[object-codec]") {
  for (const Object& object : one_of_each_kind()) {
    CAPTURE(describe(object.key));
    CHECK(round_trips(object));
    CHECK(encode_object(object) == encode_object(object));  // deterministic
  }
  // resourceVersion is the key's mod_revision, not part of the value.
  Object a = lease();
  Object b = lease();
  b.resourceVersion = 7;
  CHECK(encode_object(a) == encode_object(b));
  // The fields carried make the value longer: the DB size grows with what is written.
  Object longer = lease();
  longer.annotations["note"] = std::string(1000, 'x');
  CHECK(encode_object(longer).size() > encode_object(lease()).size() + 1000);
}

TEST_CASE("fields at their defaults are left out", "[object-codec]") {
  CHECK(encode_object(Object{}) == magic());
  Object minimal;
  minimal.key = {Kind::lease, "ns", "a"};
  // magic, then namespace (tag, length, "ns") and name (tag, length, "a").
  CHECK(encode_object(minimal) == magic() + "\x02\x02ns\x03\x01"s + "a"s);
  // An optional set to its type's default is not unset.
  Object transitions = minimal;
  transitions.lease.leaseTransitions = 0;
  CHECK(encode_object(transitions).size() == encode_object(minimal).size() + 2);
  CHECK(round_trips(transitions));
  const std::optional<Object> back = decode_object(magic());
  REQUIRE(back.has_value());
  CHECK(same_but_revision(*back, Object{}));
}

TEST_CASE("malformed values do not decode", "[object-codec]") {
  const std::string good = magic() + "\x02\x02ns\x03\x01"s + "a"s;
  REQUIRE(decode_object(good).has_value());
  for (std::size_t size = 0; size < good.size(); ++size) {
    CAPTURE(size);
    // Every prefix stops mid-entry but magic alone and magic plus the namespace's entry.
    const bool boundary = size == magic().size() || size == magic().size() + 4;
    CHECK(decode_object(good.substr(0, size)).has_value() == boundary);
  }
  const std::vector<std::string> rejected{
      "",
      "h",
      std::string("h\x02", 2),                 // another format version
      std::string("k8s\0", 4),                 // upstream's protobuf
      good + '\0',                             // a trailing byte
      good + "\x03\x01"s + "b"s,               // a field twice
      magic() + "\x03\x01"s + "a\x02\x02ns"s,  // fields out of order
      magic() + "\x20\x01"s,                   // a field that does not exist
      magic() + "\x00"s,                       // nor does field 0
      magic() + "\x02\x00"s,                   // an empty namespace is the default
      magic() + "\x01\x00"s,                   // Kind::lease is the default
      magic() + "\x01\x09"s,                   // no Kind 9
      magic() + "\x02\x82\x00"s + "ab"s,       // a length not in its shortest form
      magic() + "\x02\x05"s + "ab"s,           // a length past the end
      magic() + "\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s,      // a length of 2^64 - 1
      magic() + "\x1e\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"s,      // a varint past 64 bits
      magic() + "\x1e\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s,  // eleven bytes
      magic() + "\x1e\x80"s,                                          // a varint cut short
      magic() + "\x09\x80\x80\x80\x80\x10"s,                // 2^31 as an int32 (zigzag 2^32)
      magic() + "\x1f\x00"s,                                // kubelet_port 0 is the default
      magic() + "\x05\x00"s,                                // so is creationTimestamp 0
      magic() + "\x06\x00"s,                                // and an empty map
      magic() + "\x17\x00"s,                                // and an empty list
      magic() + "\x06\x01\x01"s + "b"s,                     // a map's pair cut short
      magic() + "\x06\x02\x01"s + "b\x00\x01"s + "a\x00"s,  // map keys out of order
      magic() + "\x06\x02\x01"s + "a\x00\x01"s + "a\x00"s,  // a key twice
      magic() + "\x17\x05\x00"s,                            // more list items than bytes
  };
  for (const std::string& bytes : rejected) {
    CAPTURE(bytes);
    CHECK_FALSE(decode_object(bytes).has_value());
  }
  // The accepted forms next to the rejected ones above.
  CHECK(decode_object(magic() + "\x06\x02\x01"s + "a\x00\x01"s + "b\x00"s).has_value());
  CHECK(decode_object(magic() + "\x09\xfe\xff\xff\xff\x0f"s).has_value());  // 2^31 - 1
  CHECK(decode_object(magic() + "\x1e\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s).has_value());
}

TEST_CASE("random objects round-trip exactly", "[object-codec]") {
  rc::prop("decode(encode(o)) == o but resourceVersion", [] {
    const Object object = draw_object();
    const std::string bytes = encode_object(object);
    const std::optional<Object> back = decode_object(bytes);
    RC_ASSERT(back.has_value());
    RC_ASSERT(back->resourceVersion == 0u);
    RC_ASSERT(same_but_revision(*back, object));
    RC_ASSERT(encode_object(*back) == bytes);
  });
}

TEST_CASE("decode accepts only what encode writes", "[object-codec]") {
  // Whatever decodes re-encodes to the very same bytes: the decoder is the exact inverse.
  const auto accepted_exactly = [](const std::string& bytes) {
    const std::optional<Object> back = decode_object(bytes);
    return !back || encode_object(*back) == bytes;
  };
  rc::prop("random bytes", [&](const std::string& bytes) {
    RC_ASSERT(accepted_exactly(bytes));
    RC_ASSERT(accepted_exactly(magic() + bytes));
  });
  rc::prop("truncations and changes of a valid encoding", [&] {
    const std::string bytes = encode_object(draw_object());
    const std::size_t cut = *rc::gen::inRange<std::size_t>(0, bytes.size() + 1);
    RC_ASSERT(accepted_exactly(bytes.substr(0, cut)));
    std::string changed = bytes;
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, bytes.size());
    changed[at] = *rc::gen::arbitrary<char>();
    RC_ASSERT(accepted_exactly(changed));
    // Every field's value is at least one byte, so one more byte never decodes: a later
    // field's tag without its value, or an earlier one out of order.
    RC_ASSERT(!decode_object(bytes + *rc::gen::arbitrary<char>()).has_value());
  });
}
