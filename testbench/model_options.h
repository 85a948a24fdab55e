// The model options the tools share (pmonsim, pmonsim convert, pmon-stat):
// one definition of their names, defaults and help, which are part of the
// pmonsim command-line contract (docs/user-guide.md).
#pragma once
#include <boost/program_options.hpp>
#include <string>

#include "sc/uncore_config.h"

namespace pmonsim {

// --sockets --qpi-ports --cpus-per-socket --uclk-mhz --qpi-gts --freeze-latency,
// written into `cfg`; `note` starts each help text (e.g. "sim: ").
void add_model_options(boost::program_options::options_description& opts, uncore_config& cfg,
                       const std::string& note = "");

// The CPUs whose global control has a freeze state (for --start-frozen's help).
std::string cpus_with_global_freeze();
// The value of --cpu; throws bad_input (cli_status.h) naming the accepted ones.
cpu_model parse_cpu_option(const std::string& s);

}  // namespace pmonsim
