// Timer tag spaces handed out by the kernel (sim/tag_space.hpp): distinct per owner, numbered
// per process incarnation, and a timer set with a space's tag comes back with that tag.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "fake_env.hpp"
#include "sim/world.hpp"
#include "test_models.hpp"

using namespace hasim;
using namespace hasim::literals;

namespace {

// Runs `body` in a child process: true if it died of SIGABRT, as a failed HASIM_ASSERT does.
bool aborts(const std::function<void()>& body) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Catch2's signal handler in the child reports the abort and ends its own test run on
    // stdout before re-raising: keep that out of the parent's log.
    if (std::freopen("/dev/null", "w", stderr) == nullptr) std::_Exit(2);
    if (std::freopen("/dev/null", "w", stdout) == nullptr) std::_Exit(2);
    body();
    std::_Exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

}  // namespace

TEST_CASE("tag spaces are distinct, and a tag knows its space", "[tags]") {
  TagAllocator tags;
  const TagSpace none;
  CHECK_FALSE(none.valid());
  CHECK_FALSE(none.owns(0));
  const TagSpace a = tags.allocate("a");
  const TagSpace b = tags.allocate("b");
  CHECK(a.valid());
  CHECK(a != b);
  CHECK(a.owns(a.tag(42)));
  CHECK_FALSE(b.owns(a.tag(42)));
  CHECK(a.local(a.tag(42)) == 42);
  CHECK(a.local(a.tag(TagSpace::kLocalLimit - 1)) == TagSpace::kLocalLimit - 1);
  CHECK(tags.allocated() == 2);
  for (int i = 2; i < static_cast<int>(TagAllocator::kCapacity); ++i) {
    tags.allocate("space-" + std::to_string(i));
  }
  CHECK(tags.allocated() == TagAllocator::kCapacity);
}

TEST_CASE("a second allocation of a space, or one too many, is a HASIM_ASSERT", "[tags]") {
  CHECK(aborts([] {
    TagAllocator tags;
    tags.allocate("client");
    tags.allocate("client");
  }));
  CHECK(aborts([] {
    TagAllocator tags;
    for (std::size_t i = 0; i <= TagAllocator::kCapacity; ++i) {
      tags.allocate("space-" + std::to_string(i));
    }
  }));
  CHECK(aborts([] { TagSpace{}.tag(1); }));  // a space never allocated
  CHECK_FALSE(aborts([] { TagAllocator{}.allocate("client"); }));
}

namespace {

// Allocates its spaces at start, as a model does, and records the tags its timers return.
class Ticker final : public Process {
 public:
  explicit Ticker(std::vector<std::uint64_t>* fired) : fired_(fired) {}
  void on_start(Env& env) override {
    first_ = env.tag_space("first");
    second_ = env.tag_space("second");
    env.set_timer(1_s, second_.tag(7));
  }
  void on_message(Env&, ProcessId, const Message&) override {}
  void on_timer(Env&, TimerId, std::uint64_t tag) override {
    CHECK(second_.owns(tag));
    CHECK_FALSE(first_.owns(tag));
    fired_->push_back(second_.local(tag));
  }

 private:
  std::vector<std::uint64_t>* fired_;
  TagSpace first_;
  TagSpace second_;
};

}  // namespace

TEST_CASE("a restarted process allocates its spaces again", "[tags]") {
  World world(testing::plain_nodes(1), testing::constant_latency(1_ms));
  std::vector<std::uint64_t> fired;
  const ProcessId p =
      world.add_process(0, "ticker", [&fired] { return std::make_unique<Ticker>(&fired); });
  world.at(TrueTime{} + 2_s, [&world, p] { world.crash(p); });
  world.at(TrueTime{} + 3_s, [&world, p] { world.restart(p); });
  REQUIRE(world.run_until(TrueTime{} + 10_s).status == RunStatus::completed);
  CHECK(fired == std::vector<std::uint64_t>{7, 7});
}

TEST_CASE("the fake Env hands out spaces as the World does", "[tags]") {
  testing::FakeEnv env(1);
  const TagSpace a = env.tag_space("a");
  const TagSpace b = env.tag_space("b");
  CHECK(a != b);
  env.set_timer(1_s, b.tag(3));
  CHECK(env.next_timer()->second == b.tag(3));
}
