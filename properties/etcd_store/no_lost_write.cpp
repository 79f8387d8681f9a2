#include "properties/etcd_store/no_lost_write.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim {

namespace lin = linearizability;

namespace {

std::string at(std::int64_t ns) { return "t=" + format_seconds(ns) + "s"; }

// Whether an ok operation changed the key (a write acknowledged to its client).
bool wrote(const lin::Operation& op) {
  if (op.outcome != lin::Outcome::ok) return false;
  switch (op.kind) {
    case lin::OpKind::get:
      return false;
    case lin::OpKind::put:
      return true;
    default:
      return op.output.succeeded;
  }
}

// "cp-1/kube-apiserver call 9 (put "…" on /registry/x, t=1.0s to t=1.2s: written, revision 7)"
std::string describe_call(const lin::Operation& op, const CallOrigin& origin,
                          std::string_view why = "") {
  std::string text = describe_origin(origin) + " (" + describe_operation(op) + " on " + op.key +
                     ", invoked " + at(op.invoke_ns);
  if (op.outcome == lin::Outcome::unknown) {
    return text + ", outcome unknown" + (why.empty() ? "" : ": " + std::string(why)) + ")";
  }
  text += ", returned " + at(op.return_ns);
  if (op.outcome == lin::Outcome::fail) return text + ", failed)";
  return text + ": " + describe_outcome(op) + ")";
}

// The causes: the call's two trace events as the trace shows them.
void add_causes(const lin::Operation& op, const CallOrigin& origin,
                std::vector<std::string>& causes) {
  const std::string who = origin.client + " call=" + std::to_string(origin.call);
  causes.push_back(at(op.invoke_ns) + " " + who + " etcd-call " +
                   std::string(lin::op_kind_name(op.kind)) + " " + op.key);
  if (op.outcome == lin::Outcome::unknown) return;
  causes.push_back(
      at(op.return_ns) + " " + who + " etcd-call-end " +
      std::string(lin::outcome_name(op.outcome)) +
      (op.outcome == lin::Outcome::ok ? " revision=" + std::to_string(op.output.revision) : ""));
}

}  // namespace

std::string describe_operation(const lin::Operation& op) {
  std::string text(lin::op_kind_name(op.kind));
  if (op.kind == lin::OpKind::put || op.kind == lin::OpKind::cas_put) {
    text += " \"" + op.value + "\"";
  }
  if (lin::is_compare(op.kind)) {
    text += " if mod_revision == " + std::to_string(op.expected_mod_revision);
  }
  return text;
}

std::string describe_outcome(const lin::Operation& op) {
  const lin::Output& o = op.output;
  std::string text;
  if (op.kind == lin::OpKind::get || (lin::is_compare(op.kind) && !o.succeeded)) {
    text = o.found ? "found \"" + o.value + "\" mod_revision " + std::to_string(o.mod_revision)
                   : "not found";
    if (lin::is_compare(op.kind)) text = "compare failed, " + text;
  } else if (op.kind == lin::OpKind::del) {
    text = o.succeeded ? "deleted" : "nothing deleted";
  } else {
    text = lin::is_compare(op.kind) ? "compare held" : "written";
  }
  return text + ", revision " + std::to_string(o.revision);
}

EtcdNoLostWrite::EtcdNoLostWrite(std::string spec, lin::Limits limits)
    : Property(std::move(spec)), limits_(limits), feed_(limits) {}

void EtcdNoLostWrite::new_history(TrueTime now) {
  feed_.finish();
  judge(now);
  feed_ = lin::LiveFeed(limits_);
  infos_.clear();
  last_write_.clear();
  firstId_ = nextId_;
  acked_ = 0;
  ackedOrigin_ = CallOrigin{};
  HASIM_ASSERT(feed_.held() == 0);
}

std::string EtcdNoLostWrite::acknowledged_by() const {
  return acked_ == 0 ? std::string("no client") : describe_origin(ackedOrigin_);
}

void EtcdNoLostWrite::on_event(const TraceEvent& event) {
  if (!EtcdCalls::reads(event.kind)) return;
  calls_.observe(event, *this);
  feed_.advance(event.t.ns);
  judge(event.t);
  prune(event.t);
}

void EtcdNoLostWrite::finish(TrueTime end) {
  calls_.finish(*this);
  feed_.finish();
  judge(end);
  infos_.clear();
  HASIM_ASSERT(feed_.held() == 0);
}

void EtcdNoLostWrite::invoked(const lin::Operation& op, const CallOrigin& origin) {
  ++calls_seen_;
  HASIM_ASSERT(op.id >= nextId_);
  nextId_ = op.id + 1;
  feed_.begin(op);
  infos_[op.id] = Info{op, origin, false, ""};
}

// etcd's error text is in the trace; the history records outcomes only.
void EtcdNoLostWrite::ended(const lin::Operation& op, const CallOrigin& origin, std::string_view,
                            std::string_view why) {
  if (op.id < firstId_) return;  // a call to the store a restore replaced
  if (wrote(op) && op.output.revision > acked_) {
    acked_ = op.output.revision;
    ackedOrigin_ = origin;
  }
  const auto it = infos_.find(op.id);
  HASIM_ASSERT(it != infos_.end());
  it->second.op = op;
  it->second.ended = true;
  it->second.why = std::string(why);
  if (wrote(op)) last_write_[op.key] = it->second;
  feed_.end(op.id, op.outcome, op.output, op.return_ns);
}

// The first decision the checker reaches is the verdict; contract problems of the trace are
// reported as they come (a malformed history cannot be judged as the client saw it).
void EtcdNoLostWrite::judge(TrueTime now) {
  const auto& problems = calls_.problems();
  if (problems_reported_ < problems.size()) {
    violate(now,
            "the etcd client's trace breaks its contract (models/apiserver/trace_kinds.hpp), so "
            "its history cannot be checked: " +
                problems[problems_reported_],
            {problems.begin() + static_cast<std::ptrdiff_t>(problems_reported_), problems.end()});
    problems_reported_ = problems.size();
  }
  if (decided_) return;
  const lin::Verdict& verdict = feed_.verdict();
  if (verdict.kind == lin::VerdictKind::linearizable) return;
  decided_ = true;
  if (verdict.kind == lin::VerdictKind::illegal) {
    report_illegal(verdict);
  } else {
    report_gave_up(verdict);
  }
}

void EtcdNoLostWrite::report_illegal(const lin::Verdict& verdict) {
  HASIM_ASSERT(verdict.unplaceable.has_value());
  const auto it = infos_.find(*verdict.unplaceable);
  HASIM_ASSERT(it != infos_.end());  // fed at this very step: not pruned yet
  const Info& bad = it->second;
  std::vector<std::string> causes;
  std::string detail = "the etcd store's history is not linearizable on key " + verdict.key + ": " +
                       describe_call(bad.op, bad.origin) +
                       " is explained by no order of the operations open then";
  const auto last = last_write_.find(verdict.key);
  if (last != last_write_.end() && last->second.op.id != bad.op.id) {
    detail += "; the last write acknowledged on the key was " +
              describe_call(last->second.op, last->second.origin);
    add_causes(last->second.op, last->second.origin, causes);
  }
  add_causes(bad.op, bad.origin, causes);
  // Writes on the key whose outcome is unknown and that are still described: they may have
  // taken effect at any time after their invocation, and the reason says why they are unknown.
  for (const auto& [id, info] : infos_) {
    if (info.op.key != verdict.key || info.op.outcome != lin::Outcome::unknown) continue;
    if (!info.ended || !lin::is_write(info.op.kind)) continue;
    causes.push_back(at(info.op.invoke_ns) + " " + describe_call(info.op, info.origin, info.why));
  }
  detail += " (checker, history operation ids: " + verdict.detail + ")";
  violate(TrueTime{verdict.time_ns}, std::move(detail), std::move(causes));
}

void EtcdNoLostWrite::report_gave_up(const lin::Verdict& verdict) {
  std::string detail = "no-lost-write could not be checked on etcd key " + verdict.key +
                       ": the linearizability checker gave up at " + at(verdict.time_ns) + " (" +
                       verdict.detail + "); nothing is proved about that key from there on";
  std::vector<std::string> causes;
  if (verdict.unplaceable) {
    if (const auto it = infos_.find(*verdict.unplaceable); it != infos_.end()) {
      add_causes(it->second.op, it->second.origin, causes);
    }
  }
  violate(TrueTime{verdict.time_ns}, std::move(detail), std::move(causes));
}

// The feed has fed every event before the oldest invocation still open (and before now):
// the descriptions of operations whose last event lies before that are no longer needed.
void EtcdNoLostWrite::prune(TrueTime now) {
  std::int64_t fed_before = now.ns;
  for (const auto& [id, info] : infos_) {
    if (!info.ended) fed_before = std::min(fed_before, info.op.invoke_ns);
  }
  std::erase_if(infos_, [&](const auto& entry) {
    const Info& info = entry.second;
    if (!info.ended) return false;
    const bool returns = info.op.outcome == lin::Outcome::ok;
    return (returns ? info.op.return_ns : info.op.invoke_ns) < fed_before;
  });
}

}  // namespace hasim
