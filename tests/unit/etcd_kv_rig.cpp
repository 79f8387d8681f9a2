#include "etcd_kv_rig.hpp"

#include <map>

#include "sim/assert.hpp"

namespace hasim::testing {
namespace {

class ScriptedKvClient final : public Process {
 public:
  using Events = std::vector<std::shared_ptr<const etcd::KvWatchResponse>>;
  using Statuses = std::map<std::uint64_t, std::shared_ptr<const etcd::KvStatusResponse>>;
  ScriptedKvClient(std::shared_ptr<std::vector<KvCall>> calls,
                   std::shared_ptr<std::map<std::uint64_t, KvAnswer>> answers,
                   std::shared_ptr<Events> events, std::shared_ptr<Statuses> statuses)
      : calls_(std::move(calls)),
        answers_(std::move(answers)),
        events_(std::move(events)),
        statuses_(std::move(statuses)) {}
  void on_start(Env& env) override {
    tags_ = env.tag_space("script");
    for (std::size_t i = 0; i < calls_->size(); ++i) {
      env.set_timer(milliseconds((*calls_)[i].at_ms), tags_.tag(i));
    }
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    const KvCall& c = calls_->at(tags_.local(tag));
    if (const auto* r = message_as<etcd::KvRequest>(*c.request)) {
      sent_[r->client_id] = env.monotonic_now().ns;
    }
    env.send(env.process(c.member()), c.request);
  }
  void on_message(Env& env, ProcessId, const Message& message) override {
    if (auto event = std::dynamic_pointer_cast<const etcd::KvWatchResponse>(message)) {
      events_->push_back(std::move(event));
      return;
    }
    if (auto status = std::dynamic_pointer_cast<const etcd::KvStatusResponse>(message)) {
      (*statuses_)[status->client_id] = std::move(status);
      return;
    }
    auto response = std::dynamic_pointer_cast<const etcd::KvResponse>(message);
    if (response == nullptr) return;
    HASIM_ASSERT(answers_->count(response->client_id) == 0);  // one answer per call
    (*answers_)[response->client_id] =
        KvAnswer{sent_[response->client_id], env.monotonic_now().ns, response};
  }

 private:
  std::shared_ptr<std::vector<KvCall>> calls_;
  std::shared_ptr<std::map<std::uint64_t, KvAnswer>> answers_;
  std::shared_ptr<Events> events_;
  std::shared_ptr<Statuses> statuses_;
  std::map<std::uint64_t, std::int64_t> sent_;
  TagSpace tags_;
};

}  // namespace

KvRig::KvRig(etcd::EtcdConfig config, std::uint64_t seed)
    : calls_(std::make_shared<std::vector<KvCall>>()),
      answers_(std::make_shared<std::map<std::uint64_t, KvAnswer>>()),
      events_(std::make_shared<std::vector<std::shared_ptr<const etcd::KvWatchResponse>>>()),
      statuses_(std::make_shared<
                std::map<std::uint64_t, std::shared_ptr<const etcd::KvStatusResponse>>>()) {
  std::vector<NodeSetup> nodes;
  for (const char* n : {"n1", "n2", "n3", "c"}) nodes.push_back(NodeSetup{n, "", LocalClock{}});
  WorldOptions options;
  options.seed = seed;
  world_ = std::make_unique<World>(std::move(nodes), options);
  config.members = {name(1), name(2), name(3)};
  config.directory = std::make_shared<etcd::MemberDirectory>();
  for (int i = 1; i <= 3; ++i) {
    world_->add_disk(node(i), "disk", DiskParams{});
    auto slot = std::make_shared<const etcd::EtcdMember*>(nullptr);
    slots_.push_back(slot);
    const ProcessId p = world_->add_process(node(i), "etcd", [config, i, slot] {
      auto m = std::make_unique<etcd::EtcdMember>(config, static_cast<raft::PeerId>(i));
      *slot = m.get();
      return m;
    });
    processes_.push_back(p);
    world_->add_volume(p, std::string(etcd::EtcdMember::kVolume), "disk", VolumeKind::persistent);
  }
  world_->add_process(3, "client",
                      [calls = calls_, answers = answers_, events = events_, statuses = statuses_] {
                        return std::make_unique<ScriptedKvClient>(calls, answers, events, statuses);
                      });
  world_->set_stop_handler([this](ProcessId p, StopReason, int) {
    for (std::size_t i = 0; i < processes_.size(); ++i) {
      if (processes_[i] == p) *slots_[i] = nullptr;
    }
  });
}

void KvRig::call(std::int64_t at_ms, std::function<std::string()> member, Message request) {
  calls_->push_back(KvCall{at_ms, std::move(member), std::move(request)});
}

void KvRig::call(std::int64_t at_ms, std::string member, Message request) {
  call(
      at_ms, [member] { return member; }, std::move(request));
}

void KvRig::run_until_ms(std::int64_t ms) {
  const RunStats stats = world_->run_until(TrueTime{ms * 1'000'000});
  HASIM_ASSERT(stats.status == RunStatus::completed);
}

int KvRig::leader() const {
  for (int i = 1; i <= 3; ++i) {
    const etcd::EtcdMember* m = member(i);
    if (m != nullptr && m->kv().status().leader == static_cast<std::uint64_t>(i)) return i;
  }
  return 0;
}

std::uint64_t KvRig::isolate(int i) {
  std::vector<DirectedEdge> cut;
  for (int j = 1; j <= 3; ++j) {
    if (j == i) continue;
    cut.emplace_back(node(i), node(j));
    cut.emplace_back(node(j), node(i));
  }
  return world_->partition(std::move(cut));
}

const KvAnswer* KvRig::answer(std::uint64_t client_id) const {
  const auto it = answers_->find(client_id);
  return it == answers_->end() ? nullptr : &it->second;
}

std::shared_ptr<etcd::KvRequest> kv_put(std::uint64_t id, std::string key, std::string value) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::put;
  r->put.key = std::move(key);
  r->put.value = std::move(value);
  return r;
}

std::shared_ptr<etcd::KvRequest> kv_get(std::uint64_t id, std::string key, bool serializable,
                                        std::string range_end) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::range;
  r->range.key = std::move(key);
  r->range.range_end = std::move(range_end);
  r->range.serializable = serializable;
  return r;
}

std::shared_ptr<etcd::KvWatch> kv_watch(std::uint64_t watch_id, std::string key,
                                        std::string range_end, std::int64_t start_revision) {
  auto w = std::make_shared<etcd::KvWatch>();
  w->watch_id = watch_id;
  w->request.key = std::move(key);
  w->request.range_end = std::move(range_end);
  w->request.start_revision = start_revision;
  return w;
}

const etcd::KvStatusResponse* KvRig::status(std::uint64_t client_id) const {
  const auto it = statuses_->find(client_id);
  return it == statuses_->end() ? nullptr : it->second.get();
}

std::shared_ptr<etcd::KvStatusRequest> kv_status(std::uint64_t id) {
  auto r = std::make_shared<etcd::KvStatusRequest>();
  r->client_id = id;
  return r;
}

std::shared_ptr<etcd::KvRequest> kv_compact(std::uint64_t id, std::int64_t revision) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::compact;
  r->compaction.revision = revision;
  return r;
}

std::shared_ptr<etcd::KvRequest> kv_optimistic_put(std::uint64_t id, std::string key,
                                                   std::string value, std::int64_t rv) {
  using namespace etcd::mvcc;
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::txn;
  r->txn.compare.push_back(compare_mod_revision(key, CompareResult::equal, rv));
  r->txn.success.push_back(op_put(key, std::move(value)));
  if (rv != 0) {
    RangeRequest get;
    get.key = key;
    r->txn.failure.push_back(op_range(std::move(get)));
  }
  return r;
}

}  // namespace hasim::testing

namespace hasim::testing {

std::shared_ptr<etcd::KvRequest> kv_defragment(std::uint64_t id) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::defragment;
  return r;
}

std::shared_ptr<etcd::KvRequest> kv_alarm(std::uint64_t id, etcd::mvcc::AlarmAction action,
                                          std::uint64_t member) {
  auto r = std::make_shared<etcd::KvRequest>();
  r->client_id = id;
  r->op = etcd::KvOp::alarm;
  r->alarm.action = action;
  r->alarm.member_id = member;
  r->alarm.alarm = action == etcd::mvcc::AlarmAction::get ? etcd::mvcc::AlarmType::none
                                                           : etcd::mvcc::AlarmType::nospace;
  return r;
}

}  // namespace hasim::testing
