#include "properties/etcd_store/etcd_calls.hpp"

#include <limits>

#include "models/apiserver/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

namespace lin = linearizability;

namespace {

// etcd-call-end's succeeded and found are 0 or 1 (models/apiserver/trace_kinds.hpp); a
// boolean is read the same way.
bool flag(const TraceEvent& event, std::string_view key) {
  const TraceValue* value = event.find(key);
  if (value == nullptr) return false;
  if (const auto* b = std::get_if<bool>(value)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(value)) return *i != 0;
  return false;
}

std::string process_name(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

bool takes_value(lin::OpKind kind) {
  return kind == lin::OpKind::put || kind == lin::OpKind::cas_put;
}

// Only the fields the operation's kind defines (history.hpp, Output), as the history file
// writes them: what is exported reads back equal.
lin::Output output_of(const TraceEvent& event, lin::OpKind kind) {
  lin::Output o;
  if (kind == lin::OpKind::del || lin::is_compare(kind)) o.succeeded = flag(event, "succeeded");
  const bool reads = kind == lin::OpKind::get || (lin::is_compare(kind) && !o.succeeded);
  if (reads && flag(event, "found")) {
    o.found = true;
    o.value = std::string(event.string_field("value"));
    o.mod_revision = event.int_field("mod_revision");
  }
  o.revision = event.int_field("revision");
  return o;
}

}  // namespace

std::string describe_origin(const CallOrigin& origin) {
  std::string text = origin.client + " call " + std::to_string(origin.call);
  if (origin.incarnation > 1) text += " (incarnation " + std::to_string(origin.incarnation) + ")";
  return text;
}

bool EtcdCalls::reads(std::string_view kind) {
  return kind == api::trace_kind::kEtcdCall || kind == api::trace_kind::kEtcdCallEnd ||
         kind == trace_kind::kStart || kind == trace_kind::kCrash || kind == trace_kind::kExit ||
         kind == trace_kind::kNodeDown;
}

void EtcdCalls::observe(const TraceEvent& event, EtcdCallSink& sink) {
  const std::string_view kind = event.kind;
  if (kind == api::trace_kind::kEtcdCall) {
    on_call(event, sink);
  } else if (kind == api::trace_kind::kEtcdCallEnd) {
    on_end(event, sink);
  } else if (kind == trace_kind::kNodeDown) {
    abandon(event.node, true, event.t, std::string(event.node) + " went down", sink);
  } else if ((kind == trace_kind::kCrash || kind == trace_kind::kExit) && !event.proc.empty()) {
    const std::string process = process_name(event);
    if (!clients_.contains(process)) return;  // not an etcd client: nothing open
    const std::string why =
        process + (kind == trace_kind::kCrash
                       ? " crashed (" + std::string(event.string_field("reason")) + ")"
                       : " exited");
    abandon(process, false, event.t, why, sink);
  } else if (kind == trace_kind::kStart && !event.proc.empty()) {
    // Every process's incarnation is kept (a few per node), so a client's first call names
    // the right one. A crash ended every call already; whatever is left was abandoned.
    const std::string process = process_name(event);
    if (clients_.contains(process)) abandon(process, false, event.t, process + " restarted", sink);
    Client& c = clients_[process];
    c.incarnation = event.int_field("incarnation", c.incarnation + 1);
  }
}

void EtcdCalls::on_call(const TraceEvent& event, EtcdCallSink& sink) {
  const std::string client(event.string_field("client"));
  const std::int64_t call = event.int_field("call", -1);
  Open open;
  if (!lin::parse_op_kind(event.string_field("op"), open.op.kind)) {
    problem(event, "unknown op \"" + std::string(event.string_field("op")) + "\"");
    return;
  }
  const CallKey key{client, call};
  if (client.empty() || open_.contains(key)) {
    problem(event, "call " + std::to_string(call) + " of \"" + client + "\" is already open");
    return;
  }
  Client& c = clients_[client];
  HASIM_ASSERT(next_id_ < std::numeric_limits<lin::OperationId>::max());
  open.op.id = next_id_++;
  if (c.idle.empty()) {
    open.op.process = next_process_++;
  } else {
    open.op.process = *c.idle.begin();
    c.idle.erase(c.idle.begin());
  }
  open.op.key = std::string(event.string_field("key"));
  if (takes_value(open.op.kind)) open.op.value = std::string(event.string_field("value"));
  if (lin::is_compare(open.op.kind)) open.op.expected_mod_revision = event.int_field("expected");
  open.op.invoke_ns = event.t.ns;
  open.op.return_ns = lin::kNeverReturned;
  open.op.outcome = lin::Outcome::unknown;
  open.origin = CallOrigin{client, c.incarnation, call};
  const auto [it, inserted] = open_.emplace(key, std::move(open));
  HASIM_ASSERT(inserted);
  sink.invoked(it->second.op, it->second.origin);
}

void EtcdCalls::on_end(const TraceEvent& event, EtcdCallSink& sink) {
  const std::string client(event.string_field("client"));
  const std::int64_t call = event.int_field("call", -1);
  const auto it = open_.find(CallKey{client, call});
  if (it == open_.end()) {
    problem(event, "call " + std::to_string(call) + " of \"" + client + "\" ended but is not open");
    return;
  }
  lin::Operation& op = it->second.op;
  if (!lin::parse_outcome(event.string_field("outcome"), op.outcome)) {
    problem(event, "unknown outcome \"" + std::string(event.string_field("outcome")) + "\"");
    op.outcome = lin::Outcome::unknown;
  }
  if (op.outcome != lin::Outcome::unknown) op.return_ns = event.t.ns;
  if (op.outcome == lin::Outcome::ok) op.output = output_of(event, op.kind);
  close(it, event.string_field("error"), "", sink);
}

void EtcdCalls::abandon(std::string_view who, bool node, TrueTime at, std::string_view why,
                        EtcdCallSink& sink) {
  (void)at;  // an unknown outcome never returns: it has no return time
  const std::string prefix = std::string(who) + "/";
  for (auto it = open_.begin(); it != open_.end();) {
    const std::string& client = it->first.first;
    const bool hit = node ? client.compare(0, prefix.size(), prefix) == 0 : client == who;
    if (!hit) {
      ++it;
      continue;
    }
    it->second.op.outcome = lin::Outcome::unknown;
    const auto next = std::next(it);
    close(it, "", why, sink);
    it = next;
  }
}

void EtcdCalls::close(std::map<CallKey, Open>::iterator it, std::string_view error,
                      std::string_view why, EtcdCallSink& sink) {
  const Open open = std::move(it->second);
  open_.erase(it);
  // A number whose operation may still take effect is never handed out again (Jepsen).
  if (open.op.outcome != lin::Outcome::unknown) {
    clients_[open.origin.client].idle.insert(open.op.process);
  }
  sink.ended(open.op, open.origin, error, why);
}

void EtcdCalls::finish(EtcdCallSink& sink) {
  while (!open_.empty()) {
    open_.begin()->second.op.outcome = lin::Outcome::unknown;
    close(open_.begin(), "", "the run ended", sink);
  }
  HASIM_ASSERT(open_.empty());
}

void EtcdCalls::problem(const TraceEvent& event, std::string text) {
  if (problems_.size() >= kMaxProblems) return;
  problems_.push_back("t=" + format_seconds(event.t.ns) + "s " + std::string(event.kind) + ": " +
                      std::move(text));
}

}  // namespace hasim
