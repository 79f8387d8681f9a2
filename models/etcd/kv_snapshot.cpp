#include "models/etcd/kv_snapshot.hpp"

#include <map>
#include <set>

#include "sim/assert.hpp"

namespace hasim::etcd {
namespace {

constexpr char kStoreTag = 'S';
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 32;  // bounds a decoder's loops

void put_u64(std::string& out, std::uint64_t v) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (56 - 8 * i));
  out.append(bytes, sizeof bytes);
}
void put_i64(std::string& out, std::int64_t v) { put_u64(out, static_cast<std::uint64_t>(v)); }
void put_str(std::string& out, std::string_view s) {
  HASIM_ASSERT(s.size() < kMaxCount);
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>(s.size() >> shift));
  }
  out.append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && at_ == data_.size(); }
  std::uint64_t u(int bytes) {
    if (!ok_ || data_.size() - at_ < static_cast<std::size_t>(bytes)) return fail();
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(data_[at_++]);
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u(8)); }
  std::string str() {
    const std::uint64_t n = u(4);
    if (!ok_ || data_.size() - at_ < n) return (void)fail(), std::string();
    std::string s(data_.substr(at_, n));
    at_ += n;
    return s;
  }

 private:
  std::uint64_t fail() {
    ok_ = false;
    return 0;
  }
  std::string_view data_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace

bool store_empty(const mvcc::KvStore& store, const mvcc::Applier& applier) {
  return store.current_revision() == 1 && store.compact_revision() == -1 &&
         store.backend().empty() && store.db_size() == mvcc::kEmptyBackendBytes &&
         !applier.nospace();
}

std::string encode_store(const mvcc::KvStore& store, const mvcc::Applier& applier) {
  // The size first, so a large store is written without growing the string again and again:
  // per record two revisions, the flag, four numbers and two length-prefixed strings.
  std::size_t size = 1 + 8 * 5 + 8 * applier.nospace_members().size();
  for (const auto& [rev, record] : store.backend()) {
    size += 8 * 2 + 1 + 8 * 4 + 4 * 2 + record.kv.key.size() + record.kv.value.size();
  }
  std::string out;
  out.reserve(size);
  out.push_back(kStoreTag);
  put_i64(out, store.current_revision());
  put_i64(out, store.compact_revision());
  put_i64(out, store.db_size());
  put_u64(out, applier.nospace_members().size());
  for (std::uint64_t member : applier.nospace_members()) put_u64(out, member);
  put_u64(out, store.backend().size());
  for (const auto& [rev, record] : store.backend()) {
    put_i64(out, rev.main);
    put_i64(out, rev.sub);
    out.push_back(record.tombstone ? 1 : 0);
    put_str(out, record.kv.key);
    put_i64(out, record.kv.create_revision);
    put_i64(out, record.kv.mod_revision);
    put_i64(out, record.kv.version);
    put_str(out, record.kv.value);
    put_i64(out, record.kv.lease);
  }
  HASIM_ASSERT(out.size() == size);
  return out;
}

bool decode_store(std::string_view data, mvcc::KvStore& store, mvcc::Applier& applier) {
  Reader r(data);
  if (r.u(1) != static_cast<unsigned char>(kStoreTag)) return false;
  const std::int64_t current = r.i64();
  const std::int64_t compact = r.i64();
  const std::int64_t db_size = r.i64();
  std::set<std::uint64_t> alarms;
  const std::uint64_t n_alarms = r.u(8);
  for (std::uint64_t i = 0; r.ok() && i < n_alarms && i < kMaxCount; ++i) alarms.insert(r.u(8));
  std::map<mvcc::Revision, mvcc::BackendRecord> backend;
  const std::uint64_t n_records = r.u(8);
  for (std::uint64_t i = 0; r.ok() && i < n_records && i < kMaxCount; ++i) {
    mvcc::Revision rev{r.i64(), r.i64()};
    mvcc::BackendRecord rec;
    rec.tombstone = r.u(1) != 0;
    rec.kv.key = r.str();
    rec.kv.create_revision = r.i64();
    rec.kv.mod_revision = r.i64();
    rec.kv.version = r.i64();
    rec.kv.value = r.str();
    rec.kv.lease = r.i64();
    backend.emplace(rev, std::move(rec));
  }
  if (!r.done() || backend.size() != n_records) return false;
  store.restore(std::move(backend), current, compact, db_size);
  applier.restore_alarms(std::move(alarms));
  return true;
}

}  // namespace hasim::etcd
