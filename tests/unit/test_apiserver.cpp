// kube-apiserver over the ideal store, driven through the simulator: resourceVersion
// compare-and-swap, AlreadyExists, NotFound, List, Delete, Watch after the watch lag, and the
// server-side request timeout of a hung request.
#include <catch2/catch.hpp>
#include <optional>

#include "models/apiserver/apiserver.hpp"
#include "models/apiserver/client.hpp"
#include "models/apiserver/ideal_store.hpp"
#include "models/apiserver/raft_store.hpp"
#include "models/etcd/member.hpp"
#include "sim/world.hpp"

using namespace hasim;
using namespace hasim::api;

namespace {

struct Log {
  std::vector<std::string> lines;
};

// A client that runs `script` at start with an ApiClient to "n1/kube-apiserver".
class ScriptedClient final : public Process {
 public:
  using Script = std::function<void(Env&, ApiClient&, Log&)>;
  ScriptedClient(Script script, std::shared_ptr<Log> log, Duration timeout)
      : script_(std::move(script)), log_(std::move(log)), timeout_(timeout) {}
  void on_start(Env& env) override {
    client_.emplace(
        ApiClientConfig{{"n1/kube-apiserver"}, false, timeout_, "tester", env.tag_space("client"), {}});
    script_(env, *client_, *log_);
  }
  void on_message(Env& env, ProcessId, const Message& m) override { client_->on_message(env, m); }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override { client_->on_timer(env, tag); }

 private:
  Script script_;
  std::shared_ptr<Log> log_;
  Duration timeout_;
  std::optional<ApiClient> client_;  // from on_start
};

ObjectPtr lease(const std::string& holder, std::uint64_t rv = 0, std::string name = "x") {
  auto object = std::make_shared<Object>();
  object->key = ObjectKey{Kind::lease, "kube-system", std::move(name)};
  object->lease.holderIdentity = holder;
  object->resourceVersion = rv;
  return object;
}

// The apiserver stands on the ideal store, or (raft) on a one-member etcd on its node
// through kube-apiserver's etcd client (raft_store.hpp), as a stacked control plane's does.
enum class Backing { ideal, raft };

struct Rig {
  std::unique_ptr<World> world;
  std::shared_ptr<ApiServerConditions> conditions = std::make_shared<ApiServerConditions>();
  std::shared_ptr<Log> log = std::make_shared<Log>();
  Rig(ScriptedClient::Script script, Duration watch_lag, Duration client_timeout = {},
      Backing backing = Backing::ideal) {
    world =
        std::make_unique<World>(std::vector<NodeSetup>{{"n1", "", LocalClock()}}, WorldOptions{});
    World* w = world.get();
    auto store = std::make_shared<IdealStore>(
        IdealStoreHooks{{}, [w](const std::vector<ProcessId>& subscribers) {
                          w->post_each(subscribers, std::make_shared<StoreNotify>());
                        }});
    ApiServerConfig config{
        store,    conditions, seconds(60), {}, [watch_lag](Rng&) { return watch_lag; },
        "1.31.0", "1.31.0",   {},          {}};
    if (backing == Backing::raft) {
      add_etcd_member();
      config.make_store = [] {
        RaftStoreConfig raft;
        raft.apiserver = "n1/kube-apiserver";
        raft.client = stacked_etcd_client("n1/etcd");
        return std::make_shared<RaftStore>(raft);
      };
    }
    world->add_process(0, "kube-apiserver",
                       [config] { return std::make_unique<ApiServer>(config); });
    auto log_ptr = log;
    world->add_process(0, "client", [script, log_ptr, client_timeout] {
      return std::make_unique<ScriptedClient>(script, log_ptr, client_timeout);
    });
  }
  void add_etcd_member() {
    etcd::EtcdConfig config;
    config.members = {"n1/etcd"};
    config.directory = std::make_shared<etcd::MemberDirectory>();
    world->add_disk(0, "disk", DiskParams{});
    const ProcessId p = world->add_process(
        0, "etcd", [config] { return std::make_unique<etcd::EtcdMember>(config, 1); });
    world->add_volume(p, std::string(etcd::EtcdMember::kVolume), "disk", VolumeKind::persistent);
  }
};

std::string line(const char* what, const Response& r) {
  return std::string(what) + " " + std::string(to_string(r.status)) +
         (r.object ? " rv=" + std::to_string(r.object->resourceVersion) : "");
}

}  // namespace

// The same requests over the ideal store and over etcd: the same answers and
// resourceVersions (etcd revisions start at 1 as the ideal store's do), except that etcd's
// Create answers AlreadyExists without the stored object (store.go Create's Txn has no Else).
TEST_CASE("apiserver: create, conflict, get, list, delete", "[apiserver][raft-store]") {
  const Backing backing = GENERATE(Backing::ideal, Backing::raft);
  Rig rig(
      [](Env& env, ApiClient& c, Log& log) {
        const ContextId ctx = c.new_context();
        c.request(
            env, ctx, Verb::create, lease("a")->key, lease("a"),
            [&c, &log, ctx](Env& e, const Response& r) {
              log.lines.push_back(line("create", r));
              c.request(
                  e, ctx, Verb::create, lease("b")->key, lease("b"),
                  [&c, &log, ctx](Env& e2, const Response& r2) {
                    log.lines.push_back(line("create-again", r2));
                    c.request(
                        e2, ctx, Verb::update, lease("b")->key, lease("b", 1),
                        [&c, &log, ctx](Env& e3, const Response& r3) {
                          log.lines.push_back(line("update-stale", r3));
                          c.request(
                              e3, ctx, Verb::update, lease("b")->key, lease("b", 2),
                              [&c, &log, ctx](Env& e4, const Response& r4) {
                                log.lines.push_back(line("update", r4));
                                c.request(
                                    e4, ctx, Verb::list, ObjectKey{Kind::lease, "kube-system", ""},
                                    nullptr, [&c, &log, ctx](Env& e5, const Response& r5) {
                                      log.lines.push_back("list " +
                                                          std::to_string(r5.items.size()));
                                      c.request(e5, ctx, Verb::delete_, lease("b")->key, nullptr,
                                                [&c, &log, ctx](Env& e6, const Response& r6) {
                                                  log.lines.push_back(line("delete", r6));
                                                  c.request(e6, ctx, Verb::get, lease("b")->key,
                                                            nullptr,
                                                            [&log](Env&, const Response& r7) {
                                                              log.lines.push_back(line("get", r7));
                                                            });
                                                });
                                    });
                              });
                        });
                  });
            });
      },
      Duration{}, Duration{}, backing);
  rig.world->run_until(TrueTime{seconds(5).ns});
  const std::string again = backing == Backing::ideal ? "create-again 409 AlreadyExists rv=2"
                                                      : "create-again 409 AlreadyExists";
  CHECK(rig.log->lines ==
        std::vector<std::string>{"create 201 Created rv=2", again,
                                 "update-stale 409 Conflict rv=2", "update 200 OK rv=3", "list 1",
                                 "delete 200 OK rv=3", "get 404 NotFound"});
}

TEST_CASE("apiserver: a watch sees later changes after the watch lag", "[apiserver]") {
  Rig rig(
      [](Env& env, ApiClient& c, Log& log) {
        const ContextId ctx = c.new_context();
        c.watch(
            env, ctx, ObjectKey{Kind::lease, "kube-system", {}}, 0,
            [&c, &log, ctx](Env& e, const Response& r) {
              log.lines.push_back(line("watch", r));
              c.request(e, ctx, Verb::create, lease("a")->key, lease("a"),
                        [](Env&, const Response&) {});
            },
            [&log](Env& e, const WatchEvent& event) {
              log.lines.push_back("event rv=" + std::to_string(event.object->resourceVersion) +
                                  " at " + format_seconds(e.monotonic_now().ns));
            });
      },
      milliseconds(250));
  rig.world->run_until(TrueTime{seconds(2).ns});
  REQUIRE(rig.log->lines.size() == 2);
  CHECK(rig.log->lines[0] == "watch 200 OK");
  // Created at ~0.3ms, released by the watch cache 250ms later, delivered 0.1ms after that.
  CHECK(rig.log->lines[1].rfind("event rv=2 at 0.25", 0) == 0);
}

TEST_CASE("apiserver: a hung request gets 504 at the request timeout; a client gives up first",
          "[apiserver]") {
  for (const Duration client_timeout : {Duration{}, seconds(5)}) {
    Rig rig(
        [](Env& env, ApiClient& c, Log& log) {
          c.request(env, c.new_context(), Verb::update, lease("a")->key, lease("a"),
                    [&log](Env& e, const Response& r) {
                      log.lines.push_back(line("update", r) + " at " +
                                          format_seconds(e.monotonic_now().ns));
                    });
        },
        Duration{}, client_timeout);
    rig.conditions->hang = true;
    rig.conditions->hang_verbs = {Verb::update};
    rig.world->run_until(TrueTime{seconds(90).ns});
    REQUIRE(rig.log->lines.size() == 1);
    CHECK(rig.log->lines[0] == (client_timeout.ns == 0 ? "update 504 Timeout at 60.000200000"
                                                       : "update client timeout at 5.000000000"));
  }
}

TEST_CASE("apiserver: a watch from an older resourceVersion gets the backlog first, in order",
          "[apiserver]") {
  Rig rig(
      [](Env& env, ApiClient& c, Log& log) {
        const ContextId ctx = c.new_context();
        auto on_event = [&log](Env& e, const WatchEvent& event) {
          log.lines.push_back("event " + event.object->key.name +
                              " rv=" + std::to_string(event.object->resourceVersion) + " at " +
                              format_seconds(e.monotonic_now().ns));
        };
        c.request(env, ctx, Verb::create, lease("a", 0, "x")->key, lease("a", 0, "x"),
                  [&c, ctx, on_event](Env& e, const Response&) {
                    c.request(e, ctx, Verb::create, lease("a", 0, "y")->key, lease("a", 0, "y"),
                              [&c, ctx, on_event](Env& e2, const Response&) {
                                // From rv 2 (after "x"): "y" (rv 3) is backlog.
                                c.watch(
                                    e2, ctx, ObjectKey{Kind::lease, "kube-system", {}}, 2,
                                    [&c, ctx](Env& e3, const Response&) {
                                      c.request(e3, ctx, Verb::create, lease("a", 0, "z")->key,
                                                lease("a", 0, "z"), [](Env&, const Response&) {});
                                    },
                                    on_event);
                              });
                  });
      },
      milliseconds(250));
  rig.world->run_until(TrueTime{seconds(2).ns});
  REQUIRE(rig.log->lines.size() == 2);
  CHECK(rig.log->lines[0] == "event y rv=3 at 0.000600000");       // at once, from the backlog
  CHECK(rig.log->lines[1].rfind("event z rv=4 at 0.25", 0) == 0);  // after the watch lag
}
