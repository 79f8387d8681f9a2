#pragma once
// An optional value kept behind a pointer, with value semantics (a copy copies the value).
// raftpb.Message holds its snapshot as a pointer (`Snapshot *Snapshot`, raftpb/raft.pb.go),
// and so does this Message: a snapshot is large and rare, and an inline std::optional made
// every Message several times bigger, so every move of a message in the Ready cycle moved it.
// The interface is std::optional's, as far as the raft code uses it.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// A vector kept behind a pointer, null while empty: Message::responses, which only the
// storage messages of asynchronous storage writes fill. Inline, the nested std::vector<Message>
// made every Message's destructor call the vector's out of line (a recursive type), several
// times per simulated event; a null pointer is one inlined test. Empty and null compare
// equal, as the vector did.
template <typename T>
class LazyVector {
 public:
  LazyVector() = default;
  LazyVector(const LazyVector& other) { *this = other; }
  LazyVector(LazyVector&&) noexcept = default;
  LazyVector& operator=(const LazyVector& other) {
    if (this != &other) {
      items_ = other.empty() ? nullptr : std::make_unique<std::vector<T>>(*other.items_);
    }
    return *this;
  }
  LazyVector& operator=(LazyVector&&) noexcept = default;
  LazyVector& operator=(std::vector<T> items) {
    items_ = items.empty() ? nullptr : std::make_unique<std::vector<T>>(std::move(items));
    return *this;
  }

  bool empty() const { return items_ == nullptr || items_->empty(); }
  std::size_t size() const { return items_ == nullptr ? 0 : items_->size(); }
  const T* begin() const { return items_ == nullptr ? nullptr : items_->data(); }
  const T* end() const { return items_ == nullptr ? nullptr : items_->data() + items_->size(); }
  void push_back(T item) {
    if (items_ == nullptr) items_ = std::make_unique<std::vector<T>>();
    items_->push_back(std::move(item));
  }
  void clear() { items_.reset(); }
  // Moves the items out, leaving this empty.
  std::vector<T> take() {
    std::vector<T> items;
    if (items_ != nullptr) items = std::move(*items_);
    items_.reset();
    return items;
  }
  bool operator==(const LazyVector& other) const {
    if (size() != other.size()) return false;
    for (std::size_t i = 0; i < size(); ++i) {
      if (!((*items_)[i] == (*other.items_)[i])) return false;
    }
    return true;
  }

 private:
  std::unique_ptr<std::vector<T>> items_;
};

// A string kept behind a pointer, null while empty: Message::context, which only the
// heartbeats of ReadIndex requests and transfer campaigns fill. Inline, its std::string made
// every move of a Message copy the short-string buffer (a memcpy call), several moves per
// message; a null pointer moves as one word. Empty and null compare equal.
class LazyString {
 public:
  LazyString() = default;
  explicit LazyString(std::string_view text) { *this = text; }
  LazyString(const LazyString& other) { *this = other; }
  LazyString(LazyString&&) noexcept = default;
  LazyString& operator=(const LazyString& other) {
    if (this != &other) *this = other.view();
    return *this;
  }
  LazyString& operator=(LazyString&&) noexcept = default;
  LazyString& operator=(std::string_view text) {
    value_ = text.empty() ? nullptr : std::make_unique<std::string>(text);
    return *this;
  }

  bool empty() const { return value_ == nullptr || value_->empty(); }
  std::size_t size() const { return value_ == nullptr ? 0 : value_->size(); }
  const std::string& str() const {
    static const std::string none;
    return value_ == nullptr ? none : *value_;
  }
  std::string_view view() const { return str(); }
  bool operator==(const LazyString& other) const { return view() == other.view(); }
  bool operator==(std::string_view other) const { return view() == other; }

 private:
  std::unique_ptr<std::string> value_;
};

}  // namespace hasim::raft
