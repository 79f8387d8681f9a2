#pragma once
// A study configured as `hasim report NAME --trials N --seed S` would, run whole on `jobs`
// threads, and its trials as the study's own type (for its summarize function).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "reports/study.hpp"

namespace hasim::testing {

template <typename MakeStudy>
std::unique_ptr<Study> run_study(MakeStudy make, std::uint64_t trials, std::uint64_t seed,
                                 unsigned jobs, std::map<std::string, std::string> flags = {}) {
  std::unique_ptr<Study> study = make();
  StudyArgs args;
  args.trials = trials;
  args.seed = seed;
  args.flags = std::move(flags);
  REQUIRE_FALSE(study->configure(args));
  study->run_trials({0, study->total_trials()}, jobs, {});
  return study;
}

// What configure says of these flags ("" when it accepts them).
template <typename MakeStudy>
std::string configure_error(MakeStudy make, std::map<std::string, std::string> flags) {
  std::unique_ptr<Study> study = make();
  StudyArgs args;
  args.flags = std::move(flags);
  return study->configure(args).value_or("");
}

template <typename Trial>
const std::vector<Trial>& study_trials(const Study& study) {
  const auto* typed = dynamic_cast<const TrialStudy<Trial>*>(&study);
  REQUIRE(typed != nullptr);
  return typed->trials();
}

}  // namespace hasim::testing
