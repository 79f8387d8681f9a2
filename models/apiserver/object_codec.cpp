#include "models/apiserver/object_codec.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "sim/assert.hpp"

namespace hasim::api {

namespace {

// ---- Keys -------------------------------------------------------------------------------

struct Resource {
  Kind kind;
  std::string_view prefix;  // the resource's directory under "/registry/"
  bool namespaced;
};

// The storage prefixes kube-apiserver uses. Most built-in resources are stored under their
// plural name; a few keep the names of older releases, compiled in as
// SpecialDefaultResourcePrefixes (kubernetes/kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go: endpoints -> "services/endpoints",
// nodes -> "minions"). A CustomResource is stored under "<group>/<plural>"
// (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go,
// CRDRESTOptionsGetter.GetRESTOptions: ResourcePrefix = resource.Group + "/" +
// resource.Resource), hence KubeEdge's ObjectSync under "reliablesyncs.kubeedge.io/objectsyncs".
constexpr std::array<Resource, 9> kResources{{
    {Kind::lease, "leases", true},
    {Kind::endpoints, "services/endpoints", true},
    {Kind::config_map, "configmaps", true},
    {Kind::lease_candidate, "leasecandidates", true},
    {Kind::pod, "pods", true},
    {Kind::secret, "secrets", true},
    {Kind::object_sync, "reliablesyncs.kubeedge.io/objectsyncs", true},
    {Kind::node, "minions", false},
    {Kind::etcd, "druid.gardener.cloud/etcds", true},
}};

const Resource& resource_of(Kind kind) {
  const auto index = static_cast<std::size_t>(kind);
  HASIM_ASSERT(index < kResources.size());
  const Resource& resource = kResources[index];
  HASIM_ASSERT(resource.kind == kind);  // the table is in Kind's order
  return resource;
}

// A path segment the key functions accept: NamespaceKeyFunc refuses a name with "/" in it
// (path.IsValidPathSegmentName), which is also what keeps parse_etcd_key unambiguous.
bool is_segment(std::string_view text) {
  return !text.empty() && text.find('/') == std::string_view::npos;
}

}  // namespace

std::string etcd_key(const ObjectKey& key) {
  const Resource& resource = resource_of(key.kind);
  HASIM_ASSERT(is_segment(key.name));
  // A namespaced kind without a namespace is refused upstream before it reaches etcd
  // (NamespaceKeyFunc: "Namespace parameter required"); a cluster-scoped one has none.
  HASIM_ASSERT(resource.namespaced ? is_segment(key.namespace_) : key.namespace_.empty());
  std::string result = etcd_prefix(key.kind, key.namespace_);
  result += key.name;
  return result;
}

std::string etcd_prefix(Kind kind, const std::string& namespace_) {
  const Resource& resource = resource_of(kind);
  HASIM_ASSERT(namespace_.empty() || (resource.namespaced && is_segment(namespace_)));
  std::string result(kRegistryPrefix);
  result += resource.prefix;
  result += '/';
  // The trailing "/" keeps a list of namespace "a" from ranging over namespace "ab" too.
  if (!namespace_.empty()) {
    result += namespace_;
    result += '/';
  }
  HASIM_ASSERT(result.back() == '/');
  return result;
}

std::optional<ObjectKey> parse_etcd_key(std::string_view key) {
  if (!key.starts_with(kRegistryPrefix)) return std::nullopt;
  key.remove_prefix(kRegistryPrefix.size());
  // No resource's prefix is a path prefix of another's, so at most one matches; the prefix
  // must be followed by "/", or "services/endpointsx/..." would parse as endpoints.
  for (const Resource& resource : kResources) {
    if (!key.starts_with(resource.prefix)) continue;
    std::string_view rest = key.substr(resource.prefix.size());
    if (!rest.starts_with('/')) continue;
    rest.remove_prefix(1);
    ObjectKey result{resource.kind, {}, {}};
    if (resource.namespaced) {
      const std::size_t slash = rest.find('/');
      if (slash == std::string_view::npos) return std::nullopt;
      const std::string_view namespace_ = rest.substr(0, slash);
      const std::string_view name = rest.substr(slash + 1);
      if (!is_segment(namespace_) || !is_segment(name)) return std::nullopt;
      result.namespace_ = std::string(namespace_);
      result.name = std::string(name);
    } else {
      if (!is_segment(rest)) return std::nullopt;
      result.name = std::string(rest);
    }
    HASIM_ASSERT(etcd_key(result) == std::string(kRegistryPrefix) + std::string(key));
    return result;
  }
  return std::nullopt;
}

namespace {

// ---- Values -----------------------------------------------------------------------------
//
// The encoding: kMagic, then one entry per field that differs from its default (an optional
// that is set counts, whatever its value), in increasing field number. An entry is the field's
// number in one byte and its value: an unsigned integer as a base-128 varint, a signed one
// zigzag-encoded first (times may be before the epoch), a string as its length and bytes, a
// list or map as its count and then its strings. The field's type is implied by its number,
// so there is no wire type; the value is a private format, never read by anyone else.
//
// One list of the fields (visit_fields) drives both directions, so encoder and decoder cannot
// disagree. The decoder accepts only what the encoder writes, byte for byte: fields in order,
// none at its default, varints in their shortest form, map keys in increasing order, nothing
// after the last field. Hence decode_object(b) succeeds only if encode_object(*it) == b.

// "h" for hasim and a format version, much as upstream's "k8s\0" marks its protobuf.
constexpr std::string_view kMagic{"h\x01", 2};

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Every field of an Object but resourceVersion, with its field number. `ObjectT` is
// `const Object` when encoding and `Object` when decoding.
template <typename ObjectT, typename Visitor>
void visit_fields(ObjectT& o, Visitor& v) {
  v.kind(1, o.key.kind);
  v.string(2, o.key.namespace_);
  v.string(3, o.key.name);
  v.string(4, o.uid);
  v.time(5, o.creationTimestamp);
  v.map(6, o.labels);
  v.map(7, o.annotations);
  v.optional_string(8, o.lease.holderIdentity);
  v.optional_int32(9, o.lease.leaseDurationSeconds);
  v.optional_time(10, o.lease.acquireTime);
  v.optional_time(11, o.lease.renewTime);
  v.optional_int32(12, o.lease.leaseTransitions);
  v.optional_string(13, o.lease.strategy);
  v.optional_string(14, o.lease.preferredHolder);
  v.map(15, o.data);
  v.string(16, o.candidate.leaseName);
  v.optional_time(17, o.candidate.pingTime);
  v.optional_time(18, o.candidate.renewTime);
  v.string(19, o.candidate.binaryVersion);
  v.string(20, o.candidate.emulationVersion);
  v.string(21, o.candidate.strategy);
  v.optional_int32(22, o.candidate.priority);
  v.list(23, o.pod.readinessGates);
  v.map(24, o.pod.conditions);
  v.string(25, o.pod_spec.nodeName);
  v.list(26, o.pod_spec.configMaps);
  v.list(27, o.pod_spec.secrets);
  v.string(28, o.object_sync.objectKind);
  v.string(29, o.object_sync.objectName);
  v.optional_uint64(30, o.object_sync.objectResourceVersion);
  v.int32(31, o.kubelet_port);
}

// Appends the entries of the fields not at their defaults.
class Writer {
 public:
  std::string out{kMagic};

  void kind(std::uint8_t field, Kind value) {
    if (value != Kind{}) uint64(field, static_cast<std::uint64_t>(value));
  }
  void string(std::uint8_t field, const std::string& value) {
    if (value.empty()) return;
    tag(field);
    put_string(value);
  }
  void time(std::uint8_t field, LocalTime value) {
    if (value.ns != 0) optional_time(field, value);
  }
  void int32(std::uint8_t field, int value) {
    if (value != 0) optional_int32(field, value);
  }
  void optional_string(std::uint8_t field, const std::optional<std::string>& value) {
    if (!value) return;
    tag(field);
    put_string(*value);
  }
  void optional_int32(std::uint8_t field, const std::optional<std::int32_t>& value) {
    if (value) optional_int64(field, *value);
  }
  void optional_time(std::uint8_t field, const std::optional<LocalTime>& value) {
    if (value) optional_int64(field, value->ns);
  }
  void optional_uint64(std::uint8_t field, const std::optional<std::uint64_t>& value) {
    if (value) uint64(field, *value);
  }
  void list(std::uint8_t field, const std::vector<std::string>& value) {
    if (value.empty()) return;
    tag(field);
    put_varint(value.size());
    for (const std::string& item : value) put_string(item);
  }
  void map(std::uint8_t field, const std::map<std::string, std::string>& value) {
    if (value.empty()) return;
    tag(field);
    put_varint(value.size());
    for (const auto& [key, item] : value) {
      put_string(key);
      put_string(item);
    }
  }

 private:
  std::uint8_t last_field_ = 0;

  void tag(std::uint8_t field) {
    HASIM_ASSERT(field > last_field_);  // visit_fields lists the fields in increasing order
    last_field_ = field;
    out += static_cast<char>(field);
  }
  void uint64(std::uint8_t field, std::uint64_t value) {
    tag(field);
    put_varint(value);
  }
  void optional_int64(std::uint8_t field, std::int64_t value) { uint64(field, zigzag(value)); }
  void put_varint(std::uint64_t value) {
    for (int i = 0; i < 10 && value >= 0x80; ++i) {  // 64 bits take at most 10 bytes
      out += static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    HASIM_ASSERT(value < 0x80);
    out += static_cast<char>(value);
  }
  void put_string(std::string_view value) {
    put_varint(value.size());
    out += value;
  }
};

}  // namespace

std::string encode_object(const Object& object) {
  Writer writer;
  visit_fields(object, writer);
  HASIM_ASSERT(writer.out.starts_with(kMagic));
  return std::move(writer.out);
}

namespace {

// Reads the entries back into an Object. The first malformed byte clears `ok_`, and every
// later read then does nothing, so the caller checks once at the end; no read goes past the
// end of the input.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool finished_cleanly() const { return ok_ && pos_ == in_.size(); }

  void kind(std::uint8_t field, Kind& value) {
    std::uint64_t raw = 0;
    if (!entry_uint64(field, raw)) return;
    // Zero is the default and never written; beyond etcd no Kind exists.
    check(raw != 0 && raw <= static_cast<std::uint64_t>(Kind::etcd));
    if (ok_) value = static_cast<Kind>(raw);
  }
  void string(std::uint8_t field, std::string& value) {
    if (!enter(field)) return;
    get_string(value);
    check(!value.empty());
  }
  void time(std::uint8_t field, LocalTime& value) {
    std::optional<LocalTime> read;
    optional_time(field, read);
    if (!read) return;
    check(read->ns != 0);
    value = *read;
  }
  void int32(std::uint8_t field, int& value) {
    std::optional<std::int32_t> read;
    optional_int32(field, read);
    if (!read) return;
    check(*read != 0);
    value = *read;
  }
  void optional_string(std::uint8_t field, std::optional<std::string>& value) {
    if (!enter(field)) return;
    get_string(value.emplace());
  }
  void optional_int32(std::uint8_t field, std::optional<std::int32_t>& value) {
    std::uint64_t raw = 0;
    if (!entry_uint64(field, raw)) return;
    const std::int64_t wide = unzigzag(raw);
    check(wide >= std::numeric_limits<std::int32_t>::min() &&
          wide <= std::numeric_limits<std::int32_t>::max());
    if (ok_) value = static_cast<std::int32_t>(wide);
  }
  void optional_time(std::uint8_t field, std::optional<LocalTime>& value) {
    std::uint64_t raw = 0;
    if (entry_uint64(field, raw)) value = LocalTime{unzigzag(raw)};
  }
  void optional_uint64(std::uint8_t field, std::optional<std::uint64_t>& value) {
    std::uint64_t raw = 0;
    if (entry_uint64(field, raw)) value = raw;
  }
  void list(std::uint8_t field, std::vector<std::string>& value);
  void map(std::uint8_t field, std::map<std::string, std::string>& value);

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;

  void check(bool condition) { ok_ = ok_ && condition; }

  // Consumes the field's tag if the next entry is that field's; a field after it, or none,
  // means this one was at its default.
  bool enter(std::uint8_t field) {
    if (!ok_ || pos_ >= in_.size() || static_cast<std::uint8_t>(in_[pos_]) != field) {
      return false;
    }
    ++pos_;
    return true;
  }
  bool entry_uint64(std::uint8_t field, std::uint64_t& value) {
    if (!enter(field)) return false;
    get_varint(value);
    return ok_;
  }
  void get_varint(std::uint64_t& value);
  void get_string(std::string& value);
  // A count of items that take at least `min_bytes` each: more than the input has left is
  // malformed, which also bounds the loops that read them.
  bool get_count(std::uint64_t& count, std::size_t min_bytes);
};

void Reader::get_varint(std::uint64_t& value) {
  value = 0;
  for (unsigned i = 0; ok_ && i < 10; ++i) {
    check(pos_ < in_.size());
    if (!ok_) return;
    const auto byte = static_cast<std::uint8_t>(in_[pos_++]);
    // The 10th byte carries bit 63 only; a last byte of 0 (but for the value 0 itself) is a
    // longer form than the encoder's.
    check(i < 9 || byte <= 1);
    value |= static_cast<std::uint64_t>(byte & 0x7F) << (7 * i);
    if (byte < 0x80) {
      check(i == 0 || byte != 0);
      return;
    }
  }
  check(false);  // ten bytes, all with a continuation bit
}

void Reader::get_string(std::string& value) {
  std::uint64_t size = 0;
  get_varint(size);
  check(size <= in_.size() - pos_);
  if (!ok_) return;
  value.assign(in_.substr(pos_, static_cast<std::size_t>(size)));
  pos_ += static_cast<std::size_t>(size);
}

bool Reader::get_count(std::uint64_t& count, std::size_t min_bytes) {
  get_varint(count);
  // Zero items is the default, never written.
  check(count != 0 && count <= (in_.size() - pos_) / min_bytes);
  return ok_;
}

void Reader::list(std::uint8_t field, std::vector<std::string>& value) {
  std::uint64_t count = 0;
  if (!enter(field) || !get_count(count, 1)) return;  // an item is at least its length byte
  value.resize(static_cast<std::size_t>(count));
  for (std::string& item : value) get_string(item);
}

void Reader::map(std::uint8_t field, std::map<std::string, std::string>& value) {
  std::uint64_t count = 0;
  if (!enter(field) || !get_count(count, 2)) return;  // a pair is at least two length bytes
  for (std::uint64_t i = 0; ok_ && i < count; ++i) {
    std::string key;
    std::string item;
    get_string(key);
    get_string(item);
    // Keys strictly increasing, as the encoder writes a std::map: no duplicates, one order.
    check(value.empty() || value.rbegin()->first < key);
    if (ok_) value.emplace_hint(value.end(), std::move(key), std::move(item));
  }
}

}  // namespace

std::optional<Object> decode_object(std::string_view bytes) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  Reader reader(bytes.substr(kMagic.size()));
  Object object;
  visit_fields(object, reader);
  // A byte left over is a field out of order, an unknown field, or trailing garbage.
  if (!reader.finished_cleanly()) return std::nullopt;
  HASIM_ASSERT(object.resourceVersion == 0);
  return object;
}

}  // namespace hasim::api
