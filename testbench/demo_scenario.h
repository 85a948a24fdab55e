// The built-in demonstration: programs every box the way the manuals'
// setup sequences do (329468-002 §2.1.2, 327043-001 §2.1), drives a fixed
// mix of QPI packets and UBox/R2PCIe events for a few microseconds, then
// freezes and reads back. It stands in for trace replay until that exists.
#pragma once
#include "sc/uncore_system.h"

namespace pmonsim {

// Runs inside an SC_THREAD; `us` microseconds of traffic.
void run_demo_scenario(uncore_system& sys, double us);

}  // namespace pmonsim
