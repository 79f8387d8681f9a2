#include "properties/linearizability/history_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/assert.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim::linearizability {

namespace {

using nlohmann::json;

const std::vector<std::string> kOperationFields{
    "id",        "process",   "key",     "op",    "value", "expected_mod_revision",
    "invoke_ns", "return_ns", "outcome", "output"};
const std::vector<std::string> kOutputFields{"succeeded", "found", "value", "mod_revision",
                                             "revision"};

bool takes_value(OpKind kind) { return kind == OpKind::put || kind == OpKind::cas_put; }

// Written in the order the format documents (history_json.hpp), not sorted by name.
using ordered = nlohmann::ordered_json;

// The output fields an operation defines (history.hpp, Output), in a fixed order.
ordered output_json(const Operation& op) {
  const Output& o = op.output;
  ordered out = ordered::object();
  const bool reads = op.kind == OpKind::get || (is_compare(op.kind) && !o.succeeded);
  if (op.kind == OpKind::del || is_compare(op.kind)) out["succeeded"] = o.succeeded;
  if (reads) {
    out["found"] = o.found;
    if (o.found) out["value"] = o.value;
    if (o.found) out["mod_revision"] = o.mod_revision;
  }
  out["revision"] = o.revision;
  return out;
}

ordered operation_json(const Operation& op) {
  ordered j = ordered::object();
  j["id"] = op.id;
  j["process"] = op.process;
  j["key"] = op.key;
  j["op"] = std::string(op_kind_name(op.kind));
  if (takes_value(op.kind)) j["value"] = op.value;
  if (is_compare(op.kind)) j["expected_mod_revision"] = op.expected_mod_revision;
  j["invoke_ns"] = op.invoke_ns;
  if (op.outcome != Outcome::unknown) j["return_ns"] = op.return_ns;
  j["outcome"] = std::string(outcome_name(op.outcome));
  if (op.outcome == Outcome::ok) j["output"] = output_json(op);
  return j;
}

// Reading one object: each problem is recorded with the place ("operations[3]" or "line 4")
// and the field, and reading goes on so one pass reports them all.
class Reader {
 public:
  Reader(const json& object, std::string place, std::vector<std::string>& errors)
      : object_(object), place_(std::move(place)), errors_(errors) {}

  void fail(const std::string& field, const std::string& problem) {
    errors_.push_back(place_ + "." + field + ": " + problem);
  }
  bool has(const char* field) const { return object_.contains(field); }
  void unknown_fields(const std::vector<std::string>& known) {
    for (const auto& [name, value] : object_.items()) {
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      errors_.push_back(place_ + ": unknown field \"" + name + "\"" + did_you_mean(name, known));
    }
  }
  std::int64_t integer(const char* field, bool required, std::int64_t fallback = 0) {
    if (!has(field)) {
      if (required) fail(field, "missing (an integer >= 0)");
      return fallback;
    }
    const json& v = object_.at(field);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= kNeverReturned - 1) {
      return static_cast<std::int64_t>(v.get<std::uint64_t>());
    }
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::int64_t>();
    fail(field, "must be an integer >= 0 (and below 2^63 - 1)");
    return fallback;
  }
  std::string text(const char* field, bool required) {
    if (!has(field)) {
      if (required) fail(field, "missing (a string)");
      return {};
    }
    if (object_.at(field).is_string()) return object_.at(field).get<std::string>();
    fail(field, "must be a string");
    return {};
  }
  bool flag(const char* field) {
    if (!has(field)) return false;
    if (object_.at(field).is_boolean()) return object_.at(field).get<bool>();
    fail(field, "must be true or false");
    return false;
  }
  const json& object() const { return object_; }
  const std::string& place() const { return place_; }

 private:
  const json& object_;
  std::string place_;
  std::vector<std::string>& errors_;
};

Output read_output(const json& j, const std::string& place, std::vector<std::string>& errors) {
  Reader r(j, place, errors);
  r.unknown_fields(kOutputFields);
  Output o;
  o.succeeded = r.flag("succeeded");
  o.found = r.flag("found");
  o.value = r.text("value", false);
  o.mod_revision = r.integer("mod_revision", false);
  o.revision = r.integer("revision", false);
  return o;
}

void read_kind_and_outcome(Reader& r, Operation& op) {
  const std::string kind = r.text("op", true);
  if (r.has("op") && !parse_op_kind(kind, op.kind)) {
    r.fail("op", "unknown operation \"" + kind +
                     "\" (expected get, put, delete, cas-put or "
                     "cas-delete)" +
                     did_you_mean(kind, {"get", "put", "delete", "cas-put", "cas-delete"}));
  }
  const std::string outcome = r.text("outcome", true);
  if (r.has("outcome") && !parse_outcome(outcome, op.outcome)) {
    r.fail("outcome", "unknown outcome \"" + outcome + "\" (expected ok, fail or unknown)");
  }
}

Operation read_operation(const json& j, std::size_t index, const std::string& place,
                         std::vector<std::string>& errors) {
  Operation op;
  if (!j.is_object()) {
    errors.push_back(place + ": must be an object (one operation)");
    return op;
  }
  Reader r(j, place, errors);
  r.unknown_fields(kOperationFields);
  op.id = static_cast<OperationId>(r.integer("id", false, static_cast<std::int64_t>(index)));
  op.process = static_cast<std::uint32_t>(r.integer("process", true));
  op.key = r.text("key", true);
  read_kind_and_outcome(r, op);
  op.value = r.text("value", takes_value(op.kind));
  if (r.has("value") && !takes_value(op.kind)) r.fail("value", "only put and cas-put write one");
  op.expected_mod_revision = r.integer("expected_mod_revision", is_compare(op.kind));
  op.invoke_ns = r.integer("invoke_ns", true);
  const bool unknown = op.outcome == Outcome::unknown;
  op.return_ns = r.integer("return_ns", !unknown, kNeverReturned);
  if (unknown && r.has("return_ns")) r.fail("return_ns", "an unknown outcome never returns");
  const bool ok = r.has("outcome") && op.outcome == Outcome::ok;
  if (ok && !r.has("output")) r.fail("output", "missing (an object)");
  if (op.outcome != Outcome::ok && r.has("output")) r.fail("output", "only ok operations have one");
  if (op.outcome == Outcome::ok && r.has("output")) {
    if (j.at("output").is_object()) {
      op.output = read_output(j.at("output"), place + ".output", errors);
    } else {
      r.fail("output", "must be an object");
    }
  }
  return op;
}

void read_operations(const json& list, History& history, std::vector<std::string>& errors) {
  if (!list.is_array()) {
    errors.push_back("operations: must be an array");
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    history.operations.push_back(
        read_operation(list[i], i, "operations[" + std::to_string(i) + "]", errors));
  }
}

void read_document(const json& doc, History& history, std::vector<std::string>& errors) {
  if (!doc.is_object()) {
    errors.push_back("a history document must be a JSON object");
    return;
  }
  for (const auto& [name, value] : doc.items()) {
    if (name == "format" || name == "version" || name == "operations") continue;
    errors.push_back("unknown field \"" + name + "\"" +
                     did_you_mean(name, {"format", "version", "operations"}));
  }
  if (!doc.contains("format") || doc.at("format") != "hasim-history") {
    errors.push_back("format: must be \"hasim-history\"");
  }
  if (!doc.contains("version") || doc.at("version") != 1) {
    errors.push_back("version: must be 1 (the only version this hasim reads)");
  }
  if (!doc.is_object() || !doc.contains("operations")) {
    errors.push_back("operations: missing (an array of operations)");
    return;
  }
  read_operations(doc.at("operations"), history, errors);
}

void read_lines(const std::string& text, History& history, std::vector<std::string>& errors) {
  std::size_t start = 0;
  for (std::size_t line = 1; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string row = text.substr(start, end - start);
    start = end + 1;
    if (row.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string place = "line " + std::to_string(line);
    const json j = json::parse(row, nullptr, false);
    if (j.is_discarded()) {
      errors.push_back(place + ": not a JSON object (JSON Lines: one operation per line)");
      continue;
    }
    const std::size_t index = history.operations.size();
    history.operations.push_back(read_operation(j, index, place, errors));
  }
}

}  // namespace

std::string write_history_json(const History& history) {
  std::string out = "{\"format\":\"hasim-history\",\"version\":1,\"operations\":[";
  for (std::size_t i = 0; i < history.operations.size(); ++i) {
    out += (i == 0 ? "\n" : ",\n") + operation_json(history.operations[i]).dump();
  }
  return out + "\n]}\n";
}

std::string write_history_jsonl(const History& history) {
  std::string out;
  for (const Operation& op : history.operations) out += operation_json(op).dump() + "\n";
  return out;
}

ReadResult read_history_json(const std::string& text) {
  ReadResult result;
  if (text.find('\0') != std::string::npos) {
    result.errors.push_back("the file contains a NUL byte: a history is UTF-8 JSON text");
    return result;
  }
  // A document names its "operations"; JSON Lines never do (an operation has no such field).
  if (text.find("\"operations\"") != std::string::npos) {
    try {
      read_document(json::parse(text), result.history, result.errors);
    } catch (const json::parse_error& e) {
      result.errors.push_back(std::string("not a JSON document: ") + e.what());
    }
  } else {
    read_lines(text, result.history, result.errors);
  }
  if (result.errors.empty()) result.errors = validate(result.history);
  if (!result.errors.empty()) result.history = {};
  HASIM_ASSERT(result.errors.empty() || result.history.operations.empty());
  return result;
}

}  // namespace hasim::linearizability
