#pragma once
// An optional value kept behind a pointer, with value semantics (a copy copies the value).
// raftpb.Message holds its snapshot as a pointer (`Snapshot *Snapshot`, raftpb/raft.pb.go),
// and so does this Message: a snapshot is large and rare, and an inline std::optional made
// every Message several times bigger, so every move of a message in the Ready cycle moved it.
// The interface is std::optional's, as far as the raft code uses it.
#include <memory>
#include <optional>
#include <utility>

namespace hasim::raft {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const T& value) : value_(std::make_unique<T>(value)) {}  // NOLINT: like optional
  Boxed(T&& value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(const std::optional<T>& value) {  // NOLINT: like optional
    if (value) value_ = std::make_unique<T>(*value);
  }
  Boxed(const Boxed& other) : value_(other ? std::make_unique<T>(*other) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other ? std::make_unique<T>(*other) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;

  explicit operator bool() const { return value_ != nullptr; }
  bool has_value() const { return value_ != nullptr; }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }
  T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }
  void reset() { value_.reset(); }
  // Equal when both are empty or both hold equal values (as std::optional compares).
  bool operator==(const Boxed& other) const {
    if (!value_ || !other.value_) return !value_ && !other.value_;
    return *value_ == *other.value_;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace hasim::raft
