#include "properties/druid/etcd_membership.hpp"

#include <string>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid_props {

bool EtcdMembership::wants(std::string_view kind) {
  return kind == workloads::trace_kind::kSetScaled || kind == druid::trace_kind::kEtcdStart ||
         kind == etcd::trace_kind::kConfChange || kind == druid::trace_kind::kRestore;
}

bool EtcdMembership::on_event(const TraceEvent& event) {
  if (event.kind == workloads::trace_kind::kSetScaled) {
    if (!first_replicas_) first_replicas_ = event.int_field("replicas");
    return false;
  }
  if (event.kind == druid::trace_kind::kEtcdStart) {
    // Only the first "new" start bootstraps: a member that restarts on its data keeps being
    // served "new" by the sidecar (no learner listed) and etcd then ignores the flag.
    if (bootstrapped_ || event.string_field("state") != "new" || !first_replicas_) return false;
    bootstrapped_ = true;
    for (std::int64_t id = 1; id <= *first_replicas_; ++id) {
      voters_.insert(static_cast<std::uint64_t>(id));
    }
    return true;
  }
  if (event.kind == druid::trace_kind::kRestore) {
    if (event.string_field("outcome") != "restored") return false;
    return restore(static_cast<std::uint64_t>(event.int_field("member")));
  }
  if (event.kind == etcd::trace_kind::kConfChange) {
    const std::int64_t node = event.int_field("node", -1);
    if (node <= 0) return false;
    return apply_conf_change(event.string_field("type"), static_cast<std::uint64_t>(node));
  }
  return false;
}

// The restored data directory holds a new one-member cluster (etcdutl snapshot restore):
// the old cluster's other members are gone from it for good, so their IDs count as removed
// and any late copy of an old change is ignored.
bool EtcdMembership::restore(std::uint64_t member) {
  HASIM_ASSERT(member != 0);
  for (const std::uint64_t id : members()) {
    if (id != member) removed_.insert(id);
  }
  removed_.erase(member);
  voters_ = {member};
  learners_.clear();
  bootstrapped_ = true;
  return true;
}

bool EtcdMembership::apply_conf_change(std::string_view type, std::uint64_t node) {
  HASIM_ASSERT(node != 0);
  if (removed_.contains(node)) return false;  // a laggard's copy of an older change
  if (type == "ConfChangeRemoveNode") {
    voters_.erase(node);
    learners_.erase(node);
    removed_.insert(node);
    return true;
  }
  if (type == "ConfChangeAddNode") {  // a voter added, or a learner promoted
    const bool changed = !voters_.contains(node);
    voters_.insert(node);
    learners_.erase(node);
    return changed;
  }
  if (type == "ConfChangeAddLearnerNode") {
    // A learner add for a voter is a laggard's copy from before the promotion (raft refuses
    // to demote a voter through AddLearnerNode in etcd's member API).
    if (voters_.contains(node) || learners_.contains(node)) return false;
    learners_.insert(node);
    return true;
  }
  return false;  // ConfChangeUpdateNode: peer URLs only
}

std::set<std::uint64_t> EtcdMembership::members() const {
  std::set<std::uint64_t> out = voters_;
  out.insert(learners_.begin(), learners_.end());
  HASIM_ASSERT(out.size() == voters_.size() + learners_.size());
  return out;
}

std::string field_text(const TraceEvent& event, std::string_view key) {
  const TraceValue* value = event.find(key);
  if (value == nullptr) return "";
  if (const auto* text = std::get_if<std::string>(value)) return *text;
  if (const auto* number = std::get_if<std::int64_t>(value)) return std::to_string(*number);
  return std::get<bool>(*value) ? "true" : "false";
}

namespace {
std::string_view pod_of(std::string_view process, std::string_view suffix) {
  if (process.size() <= suffix.size() || !process.ends_with(suffix)) return {};
  return process.substr(0, process.size() - suffix.size());
}
}  // namespace

std::string_view etcd_pod_of(std::string_view process) { return pod_of(process, ".etcd"); }

std::string_view sidecar_pod_of(std::string_view process) {
  return pod_of(process, ".backup-restore");
}

}  // namespace hasim::druid_props
