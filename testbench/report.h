// Counter report of a whole machine: every counter with its control value,
// decoded event, value and overflow count, plus freeze state and diagnostics.
#pragma once
#include <ostream>

#include "sc/uncore_system.h"

namespace pmonsim {

void print_counter_table(std::ostream& os, uncore_system& sys);

}  // namespace pmonsim
