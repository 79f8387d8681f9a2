#pragma once
// What travels between clients and kube-apiserver (HTTP/2 over TCP: Transport::stream).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/apiserver/object.hpp"
#include "sim/env.hpp"

namespace hasim::api {

enum class Verb : std::uint8_t { get, list, create, update, delete_, watch };
inline constexpr Verb kVerbs[] = {Verb::get,    Verb::list,    Verb::create,
                                  Verb::update, Verb::delete_, Verb::watch};
std::string_view to_string(Verb verb);
std::optional<Verb> parse_verb(std::string_view name);  // "get", ..., "delete", "watch"
inline bool is_write(Verb verb) {
  return verb == Verb::create || verb == Verb::update || verb == Verb::delete_;
}

struct Request final : MessageBody {
  std::uint64_t id = 0;  // unique per client process incarnation
  Verb verb = Verb::get;
  ObjectKey key;     // list and watch use kind + namespace_
  ObjectPtr object;  // create and update; update carries the resourceVersion precondition
  std::string user;  // the client's identity, for traces and properties
  std::uint64_t resourceVersion = 0;  // watch: send events after this version
  std::string_view type() const override;
};

struct Response final : MessageBody {
  std::uint64_t id = 0;
  Status status = Status::ok;
  ObjectPtr object;
  std::vector<ObjectPtr> items;       // list
  std::uint64_t resourceVersion = 0;  // list: the store revision it reflects
  std::string_view type() const override;
};

// error: the watch ended (as a watch's ERROR event or a closed stream); object is null.
enum class WatchEventType : std::uint8_t { added, modified, deleted, error };

// One event on a watch opened by Request{verb = watch}; `watch` is that request's id.
struct WatchEvent final : MessageBody {
  std::uint64_t watch = 0;
  WatchEventType event = WatchEventType::added;
  ObjectPtr object;
  std::string_view type() const override;
};

}  // namespace hasim::api
