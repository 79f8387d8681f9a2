#pragma once
// A study whose every cell runs one world, built once from a Scenario before the trials, and
// whose options hold `trials`, `seed` and `cells()` (cells with a name()): the bookkeeping
// such studies share (cloudcore, etcd-ha). A study supplies the cell's scenario and the trial.
#include <cstdint>
#include <string>
#include <vector>

#include "reports/study.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

template <typename Options, typename Cell, typename Trial>
class CellScenarioStudy : public TrialStudy<Trial> {
 public:
  std::uint64_t trials_per_cell() const override { return options_.trials; }
  std::uint64_t seed() const override { return options_.seed; }
  std::size_t cell_count() const override { return options_.cells().size(); }
  std::string cell_name(std::size_t cell) const override { return options_.cells()[cell].name(); }

 protected:
  virtual Scenario cell_scenario(const Cell& cell) const = 0;
  virtual Trial cell_trial(const Scenario& scenario, const Cell& cell,
                           std::uint64_t seed) const = 0;

  void prepare_trials() override {
    cells_ = options_.cells();
    scenarios_.clear();
    for (const Cell& cell : cells_) scenarios_.push_back(cell_scenario(cell));
    HASIM_ASSERT(scenarios_.size() == cells_.size());
  }
  Trial run_trial(std::size_t cell, std::uint64_t seed) const override {
    HASIM_ASSERT(cell < cells_.size() && cells_.size() == scenarios_.size());
    return cell_trial(scenarios_[cell], cells_[cell], seed);
  }

  Options options_;

 private:
  std::vector<Cell> cells_;  // built once before trials run, read by every trial
  std::vector<Scenario> scenarios_;
};

}  // namespace hasim
