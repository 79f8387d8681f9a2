#pragma once
// etcd-druid's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& druid_check_system();

// Its fault choices and what they need (check_choices.cpp).
std::vector<FaultChoiceDef> druid_fault_choices();
void druid_fill_space(const Scenario& scenario, FaultSpace& space);
bool druid_forbids(const Scenario& scenario, const FaultSpace& space, const FaultChoiceDef& choice);
void druid_broken(const Scenario& scenario, std::vector<std::string>& out);

}  // namespace hasim
