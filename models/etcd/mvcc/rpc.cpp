#include "models/etcd/mvcc/rpc.hpp"

#include <utility>

namespace hasim::etcd::mvcc {

std::string_view server_error_text(ServerError error) {
  switch (error) {
    case ServerError::none:
      return "";
    case ServerError::compacted:
      return mvcc_error_text(MvccError::compacted);
    case ServerError::future_rev:
      return mvcc_error_text(MvccError::future_rev);
    case ServerError::no_space:
      return "mvcc: database space exceeded";
    case ServerError::duplicate_key:
      return "etcdserver: duplicate key given in txn request";
    case ServerError::too_many_ops:
      return "etcdserver: too many operations in txn request";
    case ServerError::empty_key:
      return "etcdserver: key is not provided";
  }
  return "";
}

std::string_view grpc_error_text(ServerError error) {
  switch (error) {
    case ServerError::compacted:
      return "etcdserver: mvcc: required revision has been compacted";
    case ServerError::future_rev:
      return "etcdserver: mvcc: required revision is a future revision";
    case ServerError::no_space:
      return "etcdserver: mvcc: database space exceeded";
    default:
      return server_error_text(error);  // already the API layer's own texts
  }
}

ServerError from_mvcc(MvccError error) {
  switch (error) {
    case MvccError::none:
      return ServerError::none;
    case MvccError::compacted:
      return ServerError::compacted;
    case MvccError::future_rev:
      return ServerError::future_rev;
  }
  return ServerError::none;
}

RequestOp op_range(RangeRequest request) {
  RequestOp op;
  op.type = RequestOp::Type::range;
  op.range = std::move(request);
  return op;
}

RequestOp op_put(std::string key, std::string value) {
  RequestOp op;
  op.type = RequestOp::Type::put;
  op.put.key = std::move(key);
  op.put.value = std::move(value);
  return op;
}

RequestOp op_delete(std::string key, std::string range_end) {
  RequestOp op;
  op.type = RequestOp::Type::delete_range;
  op.delete_range.key = std::move(key);
  op.delete_range.range_end = std::move(range_end);
  return op;
}

RequestOp op_txn(TxnRequest request) {
  RequestOp op;
  op.type = RequestOp::Type::txn;
  op.txn.push_back(std::move(request));
  return op;
}

Compare compare_mod_revision(std::string key, CompareResult result, std::int64_t rev) {
  Compare c;
  c.result = result;
  c.target = CompareTarget::mod;
  c.key = std::move(key);
  c.number = rev;
  return c;
}

}  // namespace hasim::etcd::mvcc
