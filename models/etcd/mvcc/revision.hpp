#pragma once
// A revision of etcd's MVCC store (server/storage/mvcc/revision.go): `main` counts write
// transactions (one per txn that changed something), `sub` numbers the changes inside one
// txn from 0. The backend orders records by (main, sub); a reader at revision R sees every
// change with main <= R.
#include <compare>
#include <cstdint>

namespace hasim::etcd::mvcc {

struct Revision {
  std::int64_t main = 0;
  std::int64_t sub = 0;
  auto operator<=>(const Revision&) const = default;
  bool operator==(const Revision&) const = default;
};

}  // namespace hasim::etcd::mvcc
