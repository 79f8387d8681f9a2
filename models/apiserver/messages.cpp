#include "models/apiserver/messages.hpp"

namespace hasim::api {

std::string_view to_string(Verb verb) {
  switch (verb) {
    case Verb::get:
      return "get";
    case Verb::list:
      return "list";
    case Verb::create:
      return "create";
    case Verb::update:
      return "update";
    case Verb::delete_:
      return "delete";
    case Verb::watch:
      return "watch";
  }
  return "?";
}

std::optional<Verb> parse_verb(std::string_view name) {
  for (Verb verb : kVerbs) {
    if (to_string(verb) == name) return verb;
  }
  return std::nullopt;
}

std::string_view Request::type() const { return "api-request"; }
std::string_view Response::type() const { return "api-response"; }
std::string_view WatchEvent::type() const { return "watch-event"; }

}  // namespace hasim::api
