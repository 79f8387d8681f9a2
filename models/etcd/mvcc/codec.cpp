#include "models/etcd/mvcc/codec.hpp"

#include <cstdint>

#include "models/etcd/mvcc/txn.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {
namespace {

class Writer {
 public:
  void u64(std::uint64_t value) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      out_.push_back(static_cast<char>((value >> shift) & 0xff));
    }
  }
  void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
  void byte(std::uint8_t value) { out_.push_back(static_cast<char>(value)); }
  void flag(bool value) { byte(value ? 1 : 0); }
  void count(std::size_t n) {
    HASIM_ASSERT(n <= 0xffffffffu);
    for (int shift = 24; shift >= 0; shift -= 8) {
      out_.push_back(static_cast<char>((n >> shift) & 0xff));
    }
  }
  void text(std::string_view s) {
    count(s.size());
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads in order; the first malformed field makes every later read a no-op and ok() false.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  bool at_end() const { return ok_ && pos_ == data_.size(); }
  std::uint64_t u64() { return take_be(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  std::uint8_t byte(std::uint8_t limit) {
    const auto value = static_cast<std::uint8_t>(take_be(1));
    if (value > limit) ok_ = false;  // an enum value that does not exist
    return ok_ ? value : 0;
  }
  bool flag() { return byte(1) == 1; }
  std::size_t count() {
    const std::uint64_t n = take_be(4);
    // Every item takes at least one byte, so a count beyond the data left is malformed.
    if (n > data_.size() - pos_) ok_ = false;
    return ok_ ? static_cast<std::size_t>(n) : 0;
  }
  std::string text() {
    const std::size_t n = count();
    if (!ok_) return {};
    std::string out(data_.substr(pos_, n));
    pos_ += n;
    return out;
  }

 private:
  std::uint64_t take_be(std::size_t width) {
    if (!ok_ || data_.size() - pos_ < width) {
      ok_ = false;
      return 0;
    }
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      value = (value << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    }
    pos_ += width;
    return value;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

template <typename Enum>
std::uint8_t raw(Enum value) {
  return static_cast<std::uint8_t>(value);
}

void put_range(Writer& w, const RangeRequest& r) {
  w.text(r.key);
  w.text(r.range_end);
  w.i64(r.limit);
  w.i64(r.revision);
  w.flag(r.serializable);
  w.flag(r.keys_only);
  w.flag(r.count_only);
}

RangeRequest get_range(Reader& r) {
  RangeRequest out;
  out.key = r.text();
  out.range_end = r.text();
  out.limit = r.i64();
  out.revision = r.i64();
  out.serializable = r.flag();
  out.keys_only = r.flag();
  out.count_only = r.flag();
  return out;
}

void put_put(Writer& w, const PutRequest& p) {
  w.text(p.key);
  w.text(p.value);
  w.flag(p.prev_kv);
}

PutRequest get_put(Reader& r) {
  PutRequest out;
  out.key = r.text();
  out.value = r.text();
  out.prev_kv = r.flag();
  return out;
}

void put_delete(Writer& w, const DeleteRangeRequest& d) {
  w.text(d.key);
  w.text(d.range_end);
  w.flag(d.prev_kv);
}

DeleteRangeRequest get_delete(Reader& r) {
  DeleteRangeRequest out;
  out.key = r.text();
  out.range_end = r.text();
  out.prev_kv = r.flag();
  return out;
}

void put_compare(Writer& w, const Compare& c) {
  w.byte(raw(c.result));
  w.byte(raw(c.target));
  w.text(c.key);
  w.text(c.range_end);
  w.i64(c.number);
  w.text(c.value);
}

Compare get_compare(Reader& r) {
  Compare out;
  out.result = static_cast<CompareResult>(r.byte(raw(CompareResult::not_equal)));
  out.target = static_cast<CompareTarget>(r.byte(raw(CompareTarget::lease)));
  out.key = r.text();
  out.range_end = r.text();
  out.number = r.i64();
  out.value = r.text();
  return out;
}

void put_txn(Writer& w, const TxnRequest& txn, int depth);
TxnRequest get_txn(Reader& r, int depth);

void put_op(Writer& w, const RequestOp& op, int depth) {
  w.byte(raw(op.type));
  switch (op.type) {
    case RequestOp::Type::range:
      put_range(w, op.range);
      break;
    case RequestOp::Type::put:
      put_put(w, op.put);
      break;
    case RequestOp::Type::delete_range:
      put_delete(w, op.delete_range);
      break;
    case RequestOp::Type::txn:
      HASIM_ASSERT(op.txn.size() == 1);
      put_txn(w, op.txn.front(), depth + 1);
      break;
  }
}

RequestOp get_op(Reader& r, int depth) {
  RequestOp op;
  op.type = static_cast<RequestOp::Type>(r.byte(raw(RequestOp::Type::txn)));
  if (!r.ok()) return op;
  switch (op.type) {
    case RequestOp::Type::range:
      op.range = get_range(r);
      break;
    case RequestOp::Type::put:
      op.put = get_put(r);
      break;
    case RequestOp::Type::delete_range:
      op.delete_range = get_delete(r);
      break;
    case RequestOp::Type::txn:
      op.txn.push_back(get_txn(r, depth + 1));
      break;
  }
  return op;
}

void put_ops(Writer& w, const std::vector<RequestOp>& ops, int depth) {
  w.count(ops.size());
  for (const RequestOp& op : ops) put_op(w, op, depth);
}

std::vector<RequestOp> get_ops(Reader& r, int depth) {
  const std::size_t n = r.count();
  std::vector<RequestOp> ops;
  for (std::size_t i = 0; i < n && r.ok(); ++i) ops.push_back(get_op(r, depth));
  return ops;
}

void put_txn(Writer& w, const TxnRequest& txn, int depth) {
  HASIM_ASSERT(depth < kMaxTxnDepth);
  w.count(txn.compare.size());
  for (const Compare& c : txn.compare) put_compare(w, c);
  put_ops(w, txn.success, depth);
  put_ops(w, txn.failure, depth);
}

TxnRequest get_txn(Reader& r, int depth) {
  TxnRequest txn;
  if (depth >= kMaxTxnDepth) {  // deeper than any encoder writes: refuse, do not recurse
    r.fail();
    return txn;
  }
  const std::size_t n = r.count();
  for (std::size_t i = 0; i < n && r.ok(); ++i) txn.compare.push_back(get_compare(r));
  txn.success = get_ops(r, depth);
  txn.failure = get_ops(r, depth);
  return txn;
}

}  // namespace

std::string encode_request(const InternalRaftRequest& request) {
  Writer w;
  w.byte(static_cast<std::uint8_t>(kRequestTag));
  w.u64(request.id);
  w.byte(raw(request.type));
  switch (request.type) {
    case InternalRaftRequest::Type::range:
      put_range(w, request.range);
      break;
    case InternalRaftRequest::Type::put:
      put_put(w, request.put);
      break;
    case InternalRaftRequest::Type::delete_range:
      put_delete(w, request.delete_range);
      break;
    case InternalRaftRequest::Type::txn:
      put_txn(w, request.txn, 0);
      break;
    case InternalRaftRequest::Type::compaction:
      w.i64(request.compaction.revision);
      break;
    case InternalRaftRequest::Type::alarm:
      w.byte(raw(request.alarm.action));
      w.u64(request.alarm.member_id);
      w.byte(raw(request.alarm.alarm));
      break;
  }
  return w.take();
}

std::optional<InternalRaftRequest> decode_request(std::string_view data) {
  Reader r(data);
  if (r.byte(0xff) != static_cast<std::uint8_t>(kRequestTag)) return std::nullopt;
  InternalRaftRequest request;
  request.id = r.u64();
  request.type =
      static_cast<InternalRaftRequest::Type>(r.byte(raw(InternalRaftRequest::Type::alarm)));
  if (!r.ok()) return std::nullopt;
  switch (request.type) {
    case InternalRaftRequest::Type::range:
      request.range = get_range(r);
      break;
    case InternalRaftRequest::Type::put:
      request.put = get_put(r);
      break;
    case InternalRaftRequest::Type::delete_range:
      request.delete_range = get_delete(r);
      break;
    case InternalRaftRequest::Type::txn:
      request.txn = get_txn(r, 0);
      break;
    case InternalRaftRequest::Type::compaction:
      request.compaction.revision = r.i64();
      break;
    case InternalRaftRequest::Type::alarm:
      request.alarm.action = static_cast<AlarmAction>(r.byte(raw(AlarmAction::deactivate)));
      request.alarm.member_id = r.u64();
      request.alarm.alarm = static_cast<AlarmType>(r.byte(raw(AlarmType::nospace)));
      break;
  }
  if (!r.at_end()) return std::nullopt;
  return request;
}

}  // namespace hasim::etcd::mvcc
